//! The metric table, stream means, learning curves and paired bootstrap intervals.
//!
//! Every metric is one entry of [`METRICS`]: its name, the datasets it is reported for, its
//! family, what it measures and a note, and the function that computes it for one query from
//! the method's ordered `retrieved` list and the query's relevant ids. Adding a metric is
//! adding an entry; the run, the JSON (`method_metrics`, curves, `metric_notes`) and the
//! tables follow the table.
//!
//! Two families:
//!
//! * **Reference metrics**, with the names and formulas of the reference program
//!   (`benchmarks/external/run_hotpotqa.py::_row_metrics` and
//!   `run_multihop_rag.py::_row_metrics`, commit 134c676), so that the `paper` protocol
//!   reproduces its numbers. Two of them do not measure what their names say (see the notes
//!   and `benchmarks/README.md`, defects 3 and 4).
//! * **Budget-matched metrics**, identical for both datasets: every method is cut to its first
//!   `k` results (a traversal that fired fewer than `k` nodes is not padded), so that methods
//!   returning lists of different lengths are compared at equal cost.
//!
//! Means are plain left-to-right sums divided by the count, as the reference's `_avg`
//! (CPython ≤ 3.11 `sum`; 3.12 switched float `sum` to compensated summation, which can change
//! the last digit).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::catalog::Dataset;

/// One query as a metric sees it.
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a> {
    /// The method's results, best first (node indices).
    pub retrieved: &'a [usize],
    /// The query's relevant node indices (distinct).
    pub relevant: &'a [usize],
    /// The run's `--embed-top-k` (the reference's `evidence_recall_at_10` depends on it).
    pub embed_top_k: usize,
}

impl Judged<'_> {
    /// The first `k` results (fewer if the list is shorter).
    pub fn top(&self, k: usize) -> &[usize] {
        &self.retrieved[..self.retrieved.len().min(k)]
    }

    fn is_relevant(&self, d: &usize) -> bool {
        self.relevant.contains(d)
    }

    /// Relevant ids among `list`.
    pub fn hits(&self, list: &[usize]) -> usize {
        list.iter().filter(|d| self.is_relevant(d)).count()
    }

    /// 1.0 if every relevant id is in `list` (vacuously 1.0 without relevant ids), else 0.0.
    pub fn all_in(&self, list: &[usize]) -> f64 {
        indicator(self.relevant.iter().all(|r| list.contains(r)))
    }

    /// 1.0 if any relevant id is in `list`, else 0.0.
    pub fn any_in(&self, list: &[usize]) -> f64 {
        indicator(self.hits(list) > 0)
    }

    /// Fraction of the relevant ids that are in `list`; 0.0 without relevant ids.
    pub fn recall(&self, list: &[usize]) -> f64 {
        if self.relevant.is_empty() {
            0.0
        } else {
            self.hits(list) as f64 / self.relevant.len() as f64
        }
    }

    /// Share of non-relevant ids in `list`; 0.0 for an empty list.
    pub fn distractor_share(&self, list: &[usize]) -> f64 {
        (list.len() - self.hits(list)) as f64 / list.len().max(1) as f64
    }

    /// `1 / rank` of the first relevant id in `list`, 0.0 if none.
    pub fn reciprocal_rank(&self, list: &[usize]) -> f64 {
        list.iter()
            .position(|d| self.is_relevant(d))
            .map_or(0.0, |p| 1.0 / (p + 1) as f64)
    }

    /// Binary-gain nDCG of the first `k`: `Σ 1/log2(rank + 1)` over the relevant ids among
    /// them, divided by the same sum with every relevant id ranked first; 0.0 without
    /// relevant ids.
    pub fn ndcg(&self, k: usize) -> f64 {
        let mut dcg = 0.0;
        for (i, d) in self.top(k).iter().enumerate() {
            if self.is_relevant(d) {
                dcg += 1.0 / ((i + 2) as f64).log2();
            }
        }
        let mut idcg = 0.0;
        for i in 0..self.relevant.len().min(k) {
            idcg += 1.0 / ((i + 2) as f64).log2();
        }
        if idcg > 0.0 {
            dcg / idcg
        } else {
            0.0
        }
    }
}

