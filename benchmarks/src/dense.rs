//! The dense (cosine) search step of a run, on one of two arithmetic paths.
//!
//! * [`DenseSearch::F64Exact`]: [`CosineIndex`], the reference's `VectorIndex.search` bit for
//!   bit (reference `crabpath/index.py::VectorIndex.search`, commit 134c676), one `f64` dot
//!   product at a time. With hash-v1 and the paper protocol this reproduces the reference's
//!   rankings exactly, so that is where it is used by default.
//! * [`DenseSearch::F32Tiled`]: [`crabpath::search_f32::search_batch`], the same exact cosine
//!   top-k over unit `f32` vectors by tiled matrix products — tens of times faster, and the
//!   same bytes for any number of threads and on any machine (a fixed order of `f32` operations). `f32` rounding can swap two results whose `f64`
//!   cosines differ by less than about 1e-6 (`BENCHMARKS.md`, "Dense search: f64 vs f32",
//!   counts the swaps over the committed runs). Every other run uses it by default.
//!
//! A hit's score is the cosine, as `f64` on both paths (the `f32` cosine widened exactly),
//! so everything downstream (seed activations, ties by node order) reads the same type.

use clap::ValueEnum;
use crabpath::vectors::UnitVectors;

use crate::error::{Error, Result};
use crate::retrieval::CosineIndex;

/// The first hits of every query, `(node, cosine)` best first, in query order.
pub type Hits = Vec<Vec<(usize, f64)>>;

/// `--dense-search`: which arithmetic the cosine search uses (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DenseSearchArg {
    /// f64-exact for `--protocol paper` with hash-v1 (the reference reproduction), f32-tiled
    /// for every other run.
    Auto,
    /// The reference's f64 cosine, one dot product at a time (bit-exact, slow).
    #[value(name = "f64-exact")]
    F64Exact,
    /// Unit f32 vectors and tiled matrix products (exact top-k up to f32 rounding; fast).
    #[value(name = "f32-tiled")]
    F32Tiled,
}

/// The resolved dense-search path of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenseSearch {
    /// [`CosineIndex`] in `f64`.
    F64Exact,
    /// [`crabpath::search_f32::search_batch`] in `f32`.
    F32Tiled,
}

impl DenseSearch {
    /// `f64-exact` / `f32-tiled` (the report's `configuration.dense_search`).
    pub fn as_str(self) -> &'static str {
        match self {
            DenseSearch::F64Exact => "f64-exact",
            DenseSearch::F32Tiled => "f32-tiled",
        }
    }

    /// `arg` resolved for a run: `auto` is f64-exact exactly when `reference_bits` (the
    /// paper protocol with hash-v1).
    pub fn resolve(arg: DenseSearchArg, reference_bits: bool) -> DenseSearch {
        match arg {
            DenseSearchArg::F64Exact => DenseSearch::F64Exact,
            DenseSearchArg::F32Tiled => DenseSearch::F32Tiled,
            DenseSearchArg::Auto if reference_bits => DenseSearch::F64Exact,
            DenseSearchArg::Auto => DenseSearch::F32Tiled,
        }
    }
}

/// The node vectors of a run, ready for one of the two search paths.
#[derive(Debug, Clone)]
pub enum DenseIndex {
    /// The reference's f64 index.
    F64(CosineIndex),
    /// Unit f32 rows in node order.
    F32(UnitVectors),
}

impl DenseIndex {
    /// Indexes one vector per node, in node order; every vector must have `dim` finite
    /// components.
    pub fn new(path: DenseSearch, vectors: &[Vec<f64>], dim: usize) -> Result<Self> {
        match path {
            DenseSearch::F64Exact => Ok(DenseIndex::F64(CosineIndex::new(vectors, dim)?)),
            DenseSearch::F32Tiled => Ok(DenseIndex::F32(unit_rows(vectors, dim, "node")?)),
        }
    }

