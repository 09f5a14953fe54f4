//! Per-query scores of a file ranking, aggregates, latency percentiles and the
//! learning-curve checkpoints of the repository benchmark.
//!
//! * **Reference scores** (reference `benchmarks/run_benchmark.py::_evaluate`, commit
//!   134c676) on the ranked distinct files of a method (every node of its ranking
//!   contributes): `Recall@k` (k = 3, 5) = relevant files among the first k / `|R|`
//!   (0 when `R` is empty), `Precision@3` = relevant among the first 3 / 3 (always 3, even
//!   for a shorter list), `MRR` = 1 / rank of the first relevant file over the **whole**
//!   list. `R` is the set of the row's `relevant` items ([`super::queries`]).
//! * **Budget-matched scores** (the `clean` protocol): the bench harness's budget metrics
//!   ([`crate::metrics::query_metrics`], `recall_at_5`, `recall_at_10`,
//!   `full_support_at_5`, `full_support_at_10`, `mrr_at_10`, `ndcg_at_10`,
//!   `distractor_share_at_10`) computed on *files*: every method is cut to its first k
//!   files, a shorter list is not padded; `R` = the row's distinct relevant file names.
//!   `files_returned` = how many distinct files the method ranked (capped at 10).
//! * Aggregates are running f64 sums in query order divided by the count (1 when there
//!   are no queries, giving 0.0), as the reference's `_run_query_set`.

use crate::metrics::{query_metrics, Family, Judged, Metric, METRICS};

use super::queries::QueryRow;

/// The reference's score names, in output order.
pub const REFERENCE_SCORES: [&str; 4] = ["Recall@3", "Recall@5", "Precision@3", "MRR"];

/// The bench harness's budget-matched metrics ([`Family::BudgetMatched`] entries of
/// [`METRICS`]), in report order.
fn budget_metrics() -> Vec<&'static Metric> {
    METRICS
        .iter()
        .filter(|m| m.family == Family::BudgetMatched)
        .collect()
}

/// Budget-matched score names, in output order (the budget-matched entries of
/// [`METRICS`], then `files_returned`).
pub fn budget_score_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = budget_metrics().iter().map(|m| m.name).collect();
    v.push("files_returned");
    v
}

/// The four reference scores of one query.
pub fn reference_scores(files: &[&str], row: &QueryRow) -> [f64; 4] {
    let hits = |k: usize| files.iter().take(k).filter(|f| row.is_relevant(f)).count() as f64;
    let recall = |k: usize| {
        if row.relevant_count == 0 {
            0.0
        } else {
            hits(k) / row.relevant_count as f64
        }
    };
    let mrr = files
        .iter()
        .position(|f| row.is_relevant(f))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64);
    [recall(3), recall(5), hits(3) / 3.0, mrr]
}

/// The budget-matched scores of one query (see the module docs). `files` are file ids of
/// the corpus, `relevant` the ids of the row's relevant files (ids at or above the corpus
/// size stand for relevant files that are not in it).
pub fn budget_scores(files: &[u32], relevant: &[u32]) -> Vec<f64> {
    let f: Vec<usize> = files.iter().map(|&x| x as usize).collect();
    let r: Vec<usize> = relevant.iter().map(|&x| x as usize).collect();
    let judged = Judged {
        retrieved: &f,
        relevant: &r,
        embed_top_k: 10,
    };
    let mut v = query_metrics(&budget_metrics(), &judged);
    v.push(files.len().min(10) as f64);
    v
}

/// Means of rows of scores: running sums in order, divided by `max(1, rows)`.
pub fn means(rows: &[Vec<f64>], width: usize) -> Vec<f64> {
    let mut sums = vec![0.0; width];
    for r in rows {
        for (s, x) in sums.iter_mut().zip(r) {
            *s += *x;
        }
    }
    let n = rows.len().max(1) as f64;
    sums.into_iter().map(|s| s / n).collect()
}

/// The reference's latency percentile: element `floor((n − 1)·q)` of the ascending
/// sorted values, 0.0 when empty, the minimum for `q <= 0`, the maximum for `q >= 1`
/// (reference `run_benchmark.py::_percentile`).
pub fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if q <= 0.0 {
        return v[0];
    }
    if q >= 1.0 {
        return v[v.len() - 1];
    }
    v[((v.len() - 1) as f64 * q) as usize]
}

/// The learning-curve checkpoints of `n` queries (reference
/// `run_benchmark.py::_run_learning_query_set`): of 5, 10, 20, n those in `1..=n`, first
/// occurrence kept, in that order; none for `n = 0`.
pub fn checkpoints(n: usize) -> Vec<usize> {
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    for p in [5, 10, 20, n] {
        if p >= 1 && p <= n && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The key of a checkpoint in the report: `"N"` for the last query, else the number.
pub fn checkpoint_key(p: usize, n: usize) -> String {
    if p == n {
        "N".into()
    } else {
        p.to_string()
    }
}

/// Per-method scores per evaluated query: (reference rows, budget rows).
pub type ScoreRows = (Vec<Vec<f64>>, Vec<Vec<f64>>);

#[cfg(test)]
mod tests {
    use super::*;
    use pyformat::pyjson::PyValue;

    fn row(rel: &[&str], count: usize) -> QueryRow {
        QueryRow {
            query: "q".into(),
            relevant: rel.iter().map(|s| PyValue::Str(s.to_string())).collect(),
            relevant_files: rel.iter().map(|s| s.to_string()).collect(),
            relevant_count: count,
        }
    }

    #[test]
    fn reference_formulas() {
        let r = row(&["b.md", "nope.md"], 2);
        let s = reference_scores(&["a.md", "b.md"], &r);
        assert_eq!(s, [0.5, 0.5, 1.0 / 3.0, 0.5]);
        let s = reference_scores(&["a", "c", "d", "e", "f", "b.md"], &r);
        assert_eq!(s, [0.0, 0.0, 0.0, 1.0 / 6.0], "MRR over the whole list");
        assert_eq!(reference_scores(&["b.md"], &row(&[], 0)), [0.0; 4]);
    }

    #[test]
    fn checkpoints_and_percentiles() {
        assert_eq!(checkpoints(45), vec![5, 10, 20, 45]);
        assert_eq!(checkpoints(10), vec![5, 10]);
        assert_eq!(checkpoint_key(10, 10), "N");
        assert_eq!(checkpoints(3), vec![3]);
        assert_eq!(checkpoints(15), vec![5, 10, 15]);
        assert!(checkpoints(0).is_empty());
        let v: Vec<f64> = (0..45).rev().map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), 22.0);
        assert_eq!(percentile(&v, 0.95), 41.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn budget_scores_cut_every_list() {
        // files 0..12, relevant 1 and 11 and a file outside the corpus (99)
        let files: Vec<u32> = (0..12).collect();
        let s = budget_scores(&files, &[1, 11, 99]);
        let names = budget_score_names();
        let get = |k: &str| s[names.iter().position(|n| *n == k).unwrap()];
        assert_eq!(get("recall_at_5"), 1.0 / 3.0);
        assert_eq!(get("recall_at_10"), 1.0 / 3.0);
        assert_eq!(get("mrr_at_10"), 0.5);
        assert_eq!(get("files_returned"), 10.0);
        assert_eq!(get("full_support_at_10"), 0.0);
    }
}
