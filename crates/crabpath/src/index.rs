//! Exact cosine vector index (reference `crabpath/index.py::VectorIndex`).
//!
//! An ordered map id → vector, stored contiguously: the ids in an insertion-ordered set
//! and all vectors back to back in one `Vec<f64>`. Search scores every vector (brute
//! force, like the reference) with the reference's exact arithmetic.

use std::cmp::Ordering;
use std::fmt;

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// Cosine similarity exactly as reference `crabpath/index.py::VectorIndex.cosine` computes
/// it: 0.0 if either vector is empty, their lengths differ or either norm is 0; otherwise
/// the dot product and both squared norms are accumulated in one left-to-right pass and the
/// result is `dot / (sqrt(|a|²) * sqrt(|b|²))`.
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// Left-to-right sum of squares (one of the accumulators of [`cosine`]).
fn squared_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |acc, x| acc + x * x)
}

/// Node vectors by id with exact top-k search: what the algorithms that add, replace,
/// read or search vectors ([`crate::inject`], [`crate::maintain::connect_learning_nodes`],
/// the application's sync and merge) need from wherever the vectors live. The
/// reference keeps them in one in-memory [`VectorIndex`] (reference
/// `crabpath/index.py::VectorIndex`), which implements this trait bit for bit; an
/// application may keep them in a database and search them through an index of its
/// own.
pub trait VectorStore {
    /// The dimension every vector has, `None` while there is none.
    fn dim(&self) -> Option<usize>;
    /// Whether `id` has a vector.
    fn contains(&self, id: &str) -> bool;
    /// A copy of the vector of `id`.
    fn get(&self, id: &str) -> Option<Vec<f64>>;
    /// Stores `vector` under `id` (a new id after all others, an existing one in place).
    /// Errors: a dimension other than [`VectorStore::dim`], a non-finite component.
    fn upsert(&mut self, id: &str, vector: &[f64]) -> Result<()>;
    /// Deletes the vector of `id`; whether there was one.
    fn remove(&mut self, id: &str) -> bool;
    /// The `top_k` vectors most similar to `query` as (id, cosine), best first, ties in
    /// insertion order (see [`VectorIndex::search`]).
    fn search(&self, query: &[f64], top_k: usize) -> Vec<(String, f64)>;
    /// How far a score of [`VectorStore::search`] may be from the [`cosine`] of the
    /// query and the stored vector (0.0: the same bits, as [`VectorIndex`] gives). A
    /// caller that needs exact [`cosine`] ranks re-scores the hits and widens the search
    /// until the hits it keeps beat every score left out by more than this.
    fn search_tolerance(&self) -> f64 {
        0.0
    }
}

impl VectorStore for VectorIndex {
    fn dim(&self) -> Option<usize> {
        VectorIndex::dim(self)
    }

    fn contains(&self, id: &str) -> bool {
        VectorIndex::contains(self, id)
    }

    fn get(&self, id: &str) -> Option<Vec<f64>> {
        VectorIndex::get(self, id).map(<[f64]>::to_vec)
    }

    fn upsert(&mut self, id: &str, vector: &[f64]) -> Result<()> {
        VectorIndex::upsert(self, id, vector)
    }

    fn remove(&mut self, id: &str) -> bool {
        VectorIndex::remove(self, id).is_some()
    }

    fn search(&self, query: &[f64], top_k: usize) -> Vec<(String, f64)> {
        VectorIndex::search(self, query, top_k)
    }
}

/// Ordered map id → vector (reference `crabpath/index.py::VectorIndex`). Every vector has
/// the dimension of the first one stored (the reference does not check; mixed dimensions
/// would only ever score 0.0 against each other there). Components must be finite.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    ids: IndexSet<String, FxBuildHasher>,
    /// Vector `i` is `data[i * dim..(i + 1) * dim]`.
    data: Vec<f64>,
    /// `sqrt` of each vector's left-to-right squared norm. The reference accumulates
    /// the norms in the same loop as the dot product, but each accumulator is an
    /// independent left-to-right sum, so precomputing them gives identical bits.
    norms: Vec<f64>,
    dim: usize,
}

impl PartialEq for VectorIndex {
    fn eq(&self, other: &Self) -> bool {
        self.dim == other.dim && self.ids.iter().eq(other.ids.iter()) && self.data == other.data
    }
}

