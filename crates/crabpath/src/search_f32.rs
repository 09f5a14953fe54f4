//! Exact cosine top-k in `f32` by tiled dot products, for the runs that do not need the
//! reference's bits.
//!
//! [`crate::index::VectorIndex::search`] reproduces the reference's `VectorIndex.search`
//! (reference `crabpath/index.py`, commit 134c676) bit for bit in `f64`, one dot product at
//! a time; the `paper` protocol with hash-v1 needs exactly that. Every other run can score
//! in `f32`: vectors are normalised once ([`UnitVectors`]), so a cosine is a dot product
//! and a batch of queries against the corpus is the matrix product `Q · Dᵀ`.
//!
//! # Determinism
//! Every score is [`dot`]: one fixed order of `f32` multiplies and adds (8 lanes, a fixed
//! pairwise reduction, no fused multiply-add), so a score is the same bits whatever the
//! thread count, the batch a query is in, the tile it falls in, and the machine. (An
//! earlier version called the `gemm` crate, whose blocking of the inner dimension follows
//! the CPU's detected cache sizes: its last bits, and the heuristic rule's threshold
//! crossings downstream, differed between two machines of the same kind.) The product is
//! computed in tiles of [`QUERY_TILE`] queries × [`DOC_TILE`] stored vectors for cache
//! reuse; tiles are spread over the rayon pool, and each query keeps the exact top k of its
//! scores under the strict order (score descending, position ascending).
//!
//! # Agreement with the `f64` path
//! `f32` rounding (relative error about 1e-7 per component, a few 1e-7 for a 384-term
//! dot product) can swap two results whose `f64` cosines differ by less than about 1e-6;
//! the ranking is otherwise the `f64` one (ties by position in both). The tests check
//! exactly that against [`crate::index::VectorIndex`].

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::vectors::UnitVectors;

/// Queries per tile.
pub const QUERY_TILE: usize = 128;
/// Stored vectors per tile (256 × 384 `f32` = 384 KiB, kept in L2 while a query tile
/// passes over them).
pub const DOC_TILE: usize = 256;

/// The `top_k` stored rows most similar to each query row, as (row, cosine), best
/// first, ties by row. `queries` must have the corpus dimension
/// (`Error::DimensionMismatch`); a row without a vector (zero) scores 0 against
/// everything, as in the reference. `top_k = 0` gives empty lists. Cost:
/// O(queries · rows · dim) flops in tiles, O(queries · rows) comparisons.
pub fn search_batch(
    corpus: &UnitVectors,
    queries: &UnitVectors,
    top_k: usize,
) -> Result<Vec<Vec<(usize, f32)>>> {
    if queries.dim() != corpus.dim() && !queries.is_empty() && !corpus.is_empty() {
        return Err(Error::DimensionMismatch {
            expected: corpus.dim(),
            got: queries.dim(),
        });
    }
    let nq = queries.len();
    if top_k == 0 || corpus.is_empty() || corpus.dim() == 0 {
        return Ok(vec![Vec::new(); nq]);
    }
    let tiles: Vec<Vec<Vec<(usize, f32)>>> = (0..nq.div_ceil(QUERY_TILE))
        .into_par_iter()
        .map(|t| {
            let rows = t * QUERY_TILE..((t + 1) * QUERY_TILE).min(nq);
            search_tile(corpus, queries, rows, top_k)
        })
        .collect();
    Ok(tiles.into_iter().flatten().collect())
}

/// Top-k of the query rows `rows` against the whole corpus, one doc tile at a time.
fn search_tile(
    corpus: &UnitVectors,
    queries: &UnitVectors,
    rows: std::ops::Range<usize>,
    top_k: usize,
) -> Vec<Vec<(usize, f32)>> {
    let dim = corpus.dim();
    let m = rows.len();
    let q = &queries.as_flat()[rows.start * dim..rows.end * dim];
    let docs = corpus.as_flat();
    let n_docs = corpus.len();
    let mut tops: Vec<TopK> = (0..m).map(|_| TopK::new(top_k)).collect();
    let mut scores = vec![0.0f32; m * DOC_TILE.min(n_docs)];
    for d0 in (0..n_docs).step_by(DOC_TILE) {
        let n = DOC_TILE.min(n_docs - d0);
        let dst = &mut scores[..m * n];
        product_transposed(dst, q, &docs[d0 * dim..(d0 + n) * dim], m, n, dim);
        for (top, row) in tops.iter_mut().zip(dst.chunks_exact(n)) {
            for (j, &s) in row.iter().enumerate() {
                top.offer(s, (d0 + j) as u32);
            }
        }
    }
    tops.into_iter().map(TopK::into_sorted).collect()
}

