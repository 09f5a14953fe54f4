//! individuation (paper Figs. 1/12): the two final weight matrices side by side.

use std::collections::HashMap;

use anyhow::{anyhow, Result};
use results::sims::individuation::Body;

use super::common::Ctx;
use crate::data::Doc;
use crate::plot::{Figure, Heatmap, Panel};

/// Two heatmaps (source rows × target columns, 0–1, viridis) for graph A and B.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let nodes = &b.nodes;
    let mut panels = Vec::new();
    for (key, edges, workload, label) in [
        ("graph_a_edges", &b.graph_a_edges, &b.workloads.agent_a, "A"),
        ("graph_b_edges", &b.graph_b_edges, &b.workloads.agent_b, "B"),
    ] {
        let index: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut values = vec![vec![None; nodes.len()]; nodes.len()];
        for (i, e) in edges.iter().enumerate() {
            let (s, t) = index
                .get(e.source.as_str())
                .zip(index.get(e.target.as_str()))
                .ok_or_else(|| anyhow!("{}: {key}[{i}] is not a known edge", doc.name))?;
            values[*s][*t] = Some(e.weight);
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
