//! brain_death (reference `sims/brain_death.py`, discrepancy S7; simulation name
//! "brain_death_recovery").
//!
//! 16 nodes, complete digraph whose weights are all set to 0.01 ("dead" brain); 30
//! rounds of health → autotune suggestions (recorded, never applied) → traverse from n00
//! → learn (+1) → decay. Measured: health before/after each round.

use std::collections::BTreeSet;

use anyhow::Result;
use crabpath::{
    apply_decay, apply_outcome, autotune, measure_health, DecayConfig, Edge, Episode, Graph,
    LearningConfig, Node, NodeId, Profile, TierThresholds, TraversalConfig, Traverser,
};
use results::sims::brain_death::{Body, Doc, Extra, Paper, ReferenceClaim, Round};
use serde_json::Value;

use crate::claims::Verdict;
use crate::paper::extract::{find, inner, join};
use crate::paper::{self, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Simulation};

const NAME: &str = "brain_death";

/// Nodes of the complete digraph.
pub(crate) const N: usize = 16;
/// Rounds.
pub(crate) const ROUNDS: usize = 30;

/// The complete digraph on `N` nodes `n00`…`n15`, edges added source by source, each
/// weighted by `weight()` (also [`crate::autotune_study`]'s graph).
pub(crate) fn complete_digraph(mut weight: impl FnMut() -> f64) -> Result<(Graph, Vec<NodeId>)> {
    let mut g = Graph::new();
    let ids: Vec<NodeId> = (0..N)
        .map(|i| g.add_node(Node::new(format!("n{i:02}"), format!("node {i:02}"))))
        .collect();
    for &s in &ids {
        for &t in &ids {
            if s != t {
                g.add_edge(s, t, Edge::new(weight()))?;
            }
        }
    }
    Ok((g, ids))
}

/// The scenario's traversal: 2 hops, beam 3, everything above 0.001 reflex, damping 0.6
/// (also [`crate::autotune_study`]'s).
pub(crate) fn traversal(profile: Profile) -> TraversalConfig {
    profile.adjust_traversal(TraversalConfig {
        max_hops: 2,
        beam_width: 3,
        tiers: TierThresholds {
            reflex: 0.001,
            habitual: (0.0, 1.0),
            ..Default::default()
        },
        edge_damping: 0.6,
        ..Default::default()
    })
}

fn build() -> Result<Graph> {
    let (mut g, _) = complete_digraph(|| 0.72)?;
    // Re-add every edge in place at 0.01, keeping its kind.
    let edges: Vec<(NodeId, NodeId, Edge)> = g.edges().map(|(s, t, e)| (s, t, e.clone())).collect();
    for (s, t, e) in edges {
        g.add_edge(s, t, Edge::new(0.01).with_kind(e.kind))?;
    }
    Ok(g)
}