/// `dst (m × n, row-major) = a (m × k, row-major) · bᵀ` with `b` (n × k, row-major): every
/// entry is [`dot`] of its two rows (computed 2 queries × 4 vectors at a time, which shares
/// the loads but not the sums), so each is the same number whatever the shapes around it.
fn product_transposed(dst: &mut [f32], a: &[f32], b: &[f32], m: usize, n: usize, k: usize) {
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the only feature the function enables.
        unsafe { product_avx2(dst, a, b, m, n, k) };
        return;
    }
    product_portable(dst, a, b, m, n, k);
}

/// [`product_portable`] compiled with AVX2 enabled (wider registers, the same operations in
/// the same order: no fused multiply-add, so the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn product_avx2(dst: &mut [f32], a: &[f32], b: &[f32], m: usize, n: usize, k: usize) {
    product_portable(dst, a, b, m, n, k);
}

#[inline(always)]
fn product_portable(dst: &mut [f32], a: &[f32], b: &[f32], m: usize, n: usize, k: usize) {
    let full_k = k - k % LANES;
    let mut i = 0;
    while i < m {
        let rows_here = if i + 1 < m { 2 } else { 1 };
        let mut j = 0;
        while j < n {
            let cols_here = (n - j).min(4);
            let mut acc = [[[0.0f32; LANES]; 4]; 2];
            for r in 0..rows_here {
                let q = &a[(i + r) * k..(i + r) * k + full_k];
                for (c, accs) in acc[r].iter_mut().enumerate().take(cols_here) {
                    let d = &b[(j + c) * k..(j + c) * k + full_k];
                    for (x, y) in q.chunks_exact(LANES).zip(d.chunks_exact(LANES)) {
                        for l in 0..LANES {
                            accs[l] += x[l] * y[l];
                        }
                    }
                }
            }
            for r in 0..rows_here {
                let q = &a[(i + r) * k..(i + r + 1) * k];
                for c in 0..cols_here {
                    let d = &b[(j + c) * k..(j + c + 1) * k];
                    dst[(i + r) * n + j + c] = finish(&mut acc[r][c], &q[full_k..], &d[full_k..]);
                }
            }
            j += cols_here;
        }
        i += rows_here;
    }
}

/// Lanes of [`dot`]'s accumulator.
const LANES: usize = 8;

/// Adds the tail components (fewer than [`LANES`]) into their lanes, then sums the lanes
/// pairwise (4 + 4, 2 + 2, 1 + 1).
#[inline(always)]
fn finish(acc: &mut [f32; LANES], ta: &[f32], tb: &[f32]) -> f32 {
    for (l, (x, y)) in ta.iter().zip(tb).enumerate() {
        acc[l] += x * y;
    }
    let mut width = LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] += acc[l + width];
        }
        width /= 2;
    }
    acc[0]
}

/// The dot product in one fixed order: component `i` is added into lane `i mod 8` (a
/// separate multiply and add, never fused), then the lanes are summed pairwise (4 + 4,
/// 2 + 2, 1 + 1). IEEE-754 `f32` arithmetic in a fixed order gives the same bits on every
/// machine; the 8 independent lanes let the compiler use SIMD registers (SSE or AVX)
/// without changing that order. Cost: O(k).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let k = a.len().min(b.len());
    let full_k = k - k % LANES;
    let mut acc = [0.0f32; LANES];
    for (x, y) in a[..full_k]
        .chunks_exact(LANES)
        .zip(b[..full_k].chunks_exact(LANES))
    {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    finish(&mut acc, &a[full_k..k], &b[full_k..k])
}

/// The best `k` of a stream of (score, row) under (score desc, row asc), kept in a buffer
/// of up to 2k entries that is cut back to k when full.
struct TopK {
    k: usize,
    buf: Vec<(f32, u32)>,
    /// The k-th best at the last cut: anything not better cannot enter.
    floor: Option<(f32, u32)>,
}

