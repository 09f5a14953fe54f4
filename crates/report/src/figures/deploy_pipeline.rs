//! deploy_pipeline (paper Fig. 7): the four chain weights over 50 identical queries.

use anyhow::{anyhow, Result};
use results::sims::deploy_pipeline::Body;

use super::common::Ctx;
use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Lines with markers, one per chain edge (`edge_weights_over_time`), y in 0–1.05.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let rows = &b.edge_weights_over_time;
    let first = rows
        .first()
        .ok_or_else(|| anyhow!("{}: edge_weights_over_time is empty", doc.name))?;
    let mut chart = LineChart::new(
        &ctx.title("Deploy pipeline: edge strength over queries"),
        "query",
        "edge weight",
        "query",
        "weight",
    );
    chart.y_range = Some((0.0, 1.05));
    chart.legend = Legend::LowerRight;
    for (i, key) in first.edge_weights.keys().enumerate() {
        let mut pts = Vec::with_capacity(rows.len());
        for r in rows {
            let q = r.query as f64;
            let w = r
                .edge_weights
                .get(key)
                .copied()
                .ok_or_else(|| anyhow!("{}: query {q} has no weight for {key}", doc.name))?;
            pts.push((q, w));
        }
        chart.series.push(Series::new(key.clone(), color(i), pts));
    }
    Ok(Figure::single(
        "deploy_pipeline",
        (1200, 600),
        Panel::Line(chart),
    ))
}
