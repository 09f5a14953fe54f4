//! One `apply_decay` pass over every edge (issue "Performance at scale"), on random
//! graphs of 10^3 … 10^6 nodes (uniform out-degree 8, so 8·n edges). Throughput is
//! reported per edge. The same graph is decayed again at every iteration (default
//! half-life 80, snap below 0.01): the per-edge work does not depend on the weights,
//! so the later passes, where more weights have reached 0.0, cost the same.
//!
//! Run: `cargo bench -p crabpath --bench decay` (add `-- --quick` for a fast pass).
//! `CRABPATH_BENCH_MAX_NODES` caps the sizes.

mod common;

use crabpath::synth::{random_graph, Degree};
use crabpath::{apply_decay, DecayConfig};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn bench_decay(c: &mut Criterion) {
    let mut group = c.benchmark_group("decay");
    let cfg = DecayConfig::default();
    for n in common::sizes() {
        if n >= 100_000 {
            group.sample_size(10);
        }
        let mut g = random_graph(n, Degree::Uniform(8), 42);
        group.throughput(Throughput::Elements(g.edge_count() as u64));
        group.bench_with_input(BenchmarkId::new("uniform8", n), &n, |b, _| {
            b.iter(|| apply_decay(&mut g, &cfg))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_decay);
criterion_main!(benches);
