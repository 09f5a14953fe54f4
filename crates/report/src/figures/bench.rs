//! Retrieval-benchmark figures from `results/bench/*.json`: learning curves per
//! method, and the paper protocol against the clean (label-free) protocol with
//! paired-bootstrap 95 % intervals.
//!
//! Inputs read (all optional except `method_metrics`): `learning_curves_all`
//! `{method: [{"query": n, metric: cumulative mean, …}]}` or the reference-shaped
//! `learning_curves` `{method: {"<n>": {metric: value}}}`; `bootstrap_ci_vs_embedding_topk
//! .methods.<method>.<metric> = {diff, ci95_low, ci95_high}`; `dataset`, `protocol`,
//! `embedder`.

use std::collections::BTreeMap;

use anyhow::{anyhow, Result};
use results::bench::{AnyReport, Means};

use crate::data::{Bench, Notes};
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// At most this many metric panels per figure.
const MAX_PANELS: usize = 6;

/// One curve: `(queries seen, {metric: value})` points.
type Curve = Vec<(f64, Means)>;

/// `method → curve` from either curve layout of a stream report.
fn curves(b: &Bench) -> Result<BTreeMap<String, Curve>> {
    let mut out: BTreeMap<String, Curve> = BTreeMap::new();
    let stream = b
        .report
        .stream()
        .ok_or_else(|| anyhow!("{}: not a stream report", b.name()))?;
    if !stream.learning_curves_all.is_empty() {
        for (method, pts) in &stream.learning_curves_all {
            let v = pts
                .iter()
                .map(|p| (p.query as f64, p.means.clone()))
                .collect();
            out.insert(method.clone(), v);
        }
    } else {
        for (method, pts) in &stream.learning_curves {
            let mut v: Curve = pts
                .iter()
                .filter_map(|(k, m)| Some((k.parse::<f64>().ok()?, m.clone())))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            out.insert(method.clone(), v);
        }
    }
    out.retain(|_, v| !v.is_empty());
    if out.is_empty() {
        return Err(anyhow!(
            "{}: no learning_curves_all / learning_curves",
            b.name()
        ));
    }
    Ok(out)
}

/// Metrics to show: those with bootstrap intervals (the headline metrics) if any,
/// else `fallback`; at most [`MAX_PANELS`].
fn headline(r: &AnyReport, fallback: impl Iterator<Item = String>) -> Vec<String> {
    let from_ci: Vec<String> = r
        .stream()
        .and_then(|s| s.bootstrap_ci_vs_embedding_topk.methods.values().next())
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let mut v = if from_ci.is_empty() {
        fallback.collect()
    } else {
        from_ci
    };
    v.truncate(MAX_PANELS);
    v
}

