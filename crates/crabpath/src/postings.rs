//! Exact top-k cosine search over mostly-zero vectors through posting lists, for a
//! long-running daemon (not in the reference).
//!
//! hash-v1 vectors (reference `crabpath/hasher.py`) are sparse: a chunk sets a few
//! hundred of 1,024 components and a short query a few dozen. [`Postings`] stores,
//! for each component, the rows where it is not zero; a query then touches only the
//! rows that share a component with it, instead of every component of every row as
//! [`VectorIndex::search`] does.
//!
//! The results are **bit-identical** to [`VectorIndex::search`]: each row's dot product
//! is still summed left to right over the components, one rounded product at a time;
//! the components skipped are those where the query or the row is exactly 0, whose
//! products are ±0.0, and adding ±0.0 never changes a sum that starts at +0.0 (in
//! round-to-nearest, `x + (−x)` is `+0.0`, so such a sum is never −0.0). Norms are the
//! same left-to-right sums, the final division is the same expression, and the ranking
//! is the same (score descending, ties in insertion order; every row no component
//! touched scores exactly 0.0). A query with a non-finite component (where `NaN · 0`
//! matters) or of another dimension is answered by [`VectorIndex::search`] itself.
//!
//! Cost: building is linear in the non-zero components; a query costs the total length
//! of its components' posting lists (plus a pass over every row when fewer than
//! `top_k` rows score above zero).

use crate::index::VectorIndex;

/// Posting lists of an index (compressed sparse columns).
#[derive(Debug, Clone, Default)]
pub struct Postings {
    dim: usize,
    ids: Vec<String>,
    norms: Vec<f64>,
    starts: Vec<usize>,
    rows: Vec<u32>,
    vals: Vec<f64>,
}

/// Reusable per-query buffers of [`Postings::search`].
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    acc: Vec<f64>,
    stamp: Vec<u32>,
    epoch: u32,
    touched: Vec<u32>,
}

/// Descending score, NaN last, `-0.0 == 0.0`; then position.
fn by_rank(a: &(f64, u32), b: &(f64, u32)) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let s = match (a.0.is_nan(), b.0.is_nan()) {
        (false, false) => b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    };
    s.then(a.1.cmp(&b.1))
}

impl Postings {
    /// The posting lists of `index`.
    ///
    /// Cost: two passes over every component; memory 12 bytes per non-zero component.
    pub fn build(index: &VectorIndex) -> Postings {
        let dim = index.dim().unwrap_or(0);
        let mut counts = vec![0usize; dim + 1];
        for (_, v) in index.iter() {
            for (j, x) in v.iter().enumerate() {
                if *x != 0.0 {
                    counts[j + 1] += 1;
                }
            }
        }
        for j in 0..dim {
            counts[j + 1] += counts[j];
        }
        let nnz = counts[dim];
        let mut next = counts.clone();
        let mut rows = vec![0u32; nnz];
        let mut vals = vec![0.0f64; nnz];
        let mut norms = Vec::with_capacity(index.len());
        let mut ids = Vec::with_capacity(index.len());
        for (r, (id, v)) in index.iter().enumerate() {
            ids.push(id.to_string());
            norms.push(v.iter().fold(0.0, |a, x| a + x * x).sqrt());
            for (j, x) in v.iter().enumerate() {
                if *x != 0.0 {
                    rows[next[j]] = r as u32;
                    vals[next[j]] = *x;
                    next[j] += 1;
                }
            }
        }
        Postings {
            dim,
            ids,
            norms,
            starts: counts,
            rows,
            vals,
        }
    }

    /// Share of non-zero components (0 for an empty index).
    pub fn density(&self) -> f64 {
        let cells = self.ids.len() * self.dim;
        if cells == 0 {
            0.0
        } else {
            self.rows.len() as f64 / cells as f64
        }
    }

