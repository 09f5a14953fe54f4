//! pg_vs_heuristic (no reference figure; paper Tables 13–14): edge mass after 100
//! queries under the heuristic and the policy-gradient update.

use anyhow::Result;
use results::sims::pg_vs_heuristic::{Body, Run};

use super::common::Ctx;
use crate::data::Doc;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, Panel};

/// Three bar panels over the runs present in `runs` (heuristic, policy_gradient, and
/// any extra run of the corrected profile): final total edge weight, final average
/// distractor weight, and mean per-query mass change (the conservation check).
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let runs = b.runs.all();
    let names: Vec<&str> = runs.iter().map(|r| r.0).collect();
    let metric = |title: &str, y: &str, col: &str, field: fn(&Run) -> f64| -> Result<Panel> {
        let vals: Vec<Option<f64>> = runs.iter().map(|(_, r)| Some(field(r))).collect();
        let mut c = BarChart::new(
            title,
            "update rule",
            y,
            names.iter().map(|n| label(n)).collect(),
        );
        c.x_col = "update_rule".into();
        c.y_col = col.into();
        c.legend = Legend::None;
        let mut s = BarSeries::new("", color(0), vals);
        s.colors = (0..names.len()).map(color).collect();
        s.labels = s
            .values
            .iter()
            .map(|v| v.map(|v| format!("{v:.4}")))
            .collect();
        c.series.push(s);
        Ok(Panel::Bar(c))
    };
    let panels = vec![
        metric(
            "Total edge weight",
            "sum of all edge weights",
            "total_edge_weight",
            |r| r.final_total_edge_weight,
        )?,
        metric(
            "Average distractor edge weight",
            "mean weight off the correct path",
            "distractor_avg_weight",
            |r| r.final_distractor_edge_avg_weight,
        )?,
        metric(
            "Mean per-query mass change",
            "sum of returned deltas per query",
            "mean_delta_sum_per_query",
            |r| r.conservation_check.per_query_delta_sum_mean,
        )?,
    ];
    Ok(Figure {
        stem: "pg_vs_heuristic".into(),
        size: (1800, 560),
        title: Some(ctx.title("Policy gradient vs heuristic: edge mass after 100 queries")),
        grid: (1, panels.len()),
        panels,
    })
}

/// Display name of a run key.
fn label(run: &str) -> String {
    match run {
        "heuristic" => "heuristic".into(),
        "policy_gradient" => "policy gradient".into(),
        other => other.replace('_', " "),
    }
}