/// Learning curves: one panel per headline metric, one line per method
/// (cumulative mean over the query stream).
pub fn learning_curves(doc: &Bench, stem: &str) -> Result<Figure> {
    let curves = curves(doc)?;
    let first_keys = curves
        .values()
        .next()
        .and_then(|v| v.first())
        .map(|p| p.1.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    let metrics = headline(&doc.report, first_keys.into_iter());
    let mut panels = Vec::new();
    for (k, metric) in metrics.iter().enumerate() {
        let mut c = LineChart::new(metric, "queries seen", "cumulative mean", "query", metric);
        // Every panel has the same methods in the same colours: one legend (in the first
        // panel) names them, and the other panels' curves stay uncovered.
        c.legend = if k == 0 {
            Legend::LowerRight
        } else {
            Legend::None
        };
        for (i, (method, pts)) in curves.iter().enumerate() {
            let p: Vec<(f64, f64)> = pts
                .iter()
                .filter_map(|(q, m)| Some((*q, *m.get(metric)?)))
                .collect();
            if !p.is_empty() {
                c.series.push(Series::new(method.clone(), color(i), p));
            }
        }
        if !c.series.is_empty() {
            panels.push(Panel::Line(c));
        }
    }
    if panels.is_empty() {
        return Err(anyhow!("{}: no curve has a headline metric", doc.name()));
    }
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    Ok(Figure {
        stem: format!("{stem}-learning-curves"),
        size: (620 * cols as u32, 500 * rows as u32 + 40),
        title: Some(format!("{}: learning curves", describe(&doc.report))),
        grid: (rows, cols),
        panels,
    })
}

/// Method name for an axis: `crabpath_pg_learning` → `pg_learning`,
/// `embedding_topk` → `embedding`, `bm25_topk` → `bm25`.
fn short(method: &str) -> String {
    method
        .trim_start_matches("crabpath_")
        .trim_start_matches("openclawbrain_")
        .trim_end_matches("_topk")
        .to_string()
}

/// "HotPotQA, paper protocol, hash-v1".
fn describe(r: &AnyReport) -> String {
    format!("{}, {} protocol, {}", r.dataset, r.protocol, r.embedder)
}

/// Group key: the file stem with its protocol segment removed.
fn group_key(stem: &str) -> (String, Option<&'static str>) {
    for p in ["paper", "clean"] {
        let seg = format!("-{p}");
        if let Some(i) = stem.find(&seg) {
            let rest = &stem[i + seg.len()..];
            if rest.is_empty() || rest.starts_with('-') {
                return (format!("{}{}", &stem[..i], rest), Some(p));
            }
        }
    }
    (stem.to_string(), None)
}

/// One figure per group of runs that differ only by protocol: per headline metric, a
/// panel of method means (one bar per protocol), and a panel of the paired difference
/// to `embedding_topk` with its 95 % bootstrap interval.
pub fn protocol_comparisons(bench: &BTreeMap<String, Bench>, notes: &mut Notes) -> Vec<Figure> {
    let mut groups: BTreeMap<String, Vec<(&'static str, &AnyReport)>> = BTreeMap::new();
    for (stem, doc) in bench {
        if let (key, Some(p)) = group_key(stem) {
            groups.entry(key).or_default().push((p, &doc.report));
        }
    }
    let mut out = Vec::new();
    for (key, mut docs) in groups {
        docs.sort_by_key(|(p, _)| if *p == "paper" { 0 } else { 1 });
        match comparison(&key, &docs) {
            Ok(f) => out.push(f),
            Err(e) => notes.push(format!("figure bench/{key}-protocols skipped: {e:#}")),
        }
    }
    out
}

fn comparison(key: &str, docs: &[(&'static str, &AnyReport)]) -> Result<Figure> {
    let (_, first) = docs.first().ok_or_else(|| anyhow!("no runs"))?;
    let mm = first
        .method_metrics()
        .ok_or_else(|| anyhow!("{key}: no method_metrics"))?;
    let methods: Vec<String> = mm.keys().cloned().collect();
    let first_metrics = mm
        .values()
        .next()
        .map(|m| m.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    let mut metrics = headline(first, first_metrics.into_iter());
    metrics.truncate(3);
    let mut panels = Vec::new();
    for metric in &metrics {
        let mut means = BarChart::new(
            metric,
            "method",
            "mean over queries",
            methods.iter().map(|m| short(m)).collect(),
        );
        means.x_col = "method".into();
        means.y_col = metric.clone();
        means.value_labels = false;
        means.legend = Legend::UpperRight;
        for (i, (p, d)) in docs.iter().enumerate() {
            let vals = methods
                .iter()
                .map(|m| {
                    d.method_metrics()
                        .and_then(|mm| mm.get(m))
                        .and_then(|v| v.get(metric))
                        .copied()
                })
                .collect();
            means
                .series
                .push(BarSeries::new(format!("{p} protocol"), color(i), vals));
        }
        panels.push(Panel::Bar(means));
    }
    let others: Vec<String> = methods
        .iter()
        .filter(|m| *m != "embedding_topk")
        .cloned()
        .collect();
    for metric in &metrics {
        let mut diff = BarChart::new(
            &format!("{metric}: minus embedding_topk"),
            "method",
            "difference (95 % paired bootstrap CI)",
            others.iter().map(|m| short(m)).collect(),
        );
        diff.x_col = "method".into();
        diff.y_col = format!("{metric}_minus_embedding_topk");
        diff.value_labels = false;
        diff.legend = Legend::UpperRight;
        diff.guides = vec![(0.0, String::new())];
        for (i, (p, d)) in docs.iter().enumerate() {
            let ci = |m: &str| {
                d.stream()?
                    .bootstrap_ci_vs_embedding_topk
                    .methods
                    .get(m)?
                    .get(metric)
                    .copied()
            };
            let mut s = BarSeries::new(
                format!("{p} protocol"),
                color(i),
                others.iter().map(|m| ci(m).map(|c| c.diff)).collect(),
            );
            s.intervals = others
                .iter()
                .map(|m| ci(m).map(|c| (c.ci95_low, c.ci95_high)))
                .collect();
            diff.series.push(s);
        }
        if diff
            .series
            .iter()
            .any(|s| s.values.iter().any(Option::is_some))
        {
            panels.push(Panel::Bar(diff));
        }
    }
    if panels.is_empty() {
        return Err(anyhow!("{key}: no headline metric"));
    }
    let cols = metrics.len().max(1);
    let rows = panels.len().div_ceil(cols);
    let protocols: Vec<&str> = docs.iter().map(|(p, _)| *p).collect();
    Ok(Figure {
        stem: format!("{key}-protocols"),
        size: (640 * cols as u32, 520 * rows as u32 + 40),
        title: Some(format!("{key}: {} protocol", protocols.join(" vs "))),
        grid: (rows, cols),
        panels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_segment_is_removed() {
        assert_eq!(
            group_key("hotpotqa-paper-hash-v1"),
            ("hotpotqa-hash-v1".into(), Some("paper"))
        );
        assert_eq!(
            group_key("multihop-rag-clean-knn-hash-v1"),
            ("multihop-rag-knn-hash-v1".into(), Some("clean"))
        );
        assert_eq!(group_key("x-paperish"), ("x-paperish".into(), None));
    }
}
