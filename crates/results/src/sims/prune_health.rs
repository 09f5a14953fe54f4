//! `prune_health` (reference `sims/prune_health.py`): training on a complete graph
//! leaves most edges dormant; pruning them restores health without breaking traversal.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `prune_health`.
    pub simulation: String,
    /// Training plus post-prune queries.
    pub query_count: usize,
    /// The seed keys.
    pub keys: Vec<String>,
    /// Edges before pruning.
    pub edges_before_prune: usize,
    /// After.
    pub edges_after_prune: usize,
    /// Removed.
    pub edges_removed: usize,
    /// Dormant share before.
    pub dormant_pct_before: f64,
    /// After.
    pub dormant_pct_after: f64,
    /// Mean nodes fired after pruning.
    pub avg_nodes_fired_after_prune: f64,
    /// Over the 100 training queries.
    pub first_100_avg_nodes_fired: f64,
    /// The training queries.
    pub training_records: Vec<TrainingRecord>,
    /// The post-prune queries.
    pub post_prune_records: Vec<PostRecord>,
}

/// One training query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingRecord {
    /// 1-based query.
    pub query: usize,
    /// Its seed.
    pub seed: String,
    /// Nodes fired.
    pub nodes_fired: usize,
    /// Which.
    pub fired: Vec<String>,
}

/// One post-prune query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostRecord {
    /// 1-based query.
    pub query: usize,
    /// Its seed.
    pub seed: String,
    /// Nodes fired.
    pub nodes_fired: usize,
    /// Whether another key fired.
    pub reached_non_seed_key: bool,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// Dormant share drops.
    pub prune_improves_health: BeforeAfter<f64>,
    /// Edges were removed.
    pub prune_removed_edges: BeforeAfter<usize>,
    /// Post-prune queries still reach another key.
    pub traversal_not_broken: NotBroken,
}

/// `{before, after, met}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeforeAfter<T> {
    /// Before.
    pub before: T,
    /// After.
    pub after: T,
    /// Met.
    pub met: bool,
}

/// `traversal_not_broken`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotBroken {
    /// Every query reached another key.
    pub met: bool,
    /// How many did.
    pub queries_ok: usize,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, ReferenceClaim>;
