//! `reembed`: an existing brain database changes embedder and keeps what it learned
//! (issue 28, item 7; seed 003 §6.3, embedding drift: "periodic rebuild" of the
//! vectors without losing the graph).
//!
//! Every vector is embedded again from its node's text (`nodes.content`, the text
//! `init`, `sync` and `inject` embed) with the new embedder. Nodes, edges and their
//! learned weights, the journal, the conversation log (`turns`) and the ledger are not
//! touched.
//!
//! **In place and resumable.** The new vectors are written batch by batch into a side
//! table, `reembed_progress`, one transaction per batch, each row saying which embedder
//! made it and which version of the node's vector (`vectors.rev`) it replaces:
//!
//! | column | meaning |
//! |---|---|
//! | `sym` | the node (as in `vectors`) |
//! | `vrev` | the `rev` of the vector row it replaces (a row rewritten since, e.g. by `sync`, is embedded again) |
//! | `embedder`, `dim` | the embedder that made it ([`EmbedderInfo`]) |
//! | `v` | the new vector, encoded in the new embedder's layout ([`crate::store::codec`]) |
//!
//! Until every vector has its new row, the brain answers with its old embedder: the
//! side table is invisible to every other reader and writer. Then **one** write
//! transaction swaps them in: the `vectors` rows (same `seq` and `sym`, new blob), the
//! `brain` row's `layout` and `dim`, the embedder recorded in `meta`
//! ([`EmbedderInfo::to_meta`]), a new vector epoch (`brain.vectors`, so that the derived
//! search index and resident brains rebuild and reload), and the side table dropped.
//! A `kill -9` at any moment therefore leaves the old brain or the new one, never a
//! mix. A rerun of the same command finds the rows already made and embeds only the
//! rest; a rerun with another embedder drops them and starts over. The side table is
//! made on demand (not part of [`crate::store::schema`]), and `doctor` reports an
//! unfinished one ([`pending`]). Once swapped, the file is compacted (`compact`) and
//! the derived search index rebuilt.

use std::path::Path;
use std::time::Instant;

use crabpath::embed::Embedder;
use rusqlite::{params, Connection, Transaction, TransactionBehavior};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::reference::embedder::EmbedderInfo;
use crate::store::codec::encode_vector;
use crate::store::{layout_for, sql_error, Store};

/// The side table holding the new vectors of an unfinished reembed.
pub const PROGRESS_TABLE: &str = "reembed_progress";

/// Texts embedded (and committed) per batch unless told otherwise: `init`'s batch.
pub const DEFAULT_BATCH: usize = 256;

const CREATE_PROGRESS: &str = "CREATE TABLE IF NOT EXISTS reembed_progress(
    sym INTEGER PRIMARY KEY,
    vrev INTEGER NOT NULL,
    embedder TEXT NOT NULL,
    dim INTEGER NOT NULL,
    v BLOB NOT NULL
)";

/// The vector rows that still need a new vector (no row of the target embedder made
/// from their current version), after position `?1`, in index order, at most `?4`.
const TODO: &str = "SELECT v.sym, v.rev, v.seq, COALESCE(n.content, ''), COALESCE(n.id, '#' || v.sym), json_extract(n.metadata, '$.doc') FROM vectors v
    LEFT JOIN nodes n ON n.sym = v.sym
    WHERE v.seq > ?1 AND NOT EXISTS (SELECT 1 FROM reembed_progress p
        WHERE p.sym = v.sym AND p.vrev = v.rev AND p.embedder = ?2 AND p.dim = ?3)
    ORDER BY v.seq LIMIT ?4";

/// [`TODO`] before the side table exists: every vector row.
const TODO_ALL: &str = "SELECT v.sym, v.rev, v.seq, COALESCE(n.content, ''), COALESCE(n.id, '#' || v.sym), json_extract(n.metadata, '$.doc') FROM vectors v
    LEFT JOIN nodes n ON n.sym = v.sym
    WHERE v.seq > ?1 AND ?2 IS NOT NULL AND ?3 IS NOT NULL
    ORDER BY v.seq LIMIT ?4";