fn indicator(x: bool) -> f64 {
    if x {
        1.0
    } else {
        0.0
    }
}

/// Which datasets a metric is reported for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// HotPotQA only (a reference metric of `run_hotpotqa.py`).
    HotpotQa,
    /// MultiHop-RAG only (a reference metric of `run_multihop_rag.py`).
    MultihopRag,
    /// Both datasets.
    Both,
}

impl Scope {
    fn covers(self, ds: Dataset) -> bool {
        matches!(
            (self, ds),
            (Scope::Both, _)
                | (Scope::HotpotQa, Dataset::HotpotQa)
                | (Scope::MultihopRag, Dataset::MultihopRag)
        )
    }
}

/// The two families of metrics (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The reference program's name and formula.
    Reference,
    /// Every method cut to its first `k` results.
    BudgetMatched,
}

impl Family {
    /// `reference` / `budget-matched`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Reference => "reference",
            Family::BudgetMatched => "budget-matched",
        }
    }
}

/// One entry of the metric table.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Key in the JSON report.
    pub name: &'static str,
    /// Datasets it is reported for.
    pub scope: Scope,
    /// Reference or budget-matched.
    pub family: Family,
    /// What it measures (the formula in words).
    pub definition: &'static str,
    /// Aliases, caveats and roles (empty when there is nothing to add).
    pub note: &'static str,
    /// Its value for one query.
    pub compute: fn(&Judged) -> f64,
}

impl Metric {
    /// The `metric_notes` text of the JSON report: family, definition and note.
    pub fn describe(&self) -> String {
        let mut s = format!("{}: {}", self.family.as_str(), self.definition);
        if !self.note.is_empty() {
            s.push_str("; ");
            s.push_str(self.note);
        }
        s
    }
}

/// A reference metric (see [`Family::Reference`]).
const fn reference(
    name: &'static str,
    scope: Scope,
    definition: &'static str,
    note: &'static str,
    compute: fn(&Judged) -> f64,
) -> Metric {
    Metric {
        name,
        scope,
        family: Family::Reference,
        definition,
        note,
        compute,
    }
}

/// A budget-matched metric, reported for both datasets.
const fn budget(
    name: &'static str,
    definition: &'static str,
    compute: fn(&Judged) -> f64,
) -> Metric {
    Metric {
        name,
        scope: Scope::Both,
        family: Family::BudgetMatched,
        definition,
        note: "",
        compute,
    }
}

