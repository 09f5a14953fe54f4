//! The scaling study (`sims scaling`, `results/scaling/*.json`): time per traversal,
//! counted work and heap bytes per edge against graph size, one line per series,
//! with the fitted log-log slope in each label. The reference program's times on the
//! same scaling_analysis graphs, measured the same way (random start, traversal only;
//! BENCHMARKS.md "(b) Scaling"), are drawn beside ours.

use anyhow::{anyhow, Result};
use results::scaling::{Row, Study};

use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Scale, Series};

/// The reference program's `traverse` on the scaling_analysis graphs with a random
/// start per query, traversal only (BENCHMARKS.md "(b) Scaling", measured beside
/// `sims scaling` on the same machine): `(graph size, median µs per traversal)`.
pub const REFERENCE_TRAVERSAL_US: [(f64, f64); 8] = [
    (50.0, 195.6),
    (100.0, 282.9),
    (250.0, 552.9),
    (500.0, 1049.0),
    (1000.0, 2098.6),
    (2000.0, 4210.0),
    (10000.0, 20874.4),
    (100000.0, 464140.8),
];

/// `(nodes, value)` for every row of a series.
fn column(rows: &[Row], value: impl Fn(&Row) -> f64) -> Vec<(f64, f64)> {
    rows.iter().map(|r| (r.nodes as f64, value(r))).collect()
}

fn slope_label(name: &str, slope: Option<f64>) -> String {
    match slope {
        Some(s) => format!("{name} (slope {s:.3})"),
        None => name.to_string(),
    }
}

fn log_log(title: &str, y_label: &str, y_col: &str) -> LineChart {
    let mut c = LineChart::new(title, "graph size (nodes)", y_label, "nodes", y_col);
    c.x_scale = Scale::Log;
    c.y_scale = Scale::Log;
    c.legend = Legend::UpperLeft;
    c
}

/// The three-panel figure of one study file.
pub fn figure(doc: &Doc, stem: &str) -> Result<Figure> {
    let study: Study = doc.parse()?;
    let lines = &study.series;
    if lines.is_empty() {
        return Err(anyhow!("{}: no series", doc.name));
    }
    let mut time = log_log(
        "Median time per traversal (band: p10-p90 of batch means)",
        "µs per traversal",
        "us_per_traversal",
    );
    // room above the reference line for the legend
    time.y_range = Some((0.3, 1e8));
    let mut work = log_log(
        "Counted work per traversal",
        "edges touched (solid) / nodes fired (dashed)",
        "per_traversal",
    );
    // room above the lines for the legend
    work.y_range = Some((2.0, 5000.0));
    let mut memory = LineChart::new(
        "Heap bytes per edge",
        "graph size (nodes)",
        "bytes per edge (graph total / edges)",
        "nodes",
        "bytes_per_edge",
    );
    memory.x_scale = Scale::Log;
    memory.y_range = Some((0.0, 250.0));
    memory.legend = Legend::LowerRight;
    for (i, l) in lines.iter().enumerate() {
        let us = column(&l.rows, |r| r.time.median_ns / 1000.0);
        let lo = column(&l.rows, |r| r.time.p10_ns);
        let hi = column(&l.rows, |r| r.time.p90_ns);
        let mut s = Series::new(slope_label(&l.name, l.fit.time_slope), color(i), us);
        s.band = Some(
            lo.iter()
                .zip(&hi)
                .map(|(&(x, a), &(_, b))| (x, a / 1000.0, b / 1000.0))
                .collect(),
        );
        time.series.push(s);
        work.series.push(Series::new(
            slope_label(&format!("{} edges", l.name), l.fit.work_slope),
            color(i),
            column(&l.rows, |r| r.edges_touched_mean),
        ));
        let mut fired = Series::new(
            format!("{} nodes fired", l.name),
            color(i),
            column(&l.rows, |r| r.nodes_fired_mean),
        );
        fired.dashed = true;
        work.series.push(fired);
        let bytes: Vec<(f64, f64)> = l
            .rows
            .iter()
            .filter_map(|r| Some((r.nodes as f64, r.bytes_per_edge?)))
            .collect();
        if !bytes.is_empty() {
            memory
                .series
                .push(Series::new(l.name.clone(), color(i), bytes));
        }
    }
    let mut reference = Series::new(
        "reference program, scaling_analysis graphs (Python)",
        color(7),
        REFERENCE_TRAVERSAL_US.to_vec(),
    );
    reference.dashed = true;
    time.series.push(reference);
    let mut panels = vec![Panel::Line(time), Panel::Line(work)];
    if !memory.series.is_empty() {
        panels.push(Panel::Line(memory));
    }
    Ok(Figure {
        stem: stem.to_string(),
        size: (600 * panels.len() as u32 + 200, 680),
        title: Some("Scaling study: traversal cost vs graph size [corrected]".into()),
        grid: (1, panels.len()),
        panels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn row(nodes: usize, ns: f64) -> Value {
        json!({"nodes": nodes, "edges": nodes * 8, "build_s": 0.1, "heap_bytes": null,
               "bytes_per_edge": 190.0,
               "time": {"median_ns": ns, "mean_ns": ns, "p10_ns": ns * 0.9, "p90_ns": ns * 1.1},
               "nodes_fired_mean": 12.8, "nodes_expanded_mean": 4.0,
               "edges_examined_mean": 100.0, "edges_touched_mean": 150.0})
    }

    fn study(rows: Value) -> Value {
        json!({"study": "scaling", "profile": "corrected", "seed": 42, "queries": 10,
               "batch": 5, "warmup": 1,
               "machine": {"cpus": 2, "cpu_model": null, "load_average": null},
               "series": [{"name": "uniform8", "graph": "g", "max_hops": 3, "beam_width": 4,
                           "rows": rows,
                           "fit": {"time_slope": 0.07, "time_slope_from_1000": null,
                                   "work_slope": 0.0, "fired_slope": null,
                                   "time_ratio_largest_vs_1000": null}}],
               "notes": []})
    }

    #[test]
    fn builds_three_panels_and_names_missing_fields() {
        let doc = Doc::new(
            "scaling/s.json",
            study(json!([row(1000, 3000.0), row(1_000_000, 5000.0)])),
        );
        let f = figure(&doc, "s").unwrap();
        assert_eq!(f.panels.len(), 3);
        let Panel::Line(time) = &f.panels[0] else {
            panic!("line chart expected")
        };
        assert_eq!(time.series[0].name, "uniform8 (slope 0.070)");
        assert_eq!(time.series[0].points, vec![(1e3, 3.0), (1e6, 5.0)]);
        let bad = Doc::new("scaling/bad.json", study(json!([{"nodes": 10}])));
        let e = figure(&bad, "bad").unwrap_err().to_string();
        assert!(e.contains("scaling/bad.json") && e.contains("edges"), "{e}");
    }
}
