//! `brain_death` (reference `sims/brain_death.py`, discrepancy S7; simulation name
//! `brain_death_recovery`): a complete digraph at 0.01 through 30 rounds of health,
//! autotune suggestions (recorded, never applied), traversal, learning and decay.

use crabpath::health::Suggestion;
use crabpath::GraphHealth;
use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `brain_death_recovery`.
    pub simulation: String,
    /// 30.
    pub round_count: usize,
    /// Every round.
    pub rounds: Vec<Round>,
    /// The knobs autotune named, sorted.
    pub recovery_signals: Vec<String>,
    /// Health after the last round.
    pub final_health: GraphHealth,
}

/// One round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// 1-based round.
    pub round: usize,
    /// Health before it.
    pub pre_health: GraphHealth,
    /// Health after it.
    pub post_health: GraphHealth,
    /// What autotune suggested (not applied).
    pub suggestions: Vec<Suggestion>,
    /// Node ids fired.
    pub fired_nodes: Vec<String>,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// All three checks below but the last.
    pub met: bool,
    /// Round 1's dormant share > 0.9.
    pub autotune_detected_failure: bool,
    /// Some round had a suggestion.
    pub suggests_recovery: bool,
    /// The reflex share rose from round 1's pre-health.
    pub health_moved_toward_reflexive: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// Always false: suggestions are recorded, never applied.
    pub suggestions_applied: bool,
    /// Round 1's dormant share > 0.9.
    pub autotune_detected_failure: bool,
    /// The reflex share after round 1.
    pub round_1_post_reflex_pct: f64,
}

/// The corrected-profile document (the reference's claim is not kept).
pub type Doc = Corrected<Body, Extra, ReferenceClaim>;
