//! First-stage retrieval: exact cosine search over the run's node vectors, and a lexical BM25
//! baseline.
//!
//! [`CosineIndex`] is a positional view of the core's [`crabpath::index::VectorIndex`], the one
//! implementation of the reference's `VectorIndex.search` in this workspace (reference
//! `crabpath/index.py::VectorIndex.search`, commit 134c676: exact cosine, stable sort, ties in
//! insertion order):
//! `cosine(q, d) = dot / (sqrt(|q|²) · sqrt(|d|²))` with `dot` and the squared norms
//! accumulated left to right over the components, `0.0` when either norm is zero; score
//! descending, ties in node order; the first `k`. Node `d` is stored under the id `d` (decimal),
//! so insertion order is node order and a hit's id gives its node back. With `hash-v1` this is
//! bit for bit the reference's ranking (`tests/it/reference_match.rs`). Queries are searched in
//! parallel, one scoring buffer per chunk of queries ([`CosineIndex::search_all`]).
//!
//! [`Bm25`] is a small exact Okapi BM25 (`k1 = 1.2`, `b = 0.75`) over lower-cased maximal runs
//! of alphanumeric characters, `idf = ln(1 + (N − df + 0.5)/(df + 0.5))` (the non-negative
//! Lucene form), distinct query terms summed in first-occurrence order, ties by node order.
//! No crate was used: the few available ones tokenise and weight differently, and this form
//! is what "BM25" means in Lucene/Pyserini, which makes the baseline easy to check.
//!
//! [`reciprocal_rank_fusion`] fuses ranked lists (the hybrid BM25 + dense baseline
//! `rrf_topk`): Cormack, Clarke & Büttcher, "Reciprocal rank fusion outperforms Condorcet and
//! individual rank learning methods", SIGIR 2009, with their constant `k = 60` ([`RRF_K`]).

use std::collections::HashMap;

use crabpath::index::VectorIndex;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

/// Queries per scoring buffer in [`CosineIndex::search_all`].
const SEARCH_CHUNK: usize = 16;

/// Exact cosine search over node vectors in node order (see the module docs).
#[derive(Debug, Clone)]
pub struct CosineIndex {
    index: VectorIndex,
}

impl CosineIndex {
    /// Builds the index from one vector per node, in node order; every vector must have
    /// `dim` finite components.
    pub fn new(vectors: &[Vec<f64>], dim: usize) -> Result<Self> {
        let mut index = VectorIndex::new();
        for (d, v) in vectors.iter().enumerate() {
            if v.len() != dim {
                return Err(Error::Internal(format!(
                    "embedding of node {d} has dimension {}, expected {dim}",
                    v.len()
                )));
            }
            index
                .upsert(&d.to_string(), v)
                .map_err(|e| Error::core(format!("indexing the embedding of node {d}"), e))?;
        }
        Ok(CosineIndex { index })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The reference's `search(q, top_k)`: `(node, score)` for the `k` best, score
    /// descending, ties in node order.
    pub fn search(&self, q: &[f64], k: usize) -> Vec<(usize, f64)> {
        positions(self.index.search(q, k))
    }

    /// [`CosineIndex::search`] for every query, in parallel; results in query order.
    pub fn search_all(&self, queries: &[Vec<f64>], k: usize) -> Vec<Vec<(usize, f64)>> {
        queries
            .par_chunks(SEARCH_CHUNK)
            .flat_map_iter(|c| self.index.search_batch(c, k).into_iter().map(positions))
            .collect()
    }

    /// `search` with node `d`'s own vector as the query (for kNN graphs).
    pub fn search_node(&self, d: usize, k: usize) -> Vec<(usize, f64)> {
        match self.index.get(&d.to_string()) {
            Some(q) => self.search(q, k),
            None => Vec::new(),
        }
    }
}

/// Hits keyed by the decimal ids [`CosineIndex::new`] gave the nodes, as node positions.
fn positions(hits: Vec<(String, f64)>) -> Vec<(usize, f64)> {
    hits.into_iter()
        .map(|(id, s)| {
            let d = id
                .parse()
                .expect("every id in a CosineIndex is a node position");
            (d, s)
        })
        .collect()
}

/// The first `k` of a stable descending sort of `scores` (ties keep index order), as
/// `(index, score)`. NaN scores sort as equal to everything, like Python's `sort` would
/// leave them (they do not occur with finite vectors).
pub fn top_k_stable(scores: &[f64], k: usize) -> Vec<(usize, f64)> {
    if k == 0 {
        return Vec::new();
    }
    // Insertion into a sorted buffer: a later element enters only if strictly greater than
    // the current k-th, and is placed after every element it does not beat.
    let mut best: Vec<(usize, f64)> = Vec::with_capacity(k + 1);
    for (i, &s) in scores.iter().enumerate() {
        if best.len() == k && !beats(s, best[k - 1].1) {
            continue;
        }
        let pos = best.partition_point(|&(_, b)| !beats(s, b));
        best.insert(pos, (i, s));
        if best.len() > k {
            best.pop();
        }
    }
    best
}

/// `s > b` (false when either is NaN).
#[inline]
fn beats(s: f64, b: f64) -> bool {
    s.partial_cmp(&b) == Some(std::cmp::Ordering::Greater)
}

/// BM25 parameter k1.
pub const BM25_K1: f64 = 1.2;
/// BM25 parameter b.
pub const BM25_B: f64 = 0.75;

/// Lower-cased maximal runs of alphanumeric characters (Unicode `is_alphanumeric`).
pub fn bm25_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_bm25_token(text, &mut String::new(), |t| out.push(t.to_string()));
    out
}

