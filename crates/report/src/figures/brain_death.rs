//! brain_death (paper Fig. 5): post-round health shares over 30 rounds.

use anyhow::Result;
use results::sims::brain_death::Body;

use super::common::{counts, points, Ctx};
use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Three lines: dormant, habitual and reflex share after each round.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let rounds = counts(b.rounds.iter().map(|r| r.round));
    let mut chart = LineChart::new(
        &ctx.title("Brain death: health after each round"),
        "round",
        "share of edges",
        "round",
        "share",
    );
    chart.y_range = Some((0.0, 1.05));
    chart.legend = Legend::MiddleRight;
    type Share = fn(&crabpath::GraphHealth) -> f64;
    let tiers: [(&str, Share); 3] = [
        ("dormant", |h| h.dormant_pct),
        ("habitual", |h| h.habitual_pct),
        ("reflex", |h| h.reflex_pct),
    ];
    for (i, (tier, share)) in tiers.iter().enumerate() {
        let vals: Vec<f64> = b.rounds.iter().map(|r| share(&r.post_health)).collect();
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
