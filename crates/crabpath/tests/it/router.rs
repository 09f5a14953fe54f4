//! The query-aware routers ([`crabpath::router`]) and the policy gradient over their own
//! softmax ([`crabpath::router_pg`]): gradient against finite differences of log π,
//! conservation and sign identities, bit-identity of the `edge` router's update with the
//! corrected profile's `apply_outcome_pg`, determinism.

use crabpath::learn::Action;
use crabpath::router_pg::{route_log_prob, route_log_prob_gradient};
use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::{
    apply_outcome_pg, apply_outcome_router_pg, Edge, Episode, Graph, LearningConfig, NodeId,
    PgArgs, Profile, QueryRouter, RouterConfig, RouterKind, TraversalConfig, TraversalResult,
    Traverser, UnitVectors,
};
use serde_json::json;

const DIM: usize = 16;

fn random_rows(n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| (0..DIM).map(|_| rng.next_f64() - 0.5).collect())
        .collect()
}

fn query(seed: u64) -> Vec<f64> {
    random_rows(1, seed).remove(0)
}

/// A 300-node random graph (uniform out-degree 8, weights in [−0.2, 1)), some edges
/// carrying `relevance` metadata, and random vectors.
fn world() -> (Graph, UnitVectors) {
    let mut g = random_graph(300, Degree::Uniform(8), 7);
    let edges: Vec<(NodeId, NodeId)> = g.edges().map(|(s, t, _)| (s, t)).step_by(5).collect();
    for (i, (s, t)) in edges.into_iter().enumerate() {
        let e = g.edge_mut(s, t).unwrap();
        e.metadata
            .insert("relevance", json!(0.1 * (i % 7) as f64 - 0.3));
    }
    let v = UnitVectors::from_rows(&random_rows(g.symbol_count(), 3)).unwrap();
    (g, v)
}

fn router<'v>(kind: RouterKind, v: &'v UnitVectors, q: &[f64]) -> QueryRouter<'v> {
    let cfg = RouterConfig {
        kind,
        alpha: 0.7,
        top_k: 2,
        confidence_temperature: 0.3,
    };
    let mut r = QueryRouter::new(cfg, Some(v)).unwrap();
    r.set_query(q).unwrap();
    r
}

/// Central finite differences of log π(a | s) in each outgoing weight agree with the
/// analytic gradient, for every router kind, for a chosen edge, STOP and a target that
/// is not an edge, at two temperatures.
#[test]
fn gradient_matches_finite_differences_of_log_pi() {
    let (mut g, v) = world();
    let sources: Vec<NodeId> = g.node_ids().step_by(37).collect();
    let h = 1e-6;
    let mut checked = 0;
    for kind in RouterKind::ALL {
        let r = router(kind, &v, &query(11));
        for &s in &sources {
            let targets: Vec<NodeId> = g.outgoing(s).map(|(t, _)| t).collect();
            let stranger = g.node_ids().find(|n| !targets.contains(n)).unwrap();
            for action in [
                Action::Node(targets[0]),
                Action::Node(targets[3]),
                Action::Stop,
            ] {
                for tau in [1.0, 0.5] {
                    let grad = route_log_prob_gradient(&g, &r, s, action, tau);
                    assert_eq!(grad.len(), targets.len());
                    for (j, &(t, d)) in grad.iter().enumerate() {
                        assert_eq!(t, targets[j]);
                        let w0 = g.weight(s, t).unwrap();
                        let mut at = |w: f64| {
                            g.edge_mut(s, t).unwrap().weight = w;
                            route_log_prob(&g, &r, s, action, tau).unwrap()
                        };
                        let fd = (at(w0 + h) - at(w0 - h)) / (2.0 * h);
                        g.edge_mut(s, t).unwrap().weight = w0;
                        assert!(
                            (fd - d).abs() <= 1e-6 * (1.0 + d.abs()),
                            "{kind} s={s:?} {action:?} τ={tau} j={j}: analytic {d}, fd {fd}"
                        );
                        checked += 1;
                    }
                }
            }
            // an action without an edge has a constant logit: its "gradient" is −∂ log Z
            let grad = route_log_prob_gradient(&g, &r, s, Action::Node(stranger), 1.0);
            let stop = route_log_prob_gradient(&g, &r, s, Action::Stop, 1.0);
            assert_eq!(grad, stop);
        }
    }
    assert!(checked > 500, "{checked}");
}

