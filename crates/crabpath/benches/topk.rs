//! Exact top-k cosine search (`VectorIndex::search`, top 10) over 10^3 … 10^5 stored
//! vectors of dimension 1024 (hash-v1) and 384 (all-MiniLM-L6-v2), and `search_batch`
//! of 16 queries (issue "Performance at scale"). Vectors are random unit vectors
//! (components uniform in [−1, 1), normalised); the cost of an exact search does not
//! depend on the values. Throughput is reported per query.
//!
//! Run: `cargo bench -p crabpath --bench topk` (add `-- --quick` for a fast pass).
//! `CRABPATH_BENCH_MAX_VECTORS` caps the index sizes (10^5 × 1024 is 800 MB).

use crabpath::synth::SplitMix64;
use crabpath::VectorIndex;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn unit_vector(rng: &mut SplitMix64, dim: usize) -> Vec<f64> {
    let mut v: Vec<f64> = (0..dim).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    for x in &mut v {
        *x /= norm;
    }
    v
}

fn bench_topk(c: &mut Criterion) {
    let mut group = c.benchmark_group("topk");
    let max = std::env::var("CRABPATH_BENCH_MAX_VECTORS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    for dim in [1024usize, 384] {
        for n in [1_000usize, 10_000, 100_000]
            .into_iter()
            .filter(|&n| n <= max)
        {
            group.sample_size(if n >= 100_000 { 10 } else { 30 });
            let mut rng = SplitMix64::new(dim as u64 * 31 + n as u64);
            let mut index = VectorIndex::new();
            for i in 0..n {
                index
                    .upsert(&format!("doc{i}"), unit_vector(&mut rng, dim))
                    .expect("finite vector");
            }
            let queries: Vec<Vec<f64>> = (0..16).map(|_| unit_vector(&mut rng, dim)).collect();
            let id = format!("d{dim}");
            group.throughput(Throughput::Elements(1));
            let mut i = 0usize;
            group.bench_with_input(BenchmarkId::new(format!("search/{id}"), n), &n, |b, _| {
                b.iter(|| {
                    let r = index.search(&queries[i & 15], 10);
                    i = i.wrapping_add(1);
                    r.len()
                })
            });
            group.throughput(Throughput::Elements(queries.len() as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("search_batch16/{id}"), n),
                &n,
                |b, _| b.iter(|| index.search_batch(&queries, 10).len()),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench_topk);
criterion_main!(benches);
