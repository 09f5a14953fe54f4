//! brain_death (paper Fig. 5): post-round health shares over 30 rounds.

use anyhow::Result;

use super::{points, Ctx};
use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Three lines: dormant, habitual and reflex share after each round.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let rounds = doc.column("/rounds", "round")?;
    let mut chart = LineChart::new(
        &ctx.title("Brain death: health after each round"),
        "round",
        "share of edges",
        "round",
        "share",
    );
    chart.y_range = Some((0.0, 1.05));
    chart.legend = Legend::MiddleRight;
    for (i, tier) in ["dormant", "habitual", "reflex"].iter().enumerate() {
        let key = format!("{tier}_pct");
        let vals: Vec<f64> = doc
            .arr("/rounds")?
            .iter()
            .enumerate()
            .map(|(j, r)| {
                r.pointer(&format!("/post_health/{key}"))
                    .and_then(crate::data::num)
                    .ok_or_else(|| {
                        anyhow::anyhow!("{}: /rounds/{j}/post_health/{key} missing", doc.name)
                    })
            })
            .collect::<Result<_>>()?;
        chart.series.push(Series::new(
            *tier,
            color([5, 0, 2][i]),
            points(&rounds, &vals, &doc.name)?,
        ));
    }
    Ok(Figure::single(
        "brain_death",
        (1200, 600),
        Panel::Line(chart),
    ))
}
