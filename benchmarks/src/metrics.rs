//! Per-query metrics, stream means, learning curves and paired bootstrap intervals.
//!
//! Two families, computed for every method on its ordered `retrieved` list:
//!
//! * **Reference metrics** (BENCH.md §1.2, §1.3), with the reference's names and formulas, so
//!   that the `paper` protocol reproduces the reference program's numbers. HotPotQA:
//!   `sp_recall_at_5`, `sp_recall_at_10` (1 if *all* relevant ids are in the top 5 / 10),
//!   `single_sp_hit_at_5`, `distractor_suppression` (the *share* of non-relevant ids in the top
//!   10 — higher is worse, BENCH.md §2 defect 3), `mrr` (whole list), `nodes_fired`.
//!   MultiHop-RAG: `full_hit_rate` (all relevant anywhere in the list, whatever its length —
//!   BENCH.md §2 defect 4), `partial_hit_rate`, `evidence_recall_at_10` (over the first
//!   `min(embed_top_k, 10)`), `mrr`, `nodes_fired`.
//! * **Budget-matched metrics** (BENCH.md §3), identical for both datasets. Every method is cut
//!   to its first `k` results (traversal: first `k` in fired order; a traversal that fired fewer
//!   than `k` nodes is not padded): `recall_at_5`, `recall_at_10` (fraction of relevant ids in
//!   the top k; 0 when a query has no relevant id), `full_support_at_5`, `full_support_at_10`
//!   (1 if every relevant id is in the top k; vacuously 1 without relevant ids, as the
//!   reference), `mrr_at_10`, `ndcg_at_10` (binary gains, `1/log2(rank+1)`, ideal = all relevant
//!   ranked first), and `distractor_share_at_10` (= the reference's `distractor_suppression`,
//!   named for what it measures).
//!
//! Means are plain left-to-right sums divided by the count, as the reference's
//! `sum(...) / count` (CPython ≤ 3.11 `sum`; 3.12 switched float `sum` to compensated
//! summation, which can change the last digit).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use crate::build::DatasetKind;

/// The reference's metric names for a dataset, in the reference's key order.
pub fn reference_metric_names(ds: DatasetKind) -> &'static [&'static str] {
    match ds {
        DatasetKind::HotpotQa => &[
            "sp_recall_at_5",
            "sp_recall_at_10",
            "single_sp_hit_at_5",
            "distractor_suppression",
            "mrr",
            "nodes_fired",
        ],
        DatasetKind::MultihopRag => &[
            "full_hit_rate",
            "partial_hit_rate",
            "evidence_recall_at_10",
            "mrr",
            "nodes_fired",
        ],
    }
}

/// Budget-matched metric names (both datasets).
pub const BUDGET_METRICS: [&str; 7] = [
    "recall_at_5",
    "recall_at_10",
    "full_support_at_5",
    "full_support_at_10",
    "mrr_at_10",
    "ndcg_at_10",
    "distractor_share_at_10",
];

/// Metric that decides the learning outcome (+1 if it is 1, else −1; BENCH.md §1.2, §1.3).
pub fn outcome_metric(ds: DatasetKind) -> &'static str {
    match ds {
        DatasetKind::HotpotQa => "sp_recall_at_10",
        DatasetKind::MultihopRag => "full_hit_rate",
    }
}

/// Metrics that get paired bootstrap intervals against `embedding_topk`.
pub fn headline_metrics(ds: DatasetKind) -> Vec<&'static str> {
    let mut v = vec![outcome_metric(ds)];
    v.extend([
        "recall_at_5",
        "recall_at_10",
        "full_support_at_10",
        "mrr",
        "ndcg_at_10",
    ]);
    v
}

/// All metric names of a dataset in output order: reference, then budget-matched.
pub fn all_metric_names(ds: DatasetKind) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = reference_metric_names(ds).to_vec();
    v.extend(BUDGET_METRICS);
    v
}

/// How a short explanation of each metric reads in the output JSON.
pub fn metric_notes(ds: DatasetKind) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |k: &str, v: &str| {
        m.insert(k.to_string(), Value::String(v.to_string()));
    };
    match ds {
        DatasetKind::HotpotQa => {
            put("sp_recall_at_5", "reference name; = full_support_at_5");
            put(
                "sp_recall_at_10",
                "reference name; = full_support_at_10; learning outcome",
            );
            put(
                "single_sp_hit_at_5",
                "reference name: any relevant id in the top 5",
            );
            put(
                "distractor_suppression",
                "reference name, misnamed (BENCH.md §2.3): share of non-relevant ids in the \
                 top 10, higher is WORSE; = distractor_share_at_10",
            );
        }
        DatasetKind::MultihopRag => {
            put(
                "full_hit_rate",
                "reference name: all relevant ids anywhere in the retrieved list, whatever its \
                 length (unequal budgets, BENCH.md §2.4); learning outcome",
            );
            put(
                "partial_hit_rate",
                "reference name: any relevant id anywhere in the list",
            );
            put(
                "evidence_recall_at_10",
                "reference name: recall over the first min(embed_top_k, 10) results",
            );
        }
    }
    put(
        "mrr",
        "reference: 1/rank of the first relevant id in the whole list",
    );
    put("nodes_fired", "reference: length of the retrieved list");
    put(
        "recall_at_5",
        "budget-matched: fraction of relevant ids in the first 5",
    );
    put(
        "recall_at_10",
        "budget-matched: fraction of relevant ids in the first 10",
    );
    put(
        "full_support_at_5",
        "budget-matched: all relevant ids in the first 5",
    );
    put(
        "full_support_at_10",
        "budget-matched: all relevant ids in the first 10",
    );
    put("mrr_at_10", "budget-matched: MRR cut at 10");
    put("ndcg_at_10", "budget-matched: binary-gain nDCG@10");
    put(
        "distractor_share_at_10",
        "budget-matched: share of non-relevant ids among the first 10 (lower is better)",
    );
    m
}

