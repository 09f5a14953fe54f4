//! Statistics of the multi-seed experiment: Wilson intervals for success rates, t
//! intervals for means, and paired tests (paired t-test and exact sign test) for the
//! per-seed difference corrected − myopic. Distributions come from `statrs`; every
//! result is a fixed sequence of float operations on data gathered in seed order, so it
//! is the same whatever the thread count.

use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};

/// The two-sided 95 % normal quantile z(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval (95 %) of `k` successes in `n` trials; (0, 1) for `n = 0`.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Mean, sample standard deviation and 95 % t interval of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Sample size.
    pub n: usize,
    /// Mean (0 for an empty sample).
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator; 0 for n < 2).
    pub sd: f64,
    /// Lower end of the 95 % t interval (the mean for n < 2).
    pub ci_low: f64,
    /// Upper end of the 95 % t interval.
    pub ci_high: f64,
}

/// Summarises `xs` (summed in order).
pub fn summarize(xs: &[f64]) -> Summary {
    let n = xs.len();
    if n == 0 {
        return Summary {
            n,
            mean: 0.0,
            sd: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
        };
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Summary {
            n,
            mean,
            sd: 0.0,
            ci_low: mean,
            ci_high: mean,
        };
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    let half = t_quantile(0.975, (n - 1) as f64) * sd / (n as f64).sqrt();
    Summary {
        n,
        mean,
        sd,
        ci_low: mean - half,
        ci_high: mean + half,
    }
}

/// The `p` quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

/// A paired comparison of two samples (a − b per pair).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// The differences' summary (mean and its 95 % t interval).
    pub diff: Summary,
    /// The paired t statistic (0 when every difference is equal).
    pub t: f64,
    /// Two-sided p-value of the paired t-test (1 when the differences have no spread
    /// and mean 0; 0 when they have no spread and a non-zero mean).
    pub p_t: f64,
    /// Pairs with a > b.
    pub wins: usize,
    /// Pairs with a < b.
    pub losses: usize,
    /// Pairs with a = b.
    pub ties: usize,
    /// Two-sided exact sign-test p-value over the untied pairs.
    pub p_sign: f64,
}

/// Compares `a` and `b` pair by pair (same length, same seed order).
pub fn paired(a: &[f64], b: &[f64]) -> Paired {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let diff = summarize(&d);
    let n = d.len();
    let (t, p_t) = if n < 2 {
        (0.0, 1.0)
    } else if diff.sd == 0.0 {
        (0.0, if diff.mean == 0.0 { 1.0 } else { 0.0 })
    } else {
        let t = diff.mean / (diff.sd / (n as f64).sqrt());
        let p = StudentsT::new(0.0, 1.0, (n - 1) as f64)
            .map(|dist| 2.0 * dist.cdf(-t.abs()))
            .unwrap_or(f64::NAN);
        (t, p.min(1.0))
    };
    let wins = d.iter().filter(|&&x| x > 0.0).count();
    let losses = d.iter().filter(|&&x| x < 0.0).count();
    let ties = n - wins - losses;
    Paired {
        diff,
        t,
        p_t,
        wins,
        losses,
        ties,
        p_sign: sign_test(wins, losses),
    }
}

/// Two-sided exact sign test: 2 · P(K ≤ min(w, l)) for K ~ Binomial(w + l, 1/2), capped
/// at 1.
pub fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = (wins + losses) as u64;
    if n == 0 {
        return 1.0;
    }
    let k = wins.min(losses) as u64;
    Binomial::new(0.5, n)
        .map(|b| (2.0 * b.cdf(k)).min(1.0))
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        assert!((t_quantile(0.975, 1.0) - 12.706).abs() < 1e-3);
        assert!((t_quantile(0.975, 199.0) - 1.972).abs() < 1e-3);
    }

    #[test]
    fn wilson_known_values() {
        // 8/10: (0.4902, 0.9433) (Wilson 1927; e.g. Newcombe 1998 table I).
        let (lo, hi) = wilson(8, 10);
        assert!(
            (lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn paired_tests() {
        let p = paired(&[1.0, 2.0, 3.0, 4.0], &[0.0, 1.0, 2.0, 5.0]);
        assert_eq!((p.wins, p.losses, p.ties), (3, 1, 0));
        assert!((p.p_sign - 0.625).abs() < 1e-12, "{}", p.p_sign);
        assert!((p.diff.mean - 0.5).abs() < 1e-12);
        // Sign test of 10 wins, 0 losses: 2 / 1024.
        assert!((sign_test(10, 0) - 2.0 / 1024.0).abs() < 1e-12);
        assert_eq!(paired(&[1.0, 1.0], &[1.0, 1.0]).p_t, 1.0);
    }
}
