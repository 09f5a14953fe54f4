//! Routed traversal: the cost of the query-aware routers of `crabpath::router` against
//! the router-less traversal and the weight-only `edge` router, on a random graph of
//! 10^4 nodes (uniform out-degree 8, beam 4, 3 hops, corrected profile) with 384-dim
//! random unit node vectors (MiniLM's width); every router keeps the top 2 habitual
//! offers per source; each iteration sets a new query vector and traverses once. Also
//! the update `apply_outcome_router_pg` per kind on the episodes of those traversals.
//!
//! Run: `cargo bench -p crabpath --bench router` (add `-- --quick` for a fast pass).

use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::traverse::Router;
use crabpath::{
    apply_outcome_router_pg, Episode, Graph, NodeId, Profile, QueryRouter, RouterConfig,
    RouterKind, TraversalConfig, TraversalResult, Traverser, UnitVectors,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const NODES: usize = 10_000;
const DIM: usize = 384;

/// One traversal from `seed` with the router set to `query`.
fn routed(
    t: &mut Traverser,
    g: &Graph,
    cfg: &TraversalConfig,
    r: &mut QueryRouter,
    query: &[f64],
    seed: NodeId,
    out: &mut TraversalResult,
) {
    r.set_query(query).expect("query of the dimension");
    t.run(g, &[(seed, 1.0)], cfg, Some(r as &mut dyn Router), "", out)
        .expect("finite seeds");
}

fn bench_router(c: &mut Criterion) {
    let g = random_graph(NODES, Degree::Uniform(8), 42);
    let mut rng = SplitMix64::new(3);
    let mut row = || -> Vec<f64> { (0..DIM).map(|_| rng.next_f64() - 0.5).collect() };
    let rows: Vec<Vec<f64>> = (0..g.symbol_count()).map(|_| row()).collect();
    let queries: Vec<Vec<f64>> = (0..256).map(|_| row()).collect();
    let vectors = UnitVectors::from_rows(&rows).expect("finite rows");
    let ids: Vec<NodeId> = g.node_ids().collect();
    let mut pick = SplitMix64::new(7);
    let seeds: Vec<NodeId> = (0..4096).map(|_| ids[pick.below(ids.len())]).collect();
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        ..Profile::Corrected.traversal()
    };
    let mut group = c.benchmark_group("router");
    group.throughput(Throughput::Elements(1));
    let mut t = Traverser::new();
    let mut out = TraversalResult::default();
    let mut i = 0usize;
    group.bench_function(BenchmarkId::new("traverse", "none"), |b| {
        b.iter(|| {
            let seed = [(seeds[i & 4095], 1.0)];
            i = i.wrapping_add(1);
            t.run(&g, &seed, &cfg, None, "", &mut out)
                .expect("finite seeds");
            out.fired.len()
        })
    });
    for kind in RouterKind::ALL {
        let rc = RouterConfig {
            kind,
            top_k: 2,
            ..RouterConfig::default()
        };
        let mut r = QueryRouter::new(rc, Some(&vectors)).expect("valid router");
        let mut i = 0usize;
        group.bench_function(BenchmarkId::new("traverse", kind.as_str()), |b| {
            b.iter(|| {
                routed(
                    &mut t,
                    &g,
                    &cfg,
                    &mut r,
                    &queries[i & 255],
                    seeds[i & 4095],
                    &mut out,
                );
                i = i.wrapping_add(1);
                out.fired.len()
            })
        });
        // the update on the episodes this router produces (weights keep moving:
        // outcomes alternate)
        let learning = Profile::Corrected.learning();
        let mut lg = g.clone();
        let episodes: Vec<(usize, Episode)> = (0..1024)
            .map(|k| {
                routed(
                    &mut t,
                    &lg,
                    &cfg,
                    &mut r,
                    &queries[k & 255],
                    seeds[k],
                    &mut out,
                );
                (k & 255, Episode::from_result(&out))
            })
            .collect();
        let mut i = 0usize;
        group.bench_function(BenchmarkId::new("learn", kind.as_str()), |b| {
            b.iter(|| {
                let (q, ep) = &episodes[i & 1023];
                r.set_query(&queries[*q]).expect("query of the dimension");
                let o = if i & 1 == 0 { 1.0 } else { -1.0 };
                i = i.wrapping_add(1);
                apply_outcome_router_pg(&mut lg, ep, o, &learning, &r, None)
                    .expect("valid episode")
                    .len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_router);
criterion_main!(benches);
