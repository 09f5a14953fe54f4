//! Making, exchanging and restoring brains: `init` (a database, or the reference's
//! files for the `paper` profile), `export`/`import` of the reference's `state.json`,
//! `snapshot`/`rollback`, and what `info`/`doctor` report about a database.

use std::path::{Path, PathBuf};

use crabpath::embed::Embedder;
use crabpath::graph::{Graph, Metadata};
use crabpath::index::VectorIndex;
use crabpath::state::State;
use rayon::prelude::*;
use serde_json::Value;

use super::engine::{Backend, Brain, Location, OpenOptions};
use crate::error::{io_error, Error, Result};
use crate::reference::embedder::EmbedderInfo;
use crate::reference::reffiles::{write_init, InitFiles};
use crate::reference::snapshot::Snapshot;
use crate::store::build::{write_brain, Contents, VectorRow};
use crate::store::codec::{decode_unit, encode_vector};
pub use crate::store::layout_for;
use crate::store::schema::DB_FILE;
use crate::store::{sql_error, Layout};

/// Texts embedded per batch.
const BATCH: usize = 256;

/// How `init` embeds.
pub struct InitOptions<'a> {
    /// The embedder.
    pub embedder: &'a dyn Embedder,
    /// What it is (recorded in `meta`).
    pub info: EmbedderInfo,
    /// Embed batches in parallel (hash-v1; MiniLM parallelises inside a batch).
    pub parallel: bool,
    /// Told how many texts are embedded so far (progress), from any thread.
    pub progress: Option<&'a (dyn Fn(usize) + Sync)>,
}

/// What `init` wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct InitReport {
    /// The brain's database (or the reference's `state.json`).
    pub path: PathBuf,
    /// The reference's four files (`paper`), if written.
    pub files: Option<InitFiles>,
    /// Nodes.
    pub nodes: usize,
    /// Edges.
    pub edges: usize,
    /// Vectors in the derived search index.
    pub indexed: usize,
    /// The snapshot the brain that was replaced was kept as (`before-init-<time>`,
    /// `before-import-<time>`; [`keep_before_replacing`]), if one was there.
    pub snapshot: Option<Snapshot>,
}

