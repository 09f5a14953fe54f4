//! The corrected profile's fixes 10 (only explicit correction edges inhibit; the outcome
//! rules leave kinds alone) and 11 (Hebbian co-firing stops at a ceiling inside the
//! habitual tier), each against the paper behaviour on a minimal graph
//! (`crates/crabpath/src/profile.rs`, module table).

use crabpath::profile::HEBBIAN_CEILING;
use crabpath::{
    apply_outcome, apply_outcome_pg, Edge, EdgeKind, Episode, Graph, LearningConfig, Node, NodeId,
    PgArgs, Profile, TraversalConfig, Traverser,
};

fn graph(edges: &[(&str, &str, f64)]) -> (Graph, impl Fn(&str) -> NodeId) {
    let mut g = Graph::new();
    for n in ["a", "b", "c", "d"] {
        g.add_node(Node::new(n, n.to_uppercase()));
    }
    for &(s, t, w) in edges {
        g.add_edge_by_id(s, t, Edge::new(w)).unwrap();
    }
    let ids: Vec<(String, NodeId)> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| (n.to_string(), g.lookup(n).unwrap()))
        .collect();
    let id = move |n: &str| ids.iter().find(|(k, _)| k == n).unwrap().1;
    (g, id)
}

fn path_of(profile: Profile, g: &Graph, start: NodeId) -> Vec<String> {
    let cfg = profile.adjust_traversal(TraversalConfig {
        beam_width: 1,
        max_hops: 3,
        ..TraversalConfig::default()
    });
    let r = Traverser::new().traverse(g, &[(start, 1.0)], &cfg).unwrap();
    r.fired.iter().map(|&n| g.name(n).to_string()).collect()
}

/// The static_vs_learning mechanism in three edges: a→b, b→c are the path, a→c is a
/// sibling that learning drove negative. The paper vetoes c when b expands (a is active
/// with score 1.0 and 1.0 · (−0.5) ≤ −0.01); the corrected profile only refuses the edge
/// a→c itself. An explicit correction edge (kind `inhibitory`) still vetoes.
#[test]
fn learned_negative_weights_route_around_and_corrections_veto() {
    let (mut g, id) = graph(&[("a", "b", 0.5), ("a", "c", -0.5), ("b", "c", 0.5)]);
    assert_eq!(path_of(Profile::Paper, &g, id("a")), ["a", "b"]);
    assert_eq!(path_of(Profile::Corrected, &g, id("a")), ["a", "b", "c"]);
    g.edge_mut(id("a"), id("c")).unwrap().kind = EdgeKind::Inhibitory;
    assert_eq!(path_of(Profile::Corrected, &g, id("a")), ["a", "b"]);
    // a weakly negative correction edge (−0.005 · 1.0 > −0.01) only lowers the score
    g.edge_mut(id("a"), id("c")).unwrap().weight = -0.005;
    assert_eq!(path_of(Profile::Corrected, &g, id("a")), ["a", "b", "c"]);
}

/// The outcome rules relabel kinds in the paper profile only: the heuristic marks an
/// edge `inhibitory` on a negative outcome and PG sets `inhibitory` / `sibling` by sign.
#[test]
fn outcome_rules_relabel_kinds_only_in_the_paper_profile() {
    for profile in Profile::ALL {
        let (mut g, id) = graph(&[("a", "b", 0.05), ("b", "c", 0.5)]);
        let cfg = profile.learning();
        let ep = Episode::from_path(&[id("a"), id("b")]);
        apply_outcome(&mut g, &ep, -1.0, &cfg, None).unwrap();
        let kind = g.edge(id("a"), id("b")).unwrap().kind.clone();
        match profile {
            Profile::Paper => assert_eq!(kind, EdgeKind::Inhibitory),
            Profile::Corrected => assert_eq!(kind, EdgeKind::Sibling),
        }
        let (mut g, id) = graph(&[("a", "b", 0.5), ("a", "c", 0.0), ("a", "d", -0.5)]);
        g.edge_mut(id("a"), id("c")).unwrap().kind = EdgeKind::CrossFile;
        g.edge_mut(id("a"), id("d")).unwrap().kind = EdgeKind::Inhibitory;
        let ep = Episode::from_path(&[id("a"), id("b")]);
        apply_outcome_pg(&mut g, &ep, 1.0, &cfg, None, PgArgs::default()).unwrap();
        let kinds: Vec<EdgeKind> = g.outgoing(id("a")).map(|(_, e)| e.kind.clone()).collect();
        match profile {
            // c is pushed to −0.0x < −0.01; d stays negative
            Profile::Paper => assert_eq!(
                kinds,
                [
                    EdgeKind::Sibling,
                    EdgeKind::Inhibitory,
                    EdgeKind::Inhibitory
                ]
            ),
            Profile::Corrected => assert_eq!(
                kinds,
                [EdgeKind::Sibling, EdgeKind::CrossFile, EdgeKind::Inhibitory]
            ),
        }
    }
}

/// Fix 11: co-firing alone raises a weight at most to the ceiling (0.4) and leaves a
/// weight at or above it alone; the paper profile climbs to the +1 clip.
#[test]
fn hebbian_stops_at_the_ceiling_in_the_corrected_profile() {
    assert_eq!(HEBBIAN_CEILING, 0.4);
    for profile in Profile::ALL {
        let (mut g, id) = graph(&[("a", "b", 0.5), ("b", "c", 0.5), ("a", "d", 0.7)]);
        let cfg = LearningConfig {
            learning_rate: 0.0,
            ..profile.learning()
        };
        // fired a, b, c; steps a→b, b→c; the shortcut a→c exists only by co-firing
        let ep = Episode::from_path(&[id("a"), id("b"), id("c")]);
        for _ in 0..20 {
            apply_outcome(&mut g, &ep, 1.0, &cfg, None).unwrap();
        }
        let w = |s: &str, t: &str| g.weight(id(s), id(t)).unwrap();
        match profile {
            Profile::Paper => {
                assert_eq!(w("a", "c"), 1.0);
                assert_eq!(w("a", "b"), 1.0);
            }
            Profile::Corrected => {
                // created at 0.06, +0.06 per success, stopped at the ceiling
                assert_eq!(w("a", "c"), HEBBIAN_CEILING);
                // above the ceiling already: co-firing leaves it (lr 0 here)
                assert_eq!(w("a", "b"), 0.5);
            }
        }
        assert_eq!(w("a", "d"), 0.7, "not co-fired");
    }
}
