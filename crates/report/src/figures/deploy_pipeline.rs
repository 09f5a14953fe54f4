//! deploy_pipeline (paper Fig. 7): the four chain weights over 50 identical queries.

use anyhow::{anyhow, Result};

use super::Ctx;
use crate::data::{num, Doc};
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Lines with markers, one per chain edge (`edge_weights_over_time`), y in 0–1.05.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let rows = doc.arr("/edge_weights_over_time")?;
    let first = rows
        .first()
        .and_then(|r| r.get("edge_weights"))
        .and_then(|w| w.as_object())
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
    for (i, key) in first.keys().enumerate() {
        let mut pts = Vec::with_capacity(rows.len());
        for (j, r) in rows.iter().enumerate() {
            let q = r.get("query").and_then(num).unwrap_or((j + 1) as f64);
            let w = r
                .get("edge_weights")
                .and_then(|w| w.get(key))
                .and_then(num)
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