/// Calls `f` on each token of [`bm25_tokens`] in order, assembling them in `buf` (no
/// allocation per token). ASCII characters take a fast path with the same result as the
/// general one (an ASCII character lower-cases to one ASCII character, and is alphanumeric
/// exactly when it is ASCII-alphanumeric).
fn for_each_bm25_token(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    buf.clear();
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                buf.push(c.to_ascii_lowercase());
            } else if !buf.is_empty() {
                f(buf);
                buf.clear();
            }
            continue;
        }
        for l in c.to_lowercase() {
            if l.is_alphanumeric() {
                buf.push(l);
            } else if !buf.is_empty() {
                f(buf);
                buf.clear();
            }
        }
    }
    if !buf.is_empty() {
        f(buf);
        buf.clear();
    }
}

/// Documents per parallel task of [`Bm25::new`].
const BM25_CHUNK: usize = 512;

/// The terms of a run of documents: a local vocabulary and, per document, its length in
/// tokens and its `(local term, tf)` pairs.
struct ChunkTerms {
    terms: Vec<Box<str>>,
    docs: Vec<(usize, Vec<(u32, u32)>)>,
}

fn chunk_terms<S: AsRef<str>>(docs: &[S]) -> ChunkTerms {
    let mut vocab: FxHashMap<Box<str>, u32> = FxHashMap::default();
    let mut terms: Vec<Box<str>> = Vec::new();
    let mut buf = String::new();
    let mut ids: Vec<u32> = Vec::new();
    let docs = docs
        .iter()
        .map(|doc| {
            ids.clear();
            for_each_bm25_token(doc.as_ref(), &mut buf, |t| {
                let id = match vocab.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = terms.len() as u32;
                        terms.push(t.into());
                        vocab.insert(t.into(), id);
                        id
                    }
                };
                ids.push(id);
            });
            let len = ids.len();
            ids.sort_unstable();
            let mut tf: Vec<(u32, u32)> = Vec::new();
            for &id in &ids {
                match tf.last_mut() {
                    Some((t, c)) if *t == id => *c += 1,
                    _ => tf.push((id, 1)),
                }
            }
            (len, tf)
        })
        .collect();
    ChunkTerms { terms, docs }
}

/// Okapi BM25 index over node contents (see the module docs).
#[derive(Debug, Clone)]
pub struct Bm25 {
    n: usize,
    /// term → its id (ids in first-occurrence order over the documents).
    vocab: FxHashMap<Box<str>, u32>,
    /// Term `t`'s postings are `postings[offsets[t]..offsets[t + 1]]`.
    offsets: Vec<usize>,
    /// Postings (node, the term's whole contribution to the node's score:
    /// `idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b·|d|/avgdl))`), per term, nodes ascending.
    postings: Vec<(u32, f64)>,
}

