//! Neurogenesis: the novelty gate, automatic node ids and the seed connection of a new
//! node (seed 000 §5; reference `crabpath/neurogenesis.py`, commit b028ad9, unchanged
//! through e752b95). Death is [`crate::graph::Graph::consolidate`]. The gate and the ids
//! live in the core ([`crabpath::neurogenesis`], shared with the served brain) and are
//! re-exported here; the core's module docs say how the reference's gate differs from
//! the paper's.

use crate::graph::{Graph, Id};

pub use crabpath::neurogenesis::{
    assess_novelty, auto_id, normalize, Band, Novelty, NoveltyConfig, BLOCKED_PHRASES,
};

/// Seed connection: an edge `seed -> new_node` of `weight` (0.15 in the adapter) from
/// every seed other than the node itself, replacing existing edges.
pub fn connect_new_node(graph: &mut Graph, new_node: &str, seeds: &[String], weight: f64) {
    for s in seeds {
        if s != new_node {
            graph.add_edge(s, new_node, weight);
        }
    }
}

/// The id of an auto node in `graph`, if present.
pub fn auto_node(graph: &Graph, query: &str) -> Option<Id> {
    graph.id(&auto_id(query)).filter(|&i| graph.contains(i))
}
