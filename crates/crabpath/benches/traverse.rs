//! Per-traversal time on random graphs of 10^3 … 10^6 nodes (beam 4, 3 hops): the cost
//! must not grow with graph size (issue "Performance at scale"). Two out-degree
//! distributions of mean 8: uniform (every node exactly 8) and power-law (Pareto,
//! capped at 1000; a few hubs with hundreds of edges).
//!
//! Run: `cargo bench -p crabpath --bench traverse` (add `-- --quick` for a fast pass).
//! `CRABPATH_BENCH_MAX_NODES=100000` caps the sizes (the 10^6 graphs need ~1.2 GB each).
//! 10^7 nodes is not benchmarked: see BENCHMARKS.md ("Why not 10^7").

use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::{NodeId, TraversalConfig, TraversalResult, Traverser};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Graph sizes, capped by `CRABPATH_BENCH_MAX_NODES`.
fn sizes() -> Vec<usize> {
    let max = std::env::var("CRABPATH_BENCH_MAX_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    [1_000usize, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect()
}

fn bench_traverse(c: &mut Criterion) {
    let mut group = c.benchmark_group("traverse");
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        ..TraversalConfig::default()
    };
    for (label, degree) in [
        ("uniform8", Degree::Uniform(8)),
        ("powerlaw8", Degree::PowerLaw(8)),
    ] {
        for n in sizes() {
            let g = random_graph(n, degree, 42);
            let ids: Vec<NodeId> = g.node_ids().collect();
            // 4096 random single-node seeds, cycled: consecutive queries touch
            // unrelated parts of the graph, as independent queries would.
            let mut rng = SplitMix64::new(7);
            let seeds: Vec<NodeId> = (0..4096).map(|_| ids[rng.below(ids.len())]).collect();
            let mut t = Traverser::new();
            let mut out = TraversalResult::default();
            let mut i = 0usize;
            group.throughput(Throughput::Elements(1));
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| {
                b.iter(|| {
                    let seed = [(seeds[i & 4095], 1.0)];
                    i = i.wrapping_add(1);
                    t.run(&g, &seed, &cfg, None, "", &mut out)
                        .expect("finite seeds");
                    out.fired.len()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_traverse);
criterion_main!(benches);
