//! Per-query traversal is allocation-free once a [`Traverser`]'s scratch buffers and
//! the reused [`TraversalResult`] have grown (issue "Performance at scale"). Checked
//! with a counting global allocator
//! (`counting_alloc`, this binary's); the count is per thread, so tests running in
//! parallel do not disturb each other.

use crate::counting_alloc::allocs;
use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::{
    NodeId, QueryRouter, RouterConfig, RouterKind, TraversalConfig, TraversalResult, Traverser,
    UnitVectors,
};

/// Runs `queries` twice over the same traverser and result: the first pass grows the
/// buffers, the second must not allocate. Returns the allocations of each pass.
fn two_passes(degree: Degree, cfg: &TraversalConfig, seeds_per_query: usize) -> (u64, u64) {
    two_passes_routed(degree, cfg, seeds_per_query, None)
}

/// [`two_passes`] with a router of the given kind (top 2 per source; 32-dimensional
/// random node vectors and a new query vector per query, set in place).
fn two_passes_routed(
    degree: Degree,
    cfg: &TraversalConfig,
    seeds_per_query: usize,
    router: Option<RouterKind>,
) -> (u64, u64) {
    const DIM: usize = 32;
    let g = random_graph(5_000, degree, 42);
    let mut vr = SplitMix64::new(5);
    let rows: Vec<Vec<f64>> = (0..g.symbol_count())
        .map(|_| (0..DIM).map(|_| vr.next_f64() - 0.5).collect())
        .collect();
    let vectors = UnitVectors::from_rows(&rows).expect("finite rows");
    let qvecs: Vec<Vec<f64>> = (0..64)
        .map(|_| (0..DIM).map(|_| vr.next_f64() - 0.5).collect())
        .collect();
    let mut router = router.map(|kind| {
        let rc = RouterConfig {
            kind,
            top_k: 2,
            ..RouterConfig::default()
        };
        QueryRouter::new(rc, Some(&vectors)).expect("valid router")
    });
    let ids: Vec<NodeId> = g.node_ids().collect();
    let mut rng = SplitMix64::new(9);
    let queries: Vec<Vec<(NodeId, f64)>> = (0..1_000)
        .map(|_| {
            (0..seeds_per_query)
                .map(|_| (ids[rng.below(ids.len())], 0.5 + rng.next_f64()))
                .collect()
        })
        .collect();
    let mut t = Traverser::new();
    let mut out = TraversalResult::default();
    let mut fired = 0usize;
    let mut pass = || {
        let before = allocs();
        for (i, q) in queries.iter().enumerate() {
            let r = router.as_mut().map(|r| {
                r.set_query(&qvecs[i % qvecs.len()])
                    .expect("query of the dimension");
                r as &mut dyn crabpath::traverse::Router
            });
            t.run(&g, q, cfg, r, "", &mut out).expect("finite seeds");
            fired += out.fired.len();
        }
        allocs() - before
    };
    let first = pass();
    let second = pass();
    assert!(fired > 2 * queries.len(), "the traversals do fire nodes");
    (first, second)
}

#[test]
fn traversal_allocates_nothing_once_warm() {
    let bench = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        ..TraversalConfig::default()
    };
    let deep = TraversalConfig {
        visit_penalty: 0.05,
        ..TraversalConfig::default()
    };
    let corrected = TraversalConfig {
        dedup_before_beam: true,
        keep_max_fired_score: true,
        max_context_chars: Some(400),
        ..TraversalConfig::default()
    };
    for (degree, cfg, seeds) in [
        (Degree::Uniform(8), &bench, 1),
        (Degree::PowerLaw(8), &bench, 1),
        (Degree::Uniform(8), &deep, 3),
        (Degree::PowerLaw(8), &corrected, 2),
    ] {
        let (first, second) = two_passes(degree, cfg, seeds);
        assert!(first > 0, "the counter counts ({degree:?})");
        assert_eq!(
            second, 0,
            "allocations in 1000 warm queries ({degree:?}, {cfg:?})"
        );
    }
}

/// The routed selection and the routers of `crabpath::router` allocate nothing once warm
/// either (habitual range widened so that most candidates go through the router).
#[test]
fn routed_traversal_allocates_nothing_once_warm() {
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        tiers: crabpath::TierThresholds {
            habitual: (0.0, 0.9),
            ..Default::default()
        },
        ..crabpath::Profile::Corrected.traversal()
    };
    for kind in RouterKind::ALL {
        for degree in [Degree::Uniform(8), Degree::PowerLaw(8)] {
            let (first, second) = two_passes_routed(degree, &cfg, 2, Some(kind));
            assert!(first > 0, "the counter counts ({kind}, {degree:?})");
            assert_eq!(
                second, 0,
                "allocations in 1000 warm routed queries ({kind}, {degree:?})"
            );
        }
    }
}
