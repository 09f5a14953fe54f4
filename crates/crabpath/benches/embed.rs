//! hash-v1 embedding (issue "Performance at scale"): document chunks of ~300
//! characters and short queries (~40 characters), one at a time (`embed`) and in a
//! batch of 64 (`embed_batch`, which reuses its scratch buffers). Texts are generated
//! from a fixed vocabulary with mixed case, digits and punctuation, so that the
//! tokenizer, the lowercasing and the character n-grams all do their usual work.
//!
//! Run: `cargo bench -p crabpath --bench embed` (add `-- --quick` for a fast pass).

use crabpath::synth::SplitMix64;
use crabpath::{Embedder, HashEmbedder};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const WORDS: &[&str] = &[
    "the",
    "graph",
    "learns",
    "which",
    "Edges",
    "to",
    "follow",
    "retrieval",
    "routing",
    "deployPipeline",
    "config_file",
    "2026",
    "of",
    "a",
    "query",
    "memory",
    "chunk",
    "reflex",
    "habitual",
    "dormant",
    "inhibitory",
    "weight",
    "decay",
    "node",
    "was",
    "Paris",
    "capital",
    "France",
    "river",
    "Seine",
    "museum",
    "Louvre",
    "in",
    "and",
    "it",
    "is",
    "HotPotQA",
    "v11.2",
    "answer:",
    "(see",
    "below)",
    "--",
    "x86_64",
];

/// A text of about `chars` characters: words separated by spaces and, now and then,
/// a comma or a full stop.
fn text(rng: &mut SplitMix64, chars: usize) -> String {
    let mut s = String::new();
    while s.len() < chars {
        if !s.is_empty() {
            s.push_str(match rng.below(10) {
                0 => ", ",
                1 => ". ",
                _ => " ",
            });
        }
        s.push_str(WORDS[rng.below(WORDS.len())]);
    }
    s
}

fn bench_embed(c: &mut Criterion) {
    let mut group = c.benchmark_group("embed");
    let e = HashEmbedder::new();
    let mut rng = SplitMix64::new(3);
    for (label, chars) in [("chunk300", 300usize), ("query40", 40)] {
        let texts: Vec<String> = (0..64).map(|_| text(&mut rng, chars)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let total: usize = texts.iter().map(|t| t.chars().count()).sum();
        eprintln!("embed/{label}: mean {} chars", total / texts.len());

        group.throughput(Throughput::Elements(1));
        let mut i = 0usize;
        group.bench_with_input(BenchmarkId::new("one", label), &label, |b, _| {
            b.iter(|| {
                let v = e.embed(refs[i & 63]).expect("hash-v1 never fails");
                i = i.wrapping_add(1);
                v.len()
            })
        });
        group.throughput(Throughput::Elements(refs.len() as u64));
        group.bench_with_input(BenchmarkId::new("batch64", label), &label, |b, _| {
            b.iter(|| e.embed_batch(&refs).expect("hash-v1 never fails").len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_embed);
criterion_main!(benches);
