//! The autotuner's pipeline, health → autotune → guardrails → apply (seed 002 §5.2;
//! issue 31 item 3): [`tune`] measures a graph's health, takes the reference's
//! suggestions ([`crate::health::autotune`]), applies them to the parameters without
//! bounds to get the proposal, then clips the proposal to the safety bounds
//! ([`crate::tuning::clip`], the one home of the bounds). The caller persists
//! [`TuneStep::after`] and journals the step.
//!
//! *Cost*: one [`measure_health`] pass, O(V + E); the rest is O(1).

use serde::Serialize;

use crate::decay::DecayConfig;
use crate::graph::{Graph, NodeId};
use crate::health::{
    apply_autotune, autotune, autotune_for, measure_health, measure_health_of, AutotuneConfig,
    GraphHealth, Suggestion,
};
use crate::learn::LearningConfig;
use crate::tuning::{clip, Clipped, Tuning};

/// One run of the pipeline: what it saw, proposed and kept.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneStep {
    /// The parameters before.
    pub before: Tuning,
    /// The health measured.
    pub health: GraphHealth,
    /// The suggestions applied, in the reference's order.
    pub applied: Vec<Suggestion>,
    /// The suggestions applied without bounds.
    pub proposed: Tuning,
    /// The parameters after the guardrails: the proposal inside the safety bounds.
    pub after: Tuning,
    /// The knobs the guardrails moved back into their bounds.
    pub clipped: Vec<Clipped>,
}

impl TuneStep {
    /// Whether the step changes the parameters.
    pub fn changes(&self) -> bool {
        self.after != self.before
    }
}

/// Applies suggestions with no bound at all (the guardrails come after): the reference's
/// arithmetic with the corrected profile's fixes (whole promotion steps, `min_weight`
/// kept).
const UNBOUNDED: AutotuneConfig = AutotuneConfig {
    half_life_bounds: (f64::NEG_INFINITY, f64::INFINITY),
    hebbian_cap: None,
    promotion_floor: i64::MIN,
    promotion_whole_steps: true,
    keep_min_weight: true,
    dormant_slows_decay: true,
};

/// The pipeline on `graph`'s measured health (see the module docs).
pub fn tune(graph: &Graph, before: &Tuning) -> TuneStep {
    tune_with_health(graph, &measure_health(graph), before)
}

/// [`tune`] of the part of `graph` whose nodes `keep` accepts
/// ([`measure_health_of`]): the served brain's autotuner, which leaves its question
/// nodes out.
pub fn tune_where(graph: &Graph, keep: impl Fn(NodeId) -> bool, before: &Tuning) -> TuneStep {
    let (health, nodes) = measure_health_of(graph, keep);
    let applied = autotune_for(nodes, &health, &AutotuneConfig::corrected());
    apply_step(before, &health, applied)
}

/// The pipeline for a given health (`graph` only gives the node count the rules read),
/// with the corrected profile's rules (the served brain's autotuner is corrected only).
pub fn tune_with_health(graph: &Graph, health: &GraphHealth, before: &Tuning) -> TuneStep {
    tune_with_rules(graph, health, before, &AutotuneConfig::corrected())
}

/// The pipeline with the suggestion rules `rules` picks (only its rule switches are read,
/// [`AutotuneConfig::dormant_slows_decay`]; the bounds are always the safety bounds): the
/// brain-death study's arm with the reference's rules (`sims::autotune_study`) runs
/// [`AutotuneConfig::default`].
pub fn tune_with_rules(
    graph: &Graph,
    health: &GraphHealth,
    before: &Tuning,
    rules: &AutotuneConfig,
) -> TuneStep {
    apply_step(before, health, autotune(graph, health, rules))
}

/// The apply and guardrail steps for given suggestions (`health` is recorded only).
fn apply_step(before: &Tuning, health: &GraphHealth, applied: Vec<Suggestion>) -> TuneStep {
    let decay = DecayConfig {
        half_life: before.half_life,
        ..DecayConfig::default()
    };
    let learning = LearningConfig {
        hebbian_increment: before.hebbian_increment,
        promotion_threshold: before.promotion_threshold,
        ..LearningConfig::default()
    };
    let (d, l) = apply_autotune(&applied, &decay, &learning, &UNBOUNDED);
    let proposed = Tuning {
        half_life: d.half_life,
        promotion_threshold: l.promotion_threshold,
        hebbian_increment: l.hebbian_increment,
        ..*before
    };
    let (after, clipped) = clip(&proposed);
    TuneStep {
        before: *before,
        health: *health,
        applied,
        proposed,
        after,
        clipped,
    }
}
