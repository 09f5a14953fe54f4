//! The engine's two numeric primitives, shared by learning and routing: Python's
//! compensated float sum and the softmax policy. A leaf module, so that the router and
//! the learning rule can both use them without importing each other.

/// Sum of `xs` in order with Neumaier compensation, exactly as CPython ≥ 3.12's built-in
/// `sum` of floats: `t = s + x`; `c += (s − t) + x` if |s| ≥ |x| else `(x − t) + s`;
/// `s = t`; the result is `s + c` when `c` is non-zero and finite, else `s`.
pub fn neumaier_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for x in xs {
        let t = s + x;
        if s.abs() >= x.abs() {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
        s = t;
    }
    if c != 0.0 && c.is_finite() {
        s + c
    } else {
        s
    }
}

/// `softmax(w / τ)` with max subtraction and a compensated denominator; all zeros if
/// the denominator is 0. With τ = 1 the exponent is exactly `w − max` (reference).
pub fn softmax(weights: &[f64], temperature: f64) -> Vec<f64> {
    softmax_with(weights, temperature, true)
}

pub(crate) fn softmax_with(weights: &[f64], temperature: f64, compensated: bool) -> Vec<f64> {
    let m = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = weights
        .iter()
        .map(|w| {
            if temperature == 1.0 {
                (w - m).exp()
            } else {
                ((w - m) / temperature).exp()
            }
        })
        .collect();
    let total = if compensated {
        neumaier_sum(e.iter().copied())
    } else {
        e.iter().sum()
    };
    if total == 0.0 {
        return vec![0.0; weights.len()];
    }
    e.iter().map(|x| x / total).collect()
}
