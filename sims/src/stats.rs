//! Statistics for multi-seed aggregation: mean, sample standard deviation and a
//! two-sided 95 % **Student-t** confidence interval for the mean,
//! `mean ± t(0.975, n − 1) · s / √n`.
//!
//! The t quantile is computed (not tabulated) by bisection on the Student-t CDF, which
//! uses the regularized incomplete beta function (continued fraction, modified Lentz)
//! and a Lanczos log-gamma. Everything is a fixed sequence of floating-point
//! operations, so results do not depend on thread count or platform scheduling.

/// Mean, sample standard deviation and 95 % t-interval of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Sample size.
    pub n: usize,
    /// Arithmetic mean (`None` for an empty sample).
    pub mean: Option<f64>,
    /// Sample standard deviation, `n − 1` denominator (`None` for `n < 2`).
    pub std: Option<f64>,
    /// Lower end of the 95 % t-interval (`None` for `n < 2`).
    pub ci95_low: Option<f64>,
    /// Upper end of the 95 % t-interval (`None` for `n < 2`).
    pub ci95_high: Option<f64>,
}

/// Least-squares slope of `ln y` against `ln x` (the exponent `k` of `y ∝ x^k`);
/// `None` with fewer than two distinct x or a non-positive value.
pub fn loglog_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.iter().any(|&(x, y)| !(x > 0.0 && y > 0.0)) {
        return None;
    }
    let pts: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The `q`-quantile (0 ≤ q ≤ 1) of `xs` by linear interpolation between order
/// statistics (NumPy's default); `None` for an empty sample or a NaN.
pub fn quantile(xs: &[f64], q: f64) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (pos - lo as f64))
}

/// Summarizes `xs` (summed in the given order).
pub fn summarize(xs: &[f64]) -> Summary {
    let n = xs.len();
    if n == 0 {
        return Summary {
            n,
            mean: None,
            std: None,
            ci95_low: None,
            ci95_high: None,
        };
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Summary {
            n,
            mean: Some(mean),
            std: None,
            ci95_low: None,
            ci95_high: None,
        };
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let std = var.sqrt();
    let half = student_t_quantile(0.975, (n - 1) as f64) * std / (n as f64).sqrt();
    Summary {
        n,
        mean: Some(mean),
        std: Some(std),
        ci95_low: Some(mean - half),
        ci95_high: Some(mean + half),
    }
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 coefficients; relative error ~1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta function (modified Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-16;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    // One Lentz step with coefficient `aa`: updates `d` and `c`, returns the factor.
    let mut step = |aa: f64| {
        let nonzero = |v: f64| if v.abs() < TINY { TINY } else { v };
        d = 1.0 / nonzero(1.0 + aa * d);
        c = nonzero(1.0 + aa / c);
        d * c
    };
    for m in 1..=500 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// Regularized incomplete beta `I_x(a, b)`.
fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

/// Student-t CDF with `df` degrees of freedom.
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The `p`-quantile (`0.5 < p < 1`) of Student's t with `df` degrees of freedom, by
/// bisection to full double precision.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while student_t_cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e12 {
            break;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Standard two-sided 95 % critical values.
        let cases = [
            (1.0, 12.706204736174698),
            (2.0, 4.302652729749464),
            (9.0, 2.2621571628540993),
            (29.0, 2.045229642132703),
            (99.0, 1.9842169515086827),
        ];
        for (df, want) in cases {
            let got = student_t_quantile(0.975, df);
            assert!((got - want).abs() < 1e-9, "df {df}: {got} vs {want}");
        }
    }

    #[test]
    fn loglog_slope_and_quantiles() {
        // y = 3·x^0.5 exactly: slope 0.5
        let pts: Vec<(f64, f64)> = [1.0, 10.0, 100.0, 1e4]
            .iter()
            .map(|&x: &f64| (x, 3.0 * x.sqrt()))
            .collect();
        assert!((loglog_slope(&pts).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(loglog_slope(&[(1.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(loglog_slope(&[(1.0, 0.0), (2.0, 2.0)]), None);
        // numpy.quantile([1, 2, 3, 4], 0.5) = 2.5, 0.9 → 3.7
        assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0], 0.5), Some(2.5));
        assert!((quantile(&[4.0, 1.0, 3.0, 2.0], 0.9).unwrap() - 3.7).abs() < 1e-12);
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[1.0, f64::NAN], 0.5), None);
    }

    #[test]
    fn summary_values() {
        let s = summarize(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.n, 4);
        assert_eq!(s.mean, Some(2.5));
        let std = (5.0f64 / 3.0).sqrt();
        assert!((s.std.unwrap() - std).abs() < 1e-15);
        let half = 3.182446305284263 * std / 2.0;
        assert!((s.ci95_low.unwrap() - (2.5 - half)).abs() < 1e-9);
        assert!((s.ci95_high.unwrap() - (2.5 + half)).abs() < 1e-9);
        let one = summarize(&[7.0]);
        assert_eq!((one.mean, one.std), (Some(7.0), None));
        assert_eq!(summarize(&[]).mean, None);
    }
}
