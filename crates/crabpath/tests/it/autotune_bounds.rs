//! The autotuner never leaves its safety bounds (issue 31 item 3, acceptance: "the
//! autotuner never leaves its bounds (property test)"; seed 002 §5.3), whatever the
//! health it sees and the parameters it starts from, and however many times it runs.

use crabpath::autotuner::{tune, tune_with_health};
use crabpath::graph::{Edge, Graph, Node};
use crabpath::health::GraphHealth;
use crabpath::tuning::{Knob, Tuning, SAFETY_BOUNDS};
use proptest::prelude::*;

fn graph(nodes: usize) -> Graph {
    let mut g = Graph::new();
    for i in 0..nodes {
        g.add_node(Node::new(format!("n{i}"), "x"));
    }
    g
}

fn any_health() -> impl Strategy<Value = GraphHealth> {
    (
        0.0..=1.0f64,
        0.0..=1.0f64,
        0.0..=1.0f64,
        0.0..=1.0f64,
        0usize..50,
    )
        .prop_map(
            |(dormant_pct, habitual_pct, reflex_pct, cross_file_edge_pct, orphan_nodes)| {
                GraphHealth {
                    dormant_pct,
                    habitual_pct,
                    reflex_pct,
                    cross_file_edge_pct,
                    orphan_nodes,
                }
            },
        )
}

/// Starting parameters anywhere, far outside the bounds included.
fn any_tuning() -> impl Strategy<Value = Tuning> {
    (
        -1e4..1e4f64,
        -100i64..100,
        -10.0..10.0f64,
        -10.0..10.0f64,
        -10.0..10.0f64,
    )
        .prop_map(
            |(half_life, promotion_threshold, hebbian_increment, reflex_threshold, damping)| {
                Tuning {
                    half_life,
                    promotion_threshold,
                    hebbian_increment,
                    reflex_threshold,
                    damping,
                }
            },
        )
}

proptest! {
    #[test]
    fn autotuner_stays_within_bounds(
        health in prop::collection::vec(any_health(), 1..8),
        start in any_tuning(),
        nodes in 0usize..40,
    ) {
        let g = graph(nodes);
        let mut t = start;
        for h in &health {
            let step = tune_with_health(&g, h, &t);
            prop_assert!(step.after.within_bounds(), "{:?} → {:?}", step.before, step.after);
            // a knob is reported clipped exactly when the proposal was outside its bound
            for b in &SAFETY_BOUNDS {
                let out = !b.contains(step.proposed.get(b.knob));
                prop_assert_eq!(out, step.clipped.iter().any(|c| c.knob == b.knob));
            }
            t = step.after;
        }
    }
}

/// A dead graph (every edge 0.01) moves the knobs the reference's rules name, and the
/// guardrails stop them at the bounds: from the corrected defaults (80, 2, 0.06),
/// dormant 100 % > 0.65 gives half-life +10 (the corrected direction, fix 12 of
/// `crabpath::profile`; the reference's −10) and promotion −1, habitual 0 % < 0.2 gives
/// Hebbian +0.02, and cross-file 0 % < 0.1 another promotion −1 (reference
/// `autotune.py` rules 1, 2, 5). Run 14 times: half-life 80 + 10·12 = 200 reached at
/// run 12 and kept; Hebbian 0.06 + 0.02·3 = 0.12 reached at run 3 and kept; promotion
/// held at 2 from the first run.
#[test]
fn a_dead_graph_drives_the_knobs_to_their_bounds() {
    let mut g = graph(3);
    g.add_edge_by_id("n0", "n1", Edge::new(0.01)).unwrap();
    g.add_edge_by_id("n1", "n2", Edge::new(0.01)).unwrap();
    g.add_edge_by_id("n2", "n0", Edge::new(0.01)).unwrap();
    let mut t = Tuning {
        half_life: 80.0,
        promotion_threshold: 2,
        hebbian_increment: 0.06,
        reflex_threshold: 0.6,
        damping: 0.3,
    };
    let mut runs = Vec::new();
    for _ in 0..14 {
        let step = tune(&g, &t);
        runs.push(step.clone());
        t = step.after;
    }
    assert_eq!(runs[0].after.half_life, 90.0);
    assert_eq!(runs[0].proposed.promotion_threshold, 0);
    assert_eq!(runs[0].after.promotion_threshold, 2);
    assert!(runs[0]
        .clipped
        .iter()
        .any(|c| c.knob == Knob::PromotionThreshold));
    assert!((runs[2].after.hebbian_increment - 0.12).abs() < 1e-12);
    assert_eq!(runs[3].after.hebbian_increment, 0.12);
    assert!(runs[3]
        .clipped
        .iter()
        .any(|c| c.knob == Knob::HebbianIncrement));
    assert_eq!(runs[10].after.half_life, 190.0);
    assert_eq!(runs[11].after.half_life, 200.0);
    assert!(runs[12].clipped.iter().any(|c| c.knob == Knob::HalfLife));
    assert_eq!(runs[13].after.half_life, 200.0);
    assert_eq!(t.reflex_threshold, 0.6);
    assert_eq!(t.damping, 0.3);
}
