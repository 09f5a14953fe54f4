//! `static_vs_learning` (reference `sims/static_vs_learning.py`, discrepancy S8; paper
//! Table 16): a 25-node random graph traversed 100 times with no learning, heuristic
//! learning or policy gradient.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `static_vs_learning`.
    pub simulation: String,
    /// 100.
    pub query_count: usize,
    /// The three modes.
    pub runs: Runs,
}

/// `runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Runs {
    /// No learning.
    #[serde(rename = "static")]
    pub static_: Mode,
    /// The heuristic rule.
    pub heuristic: Mode,
    /// Policy gradient.
    pub policy_gradient: Mode,
}

impl Runs {
    /// The three runs, by their keys, in document order.
    pub fn all(&self) -> [(&'static str, &Mode); 3] {
        [
            ("static", &self.static_),
            ("heuristic", &self.heuristic),
            ("policy_gradient", &self.policy_gradient),
        ]
    }
}

/// One mode's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mode {
    /// `static`, `heuristic_learning`, `policy_gradient_learning`.
    pub mode: String,
    /// 100.
    pub query_count: usize,
    /// Nodes fired per query.
    pub nodes_fired_series: Vec<usize>,
    /// Their mean.
    pub average_nodes_fired: f64,
    /// Whether 10 consecutive queries took the same steps.
    pub converges_to_stable_path: bool,
    /// The first such query.
    pub queries_until_stable_path: Option<usize>,
    /// The first query firing fewer than 5 nodes.
    pub queries_until_nodes_fired_lt_5: Option<usize>,
    /// Path edge → weight at the end.
    pub final_correct_path_weights: IndexMap<String, f64>,
    /// The path's edges.
    pub correct_path: Vec<String>,
    /// Share of the last 10 queries along the full path (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct_path_rate_last_10: Option<f64>,
    /// Inhibitory edges among the path's nodes at the end (corrected profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inhibitory_edges_among_path_nodes: Option<Vec<(String, f64)>>,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// The static mode fires the fewest nodes.
    pub static_has_lowest_fired: bool,
    /// Some mode converges to a stable path.
    pub any_run_converges_stable: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, ReferenceClaim>;