/// All metrics of one query, in [`all_metric_names`] order.
pub fn query_metrics(
    ds: DatasetKind,
    retrieved: &[usize],
    relevant: &[usize],
    embed_top_k: usize,
) -> Vec<f64> {
    let is_rel = |d: &usize| relevant.contains(d);
    let top = |k: usize| &retrieved[..retrieved.len().min(k)];
    let all_in = |list: &[usize]| relevant.iter().all(|r| list.contains(r));
    let count_rel = |list: &[usize]| list.iter().filter(|d| is_rel(d)).count();
    let b = |x: bool| if x { 1.0 } else { 0.0 };
    let mrr_of = |list: &[usize]| {
        list.iter()
            .position(is_rel)
            .map_or(0.0, |p| 1.0 / (p + 1) as f64)
    };
    let top10 = top(10);
    let share10 = (top10.len() - count_rel(top10)) as f64 / top10.len().max(1) as f64;
    let mut v = match ds {
        DatasetKind::HotpotQa => vec![
            b(all_in(top(5))),
            b(all_in(top10)),
            b(count_rel(top(5)) > 0),
            share10,
            mrr_of(retrieved),
            retrieved.len() as f64,
        ],
        DatasetKind::MultihopRag => {
            let t = top(embed_top_k.min(10));
            let rec = if relevant.is_empty() {
                0.0
            } else {
                count_rel(t) as f64 / relevant.len() as f64
            };
            vec![
                b(all_in(retrieved)),
                b(count_rel(retrieved) > 0),
                rec,
                mrr_of(retrieved),
                retrieved.len() as f64,
            ]
        }
    };
    let recall = |k: usize| {
        if relevant.is_empty() {
            0.0
        } else {
            count_rel(top(k)) as f64 / relevant.len() as f64
        }
    };
    let mut dcg = 0.0;
    for (i, d) in top10.iter().enumerate() {
        if is_rel(d) {
            dcg += 1.0 / ((i + 2) as f64).log2();
        }
    }
    let mut idcg = 0.0;
    for i in 0..relevant.len().min(10) {
        idcg += 1.0 / ((i + 2) as f64).log2();
    }
    v.extend([
        recall(5),
        recall(10),
        b(all_in(top(5))),
        b(all_in(top10)),
        mrr_of(top10),
        if idcg > 0.0 { dcg / idcg } else { 0.0 },
        share10,
    ]);
    v
}

/// Mean of each column over `rows` (plain left-to-right sum, then `/ count`); zeros when
/// there are no rows (as the reference's `_avg`).
pub fn mean_rows(rows: &[Vec<f64>], width: usize) -> Vec<f64> {
    let mut sums = vec![0.0; width];
    for r in rows {
        for (s, x) in sums.iter_mut().zip(r) {
            *s += *x;
        }
    }
    if rows.is_empty() {
        return sums;
    }
    let n = rows.len() as f64;
    sums.iter().map(|s| s / n).collect()
}

/// Cumulative means at each checkpoint `c ≤ rows.len()` (the reference's learning curve):
/// `(c, means of rows[..c])`.
pub fn curve(rows: &[Vec<f64>], width: usize, checkpoints: &[usize]) -> Vec<(usize, Vec<f64>)> {
    checkpoints
        .iter()
        .filter(|&&c| c >= 1 && c <= rows.len())
        .map(|&c| (c, mean_rows(&rows[..c], width)))
        .collect()
}

/// A paired bootstrap interval of `mean(a) − mean(b)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedCi {
    /// Observed difference of means.
    pub diff: f64,
    /// 2.5th percentile of the resampled differences.
    pub lo: f64,
    /// 97.5th percentile of the resampled differences.
    pub hi: f64,
}

