//! Writing a whole brain database at once (`init`, `import`): into a temporary file
//! beside the target, in one transaction, then renamed over it, so that a crash at any
//! moment leaves the previous brain (or none) and never a partial one; then the
//! derived search index ([`super::search`]).
//!
//! Cost: linear in the brain; one `fsync` of the file and one of the directory.

use std::path::{Path, PathBuf};

use crabpath::graph::{Graph, Metadata, NodeId};
use pyformat::pyjson::PyDict;
use rusqlite::params;

use super::codec::encode_meta;
use super::search::postings_from_db;
use super::{sql_error, Clock, Layout, Store};
use crate::error::{io_error, Result};

/// One vector to store: its node id and its blob ([`super::codec::encode_vector`]).
pub struct VectorRow {
    /// The node id.
    pub id: String,
    /// The encoded unit vector.
    pub blob: Vec<u8>,
}

/// What to write.
pub struct Contents<'a> {
    /// The graph.
    pub graph: &'a Graph,
    /// The vectors, in index order.
    pub vectors: Vec<VectorRow>,
    /// Their dimension.
    pub dim: usize,
    /// Their layout.
    pub layout: Layout,
    /// The `meta` object.
    pub meta: &'a Metadata,
    /// Journal entries (their JSON lines) to start with.
    pub journal: Vec<String>,
}

fn temp_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    PathBuf::from(name)
}

fn wal_files(db: &Path) -> [PathBuf; 2] {
    let with = |suffix: &str| {
        let mut s = db.as_os_str().to_os_string();
        s.push(suffix);
        PathBuf::from(s)
    };
    [with("-wal"), with("-shm")]
}

/// Writes `contents` as the brain database `target` (replacing one that exists; see
/// the module docs). Returns the number of vectors indexed by the derived index.
pub fn write_brain(target: &Path, mut contents: Contents<'_>) -> Result<usize> {
    let tmp = temp_path(target);
    for p in std::iter::once(tmp.clone()).chain(wal_files(&tmp)) {
        let _ = std::fs::remove_file(p);
    }
    let result = fill(&tmp, &mut contents);
    let index_bytes = match result {
        Ok(x) => x,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    // the old database's write-ahead log must not meet the new file: empty it into
    // the old file first, then remove it (a crash in between leaves the old brain)
    if target.exists() {
        if let Ok(old) = rusqlite::Connection::open(target) {
            let _ = old.busy_timeout(super::BUSY_TIMEOUT);
            let _ = old.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
            let _ = old.close();
        }
    }
    for p in wal_files(target) {
        let _ = std::fs::remove_file(p);
    }
    std::fs::rename(&tmp, target).map_err(|e| io_error(target, e))?;
    if let Some(dir) = target.parent() {
        if let Ok(d) = std::fs::File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        }) {
            let _ = d.sync_all();
        }
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let index = super::search::index_path(&dir);
    match index_bytes {
        Some((bytes, rows)) => {
            pyformat::io::write_atomic(&index, &bytes)?;
            Ok(rows)
        }
        None => {
            let _ = std::fs::remove_file(&index);
            Ok(0)
        }
    }
}

