//! static_vs_learning (no reference figure; paper Table 16): static traversal vs the
//! two learning rules on the same random graph.

use anyhow::Result;
use results::sims::static_vs_learning::Body;

use super::common::{counts, points, queries, Ctx};
use crate::data::Doc;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// Panels: final correct-path weights (grouped bars, one group per edge, one bar per
/// mode) and nodes fired per query (one line per mode).
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let runs = b.runs.all();
    let edges: Vec<String> = runs[0]
        .1
        .final_correct_path_weights
        .keys()
        .cloned()
        .collect();
    let mut bars = BarChart::new(
        "Final correct-path weights",
        "correct-path edge",
        "edge weight",
        edges.clone(),
    );
    bars.x_col = "edge".into();
    bars.y_col = "weight".into();
    bars.y_range = Some((0.0, 1.2));
    bars.legend = Legend::UpperLeft;
    bars.value_labels = false;
    let mut line = LineChart::new(
        "Nodes fired per query",
        "query",
        "nodes fired",
        "query",
        "nodes_fired",
    );
    line.legend = Legend::LowerRight;
    let mut top: f64 = 1.0;
    for (i, (m, run)) in runs.iter().enumerate() {
        let w = &run.final_correct_path_weights;
        bars.series.push(BarSeries::new(
            m.replace('_', " "),
            color(i),
            edges.iter().map(|e| w.get(e).copied()).collect(),
        ));
        let n = counts(run.nodes_fired_series.iter().copied());
        top = n.iter().copied().fold(top, f64::max);
        let mut s = Series::new(
            m.replace('_', " "),
            color(i),
            points(&queries(n.len()), &n, &doc.name)?,
        );
        s.width = 5 - 2 * i.min(2) as u32;
        s.marker = false;
        line.series.push(s);
    }
    line.y_range = Some((0.0, top * 1.3));
    Ok(Figure {
        stem: "static_vs_learning".into(),
        size: (1600, 600),
        title: Some(ctx.title("Static traversal vs learning over 100 queries")),
        grid: (1, 2),
        panels: vec![Panel::Bar(bars), Panel::Line(line)],
    })
}
