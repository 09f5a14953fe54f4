//! merge_compression (no reference figure; paper Table 18): nodes fired and context
//! size per query before and after merging the 8 node pairs, and the graph size.

use anyhow::Result;
use results::sims::merge_compression::Body;

use super::common::{counts, points, Ctx};
use crate::data::Doc;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// Panels: nodes fired per query, context characters per query (queries 1–50 before
/// the merge, 51–100 after), and graph nodes/edges before vs after.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let (before, after) = (&b.query_series.before_merge, &b.query_series.after_merge);
    let n_before = before.len() as f64;
    let x_before = counts(before.iter().map(|p| p.query));
    let x_after: Vec<f64> = after.iter().map(|p| p.query as f64 + n_before).collect();
    type Field = fn(&results::sims::merge_compression::QueryPoint) -> usize;
    let line = |title: &str, y: &str, col: &str, field: Field| -> Result<Panel> {
        let mut c = LineChart::new(title, "query (merge after query 50)", y, "query", col);
        c.series = vec![
            Series::new(
                "before merge",
                color(0),
                points(&x_before, &counts(before.iter().map(field)), &doc.name)?,
            ),
            Series::new(
                "after merge",
                color(1),
                points(&x_after, &counts(after.iter().map(field)), &doc.name)?,
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
                Some(b.nodes_before_merge as f64),
                Some(b.edges_before_merge as f64),
            ],
        ),
        BarSeries::new(
            "after merge",
            color(1),
            vec![
                Some(b.nodes_after_merge as f64),
                Some(b.edges_after_merge as f64),
            ],
        ),
    ];
    let panels = vec![
        line("Nodes fired per query", "nodes fired", "nodes_fired", |p| {
            p.nodes_fired
        })?,
        line(
            "Context size per query",
            "context characters",
            "context_chars",
            |p| p.context_chars,
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
