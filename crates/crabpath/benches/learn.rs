//! Outcome learning on episodes from real traversals (issue "Performance at scale"):
//! the heuristic rule (`apply_outcome`, with Hebbian co-firing) and the policy
//! gradient with STOP (`apply_outcome_pg`), on random graphs of 10^3 … 10^6 nodes
//! (uniform out-degree 8). One iteration = one outcome applied to one episode; the
//! outcome alternates +1 / −1 so that weights keep moving instead of saturating.
//!
//! Run: `cargo bench -p crabpath --bench learn` (add `-- --quick` for a fast pass).
//! `CRABPATH_BENCH_MAX_NODES` caps the sizes.

mod common;

use crabpath::synth::{random_graph, Degree, SplitMix64};
use crabpath::{
    apply_outcome, apply_outcome_pg, Episode, Graph, LearningConfig, NodeId, PgArgs,
    TraversalConfig, Traverser,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// 1024 episodes from traversals (beam 4, 3 hops) of random single-node seeds; only
/// episodes that fired at least two nodes are kept (others learn nothing).
fn episodes(g: &Graph) -> Vec<Episode> {
    let cfg = TraversalConfig {
        beam_width: 4,
        max_hops: 3,
        ..TraversalConfig::default()
    };
    let ids: Vec<NodeId> = g.node_ids().collect();
    let mut rng = SplitMix64::new(11);
    let mut t = Traverser::new();
    let mut eps = Vec::new();
    while eps.len() < 1024 {
        let seed = [(ids[rng.below(ids.len())], 1.0)];
        let r = t.traverse(g, &seed, &cfg).expect("finite seeds");
        if r.fired.len() >= 2 {
            eps.push(Episode::from_result(&r));
        }
    }
    eps
}

fn bench_learn(c: &mut Criterion) {
    let mut group = c.benchmark_group("learn");
    let lc = LearningConfig::default();
    for n in common::sizes() {
        let base = random_graph(n, Degree::Uniform(8), 42);
        let eps = episodes(&base);
        let mean_fired = eps.iter().map(|e| e.fired.len()).sum::<usize>() as f64 / eps.len() as f64;
        eprintln!(
            "learn/{n}: {} episodes, mean fired {mean_fired:.2}",
            eps.len()
        );
        group.throughput(Throughput::Elements(1));

        let mut g = base.clone();
        let mut i = 0usize;
        group.bench_with_input(BenchmarkId::new("heuristic", n), &n, |b, _| {
            b.iter(|| {
                let o = if i & 1 == 0 { 1.0 } else { -1.0 };
                let ep = &eps[i & 1023];
                i = i.wrapping_add(1);
                apply_outcome(&mut g, ep, o, &lc, None)
                    .expect("valid episode")
                    .len()
            })
        });
        drop(g);

        let mut g = base;
        let mut i = 0usize;
        group.bench_with_input(BenchmarkId::new("pg", n), &n, |b, _| {
            b.iter(|| {
                let o = if i & 1 == 0 { 1.0 } else { -1.0 };
                let ep = &eps[i & 1023];
                i = i.wrapping_add(1);
                apply_outcome_pg(&mut g, ep, o, &lc, None, PgArgs::default())
                    .expect("valid episode")
                    .len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_learn);
criterion_main!(benches);