/// The `edge` router's update is the corrected profile's `apply_outcome_pg`, bit for bit
/// (weights and reported deltas), on episodes of real routed traversals.
#[test]
fn edge_router_update_is_the_corrected_pg() {
    let (base, _) = world();
    let learning = Profile::Corrected.learning();
    let cfg = Profile::Corrected.traversal();
    let mut r = QueryRouter::edge(3).unwrap();
    let (mut a, mut b) = (base.clone(), base);
    let mut t = Traverser::new();
    let mut out = TraversalResult::default();
    let ids: Vec<NodeId> = a.node_ids().collect();
    let mut learned = 0;
    for i in 0..200 {
        let seeds = [(ids[(i * 7) % ids.len()], 1.0)];
        t.run(&a, &seeds, &cfg, Some(&mut r), "", &mut out).unwrap();
        let ep = Episode::from_result(&out);
        let o = if i % 3 == 0 { -1.0 } else { 1.0 };
        let ua = apply_outcome_router_pg(&mut a, &ep, o, &learning, &r, None).unwrap();
        let ub = apply_outcome_pg(&mut b, &ep, o, &learning, None, PgArgs::default()).unwrap();
        let bits = |u: &crabpath::Updates| {
            u.0.iter()
                .map(|(k, v)| (*k, v.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&ua), bits(&ub), "query {i}");
        learned += ua.len();
    }
    assert!(learned > 1000, "{learned}");
    let wa: Vec<u64> = a.edges().map(|(_, _, e)| e.weight.to_bits()).collect();
    let wb: Vec<u64> = b.edges().map(|(_, _, e)| e.weight.to_bits()).collect();
    assert_eq!(wa, wb);
}

/// Before clipping the edge deltas and the nominal STOP delta of each step sum to zero
/// (every kind); with `edge`/`edge+sim` the chosen edge gains and every other loses
/// after a positive outcome; a small update raises log π(chosen) after a positive
/// outcome and lowers it after a negative one.
#[test]
fn conservation_sign_and_ascent() {
    let (base, v) = world();
    let wide = LearningConfig {
        weight_bounds: (-100.0, 100.0),
        discount: 1.0,
        ..Profile::Corrected.learning()
    };
    let q = query(5);
    let sources: Vec<NodeId> = base.node_ids().step_by(23).collect();
    for kind in RouterKind::ALL {
        let r = router(kind, &v, &q);
        for &s in &sources {
            let c = base.outgoing(s).nth(2).unwrap().0;
            let ep = Episode::from_path(&[s, c]);
            for o in [1.0, -1.0] {
                let mut g = base.clone();
                let u = apply_outcome_router_pg(&mut g, &ep, o, &wide, &r, None).unwrap();
                assert!(u.sum().abs() < 1e-12, "{kind}: Σ = {}", u.sum());
                if kind != RouterKind::Adaptive && o > 0.0 {
                    for (&(src, a), &d) in &u.0 {
                        assert_eq!(src, s);
                        match a {
                            Action::Node(t) if t == c => assert!(d > 0.0),
                            _ => assert!(d < 0.0),
                        }
                    }
                }
                let small = LearningConfig {
                    learning_rate: 1e-4,
                    ..wide.clone()
                };
                let mut g = base.clone();
                let before = route_log_prob(&g, &r, s, Action::Node(c), 1.0).unwrap();
                apply_outcome_router_pg(&mut g, &ep, o, &small, &r, None).unwrap();
                let after = route_log_prob(&g, &r, s, Action::Node(c), 1.0).unwrap();
                assert!(
                    (after - before) * o > 0.0,
                    "{kind} o={o}: {before} -> {after}"
                );
            }
        }
    }
}

/// The same queries give the same traversals and updates, bit for bit, run after run;
/// the query-aware routers do change what is followed.
#[test]
fn routed_traversal_and_learning_are_deterministic() {
    let (base, v) = world();
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 4,
        tiers: crabpath::TierThresholds {
            habitual: (0.0, 0.9),
            ..Default::default()
        },
        ..Profile::Corrected.traversal()
    };
    let learning = Profile::Corrected.learning();
    let run = |kind: RouterKind| {
        let mut g = base.clone();
        let mut r = router(kind, &v, &query(0));
        let mut t = Traverser::new();
        let mut trace = Vec::new();
        let ids: Vec<NodeId> = g.node_ids().collect();
        for i in 0..100u64 {
            r.set_query(&query(100 + i)).unwrap();
            let seeds = [(ids[(i as usize * 13) % ids.len()], 1.0)];
            let res = t.traverse_routed(&g, &seeds, &cfg, &mut r, "").unwrap();
            let ep = Episode::from_result(&res);
            let u = apply_outcome_router_pg(&mut g, &ep, 1.0, &learning, &r, None).unwrap();
            trace.push((res.fired.clone(), u.sum().to_bits()));
        }
        let w: Vec<u64> = g.edges().map(|(_, _, e)| e.weight.to_bits()).collect();
        (trace, w)
    };
    let mut fired = Vec::new();
    for kind in RouterKind::ALL {
        let first = run(kind);
        assert_eq!(first, run(kind), "{kind}");
        fired.push(first.0.into_iter().map(|x| x.0).collect::<Vec<_>>());
    }
    assert_ne!(fired[0], fired[1], "edge+sim follows other edges than edge");
    assert_ne!(
        fired[1], fired[2],
        "adaptive differs from edge+sim once weights learn"
    );
}