pub fn run(profile: Profile, seed: u64) -> Result<Value> {
    let mut g = build()?;
    let mut trav = Traverser::new();
    let cfg = traversal(profile);
    let learning = profile.adjust_learning(LearningConfig::default());
    let seeds = [(g.require("n00")?, 1.0)];
    let mut rounds = Vec::with_capacity(ROUNDS);
    let mut knobs = BTreeSet::new();
    let (mut first_pre, mut first_post, mut last_post) = (None, None, None);
    let mut any_suggestions = false;
    for round in 1..=ROUNDS {
        let pre = measure_health(&g);
        let suggestions = autotune(&g, &pre, &profile.autotune());
        any_suggestions |= !suggestions.is_empty();
        knobs.extend(suggestions.iter().map(|s| s.knob.clone()));
        let r = trav.traverse(&g, &seeds, &cfg)?;
        apply_outcome(&mut g, &Episode::from_result(&r), 1.0, &learning, None)?;
        apply_decay(&mut g, &DecayConfig::default());
        let post = measure_health(&g);
        first_pre.get_or_insert(pre);
        first_post.get_or_insert(post);
        last_post = Some(post);
        rounds.push(Round {
            round,
            pre_health: pre,
            post_health: post,
            suggestions,
            fired_nodes: r.fired_names(&g).into_iter().map(String::from).collect(),
        });
    }
    let (first_pre, first_post, last_post) = (
        first_pre.expect("rounds"),
        first_post.expect("rounds"),
        last_post.expect("rounds"),
    );
    let detected = first_pre.dormant_pct > 0.9;
    let toward_reflex = last_post.reflex_pct > first_pre.reflex_pct;
    let recovered = last_post.reflex_pct > first_post.reflex_pct;
    let body = Body {
        simulation: "brain_death_recovery".into(),
        round_count: ROUNDS,
        rounds,
        recovery_signals: knobs.into_iter().collect(),
        final_health: last_post,
    };
    if profile == Profile::Paper {
        let claim = ReferenceClaim {
            met: detected && any_suggestions && recovered,
            autotune_detected_failure: detected,
            suggests_recovery: any_suggestions,
            health_moved_toward_reflexive: toward_reflex,
        };
        return document(&Paper { body, claim });
    }
    let met = recovered;
    let note = format!(
        "Restated: the reference credits the autotuner, but its suggestions are recorded and \
         never applied (discrepancy S7); what raises the reflex share is plain reinforcement of \
         the one path traversed from n00 every round while decay snaps the untouched 0.01 \
         edges to 0. Autotune did flag the dead graph (round-1 dormant share {:?} > 0.9: {detected}). \
         Final dormant {:?}, reflex {:?} vs {:?} after round 1. {}",
        first_pre.dormant_pct, last_post.dormant_pct, last_post.reflex_pct, first_post.reflex_pct,
        if met { "Holds." } else { "FAILS: the reflex share did not rise." }
    );
    let claim = Predicate::new(
        "Repeated positive outcomes on one path lift the reflex share of a dead graph (all edges 0.01) above its round-1 value, without applying any autotune suggestion",
        "final_health.reflex_pct",
        last_post.reflex_pct,
        Cmp::Gt,
        first_post.reflex_pct,
    )
    .note(note);
    document(&Doc::new(
        body,
        seed,
        "none (deterministic scenario)",
        None,
        Extra {
            suggestions_applied: false,
            autotune_detected_failure: detected,
            round_1_post_reflex_pct: first_post.reflex_pct,
        },
        predicate::Claim::one(claim),
    ))
}

/// The simulation of this module.
pub struct BrainDeath;

impl Simulation for BrainDeath {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "5.3",
            paper_figures: &["5"],
            description: "16-node graph with all weights 0.01; 30 rounds of health, autotune (not applied), traversal, learning, decay",
            tables: vec![sim_table(5, "Brain-death recovery behavior", NAME, true, "dormant / habitual / reflex share after the round, %", vec![
                Row::sim(NAME, "round 1", |d| brain_round(d, 1.0)),
                Row::sim(NAME, "round 10", |d| brain_round(d, 10.0)),
                Row::sim(NAME, "round 30", |d| brain_round(d, 30.0)),
            ])],
            summary: vec![],
            claims: vec![Claim { section: "5.3", text: "brain death: the reflex share recovers by round 30", table: 5, row: "round 30" }, ],
            figures: &[NAME],
            reference_verdict: Verdict::Pass,
            reference_note: None,
        }
    }
    fn uses_rng(&self) -> bool {
        false
    }
    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        run(profile, seed)
    }
}

/// Post-round health of brain_death round `r`: `dormant / habitual / reflex` in %.
fn brain_round(d: &Value, r: f64) -> Option<String> {
    let e = find(d, "/rounds", "round", r)?;
    let p = |k: &str| inner(e, &format!("/post_health/{k}")).map(|v| format!("{:.2}", v * 100.0));
    join(
        vec![p("dormant_pct"), p("habitual_pct"), p("reflex_pct")],
        " / ",
    )
}