impl VectorIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index from rows laid out back to back: `ids[i]` has the vector
    /// `data[i * dim..(i + 1) * dim]`, in that order (what [`VectorIndex::upsert`]
    /// of each row in turn builds, without copying the data). Errors: a length that
    /// does not match, a repeated id, a non-finite component.
    pub fn from_rows(ids: Vec<String>, data: Vec<f64>, dim: usize) -> Result<Self> {
        if ids.is_empty() {
            return Ok(Self::default());
        }
        if data.len() != ids.len() * dim {
            return Err(Error::DimensionMismatch {
                expected: ids.len() * dim,
                got: data.len(),
            });
        }
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite {
                what: format!("component {} of the vector of `{}`", i % dim, ids[i / dim]),
                value: data[i],
            });
        }
        let n = ids.len();
        let set: IndexSet<String, FxBuildHasher> = ids.into_iter().collect();
        if set.len() != n {
            return Err(Error::InvalidConfig("repeated id in index rows".into()));
        }
        let norms = if dim == 0 {
            vec![0.0; n]
        } else {
            data.chunks_exact(dim)
                .map(|r| squared_norm(r).sqrt())
                .collect()
        };
        Ok(VectorIndex {
            ids: set,
            data,
            norms,
            dim,
        })
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The dimension fixed by the first vector, `None` while the index is empty.
    pub fn dim(&self) -> Option<usize> {
        (!self.is_empty()).then_some(self.dim)
    }

    /// Whether `id` has a vector.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Ids in insertion order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.ids.iter().map(String::as_str)
    }

    /// (id, vector) pairs in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &[f64])> + '_ {
        self.ids
            .iter()
            .enumerate()
            .map(move |(i, id)| (id.as_str(), self.row(i)))
    }

    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// The vector of `id`.
    pub fn get(&self, id: &str) -> Option<&[f64]> {
        self.ids.get_index_of(id).map(|i| self.row(i))
    }

    /// Stores a copy of `vector` under `id` (reference
    /// `crabpath/index.py::VectorIndex.upsert`): a new id is appended, an existing one
    /// keeps its position. The first vector fixes the dimension (`Error::DimensionMismatch`
    /// otherwise); non-finite components are `Error::NonFinite`. On error the index is
    /// unchanged.
    pub fn upsert(&mut self, id: &str, vector: impl AsRef<[f64]>) -> Result<()> {
        let v = vector.as_ref();
        if !self.is_empty() && v.len() != self.dim {
            return Err(Error::DimensionMismatch {
                expected: self.dim,
                got: v.len(),
            });
        }
        if let Some((i, &x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(Error::NonFinite {
                what: format!("component {i} of the vector of `{id}`"),
                value: x,
            });
        }
        let norm = squared_norm(v).sqrt();
        match self.ids.get_index_of(id) {
            Some(i) => {
                let dim = self.dim;
                self.data[i * dim..(i + 1) * dim].copy_from_slice(v);
                self.norms[i] = norm;
            }
            None => {
                if self.is_empty() {
                    self.dim = v.len();
                }
                self.ids.insert(id.to_string());
                self.data.extend_from_slice(v);
                self.norms.push(norm);
            }
        }
        Ok(())
    }

    /// Deletes `id`, keeping the order of the others; returns its vector. The dimension
    /// is free again once the index is empty.
    pub fn remove(&mut self, id: &str) -> Option<Vec<f64>> {
        let (i, _) = self.ids.shift_remove_full(id)?;
        let v = self.data.drain(i * self.dim..(i + 1) * self.dim).collect();
        self.norms.remove(i);
        Some(v)
    }

    /// The `top_k` most similar vectors as (id, [`cosine`] score), by score descending,
    /// ties in insertion order (the stable sort of reference
    /// `crabpath/index.py::VectorIndex.search`); no threshold; `top_k = 0` gives nothing. A
    /// query of another dimension scores 0.0 everywhere. NaN scores (from a non-finite
    /// query) rank last.
    pub fn search(&self, query: &[f64], top_k: usize) -> Vec<(String, f64)> {
        let mut scores = Vec::new();
        self.search_into(query, top_k, &mut scores)
    }

    /// [`VectorIndex::search`] for several queries: the same results, computed as a
    /// blocked matrix product. Queries of the index dimension are scored [`QB`] at a
    /// time against blocks of [`RB`] stored vectors, so each stored vector is read
    /// from memory once per block of queries instead of once per query. Every
    /// (query, vector) dot product is still its own left-to-right sum of separately
    /// rounded products, exactly as in [`cosine`], so scores are bit-identical to
    /// [`VectorIndex::search`]; only the order in which the products are evaluated
    /// changes.
    pub fn search_batch<Q: AsRef<[f64]>>(
        &self,
        queries: &[Q],
        top_k: usize,
    ) -> Vec<Vec<(String, f64)>> {
        let mut out: Vec<Vec<(String, f64)>> = vec![Vec::new(); queries.len()];
        if top_k == 0 || self.is_empty() {
            return out;
        }
        let mut scores = Vec::new();
        // queries the kernel can take; the others score 0.0 everywhere (`score_all`)
        let (blocked, rest): (Vec<usize>, Vec<usize>) =
            (0..queries.len()).partition(|&i| queries[i].as_ref().len() == self.dim);
        for i in rest {
            out[i] = self.search_into(queries[i].as_ref(), top_k, &mut scores);
        }
        let n = self.len();
        let mut qt = vec![0.0; self.dim * QB];
        let mut dots = vec![0.0; n * QB];
        for block in blocked.chunks(QB) {
            // transposed queries: qt[j * QB + b] = component j of query b (unused
            // lanes stay 0.0 and are never read back)
            qt.fill(0.0);
            for (b, &qi) in block.iter().enumerate() {
                for (j, &x) in queries[qi].as_ref().iter().enumerate() {
                    qt[j * QB + b] = x;
                }
            }
            dot_block(&self.data, self.dim, &qt, &mut dots);
            for (b, &qi) in block.iter().enumerate() {
                let q = queries[qi].as_ref();
                let (qn, qnorm) = query_norm(q);
                scores.clear();
                scores.extend((0..n).map(|i| {
                    (
                        cosine_from_dot(dots[i * QB + b], qn, qnorm, self.norms[i]),
                        i as u32,
                    )
                }));
                out[qi] = self.take_top(top_k, &mut scores);
            }
        }
        out
    }

    fn search_into(
        &self,
        query: &[f64],
        top_k: usize,
        scores: &mut Vec<(f64, u32)>,
    ) -> Vec<(String, f64)> {
        if top_k == 0 || self.is_empty() {
            return Vec::new();
        }
        self.score_all(query, scores);
        self.take_top(top_k, scores)
    }

    /// The `top_k` best of (score, position) pairs, ranked, with their ids.
    fn take_top(&self, top_k: usize, scores: &mut Vec<(f64, u32)>) -> Vec<(String, f64)> {
        let by_rank = |a: &(f64, u32), b: &(f64, u32)| rank(a.0, b.0).then(a.1.cmp(&b.1));
        // (score desc, position asc) is a strict total order, so selecting the top k
        // and sorting them gives exactly the stable sort's prefix.
        if top_k < scores.len() {
            scores.select_nth_unstable_by(top_k - 1, by_rank);
            scores.truncate(top_k);
        }
        scores.sort_unstable_by(by_rank);
        scores
            .iter()
            .map(|&(s, i)| (self.ids[i as usize].clone(), s))
            .collect()
    }

    /// Scores every stored vector against `query` into `out` as (score, position).
    fn score_all(&self, query: &[f64], out: &mut Vec<(f64, u32)>) {
        out.clear();
        let n = self.len();
        if query.is_empty() || query.len() != self.dim {
            out.extend((0..n as u32).map(|i| (0.0, i)));
            return;
        }
        let (qn, qnorm) = query_norm(query);
        let score = |dot: f64, i: usize| cosine_from_dot(dot, qn, qnorm, self.norms[i]);
        let dim = self.dim;
        // Four rows at a time: four independent left-to-right dot products, each
        // summed in exactly the reference's order.
        let mut rows = self.data.chunks_exact(4 * dim);
        let mut i = 0;
        for block in rows.by_ref() {
            let (r0, rest) = block.split_at(dim);
            let (r1, rest) = rest.split_at(dim);
            let (r2, r3) = rest.split_at(dim);
            let mut d = [0.0f64; 4];
            for ((((x, a), b), c), e) in query.iter().zip(r0).zip(r1).zip(r2).zip(r3) {
                d[0] += x * a;
                d[1] += x * b;
                d[2] += x * c;
                d[3] += x * e;
            }
            for (k, dk) in d.into_iter().enumerate() {
                out.push((score(dk, i + k), (i + k) as u32));
            }
            i += 4;
        }
        for row in rows.remainder().chunks_exact(dim) {
            let dot = query.iter().zip(row).fold(0.0, |acc, (x, y)| acc + x * y);
            out.push((score(dot, i), i as u32));
            i += 1;
        }
    }
}