    /// The same as `index.search(query, top_k)` (see the module docs); `index` must
    /// be the index this was built from. Falls back to it for queries this cannot
    /// answer exactly, and when the query's posting lists cover more than half of the
    /// index (a dense query: the brute force is as fast).
    pub fn search(
        &self,
        index: &VectorIndex,
        query: &[f64],
        top_k: usize,
        scratch: &mut Scratch,
    ) -> Vec<(String, f64)> {
        let n = self.ids.len();
        if top_k == 0 || n == 0 {
            return Vec::new();
        }
        if query.len() != self.dim || query.iter().any(|x| !x.is_finite()) {
            return index.search(query, top_k);
        }
        let work: usize = query
            .iter()
            .enumerate()
            .filter(|(_, x)| **x != 0.0)
            .map(|(j, _)| self.starts[j + 1] - self.starts[j])
            .sum();
        if work * 2 > n * self.dim {
            return index.search(query, top_k);
        }
        let qn = query.iter().fold(0.0, |a, x| a + x * x);
        let qnorm = qn.sqrt();
        let s = scratch;
        if s.acc.len() != n {
            s.acc = vec![0.0; n];
            s.stamp = vec![0; n];
            s.epoch = 0;
        }
        s.epoch = s.epoch.wrapping_add(1);
        if s.epoch == 0 {
            s.stamp.fill(0);
            s.epoch = 1;
        }
        s.touched.clear();
        let epoch = s.epoch;
        for (j, &q) in query.iter().enumerate() {
            if q == 0.0 {
                continue;
            }
            let (a, b) = (self.starts[j], self.starts[j + 1]);
            for (&r, &v) in self.rows[a..b].iter().zip(&self.vals[a..b]) {
                let r = r as usize;
                if s.stamp[r] != epoch {
                    s.stamp[r] = epoch;
                    s.acc[r] = 0.0;
                    s.touched.push(r as u32);
                }
                s.acc[r] += q * v;
            }
        }
        let score = |r: usize, dot: f64| {
            if qn == 0.0 || self.norms[r] == 0.0 {
                0.0
            } else {
                dot / (qnorm * self.norms[r])
            }
        };
        let mut positive: Vec<(f64, u32)> = s
            .touched
            .iter()
            .map(|&r| (score(r as usize, s.acc[r as usize]), r))
            .filter(|(x, _)| *x > 0.0)
            .collect();
        let take = |mut v: Vec<(f64, u32)>, k: usize| {
            if k < v.len() {
                v.select_nth_unstable_by(k - 1, by_rank);
                v.truncate(k);
            }
            v.sort_unstable_by(by_rank);
            v
        };
        let ranked: Vec<(f64, u32)> = if positive.len() >= top_k {
            take(positive, top_k)
        } else {
            // every row: the positive ones, then the zeros in order, then the negatives
            let mut rest: Vec<(f64, u32)> = (0..n)
                .map(|r| {
                    let x = if s.stamp[r] == epoch {
                        score(r, s.acc[r])
                    } else {
                        0.0
                    };
                    (x, r as u32)
                })
                .filter(|(x, _)| *x <= 0.0 || x.is_nan())
                .collect();
            positive.sort_unstable_by(by_rank);
            rest.sort_by(by_rank);
            positive.extend(rest);
            positive.truncate(top_k);
            positive
        };
        ranked
            .into_iter()
            .map(|(x, r)| (self.ids[r as usize].clone(), x))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{Embedder, HashEmbedder};

    #[test]
    fn identical_to_the_brute_force() {
        let e = HashEmbedder::new();
        let mut index = VectorIndex::new();
        let words = [
            "deploy", "rollback", "pager", "canary", "cache", "graph", "node", "edge",
        ];
        for i in 0..300 {
            let text: Vec<&str> = (0..(i % 7 + 1))
                .map(|k| words[(i * 31 + k * 7) % words.len()])
                .collect();
            index
                .upsert(&format!("n{i}"), e.embed(&text.join(" ")).unwrap())
                .unwrap();
        }
        index.upsert("zero", vec![0.0; 1024]).unwrap();
        let p = Postings::build(&index);
        assert!(p.density() < 0.2, "{}", p.density());
        let mut scratch = Scratch::default();
        for q in [
            "deploy rollback",
            "zzz",
            "",
            "cache graph node edge pager",
            "x",
        ] {
            let v = e.embed(q).unwrap();
            for k in [1, 5, 50, 400] {
                assert_eq!(
                    p.search(&index, &v, k, &mut scratch),
                    index.search(&v, k),
                    "{q} {k}"
                );
            }
        }
        // negative components, a dense query, a NaN query and another dimension
        let mut neg = e.embed("deploy").unwrap();
        neg.iter_mut().for_each(|x| *x = -*x);
        let dense = vec![0.01; 1024];
        let mut nan = e.embed("pager").unwrap();
        nan[3] = f64::NAN;
        for v in [neg, dense, nan, vec![1.0; 3]] {
            for k in [3, 301] {
                let a = p.search(&index, &v, k, &mut scratch);
                let b = index.search(&v, k);
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!(x.0, y.0);
                    assert!(x.1 == y.1 || (x.1.is_nan() && y.1.is_nan()));
                }
            }
        }
    }
}
