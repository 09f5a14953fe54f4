//! First-stage retrieval: the reference's exact cosine index and a lexical BM25 baseline.
//!
//! [`ExactIndex`] returns bit-for-bit the ranking of the reference `VectorIndex.search`
//! (CORE.md §10.2): `cosine(q, d) = dot / (sqrt(|q|²) · sqrt(|d|²))` with `dot` and the squared
//! norms accumulated left to right over the components, `0.0` when either norm is zero; a
//! stable sort by score descending (ties keep node order); the first `k`. It is laid out for
//! speed: the vectors are stored column-major (component `i` of every node contiguous), so a
//! query adds `q[i]·d[i]` for all nodes at once, component by component in increasing `i` —
//! the same additions in the same order as the reference's per-pair loop. Components where
//! `q[i] = 0` are skipped: adding a zero product never changes a sum that starts at `+0.0`.
//!
//! [`Bm25`] is a small exact Okapi BM25 (`k1 = 1.2`, `b = 0.75`) over lower-cased maximal runs
//! of alphanumeric characters, `idf = ln(1 + (N − df + 0.5)/(df + 0.5))` (the non-negative
//! Lucene form), distinct query terms summed in first-occurrence order, ties by node order.
//! No crate was used: the few available ones tokenise and weight differently, and this form
//! is what "BM25" means in Lucene/Pyserini, which makes the baseline easy to check.

use std::collections::HashMap;

use crate::error::{Error, Result};

/// Exact-cosine index over node vectors in node order.
#[derive(Debug, Clone)]
pub struct ExactIndex {
    n: usize,
    dim: usize,
    /// Column-major vectors: `cols[i * n + d]` = component `i` of node `d`.
    cols: Vec<f64>,
    /// `sqrt(Σ d_i²)` per node (summed in component order).
    norms: Vec<f64>,
    /// Whether `Σ d_i² == 0` (the reference returns 0.0 for such nodes).
    zero: Vec<bool>,
}

