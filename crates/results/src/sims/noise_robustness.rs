//! `noise_robustness` (reference `sims/noise_robustness.py`, discrepancy S6; paper Table
//! 15): a 15-node random graph traversed 100 times per noise level, each outcome flipped
//! with that probability.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `noise_robustness`.
    pub simulation: String,
    /// 100 per level.
    pub query_count: usize,
    /// The noise levels.
    pub noise_levels: Vec<f64>,
    /// One run per level.
    pub results: Vec<Level>,
    /// One row per level.
    pub comparison_table: Vec<TableRow>,
}

/// One noise level's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// Share of outcomes flipped.
    pub noise_rate: f64,
    /// 100.
    pub query_count: usize,
    /// Outcomes flipped.
    pub noise_flips: usize,
    /// The path's edges.
    pub correct_path: Vec<String>,
    /// Every path edge ≥ 0.6 after query 100.
    pub reaches_reflex_by_q100: bool,
    /// Mean nodes fired over the last 10 queries.
    pub avg_nodes_fired_last_10: f64,
    /// Path edge → weight at the end.
    pub final_correct_path_weights: IndexMap<String, f64>,
    /// Mean weight of the other edges.
    pub distractor_final_avg_weight: f64,
    /// Path edges below 0.
    pub inhibitory_edges_on_correct_path: Vec<String>,
    /// Nodes fired per query.
    pub nodes_fired_series: Vec<usize>,
    /// Whether the first outcome was flipped (corrected profile; written here, before the
    /// rates, where the reference-shaped document had a scratch field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_outcome_flipped: Option<bool>,
    /// Share of queries routed exactly along the path (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct_path_rate_all: Option<f64>,
    /// Over the last 10 queries (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct_path_rate_last_10: Option<f64>,
    /// What query 100 fired (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_query_fired: Option<Vec<String>>,
}

/// One row of `comparison_table`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Share of outcomes flipped.
    pub noise_rate: f64,
    /// Every path edge ≥ 0.6 after query 100.
    pub reaches_reflex_by_q100: bool,
    /// Mean nodes fired over the last 10 queries.
    pub avg_nodes_fired_last_10: f64,
    /// Whether a path edge ended below 0.
    pub inhibitory_correct_edges: bool,
    /// Mean path weight minus mean distractor weight.
    pub correct_vs_distractor_gap: f64,
}

/// The paper-profile document (the reference defines no claim).
pub type Paper = Body;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, super::NoExtra>;