/// Strict order: higher score first, then lower row (scores are finite).
#[inline]
fn better(a: (f32, u32), b: (f32, u32)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
}

fn order(a: &(f32, u32), b: &(f32, u32)) -> std::cmp::Ordering {
    if better(*a, *b) {
        std::cmp::Ordering::Less
    } else if better(*b, *a) {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

impl TopK {
    fn new(k: usize) -> Self {
        TopK {
            k,
            buf: Vec::with_capacity(2 * k.min(1 << 16)),
            floor: None,
        }
    }

    #[inline]
    fn offer(&mut self, score: f32, row: u32) {
        if self.floor.is_some_and(|f| !better((score, row), f)) {
            return;
        }
        self.buf.push((score, row));
        if self.buf.len() >= 2 * self.k {
            self.cut();
        }
    }

    fn cut(&mut self) {
        if self.buf.len() > self.k {
            self.buf.select_nth_unstable_by(self.k - 1, order);
            self.buf.truncate(self.k);
            self.floor = Some(self.buf[self.k - 1]);
        }
    }

    fn into_sorted(mut self) -> Vec<(usize, f32)> {
        self.cut();
        self.buf.sort_unstable_by(order);
        self.buf.iter().map(|&(s, r)| (r as usize, s)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::VectorIndex;
    use crate::synth::SplitMix64;

    fn rows(n: usize, dim: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| (0..dim).map(|_| rng.next_f64() - 0.5).collect())
            .collect()
    }

    /// Rank flips against the f64 reference arithmetic are allowed only between results
    /// whose f64 cosines are within 1e-5; the f32 scores are within 1e-5 of the f64 ones.
    #[test]
    fn same_top_k_as_the_f64_index_up_to_rounding() {
        // 2 doc tiles and a partial one; 2 query tiles and a partial one
        let (n, nq, dim) = (2 * DOC_TILE + 77, 2 * QUERY_TILE + 5, 48);
        let docs = rows(n, dim, 1);
        let mut qs = rows(nq, dim, 2);
        qs[3] = vec![0.0; dim];
        let corpus = UnitVectors::from_rows(&docs).unwrap();
        let queries = UnitVectors::from_rows(&qs).unwrap();
        let mut ix = VectorIndex::new();
        for (i, d) in docs.iter().enumerate() {
            ix.upsert(&i.to_string(), d).unwrap();
        }
        let k = 10;
        let got = search_batch(&corpus, &queries, k).unwrap();
        assert_eq!(got.len(), nq);
        let mut flips = 0;
        for (qi, (q, hits)) in qs.iter().zip(&got).enumerate() {
            let want = ix.search(q, n);
            let f64_of: std::collections::HashMap<usize, f64> = want
                .iter()
                .map(|(id, s)| (id.parse().unwrap(), *s))
                .collect();
            assert_eq!(hits.len(), k);
            for (r, &(row, s)) in hits.iter().enumerate() {
                let exact = f64_of[&row];
                assert!((f64::from(s) - exact).abs() < 1e-5, "q{qi}: {s} vs {exact}");
                let want_row: usize = want[r].0.parse().unwrap();
                if want_row != row {
                    flips += 1;
                    assert!((want[r].1 - exact).abs() < 1e-5, "q{qi} rank {r}");
                }
            }
            if qi == 3 {
                // the zero query scores 0 everywhere: the first k rows, in order
                assert_eq!(
                    hits.iter().map(|h| h.0).collect::<Vec<_>>(),
                    (0..k).collect::<Vec<_>>()
                );
            }
        }
        eprintln!("f32 vs f64: {flips} rank flips in {nq} queries × top {k}");
        assert!(flips < nq, "rank flips are rare: {flips}");
    }

    #[test]
    fn same_results_for_any_thread_count_and_run() {
        let corpus = UnitVectors::from_rows(&rows(DOC_TILE + 300, 64, 3)).unwrap();
        let queries = UnitVectors::from_rows(&rows(3 * QUERY_TILE + 9, 64, 4)).unwrap();
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| search_batch(&corpus, &queries, 25).unwrap())
        };
        let bits = |r: Vec<Vec<(usize, f32)>>| {
            r.into_iter()
                .map(|h| {
                    h.into_iter()
                        .map(|(i, s)| (i, s.to_bits()))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let one = bits(run(1));
        for threads in [2, 4, 1, 4] {
            assert_eq!(bits(run(threads)), one, "{threads} threads");
        }
    }

    /// The fixed order, re-derived by hand: lane l sums components l, l + 8, … in turn,
    /// then the lanes are folded 4 + 4, 2 + 2, 1 + 1. Any other order (a plain left
    /// fold, a fused multiply-add) gives other bits on these inputs.
    #[test]
    fn dot_is_one_fixed_order() {
        // 1e8 + 1 rounds back to 1e8 in f32: a left fold loses the 1 that the lanes keep
        let mut a: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).cos()).collect();
        a[..4].copy_from_slice(&[1e8, 1.0, -1e8, 1.0]);
        let b = vec![1.0f32; 37];
        let mut lanes = [0.0f32; 8];
        for i in 0..37 {
            lanes[i % 8] += a[i] * b[i];
        }
        for w in [4, 2, 1] {
            for l in 0..w {
                lanes[l] += lanes[l + w];
            }
        }
        assert_eq!(dot(&a, &b).to_bits(), lanes[0].to_bits());
        let fold = a.iter().zip(&b).fold(0.0f32, |s, (x, y)| s + x * y);
        assert_ne!(
            fold.to_bits(),
            lanes[0].to_bits(),
            "inputs that tell the orders apart"
        );
    }

    /// Every entry of the blocked product (2 × 4 blocks, ragged edges, tails shorter than
    /// a lane group) is exactly [`dot`] of its rows.
    #[test]
    fn blocked_product_is_dot_everywhere() {
        let (m, n, k) = (5, 11, 21);
        let a: Vec<f32> = rows(m, k, 9).concat().iter().map(|&x| x as f32).collect();
        let b: Vec<f32> = rows(n, k, 10).concat().iter().map(|&x| x as f32).collect();
        let mut dst = vec![0.0f32; m * n];
        product_transposed(&mut dst, &a, &b, m, n, k);
        let mut portable = vec![0.0f32; m * n];
        product_portable(&mut portable, &a, &b, m, n, k);
        for i in 0..m {
            for j in 0..n {
                let want = dot(&a[i * k..(i + 1) * k], &b[j * k..(j + 1) * k]).to_bits();
                assert_eq!(dst[i * n + j].to_bits(), want, "({i}, {j})");
                assert_eq!(portable[i * n + j].to_bits(), want, "portable ({i}, {j})");
            }
        }
    }

    /// A query's scores do not depend on the batch it is searched in.
    #[test]
    fn same_scores_alone_and_in_a_batch() {
        let corpus = UnitVectors::from_rows(&rows(DOC_TILE + 31, 40, 7)).unwrap();
        let qs = rows(QUERY_TILE + 3, 40, 8);
        let batch = search_batch(&corpus, &UnitVectors::from_rows(&qs).unwrap(), 12).unwrap();
        for i in [0, 5, QUERY_TILE + 2] {
            let alone = UnitVectors::from_rows(&qs[i..=i]).unwrap();
            let one = search_batch(&corpus, &alone, 12).unwrap();
            let bits =
                |h: &[(usize, f32)]| h.iter().map(|&(r, s)| (r, s.to_bits())).collect::<Vec<_>>();
            assert_eq!(bits(&one[0]), bits(&batch[i]), "query {i}");
        }
    }

    #[test]
    fn edge_cases() {
        let corpus = UnitVectors::from_rows(&rows(5, 8, 5)).unwrap();
        let queries = UnitVectors::from_rows(&rows(2, 8, 6)).unwrap();
        assert_eq!(search_batch(&corpus, &queries, 0).unwrap(), vec![vec![]; 2]);
        let all = search_batch(&corpus, &queries, 100).unwrap();
        assert!(all.iter().all(|h| h.len() == 5));
        let other = UnitVectors::from_rows(&rows(2, 7, 6)).unwrap();
        assert!(matches!(
            search_batch(&corpus, &other, 3),
            Err(Error::DimensionMismatch {
                expected: 8,
                got: 7
            })
        ));
        let empty = UnitVectors::with_dim(8);
        assert_eq!(search_batch(&empty, &queries, 3).unwrap(), vec![vec![]; 2]);
        assert!(search_batch(&corpus, &empty, 3).unwrap().is_empty());
    }
}