impl Bm25 {
    /// Indexes `docs` in order (runs of documents tokenised in parallel, each with its own
    /// vocabulary, merged in order; term ids do not depend on the thread count).
    pub fn new<S: AsRef<str> + Sync>(docs: &[S]) -> Self {
        let n = docs.len();
        let chunks: Vec<ChunkTerms> = docs.par_chunks(BM25_CHUNK).map(chunk_terms).collect();
        // Global term ids, first occurrence first; each chunk's local ids mapped to them.
        let mut vocab: FxHashMap<Box<str>, u32> = FxHashMap::default();
        let mut per_doc: Vec<(usize, Vec<(u32, u32)>)> = Vec::with_capacity(n);
        for chunk in chunks {
            let global: Vec<u32> = chunk
                .terms
                .into_iter()
                .map(|t| {
                    let next = vocab.len() as u32;
                    *vocab.entry(t).or_insert(next)
                })
                .collect();
            per_doc.extend(chunk.docs.into_iter().map(|(len, tf)| {
                let tf = tf
                    .into_iter()
                    .map(|(t, c)| (global[t as usize], c))
                    .collect();
                (len, tf)
            }));
        }
        let total: f64 = per_doc.iter().map(|(l, _)| *l as f64).sum();
        let avgdl = if n > 0 { total / n as f64 } else { 0.0 };
        let norm: Vec<f64> = per_doc
            .iter()
            .map(|&(l, _)| {
                let rel = if avgdl > 0.0 { l as f64 / avgdl } else { 0.0 };
                BM25_K1 * (1.0 - BM25_B + BM25_B * rel)
            })
            .collect();
        let terms = vocab.len();
        let mut df = vec![0usize; terms];
        for (_, tf) in &per_doc {
            for &(t, _) in tf {
                df[t as usize] += 1;
            }
        }
        let mut offsets = Vec::with_capacity(terms + 1);
        offsets.push(0);
        for &c in &df {
            offsets.push(offsets[offsets.len() - 1] + c);
        }
        let idf: Vec<f64> = df
            .iter()
            .map(|&c| {
                let df = c as f64;
                (1.0 + (n as f64 - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let mut postings = vec![(0u32, 0.0f64); offsets[terms]];
        let mut cursor = offsets[..terms].to_vec();
        for (d, (_, tf)) in per_doc.iter().enumerate() {
            for &(t, c) in tf {
                let t = t as usize;
                let tf = f64::from(c);
                postings[cursor[t]] = (d as u32, idf[t] * tf * (BM25_K1 + 1.0) / (tf + norm[d]));
                cursor[t] += 1;
            }
        }
        Bm25 {
            n,
            vocab,
            offsets,
            postings,
        }
    }

    /// BM25 score of every node for `query`, in node order.
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let mut s = vec![0.0; self.n];
        let mut seen: Vec<u32> = Vec::new();
        for_each_bm25_token(query, &mut String::new(), |t| {
            let Some(&id) = self.vocab.get(t) else {
                return;
            };
            if seen.contains(&id) {
                return;
            }
            seen.push(id);
            let post = &self.postings[self.offsets[id as usize]..self.offsets[id as usize + 1]];
            for &(d, w) in post {
                s[d as usize] += w;
            }
        });
        s
    }

    /// The `k` best nodes, score descending, ties in node order. Nodes with score 0 (no
    /// query term) are included only if fewer than `k` nodes match, like a full ranking.
    ///
    /// The same list as [`top_k_stable`] over [`Bm25::scores`] (every term contribution is
    /// positive, so the matching nodes are exactly the positive scores), found by selecting
    /// among the matching nodes only. Cost: O(n + m log k) for m matching nodes.
    pub fn search(&self, query: &str, k: usize) -> Vec<(usize, f64)> {
        let scores = self.scores(query);
        let mut hits: Vec<(usize, f64)> = scores
            .iter()
            .enumerate()
            .filter(|&(_, &x)| x > 0.0)
            .map(|(d, &x)| (d, x))
            .collect();
        // score descending, then node ascending: a strict total order
        let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if k < hits.len() {
            if k == 0 {
                return Vec::new();
            }
            hits.select_nth_unstable_by(k - 1, order);
            hits.truncate(k);
        }
        hits.sort_unstable_by(order);
        if hits.len() < k {
            let fill = k - hits.len();
            hits.extend(
                scores
                    .iter()
                    .enumerate()
                    .filter(|&(_, &x)| x == 0.0)
                    .take(fill)
                    .map(|(d, &x)| (d, x)),
            );
        }
        hits
    }
}

/// The constant `k` of reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009, who
/// found 60 near-optimal across TREC collections and fixed it; not tuned here).
pub const RRF_K: f64 = 60.0;

/// How deep each input list of `rrf_topk` is read (BM25 and dense, each the first 100).
pub const RRF_DEPTH: usize = 100;

/// Reciprocal-rank fusion: `score(d) = Σ_lists 1 / (k + rank_list(d))` with 1-based ranks, over
/// the documents of any list (a document absent from a list gets nothing from it); the first
/// `top` by score descending, ties by document index ascending. Each input list must hold
/// distinct documents. Cost: O(Σ |list|) plus the sort of the fused documents.
pub fn reciprocal_rank_fusion(lists: &[&[usize]], k: f64, top: usize) -> Vec<(usize, f64)> {
    let mut score: HashMap<usize, f64> = HashMap::new();
    for list in lists {
        for (r, &d) in list.iter().enumerate() {
            *score.entry(d).or_insert(0.0) += 1.0 / (k + (r + 1) as f64);
        }
    }
    let mut fused: Vec<(usize, f64)> = score.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.truncate(top);
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_is_a_stable_descending_sort() {
        let s = [0.1, 0.5, 0.5, 0.9, 0.1, 0.5];
        assert_eq!(
            top_k_stable(&s, 4),
            vec![(3, 0.9), (1, 0.5), (2, 0.5), (5, 0.5)]
        );
        assert_eq!(top_k_stable(&s, 0), vec![]);
        assert_eq!(top_k_stable(&s, 10).len(), 6);
        let mut idx: Vec<usize> = (0..s.len()).collect();
        idx.sort_by(|&a, &b| s[b].partial_cmp(&s[a]).unwrap());
        let full: Vec<usize> = top_k_stable(&s, 6).into_iter().map(|x| x.0).collect();
        assert_eq!(full, idx);
    }

    #[test]
    fn cosine_index_is_the_core_cosine_in_node_order() {
        let docs = vec![
            vec![1.0, 2.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![-1.0, 0.5, 3.0],
            vec![2.0, 4.0, 0.0],
        ];
        let idx = CosineIndex::new(&docs, 3).unwrap();
        let q = [0.3, 0.0, -0.7];
        let hits = idx.search(&q, 10);
        assert_eq!(hits.len(), 4);
        for &(d, s) in &hits {
            assert_eq!(s.to_bits(), crabpath::index::cosine(&q, &docs[d]).to_bits());
        }
        // nodes 0 and 3 are parallel: equal scores, node order
        let hits = idx.search(&[1.0, 2.0, 0.0], 2);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 3]);
        assert_eq!(idx.search_node(3, 2), hits);
        let all = idx.search_all(&[q.to_vec(), vec![0.0; 3]], 4);
        assert_eq!(all[0], idx.search(&q, 4));
        assert_eq!(
            all[1].iter().map(|h| h.0).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert!(CosineIndex::new(&docs, 2).is_err());
        assert!(CosineIndex::new(&[vec![f64::NAN, 0.0]], 2).is_err());
    }

    #[test]
    fn bm25_ranks_term_matches() {
        let docs = ["the cat sat", "a dog barked loudly", "cat cat cat", ""];
        let b = Bm25::new(&docs);
        let r = b.search("Cat?", 2);
        assert_eq!(r[0].0, 2);
        assert_eq!(r[1].0, 0);
        assert!(r[0].1 > r[1].1);
        // the selection over matching nodes is the stable top-k of every score
        let docs = [
            "a b c", "b c d", "c d e", "a a b", "e f", "", "b b b c", "x y", "c c", "a e",
        ];
        let b = Bm25::new(&docs);
        for q in ["a", "b c", "e x", "zzz", "a b c d e f"] {
            for k in [0, 1, 3, 5, 10, 12] {
                assert_eq!(b.search(q, k), top_k_stable(&b.scores(q), k), "{q} {k}");
            }
        }
        assert_eq!(bm25_tokens("Héllo, wörld-42"), vec!["héllo", "wörld", "42"]);
    }

    /// The tokeniser's definition in one line (lower-case every character, split on the
    /// non-alphanumeric ones), against which the fast path of [`for_each_bm25_token`] is
    /// checked.
    fn tokens_by_definition(text: &str) -> Vec<String> {
        let lowered: String = text.chars().flat_map(char::to_lowercase).collect();
        lowered
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn bm25_tokens_match_their_definition() {
        // ASCII, Latin-1, a lower-casing that grows (U+0130 → "i" + U+0307), the Kelvin
        // sign (lower-cases to ASCII "k"), a title-case digraph, CJK, digits, an emoji.
        for text in [
            "The Cat-sat, on 42 mats!",
            "Héllo, wörld-42 ÀÉÎ",
            "İstanbul İİ x\u{130}y",
            "\u{212A}elvin and \u{1C5}ungla",
            "東京 タワー 2024年",
            "a\u{1F600}b  --  ",
            "",
            "   ",
        ] {
            assert_eq!(bm25_tokens(text), tokens_by_definition(text), "{text:?}");
        }
    }

    /// BM25 scores by the module docs' formula, one document at a time.
    fn scores_by_definition(docs: &[String], query: &str) -> Vec<f64> {
        let toks: Vec<Vec<String>> = docs.iter().map(|d| bm25_tokens(d)).collect();
        let n = docs.len() as f64;
        let total: f64 = toks.iter().map(|t| t.len() as f64).sum();
        let avgdl = total / n;
        let mut terms: Vec<String> = Vec::new();
        for t in bm25_tokens(query) {
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
        toks.iter()
            .map(|doc| {
                let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * (doc.len() as f64 / avgdl));
                let mut s = 0.0;
                for t in &terms {
                    let df = toks.iter().filter(|d| d.contains(t)).count() as f64;
                    let tf = doc.iter().filter(|x| *x == t).count() as f64;
                    if tf > 0.0 {
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        s += idf * tf * (BM25_K1 + 1.0) / (tf + norm);
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn bm25_scores_are_the_formula_bit_for_bit_across_chunks() {
        // More documents than one tokenising chunk, so that term ids are merged across
        // chunks; words drawn from a small vocabulary by a fixed recurrence.
        let words = [
            "alpha", "beta", "gamma", "delta", "Eps", "zeta", "ÉTA", "theta",
        ];
        let mut x: u64 = 12345;
        let docs: Vec<String> = (0..BM25_CHUNK * 2 + 37)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let len = (x >> 60) as usize;
                (0..len)
                    .map(|j| words[((x >> (3 * j + 8)) & 7) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let b = Bm25::new(&docs);
        for q in [
            "alpha",
            "beta gamma beta",
            "éta eps",
            "zeta theta alpha delta",
            "none",
        ] {
            let got: Vec<u64> = b.scores(q).iter().map(|s| s.to_bits()).collect();
            let want: Vec<u64> = scores_by_definition(&docs, q)
                .iter()
                .map(|s| s.to_bits())
                .collect();
            assert_eq!(got, want, "{q}");
        }
    }

    #[test]
    fn reciprocal_rank_fusion_by_hand() {
        // BM25: 7, 3, 5; dense: 3, 9, 7 (k = 60).
        // 3: 1/62 + 1/61 = 0.032522...; 7: 1/61 + 1/63 = 0.032266...;
        // 9: 1/62 = 0.016129...; 5: 1/63 = 0.015873...
        let fused = reciprocal_rank_fusion(&[&[7, 3, 5], &[3, 9, 7]], RRF_K, 10);
        let ids: Vec<usize> = fused.iter().map(|x| x.0).collect();
        assert_eq!(ids, vec![3, 7, 9, 5]);
        assert_eq!(fused[0].1, 1.0 / 62.0 + 1.0 / 61.0);
        assert_eq!(fused[1].1, 1.0 / 61.0 + 1.0 / 63.0);
        assert_eq!(fused[2].1, 1.0 / 62.0);
        assert_eq!(fused[3].1, 1.0 / 63.0);
        // Mirror ranks tie exactly (addition commutes); ties go to the smaller index; the
        // result is cut to `top`.
        let fused = reciprocal_rank_fusion(&[&[4, 2], &[2, 4]], RRF_K, 1);
        assert_eq!(fused, vec![(2, 1.0 / 61.0 + 1.0 / 62.0)]);
        assert!(reciprocal_rank_fusion(&[&[], &[]], RRF_K, 5).is_empty());
    }
}
