//! `pg_vs_heuristic` (reference `sims/pg_vs_heuristic.py`; discrepancy S3; paper Table
//! 14): a 20-node random graph learned with +1 outcomes by the heuristic rule or by policy
//! gradient.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::Corrected;

/// Path edge (`source->target`) → weight, in path order.
pub type PathWeights = IndexMap<String, f64>;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `pg_vs_heuristic`.
    pub simulation: String,
    /// 100.
    pub query_count: usize,
    /// The correct path's edges.
    pub correct_path: Vec<String>,
    /// The runs.
    pub runs: Runs,
}

/// `runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Runs {
    /// The heuristic rule.
    pub heuristic: Run,
    /// Policy gradient within the weight bounds.
    pub policy_gradient: Run,
    /// Policy gradient with the bounds widened to ±∞ (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_gradient_unclipped: Option<Run>,
}

impl Runs {
    /// Every run present, by its key, in document order.
    pub fn all(&self) -> Vec<(&'static str, &Run)> {
        let mut v = vec![
            ("heuristic", &self.heuristic),
            ("policy_gradient", &self.policy_gradient),
        ];
        if let Some(u) = &self.policy_gradient_unclipped {
            v.push(("policy_gradient_unclipped", u));
        }
        v
    }
}

/// One learning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Nodes fired per query.
    pub nodes_fired: Vec<usize>,
    /// Mean over the last 10 queries.
    pub nodes_fired_last_10_average: f64,
    /// The first query after which every path edge is ≥ 0.6 (`null`: never).
    pub convergence_query_reflex_threshold: Option<usize>,
    /// The path's weights at the end.
    pub final_correct_path_weights: PathWeights,
    /// Sum of every edge weight at the end.
    pub final_total_edge_weight: f64,
    /// Mean weight of the other edges.
    pub final_distractor_edge_avg_weight: f64,
    /// How many other edges.
    pub final_distractor_edge_count: usize,
    /// Nodes at the end.
    pub final_node_count: usize,
    /// The path's weights over the last 10 queries.
    pub edge_weights_series_last_10: Vec<PathWeights>,
    /// Per-query sums of the updates.
    pub conservation_check: Conservation,
    /// Inhibitory edges among the path's nodes at the end (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inhibitory_edges_among_path_nodes: Option<Vec<(String, f64)>>,
}

/// `conservation_check`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conservation {
    /// Smallest per-query sum.
    pub per_query_delta_sum_min: f64,
    /// Largest.
    pub per_query_delta_sum_max: f64,
    /// Mean.
    pub per_query_delta_sum_mean: f64,
    /// Over the run.
    pub total_delta_sum: f64,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// The heuristic run converges.
    pub heuristic_reaches_reflex: bool,
    /// The PG run converges.
    pub pg_reaches_reflex: bool,
    /// The PG deltas sum to ≈ 0.
    pub pg_conservation_near_zero: bool,
    /// The heuristic run ends with more total weight.
    pub heuristic_growth_overshoots: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, ReferenceClaim>;
