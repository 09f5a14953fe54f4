//! `scaling_analysis` (reference `sims/scaling_analysis.py`, discrepancy S6; paper Table
//! 17): random graphs of 50–2000 nodes traversed 50 times each.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `scaling_analysis`.
    pub simulation: String,
    /// 50 per size.
    pub query_count: usize,
    /// The sizes.
    pub graph_sizes: Vec<usize>,
    /// One row per size.
    pub average_nodes_fired_by_size: Vec<SizeRow>,
    /// The traversal's hops and beam.
    pub query_config: QueryConfig,
    /// Time ratios between consecutive sizes (timing).
    pub scale_vs_size: Vec<Ratio>,
    /// The reference's summary.
    pub summary: Summary,
}

/// One size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeRow {
    /// Nodes.
    pub graph_size: usize,
    /// Mean wall time per traversal (timing).
    pub avg_traversal_ms: f64,
    /// Mean nodes fired.
    pub avg_nodes_fired: f64,
    /// Fewest fired.
    pub nodes_fired_min: Option<usize>,
    /// Most fired.
    pub nodes_fired_max: Option<usize>,
    /// Out-edges examined per traversal (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_edges_examined_per_traversal: Option<usize>,
    /// Incoming edges scanned for inhibition per traversal (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming_edges_scanned_per_traversal: Option<usize>,
    /// Their sum (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_per_traversal: Option<usize>,
}

/// `query_config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryConfig {
    /// Hops.
    pub max_hops: usize,
    /// Beam.
    pub beam_width: usize,
}

/// One entry of `scale_vs_size`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// Smaller size.
    pub from: usize,
    /// Larger size.
    pub to: usize,
    /// `to / from`.
    pub size_ratio: f64,
    /// Time ratio (timing).
    pub time_ratio: f64,
}

/// `summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Whether every time ratio is at most its size ratio (timing).
    pub is_sublinear_time_growth: bool,
    /// The largest size.
    pub final_size: usize,
}

/// The paper-profile document (the reference defines no claim).
pub type Paper = Body;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// Fitted log-log slope of the work per traversal against size.
    pub work_loglog_slope: Option<f64>,
    /// Of the wall time (timing).
    pub time_loglog_slope: Option<f64>,
}

/// The corrected-profile document.
pub type Doc = Corrected<Body, Extra, super::NoExtra>;
