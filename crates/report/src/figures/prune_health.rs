//! prune_health (no reference figure; paper Table 19): edges and dormant share before
//! and after pruning, and nodes fired per query around the prune.

use anyhow::Result;
use results::sims::prune_health::Body;

use super::common::{counts, points, Ctx};
use crate::data::Doc;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// Panels: edge count, dormant share (before/after bars), nodes fired per query
/// (100 training queries, prune, 20 more queries).
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let d: Body = doc.parse()?;
    let bars = |title: &str, y: &str, col: &str, b: f64, a: f64, pct: bool| -> Result<Panel> {
        let mut c = BarChart::new(
            title,
            "",
            y,
            vec!["before prune".into(), "after prune".into()],
        );
        c.x_col = "when".into();
        c.y_col = col.into();
        c.legend = Legend::None;
        let mut s = BarSeries::new("", color(0), vec![Some(b), Some(a)]);
        s.colors = vec![color(0), color(1)];
        if pct {
            s.labels = s
                .values
                .iter()
                .map(|v| v.map(|v| format!("{:.1} %", v * 100.0)))
                .collect();
            c.y_range = Some((0.0, 1.1));
        }
        c.series.push(s);
        Ok(Panel::Bar(c))
    };
    let train_n = d.training_records.len() as f64;
    let xt = counts(d.training_records.iter().map(|r| r.query));
    let xp: Vec<f64> = d
        .post_prune_records
        .iter()
        .map(|r| r.query as f64 + train_n)
        .collect();
    let mut line = LineChart::new(
        "Nodes fired per query",
        "query (prune after the training queries)",
        "nodes fired",
        "query",
        "nodes_fired",
    );
    line.series = vec![
        Series::new(
            "training",
            color(0),
            points(
                &xt,
                &counts(d.training_records.iter().map(|r| r.nodes_fired)),
                &doc.name,
            )?,
        ),
        Series::new(
            "after prune",
            color(1),
            points(
                &xp,
                &counts(d.post_prune_records.iter().map(|r| r.nodes_fired)),
                &doc.name,
            )?,
        ),
    ];
    let top = line
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    line.y_range = Some((0.0, top * 1.3));
    line.legend = Legend::LowerLeft;
    let panels = vec![
        bars(
            "Edges",
            "edge count",
            "edges",
            d.edges_before_prune as f64,
            d.edges_after_prune as f64,
            false,
        )?,
        bars(
            "Dormant share",
            "share of edges dormant",
            "dormant_share",
            d.dormant_pct_before,
            d.dormant_pct_after,
            true,
        )?,
        Panel::Line(line),
    ];
    Ok(Figure {
        stem: "prune_health".into(),
        size: (1800, 560),
        title: Some(ctx.title("Prune health: graph before and after pruning")),
        grid: (1, 3),
        panels,
    })
}
