//! Paired significance tests between every pair of methods of a run: a paired randomization
//! (sign-flip permutation) test, a paired bootstrap 95 % interval of the difference, Holm's
//! step-down correction across the family of pairs, and an effect size.
//!
//! The tests are the ones IR evaluation toolkits report (Smucker, Allan & Carterette, "A
//! comparison of statistical significance tests for information retrieval evaluation",
//! CIKM 2007; ranx's `compare`): for one metric, every method is paired with every other on
//! the same scored queries.
//!
//! * **Permutation test** ([`permutation_p`]): under the null hypothesis that the two
//!   methods are exchangeable on every query, the sign of each per-query difference is a fair
//!   coin. Each of `R` rounds flips every sign at random; the two-sided p-value is
//!   `(1 + #{rounds with |mean| ≥ |observed mean|}) / (1 + R)` (Phipson & Smyth 2010: never 0,
//!   valid for a Monte-Carlo test).
//! * **Bootstrap interval**: [`crate::metrics::paired_bootstrap`] (queries resampled with
//!   replacement, the same indices for every pair).
//! * **Holm correction** ([`holm`]): p-values sorted ascending, the i-th (0-based) of `m`
//!   multiplied by `m − i`, made monotone, capped at 1 (Holm, "A simple sequentially
//!   rejective multiple test procedure", Scand. J. Statist. 1979).
//! * **Effect size** ([`effect_size_dz`]): Cohen's `d_z` = mean of the per-query differences
//!   divided by their standard deviation (`n − 1` denominator).
//!
//! Randomness: ChaCha8 seeded with the run's `--bootstrap-seed`; the permutation test of the
//! pair with index `i` (in [`pairs`] order) draws from stream `i` of that seed, so the result
//! does not depend on the thread count or on which pairs run in parallel.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Significance level of the `significant` marks (after Holm's correction).
pub const ALPHA: f64 = 0.05;

/// The metric every pair is tested on (the budget-matched recall@10 of the README tables).
pub const TEST_METRIC: &str = "recall_at_10";

/// Default rounds of the permutation test (`--permutations`).
pub const DEFAULT_PERMUTATIONS: usize = 10_000;

/// Every unordered pair `(i, j)`, `i < j`, of `n` methods, in row-major order.
pub fn pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// Two-sided paired randomization p-value of `mean(diffs) ≠ 0` from `rounds` random sign
/// flips drawn from ChaCha8 (`seed`, stream `stream`); see the module docs. `rounds = 0` or
/// no differences give 1.0. A round counts when `|mean| ≥ |observed| − 1e-12` (so that
/// rounding in the sums never turns a tie into a miss). Cost: O(rounds · n).
pub fn permutation_p(diffs: &[f64], rounds: usize, seed: u64, stream: u64) -> f64 {
    let n = diffs.len();
    if rounds == 0 || n == 0 {
        return 1.0;
    }
    let observed: f64 = diffs.iter().sum::<f64>().abs();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    // Rounds run LANES at a time: their words are drawn in round order (the stream is the
    // same as one round after another), then each round's sum is accumulated in query order
    // as before, the lanes interleaved so the additions overlap. A sign is applied by
    // flipping the sign bit (x + (−d) is x − d exactly), so the p-value is bit for bit the
    // one-round-at-a-time value.
    const LANES: usize = 8;
    let words_per_round = n.div_ceil(64);
    let mut words = vec![0u64; LANES * words_per_round];
    let mut at_least = 0usize;
    let mut done = 0;
    while done < rounds {
        let lanes = LANES.min(rounds - done);
        for w in &mut words[..lanes * words_per_round] {
            *w = rng.next_u64();
        }
        let mut sums = [0.0f64; LANES];
        for (c, chunk) in diffs.chunks(64).enumerate() {
            let mut lane_words = [0u64; LANES];
            for (l, w) in lane_words.iter_mut().enumerate().take(lanes) {
                *w = words[l * words_per_round + c];
            }
            for (b, d) in chunk.iter().enumerate() {
                let bits = d.to_bits();
                for l in 0..LANES {
                    let minus = (!(lane_words[l] >> b) & 1) << 63;
                    sums[l] += f64::from_bits(bits ^ minus);
                }
            }
        }
        at_least += sums[..lanes]
            .iter()
            .filter(|s| s.abs() >= observed - 1e-12)
            .count();
        done += lanes;
    }
    (1 + at_least) as f64 / (1 + rounds) as f64
}

