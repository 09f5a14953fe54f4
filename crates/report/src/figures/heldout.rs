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
use serde_json::Value;

use crate::data::{num, Doc};
use crate::plot::{
    color, Difference, Figure, ForestPlot, Interval, IntervalChart, Legend, LineChart, Panel,
    Series,
};

/// The metric drawn (and tabled, `tables::heldout`).
pub(crate) const METRIC: &str = "recall_at_10";
/// The static baselines (the best of them is the guide of the curves; the learned methods
/// are held against them in `tables::heldout`).
pub(crate) const BASELINES: [&str; 3] = ["embedding_topk", "bm25_topk", "rrf_topk"];

/// A method name as a JSON-pointer segment (`~` → `~0`, `/` → `~1`).
pub(crate) fn escape(m: &str) -> String {
    m.replace('~', "~0").replace('/', "~1")
}

fn arr(v: Option<&Value>) -> Vec<f64> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|x| num(x).unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

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

/// Whether `doc` is a held-out report.
pub fn is_heldout(doc: &Doc) -> bool {
    doc.opt("/heldout").is_some_and(Value::is_object)
}

/// Whether a held-out report gets a figure: the all-MiniLM-L6-v2 `related` runs, the ones
/// the README's answers rest on (the repository's size budget leaves no room for one per
/// report; every number of the others is in their JSON and in `PAIRED.md`).
pub fn drawn(doc: &Doc) -> bool {
    is_heldout(doc)
        && doc.opt("/heldout/protocol").and_then(Value::as_str) == Some("related")
        && doc.opt("/embedder").and_then(Value::as_str) == Some("all-MiniLM-L6-v2")
}

/// The figure of one held-out report.
pub fn figure(doc: &Doc, stem: &str) -> Result<Figure> {
    let protocol = doc
        .opt("/heldout/protocol")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let s = |k: &str| {
        doc.opt(k)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let xs = arr(doc.opt("/learning_curves/checkpoints_percent_of_train"));
    let intervals = doc.obj("/method_intervals_over_splits")?;
    let best = crate::tables::heldout::best_baseline_over_splits(doc);

    let mut curves = LineChart::new(
        &format!("{METRIC} on the test queries while learning"),
        "% of the train queries learned from",
        "mean over splits (95 % band)",
        "percent_of_train",
        METRIC,
    );
    curves.legend = Legend::LowerRight;
    let methods = doc.obj("/learning_curves/methods")?;
    for (i, (m, c)) in methods.iter().enumerate() {
        let mean = arr(c.pointer(&format!("/{METRIC}/mean")));
        let lo = arr(c.pointer(&format!("/{METRIC}/ci95_low")));
        let hi = arr(c.pointer(&format!("/{METRIC}/ci95_high")));
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
        return Err(anyhow!("{}: no learning curve of {METRIC}", doc.name));
    }

    let per_split = |m: &str| arr(doc.opt(&format!("/per_split/methods/{}", escape(m))));
    let names: Vec<String> = intervals.keys().cloned().collect();
    let get = |m: &str, k: &str| {
        intervals
            .get(m)
            .and_then(|v| v.pointer(&format!("/{METRIC}/{k}")))
            .and_then(num)
    };
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
            mean: get(m, "mean").unwrap_or(f64::NAN),
            ci: get(m, "ci95_low").zip(get(m, "ci95_high")),
            points: per_split(m),
            color: c,
        });
    }

    let pairs = doc
        .opt("/split_differences/pairs")
        .and_then(Value::as_array)
        .ok_or_else(|| anyhow!("{}: no split_differences.pairs", doc.name))?;
    let best_name = best.map(|b| b.0).unwrap_or("embedding_topk");
    let mut forest = ForestPlot::new(
        &format!("paired differences of {METRIC} per split (95 % t interval)"),
        "learned − cold (same router) and learned − best baseline",
        color(3),
    );
    for p in pairs {
        let (Some(a), Some(b)) = (
            p.get("a").and_then(Value::as_str),
            p.get("b").and_then(Value::as_str),
        ) else {
            continue;
        };
        if !a.contains("learning") || !(b.starts_with("crabpath_cold") || b == best_name) {
            continue;
        }
        let ps = |k: &str| p.pointer(&format!("/per_split/{k}")).and_then(num);
        let (pa, pb) = (per_split(a), per_split(b));
        let b_short = short(b);
        forest.rows.push(Difference {
            label: format!(
                "{} − {}",
                short(a),
                b_short.split('/').next().unwrap_or("?")
            ),
            mean: ps("mean").unwrap_or(f64::NAN),
            ci: ps("ci95_low").zip(ps("ci95_high")),
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
            s("/dataset"),
            s("/embedder"),
            doc.opt("/heldout/splits").and_then(num).unwrap_or(f64::NAN)
        )),
        grid: (1, 3),
        panels: vec![
            Panel::Line(curves),
            Panel::Interval(methods_chart),
            Panel::Forest(forest),
        ],
    })
}
