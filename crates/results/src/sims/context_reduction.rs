//! `context_reduction` (reference `sims/context_reduction.py`, discrepancy S2): 30 nodes,
//! complete digraph; Q1 one hop with beam 29, then focused seeds with beam 2; nodes fired
//! per query.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `context_reduction`.
    pub simulation: String,
    /// 100.
    pub query_count: usize,
    /// What the queries ask.
    pub query_patterns: QueryPatterns,
    /// Query 1.
    pub first_query: FirstQuery,
    /// Nodes fired by every query.
    pub nodes_fired_series: Vec<Fired>,
    /// Mean over the first 10 queries.
    pub first_10_average_fired: f64,
    /// Mean over the last 10.
    pub last_10_average_fired: f64,
}

/// `query_patterns`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryPatterns {
    /// The focused nodes.
    pub focused_nodes: Vec<String>,
    /// The pattern in words.
    pub pattern_type: String,
}

/// `first_query`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstQuery {
    /// 1.
    pub query: usize,
    /// Its seeds.
    pub seeds: Vec<String>,
    /// Nodes it fired.
    pub nodes_fired: usize,
    /// Which.
    pub fired: Vec<String>,
}

/// One entry of `nodes_fired_series`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fired {
    /// 1-based query.
    pub query: usize,
    /// Its seeds.
    pub seeds: Vec<String>,
    /// Nodes it fired.
    pub nodes_fired: usize,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// Q1's count and the "last 10" mean (the reference's last-5 mean).
    pub reduction_to_few_nodes: Reduction,
}

/// `reduction_to_few_nodes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reduction {
    /// Nodes fired by query 1.
    pub from_query1: usize,
    /// The mean of the last 5 queries, under the reference's name.
    pub to_last_10_avg: f64,
    /// Whether Q1 fired ≥ 28 and the mean is ≤ 5.
    pub met: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// The drop split into its causes.
    pub effects: Effects,
}

/// `effects`: the last-10 means of the full run and of its controls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effects {
    /// Nodes fired by query 1.
    pub query1_nodes_fired: usize,
    /// Learning and decay.
    pub last_10_average_fired_learning_and_decay: f64,
    /// Static graph (the config switch only).
    pub last_10_average_fired_config_only: f64,
    /// Decay without learning.
    pub last_10_average_fired_decay_only: f64,
    /// Query 1 minus the static graph's mean.
    pub reduction_from_config_switch: f64,
    /// The static graph's mean minus the full run's.
    pub reduction_from_learning_and_decay: f64,
    /// Decay alone minus the full run.
    pub reduction_from_learning_beyond_decay: f64,
}

/// The corrected-profile document (the reference's claim is not kept).
pub type Doc = Corrected<Body, Extra, ReferenceClaim>;
