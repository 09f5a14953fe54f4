//! `forgetting` / `selective_forgetting` (reference `sims/forgetting.py`): decay makes
//! untouched edges dormant while ten periodically refreshed edges stay reflex.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `selective_forgetting`.
    pub simulation: String,
    /// 100.
    pub query_count: usize,
    /// The tiers after every query.
    pub tier_history: Vec<HistoryRow>,
    /// The tiers at queries 1, 25, 50, 100.
    pub tracked_query_snapshots: Vec<Snapshot>,
    /// The same snapshots (the reference writes them twice).
    pub tier_distribution_by_query: Vec<Snapshot>,
    /// The tiers at the end.
    pub final_tier_distribution: Distribution,
}

/// Edges per tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// All edges.
    pub total_edges: usize,
    /// `w < 0.3`.
    pub dormant: usize,
    /// `0.3 <= w < 0.8`.
    pub habitual: usize,
    /// `w >= 0.8`.
    pub reflex: usize,
    /// Dormant share.
    pub dormant_pct: f64,
    /// Habitual share.
    pub habitual_pct: f64,
    /// Reflex share.
    pub reflex_pct: f64,
}

/// One entry of `tier_history`: the tiers, then the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    /// The tiers.
    #[serde(flatten)]
    pub tiers: Distribution,
    /// 1-based query.
    pub query: usize,
}

/// One snapshot: the query, then the tiers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// 1-based query.
    pub query: usize,
    /// The tiers.
    #[serde(flatten)]
    pub tiers: Distribution,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// The dormant share is in [0.85, 0.95].
    pub dormant_after_training: DormantRange,
}

/// `dormant_after_training`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DormantRange {
    /// The dormant share.
    pub dormant_pct: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Within.
    pub met: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// Tracked edges with weight ≥ 0.8 at the end.
    pub tracked_edges_reflex: usize,
}

/// The corrected-profile document.
pub type Doc = Corrected<Body, Extra, ReferenceClaim>;
