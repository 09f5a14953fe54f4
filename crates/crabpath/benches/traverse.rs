//! Per-traversal time on random graphs of 10^3 … 10^6 nodes (beam 4, 3 hops), and
//! 10^7 on request: the cost must not grow with graph size (issue "Performance at
//! scale"). Two out-degree distributions of mean 8: uniform (every node exactly 8)
//! and power-law (Pareto, capped at 1000; a few hubs with hundreds of edges).
//!
//! Run: `cargo bench -p crabpath --bench traverse` (add `-- --quick` for a fast pass).
//! `CRABPATH_BENCH_MAX_NODES` sets the largest size: `100000` on a small machine (a
//! 10^6 graph holds ~1 GB), `10000000` to add 10^7 nodes (~10 GB per graph, one
//! graph at a time; skipped with a message when `MemAvailable` is below 13 GiB at
//! start).

mod common;

use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::{NodeId, TraversalConfig, TraversalResult, Traverser};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Bytes of memory a 10^7-node graph needs (measured: ~123 heap bytes per edge, peak
/// RSS 12.3 GB for the 10^7 scaling study; BENCHMARKS.md "Memory per edge"), with
/// headroom.
const BYTES_FOR_1E7: u64 = 13 << 30;

/// `MemAvailable` from /proc/meminfo, in bytes.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Graph sizes up to `CRABPATH_BENCH_MAX_NODES` (default 10^6).
fn sizes() -> Vec<usize> {
    let max = common::max_nodes();
    let mut out: Vec<usize> = [1_000usize, 10_000, 100_000, 1_000_000, 10_000_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect();
    if out.contains(&10_000_000) && mem_available().is_none_or(|m| m < BYTES_FOR_1E7) {
        eprintln!(
            "traverse: skipping 10^7 nodes: MemAvailable {} GiB < 13 GiB",
            mem_available().map_or("unknown".into(), |m| (m >> 30).to_string())
        );
        out.retain(|&n| n < 10_000_000);
    }
    out
}

fn bench_traverse(c: &mut Criterion) {
    let mut group = c.benchmark_group("traverse");
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        ..TraversalConfig::default()
    };
    // decided once, before any graph exists: memory freed by one graph is reused by
    // the next within this process, but is not handed back to the system
    let sizes = sizes();
    for (label, degree) in [
        ("uniform8", Degree::Uniform(8)),
        ("powerlaw8", Degree::PowerLaw(8)),
    ] {
        for &n in &sizes {
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