/// Holm-adjusted p-values, in the order of `p` (see the module docs). Ties keep their
/// input order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let adj = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

/// Cohen's `d_z` of paired differences: mean / sample standard deviation; 0.0 when every
/// difference is 0, `None` when they are all equal but not 0 (infinite) or there are fewer
/// than two.
pub fn effect_size_dz(diffs: &[f64]) -> Option<f64> {
    let n = diffs.len();
    if n < 2 {
        return None;
    }
    let mean = diffs.iter().sum::<f64>() / n as f64;
    let var = diffs.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / (n - 1) as f64;
    if var > 0.0 {
        Some(mean / var.sqrt())
    } else if mean == 0.0 {
        Some(0.0)
    } else {
        None
    }
}

/// One tested pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PairTest {
    /// Index of the first method.
    pub a: usize,
    /// Index of the second method.
    pub b: usize,
    /// `mean(a) − mean(b)`.
    pub diff: f64,
    /// Bootstrap 2.5th percentile of the difference.
    pub ci_low: f64,
    /// Bootstrap 97.5th percentile of the difference.
    pub ci_high: f64,
    /// Permutation-test p-value.
    pub p: f64,
    /// Holm-adjusted p-value across every pair of the run.
    pub p_holm: f64,
    /// Cohen's `d_z`.
    pub effect_size_dz: Option<f64>,
    /// Queries on which `a` scored higher.
    pub a_better: usize,
    /// Queries on which `b` scored higher.
    pub b_better: usize,
}

impl PairTest {
    /// Whether the Holm-adjusted p-value is below [`ALPHA`].
    pub fn significant(&self) -> bool {
        self.p_holm < ALPHA
    }
}

/// Tests every pair of `values` (one per-query series per method, all of the same length):
/// permutation p-values (pairs in parallel, deterministic), bootstrap intervals with
/// `resamples` draws, Holm across all pairs.
pub fn test_all_pairs(
    values: &[Vec<f64>],
    permutations: usize,
    resamples: usize,
    seed: u64,
) -> Vec<PairTest> {
    let pairs = pairs(values.len());
    let diffs: Vec<Vec<f64>> = pairs
        .iter()
        .map(|&(a, b)| {
            values[a]
                .iter()
                .zip(&values[b])
                .map(|(x, y)| x - y)
                .collect()
        })
        .collect();
    let p: Vec<f64> = diffs
        .par_iter()
        .enumerate()
        .map(|(i, d)| permutation_p(d, permutations, seed, i as u64))
        .collect();
    let adjusted = holm(&p);
    let series: Vec<(&[f64], &[f64])> = pairs
        .iter()
        .map(|&(a, b)| (values[a].as_slice(), values[b].as_slice()))
        .collect();
    let cis = crate::metrics::paired_bootstrap(&series, resamples, seed);
    pairs
        .iter()
        .zip(&diffs)
        .zip(p.iter().zip(&adjusted))
        .zip(cis)
        .map(|(((&(a, b), d), (&p, &p_holm)), ci)| PairTest {
            a,
            b,
            diff: ci.diff,
            ci_low: ci.lo,
            ci_high: ci.hi,
            p,
            p_holm,
            effect_size_dz: effect_size_dz(d),
            a_better: d.iter().filter(|&&x| x > 0.0).count(),
            b_better: d.iter().filter(|&&x| x < 0.0).count(),
        })
        .collect()
}

