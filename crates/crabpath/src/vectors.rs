//! Unit-normalised `f32` node vectors: what query-aware routers read at traversal time
//! ([`crate::router`]) and what the `f32` exact search runs on ([`crate::search_f32`]).
//!
//! Not part of the reference v11.2.1, which only has the `f64` [`crate::index::VectorIndex`]
//! (reference `crabpath/index.py`, commit 134c676). Its successor's query-conditioned
//! routing (`route_mode=edge+sim`, reference `openclawbrain/daemon.py`, commit 3902ac6)
//! reads target vectors from that index for every candidate; here they are a dense table
//! indexed by [`NodeId`], normalised once, so a router's cosine is one dot product.
//!
//! Arithmetic is deterministic: a vector is normalised in `f64` (left-to-right sum of
//! squares, then one division per component) and rounded to `f32` once; [`dot`] sums
//! in eight fixed lanes reduced in a fixed tree, the same on every CPU (Rust never fuses
//! a multiply and an add).

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId};
use crate::index::VectorIndex;

/// Read access to unit node vectors, the seam between traversal-time routers and
/// whatever stores the embeddings. Cost of [`NodeVectors::unit`]: O(1) for
/// [`UnitVectors`].
pub trait NodeVectors {
    /// Dimension of every vector.
    fn dim(&self) -> usize;
    /// The unit vector of `node`; `None` if it has none or its vector is zero.
    fn unit(&self, node: NodeId) -> Option<&[f32]>;

    /// `q̂ · t̂` of a unit query `query` and the unit vector of `node` (`None` if it has
    /// none). The default is [`dot`] with [`NodeVectors::unit`]; a store that keeps its
    /// vectors in another form (sparse, on disk) answers it directly instead, and may
    /// then have no [`NodeVectors::unit`] at all.
    #[inline]
    fn cosine(&self, query: &[f32], node: NodeId) -> Option<f32> {
        self.unit(node).map(|t| dot(query, t))
    }
}

/// Dense table of unit `f32` vectors, row `i` belonging to `NodeId(i)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitVectors {
    dim: usize,
    /// Row `i` is `data[i * dim..(i + 1) * dim]` (zeros where `has[i]` is false).
    data: Vec<f32>,
    has: Vec<bool>,
}

impl UnitVectors {
    /// An empty table of dimension `dim` (rows are added with [`UnitVectors::push`]).
    pub fn with_dim(dim: usize) -> Self {
        UnitVectors {
            dim,
            data: Vec::new(),
            has: Vec::new(),
        }
    }

    /// One row per input vector, in order (row `i` for `NodeId(i)`, the layout of a graph
    /// whose nodes were added in the order of the vectors). All rows must have the first
    /// row's dimension (`Error::DimensionMismatch`) and finite components
    /// (`Error::NonFinite`); a zero vector is kept as a row without a vector.
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self> {
        let dim = rows.first().map_or(0, |r| r.as_ref().len());
        let mut out = UnitVectors::with_dim(dim);
        out.data.reserve(rows.len() * dim);
        for (i, r) in rows.iter().enumerate() {
            out.push(r.as_ref())
                .map_err(|e| with_row(e, || format!("row {i}")))?;
        }
        Ok(out)
    }

    /// The vectors of an index laid out by the graph's symbols: row `i` holds the vector
    /// of the node `graph.name(NodeId(i))` if the index has one. Index entries whose id the
    /// graph never interned are ignored.
    pub fn from_index(graph: &Graph, index: &VectorIndex) -> Result<Self> {
        let dim = index.dim().unwrap_or(0);
        let mut out = UnitVectors::with_dim(dim);
        let zero = vec![0.0; dim];
        for i in 0..graph.symbol_count() {
            let id = graph.name(NodeId(i as u32));
            let v = index.get(id).unwrap_or(&zero);
            out.push(v).map_err(|e| with_row(e, || format!("`{id}`")))?;
        }
        Ok(out)
    }

    /// Appends one row: `v / |v|` rounded to `f32`, or a row without a vector if `v` is
    /// zero. The dimension must be [`UnitVectors::dim`]; components must be finite.
    pub fn push(&mut self, v: &[f64]) -> Result<()> {
        if v.len() != self.dim {
            return Err(Error::DimensionMismatch {
                expected: self.dim,
                got: v.len(),
            });
        }
        if let Some(&x) = v.iter().find(|x| !x.is_finite()) {
            return Err(Error::NonFinite {
                what: "vector component".into(),
                value: x,
            });
        }
        let at = self.data.len();
        self.data.resize(at + self.dim, 0.0);
        let has = normalize_into(v, &mut self.data[at..]);
        self.has.push(has);
        Ok(())
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.has.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.has.is_empty()
    }