impl ExactIndex {
    /// Builds the index from one vector per node (all of length `dim`).
    pub fn new(vectors: &[Vec<f64>], dim: usize) -> Result<Self> {
        let n = vectors.len();
        let mut cols = vec![0.0; n * dim];
        let mut norms = Vec::with_capacity(n);
        let mut zero = Vec::with_capacity(n);
        for (d, v) in vectors.iter().enumerate() {
            if v.len() != dim {
                return Err(Error::Usage(format!(
                    "embedding of node {d} has dimension {}, expected {dim}",
                    v.len()
                )));
            }
            let mut sq = 0.0;
            for (i, &x) in v.iter().enumerate() {
                cols[i * n + d] = x;
                sq += x * x;
            }
            norms.push(sq.sqrt());
            zero.push(sq == 0.0);
        }
        Ok(ExactIndex {
            n,
            dim,
            cols,
            norms,
            zero,
        })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Cosine of `q` with every node, in node order (CORE.md §10.2).
    pub fn scores(&self, q: &[f64]) -> Vec<f64> {
        let mut dot = vec![0.0f64; self.n];
        if q.len() != self.dim || self.n == 0 {
            return dot; // the reference returns 0.0 for a dimension mismatch
        }
        let mut sq = 0.0;
        for (i, &x) in q.iter().enumerate() {
            sq += x * x;
            if x == 0.0 {
                continue;
            }
            let col = &self.cols[i * self.n..(i + 1) * self.n];
            for (acc, &y) in dot.iter_mut().zip(col) {
                *acc += x * y;
            }
        }
        if sq == 0.0 {
            dot.iter_mut().for_each(|s| *s = 0.0);
            return dot;
        }
        let qn = sq.sqrt();
        for ((s, &dn), &z) in dot.iter_mut().zip(&self.norms).zip(&self.zero) {
            *s = if z { 0.0 } else { *s / (qn * dn) };
        }
        dot
    }

    /// The reference's `search(q, top_k)`: `(node, score)` for the `k` best, score
    /// descending, ties in node order.
    pub fn search(&self, q: &[f64], k: usize) -> Vec<(usize, f64)> {
        top_k_stable(&self.scores(q), k)
    }

    /// `search` with node `d`'s own vector as the query (for kNN graphs).
    pub fn search_node(&self, d: usize, k: usize) -> Vec<(usize, f64)> {
        let q: Vec<f64> = (0..self.dim).map(|i| self.cols[i * self.n + d]).collect();
        self.search(&q, k)
    }
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
    let mut cur = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Okapi BM25 index over node contents (see the module docs).
#[derive(Debug, Clone)]
pub struct Bm25 {
    n: usize,
    /// term → postings (node, term frequency), nodes ascending.
    postings: HashMap<String, Vec<(u32, u32)>>,
    /// Per node: `k1 · (1 − b + b·|d|/avgdl)`.
    norm: Vec<f64>,
}

impl Bm25 {
    /// Indexes `docs` in order.
    pub fn new<S: AsRef<str>>(docs: &[S]) -> Self {
        let n = docs.len();
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lens = Vec::with_capacity(n);
        for (d, doc) in docs.iter().enumerate() {
            let toks = bm25_tokens(doc.as_ref());
            lens.push(toks.len() as f64);
            let mut tf: HashMap<String, u32> = HashMap::new();
            for t in toks {
                *tf.entry(t).or_default() += 1;
            }
            for (t, c) in tf {
                postings.entry(t).or_default().push((d as u32, c));
            }
        }
        let total: f64 = lens.iter().sum();
        let avgdl = if n > 0 { total / n as f64 } else { 0.0 };
        let norm = lens
            .iter()
            .map(|&l| {
                let rel = if avgdl > 0.0 { l / avgdl } else { 0.0 };
                BM25_K1 * (1.0 - BM25_B + BM25_B * rel)
            })
            .collect();
        Bm25 { n, postings, norm }
    }

    /// BM25 score of every node for `query`, in node order.
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let mut s = vec![0.0; self.n];
        let mut seen = std::collections::HashSet::new();
        for t in bm25_tokens(query) {
            if !seen.insert(t.clone()) {
                continue;
            }
            let Some(post) = self.postings.get(&t) else {
                continue;
            };
            let df = post.len() as f64;
            let idf = (1.0 + (self.n as f64 - df + 0.5) / (df + 0.5)).ln();
            for &(d, tf) in post {
                let tf = f64::from(tf);
                s[d as usize] += idf * tf * (BM25_K1 + 1.0) / (tf + self.norm[d as usize]);
            }
        }
        s
    }

    /// The `k` best nodes, score descending, ties in node order. Nodes with score 0 (no
    /// query term) are included only if fewer than `k` nodes match, like a full ranking.
    pub fn search(&self, query: &str, k: usize) -> Vec<(usize, f64)> {
        top_k_stable(&self.scores(query), k)
    }
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
    fn cosine_matches_the_reference_formula() {
        let docs = vec![
            vec![1.0, 2.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![-1.0, 0.5, 3.0],
        ];
        let idx = ExactIndex::new(&docs, 3).unwrap();
        let q = [0.3, 0.0, -0.7];
        let s = idx.scores(&q);
        for (d, v) in docs.iter().enumerate() {
            let (mut dot, mut na, mut nb) = (0.0, 0.0, 0.0);
            for (x, y) in q.iter().zip(v) {
                dot += x * y;
                na += x * x;
                nb += y * y;
            }
            let want = if na == 0.0 || nb == 0.0 {
                0.0
            } else {
                dot / (f64::sqrt(na) * f64::sqrt(nb))
            };
            assert_eq!(s[d].to_bits(), want.to_bits());
        }
        assert_eq!(idx.scores(&[0.0, 0.0, 0.0]), vec![0.0; 3]);
    }

    #[test]
    fn bm25_ranks_term_matches() {
        let docs = ["the cat sat", "a dog barked loudly", "cat cat cat", ""];
        let b = Bm25::new(&docs);
        let r = b.search("Cat?", 2);
        assert_eq!(r[0].0, 2);
        assert_eq!(r[1].0, 0);
        assert!(r[0].1 > r[1].1);
        assert_eq!(bm25_tokens("Héllo, wörld-42"), vec!["héllo", "wörld", "42"]);
    }
}