/// Every metric, in report order: the reference metrics in the reference's key order (the
/// scope leaves one dataset's), then the budget-matched ones.
pub const METRICS: &[Metric] = &[
    reference(
        "sp_recall_at_5",
        Scope::HotpotQa,
        "1 if every relevant id is in the first 5 results, else 0",
        "= full_support_at_5",
        |j| j.all_in(j.top(5)),
    ),
    reference(
        "sp_recall_at_10",
        Scope::HotpotQa,
        "1 if every relevant id is in the first 10 results, else 0",
        "= full_support_at_10; decides the learning outcome on HotPotQA",
        |j| j.all_in(j.top(10)),
    ),
    reference(
        "single_sp_hit_at_5",
        Scope::HotpotQa,
        "1 if any relevant id is in the first 5 results, else 0",
        "",
        |j| j.any_in(j.top(5)),
    ),
    reference(
        "distractor_suppression",
        Scope::HotpotQa,
        "share of non-relevant ids among the first 10 results",
        "misnamed: higher is WORSE (benchmarks/README.md, defect 3); \
               = distractor_share_at_10",
        |j| j.distractor_share(j.top(10)),
    ),
    reference(
        "full_hit_rate",
        Scope::MultihopRag,
        "1 if every relevant id is anywhere in the retrieved list, whatever its \
                     length, else 0",
        "unequal budgets (benchmarks/README.md, defect 4); decides the learning outcome \
               on MultiHop-RAG",
        |j| j.all_in(j.retrieved),
    ),
    reference(
        "partial_hit_rate",
        Scope::MultihopRag,
        "1 if any relevant id is anywhere in the retrieved list, else 0",
        "",
        |j| j.any_in(j.retrieved),
    ),
    reference(
        "evidence_recall_at_10",
        Scope::MultihopRag,
        "fraction of the relevant ids in the first min(embed_top_k, 10) results; \
                     0 without relevant ids",
        "",
        |j| j.recall(j.top(j.embed_top_k.min(10))),
    ),
    reference(
        "mrr",
        Scope::Both,
        "1/rank of the first relevant id in the whole retrieved list, 0 if none",
        "",
        |j| j.reciprocal_rank(j.retrieved),
    ),
    reference(
        "nodes_fired",
        Scope::Both,
        "length of the retrieved list",
        "",
        |j| j.retrieved.len() as f64,
    ),
    budget(
        "recall_at_2",
        "fraction of the relevant ids in the first 2 results; 0 without relevant ids \
         (HippoRAG's R@2: |top-2 ∩ gold| / |gold| per query, averaged)",
        |j| j.recall(j.top(2)),
    ),
    budget(
        "recall_at_5",
        "fraction of the relevant ids in the first 5 results; 0 without relevant ids \
         (HippoRAG's R@5)",
        |j| j.recall(j.top(5)),
    ),
    budget(
        "recall_at_10",
        "fraction of the relevant ids in the first 10 results; 0 without relevant \
                     ids",
        |j| j.recall(j.top(10)),
    ),
    budget(
        "full_support_at_2",
        "1 if every relevant id is in the first 2 results, else 0 (1 without \
                     relevant ids); all-supporting-docs@2",
        |j| j.all_in(j.top(2)),
    ),
    budget(
        "full_support_at_5",
        "1 if every relevant id is in the first 5 results, else 0 (1 without \
                     relevant ids)",
        |j| j.all_in(j.top(5)),
    ),
    budget(
        "full_support_at_10",
        "1 if every relevant id is in the first 10 results, else 0 (1 without \
                     relevant ids)",
        |j| j.all_in(j.top(10)),
    ),
    budget(
        "mrr_at_10",
        "1/rank of the first relevant id among the first 10 results, 0 if none",
        |j| j.reciprocal_rank(j.top(10)),
    ),
    budget(
        "ndcg_at_10",
        "binary-gain nDCG of the first 10 results (gain 1/log2(rank+1) per \
                     relevant id; ideal = every relevant id ranked first)",
        |j| j.ndcg(10),
    ),
    budget(
        "distractor_share_at_10",
        "share of non-relevant ids among the first 10 results (lower is better)",
        |j| j.distractor_share(j.top(10)),
    ),
];

/// The metrics of a dataset, in report order.
pub fn metrics_of(ds: Dataset) -> Vec<&'static Metric> {
    METRICS.iter().filter(|m| m.scope.covers(ds)).collect()
}

/// Metrics that get paired bootstrap intervals, in report order: the dataset's outcome
/// metric, then these.
pub const PAIRED_METRICS: [&str; 5] = [
    "recall_at_5",
    "recall_at_10",
    "full_support_at_10",
    "mrr",
    "ndcg_at_10",
];

/// The metrics with paired intervals for a dataset (see [`PAIRED_METRICS`]).
pub fn paired_metrics(ds: Dataset) -> Vec<&'static str> {
    let mut v = vec![ds.outcome_metric()];
    v.extend(PAIRED_METRICS);
    v
}

/// The `metric_notes` object of a report.
pub fn metric_notes(ds: Dataset) -> indexmap::IndexMap<String, String> {
    metrics_of(ds)
        .into_iter()
        .map(|m| (m.name.to_string(), m.describe()))
        .collect()
}

