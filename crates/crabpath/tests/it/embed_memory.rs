//! hash-v1 on a long text (issue 33, item 11: `init` of one 4.4 MB chunk peaked at
//! 523 MB, the embedder's counting table sized for every n-gram): the heap it takes
//! stays a few times the text plus a bounded memo, and adding each occurrence's sign
//! gives the bits of the reference's count-then-add order.
//!
//! The heap is measured with a counting global allocator
//! (`counting_alloc`, this binary's) (live bytes and their peak,
//! per thread, so tests running in parallel do not disturb each other): no timing, no
//! RSS, nothing that depends on the machine.

use std::collections::HashMap;

use crate::counting_alloc::peak_above_start;
use crabpath::embed::python_lower;
use crabpath::synth::SplitMix64;
use crabpath::{Embedder, HashEmbedder};

/// `len` characters drawn from ASCII words, digits, punctuation and non-ASCII letters
/// (so that tokens, lowercasing and n-grams all work; 80,000 of them hold some 190,000
/// distinct n-grams, more than the embedder's memo of 2^17 features).
fn text(len: usize, seed: u64) -> String {
    const ALPHABET: &[char] = &[
        'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'k', 'l', 'm', 'n', 'o', 'p', 'r', 's', 't',
        'u', 'w', 'A', 'B', 'Q', 'Z', '0', '7', '_', ' ', ' ', ' ', '\n', '.', '-', 'é', 'Σ', 'İ',
        'ß', '日', '😀',
    ];
    let mut r = SplitMix64::new(seed);
    (0..len)
        .map(|_| ALPHABET[(r.next_f64() * ALPHABET.len() as f64) as usize % ALPHABET.len()])
        .collect()
}

#[test]
fn a_long_text_takes_a_few_times_its_size() {
    let e = HashEmbedder::new();
    let t = text(1_000_000, 1);
    let (v, peak) = peak_above_start(|| e.embed(&t).unwrap());
    assert_eq!(v.len(), 1024);
    // the lowered text and the tokens (each at most about the text, and up to twice
    // that while a growing buffer is copied), the memo table (2^18 slots of 32 bytes,
    // 8 MiB, plus the half-size table it grew from); the counting table sized for
    // every n-gram took over 100 MB here (3 million n-grams × 24 bytes, and its map)
    let bound = 6 * t.len() + 16 * 1024 * 1024;
    assert!(
        peak < bound,
        "embedding {} bytes took {peak} bytes of heap (bound {bound})",
        t.len()
    );
}

#[test]
fn adding_each_occurrence_gives_the_reference_bits() {
    // the reference: count the distinct features (tokens, then the n-grams of the
    // lowered text) in first-occurrence order, then add `sign * count` per feature
    let e = HashEmbedder::new();
    let (lo, hi) = e.ngram_range();
    for (len, seed) in [(0, 0), (7, 1), (1_000, 2), (80_000, 3)] {
        let t = text(len, seed);
        let mut order: Vec<String> = Vec::new();
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut bump = |f: String| {
            let c = counts.entry(f.clone()).or_insert(0);
            if *c == 0 {
                order.push(f);
            }
            *c += 1;
        };
        for tok in HashEmbedder::tokenize(&t) {
            bump(tok);
        }
        let lower: Vec<char> = python_lower(&t).chars().collect();
        for n in lo..=hi {
            for w in lower.windows(n) {
                bump(w.iter().collect());
            }
        }
        let mut want = vec![0.0f64; e.dim()];
        for f in &order {
            let (bucket, sign) = e.feature_slot(f);
            want[bucket] += sign * f64::from(counts[f]);
        }
        let got = e.raw_vector(&t);
        let same = got
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "text of {len} characters: the vectors differ");
    }
}