/// Paired bootstrap 95 % intervals of `mean(method) − mean(baseline)` for several series at
/// once. `series[j] = (method values, baseline values)`, all of the same length `n`. Each of
/// the `resamples` draws `n` query indices uniformly with replacement from a ChaCha8 stream
/// seeded with `seed` (the same indices for every series, so intervals are jointly
/// resampled); percentiles are the order statistics at `floor(0.025·B)` and
/// `ceil(0.975·B) − 1` of the sorted differences. `resamples = 0` gives `lo = hi = diff`.
pub fn paired_bootstrap(series: &[(&[f64], &[f64])], resamples: usize, seed: u64) -> Vec<PairedCi> {
    let n = series.first().map_or(0, |s| s.0.len());
    let diff_of = |idx: &mut dyn Iterator<Item = usize>, a: &[f64], b: &[f64]| {
        let (mut sa, mut sb, mut c) = (0.0, 0.0, 0usize);
        for i in idx {
            sa += a[i];
            sb += b[i];
            c += 1;
        }
        if c == 0 {
            0.0
        } else {
            sa / c as f64 - sb / c as f64
        }
    };
    let observed: Vec<f64> = series
        .iter()
        .map(|(a, b)| diff_of(&mut (0..n), a, b))
        .collect();
    if resamples == 0 || n == 0 {
        return observed
            .iter()
            .map(|&d| PairedCi {
                diff: d,
                lo: d,
                hi: d,
            })
            .collect();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut reps: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); series.len()];
    let mut idx = vec![0usize; n];
    for _ in 0..resamples {
        for x in idx.iter_mut() {
            *x = rng.gen_range(0..n);
        }
        for (j, (a, b)) in series.iter().enumerate() {
            reps[j].push(diff_of(&mut idx.iter().copied(), a, b));
        }
    }
    let lo_i = (0.025 * resamples as f64).floor() as usize;
    let hi_i = ((0.975 * resamples as f64).ceil() as usize).saturating_sub(1);
    observed
        .iter()
        .zip(reps.iter_mut())
        .map(|(&d, r)| {
            r.sort_by(f64::total_cmp);
            PairedCi {
                diff: d,
                lo: r[lo_i.min(r.len() - 1)],
                hi: r[hi_i.min(r.len() - 1)],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotpot_reference_formulas() {
        let names = all_metric_names(DatasetKind::HotpotQa);
        let m = query_metrics(DatasetKind::HotpotQa, &[9, 1, 8, 7, 6, 2, 5], &[1, 2], 10);
        let get = |k: &str| m[names.iter().position(|n| *n == k).unwrap()];
        assert_eq!(get("sp_recall_at_5"), 0.0);
        assert_eq!(get("sp_recall_at_10"), 1.0);
        assert_eq!(get("single_sp_hit_at_5"), 1.0);
        assert_eq!(get("distractor_suppression"), 5.0 / 7.0);
        assert_eq!(get("mrr"), 0.5);
        assert_eq!(get("nodes_fired"), 7.0);
        assert_eq!(get("recall_at_5"), 0.5);
        assert_eq!(get("full_support_at_10"), 1.0);
        let ndcg = (1.0 / 3f64.log2() + 1.0 / 7f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert_eq!(get("ndcg_at_10"), ndcg);
    }

    #[test]
    fn multihop_reference_formulas() {
        let names = all_metric_names(DatasetKind::MultihopRag);
        let list: Vec<usize> = (10..22).collect(); // 12 results
        let m = query_metrics(DatasetKind::MultihopRag, &list, &[11, 21, 99], 10);
        let get = |k: &str| m[names.iter().position(|n| *n == k).unwrap()];
        assert_eq!(get("full_hit_rate"), 0.0);
        assert_eq!(get("partial_hit_rate"), 1.0);
        assert_eq!(get("evidence_recall_at_10"), 1.0 / 3.0);
        assert_eq!(get("mrr"), 0.5);
        assert_eq!(get("nodes_fired"), 12.0);
        let m = query_metrics(DatasetKind::MultihopRag, &list, &[11, 21], 10);
        let get = |k: &str| m[names.iter().position(|n| *n == k).unwrap()];
        assert_eq!(get("full_hit_rate"), 1.0, "looks at all 12, not the top 10");
        assert_eq!(get("full_support_at_10"), 0.0);
    }

    #[test]
    fn curve_and_mean() {
        let rows: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64]).collect();
        assert_eq!(mean_rows(&rows, 1), vec![2.0]);
        assert_eq!(
            curve(&rows, 1, &[2, 4, 50]),
            vec![(2, vec![0.5]), (4, vec![1.5])]
        );
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_difference() {
        let a: Vec<f64> = (0..200).map(|i| f64::from(i % 3 == 0)).collect();
        let b: Vec<f64> = (0..200).map(|i| f64::from(i % 5 == 0)).collect();
        let x = paired_bootstrap(&[(&a, &b)], 500, 7);
        let y = paired_bootstrap(&[(&a, &b)], 500, 7);
        assert_eq!(x, y);
        assert!(x[0].lo <= x[0].diff && x[0].diff <= x[0].hi);
        let same = paired_bootstrap(&[(&a, &a)], 100, 1);
        assert_eq!((same[0].lo, same[0].hi), (0.0, 0.0));
    }
}