    /// Dimension of every row.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Row `i` as stored (all zeros for a row without a vector); `None` past the end.
    pub fn row(&self, i: usize) -> Option<&[f32]> {
        (i < self.len()).then(|| &self.data[i * self.dim..(i + 1) * self.dim])
    }

    /// All rows back to back (row-major, `len() × dim()`).
    pub fn as_flat(&self) -> &[f32] {
        &self.data
    }
}

impl NodeVectors for UnitVectors {
    fn dim(&self) -> usize {
        self.dim
    }

    #[inline]
    fn unit(&self, node: NodeId) -> Option<&[f32]> {
        let i = node.index();
        if *self.has.get(i)? {
            Some(&self.data[i * self.dim..(i + 1) * self.dim])
        } else {
            None
        }
    }
}

fn with_row(e: Error, row: impl FnOnce() -> String) -> Error {
    match e {
        Error::NonFinite { what, value } => Error::NonFinite {
            what: format!("{what} of {}", row()),
            value,
        },
        other => other,
    }
}

/// Writes `v / |v|` (norm: `sqrt` of the left-to-right sum of squares in `f64`) rounded to
/// `f32` into `out` (`out.len() == v.len()`); zeros and `false` if `|v| = 0`.
pub fn normalize_into(v: &[f64], out: &mut [f32]) -> bool {
    let norm = v.iter().fold(0.0f64, |acc, x| acc + x * x).sqrt();
    if norm == 0.0 || !norm.is_finite() {
        out.iter_mut().for_each(|o| *o = 0.0);
        return false;
    }
    for (o, x) in out.iter_mut().zip(v) {
        *o = (x / norm) as f32;
    }
    true
}

/// `v / |v|` as a new `f32` vector (see [`normalize_into`]); all zeros if `|v| = 0`.
pub fn normalized(v: &[f64]) -> Vec<f32> {
    let mut out = vec![0.0; v.len()];
    normalize_into(v, &mut out);
    out
}

/// Lanes of [`dot`].
const LANES: usize = 8;

/// Dot product of two equally long `f32` slices (a shorter one is zero-padded): component
/// `i` is accumulated in lane `i mod 8`, each lane left to right, then the lanes are
/// summed as `((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))`. Identical bits on every
/// CPU; the lane-wise loop compiles to vector instructions. Cost O(len).
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+avx"))]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; LANES];
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in ca.by_ref().zip(cb.by_ref()) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    for (l, (x, y)) in ca.remainder().iter().zip(cb.remainder()).enumerate() {
        acc[l] += x * y;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;

    #[test]
    fn rows_are_unit_and_zero_rows_have_no_vector() {
        let v = UnitVectors::from_rows(&[vec![3.0, 4.0], vec![0.0, 0.0], vec![0.0, -2.0]]).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v.unit(NodeId(0)), Some(&[0.6f32, 0.8][..]));
        assert_eq!(v.unit(NodeId(1)), None);
        assert_eq!(v.row(1), Some(&[0.0f32, 0.0][..]));
        assert_eq!(v.unit(NodeId(2)), Some(&[0.0f32, -1.0][..]));
        assert_eq!(v.unit(NodeId(3)), None);
        assert!(matches!(
            UnitVectors::from_rows(&[vec![1.0, 0.0], vec![1.0]]),
            Err(Error::DimensionMismatch {
                expected: 2,
                got: 1
            })
        ));
        assert!(matches!(
            UnitVectors::from_rows(&[vec![1.0, f64::NAN]]),
            Err(Error::NonFinite { .. })
        ));
    }

    #[test]
    fn from_index_follows_graph_symbols() {
        let mut g = Graph::new();
        let b = g.add_node(Node::new("b", "B"));
        let a = g.add_node(Node::new("a", "A"));
        let mut ix = VectorIndex::new();
        ix.upsert("a", [0.0, 2.0]).unwrap();
        ix.upsert("zzz", [1.0, 1.0]).unwrap();
        let v = UnitVectors::from_index(&g, &ix).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v.unit(a), Some(&[0.0f32, 1.0][..]));
        assert_eq!(v.unit(b), None);
    }

    #[test]
    fn dot_has_a_fixed_summation_order() {
        // 19 components: two full lane blocks and a remainder of 3
        let a: Vec<f32> = (0..19).map(|i| 1.0 / (i as f32 + 1.0)).collect();
        let b: Vec<f32> = (0..19).map(|i| (i as f32 - 9.0) * 0.37).collect();
        let mut lanes = [0.0f32; 8];
        for i in 0..19 {
            lanes[i % 8] += a[i] * b[i];
        }
        let want = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
            + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        assert_eq!(dot(&a, &b).to_bits(), want.to_bits());
        assert_eq!(dot(&a, &a[..5]), dot(&a[..5], &a[..5]));
        assert_eq!(dot(&[], &[]), 0.0);
    }
}
