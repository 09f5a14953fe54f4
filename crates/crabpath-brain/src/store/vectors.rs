//! The vectors of a brain database seen through `crabpath::index::VectorStore`,
//! inside a write transaction: what the algorithms that add, replace, read or search
//! vectors (inject, merge, connect, sync) work on when the brain is a database.
//! Changes are written at once (the transaction commits or rolls them back with the
//! rest); searches see them ([`super::search::Searcher`] reads through the
//! transaction).

use std::cell::RefCell;
use std::path::PathBuf;

use crabpath::index::VectorStore;
use rusqlite::{params, OptionalExtension};

use super::codec::{decode_unit, encode_vector};
use super::search::Searcher;
use super::{Layout, Write};
use crate::error::{Error, Result};

/// [`VectorStore`] over the `vectors` table of a write transaction.
pub struct TxnVectors<'w, 'a> {
    w: &'w mut Write<'a>,
    dir: PathBuf,
    layout: Layout,
    dim: usize,
    nonce: i64,
    /// The first SQLite error of a method that cannot return one (reported by
    /// [`TxnVectors::finish`]).
    failed: RefCell<Option<Error>>,
}

impl<'w, 'a> TxnVectors<'w, 'a> {
    /// The vectors of the transaction `w` (brain directory `dir`, for the derived
    /// search index).
    pub fn new(w: &'w mut Write<'a>, dir: PathBuf, layout: Layout, dim: usize, nonce: i64) -> Self {
        TxnVectors {
            w,
            dir,
            layout,
            dim,
            nonce,
            failed: RefCell::new(None),
        }
    }

    /// The first error a read hit, if any (call after the algorithm returned).
    pub fn finish(self) -> Result<()> {
        match self.failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn note<T>(&self, r: rusqlite::Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                let mut f = self.failed.borrow_mut();
                if f.is_none() {
                    *f = Some(Error::Sqlite {
                        path: self.w.path().to_path_buf(),
                        source: e,
                    });
                }
                None
            }
        }
    }

    fn sym(&self, id: &str) -> Option<i64> {
        self.note(
            self.w
                .tx()
                .query_row("SELECT sym FROM nodes WHERE id = ?1", params![id], |r| {
                    r.get(0)
                })
                .optional(),
        )
        .flatten()
    }

    fn has_vectors(&self) -> bool {
        self.note(
            self.w
                .tx()
                .query_row("SELECT 1 FROM vectors LIMIT 1", [], |_| Ok(()))
                .optional(),
        )
        .flatten()
        .is_some()
    }
}

impl VectorStore for TxnVectors<'_, '_> {
    fn dim(&self) -> Option<usize> {
        (self.dim > 0 && self.has_vectors()).then_some(self.dim)
    }

    fn contains(&self, id: &str) -> bool {
        let Some(sym) = self.sym(id) else {
            return false;
        };
        self.note(
            self.w
                .tx()
                .query_row("SELECT 1 FROM vectors WHERE sym = ?1", params![sym], |_| {
                    Ok(())
                })
                .optional(),
        )
        .flatten()
        .is_some()
    }

    fn get(&self, id: &str) -> Option<Vec<f64>> {
        let sym = self.sym(id)?;
        let blob: Vec<u8> = self
            .note(
                self.w
                    .tx()
                    .query_row("SELECT v FROM vectors WHERE sym = ?1", params![sym], |r| {
                        r.get(0)
                    })
                    .optional(),
            )
            .flatten()?;
        decode_unit(&blob, self.layout, self.dim).map(|v| v.into_iter().map(f64::from).collect())
    }

    fn upsert(&mut self, id: &str, vector: &[f64]) -> crabpath::Result<()> {
        if let Some((i, &x)) = vector.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(crabpath::Error::NonFinite {
                what: format!("component {i} of the vector of `{id}`"),
                value: x,
            });
        }
        if self.dim == 0 {
            self.dim = vector.len();
            let r = self.w.tx().execute(
                "UPDATE brain SET dim = ?1 WHERE id = 1",
                params![self.dim as i64],
            );
            self.note(r);
        } else if vector.len() != self.dim {
            return Err(crabpath::Error::DimensionMismatch {
                expected: self.dim,
                got: vector.len(),
            });
        }
        let blob = encode_vector(vector, self.layout);
        let rev = self.w.rev;
        let sym = match self.sym(id) {
            Some(s) => s,
            None => {
                let r = self.w.tx().execute(
                    "INSERT INTO nodes(id, rev) VALUES (?1, ?2)",
                    params![id, rev],
                );
                self.note(r);
                self.w.tx().last_insert_rowid()
            }
        };
        let updated = self.note(self.w.tx().execute(
            "UPDATE vectors SET v = ?2, rev = ?3 WHERE sym = ?1",
            params![sym, blob, rev],
        ));
        if updated == Some(0) {
            let seq = self.w.next_seq();
            let r = self.w.tx().execute(
                "INSERT INTO vectors(seq, sym, v, rev) VALUES (?1, ?2, ?3, ?4)",
                params![seq, sym, blob, rev],
            );
            self.note(r);
        }
        self.w.vectors_added();
        Ok(())
    }

    fn remove(&mut self, id: &str) -> bool {
        let Some(sym) = self.sym(id) else {
            return false;
        };
        let n = self
            .note(
                self.w
                    .tx()
                    .execute("DELETE FROM vectors WHERE sym = ?1", params![sym]),
            )
            .unwrap_or(0);
        if n > 0 {
            self.w.vectors_changed();
        }
        n > 0
    }

    /// The search scores in `f32` ([`super::search`]): the query normalised and rounded
    /// to `f32` (relative error `u` = 2⁻²⁴ per component), then an `f32` sum of `dim`
    /// products of unit vectors (error at most `dim · u` times the sum of the products'
    /// magnitudes, itself at most 1), against [`crabpath::index::cosine`] in `f64` of
    /// the same stored values (whose norm is 1 within `u`): within `(dim + 3) · u`;
    /// twice that is returned.
    fn search_tolerance(&self) -> f64 {
        (self.dim as f64 + 4.0) * f64::from(f32::EPSILON)
    }

    fn search(&self, query: &[f64], top_k: usize) -> Vec<(String, f64)> {
        let Some(searcher) = self.note(Searcher::load(
            self.w.tx(),
            &self.dir,
            self.layout,
            self.dim,
            self.nonce,
        )) else {
            return Vec::new();
        };
        let hits = searcher.search(query, top_k);
        let mut out = Vec::with_capacity(hits.len());
        for (sym, score) in hits {
            let id: Option<String> = self
                .note(
                    self.w
                        .tx()
                        .query_row("SELECT id FROM nodes WHERE sym = ?1", params![sym], |r| {
                            r.get(0)
                        })
                        .optional(),
                )
                .flatten();
            if let Some(id) = id {
                out.push((id, f64::from(score)));
            }
        }
        out
    }
}
