//! individuation (paper Figs. 1/12): the two final weight matrices side by side.

use std::collections::HashMap;

use anyhow::{anyhow, Result};

use super::Ctx;
use crate::data::{num, Doc};
use crate::plot::{Figure, Heatmap, Panel};

/// Two heatmaps (source rows × target columns, 0–1, viridis) for graph A and B.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let nodes: Vec<String> = doc
        .arr("/nodes")?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<_>>()
        .ok_or_else(|| anyhow!("{}: /nodes must be strings", doc.name))?;
    let mut panels = Vec::new();
    for (key, agent, label) in [
        ("graph_a_edges", "agent_a", "A"),
        ("graph_b_edges", "agent_b", "B"),
    ] {
        let workload = doc
            .opt(&format!("/workloads/{agent}"))
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let index: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut values = vec![vec![None; nodes.len()]; nodes.len()];
        for (i, e) in doc.arr(&format!("/{key}"))?.iter().enumerate() {
            let cell = (|| {
                let s = *index.get(e.get("source")?.as_str()?)?;
                let t = *index.get(e.get("target")?.as_str()?)?;
                Some((s, t, num(e.get("weight")?)?))
            })();
            let (s, t, w) =
                cell.ok_or_else(|| anyhow!("{}: /{key}/{i} is not a known edge", doc.name))?;
            values[s][t] = Some(w);
        }
        let title = if workload.is_empty() {
            format!("Graph {label}")
        } else {
            format!("Graph {label} ({workload})")
        };
        panels.push(Panel::Heatmap(Heatmap {
            title,
            x_label: "target".into(),
            y_label: "source".into(),
            rows: nodes.clone(),
            cols: nodes.clone(),
            values,
            vmin: 0.0,
            vmax: 1.0,
            tick_every: (nodes.len() / 8).max(1),
            csv_cols: ["source".into(), "target".into(), "weight".into()],
        }));
    }
    Ok(Figure {
        stem: "individuation".into(),
        size: (1440, 720),
        title: Some(ctx.title("Individuation: final graph matrices")),
        grid: (1, 2),
        panels,
    })
}
