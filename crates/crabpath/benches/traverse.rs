//! Per-traversal time on random graphs of 10^3 … 10^6 nodes (average out-degree 8,
//! beam 4, 3 hops): the cost must not grow with graph size (issue: core crate).
//! Run: `cargo bench -p crabpath --bench traverse` (add `-- --quick` for a fast pass).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::{NodeId, TraversalConfig, Traverser};

fn bench_traverse(c: &mut Criterion) {
    let mut group = c.benchmark_group("traverse");
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        ..TraversalConfig::default()
    };
    for &n in &[1_000usize, 10_000, 100_000, 1_000_000] {
        let g = random_graph(n, Degree::Uniform(8), 42);
        let ids: Vec<NodeId> = g.node_ids().collect();
        let mut rng = SplitMix64::new(7);
        let seeds: Vec<NodeId> = (0..4096).map(|_| ids[rng.below(ids.len())]).collect();
        let mut t = Traverser::new();
        let mut out = Default::default();
        let mut i = 0usize;
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::new("uniform8", n), &n, |b, _| {
            b.iter(|| {
                let seed = [(seeds[i & 4095], 1.0)];
                i = i.wrapping_add(1);
                t.run(&g, &seed, &cfg, None, "", &mut out).expect("finite seeds");
                out.fired.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_traverse);
criterion_main!(benches);
