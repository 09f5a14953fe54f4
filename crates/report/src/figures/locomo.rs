//! The LoCoMo figure (`bench run --dataset locomo`, `benchmarks/src/locomo/`), one per
//! report: evidence recall@10 by question category on the eight test conversations, and
//! each traversal's difference from the best baseline of that category with its paired
//! bootstrap 95 % interval.
//!
//! The report is read as its type (`results::bench::AnyReport` with the
//! `results::locomo::Locomo` sections): `by_category`, `method_metrics` and
//! `against_best_baseline` (the recall@10 families) — no JSON pointer.

use anyhow::{anyhow, Result};
use results::bench::AnyReport;
use results::locomo::Locomo;

use crate::data::Results;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, Panel};

/// The metric drawn.
pub const METRIC: &str = "recall_at_10";

/// The arms drawn: the three baselines of the strongest embedder and BM25, the cold
/// traversal and the two learned ones without a router.
pub const ARMS: [&str; 6] = [
    "bm25_topk",
    "embedding_topk[minilm]",
    "rrf_topk[minilm]",
    "crabpath_cold",
    "crabpath_learning",
    "crabpath_pg_learning",
];

/// The traversals held against the best baseline in the second panel.
pub const TRAVERSALS: [&str; 3] = ["crabpath_cold", "crabpath_learning", "crabpath_pg_learning"];

/// Every LoCoMo report of `results`, by file stem.
pub fn reports(results: &Results) -> Vec<(&str, &AnyReport)> {
    results
        .bench
        .iter()
        .filter(|(_, b)| b.report.locomo().is_some())
        .map(|(name, b)| (name.as_str(), &b.report))
        .collect()
}

/// `all` then the categories, as the report orders them.
pub fn slices(l: &Locomo) -> Vec<String> {
    std::iter::once("all".to_string())
        .chain(l.by_category.means.keys().cloned())
        .collect()
}

/// The mean of `arm` on `slice` (`all`: `method_metrics`).
pub fn mean(l: &Locomo, slice: &str, arm: &str, metric: &str) -> Option<f64> {
    if slice == "all" {
        l.method_metrics.get(arm)?.get(metric).copied()
    } else {
        l.by_category.get(slice, arm, metric)
    }
}

/// The figure of report `stem` (see the module docs).
pub fn figure(r: &AnyReport, stem: &str) -> Result<Figure> {
    let l = r
        .locomo()
        .ok_or_else(|| anyhow!("{stem}: not a LoCoMo report"))?;
    let slices = slices(l);
    let mut means = BarChart::new(
        "evidence recall@10 by question category, eight test conversations",
        "question category",
        "mean recall@10",
        slices.clone(),
    );
    means.x_col = "category".into();
    means.y_col = METRIC.into();
    means.value_labels = false;
    // room above the bars (recall ≤ 1) for the legend
    means.legend = Legend::UpperLeft;
    means.y_range = Some((0.0, 1.5));
    for (i, arm) in ARMS.iter().enumerate() {
        let vals: Vec<Option<f64>> = slices.iter().map(|s| mean(l, s, arm, METRIC)).collect();
        if vals.iter().all(Option::is_none) {
            continue;
        }
        means.series.push(BarSeries::new(*arm, color(i), vals));
    }
    if means.series.is_empty() {
        return Err(anyhow!("{stem}: none of the drawn arms is in the report"));
    }
    let mut diff = BarChart::new(
        "traversal minus the best baseline of the category (95 % paired bootstrap interval)",
        "question category",
        "difference in recall@10",
        slices.clone(),
    );
    diff.x_col = "category".into();
    diff.y_col = format!("{METRIC}_minus_best_baseline");
    diff.value_labels = false;
    // the same arms in the same colours as the first panel, whose legend names them
    diff.legend = Legend::None;
    diff.guides = vec![(0.0, String::new())];
    for (i, arm) in TRAVERSALS.iter().enumerate() {
        let rows: Vec<Option<&results::locomo::Row>> = slices
            .iter()
            .map(|s| {
                l.against_best_baseline
                    .iter()
                    .find(|f| f.metric == METRIC && &f.slice == s)
                    .and_then(|f| f.rows.iter().find(|row| row.arm == *arm))
            })
            .collect();
        let mut s = BarSeries::new(
            *arm,
            color(3 + i),
            rows.iter().map(|r| r.map(|r| r.diff)).collect(),
        );
        s.intervals = rows
            .iter()
            .map(|r| r.map(|r| (r.ci95_low, r.ci95_high)))
            .collect();
        diff.series.push(s);
    }
    Ok(Figure {
        stem: format!("{stem}-by-category"),
        size: (900, 680),
        title: None,
        grid: (2, 1),
        panels: vec![Panel::Bar(means), Panel::Bar(diff)],
    })
}
