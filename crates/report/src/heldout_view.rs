//! What the held-out figure ([`crate::figures::heldout`]) and the held-out tables
//! ([`crate::tables::heldout`]) both read from a held-out bench report (`bench run
//! --protocol related | unrelated | repeat`, module `benchmarks/src/heldout.rs`): the
//! metric, the static baselines, each method's mean and interval over the splits, and the
//! best baseline. One home, so that the figure's guide line and the table pick the same
//! baseline.

use results::bench::AnyReport;

/// The metric drawn and tabled.
pub const METRIC: &str = "recall_at_10";

/// The static baselines (the best of them is the guide of the curves; the learned methods
/// are held against them).
pub const BASELINES: [&str; 3] = ["embedding_topk", "bm25_topk", "rrf_topk"];

/// Mean and 95 % interval over the splits of `m`'s [`METRIC`].
pub fn over_splits(r: &AnyReport, m: &str) -> Option<(f64, f64, f64)> {
    let s = r
        .heldout()?
        .method_intervals_over_splits
        .get(m)?
        .get(METRIC)?;
    Some((s.mean?, s.ci95_low?, s.ci95_high?))
}

/// The first of `names` with the highest `score` (`None` when none has one).
pub fn best<'a>(
    names: impl Iterator<Item = &'a str>,
    score: impl Fn(&str) -> Option<f64>,
) -> Option<&'a str> {
    let mut top: Option<(&str, f64)> = None;
    for n in names {
        if let Some(s) = score(n) {
            if top.is_none_or(|(_, t)| s > t) {
                top = Some((n, s));
            }
        }
    }
    top.map(|t| t.0)
}

/// The static baseline with the highest mean over splits, with that mean.
pub fn best_baseline_over_splits(r: &AnyReport) -> Option<(&'static str, f64)> {
    let b = best(BASELINES.into_iter(), |m| over_splits(r, m).map(|x| x.0))?;
    Some((b, over_splits(r, b)?.0))
}

/// Whether a held-out report gets a figure: the all-MiniLM-L6-v2 `related` runs, the ones
/// the README's answers rest on (the repository's size budget leaves no room for one per
/// report; every number of the others is in their JSON and in `PAIRED.md`).
pub fn drawn(r: &AnyReport) -> bool {
    r.heldout().is_some_and(|h| h.heldout.protocol == "related") && r.embedder == "all-MiniLM-L6-v2"
}
