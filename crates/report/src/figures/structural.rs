//! structural_vs_edge_only (no reference figure; paper Table 20): cumulative cost of
//! the three maintenance strategies over 200 queries, by context characters (the
//! sim's own metric) and by nodes fired (the paper's "1,815 vs 1,598").

use anyhow::{anyhow, Result};
use results::sims::structural_vs_edge_only::{Body, Strategy};

use super::common::{counts, queries, Ctx};
use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Series};

/// Two panels of cumulative sums, one line per strategy.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let strategies = &b.strategies;
    if strategies.is_empty() {
        return Err(anyhow!("{}: strategies is empty", doc.name));
    }
    let panel =
        |title: &str, y: &str, col: &str, field: fn(&Strategy) -> &Vec<usize>| -> Result<Panel> {
            let mut c = LineChart::new(title, "query", y, "query", col);
            c.legend = Legend::UpperLeft;
            for (i, (name, strategy)) in strategies.iter().enumerate() {
                let vals = counts(field(strategy).iter().copied());
                let mut acc = 0.0;
                let cum: Vec<(f64, f64)> = queries(vals.len())
                    .into_iter()
                    .zip(vals)
                    .map(|(q, v)| {
                        acc += v;
                        (q, acc)
                    })
                    .collect();
                let total = cum.last().map_or(0.0, |p| p.1);
                let label = format!(
                    "{} (total {})",
                    name.replace('_', " "),
                    crate::plot::tick(total)
                );
                let mut s = Series::new(label, color(i), cum).plain();
                s.width = 5 - 2 * i.min(2) as u32;
                c.series.push(s);
            }
            Ok(Panel::Line(c))
        };
    let panels = vec![
        panel(
            "Cumulative context characters (the sim's cost)",
            "context characters, cumulative",
            "cumulative_context_chars",
            |s| &s.context_chars_series,
        )?,
        panel(
            "Cumulative nodes fired (the paper's cost)",
            "nodes fired, cumulative",
            "cumulative_nodes_fired",
            |s| &s.nodes_fired_series,
        )?,
    ];
    Ok(Figure {
        stem: "structural_vs_edge_only".into(),
        size: (1600, 600),
        title: Some(ctx.title("Structural maintenance vs edge-only learning: cost over queries")),
        grid: (1, 2),
        panels,
    })
}