/// The rows of the side table that still apply (their vector row is the version they
/// were made from), for the target embedder `?1`, `?2`.
const VALID: &str = "SELECT COUNT(*) FROM reembed_progress p JOIN vectors v
    ON v.sym = p.sym AND v.rev = p.vrev WHERE p.embedder = ?1 AND p.dim = ?2";

/// How to reembed.
pub struct ReembedOptions<'a> {
    /// The new embedder.
    pub embedder: &'a dyn Embedder,
    /// What it is (recorded in `meta`, and on every row of the side table).
    pub info: EmbedderInfo,
    /// Texts embedded and committed per batch (at least 1).
    pub batch: usize,
    /// Told `(done, total)` after every committed batch (and once at the start).
    pub progress: Option<&'a dyn Fn(usize, usize)>,
}

/// What a reembed did.
#[derive(Debug, Clone, PartialEq)]
pub struct ReembedReport {
    /// The embedder the brain recorded before (`None`: none recorded).
    pub from: Option<EmbedderInfo>,
    /// The embedder it records now.
    pub to: EmbedderInfo,
    /// Vectors the brain has now, each made by [`Self::to`].
    pub nodes: usize,
    /// Of those, the ones an earlier, interrupted run of the same reembed had made.
    pub resumed_from: usize,
    /// Vectors in the rebuilt derived search index (0 for a dense layout).
    pub indexed: usize,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
}

/// An unfinished reembed, as [`pending`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The embedder it re-embeds with (`None` for an empty side table).
    pub target: Option<EmbedderInfo>,
    /// Vectors it has made that still apply.
    pub done: usize,
    /// Vectors of the brain.
    pub total: usize,
}

impl std::fmt::Display for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (to, name) = match &self.target {
            Some(t) => (t.to_string(), t.name.as_str()),
            None => ("another embedder".to_string(), "<name>"),
        };
        write!(
            f,
            "a reembed to {to} is in progress: {} of {} nodes; the brain answers with its old embedder until `crabpath reembed --state <brain> --embedder {name}` is run again to finish it",
            self.done, self.total
        )
    }
}

/// The error for a brain that is a state or graph file (the reference's format, the
/// paper profile's brain): reembed works on databases, so it is imported first.
pub fn not_a_database(path: &Path) -> Error {
    let p = path.display();
    Error::Invalid(format!(
        "{p}: reembed works on a brain database, and this is a state file (the reference's format): import it first (`crabpath import --state {p} --output <dir>`), then reembed <dir>"
    ))
}