/// Embeds `texts` in order, in batches (in parallel when asked), reporting progress.
/// Results do not depend on the number of threads.
pub fn embed_texts(
    embedder: &dyn Embedder,
    texts: &[&str],
    parallel: bool,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<Vec<Vec<f64>>> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let batch = |b: &[&str]| -> crabpath::Result<Vec<Vec<f64>>> {
        let r = embedder.embed_batch(b);
        let n = done.fetch_add(b.len(), std::sync::atomic::Ordering::Relaxed) + b.len();
        if let Some(p) = progress {
            p(n);
        }
        r
    };
    let batches: Vec<&[&str]> = texts.chunks(BATCH).collect();
    let results: Vec<crabpath::Result<Vec<Vec<f64>>>> = if parallel {
        batches.par_iter().map(|b| batch(b)).collect()
    } else {
        batches.iter().map(|b| batch(b)).collect()
    };
    let mut out = Vec::with_capacity(texts.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// Writes the reference's `init` files for `graph` into `dir` (`paper` profile):
/// `graph.json`, `state.json`, `index.json`, `texts.json` (reference
/// `crabpath/cli.py::cmd_init`, [`write_init`]).
pub fn init_reference(dir: &Path, graph: &Graph, opts: &InitOptions<'_>) -> Result<InitReport> {
    let texts: Vec<(&str, &str)> = graph
        .nodes()
        .map(|(_, n)| (n.id.as_str(), n.content.as_str()))
        .collect();
    let refs: Vec<&str> = texts.iter().map(|(_, t)| *t).collect();
    let vectors = embed_texts(opts.embedder, &refs, opts.parallel, opts.progress)?;
    let mut index = VectorIndex::new();
    for ((id, _), v) in texts.iter().zip(vectors) {
        index.upsert(id, v)?;
    }
    let state_path = dir.join("state.json");
    let _lock = crate::reference::lock::StateLock::acquire(&state_path, |_| {})?;
    pyformat::io::keep_backup(&state_path)?;
    let files = write_init(dir, graph, &index, &opts.info)?;
    Ok(InitReport {
        path: state_path,
        files: Some(files),
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        indexed: 0,
        snapshot: None,
    })
}

/// Builds a brain database in `dir` from `graph` (`brain.db`, replacing one that
/// exists after keeping it as a snapshot, [`keep_before_replacing`];
/// [`crate::store::build`]): the nodes embedded ([`crate::source::embedtext::embedded_text`]), `meta` recording the
/// embedder and the schema version plus `extra_meta` (e.g. the files `sync` compares
/// against), `journal` as its first entries.
pub fn init_store(
    dir: &Path,
    graph: &Graph,
    opts: &InitOptions<'_>,
    extra_meta: Metadata,
    journal: Vec<pyformat::pyjson::PyDict>,
) -> Result<InitReport> {
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let layout = layout_for(&opts.info.name);
    let ids: Vec<&str> = graph.nodes().map(|(_, n)| n.id.as_str()).collect();
    // what each node is embedded as (crate::source::embedtext: the content, or a folder chunk
    // with its document header)
    let owned: Vec<std::borrow::Cow<'_, str>> = graph
        .nodes()
        .map(|(_, n)| crate::source::embedtext::embedded_text(n))
        .collect();
    let texts: Vec<&str> = owned.iter().map(|t| t.as_ref()).collect();
    // embedded and encoded batch by batch: the f64 vectors of a large folder are
    // never all in memory
    let done = std::sync::atomic::AtomicUsize::new(0);
    let encode = |b: (&[&str], &[&str])| -> Result<Vec<VectorRow>> {
        let vs = opts.embedder.embed_batch(b.1)?;
        if vs.len() != b.1.len() {
            return Err(Error::Invalid(format!(
                "the embedder returned {} vectors for {} texts",
                vs.len(),
                b.1.len()
            )));
        }
        let n = done.fetch_add(b.1.len(), std::sync::atomic::Ordering::Relaxed) + b.1.len();
        if let Some(p) = opts.progress {
            p(n);
        }
        let mut rows = Vec::with_capacity(vs.len());
        for (id, v) in b.0.iter().zip(vs) {
            opts.info.check_vector(id, &v)?;
            rows.push(VectorRow {
                id: id.to_string(),
                blob: encode_vector(&v, layout),
            });
        }
        Ok(rows)
    };
    let batches: Vec<(&[&str], &[&str])> = ids.chunks(BATCH).zip(texts.chunks(BATCH)).collect();
    let results: Vec<Result<Vec<VectorRow>>> = if opts.parallel {
        batches.par_iter().map(|b| encode(*b)).collect()
    } else {
        batches.iter().map(|b| encode(*b)).collect()
    };
    let mut vectors = Vec::with_capacity(ids.len());
    for r in results {
        vectors.extend(r?);
    }
    let mut meta = Metadata::new();
    meta.insert("schema_version".into(), Value::from(1));
    meta.insert(
        "created_at".into(),
        Value::from(pyformat::pytime::now_isoformat_utc()),
    );
    meta.insert("embedder_name".into(), Value::from(opts.info.name.as_str()));
    meta.insert("embedder_dim".into(), Value::from(opts.info.dim));
    meta.extend(extra_meta);
    let db = dir.join(DB_FILE);
    let lines = crate::store::build::journal_lines(&journal)?;
    let snapshot = keep_before_replacing(&db, "init")?;
    let indexed = write_brain(
        &db,
        Contents {
            graph,
            vectors,
            dim: opts.info.dim,
            layout,
            meta: &meta,
            journal: lines,
        },
    )?;
    Ok(InitReport {
        path: db,
        files: None,
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        indexed,
        snapshot,
    })
}

/// Imports a reference `state.json` (with the `journal.jsonl` beside it, if any) as a
/// brain database in `dir`. Vectors are stored as `f32` unit vectors: exporting the
/// result and importing that again gives the same brain, bit for bit.
///
/// The file is checked first ([`crate::reference::statecheck::check_state`]; `known`: the
/// embedders this program has): a document a brain cannot rely on (no `graph`, the same
/// node or edge twice, an edge to no node, a vector of no node, an embedder not in
/// `known`, ...) is an error naming the JSON path of its first problem, and nothing is
/// written. A brain database already in `dir` is kept as a snapshot before it is
/// replaced ([`keep_before_replacing`]; one that is not a brain is refused).
pub fn import_state(state_json: &Path, dir: &Path, known: &[EmbedderInfo]) -> Result<InitReport> {
    let bytes = std::fs::read(state_json).map_err(|e| io_error(state_json, e))?;
    crate::reference::statecheck::check_state(&bytes, state_json, known)?;
    let state = crate::reference::statefile::parse_state(&bytes, state_json)?;
    drop(bytes);
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let name = state
        .meta
        .get("embedder_name")
        .and_then(Value::as_str)
        .unwrap_or(crabpath::embed::HashEmbedder::NAME)
        .to_string();
    let layout = layout_for(&name);
    let dim = state
        .index
        .dim()
        .or_else(|| {
            state
                .meta
                .get("embedder_dim")
                .and_then(Value::as_u64)
                .map(|d| d as usize)
        })
        .unwrap_or(0);
    let vectors: Vec<VectorRow> = state
        .index
        .iter()
        .map(|(id, v)| VectorRow {
            id: id.to_string(),
            blob: encode_vector(v, layout),
        })
        .collect();
    let journal_file = crate::reference::journal::journal_path(Some(state_json), None);
    let journal = if journal_file.is_file() {
        crate::reference::journal::read_journal(
            &journal_file,
            crabpath::profile::Profile::Corrected,
        )?
        .entries
    } else {
        Vec::new()
    };
    let lines = crate::store::build::journal_lines(&journal)?;
    let db = dir.join(DB_FILE);
    let snapshot = keep_before_replacing(&db, "import")?;
    let indexed = write_brain(
        &db,
        Contents {
            graph: &state.graph,
            vectors,
            dim,
            layout,
            meta: &state.meta,
            journal: lines,
        },
    )?;
    Ok(InitReport {
        path: db,
        files: None,
        nodes: state.graph.node_count(),
        edges: state.graph.edge_count(),
        indexed,
        snapshot,
    })
}

/// Keeps the brain database `db` that `init` or `import` (`what`) is about to replace:
/// a snapshot of it, `before-<what>-<UTC time>` in its `snapshots/`
/// ([`Brain::snapshot_before`]), so that `rollback` brings back its nodes, edges,
/// weights and ledgers (and the snapshot file keeps its journal). `None` when there is
/// no database to replace.
///
/// Errors: a `db` that exists but is not a brain this program opens (another file, a
/// damaged database, a newer schema) is refused ([`Error::Brain`], naming it): it may
/// hold data, and replacing it could not be undone.
pub fn keep_before_replacing(db: &Path, what: &str) -> Result<Option<Snapshot>> {
    if std::fs::symlink_metadata(db).is_err() {
        return Ok(None);
    }
    let options = OpenOptions::new(crabpath::profile::Profile::Corrected);
    let opened = Brain::open(Location::Store(db.to_path_buf()), options);
    let mut brain = opened.map_err(|e| {
        // what is wrong, without the path (said once, by `refuse`) and without the
        // advice for a brain in use ("was it overwritten?", "restore a snapshot or
        // re-run init", "upgrade crabpath"), which does not fit one being replaced
        let why = match &e {
            Error::Brain { message, .. } => [": was it", ": restore", "? restore", ": upgrade"]
                .iter()
                .filter_map(|a| message.find(a))
                .min()
                .map_or(message.clone(), |i| message[..i].to_string()),
            Error::Sqlite { source, .. } => source.to_string(),
            Error::Io { source, .. } => source.to_string(),
            _ => e.to_string(),
        };
        refuse(db, &why)
    })?;
    brain.snapshot_before(what).map(Some)
}

/// The refusal to replace `db`, which is not a brain (`why`).
fn refuse(db: &Path, why: &str) -> Error {
    Error::Brain {
        path: db.to_path_buf(),
        message: format!(
            "{why}, so it cannot be kept as a snapshot and is not replaced: choose another --output, or move the file away"
        ),
    }
}

/// The whole brain as a state (graph, vectors in index order as `f64`, meta).
pub fn full_state(brain: &mut Brain) -> Result<State> {
    let (graph, meta) = brain.read(|g, m| (g.clone(), m.clone()))?;
    let index = match &mut brain.backend {
        Backend::Json(_) => brain.json_state()?.index.clone(),
        Backend::Store(s) => {
            let path = s.store.path().to_path_buf();
            let err = sql_error(&path);
            let (layout, dim) = (s.store.layout(), s.store.dim());
            let mut stmt = s
                .store
                .conn()
                .prepare(
                    "SELECT n.id, v.v FROM vectors v JOIN nodes n ON n.sym = v.sym ORDER BY v.seq",
                )
                .map_err(&err)?;
            let mut ids = Vec::new();
            let mut data = Vec::new();
            let rows = stmt
                .query_map([], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .map_err(&err)?;
            for r in rows {
                let (id, blob) = r.map_err(&err)?;
                let v = decode_unit(&blob, layout, dim).ok_or_else(|| Error::Brain {
                    path: path.clone(),
                    message: format!("the vector of `{id}` does not fit the brain's layout"),
                })?;
                ids.push(id);
                data.extend(v.into_iter().map(f64::from));
            }
            VectorIndex::from_rows(ids, data, dim)?
        }
    };
    Ok(State { graph, index, meta })
}

/// Writes the brain as a reference `state.json` at `out` (atomically; the meta is the
/// brain's, `node_count` current).
pub fn export_state(brain: &mut Brain, out: &Path) -> Result<()> {
    let state = full_state(brain)?;
    // rendered as for a new file: the meta is the brain's alone
    let fresh = {
        let mut p = out.as_os_str().to_os_string();
        p.push(format!(".{}.export", std::process::id()));
        PathBuf::from(p)
    };
    let rendered = crate::reference::statefile::render_state(&fresh, &state, None, None, None)?;
    pyformat::io::write_atomic(out, rendered.text.as_bytes())?;
    Ok(())
}

/// What `info` reports about a database brain.
#[derive(Debug, Clone, PartialEq)]
pub struct BrainInfo {
    /// The database file.
    pub path: PathBuf,
    /// Bytes on disk: the database, its write-ahead log and the derived index.
    pub size: u64,
    /// Schema version.
    pub schema: i32,
    /// Vectors.
    pub vectors: usize,
    /// Vectors the derived search index holds (0 when stale or absent).
    pub indexed: usize,
    /// Journal entries.
    pub journal_entries: usize,
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

impl Brain {
    /// Facts about a database brain (`None` for a state file).
    pub fn store_info(&mut self) -> Result<Option<BrainInfo>> {
        let Backend::Store(s) = &mut self.backend else {
            return Ok(None);
        };
        let path = s.store.path().to_path_buf();
        let err = sql_error(&path);
        let conn = s.store.conn();
        let schema: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(&err)?;
        let count = |sql: &str| -> Result<usize> {
            conn.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as usize)
                .map_err(&err)
        };
        let vectors = count("SELECT COUNT(*) FROM vectors")?;
        let journal_entries = count("SELECT COUNT(*) FROM journal")?;
        let searcher = crate::store::search::Searcher::load(
            conn,
            &s.dir,
            s.store.layout(),
            s.store.dim(),
            s.store.nonce(),
        )
        .map_err(&err)?;
        let indexed = if searcher.indexed() {
            searcher.in_index()
        } else {
            0
        };
        let mut size = file_len(&path) + file_len(&crate::store::search::index_path(&s.dir));
        for suffix in ["-wal", "-shm"] {
            let mut p = path.as_os_str().to_os_string();
            p.push(suffix);
            size += file_len(Path::new(&p));
        }
        Ok(Some(BrainInfo {
            path: path.clone(),
            size,
            schema,
            vectors,
            indexed,
            journal_entries,
        }))
    }

    /// `PRAGMA integrity_check` of a database brain: the problems found (`None` for a
    /// state file).
    pub fn integrity_check(&mut self) -> Result<Option<Vec<String>>> {
        match &self.backend {
            Backend::Store(s) => Ok(Some(s.store.integrity_check()?)),
            Backend::Json(_) => Ok(None),
        }
    }

    /// The snapshots directory of a database brain.
    fn snapshot_dir(&self) -> Option<PathBuf> {
        match &self.backend {
            Backend::Store(s) => Some(s.dir.join("snapshots")),
            Backend::Json(_) => None,
        }
    }

    /// Takes a snapshot named `name` (a state file: a copy of it, [`crate::reference::snapshot`];
    /// a database: a compact copy, `snapshots/<name>.db`, made by `VACUUM INTO` from
    /// one consistent read). The copy is written as `snapshots/.<name>.<pid>.partial`,
    /// synced, then renamed: a process killed half-way leaves no truncated
    /// `<name>.db` for `rollback` to take (a leftover `.partial` is never listed).
    pub fn snapshot(&mut self, name: &str) -> Result<Snapshot> {
        let Some(dir) = self.snapshot_dir() else {
            let path = self.path().to_path_buf();
            let _lock = self.json_lock()?;
            return crate::reference::snapshot::take(&path, name);
        };
        crate::reference::snapshot::check_name(name)?;
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let path = dir.join(format!("{name}.db"));
        if path.exists() {
            return Err(Error::Invalid(format!(
                "snapshot `{name}` exists already ({})",
                path.display()
            )));
        }
        let Backend::Store(s) = &self.backend else {
            unreachable!("a database")
        };
        let partial = dir.join(format!(".{name}.{}.partial", std::process::id()));
        let _ = std::fs::remove_file(&partial);
        let text = partial.to_string_lossy().into_owned();
        let written = s
            .store
            .conn()
            .execute("VACUUM INTO ?1", [text])
            .map_err(sql_error(s.store.path()))
            .and_then(|_| {
                std::fs::File::open(&partial)
                    .and_then(|f| f.sync_all())
                    .and_then(|_| std::fs::rename(&partial, &path))
                    .map_err(|e| io_error(&path, e))
            });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        Ok(Snapshot {
            name: name.to_string(),
            size: file_len(&path),
            path,
        })
    }

    /// Takes a snapshot before an operation that may lose data (`sync --rebase`,
    /// `init` or `import` over a brain):
    /// named `before-<what>-<UTC time>`, with `-2`, `-3`, … when that name is taken.
    pub fn snapshot_before(&mut self, what: &str) -> Result<Snapshot> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let base = format!(
            "before-{what}-{}",
            crate::reference::snapshot::default_name(now)
        );
        let taken: Vec<String> = self.snapshots()?.into_iter().map(|s| s.name).collect();
        let name = (1..)
            .map(|i| {
                if i == 1 {
                    base.clone()
                } else {
                    format!("{base}-{i}")
                }
            })
            .find(|n| !taken.contains(n))
            .unwrap_or(base);
        self.snapshot(&name)
    }

    /// The snapshots, oldest first.
    pub fn snapshots(&self) -> Result<Vec<Snapshot>> {
        let Some(dir) = self.snapshot_dir() else {
            return crate::reference::snapshot::list(self.path());
        };
        let mut out: Vec<(Option<std::time::SystemTime>, Snapshot)> = Vec::new();
        let Ok(rd) = std::fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "db") {
                if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
                    let (modified, size) = e
                        .metadata()
                        .map(|m| (m.modified().ok(), m.len()))
                        .unwrap_or((None, 0));
                    out.push((
                        modified,
                        Snapshot {
                            name: stem.to_string(),
                            path: p.clone(),
                            size,
                        },
                    ));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.name.cmp(&b.1.name)));
        Ok(out.into_iter().map(|(_, s)| s).collect())
    }

    /// Restores a snapshot (default: the latest). A state file keeps the previous
    /// state as `.bak` ([`crate::reference::snapshot::restore`]); a database first takes a
    /// snapshot of its current state (`before-rollback-<time>`), then replaces every
    /// table but the journal by the snapshot's in one transaction, in which the
    /// corrected profile journals the rollback (`rollback_event`); of the conversation
    /// log, the turns logged since the snapshot stay, uncredited. Returns the restored
    /// snapshot, where the previous state was kept, and the nodes made since the
    /// snapshot that the restored state does not hold ([`RolledBack`]). Refused while a
    /// forget has not finished (`Brain::pending_forget`): the snapshot may still hold
    /// its content.
    pub fn rollback(&mut self, name: Option<&str>) -> Result<RolledBack> {
        if self.snapshot_dir().is_none() {
            let path = self.path().to_path_buf();
            let _lock = self.json_lock()?;
            let s = crate::reference::snapshot::restore(&path, name)?;
            let _ = std::fs::remove_file(crate::reference::sidecar::sidecar_path(&path));
            if let Backend::Json(j) = &mut self.backend {
                j.state = None;
            }
            return Ok(RolledBack {
                snapshot: s,
                kept: pyformat::io::backup_path(&path),
                not_restored: Vec::new(),
            });
        }
        if let Some(t) = self.pending_forget()? {
            // the snapshots may still hold what the forget removed from the brain
            return Err(Error::Invalid(format!(
                "a forget of {} `{}` did not finish: run it again first (a rollback now could bring its content back)",
                t.kind(),
                t.value()
            )));
        }
        let all = self.snapshots()?;
        let dir = self.snapshot_dir().expect("a database");
        let snap = match name {
            Some(n) => all
                .into_iter()
                .find(|s| s.name == n)
                .ok_or_else(|| Error::Invalid(format!("no snapshot `{n}` in {}", dir.display())))?,
            None => all.into_iter().next_back().ok_or_else(|| {
                Error::Invalid(format!(
                    "no snapshot in {}: take one with `crabpath snapshot`",
                    dir.display()
                ))
            })?,
        };
        // the snapshot must be a brain this program reads
        drop(crate::store::Store::open(&snap.path, false)?);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        // a name of its own even within the second of an earlier rollback (reusing
        // that one's backup would lose the state in between)
        let stem = format!(
            "before-rollback-{}",
            crate::reference::snapshot::default_name(now)
        );
        let keep_name = (1..)
            .map(|k| match k {
                1 => stem.clone(),
                k => format!("{stem}-{k}"),
            })
            .find(|n| !dir.join(format!("{n}.db")).exists())
            .expect("an unused name");
        let kept = self.snapshot(&keep_name)?.path;
        let profile = self.profile;
        let Backend::Store(s) = &mut self.backend else {
            unreachable!("a database")
        };
        let (layout, dim, nonce) = (s.store.layout(), s.store.dim(), s.store.nonce());
        let dir_b = s.dir.clone();
        let journal_it = profile.fixes_bugs();
        let snap_text = snap.path.to_string_lossy().into_owned();
        s.store
            .conn()
            .execute("ATTACH DATABASE ?1 AS snap", [snap_text])
            .map_err(sql_error(s.store.path()))?;
        let restored = (|| -> Result<Vec<String>> {
            let mut w = s.store.write()?;
            let err = w.err();
            // what was made since the snapshot (its question nodes aside): the
            // restored state does not hold it, the state kept before does
            let not_restored: Vec<String> = {
                let mut st = w
                    .tx()
                    .prepare(
                        "SELECT id FROM main.nodes WHERE node_seq IS NOT NULL AND id NOT IN (SELECT id FROM snap.nodes WHERE node_seq IS NOT NULL) ORDER BY node_seq",
                    )
                    .map_err(&err)?;
                let ids = st
                    .query_map([], |r| r.get::<_, String>(0))
                    .map_err(&err)?
                    .collect::<rusqlite::Result<Vec<String>>>()
                    .map_err(&err)?;
                ids.into_iter()
                    .filter(|id| !super::neurogenesis::is_auto(id))
                    .collect()
            };
            w.tx()
                .execute_batch(
                    "DELETE FROM main.nodes; DELETE FROM main.edges; DELETE FROM main.vectors; DELETE FROM main.meta; DELETE FROM main.vector_gone;
                     INSERT INTO main.nodes SELECT * FROM snap.nodes;
                     INSERT INTO main.edges SELECT * FROM snap.edges;
                     INSERT INTO main.vectors SELECT * FROM snap.vectors;
                     INSERT INTO main.meta SELECT * FROM snap.meta;",
                )
                .map_err(&err)?;
            // the conversation log and the credit ledger follow the weights: the
            // snapshot's credits come back with the learning they made, a turn logged
            // since stays but uncredited (what its credit taught was undone), and a
            // ledger row of a node made since goes with the node. Before, both were
            // left as they were: `init` over a brain then `rollback` to its
            // `before-init-*` snapshot lost every logged turn and ledger row
            w.tx()
                .execute_batch(
                    "UPDATE main.turns SET credited = 0 WHERE (chat_id, turn) NOT IN (SELECT chat_id, turn FROM snap.turns);
                     INSERT OR REPLACE INTO main.turns SELECT * FROM snap.turns;
                     DELETE FROM main.ledger;
                     INSERT INTO main.ledger SELECT * FROM snap.ledger;",
                )
                .map_err(&err)?;
            let (seq, rev): (i64, i64) = w
                .tx()
                .query_row("SELECT seq, rev FROM snap.brain WHERE id = 1", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .map_err(&err)?;
            drop(err);
            // position keys keep increasing past both histories (readers reload
            // everything after this structural change, so revisions need no care)
            let _ = rev;
            while w.next_seq() < seq {}
            if journal_it {
                // where the journal's history returns to (issue 30 item 3: the
                // unlearning replay leaves out what the rollback undid)
                let to: i64 = w
                    .tx()
                    .query_row("SELECT COALESCE(MAX(seq), 0) FROM snap.journal", [], |r| {
                        r.get(0)
                    })
                    .map_err(w.err())?;
                let text = crate::store::rows::journal_text(&rollback_event(&snap.name, to))?;
                crate::store::rows::append_journal(w.tx(), &text).map_err(w.err())?;
            }
            w.tx()
                .execute(
                    "UPDATE brain SET nodes = (SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL) WHERE id = 1",
                    [],
                )
                .map_err(w.err())?;
            w.structure_changed();
            w.vectors_changed();
            w.commit()?;
            Ok(not_restored)
        })();
        let detached = s
            .store
            .conn()
            .execute("DETACH DATABASE snap", [])
            .map_err(sql_error(s.store.path()));
        let not_restored = restored?;
        detached?;
        s.store.reload_dim()?;
        if layout == Layout::Sparse {
            let rebuilt = crate::store::search::rebuild(
                s.store.conn(),
                &dir_b,
                layout,
                s.store.dim().max(dim),
                nonce,
            );
            if rebuilt.is_err() {
                // the rollback has committed: the derived index that could not be
                // written (a full disk) is stale, and a stale index is read for what
                // it still holds and the rest from the vectors; removed if it can be,
                // it is built again on a later open. Before, the command failed
                // although the rollback stood, inviting a second one
                let _ = std::fs::remove_file(crate::store::search::index_path(&dir_b));
            }
        }
        if let Some(r) = s.resident.as_mut() {
            r.stale = true;
        }
        Ok(RolledBack {
            snapshot: snap,
            kept,
            not_restored,
        })
    }
}

/// What [`Brain::rollback`] did.
#[derive(Debug, Clone)]
pub struct RolledBack {
    /// The snapshot restored.
    pub snapshot: Snapshot,
    /// Where the state before the rollback was kept (a snapshot of a database, a
    /// `.bak` of a state file): `rollback --to` its name brings it back.
    pub kept: PathBuf,
    /// The nodes made since the snapshot that the restored state does not hold, in the
    /// order they were made (the question nodes neurogenesis grew left out): turns
    /// remembered, teachings and corrections injected, chunks a sync added since. A
    /// rollback undoes learning, and these go with it; the kept state still holds
    /// them. Empty for a state file.
    pub not_restored: Vec<String>,
}

/// Resolves where `import` writes: a directory (created), the database file in it.
pub fn brain_dir(arg: &Path) -> PathBuf {
    if arg.file_name().and_then(|n| n.to_str()) == Some(DB_FILE) {
        arg.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        arg.to_path_buf()
    }
}

impl Location {
    /// The brain directory of a location (the folder holding the file).
    pub fn dir(&self) -> PathBuf {
        let p = match self {
            Location::Store(p) | Location::State(p) => p,
            Location::Graph { graph, .. } => graph,
        };
        match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

/// The `type` of [`rollback_event`].
pub const ROLLBACK_EVENT: &str = "rollback";

/// The journal entry of a database's rollback (corrected profile; issue 30 item 3):
/// `{"type": "rollback", "snapshot": name, "to": seq}`, `seq` being the last journal
/// position the snapshot holds. The rollback keeps the journal, so the entries between
/// that position and this entry are of events it undid: the unlearning replay of
/// `forget` leaves them out ([`crate::service::Relearned`]).
pub fn rollback_event(snapshot: &str, to: i64) -> pyformat::pyjson::PyDict {
    use pyformat::pyjson::{PyDict, PyInt, PyValue};
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str(ROLLBACK_EVENT.into()));
    e.insert("snapshot".into(), PyValue::Str(snapshot.into()));
    e.insert("to".into(), PyValue::Int(PyInt::from(to)));
    crate::reference::journal::stamp(e, pyformat::pytime::time_time())
}
