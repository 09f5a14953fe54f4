//! noise_robustness (no reference figure; paper Table 15): what flipped outcomes do
//! to the learned path, by noise rate.

use anyhow::Result;

use super::{points, Ctx};
use crate::data::{num, Doc};
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Panels: correct-vs-distractor weight gap, last-10 nodes fired, and (when the
/// results carry it, as the corrected profile's do) the last-10 correct-path rate,
/// each against the noise rate.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let rates = doc.column("/comparison_table", "noise_rate")?;
    let pct: Vec<f64> = rates.iter().map(|r| r * 100.0).collect();
    let panel = |title: &str,
                 y: &str,
                 col: &str,
                 ptr: &str,
                 field: &str,
                 y0: Option<(f64, f64)>|
     -> Result<Panel> {
        let vals = doc.column(ptr, field)?;
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
            "/comparison_table",
            "correct_vs_distractor_gap",
            Some((0.0, 1.0)),
        )?,
        panel(
            "Nodes fired (last 10 queries)",
            "mean nodes fired",
            "nodes_fired_last_10",
            "/comparison_table",
            "avg_nodes_fired_last_10",
            None,
        )?,
    ];
    let results = doc.arr("/results")?;
    if results
        .iter()
        .all(|r| r.get("correct_path_rate_last_10").and_then(num).is_some())
    {
        panels.push(panel(
            "Correct full path (last 10 queries)",
            "share of queries on the correct path",
            "correct_path_rate_last_10",
            "/results",
            "correct_path_rate_last_10",
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
