//! `measure_health` over whole graphs (issue "Performance at scale"): tier shares,
//! cross-file share and orphan count, on random graphs of 10^3 … 10^6 nodes (uniform
//! and power-law out-degree, mean 8). Every node carries a `file` metadata (one file
//! per 50 nodes) so that the cross-file comparison does real work. Throughput is
//! reported per edge.
//!
//! Run: `cargo bench -p crabpath --bench health` (add `-- --quick` for a fast pass).
//! `CRABPATH_BENCH_MAX_NODES` caps the sizes.

mod common;

use crabpath::synth::{random_graph, Degree};
use crabpath::{measure_health, Graph};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;

/// Gives node `i` the metadata `file = "f{i / 50}.md"`.
fn with_files(mut g: Graph) -> Graph {
    let ids: Vec<_> = g.node_ids().collect();
    for (i, id) in ids.into_iter().enumerate() {
        let node = g.node_mut(id).expect("listed node");
        node.metadata
            .insert("file".into(), Value::String(format!("f{}.md", i / 50)));
    }
    g
}

fn bench_health(c: &mut Criterion) {
    let mut group = c.benchmark_group("health");
    for (label, degree) in [
        ("uniform8", Degree::Uniform(8)),
        ("powerlaw8", Degree::PowerLaw(8)),
    ] {
        for n in common::sizes() {
            group.sample_size(if n >= 100_000 { 10 } else { 50 });
            let g = with_files(random_graph(n, degree, 42));
            group.throughput(Throughput::Elements(g.edge_count() as u64));
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| {
                b.iter(|| measure_health(&g))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_health);
criterion_main!(benches);