/// A router sees only habitual offers (the reflex edge s→r bypasses it) and `top_k`
/// limits what each source keeps; with α large, edge+sim keeps the target most similar
/// to the query; adaptive does so where the weights are uniform and follows the weights
/// where one edge stands out.
#[test]
fn routers_follow_the_query_where_the_weights_do_not_decide() {
    let star = |wa: f64, wb: f64, wc: f64, wr: f64| {
        let mut g = Graph::new();
        for n in ["s", "a", "b", "c", "r"] {
            g.add_node(crabpath::Node::new(n, n));
        }
        for (t, w) in [("a", wa), ("b", wb), ("c", wc), ("r", wr)] {
            g.add_edge_by_id("s", t, Edge::new(w)).unwrap();
        }
        g
    };
    let mut rows = vec![vec![0.0; 2]; 5];
    rows[1] = vec![1.0, 0.0];
    rows[2] = vec![0.6, 0.8];
    rows[3] = vec![0.0, 1.0];
    rows[4] = vec![1.0, 0.0];
    let v = UnitVectors::from_rows(&rows).unwrap();
    let cfg = TraversalConfig {
        max_hops: 1,
        ..Default::default()
    };
    let fired = |g: &Graph, kind: RouterKind, q: &[f64]| {
        let rc = RouterConfig {
            kind,
            alpha: 2.0,
            top_k: 1,
            ..RouterConfig::default()
        };
        let mut r = QueryRouter::new(rc, Some(&v)).unwrap();
        r.set_query(q).unwrap();
        let s = g.lookup("s").unwrap();
        let res = Traverser::new()
            .traverse_routed(g, &[(s, 1.0)], &cfg, &mut r, "")
            .unwrap();
        res.fired
            .iter()
            .map(|&n| g.name(n).to_string())
            .collect::<Vec<_>>()
    };
    let g = star(0.5, 0.4, 0.3, 0.7);
    assert_eq!(fired(&g, RouterKind::Edge, &[0.0, 1.0]), ["s", "r", "a"]);
    assert_eq!(fired(&g, RouterKind::EdgeSim, &[0.0, 1.0]), ["s", "r", "c"]);
    assert_eq!(fired(&g, RouterKind::EdgeSim, &[0.6, 0.8]), ["s", "r", "b"]);
    // uniform weights (β = 1): adaptive is edge+sim
    let g = star(0.3, 0.3, 0.3, 0.3);
    assert_eq!(fired(&g, RouterKind::Edge, &[0.0, 1.0]), ["s", "a"]);
    assert_eq!(fired(&g, RouterKind::Adaptive, &[0.0, 1.0]), ["s", "c"]);
    // one edge far ahead (β ≈ 0.15 at τ_c = 0.1; s→r dormant): adaptive keeps the
    // weights' choice where edge+sim follows the query
    let g = star(0.59, 0.2, 0.2, 0.0);
    assert_eq!(fired(&g, RouterKind::EdgeSim, &[0.0, 1.0]), ["s", "c"]);
    assert_eq!(fired(&g, RouterKind::Adaptive, &[0.0, 1.0]), ["s", "a"]);
}

/// An `edge` router that keeps every offer traverses exactly as no router does (the
/// query-aware routers keep the router-less selection order), in both profiles.
#[test]
fn edge_router_keeping_everything_is_the_plain_traversal() {
    let (g, v) = world();
    let ids: Vec<NodeId> = g.node_ids().collect();
    for profile in Profile::ALL {
        let cfg = TraversalConfig {
            beam_width: 3,
            max_hops: 5,
            tiers: crabpath::TierThresholds {
                habitual: (0.0, 0.8),
                ..Default::default()
            },
            ..profile.traversal()
        };
        let mut edge = QueryRouter::edge(usize::MAX).unwrap();
        let rc = RouterConfig {
            kind: RouterKind::EdgeSim,
            top_k: 1,
            ..RouterConfig::default()
        };
        let mut sim = QueryRouter::new(rc, Some(&v)).unwrap();
        sim.set_query(&query(1)).unwrap();
        let mut t = Traverser::new();
        let mut differs = 0;
        for i in 0..300 {
            let seeds = [
                (ids[(i * 11) % ids.len()], 1.0),
                (ids[(i * 5) % ids.len()], 0.7),
            ];
            let plain = t.traverse(&g, &seeds, &cfg).unwrap();
            let routed = t.traverse_routed(&g, &seeds, &cfg, &mut edge, "").unwrap();
            assert_eq!(plain, routed, "{profile} query {i}");
            let other = t.traverse_routed(&g, &seeds, &cfg, &mut sim, "").unwrap();
            differs += usize::from(other.fired != plain.fired);
        }
        assert!(
            differs > 15,
            "top-1 edge+sim routing changes traversals: {differs} of 300"
        );
    }
}
