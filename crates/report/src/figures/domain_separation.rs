//! domain_separation (paper Fig. 11): files as columns, final cross-file edges.

use anyhow::{anyhow, Result};

use super::Ctx;
use crate::data::{num, Doc};
use crate::plot::{Figure, Legend, Network, Panel, PALETTE};

/// Nodes in one column per file (first-seen order), labelled by id; each final
/// cross-file edge as a red line of width 2 + 2·weight.
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let mut groups: Vec<String> = Vec::new();
    let mut nodes = Vec::new();
    for (i, n) in doc.arr("/nodes")?.iter().enumerate() {
        let (Some(id), Some(file)) = (
            n.get("id").and_then(|v| v.as_str()),
            n.get("file").and_then(|v| v.as_str()),
        ) else {
            return Err(anyhow!("{}: /nodes/{i} needs string id and file", doc.name));
        };
        let g = match groups.iter().position(|g| g == file) {
            Some(g) => g,
            None => {
                groups.push(file.to_string());
                groups.len() - 1
            }
        };
        nodes.push((id.to_string(), g));
    }
    let mut edges = Vec::new();
    for (i, e) in doc.arr("/final_cross_file_edges")?.iter().enumerate() {
        let parsed = e.as_array().and_then(|a| {
            Some((
                a.first()?.as_str()?.to_string(),
                a.get(1)?.as_str()?.to_string(),
                num(a.get(2)?)?,
            ))
        });
        edges.push(parsed.ok_or_else(|| {
            anyhow!(
                "{}: /final_cross_file_edges/{i} is not [source, target, weight]",
                doc.name
            )
        })?);
    }
    let chart = Network {
        title: ctx.title(&format!(
            "Domain separation: {} cross-file edges after {} queries",
            edges.len(),
            doc.f64("/query_count").unwrap_or(0.0)
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
