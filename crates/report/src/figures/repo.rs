//! OpenClawBrain paper Fig. 3, "Bootstrapped graph from workspace chunks", drawn from
//! the `bench repo --graph-out` document of the reference repository at the paper's
//! commit (`results/repo-bench/graph-70f0065.json.gz`): every chunk a node, coloured
//! by its file, laid out file by file; left the bootstrap graph (intra-file sibling
//! edges only), right the graph `crabpath_traverse` learned over the benchmark's 45
//! queries, its edges coloured by tier (reflex ≥ 0.6, habitual [0.2, 0.6), dormant,
//! inhibitory ≤ −0.01: the core's [`crabpath::TierThresholds`] defaults, reference
//! `crabpath/traverse.py::_tier`).

use anyhow::Result;
use plotters::style::RGBColor;
use results::repo::{GraphDoc, GraphEdge};

use crabpath::{Tier, TierThresholds};

use crate::data::Doc;
use crate::plot::{ClusterMap, Figure, Legend, Panel};

/// File stem of the figure (`figures/repo/<stem>.png`).
pub const STEM: &str = "workspace_graph_70f0065";

/// The stem of the graph document in `results/repo-bench/`.
pub const GRAPH_DOC: &str = "graph-70f0065";

/// Tiers in drawing order (later on top), with their colours and line widths.
const TIERS: [(Tier, RGBColor, u32); 4] = [
    (Tier::Dormant, RGBColor(0xb0, 0xb0, 0xb0), 1),
    (Tier::Habitual, RGBColor(0x1f, 0x77, 0xb4), 1),
    (Tier::Reflex, RGBColor(0xd6, 0x27, 0x28), 3),
    (Tier::Inhibitory, RGBColor(0x00, 0x00, 0x00), 3),
];

/// Each edge `[source, target, weight]` with its tier's index in [`TIERS`].
fn edges(list: &[GraphEdge]) -> Vec<(usize, usize, usize)> {
    let th = TierThresholds::default();
    list.iter()
        .map(|&(s, t, w)| {
            let tier = th.classify(w);
            let class = TIERS.iter().position(|(x, _, _)| *x == tier).unwrap_or(0);
            (s, t, class)
        })
        .collect()
}

/// The learned graph of `g`, or an error naming the file.
fn learned<'a>(g: &'a GraphDoc, doc: &Doc) -> Result<&'a results::repo::LearnedGraph> {
    g.learned
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("{}: no learned graph", doc.name))
}

/// The figure: the bootstrap graph and the learned graph side by side.
pub fn figure(doc: &Doc) -> Result<Figure> {
    let g: GraphDoc = doc.parse()?;
    let files = g.files.clone();
    let node_cluster: Vec<Option<usize>> =
        g.node_file.iter().map(|f| f.map(|x| x as usize)).collect();
    let learned = learned(&g, doc)?;
    let (queries, method) = (learned.queries, learned.method.as_str());
    let classes: Vec<(String, RGBColor, u32)> = TIERS
        .iter()
        .map(|(t, c, w)| (t.as_str().to_string(), *c, *w))
        .collect();
    let panel = |title: String, edges| {
        Panel::Clusters(ClusterMap {
            title,
            clusters: files.clone(),
            node_cluster: node_cluster.clone(),
            classes: classes.clone(),
            edges,
            label_min_nodes: 20,
            legend: Legend::LowerRight,
        })
    };
    let n = node_cluster.len();
    Ok(Figure {
        stem: STEM.into(),
        size: (1800, 900),
        title: Some(format!(
            "Workspace graph of the reference repository at 70f0065: {n} chunks of {} files",
            files.len()
        )),
        grid: (1, 2),
        panels: vec![
            panel(
                "bootstrap (sibling edges within each file)".into(),
                edges(&g.bootstrap_edges),
            ),
            panel(
                format!("after {method} over {queries} queries (edge tiers)"),
                edges(&learned.edges),
            ),
        ],
    })
}

/// `tier (count)` of the learned graph's edges, `, `-joined, in `TIERS` order.
pub fn learned_tiers(doc: &Doc) -> Result<String> {
    let g: GraphDoc = doc.parse()?;
    let e = edges(&learned(&g, doc)?.edges);
    Ok(TIERS
        .iter()
        .enumerate()
        .map(|(i, (t, _, _))| {
            let n = e.iter().filter(|x| x.2 == i).count();
            format!("{} {n}", t.as_str())
        })
        .collect::<Vec<_>>()
        .join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tiers_follow_the_core_thresholds() {
        let d = Doc::new(
            "g",
            json!({"workspace": "w", "description": "d",
                   "files": ["a.md", "b.md"], "node_file": [0, 0, 1],
                   "bootstrap_edges": [[0, 1, 0.5]],
                   "learned": {"method": "crabpath_traverse", "queries": 2,
                               "edges": [[0, 1, 0.7], [1, 2, 0.1], [2, 0, -0.2], [1, 0, 0.3]]}}),
        );
        let g: GraphDoc = d.parse().unwrap();
        assert_eq!(
            edges(&g.learned.unwrap().edges),
            vec![(0, 1, 2), (1, 2, 0), (2, 0, 3), (1, 0, 1)]
        );
        let f = figure(&d).unwrap();
        assert_eq!(f.panels.len(), 2);
        assert!(Doc::new("x", json!({"bootstrap_edges": [[0, 1]]}))
            .parse::<GraphDoc>()
            .is_err());
    }
}
