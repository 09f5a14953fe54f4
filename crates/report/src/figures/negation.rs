//! negation (paper Fig. 8): the good and the bad edge over 20 queries.

use anyhow::Result;
use results::sims::negation::Body;

use super::common::{counts, points, Ctx};
use crate::data::Doc;
use crate::plot::{Figure, Legend, LineChart, Panel, Series, PALETTE};
use plotters::style::BLACK;

/// "run tests" (good_weight) and "skip tests (deprecated)" (bad_weight) with a
/// dashed zero line.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let h = &b.weight_history;
    let q = counts(h.iter().map(|p| p.query));
    let good: Vec<f64> = h.iter().map(|p| p.good_weight).collect();
    let bad: Vec<f64> = h.iter().map(|p| p.bad_weight).collect();
    let mut chart = LineChart::new(
        &ctx.title("Negation: good vs deprecated edge weight"),
        "query",
        "edge weight",
        "query",
        "weight",
    );
    chart.y_range = Some((-1.1, 1.1));
    chart.legend = Legend::LowerLeft;
    let (x0, x1) = (
        q.first().copied().unwrap_or(1.0),
        q.last().copied().unwrap_or(1.0),
    );
    chart.series = vec![
        Series::new("run tests", PALETTE[0], points(&q, &good, &doc.name)?),
        Series::new(
            "skip tests (deprecated)",
            PALETTE[1],
            points(&q, &bad, &doc.name)?,
        ),
        Series::hline("", BLACK, 0.0, x0, x1),
    ];
    Ok(Figure::single("negation", (960, 480), Panel::Line(chart)))
}
