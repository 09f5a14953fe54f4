//! `merge_compression` (reference `sims/merge_compression.py`, discrepancy S4): eight
//! strongly bidirectional node pairs are merged; nodes fired and context length before
//! and after.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `merge_compression`.
    pub simulation: String,
    /// 50 per phase.
    pub query_count: usize,
    /// The pairs.
    pub pairs: Vec<Pair>,
    /// Edges before the merges.
    pub edges_before_merge: usize,
    /// Edges after.
    pub edges_after_merge: usize,
    /// Nodes before.
    pub nodes_before_merge: usize,
    /// Nodes after.
    pub nodes_after_merge: usize,
    /// Mean nodes fired before.
    pub avg_nodes_fired_before: f64,
    /// After.
    pub avg_nodes_fired_after: f64,
    /// Mean context characters before.
    pub avg_context_chars_before: f64,
    /// After.
    pub avg_context_chars_after: f64,
    /// The pairs `suggest_merges` proposed.
    pub suggested_pairs: Vec<(String, String)>,
    /// Merges applied.
    pub merges_applied: usize,
    /// Every query of both phases.
    pub query_series: Phases,
}

/// One pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// First node.
    pub source: String,
    /// Second node.
    pub target: String,
}

/// `query_series`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Before the merges.
    pub before_merge: Vec<QueryPoint>,
    /// After.
    pub after_merge: Vec<QueryPoint>,
}

/// One query of a phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryPoint {
    /// 1-based query.
    pub query: usize,
    /// The pair it asks for.
    pub pair: (String, String),
    /// Nodes fired.
    pub nodes_fired: usize,
    /// Characters of the context.
    pub context_chars: usize,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// Nodes fired drop.
    pub merge_reduces_nodes_fired: FromTo,
    /// Context length drops.
    pub merge_reduces_context: FromTo,
}

/// `{from, to, met}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FromTo {
    /// Before.
    pub from: f64,
    /// After.
    pub to: f64,
    /// `to < from`.
    pub met: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// What is reported but not claimed.
    pub measured_not_claimed: Measured,
}

/// `measured_not_claimed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Mean context characters before.
    pub avg_context_chars_before: f64,
    /// After.
    pub avg_context_chars_after: f64,
    /// Nodes before.
    pub nodes_before_merge: usize,
    /// Nodes after.
    pub nodes_after_merge: usize,
}

/// The corrected-profile document.
pub type Doc = Corrected<Body, Extra, ReferenceClaim>;
