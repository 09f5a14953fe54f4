//! forgetting (paper Fig. 9): stacked tier shares over 100 queries.

use anyhow::Result;
use results::sims::forgetting::Body;

use super::common::{counts, Ctx};
use crate::data::Doc;
use crate::plot::{Figure, Legend, Panel, StackedArea, PALETTE};

/// Stacked areas of dormant (brown), habitual (blue) and reflex (green) shares from
/// `tier_history` (the sim's own thresholds: reflex ≥ 0.8, habitual ≥ 0.3).
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let h = &b.tier_history;
    let x = counts(h.iter().map(|r| r.query));
    let chart = StackedArea {
        title: ctx.title("Selective forgetting: tier distribution"),
        x_label: "query".into(),
        y_label: "share of edges".into(),
        x_col: "query".into(),
        x: x.clone(),
        layers: vec![
            (
                "dormant".into(),
                PALETTE[5],
                h.iter().map(|r| r.tiers.dormant_pct).collect(),
            ),
            (
                "habitual".into(),
                PALETTE[0],
                h.iter().map(|r| r.tiers.habitual_pct).collect(),
            ),
            (
                "reflex".into(),
                PALETTE[2],
                h.iter().map(|r| r.tiers.reflex_pct).collect(),
            ),
        ],
        y_range: (0.0, 1.0),
        legend: Legend::UpperRight,
    };
    Ok(Figure::single(
        "forgetting",
        (1200, 600),
        Panel::Area(chart),
    ))
}
