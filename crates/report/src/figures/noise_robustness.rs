//! noise_robustness (no reference figure; paper Table 15): what flipped outcomes do
//! to the learned path, by noise rate.

use anyhow::Result;
use results::sims::noise_robustness::Body;

use super::common::{points, Ctx};
use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Panels: correct-vs-distractor weight gap, last-10 nodes fired, and (when the
/// results carry it, as the corrected profile's do) the last-10 correct-path rate,
/// each against the noise rate.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let pct: Vec<f64> = b
        .comparison_table
        .iter()
        .map(|r| r.noise_rate * 100.0)
        .collect();
    let panel = |title: &str,
                 y: &str,
                 col: &str,
                 vals: Vec<f64>,
                 y0: Option<(f64, f64)>|
     -> Result<Panel> {
        let mut c = LineChart::new(
            title,
            "noise rate (% of outcomes flipped)",
            y,
            "noise_pct",
            col,
        );
        c.series
            .push(Series::new(y, color(0), points(&pct, &vals, &doc.name)?));
        c.y_range = Some(y0.unwrap_or((0.0, vals.iter().copied().fold(1.0, f64::max) * 1.2)));
        c.legend = Legend::LowerLeft;
        Ok(Panel::Line(c))
    };
    let mut panels = vec![
        panel(
            "Correct-path vs distractor weight gap",
            "mean correct − mean distractor weight",
            "gap",
            b.comparison_table
                .iter()
                .map(|r| r.correct_vs_distractor_gap)
                .collect(),
            Some((0.0, 1.0)),
        )?,
        panel(
            "Nodes fired (last 10 queries)",
            "mean nodes fired",
            "nodes_fired_last_10",
            b.comparison_table
                .iter()
                .map(|r| r.avg_nodes_fired_last_10)
                .collect(),
            None,
        )?,
    ];
    let rates: Option<Vec<f64>> = b
        .results
        .iter()
        .map(|r| r.correct_path_rate_last_10)
        .collect();
    if let Some(rates) = rates {
        panels.push(panel(
            "Correct full path (last 10 queries)",
            "share of queries on the correct path",
            "correct_path_rate_last_10",
            rates,
            Some((0.0, 1.05)),
        )?);
    }
    Ok(Figure {
        stem: "noise_robustness".into(),
        size: (600 * panels.len() as u32, 560),
        title: Some(ctx.title("Noise robustness: learned path quality vs outcome noise")),
        grid: (1, panels.len()),
        panels,
    })
}