/// The query's squared norm and norm, as [`cosine`] accumulates them.
#[inline]
fn query_norm(query: &[f64]) -> (f64, f64) {
    let qn = squared_norm(query);
    (qn, qn.sqrt())
}

/// [`cosine`]'s last step from a dot product, the query's squared norm and norm, and
/// the stored vector's norm.
#[inline]
fn cosine_from_dot(dot: f64, qn: f64, qnorm: f64, norm: f64) -> f64 {
    if qn == 0.0 || norm == 0.0 {
        0.0
    } else {
        dot / (qnorm * norm)
    }
}

/// Queries per block of [`VectorIndex::search_batch`] (two AVX2 registers of f64).
pub const QB: usize = 8;
/// Stored vectors per block of [`VectorIndex::search_batch`].
pub const RB: usize = 4;

/// `dots[i * QB + b]` = dot product of stored vector `i` (row `i` of `data`) with
/// query `b` (column `b` of the transposed `qt`), each summed left to right over the
/// components, one product at a time (no fused multiply-add: Rust never contracts
/// `a * b + c`). [`RB`] × [`QB`] independent sums per pass keep the vector units busy;
/// compiled for AVX2 and AVX as well as the baseline, chosen at run time.
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+avx"))]
fn dot_block(data: &[f64], dim: usize, qt: &[f64], dots: &mut [f64]) {
    let mut rows = data.chunks_exact(RB * dim);
    let mut blocks = dots.chunks_exact_mut(RB * QB);
    for (block, out) in rows.by_ref().zip(blocks.by_ref()) {
        let (r0, rest) = block.split_at(dim);
        let (r1, rest) = rest.split_at(dim);
        let (r2, r3) = rest.split_at(dim);
        let mut acc = [[0.0f64; QB]; RB];
        for ((((q, &x0), &x1), &x2), &x3) in qt.chunks_exact(QB).zip(r0).zip(r1).zip(r2).zip(r3) {
            let q: &[f64; QB] = q.try_into().expect("chunks of QB");
            for b in 0..QB {
                acc[0][b] += q[b] * x0;
                acc[1][b] += q[b] * x1;
                acc[2][b] += q[b] * x2;
                acc[3][b] += q[b] * x3;
            }
        }
        for (o, a) in out.chunks_exact_mut(QB).zip(acc) {
            o.copy_from_slice(&a);
        }
    }
    let tail = blocks.into_remainder();
    for (row, out) in rows
        .remainder()
        .chunks_exact(dim)
        .zip(tail.chunks_exact_mut(QB))
    {
        let mut acc = [0.0f64; QB];
        for (q, &x) in qt.chunks_exact(QB).zip(row) {
            let q: &[f64; QB] = q.try_into().expect("chunks of QB");
            for b in 0..QB {
                acc[b] += q[b] * x;
            }
        }
        out.copy_from_slice(&acc);
    }
}

