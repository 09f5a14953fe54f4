//! Exact cosine top-10 of 1,100 queries over 11,000 stored 384-dim vectors (the size of
//! a HotPotQA-1100 run with MiniLM): the bit-exact `f64` path
//! (`VectorIndex::search_batch`, one thread) against the `f32` matrix-product path
//! (`search_f32::search_batch`) on one thread and on the whole rayon pool. Random
//! vectors; normalisation is outside the timed loop for `f32` (it happens once per
//! corpus) and inside the `f64` path's arithmetic as the reference does it.
//!
//! Run: `cargo bench -p crabpath --bench search_f32`.

use crabpath::index::VectorIndex;
use crabpath::search_f32::search_batch;
use crabpath::synth::SplitMix64;
use crabpath::UnitVectors;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const DOCS: usize = 11_000;
const QUERIES: usize = 1_100;
const DIM: usize = 384;
const K: usize = 10;

fn bench_search(c: &mut Criterion) {
    let mut rng = SplitMix64::new(9);
    let mut rows = |n: usize| -> Vec<Vec<f64>> {
        (0..n)
            .map(|_| (0..DIM).map(|_| rng.next_f64() - 0.5).collect())
            .collect()
    };
    let docs = rows(DOCS);
    let queries = rows(QUERIES);
    let mut ix = VectorIndex::new();
    for (i, d) in docs.iter().enumerate() {
        ix.upsert(&i.to_string(), d).expect("finite");
    }
    let corpus = UnitVectors::from_rows(&docs).expect("finite");
    let qv = UnitVectors::from_rows(&queries).expect("finite");
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(QUERIES as u64));
    group.bench_function(BenchmarkId::new("f64_exact", "1_thread"), |b| {
        b.iter(|| ix.search_batch(&queries, K).len())
    });
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    group.bench_function(BenchmarkId::new("f32_tiled", "1_thread"), |b| {
        b.iter(|| one.install(|| search_batch(&corpus, &qv, K).expect("same dim").len()))
    });
    let threads = rayon::current_num_threads();
    group.bench_function(
        BenchmarkId::new("f32_tiled", format!("{threads}_threads")),
        |b| b.iter(|| search_batch(&corpus, &qv, K).expect("same dim").len()),
    );
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
