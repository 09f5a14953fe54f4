//! merge_compression (no reference figure; paper Table 18): nodes fired and context
//! size per query before and after merging the 8 node pairs, and the graph size.

use anyhow::Result;

use super::{points, Ctx};
use crate::data::Doc;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// Panels: nodes fired per query, context characters per query (queries 1–50 before
/// the merge, 51–100 after), and graph nodes/edges before vs after.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let before = "/query_series/before_merge";
    let after = "/query_series/after_merge";
    let n_before = doc.arr(before)?.len() as f64;
    let x_before = doc.column(before, "query")?;
    let x_after: Vec<f64> = doc
        .column(after, "query")?
        .iter()
        .map(|q| q + n_before)
        .collect();
    let line = |title: &str, y: &str, col: &str, field: &str| -> Result<Panel> {
        let mut c = LineChart::new(title, "query (merge after query 50)", y, "query", col);
        c.series = vec![
            Series::new(
                "before merge",
                color(0),
                points(&x_before, &doc.column(before, field)?, &doc.name)?,
            ),
            Series::new(
                "after merge",
                color(1),
                points(&x_after, &doc.column(after, field)?, &doc.name)?,
            ),
        ];
        let top = c
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .fold(1.0, f64::max);
        c.y_range = Some((0.0, top * 1.25));
        c.legend = Legend::UpperRight;
        Ok(Panel::Line(c))
    };
    let mut graph = BarChart::new(
        "Graph size",
        "",
        "count",
        vec!["nodes".into(), "edges".into()],
    );
    graph.x_col = "quantity".into();
    graph.y_col = "count".into();
    graph.series = vec![
        BarSeries::new(
            "before merge",
            color(0),
            vec![
                doc.f64("/nodes_before_merge").ok(),
                doc.f64("/edges_before_merge").ok(),
            ],
        ),
        BarSeries::new(
            "after merge",
            color(1),
            vec![
                doc.f64("/nodes_after_merge").ok(),
                doc.f64("/edges_after_merge").ok(),
            ],
        ),
    ];
    let panels = vec![
        line(
            "Nodes fired per query",
            "nodes fired",
            "nodes_fired",
            "nodes_fired",
        )?,
        line(
            "Context size per query",
            "context characters",
            "context_chars",
            "context_chars",
        )?,
        Panel::Bar(graph),
    ];
    Ok(Figure {
        stem: "merge_compression".into(),
        size: (1800, 560),
        title: Some(ctx.title("Merge compression: before vs after merging 8 node pairs")),
        grid: (1, 3),
        panels,
    })
}
