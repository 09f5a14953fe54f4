//! `individuation` (reference `sims/individuation.py`): two copies of one complete graph
//! trained on different workloads end structurally different.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `individuation`.
    pub simulation: String,
    /// 50 per graph.
    pub query_count: usize,
    /// The two workloads.
    pub workloads: Workloads,
    /// Node ids, sorted.
    pub nodes: Vec<String>,
    /// Graph A's size.
    pub graph_a_size: Size,
    /// Graph B's size.
    pub graph_b_size: Size,
    /// Graph A's edges, sorted.
    pub graph_a_edges: Vec<WeightedEdge>,
    /// Graph B's edges, sorted.
    pub graph_b_edges: Vec<WeightedEdge>,
    /// How the two differ.
    pub structural_distinctness: Distinctness,
}

/// `workloads`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workloads {
    /// Agent A's.
    pub agent_a: String,
    /// Agent B's.
    pub agent_b: String,
}

/// `{nodes, edges}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Size {
    /// Nodes.
    pub nodes: usize,
    /// Edges.
    pub edges: usize,
}

/// An edge and its weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightedEdge {
    /// Source id.
    pub source: String,
    /// Target id.
    pub target: String,
    /// Weight.
    pub weight: f64,
}

/// `structural_distinctness`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distinctness {
    /// Edges in either graph.
    pub edge_count: usize,
    /// Mean |w_A − w_B|.
    pub mean_abs_weight_diff: f64,
    /// Edges whose weights differ by more than 0.05.
    pub edges_differ_by_gt_0_05: usize,
    /// Edges reflex in both.
    pub reflex_overlap_count: usize,
    /// Reflex edges per graph.
    pub reflex_counts: ReflexCounts,
    /// The 20 largest differences.
    pub top_differences: Vec<Difference>,
}

/// `reflex_counts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReflexCounts {
    /// Graph A.
    pub graph_a: usize,
    /// Graph B.
    pub graph_b: usize,
}

/// One entry of `top_differences`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// Source id.
    pub source: String,
    /// Target id.
    pub target: String,
    /// |w_A − w_B|.
    pub diff: f64,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// `distinct_graphs`.
    pub met: bool,
    /// More than 10 edges differ by more than 0.05.
    pub distinct_graphs: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, ReferenceClaim>;
