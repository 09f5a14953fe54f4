//! domain_separation (paper Fig. 11): files as columns, final cross-file edges.

use anyhow::{anyhow, Result};
use results::sims::domain_separation::Body;

use super::common::Ctx;
use crate::data::Doc;
use crate::plot::{Figure, Legend, Network, Panel, PALETTE};

/// Nodes in one column per file (first-seen order), labelled by id; each final
/// cross-file edge as a red line of width 2 + 2·weight.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let mut groups: Vec<String> = Vec::new();
    let mut nodes = Vec::new();
    for (i, n) in b.nodes.iter().enumerate() {
        let file = n
            .file
            .as_deref()
            .ok_or_else(|| anyhow!("{}: nodes[{i}] has no file", doc.name))?;
        let g = match groups.iter().position(|g| g == file) {
            Some(g) => g,
            None => {
                groups.push(file.to_string());
                groups.len() - 1
            }
        };
        nodes.push((n.id.clone(), g));
    }
    let edges = b.final_cross_file_edges.clone();
    let chart = Network {
        title: ctx.title(&format!(
            "Domain separation: {} cross-file edges after {} queries",
            edges.len(),
            b.query_count
        )),
        x_label: "file".into(),
        groups,
        nodes,
        edges,
        edge_color: PALETTE[3],
        edge_label: "cross-file edge (width ∝ weight)".into(),
        legend: Legend::LowerLeft,
    };
    Ok(Figure::single(
        "domain_separation",
        (1200, 720),
        Panel::Network(chart),
    ))
}
