//! `edge_damping` (reference `sims/edge_damping.py`): one traversal with damping 0.3 and
//! one with 1.0 on a 0.9 reflex cycle with a 0.5 exit to D.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `edge_damping`.
    pub simulation: String,
    /// The damped run (λ = 0.3).
    pub damped: Run,
    /// The undamped run (λ = 1.0).
    pub undamped: Run,
}

/// One traversal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The damping factor.
    pub damping: f64,
    /// Fired node ids, in order.
    pub nodes_fired: Vec<String>,
    /// The steps taken.
    pub steps: Vec<Step>,
    /// Whether D fired.
    #[serde(rename = "reached_D")]
    pub reached_d: bool,
    /// The 1-based step that reached D.
    pub d_discovered_at_step: Option<usize>,
}

/// One step of a traversal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Source id.
    pub from_node: String,
    /// Target id.
    pub to_node: String,
    /// The edge's tier.
    pub tier: String,
    /// The edge's weight.
    pub edge_weight: f64,
    /// The weight after damping.
    pub effective_weight: f64,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(non_snake_case)]
pub struct ReferenceClaim {
    /// The damped walk reached D.
    pub damped_discovers_D: bool,
    /// The undamped walk did not.
    pub undamped_loops_without_D: bool,
    /// Both.
    pub met: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, ReferenceClaim>;
