//! edge_damping (paper Fig. 10): whether D is reached with and without damping.

use anyhow::Result;
use results::sims::edge_damping::Body;

use super::common::Ctx;
use crate::data::Doc;
use crate::plot::{BarChart, BarSeries, Figure, Legend, Panel, PALETTE};

/// Two bars (green damped, red undamped), height = reached D (1/0), "yes"/"no" above.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let mut cats = Vec::new();
    let mut vals = Vec::new();
    let mut labels = Vec::new();
    for (name, run) in [("damped", &b.damped), ("undamped", &b.undamped)] {
        cats.push(format!("{name} ({:.1})", run.damping));
        vals.push(Some(if run.reached_d { 1.0 } else { 0.0 }));
        labels.push(Some(if run.reached_d { "yes" } else { "no" }.to_string()));
    }
    let mut chart = BarChart::new(
        &ctx.title("Edge damping: does traversal reach D?"),
        "run (edge damping factor)",
        "reached D (1 = yes)",
        cats,
    );
    chart.x_col = "run".into();
    chart.y_col = "reached_D".into();
    chart.y_range = Some((0.0, 1.1));
    chart.legend = Legend::None;
    let mut s = BarSeries::new("reached D", PALETTE[2], vals);
    s.colors = vec![PALETTE[2], PALETTE[3]];
    s.labels = labels;
    chart.series.push(s);
    Ok(Figure::single(
        "edge_damping",
        (960, 480),
        Panel::Bar(chart),
    ))
}