impl PairTest {
    /// The pair as a report writes it: `name` gives a method's name, `mean` its mean.
    pub fn written<'n>(
        &self,
        name: impl Fn(usize) -> &'n str,
        mean: impl Fn(usize) -> f64,
    ) -> results::bench::PairTest {
        results::bench::PairTest {
            a: name(self.a).to_string(),
            b: name(self.b).to_string(),
            mean_a: mean(self.a),
            mean_b: mean(self.b),
            diff: self.diff,
            ci95_low: self.ci_low,
            ci95_high: self.ci_high,
            p_value: self.p,
            p_holm: self.p_holm,
            significant: self.significant(),
            effect_size_dz: self.effect_size_dz,
            a_better: self.a_better,
            b_better: self.b_better,
        }
    }
}

/// How a report's `paired_tests` block was computed, and the `pairs`: the metric, the
/// queries, what the difference is (`statistic`), the test, the interval, the
/// `correction`, `pairs_tested` (when fewer pairs are written than tested), the effect
/// size, alpha, `(permutations, resamples, seed)` and how the generators are seeded. One
/// home for the wording shared by every kind of run.
pub fn tests_block(
    metric: &str,
    queries: usize,
    statistic: &str,
    correction: &str,
    pairs_tested: Option<usize>,
    (permutations, resamples, seed): (usize, usize, u64),
    pairs: Vec<results::bench::PairTest>,
) -> results::bench::PairedTests {
    results::bench::PairedTests {
        metric: metric.to_string(),
        queries,
        statistic: statistic.to_string(),
        test: "two-sided paired randomization test: every per-query difference's sign \
               flipped at random, p = (1 + #{|mean| >= |observed|}) / (1 + permutations)"
            .to_string(),
        interval: "paired bootstrap 95% interval (queries resampled with replacement)".to_string(),
        correction: correction.to_string(),
        pairs_tested,
        effect_size: "Cohen's d_z: mean of the per-query differences / their standard \
                      deviation"
            .to_string(),
        alpha: ALPHA,
        permutations,
        resamples,
        seed,
        rng: "ChaCha8 seeded with `seed`; the permutation test of pair i draws from stream i"
            .to_string(),
        pairs,
    }
}

/// Power of the minimum detectable difference.
pub const POWER: f64 = 0.8;

/// Quantile `p` of the standard normal (Acklam's rational approximation refined by one
/// Halley step; |error| < 1e-12).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let lo = 0.02425;
    let x = if p < lo {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - lo {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    // one Halley step on Φ(x) − p
    let e = 0.5 * erfc(-x / std::f64::consts::SQRT_2) - p;
    let u = e * (2.0 * std::f64::consts::PI).sqrt() * (x * x / 2.0).exp();
    x - u / (1.0 + x * u / 2.0)
}

/// Complementary error function (W. J. Cody's rational Chebyshev approximation as in
/// Numerical Recipes' `erfcc`, relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Quantile `p` of Student's t with `df` degrees of freedom: the Cornish–Fisher expansion
/// of the normal quantile `z` in `1/df` to the fourth term (Abramowitz & Stegun 26.7.5).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    let z = normal_quantile(p);
    let z3 = z * z * z;
    let z5 = z3 * z * z;
    let z7 = z5 * z * z;
    let z9 = z7 * z * z;
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * df.powi(4))
}

/// Mean, sample sd, 95 % t interval and minimum detectable difference (80 % power,
/// two-sided α = 0.05) of `xs` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (`n − 1`).
    pub sd: f64,
    /// Lower end of the 95 % t interval.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Minimum detectable mean at 80 % power.
    pub mdd: f64,
    /// Count.
    pub n: usize,
}