    /// Which path.
    pub fn path(&self) -> DenseSearch {
        match self {
            DenseIndex::F64(_) => DenseSearch::F64Exact,
            DenseIndex::F32(_) => DenseSearch::F32Tiled,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        match self {
            DenseIndex::F64(ix) => ix.len(),
            DenseIndex::F32(u) => u.len(),
        }
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `k` best `(node, cosine)` of every query, best first, ties by node order, in
    /// query order. Cost: O(queries · nodes · dim).
    pub fn search_all(&self, queries: &[Vec<f64>], k: usize) -> Result<Hits> {
        match self {
            DenseIndex::F64(ix) => Ok(ix.search_all(queries, k)),
            DenseIndex::F32(nodes) => {
                let dim = nodes.dim();
                let q = unit_rows(queries, dim, "query")?;
                search_f32(nodes, &q, k)
            }
        }
    }

    /// The `k` best `(node, cosine)` of every node's own vector as the query (kNN graphs),
    /// in node order. Cost: O(nodes² · dim).
    pub fn search_nodes(&self, k: usize) -> Result<Hits> {
        match self {
            DenseIndex::F64(ix) => {
                use rayon::prelude::*;
                Ok((0..ix.len())
                    .into_par_iter()
                    .map(|d| ix.search_node(d, k))
                    .collect())
            }
            DenseIndex::F32(nodes) => search_f32(nodes, nodes, k),
        }
    }
}

/// Unit f32 rows of `vectors` (each of dimension `dim`; `what` names a row in errors).
fn unit_rows(vectors: &[Vec<f64>], dim: usize, what: &str) -> Result<UnitVectors> {
    let mut out = UnitVectors::with_dim(dim);
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != dim {
            return Err(Error::Internal(format!(
                "embedding of {what} {i} has dimension {}, expected {dim}",
                v.len()
            )));
        }
        out.push(v)
            .map_err(|e| Error::core(format!("normalising the embedding of {what} {i}"), e))?;
    }
    Ok(out)
}

fn search_f32(
    nodes: &UnitVectors,
    queries: &UnitVectors,
    k: usize,
) -> Result<Vec<Vec<(usize, f64)>>> {
    let hits = crabpath::search_f32::search_batch(nodes, queries, k)
        .map_err(|e| Error::core("f32 cosine search", e))?;
    Ok(hits
        .into_iter()
        .map(|h| h.into_iter().map(|(d, s)| (d, f64::from(s))).collect())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_keeps_f64_for_the_reference_reproduction_only() {
        use DenseSearchArg as A;
        assert_eq!(DenseSearch::resolve(A::Auto, true), DenseSearch::F64Exact);
        assert_eq!(DenseSearch::resolve(A::Auto, false), DenseSearch::F32Tiled);
        assert_eq!(
            DenseSearch::resolve(A::F32Tiled, true),
            DenseSearch::F32Tiled
        );
        assert_eq!(
            DenseSearch::resolve(A::F64Exact, false),
            DenseSearch::F64Exact
        );
    }

    /// Both paths rank a small corpus the same way (ties by node order, zero vectors score
    /// 0), and their scores agree to f32 precision.
    #[test]
    fn both_paths_agree_on_a_small_corpus() {
        let docs = vec![
            vec![1.0, 2.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![-1.0, 0.5, 3.0],
            vec![2.0, 4.0, 0.0],
            vec![0.5, -1.0, 0.25],
        ];
        let qs = vec![vec![0.3, 0.0, -0.7], vec![1.0, 2.0, 0.0], vec![0.0; 3]];
        let f64ix = DenseIndex::new(DenseSearch::F64Exact, &docs, 3).unwrap();
        let f32ix = DenseIndex::new(DenseSearch::F32Tiled, &docs, 3).unwrap();
        assert_eq!(f32ix.path(), DenseSearch::F32Tiled);
        assert_eq!(f32ix.len(), 5);
        for (a, b) in [
            (
                f64ix.search_all(&qs, 5).unwrap(),
                f32ix.search_all(&qs, 5).unwrap(),
            ),
            (
                f64ix.search_nodes(3).unwrap(),
                f32ix.search_nodes(3).unwrap(),
            ),
        ] {
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                let ids = |h: &[(usize, f64)]| h.iter().map(|p| p.0).collect::<Vec<_>>();
                assert_eq!(ids(x), ids(y));
                for (p, q) in x.iter().zip(y) {
                    assert!((p.1 - q.1).abs() < 1e-6, "{p:?} vs {q:?}");
                }
            }
        }
        // parallel nodes 0 and 3 tie: node order on both paths
        let hits = f32ix.search_all(&qs[1..2], 2).unwrap();
        assert_eq!(hits[0].iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 3]);
        assert!(DenseIndex::new(DenseSearch::F32Tiled, &docs, 2).is_err());
        assert!(f32ix.search_all(&[vec![1.0, 2.0]], 2).is_err());
        assert!(DenseIndex::new(DenseSearch::F32Tiled, &[vec![f64::NAN, 0.0]], 2).is_err());
    }
}
