//! Held-out bench figures (`bench run --protocol related | unrelated | repeat`, module
//! `benchmarks/src/heldout.rs`), one per report: the learning curves on the test queries
//! (mean over splits with the shaded 95 % t interval, the best static baseline as a dashed
//! guide), every method side by side with its 95 % interval over splits, and the per-split
//! paired differences (learned − cold, and learned − best baseline) against zero, the
//! per-split values drawn behind each interval (plot primitives [`IntervalChart`] and
//! [`ForestPlot`]).
//!
//! Inputs read: `heldout.protocol`, `learning_curves.{checkpoints_percent_of_train,
//! methods.<m>.recall_at_10.{mean, ci95_low, ci95_high}}`,
//! `method_intervals_over_splits.<m>.recall_at_10.{mean, ci95_low, ci95_high}`,
//! `split_differences.pairs[{a, b, per_split: {mean, ci95_low, ci95_high}}]`,
//! `per_split.methods.<m>` (recall@10 per split), `dataset`,
//! `embedder`.

use anyhow::{anyhow, Result};

use crate::data::Bench;
use crate::heldout_view::{best_baseline_over_splits, BASELINES, METRIC};
use crate::plot::{
    color, Difference, Figure, ForestPlot, Interval, IntervalChart, Legend, LineChart, Panel,
    Series,
};

/// `crabpath_pg_learning@edge+sim` → `pg/s`, `crabpath_cold@edge` → `cold/e`,
/// `embedding_topk` → `dense` (routers: e = edge, s = edge+sim, a = adaptive).
fn short(m: &str) -> String {
    match m {
        "embedding_topk" => "dense".into(),
        "bm25_topk" => "bm25".into(),
        "rrf_topk" => "rrf".into(),
        _ => {
            let (method, router) = m.split_once('@').unwrap_or((m, ""));
            let method = match method {
                "crabpath_cold" => "cold",
                "crabpath_learning" => "heur",
                "crabpath_pg_learning" => "pg",
                other => other,
            };
            match router {
                "" => method.to_string(),
                "edge" => format!("{method}/e"),
                "edge+sim" => format!("{method}/s"),
                "adaptive" => format!("{method}/a"),
                r => format!("{method}/{r}"),
            }
        }
    }
}

/// The figure of one held-out report.
pub fn figure(doc: &Bench, stem: &str) -> Result<Figure> {
    let r = &doc.report;
    let h = r
        .heldout()
        .ok_or_else(|| anyhow!("{}: not a held-out report", doc.name()))?;
    let protocol = h.heldout.protocol.as_str();
    let xs: Vec<f64> = h
        .learning_curves
        .checkpoints_percent_of_train
        .iter()
        .map(|&x| x as f64)
        .collect();
    let intervals = &h.method_intervals_over_splits;
    let best = best_baseline_over_splits(r);
    let nan = |v: &[Option<f64>]| -> Vec<f64> { v.iter().map(|x| x.unwrap_or(f64::NAN)).collect() };

    let mut curves = LineChart::new(
        &format!("{METRIC} on the test queries while learning"),
        "% of the train queries learned from",
        "mean over splits (95 % band)",
        "percent_of_train",
        METRIC,
    );
    curves.legend = Legend::LowerRight;
    for (i, (m, c)) in h.learning_curves.methods.iter().enumerate() {
        let band = c.get(METRIC);
        let mean = band.map_or_else(Vec::new, |b| nan(&b.mean));
        let lo = band.map_or_else(Vec::new, |b| nan(&b.ci95_low));
        let hi = band.map_or_else(Vec::new, |b| nan(&b.ci95_high));
        if mean.len() != xs.len() {
            continue;
        }
        let mut line = Series::new(short(m), color(i), xs.iter().copied().zip(mean).collect());
        if lo.len() == xs.len() && hi.len() == xs.len() {
            line.band = Some(
                xs.iter()
                    .zip(lo.iter().zip(&hi))
                    .map(|(&x, (&l, &h))| (x, l, h))
                    .collect(),
            );
        }
        curves.series.push(line);
    }
    if let (Some((b, y)), Some(&x0), Some(&x1)) = (best, xs.first(), xs.last()) {
        curves.series.push(Series::hline(
            format!("best baseline ({})", short(b)),
            color(9),
            y,
            x0,
            x1,
        ));
    }
    if curves.series.is_empty() {
        return Err(anyhow!("{}: no learning curve of {METRIC}", doc.name()));
    }

    let per_split = |m: &str| h.per_split.methods.get(m).cloned().unwrap_or_default();
    let names: Vec<String> = intervals.keys().cloned().collect();
    let get = |m: &str| intervals.get(m).and_then(|v| v.get(METRIC)).copied();
    let mut methods_chart = IntervalChart::new(
        &format!("{METRIC} per method: mean, 95 % t interval, splits"),
        "method",
        "mean over the split's test queries",
    );
    methods_chart.x_col = "method".into();
    methods_chart.y_col = METRIC.into();
    methods_chart.value_labels = false;
    for m in &names {
        let c = if BASELINES.contains(&m.as_str()) {
            color(9)
        } else if m.contains("pg_learning") {
            color(2)
        } else if m.contains("learning") {
            color(1)
        } else {
            color(0)
        };
        methods_chart.items.push(Interval {
            label: short(m),
            mean: get(m).and_then(|s| s.mean).unwrap_or(f64::NAN),
            ci: get(m).and_then(|s| s.ci95_low.zip(s.ci95_high)),
            points: per_split(m),
            color: c,
        });
    }

    let pairs = &h.split_differences.pairs;
    let best_name = best.map(|b| b.0).unwrap_or("embedding_topk");
    let mut forest = ForestPlot::new(
        &format!("paired differences of {METRIC} per split (95 % t interval)"),
        "learned − cold (same router) and learned − best baseline",
        color(3),
    );
    for p in pairs {
        let (a, b) = (p.a.as_str(), p.b.as_str());
        if !a.contains("learning") || !(b.starts_with("crabpath_cold") || b == best_name) {
            continue;
        }
        let (pa, pb) = (per_split(a), per_split(b));
        let b_short = short(b);
        forest.rows.push(Difference {
            label: format!(
                "{} − {}",
                short(a),
                b_short.split('/').next().unwrap_or("?")
            ),
            mean: p.per_split.mean.unwrap_or(f64::NAN),
            ci: p.per_split.ci95_low.zip(p.per_split.ci95_high),
            points: if pa.len() == pb.len() {
                pa.iter().zip(&pb).map(|(x, y)| x - y).collect()
            } else {
                Vec::new()
            },
        });
    }

    Ok(Figure {
        stem: format!("{stem}-heldout"),
        size: (2400, 760),
        title: Some(format!(
            "{}, {protocol} protocol, {}: {} splits",
            r.dataset, r.embedder, h.heldout.splits
        )),
        grid: (1, 3),
        panels: vec![
            Panel::Line(curves),
            Panel::Interval(methods_chart),
            Panel::Forest(forest),
        ],
    })
}
