//! Property tests (proptest) over random graphs: bounds, conservation, budgets,
//! determinism.

use crabpath::learn::{apply_outcome, apply_outcome_pg, Action, Episode, Hebbian, LearnOn, PgArgs};
use crabpath::synth::{random_graph, Degree};
use crabpath::{LearningConfig, NodeId, TraversalConfig, Traverser};
use proptest::prelude::*;

fn graph_and_seeds(n: usize, seed: u64, k: usize) -> (crabpath::Graph, Vec<(NodeId, f64)>) {
    let g = random_graph(n, Degree::Uniform(6), seed);
    let ids: Vec<NodeId> = g.node_ids().collect();
    let seeds = (0..k)
        .map(|i| {
            (
                ids[(seed as usize + 7 * i) % ids.len()],
                1.0 - 0.1 * i as f64,
            )
        })
        .collect();
    (g, seeds)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Learned weights never leave `weight_bounds` (the clip of reference
    /// `crabpath/learn.py::_clip_weight`), whatever the sequence of outcomes and rules.
    #[test]
    fn weights_stay_in_bounds(seed in 0u64..1000, outcomes in prop::collection::vec(prop::bool::ANY, 1..25), pg in prop::bool::ANY) {
        let (mut g, seeds) = graph_and_seeds(40, seed, 2);
        let cfg = LearningConfig { learning_rate: 0.7, ..LearningConfig::default() };
        let tcfg = TraversalConfig { max_hops: 4, beam_width: 3, ..TraversalConfig::default() };
        let mut t = Traverser::new();
        for good in outcomes {
            let r = t.traverse(&g, &seeds, &tcfg).unwrap();
            let z = if good { 1.0 } else { -1.0 };
            let ep = Episode::from_result(&r);
            if pg {
                apply_outcome_pg(&mut g, &ep, z, &cfg, None, PgArgs::default()).unwrap();
            } else {
                apply_outcome(&mut g, &ep, z, &cfg, None).unwrap();
            }
        }
        for (_, _, e) in g.edges() {
            prop_assert!((-1.0..=1.0).contains(&e.weight), "weight {}", e.weight);
        }
    }

    /// Without clipping (bounds far away) and without Hebbian, the PG deltas reported
    /// for each visited node, STOP included, sum to zero (the conservation of
    /// reference `crabpath/learn.py::apply_outcome_pg` before clipping).
    /// Learned over traversed steps: a consecutive `fired` pair that is not an edge
    /// (two seeds) gives every action a negative share in the reference rule.
    #[test]
    fn unclipped_pg_deltas_sum_to_zero(seed in 0u64..1000, z in prop::sample::select(vec![1.0, -1.0])) {
        let (mut g, seeds) = graph_and_seeds(30, seed, 2);
        let r = Traverser::new().traverse(&g, &seeds, &TraversalConfig::default()).unwrap();
        let cfg = LearningConfig {
            weight_bounds: (-1e9, 1e9),
            hebbian_after_pg: Hebbian::Off,
            learn_on: LearnOn::TraversedSteps,
            ..LearningConfig::default()
        };
        let u = apply_outcome_pg(&mut g, &Episode::from_result(&r), z, &cfg, None, PgArgs::default()).unwrap();
        let mut per_source: std::collections::HashMap<NodeId, f64> = Default::default();
        for (&(s, _a), &d) in &u.0 {
            *per_source.entry(s).or_default() += d;
        }
        for (s, total) in per_source {
            prop_assert!(total.abs() < 1e-12, "node {:?}: {}", s, total);
            prop_assert!(u.get(s, Action::Stop).is_some());
        }
    }

    /// Traversal respects max_hops, the beam and both budgets (reference
    /// `crabpath/traverse.py::traverse`).
    #[test]
    fn traversal_respects_limits(seed in 0u64..1000, hops in 1usize..6, beam in 1usize..6,
                                 max_nodes in prop::option::of(1usize..12),
                                 max_chars in prop::option::of(1usize..80)) {
        let (g, seeds) = graph_and_seeds(60, seed, 3);
        let cfg = TraversalConfig {
            max_hops: hops, beam_width: beam, max_fired_nodes: max_nodes,
            max_context_chars: max_chars, ..TraversalConfig::default()
        };
        let r = Traverser::new().traverse(&g, &seeds, &cfg).unwrap();
        prop_assert!(r.steps.len() <= hops * beam);
        prop_assert!(r.fired.len() <= beam + hops * beam);
        if let Some(m) = max_nodes {
            prop_assert!(r.fired.len() <= m);
        }
        if let Some(m) = max_chars {
            // the budget stops the traversal at the first node that reaches it
            let all = r.context_chars(&g) - 2 * r.fired.len().saturating_sub(1);
            let last = r.fired.last().map_or(0, |&n| g.node(n).unwrap().content_chars());
            prop_assert!(all < m + last || r.fired.len() <= beam);
            prop_assert!(r.context(&g, Some(m)).chars().count() <= m);
        }
    }

    /// Same inputs give identical results, with a fresh or a reused traverser.
    #[test]
    fn deterministic(seed in 0u64..1000) {
        let (g, seeds) = graph_and_seeds(50, seed, 2);
        let cfg = TraversalConfig { max_hops: 5, beam_width: 4, ..TraversalConfig::default() };
        let mut reused = Traverser::new();
        let warm = reused.traverse(&g, &seeds[..1], &cfg).unwrap();
        let a = reused.traverse(&g, &seeds, &cfg).unwrap();
        let b = Traverser::new().traverse(&g, &seeds, &cfg).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(warm, Traverser::new().traverse(&g, &seeds[..1], &cfg).unwrap());
    }
}