/// Descending score order; NaN after every number; `-0.0 == 0.0` (ties, as in Python).
#[inline]
fn rank(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => b.partial_cmp(&a).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

/// The reference's file form: a JSON object id → vector, in insertion order.
impl Serialize for VectorIndex {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (id, v) in self.iter() {
            map.serialize_entry(id, v)?;
        }
        map.end()
    }
}

/// Reads the object form with [`VectorIndex::upsert`] per entry (a repeated id keeps
/// its first position and its last vector, like a Python dict).
impl<'de> Deserialize<'de> for VectorIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct IndexVisitor;
        impl<'de> Visitor<'de> for IndexVisitor {
            type Value = VectorIndex;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object mapping ids to arrays of numbers")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<VectorIndex, A::Error> {
                let mut index = VectorIndex::new();
                while let Some(id) = map.next_key::<String>()? {
                    let v: Vec<f64> = map.next_value()?;
                    index.upsert(&id, &v).map_err(serde::de::Error::custom)?;
                }
                Ok(index)
            }
        }
        d.deserialize_map(IndexVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(hits: &[(String, f64)]) -> Vec<&str> {
        hits.iter().map(|(id, _)| id.as_str()).collect()
    }

    #[test]
    fn cosine_edge_cases() {
        assert_eq!(cosine(&[], &[1.0]), 0.0);
        assert_eq!(cosine(&[1.0, 0.0], &[1.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
        assert_eq!(
            cosine(&[1.0, 2.0], &[2.0, 4.0]),
            10.0 / (5f64.sqrt() * 20f64.sqrt())
        );
        assert_eq!(cosine(&[1.0, 0.0], &[-1.0, 0.0]), -1.0);
    }

    #[test]
    fn ties_keep_insertion_order_and_top_k_is_clamped() {
        let mut ix = VectorIndex::new();
        for (id, v) in [
            ("a", [0.0, 1.0]),
            ("b", [1.0, 0.0]),
            ("c", [0.0, 2.0]),
            ("d", [2.0, 0.0]),
            ("e", [1.0, 1.0]),
            ("f", [3.0, 0.0]),
        ] {
            ix.upsert(id, v).unwrap();
        }
        let hits = ix.search(&[1.0, 0.0], 3);
        assert_eq!(ids(&hits), ["b", "d", "f"]);
        assert!(hits.iter().all(|h| h.1 == 1.0));
        let all = ix.search(&[1.0, 0.0], 100);
        assert_eq!(ids(&all), ["b", "d", "f", "e", "a", "c"]);
        assert!(ix.search(&[1.0, 0.0], 0).is_empty());
        // each prefix of the full ranking is what a smaller top_k returns
        for k in 1..=6 {
            assert_eq!(ix.search(&[1.0, 0.0], k), all[..k].to_vec());
        }
        // re-upsert keeps the position
        ix.upsert("a", [5.0, 0.0]).unwrap();
        assert_eq!(ix.ids().collect::<Vec<_>>(), ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(ids(&ix.search(&[1.0, 0.0], 2)), ["a", "b"]);
    }

    #[test]
    fn zero_and_mismatched_queries_score_zero_in_order() {
        let mut ix = VectorIndex::new();
        ix.upsert("z", [0.0, 0.0]).unwrap();
        ix.upsert("x", [1.0, 0.0]).unwrap();
        ix.upsert("y", [-1.0, 0.0]).unwrap();
        let hits = ix.search(&[1.0, 0.0], 10);
        assert_eq!(
            hits,
            vec![("x".into(), 1.0), ("z".into(), 0.0), ("y".into(), -1.0)]
        );
        for q in [&[0.0, 0.0][..], &[1.0, 0.0, 0.0][..], &[][..]] {
            let hits = ix.search(q, 10);
            assert_eq!(ids(&hits), ["z", "x", "y"]);
            assert!(hits.iter().all(|h| h.1 == 0.0));
        }
    }

    #[test]
    fn scores_equal_reference_cosine() {
        // many rows (blocks of four plus a remainder) with awkward values
        let mut ix = VectorIndex::new();
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let rows: Vec<Vec<f64>> = (0..11).map(|_| (0..37).map(|_| next()).collect()).collect();
        for (i, r) in rows.iter().enumerate() {
            ix.upsert(&format!("n{i}"), r).unwrap();
        }
        let q: Vec<f64> = (0..37).map(|_| next()).collect();
        let hits = ix.search(&q, 11);
        for (id, s) in &hits {
            let i: usize = id[1..].parse().unwrap();
            assert_eq!(*s, cosine(&q, &rows[i]));
        }
        assert_eq!(
            ix.search_batch(&[q.clone(), q.clone()], 4),
            vec![hits[..4].to_vec(); 2]
        );
    }

    #[test]
    fn search_batch_equals_search_bit_for_bit() {
        // 4k+3 rows (blocks of RB plus a remainder), 19 queries (two full blocks of
        // QB and a partial one), mixed with queries the kernel cannot take
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let mut ix = VectorIndex::new();
        for i in 0..(4 * 9 + 3) {
            let v: Vec<f64> = (0..23).map(|_| next()).collect();
            ix.upsert(&format!("n{i}"), v).unwrap();
        }
        ix.upsert("zero", vec![0.0; 23]).unwrap();
        let mut queries: Vec<Vec<f64>> =
            (0..19).map(|_| (0..23).map(|_| next()).collect()).collect();
        queries.insert(3, vec![0.0; 23]);
        queries.insert(7, vec![1.0; 5]);
        queries.insert(11, Vec::new());
        queries.push(queries[0].clone());
        for k in [1, 5, 40, 100] {
            let batch = ix.search_batch(&queries, k);
            assert_eq!(batch.len(), queries.len());
            for (q, got) in queries.iter().zip(&batch) {
                let want = ix.search(q, k);
                let bits = |h: &[(String, f64)]| {
                    h.iter()
                        .map(|(id, s)| (id.clone(), s.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(got), bits(&want));
            }
        }
        assert!(ix.search_batch(&queries, 0).iter().all(Vec::is_empty));
        assert!(VectorIndex::new()
            .search_batch(&queries, 3)
            .iter()
            .all(Vec::is_empty));
    }

    #[test]
    fn dimension_and_finiteness_are_checked() {
        let mut ix = VectorIndex::new();
        assert_eq!(ix.dim(), None);
        ix.upsert("a", vec![1.0, 2.0]).unwrap();
        assert_eq!(ix.dim(), Some(2));
        assert!(matches!(
            ix.upsert("b", [1.0]),
            Err(Error::DimensionMismatch {
                expected: 2,
                got: 1
            })
        ));
        assert!(matches!(
            ix.upsert("a", [f64::NAN, 0.0]),
            Err(Error::NonFinite { .. })
        ));
        assert!(matches!(
            ix.upsert("c", [f64::INFINITY, 0.0]),
            Err(Error::NonFinite { .. })
        ));
        assert_eq!(ix.get("a"), Some(&[1.0, 2.0][..]));
        assert_eq!(ix.len(), 1);
        assert_eq!(ix.remove("a"), Some(vec![1.0, 2.0]));
        assert_eq!(ix.remove("a"), None);
        ix.upsert("b", [1.0]).unwrap();
        assert_eq!(ix.dim(), Some(1));
    }

    #[test]
    fn remove_keeps_order() {
        let mut ix = VectorIndex::new();
        for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
            ix.upsert(id, [i as f64, 1.0]).unwrap();
        }
        ix.remove("b").unwrap();
        assert_eq!(
            ix.iter().collect::<Vec<_>>(),
            vec![
                ("a", &[0.0, 1.0][..]),
                ("c", &[2.0, 1.0][..]),
                ("d", &[3.0, 1.0][..])
            ]
        );
        ix.upsert("b", [9.0, 1.0]).unwrap();
        assert_eq!(ix.ids().collect::<Vec<_>>(), ["a", "c", "d", "b"]);
        assert_eq!(ix.search(&[1.0, 0.0], 1)[0].0, "b");
    }

    #[test]
    fn json_round_trip_keeps_order() {
        let mut ix = VectorIndex::new();
        ix.upsert("zeta", [0.1, -0.25]).unwrap();
        ix.upsert("alpha", [1e-300, 3.0]).unwrap();
        let json = serde_json::to_string(&ix).unwrap();
        assert_eq!(json, r#"{"zeta":[0.1,-0.25],"alpha":[1e-300,3.0]}"#);
        let back: VectorIndex = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ix);
        let dup: VectorIndex = serde_json::from_str(r#"{"a":[1],"b":[2],"a":[3]}"#).unwrap();
        assert_eq!(
            dup.iter().collect::<Vec<_>>(),
            vec![("a", &[3.0][..]), ("b", &[2.0][..])]
        );
        assert!(serde_json::from_str::<VectorIndex>(r#"{"a":[1,2],"b":[2]}"#).is_err());
        assert!(serde_json::from_str::<VectorIndex>(r#"{"a":"x"}"#).is_err());
    }
}