fn has_progress_table(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        params![PROGRESS_TABLE],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The unfinished reembed of a brain database, if any (what `doctor` reports).
pub fn pending(conn: &Connection) -> rusqlite::Result<Option<Pending>> {
    if !has_progress_table(conn)? {
        return Ok(None);
    }
    let target: Option<(String, i64)> = conn
        .query_row(
            "SELECT embedder, dim FROM reembed_progress ORDER BY sym LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    let total: i64 = conn.query_row("SELECT COUNT(*) FROM vectors", [], |r| r.get(0))?;
    let done: i64 = match &target {
        Some((name, dim)) => conn.query_row(VALID, params![name, dim], |r| r.get(0))?,
        None => 0,
    };
    Ok(Some(Pending {
        target: target.map(|(name, dim)| EmbedderInfo {
            name,
            dim: dim.max(0) as usize,
        }),
        done: done.max(0) as usize,
        total: total.max(0) as usize,
    }))
}

/// A vector row still to embed: `sym`, `rev`, `seq`, its node's text and id.
/// A vector row to re-embed: sym, rev, seq, content, node id, document header
/// (`metadata.doc`, [`crate::source::embedtext::HEADER_KEY`]).
type Todo = (i64, i64, i64, String, String, Option<String>);

fn todo(
    conn: &Connection,
    table: bool,
    after: i64,
    info: &EmbedderInfo,
    limit: i64,
) -> rusqlite::Result<Vec<Todo>> {
    let mut stmt = conn.prepare(if table { TODO } else { TODO_ALL })?;
    let rows = stmt.query_map(params![after, info.name, info.dim as i64, limit], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    })?;
    rows.collect()
}

/// The new vectors of `rows`, encoded: the embedder's output checked (one vector per
/// text, of its dimension, finite) as `init` checks it.
fn embed_rows(opts: &ReembedOptions<'_>, rows: &[Todo]) -> Result<Vec<Vec<u8>>> {
    // what init and sync embed (the document header of a folder chunk, [`crate::source::embedtext`])
    let owned: Vec<std::borrow::Cow<'_, str>> = rows
        .iter()
        .map(|r| crate::source::embedtext::embedded_text_of(r.5.as_deref(), &r.3))
        .collect();
    let texts: Vec<&str> = owned.iter().map(|t| t.as_ref()).collect();
    let vs = opts.embedder.embed_batch(&texts)?;
    if vs.len() != texts.len() {
        return Err(Error::Invalid(format!(
            "the embedder {} returned {} vectors for {} texts",
            opts.info,
            vs.len(),
            texts.len()
        )));
    }
    let layout = layout_for(&opts.info.name);
    let mut out = Vec::with_capacity(vs.len());
    for (v, row) in vs.iter().zip(rows) {
        opts.info.check_vector(&row.4, v)?;
        out.push(encode_vector(v, layout));
    }
    Ok(out)
}

fn save_rows(
    conn: &Connection,
    info: &EmbedderInfo,
    rows: &[Todo],
    blobs: &[Vec<u8>],
) -> rusqlite::Result<()> {
    conn.execute_batch(CREATE_PROGRESS)?;
    let mut stmt = conn.prepare(
        "INSERT OR REPLACE INTO reembed_progress(sym, vrev, embedder, dim, v) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (row, blob) in rows.iter().zip(blobs) {
        stmt.execute(params![row.0, row.1, info.name, info.dim as i64, blob])?;
    }
    Ok(())
}

/// Drops what an interrupted run for another embedder (or from node versions since
/// rewritten) left; returns how many of the target's rows still apply.
fn start(conn: &Connection, path: &Path, info: &EmbedderInfo) -> Result<usize> {
    let err = sql_error(path);
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate).map_err(&err)?;
    let mut kept = 0;
    if has_progress_table(&tx).map_err(&err)? {
        tx.execute(
            "DELETE FROM reembed_progress WHERE embedder != ?1 OR dim != ?2
             OR NOT EXISTS (SELECT 1 FROM vectors v WHERE v.sym = reembed_progress.sym AND v.rev = reembed_progress.vrev)",
            params![info.name, info.dim as i64],
        )
        .map_err(&err)?;
        let n: i64 = tx
            .query_row(VALID, params![info.name, info.dim as i64], |r| r.get(0))
            .map_err(&err)?;
        if n == 0 {
            tx.execute_batch("DROP TABLE reembed_progress")
                .map_err(&err)?;
        }
        kept = n.max(0) as usize;
    }
    tx.commit().map_err(&err)?;
    Ok(kept)
}

