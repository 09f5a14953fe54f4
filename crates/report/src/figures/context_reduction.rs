//! context_reduction (paper Fig. 6): nodes fired per query over 100 queries.

use anyhow::Result;
use results::sims::context_reduction::Body;

use super::common::{counts, points, Ctx};
use crate::data::Doc;
use crate::plot::{Figure, Legend, LineChart, Panel, Series, PALETTE};

/// One line with markers (`nodes_fired_series`).
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let q = counts(b.nodes_fired_series.iter().map(|f| f.query));
    let n = counts(b.nodes_fired_series.iter().map(|f| f.nodes_fired));
    let mut chart = LineChart::new(
        &ctx.title("Context reduction: nodes fired per query"),
        "query",
        "nodes fired",
        "query",
        "nodes_fired",
    );
    chart.legend = Legend::UpperRight;
    chart.y_range = Some((0.0, n.iter().copied().fold(1.0, f64::max) * 1.05));
    let mut s = Series::new("nodes fired", PALETTE[0], points(&q, &n, &doc.name)?);
    s.width = 1;
    chart.series.push(s);
    Ok(Figure::single(
        "context_reduction",
        (1200, 480),
        Panel::Line(chart),
    ))
}