/// See [`Summary`]; `n < 2` gives a zero-width interval and MDD `NaN` (written as null).
pub fn summarize(xs: &[f64]) -> Summary {
    let n = xs.len();
    let mean = if n == 0 {
        0.0
    } else {
        xs.iter().sum::<f64>() / n as f64
    };
    if n < 2 {
        return Summary {
            mean,
            sd: 0.0,
            lo: mean,
            hi: mean,
            mdd: f64::NAN,
            n,
        };
    }
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let df = (n - 1) as f64;
    let se = sd / (n as f64).sqrt();
    let t = t_quantile(1.0 - ALPHA / 2.0, df);
    Summary {
        mean,
        sd,
        lo: mean - t * se,
        hi: mean + t * se,
        mdd: (t + t_quantile(POWER, df)) * se,
        n,
    }
}

/// `x` when finite, else `None` (written as null).
pub fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Summary {
    /// As a report writes it.
    pub fn written(&self) -> results::bench::Summary {
        results::bench::Summary {
            mean: finite(self.mean),
            sd: finite(self.sd),
            ci95_low: finite(self.lo),
            ci95_high: finite(self.hi),
            mdd80: finite(self.mdd),
            n: self.n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Student t table values (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2)
        for (p, df, want) in [
            (0.975, 19.0, 2.093),
            (0.975, 9.0, 2.262),
            (0.80, 19.0, 0.861),
            (0.975, 1e9, 1.960),
        ] {
            let got = t_quantile(p, df);
            assert!(
                (got - want).abs() < 2e-3,
                "t({p}, {df}) = {got}, table {want}"
            );
        }
        assert!((normal_quantile(0.8) - 0.841_621_233_572_914_3).abs() < 1e-6);
    }

    #[test]
    fn summary_interval_and_mdd() {
        let s = summarize(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!((s.mean - 3.0).abs() < 1e-12);
        assert!((s.sd - 2.5f64.sqrt()).abs() < 1e-12);
        // t(0.975, 4) = 2.776 (table)
        let half = 2.776 * s.sd / 5f64.sqrt();
        assert!((s.hi - s.mean - half).abs() < 0.02);
        assert!(s.mdd > half);
        assert!(summarize(&[1.0]).mdd.is_nan());
    }

    /// Exact two-sided sign-flip p-value by enumerating all 2^n sign vectors.
    fn exact(diffs: &[f64]) -> f64 {
        let n = diffs.len();
        let obs = diffs.iter().sum::<f64>().abs();
        let mut hits = 0;
        for mask in 0u32..(1 << n) {
            let s: f64 = diffs
                .iter()
                .enumerate()
                .map(|(i, d)| if mask >> i & 1 == 1 { *d } else { -*d })
                .sum();
            if s.abs() >= obs - 1e-12 {
                hits += 1;
            }
        }
        f64::from(hits) / f64::from(1u32 << n)
    }

    #[test]
    fn permutation_p_on_a_hand_case() {
        // Differences (1, 1, 1): of the 8 sign vectors only +++ and --- reach |sum| = 3,
        // so the exact two-sided p-value is 2/8 = 0.25.
        let d = [1.0, 1.0, 1.0];
        assert_eq!(exact(&d), 0.25);
        let p = permutation_p(&d, 20_000, 0, 0);
        assert!((p - 0.25).abs() < 0.01, "{p}");
        // (1, -1, 0.5, 0.5): |sum| = 1; sums over the 16 sign vectors reach |s| ≥ 1 in 12.
        let d = [1.0, -1.0, 0.5, 0.5];
        assert_eq!(exact(&d), 0.75);
        let p = permutation_p(&d, 20_000, 3, 1);
        assert!((p - 0.75).abs() < 0.01, "{p}");
        // All-zero differences: every round ties, p = 1; no rounds: 1.
        assert_eq!(permutation_p(&[0.0; 5], 100, 0, 0), 1.0);
        assert_eq!(permutation_p(&d, 0, 0, 0), 1.0);
        // The smallest p-value a Monte-Carlo test can give is 1/(R+1).
        let big = vec![1.0; 40];
        assert_eq!(permutation_p(&big, 999, 0, 0), 1.0 / 1000.0);
    }

    /// The test one round at a time, branch per sign: what [`permutation_p`] computes with
    /// its rounds interleaved.
    fn one_round_at_a_time(diffs: &[f64], rounds: usize, seed: u64, stream: u64) -> f64 {
        let observed: f64 = diffs.iter().sum::<f64>().abs();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        let mut at_least = 0usize;
        for _ in 0..rounds {
            let mut sum = 0.0;
            for chunk in diffs.chunks(64) {
                let bits = rng.next_u64();
                for (b, d) in chunk.iter().enumerate() {
                    if bits >> b & 1 == 1 {
                        sum += d;
                    } else {
                        sum -= d;
                    }
                }
            }
            if sum.abs() >= observed - 1e-12 {
                at_least += 1;
            }
        }
        (1 + at_least) as f64 / (1 + rounds) as f64
    }

    #[test]
    fn interleaved_rounds_give_the_one_round_at_a_time_p_value_bit_for_bit() {
        for (n, rounds) in [(1, 1), (63, 9), (64, 8), (130, 17), (1100, 203)] {
            let d: Vec<f64> = (0..n)
                .map(|i| f64::from((i * 37 % 11) as u32) / 10.0 - 0.45)
                .collect();
            for stream in [0, 5] {
                let want = one_round_at_a_time(&d, rounds, 7, stream);
                let got = permutation_p(&d, rounds, 7, stream);
                assert_eq!(got.to_bits(), want.to_bits(), "n {n}, rounds {rounds}");
            }
        }
    }

    #[test]
    fn permutation_p_is_deterministic_per_stream() {
        let d: Vec<f64> = (0..100).map(|i| f64::from(i % 7) - 2.9).collect();
        assert_eq!(permutation_p(&d, 500, 9, 2), permutation_p(&d, 500, 9, 2));
        assert_ne!(permutation_p(&d, 500, 9, 2), permutation_p(&d, 500, 9, 3));
    }

    #[test]
    fn holm_on_known_p_values() {
        // m = 4; sorted 0.01, 0.02, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.04, 0.06, 0.06, 0.04 →
        // monotone: 0.04, 0.06, 0.06, 0.06.
        let adj = holm(&[0.03, 0.01, 0.04, 0.02]);
        let want = [0.06, 0.04, 0.06, 0.06];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adj:?}");
        }
        // Capped at 1; a single p-value is unchanged.
        assert_eq!(holm(&[0.5, 0.6]), vec![1.0, 1.0]);
        assert_eq!(holm(&[0.2]), vec![0.2]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn effect_size_and_pairs() {
        assert_eq!(effect_size_dz(&[1.0, 3.0]), Some(2.0 / 2f64.sqrt()));
        assert_eq!(effect_size_dz(&[0.0, 0.0]), Some(0.0));
        assert_eq!(effect_size_dz(&[1.0, 1.0]), None);
        assert_eq!(effect_size_dz(&[1.0]), None);
        assert_eq!(pairs(3), vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn all_pairs_marks_the_clear_difference_only() {
        let n = 200;
        let a: Vec<f64> = (0..n).map(|i| f64::from(i % 2 == 0)).collect();
        let c: Vec<f64> = (0..n).map(|i| f64::from(i % 10 == 0)).collect();
        let values = [a.clone(), a, c];
        let t = test_all_pairs(&values, 2000, 200, 0);
        assert_eq!(t.len(), 3);
        assert_eq!(
            (t[0].a, t[0].b, t[0].p, t[0].significant()),
            (0, 1, 1.0, false)
        );
        assert!(t[1].significant() && (t[1].diff - 0.4).abs() < 1e-12 && t[1].ci_low > 0.0);
        assert_eq!((t[1].a_better, t[1].b_better), (80, 0));
        assert_eq!(t, test_all_pairs(&values, 2000, 200, 0), "deterministic");
    }
}