/// Re-embeds every vector of the brain database `store` with `opts.embedder` (see the
/// module docs), resuming an interrupted run of the same embedder, then rebuilds the
/// derived search index.
///
/// Errors: the store opened read-only; the embedder failing or returning vectors of
/// another dimension or with a non-finite component (nothing is swapped in; the
/// batches already committed are kept for a rerun); SQLite errors.
pub fn reembed(store: &mut Store, opts: &ReembedOptions<'_>) -> Result<ReembedReport> {
    let started = Instant::now();
    let path = store.path().to_path_buf();
    let err = sql_error(&path);
    let info = &opts.info;
    if opts.batch == 0 {
        return Err(Error::Invalid(
            "the batch size must be at least 1 (--batch)".into(),
        ));
    }
    // a read-only store refuses here, before anything else
    drop(store.write()?);
    let from = {
        let meta = crate::store::rows::load_meta(store.conn()).map_err(&err)?;
        EmbedderInfo::from_meta(&meta)
    };
    let resumed_from = start(store.conn(), &path, info)?;
    let total: i64 = store
        .conn()
        .query_row("SELECT COUNT(*) FROM vectors", [], |r| r.get(0))
        .map_err(&err)?;
    let total = total.max(0) as usize;
    let mut done = resumed_from;
    if let Some(p) = opts.progress {
        p(done, total);
    }
    let mut after = i64::MIN;
    let limit = i64::try_from(opts.batch).unwrap_or(i64::MAX);
    loop {
        let conn = store.conn();
        let table = has_progress_table(conn).map_err(&err)?;
        let rows = todo(conn, table, after, info, limit).map_err(&err)?;
        let Some(last) = rows.last() else { break };
        after = last.2;
        let blobs = embed_rows(opts, &rows)?;
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate).map_err(&err)?;
        save_rows(&tx, info, &rows, &blobs).map_err(&err)?;
        tx.commit().map_err(&err)?;
        done += rows.len();
        if let Some(p) = opts.progress {
            p(done.min(total), total);
        }
    }
    swap(store, opts)?;
    compact(store);
    let indexed = crate::store::search::rebuild(
        store.conn(),
        &store.dir(),
        store.layout(),
        store.dim(),
        store.nonce(),
    )?;
    let nodes: i64 = store
        .conn()
        .query_row("SELECT COUNT(*) FROM vectors", [], |r| r.get(0))
        .map_err(&err)?;
    Ok(ReembedReport {
        from,
        to: info.clone(),
        nodes: nodes.max(0) as usize,
        resumed_from,
        indexed,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// How long [`compact`] waits for other processes' reads before it gives up.
const COMPACT_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Gives the pages of the dropped side table and of the replaced vectors back to the
/// file system (`VACUUM`): without it a re-embedded brain keeps them as free pages,
/// 1.8 × the size of a fresh `init` on 10,000 hash-v1 nodes (61 MB against 34 MB).
/// Best effort, after the swap is committed: when other processes keep reading for
/// more than [`COMPACT_WAIT`], the pages stay free (later writes reuse them).
fn compact(store: &Store) {
    let conn = store.conn();
    if conn.busy_timeout(COMPACT_WAIT).is_ok() {
        let _ = conn.execute_batch("VACUUM");
    }
    let _ = conn.busy_timeout(crate::store::BUSY_TIMEOUT);
}

/// The one transaction that swaps the new vectors in (see the module docs). Vector
/// rows written by another process since their new vector was made (or added since)
/// are embedded here, inside the write lock.
fn swap(store: &mut Store, opts: &ReembedOptions<'_>) -> Result<()> {
    let info = &opts.info;
    let layout = layout_for(&info.name);
    let path = store.path().to_path_buf();
    let err = sql_error(&path);
    let mut w = store.write()?;
    let table = has_progress_table(w.tx()).map_err(&err)?;
    let left = todo(w.tx(), table, i64::MIN, info, i64::MAX).map_err(&err)?;
    if !left.is_empty() {
        let blobs = embed_rows(opts, &left)?;
        save_rows(w.tx(), info, &left, &blobs).map_err(&err)?;
    }
    let rev = w.rev;
    let has_table = table || !left.is_empty();
    if has_table {
        w.tx()
            .execute(
                "UPDATE vectors SET v = (SELECT p.v FROM reembed_progress p WHERE p.sym = vectors.sym), rev = ?1",
                params![rev],
            )
            .map_err(&err)?;
        w.tx()
            .execute_batch("DROP TABLE reembed_progress")
            .map_err(&err)?;
    }
    w.tx()
        .execute(
            "UPDATE brain SET layout = ?1, dim = ?2 WHERE id = 1",
            params![layout.as_str(), info.dim as i64],
        )
        .map_err(&err)?;
    let mut meta = crate::store::rows::load_meta(w.tx()).map_err(&err)?;
    if meta.get("embedder").is_some_and(Value::is_string) {
        meta.insert("embedder".into(), Value::from(info.name.as_str()));
    }
    meta.extend(info.to_meta());
    crate::store::rows::write_meta(w.tx(), &meta).map_err(&err)?;
    w.vectors_changed();
    w.structure_changed();
    w.commit()?;
    store.reload_dim()
}