/// Writes the database; `c.vectors` are consumed (each blob is freed once stored).
/// Returns the bytes of a sparse brain's derived index and its number of rows, read
/// back from the written database in two passes ([`postings_from_db`]): decoding the
/// vectors here as index rows held them all (8 bytes per non-zero component) beside
/// the index's bytes (8 more) at `init`'s peak.
fn fill(tmp: &Path, c: &mut Contents<'_>) -> Result<Option<(Vec<u8>, usize)>> {
    let mut store = Store::create(tmp, c.layout, c.dim)?;
    let nonce = store.nonce();
    let err = sql_error(tmp);
    let g = c.graph;
    let mut seq: i64 = 0;
    let mut next = || {
        seq += 1;
        seq
    };
    let rev: i64 = 1;
    let tx = store.conn.transaction().map_err(&err)?;
    // symbols: nodes in node order, then endpoints without a node, then vector ids
    // without a node
    let mut sym_of: Vec<i64> = vec![-1; g.symbol_count()];
    let mut by_id: rustc_hash::FxHashMap<&str, i64> = rustc_hash::FxHashMap::default();
    let mut next_sym: i64 = 0;
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO nodes(sym, id, node_seq, bucket_seq, content, summary, metadata, file, rev) VALUES (?1, ?2, ?3, NULL, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(&err)?;
        for (n, node) in g.nodes() {
            next_sym += 1;
            let q = next();
            ins.execute(params![
                next_sym,
                node.id,
                q,
                node.content,
                node.summary,
                encode_meta(&node.metadata),
                node.file(),
                rev
            ])
            .map_err(&err)?;
            sym_of[n.index()] = next_sym;
            by_id.insert(node.id.as_str(), next_sym);
        }
        let mut bare = tx
            .prepare("INSERT INTO nodes(sym, id, rev) VALUES (?1, ?2, ?3)")
            .map_err(&err)?;
        let mut ensure = |n: NodeId, sym_of: &mut Vec<i64>, next_sym: &mut i64| -> Result<i64> {
            if sym_of[n.index()] < 0 {
                *next_sym += 1;
                bare.execute(params![*next_sym, g.name(n), rev])
                    .map_err(&err)?;
                sym_of[n.index()] = *next_sym;
            }
            Ok(sym_of[n.index()])
        };
        let mut edge = tx
            .prepare(
                "INSERT INTO edges(src, tgt, seq, weight, kind, metadata, rev) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .map_err(&err)?;
        let mut bucket = tx
            .prepare("UPDATE nodes SET bucket_seq = ?2 WHERE sym = ?1")
            .map_err(&err)?;
        for s in g.sources().collect::<Vec<_>>() {
            let src = ensure(s, &mut sym_of, &mut next_sym)?;
            let q = next();
            bucket.execute(params![src, q]).map_err(&err)?;
            let Some(b) = g.bucket(s) else { continue };
            for (&t, e) in b.iter() {
                let tgt = ensure(t, &mut sym_of, &mut next_sym)?;
                let q = next();
                edge.execute(params![
                    src,
                    tgt,
                    q,
                    e.weight,
                    e.kind.as_str(),
                    encode_meta(&e.metadata.to_map()),
                    rev
                ])
                .map_err(&err)?;
            }
        }
        for (n, _) in g.nodes() {
            by_id.entry(g.name(n)).or_insert(sym_of[n.index()]);
        }
        for (i, s) in sym_of.iter().enumerate() {
            if *s >= 0 {
                by_id.entry(g.name(NodeId(i as u32))).or_insert(*s);
            }
        }
    }
    {
        let mut bare = tx
            .prepare("INSERT INTO nodes(sym, id, rev) VALUES (?1, ?2, ?3)")
            .map_err(&err)?;
        let mut ins = tx
            .prepare("INSERT INTO vectors(seq, sym, v, rev) VALUES (?1, ?2, ?3, ?4)")
            .map_err(&err)?;
        for v in std::mem::take(&mut c.vectors) {
            let sym = match by_id.get(v.id.as_str()) {
                Some(&s) => s,
                None => {
                    next_sym += 1;
                    bare.execute(params![next_sym, v.id, rev]).map_err(&err)?;
                    next_sym
                }
            };
            let q = next();
            ins.execute(params![q, sym, v.blob, rev]).map_err(&err)?;
        }
    }
    super::rows::write_meta(&tx, c.meta).map_err(&err)?;
    {
        let mut ins = tx
            .prepare("INSERT INTO journal(entry) VALUES (?1)")
            .map_err(&err)?;
        for line in &c.journal {
            ins.execute(params![line]).map_err(&err)?;
        }
    }
    let clock = Clock {
        rev,
        seq,
        structure: 0,
        vectors: 0,
    };
    tx.execute(
        "UPDATE brain SET rev = ?1, seq = ?2, nodes = ?3 WHERE id = 1",
        params![clock.rev, clock.seq, g.node_count() as i64],
    )
    .map_err(&err)?;
    tx.commit().map_err(&err)?;
    let index = match c.layout {
        // nothing writes the new file but this function: the two passes read the same rows
        Layout::Sparse => Some(postings_from_db(&store.conn, c.dim, nonce, clock).map_err(&err)?),
        Layout::Dense => None,
    };
    store.finish_bulk()?;
    Ok(index)
}

/// The journal lines of entries (for [`Contents::journal`]).
pub fn journal_lines(entries: &[PyDict]) -> Result<Vec<String>> {
    entries.iter().map(super::rows::journal_text).collect()
}
