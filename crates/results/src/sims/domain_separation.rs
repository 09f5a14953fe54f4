//! `domain_separation` (reference `sims/domain_separation.py`): three files of five
//! chunks, each a complete digraph with no cross-file edge; 50 queries, 5 of them mixed.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `domain_separation`.
    pub simulation: String,
    /// 50.
    pub query_count: usize,
    /// The mixed queries.
    pub mixed_queries: Vec<usize>,
    /// After every query.
    pub progress: Vec<Progress>,
    /// Cross-file edges at the end.
    pub final_cross_file_edge_count: usize,
    /// Which: `[source, target, weight]`, sorted.
    pub final_cross_file_edges: Vec<(String, String, f64)>,
    /// Connected clusters.
    pub cluster_count: usize,
    /// Their sizes, largest first.
    pub cluster_sizes: Vec<usize>,
    /// Every node and its file.
    pub nodes: Vec<NodeFile>,
}

/// One entry of `progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// 1-based query.
    pub query: usize,
    /// Whether it was seeded in all three files.
    pub mixed: bool,
    /// Cross-file edges after it.
    pub cross_file_edges: usize,
    /// Its seeds.
    pub seeds: Vec<String>,
}

/// A node and its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeFile {
    /// Node id.
    pub id: String,
    /// Its file.
    pub file: Option<String>,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// Cross-file edges at the end.
    pub cross_file_edges_formed: usize,
    /// `2 <= count <= 8`.
    pub cross_file_edges_in_range: bool,
    /// `count <= 2 · out-degree of alpha::0`.
    pub cross_density_low: bool,
    /// Both.
    pub met: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// The clusters' node ids, largest first.
    pub clusters: Vec<Vec<String>>,
    /// The strongest cross-file edge.
    pub max_cross_file_edge_weight: f64,
    /// Out-degree of `alpha::0`.
    pub alpha0_out_degree: usize,
}

/// The corrected-profile document (the reference's claim is not kept).
pub type Doc = Corrected<Body, Extra, ReferenceClaim>;