/// All metrics of one query, in [`metrics_of`] order.
pub fn query_metrics(metrics: &[&Metric], judged: &Judged) -> Vec<f64> {
    metrics.iter().map(|m| (m.compute)(judged)).collect()
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
/// Cost: O(resamples · n · series).
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

    fn values(ds: Dataset, retrieved: &[usize], relevant: &[usize]) -> Vec<(&'static str, f64)> {
        let ms = metrics_of(ds);
        let j = Judged {
            retrieved,
            relevant,
            embed_top_k: 10,
        };
        ms.iter()
            .map(|m| m.name)
            .zip(query_metrics(&ms, &j))
            .collect()
    }

    fn get(v: &[(&str, f64)], k: &str) -> f64 {
        v.iter()
            .find(|(n, _)| *n == k)
            .unwrap_or_else(|| panic!("no metric {k}"))
            .1
    }

    #[test]
    fn report_order_is_the_reference_key_order_then_budget_matched() {
        let names = |ds| metrics_of(ds).iter().map(|m| m.name).collect::<Vec<_>>();
        let budget = [
            "recall_at_2",
            "recall_at_5",
            "recall_at_10",
            "full_support_at_2",
            "full_support_at_5",
            "full_support_at_10",
            "mrr_at_10",
            "ndcg_at_10",
            "distractor_share_at_10",
        ];
        let mut hotpot = vec![
            "sp_recall_at_5",
            "sp_recall_at_10",
            "single_sp_hit_at_5",
            "distractor_suppression",
            "mrr",
            "nodes_fired",
        ];
        hotpot.extend(budget);
        assert_eq!(names(Dataset::HotpotQa), hotpot);
        let mut multihop = vec![
            "full_hit_rate",
            "partial_hit_rate",
            "evidence_recall_at_10",
            "mrr",
            "nodes_fired",
        ];
        multihop.extend(budget);
        assert_eq!(names(Dataset::MultihopRag), multihop);
        for ds in [Dataset::HotpotQa, Dataset::MultihopRag] {
            for p in paired_metrics(ds) {
                assert!(names(ds).contains(&p), "{p} is not a metric of {ds}");
            }
        }
    }

    #[test]
    fn hotpot_reference_formulas() {
        let m = values(Dataset::HotpotQa, &[9, 1, 8, 7, 6, 2, 5], &[1, 2]);
        assert_eq!(get(&m, "sp_recall_at_5"), 0.0);
        assert_eq!(get(&m, "sp_recall_at_10"), 1.0);
        assert_eq!(get(&m, "single_sp_hit_at_5"), 1.0);
        assert_eq!(get(&m, "distractor_suppression"), 5.0 / 7.0);
        assert_eq!(get(&m, "mrr"), 0.5);
        assert_eq!(get(&m, "nodes_fired"), 7.0);
        assert_eq!(get(&m, "recall_at_2"), 0.5);
        assert_eq!(get(&m, "recall_at_5"), 0.5);
        assert_eq!(get(&m, "full_support_at_2"), 0.0);
        assert_eq!(get(&m, "full_support_at_10"), 1.0);
        let ndcg = (1.0 / 3f64.log2() + 1.0 / 7f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert_eq!(get(&m, "ndcg_at_10"), ndcg);
    }

    #[test]
    fn multihop_reference_formulas() {
        let list: Vec<usize> = (10..22).collect(); // 12 results
        let m = values(Dataset::MultihopRag, &list, &[11, 21, 99]);
        assert_eq!(get(&m, "full_hit_rate"), 0.0);
        assert_eq!(get(&m, "partial_hit_rate"), 1.0);
        assert_eq!(get(&m, "evidence_recall_at_10"), 1.0 / 3.0);
        assert_eq!(get(&m, "mrr"), 0.5);
        assert_eq!(get(&m, "nodes_fired"), 12.0);
        let m = values(Dataset::MultihopRag, &list, &[11, 21]);
        assert_eq!(
            get(&m, "full_hit_rate"),
            1.0,
            "looks at all 12, not the top 10"
        );
        assert_eq!(get(&m, "full_support_at_10"), 0.0);
    }

    #[test]
    fn empty_lists_and_empty_relevant_sets() {
        let m = values(Dataset::HotpotQa, &[], &[3]);
        assert_eq!(get(&m, "distractor_share_at_10"), 0.0);
        assert_eq!(get(&m, "mrr"), 0.0);
        assert_eq!(get(&m, "recall_at_10"), 0.0);
        let m = values(Dataset::HotpotQa, &[1, 2], &[]);
        assert_eq!(
            get(&m, "full_support_at_5"),
            1.0,
            "vacuous, as the reference"
        );
        assert_eq!(get(&m, "recall_at_5"), 0.0);
        assert_eq!(get(&m, "ndcg_at_10"), 0.0);
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
