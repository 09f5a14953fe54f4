//! The core of the [`Brain`] service: where a brain lives, how it is opened, and the
//! one write path, read path and journal appender every operation goes through. The
//! operations themselves are in the sibling modules (`query`, `ops`, `admin`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crabpath::embed::Embedder;
use crabpath::graph::{Graph, Metadata, NodeId};
use crabpath::postings::Postings;
use crabpath::profile::Profile;
use crabpath::state::State;
use crabpath::traverse::Traverser;
use pyformat::pyjson::PyDict;

use crate::error::{Error, Result};
use crate::reference::embedder::EmbedderInfo;
use crate::reference::lock::StateLock;
use crate::reference::reffiles::GraphShape;
use crate::store::rows::{load_all, load_meta, load_part, syms_of, Loaded};
use crate::store::search::Searcher;
use crate::store::vectors::TxnVectors;
use crate::store::working::Working;
use crate::store::writeback::{write_back, Pre};
use crate::store::{sql_error, Clock, Layout, Store};

/// Where a brain lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A brain database file.
    Store(PathBuf),
    /// A `state.json` (reference format).
    State(PathBuf),
    /// A graph file (`--graph`) with an optional index file (`--index`).
    Graph {
        /// The graph file.
        graph: PathBuf,
        /// The index file.
        index: Option<PathBuf>,
    },
}

/// The brain a `--state` argument names: a directory holding `brain.db` (else its
/// `state.json`); a file that is a SQLite database; a `.json` file, or, when that file
/// does not exist but a `brain.db` sits beside it, that database (so `--state
/// ~/brain/state.json` keeps naming a brain built by `init`).
pub fn locate(arg: &Path) -> Location {
    let db = crate::store::schema::DB_FILE;
    if arg.is_dir() {
        let d = arg.join(db);
        if d.exists() {
            return Location::Store(d);
        }
        return Location::State(arg.join("state.json"));
    }
    if arg.is_file() {
        if is_sqlite(arg) {
            return Location::Store(arg.to_path_buf());
        }
        return Location::State(arg.to_path_buf());
    }
    if let Some(parent) = arg.parent() {
        let beside = if parent.as_os_str().is_empty() {
            PathBuf::from(db)
        } else {
            parent.join(db)
        };
        if beside.is_file() && arg.file_name().and_then(|n| n.to_str()) != Some(db) {
            return Location::Store(beside);
        }
    }
    if arg.file_name().and_then(|n| n.to_str()) == Some(db) {
        return Location::Store(arg.to_path_buf());
    }
    Location::State(arg.to_path_buf())
}

fn is_sqlite(p: &Path) -> bool {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 16];
    // through the process's descriptor of the file when a store has it open: closing
    // another would drop that store's locks (`store::raw`)
    crate::store::raw::with_file(p, |f| f.read_exact_at(&mut head, 0)).is_ok()
        && &head == b"SQLite format 3\0"
}

/// Loads the embedder a brain's text is embedded with (called at most once, and only
/// when an operation embeds text).
pub type EmbedderLoader = Arc<dyn Fn() -> Result<Box<dyn Embedder>> + Send + Sync>;

/// Told which lock file a writer waits for.
pub type LockWait = Arc<dyn Fn(&Path) + Send + Sync>;

/// How to open a brain.
#[derive(Clone)]
pub struct OpenOptions {
    /// Semantics of every operation.
    pub profile: Profile,
    /// Open for writing (else every write is refused).
    pub write: bool,
    /// Keep the graph and the search index in memory between operations (the daemon,
    /// agents); otherwise each operation reads what it needs.
    pub resident: bool,
    /// The embedder for text (`None`: operations that embed text fail).
    pub embedder: Option<EmbedderLoader>,
    /// How a graph file ([`Location::Graph`]) is written back.
    pub graph_shape: GraphShape<'static>,
    /// The journal of a state or graph file (default: the reference's rule,
    /// [`crate::reference::journal::journal_path`]).
    pub journal: Option<PathBuf>,
    /// Told when a state file's lock is held by another process (before waiting).
    pub on_lock_wait: Option<LockWait>,
    /// A resident state file saves each write before the write returns (the MCP
    /// server, which has no write-ahead log: its acknowledged writes lived only in
    /// memory and were lost when it exited). A database commits each write anyway;
    /// the daemon saves every N writes and logs them ([`crate::serve::daemon`]).
    pub save_writes: bool,
}

impl OpenOptions {
    /// Read-write, not resident, no embedder.
    pub fn new(profile: Profile) -> Self {
        OpenOptions {
            profile,
            write: true,
            resident: false,
            embedder: None,
            graph_shape: GraphShape::Bare,
            journal: None,
            on_lock_wait: None,
            save_writes: false,
        }
    }
}

/// Which symbols an operation may change: the named nodes with their outgoing edges
/// (and any node or edge it adds), or anything.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'s> {
    /// These nodes (unknown ids are left out).
    Nodes(&'s [String]),
    /// These nodes, and the `meta` object.
    NodesAndMeta(&'s [String]),
    /// The whole brain.
    All,
}

impl<'s> Scope<'s> {
    fn ids(&self) -> Option<&'s [String]> {
        match self {
            Scope::Nodes(ids) | Scope::NodesAndMeta(ids) => Some(ids),
            Scope::All => None,
        }
    }

    fn meta(&self) -> bool {
        !matches!(self, Scope::Nodes(_))
    }
}

/// A database brain held in memory.
pub(super) struct Resident {
    pub(super) loaded: Loaded,
    pub(super) meta: Metadata,
    pub(super) searcher: Searcher,
    pub(super) clock: Clock,
    pub(super) data_version: i64,
    pub(super) stale: bool,
}

pub(super) struct StoreBackend {
    pub(super) store: Store,
    pub(super) dir: PathBuf,
    pub(super) resident: Option<Resident>,
}

pub(super) struct JsonBackend {
    pub(super) state_path: Option<PathBuf>,
    pub(super) graph_path: Option<PathBuf>,
    pub(super) index_path: Option<PathBuf>,
    pub(super) journal: PathBuf,
    /// The state in memory (resident brains keep it).
    pub(super) state: Option<State>,
    /// Posting lists of a resident hash-v1 index (faster, same results).
    pub(super) postings: Option<Postings>,
    /// The version ([`file_version`]) of the state file `state` was read from or last
    /// saved as: a resident state whose file has another version now was saved over
    /// by another process, and saving the memory over it would lose that write.
    pub(super) version: Option<String>,
}

pub(super) enum Backend {
    Store(Box<StoreBackend>),
    Json(Box<JsonBackend>),
}

/// An open brain (see the module docs).
pub struct Brain {
    pub(super) profile: Profile,
    pub(super) location: Location,
    pub(super) options: OpenOptions,
    pub(super) backend: Backend,
    pub(super) embedder: Option<Box<dyn Embedder>>,
    pub(super) traverser: Traverser,
    /// The part of the graph the last query read (non-resident databases).
    pub(super) scratch: Loaded,
    /// What serving agents keeps between requests (route vectors, a state file's
    /// conversation log): [`super::serving`].
    pub(super) serving: super::serving::Serving,
}

impl Brain {
    /// Opens the brain at `location`.
    ///
    /// Errors: a database that is not a brain, is damaged or of a newer schema
    /// ([`Error::Brain`], naming the file); a missing or unreadable state file.
    pub fn open(location: Location, options: OpenOptions) -> Result<Brain> {
        let backend = match &location {
            Location::Store(db) => {
                let store = Store::open(db, options.write)?;
                let dir = store.dir();
                Backend::Store(Box::new(StoreBackend {
                    store,
                    dir,
                    resident: None,
                }))
            }
            Location::State(p) => Backend::Json(Box::new(JsonBackend {
                state_path: Some(p.clone()),
                graph_path: None,
                index_path: None,
                journal: options
                    .journal
                    .clone()
                    .unwrap_or_else(|| crate::reference::journal::journal_path(Some(p), None)),
                state: None,
                postings: None,
                version: None,
            })),
            Location::Graph { graph, index } => Backend::Json(Box::new(JsonBackend {
                state_path: None,
                graph_path: Some(graph.clone()),
                index_path: index.clone(),
                journal: options
                    .journal
                    .clone()
                    .unwrap_or_else(|| crate::reference::journal::journal_path(None, Some(graph))),
                state: None,
                postings: None,
                version: None,
            })),
        };
        let mut brain = Brain {
            profile: options.profile,
            location,
            options,
            backend,
            embedder: None,
            traverser: Traverser::new(),
            scratch: Loaded::default(),
            serving: Default::default(),
        };
        if brain.options.resident {
            brain.load_resident()?;
        }
        Ok(brain)
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Where the brain lives.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Whether the brain is a database.
    pub fn is_store(&self) -> bool {
        matches!(self.backend, Backend::Store(_))
    }

    /// Whether the brain was opened for writing but its database is read-only, so it
    /// was opened for reading (see [`Store::read_only_fallback`]): queries are answered
    /// without their journal entries.
    pub fn read_only_fallback(&self) -> bool {
        matches!(&self.backend, Backend::Store(s) if s.store.read_only_fallback())
    }

    /// The file that holds the brain (database, state or graph file).
    pub fn path(&self) -> &Path {
        match &self.location {
            Location::Store(p) | Location::State(p) => p,
            Location::Graph { graph, .. } => graph,
        }
    }

    /// The journal file of a state or graph file (`None` for a database, whose journal
    /// is a table).
    pub fn journal_file(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Json(j) => Some(&j.journal),
            Backend::Store(_) => None,
        }
    }

    /// Sets the embedder loader (see [`OpenOptions::embedder`]).
    pub fn set_embedder(&mut self, loader: EmbedderLoader) {
        self.options.embedder = Some(loader);
        self.embedder = None;
    }

    /// The embedder, loaded on first use (and again after another process's `reembed`
    /// changed the one a resident brain records: `Brain::catch_up`).
    pub fn embedder(&mut self) -> Result<&dyn Embedder> {
        self.catch_up()?;
        if self.embedder.is_none() {
            let Some(load) = self.options.embedder.clone() else {
                return Err(Error::Invalid(
                    "this operation embeds text, and no embedder was given".into(),
                ));
            };
            self.embedder = Some(load()?);
        }
        Ok(self.embedder.as_deref().expect("loaded above"))
    }

    /// The embedder the brain records (`meta.embedder_name`/`embedder_dim`), and the
    /// raw `meta` values of those keys (`embedder_name`, `embedder`, `embedder_dim`),
    /// read without loading the brain's graph.
    pub fn embedder_meta(&mut self) -> Result<Metadata> {
        let keys = ["embedder_name", "embedder", "embedder_dim"];
        let mut out = Metadata::new();
        match &mut self.backend {
            Backend::Store(s) => {
                let conn = s.store.conn();
                for k in keys {
                    if let Some(v) = crate::store::rows::meta_value(conn, k)
                        .map_err(sql_error(s.store.path()))?
                    {
                        out.insert(k.into(), v);
                    }
                }
            }
            Backend::Json(_) => {
                let meta = self.json_state()?.meta.clone();
                for k in keys {
                    if let Some(v) = meta.get(k) {
                        out.insert(k.into(), v.clone());
                    }
                }
            }
        }
        Ok(out)
    }

    /// The embedder recorded ([`EmbedderInfo::from_meta`] of [`Brain::embedder_meta`]).
    pub fn recorded_embedder(&mut self) -> Result<Option<EmbedderInfo>> {
        Ok(EmbedderInfo::from_meta(&self.embedder_meta()?))
    }

    // ----- state files ------------------------------------------------------------

    /// The state of a state or graph file, read on first use (through the binary
    /// sidecar when current).
    pub(super) fn json_state(&mut self) -> Result<&mut State> {
        let Backend::Json(j) = &mut self.backend else {
            return Err(Error::Invalid("not a state file".into()));
        };
        if j.state.is_none() {
            // the version first: a save by another process in between makes it older
            // than what is read, so the state is read again (never the other way round)
            let version = j.state_path.as_deref().and_then(file_version);
            j.state = Some(read_json(j)?);
            j.version = version;
        }
        Ok(j.state.as_mut().expect("read above"))
    }

    /// Whether the state file of a resident state was saved by another process since
    /// it was read or saved here (its [`file_version`] changed). Never for a database
    /// (another process's commits are read before each operation), a state not read
    /// yet, or a state file that is missing now (saving writes it again).
    pub fn changed_on_disk(&self) -> bool {
        let Backend::Json(j) = &self.backend else {
            return false;
        };
        match (&j.state, &j.state_path, &j.version) {
            (Some(_), Some(p), Some(v)) => file_version(p).is_some_and(|now| &now != v),
            _ => false,
        }
    }

    /// Reads a resident state file again (after [`Brain::changed_on_disk`]), keeping
    /// the state in memory if the file cannot be read (the error is returned). A
    /// database is [`Brain::reload`]ed.
    pub fn reread_state(&mut self) -> Result<()> {
        let Backend::Json(j) = &mut self.backend else {
            return self.reload();
        };
        let version = j.state_path.as_deref().and_then(file_version);
        let state = read_json(j)?;
        j.state = Some(state);
        j.version = version;
        if self.options.resident {
            self.refresh_postings();
        }
        Ok(())
    }

    /// Takes the lock of a state or graph file (`None` for a database), for a caller
    /// that reads, changes and saves a resident state as one write
    /// ([`Brain::save_locked`]; the daemon).
    pub fn lock_state(&self) -> Result<Option<StateLock>> {
        self.json_lock()
    }

    pub(super) fn json_lock(&self) -> Result<Option<StateLock>> {
        let Backend::Json(j) = &self.backend else {
            return Ok(None);
        };
        let target = match (&j.state_path, &j.graph_path) {
            (Some(p), _) => p.clone(),
            (None, Some(g)) => {
                if g.is_dir() {
                    g.join("graph.json")
                } else {
                    g.clone()
                }
            }
            _ => return Ok(None),
        };
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                // said in words (the bare kind printed `entity not found`)
                return Err(crate::error::io_error(
                    &target,
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!(
                            "the directory {} does not exist (deleted or moved?)",
                            dir.display()
                        ),
                    ),
                ));
            }
        }
        let wait = self.options.on_lock_wait.clone();
        Ok(Some(StateLock::acquire(&target, |p| {
            if let Some(w) = &wait {
                w(p)
            }
        })?))
    }

    /// Saves a state or graph file as the reference writes it (state: merged meta,
    /// one `.bak`, binary sidecar; graph file: the open options' shape).
    fn json_save(&mut self) -> Result<()> {
        self.json_save_then(Vec::new())
    }

    /// Writes a resident state file now (the daemon's `save`). A database's writes are
    /// committed as they happen; what is left to check is that they went somewhere: a
    /// database file deleted (or its directory) while open keeps taking writes that are
    /// lost when it closes, so its absence is an error naming the path (the daemon
    /// answered `{"saved": true}`).
    pub fn save(&mut self) -> Result<()> {
        if let Backend::Store(s) = &self.backend {
            let path = s.store.path();
            return if path.exists() {
                Ok(())
            } else {
                Err(Error::Brain {
                    path: path.to_path_buf(),
                    message: "no longer exists: it was deleted or moved while open, and the changes made since are lost".into(),
                })
            };
        }
        let _lock = self.json_lock()?;
        self.json_save()
    }

    /// [`Brain::save`] of a state file whose lock the caller holds
    /// ([`Brain::lock_state`]): the lock is not taken again (a second lock of the same
    /// file in this process would wait for itself).
    pub fn save_locked(&mut self, _held: &StateLock) -> Result<()> {
        if let Backend::Store(_) = &self.backend {
            return self.save();
        }
        self.json_save()
    }

    /// Drops what is held in memory and reads the brain again (the daemon's
    /// `reload`).
    pub fn reload(&mut self) -> Result<()> {
        match &mut self.backend {
            Backend::Json(j) => {
                j.state = None;
                j.postings = None;
            }
            Backend::Store(s) => s.resident = None,
        }
        if self.options.resident {
            self.load_resident()?;
        }
        Ok(())
    }

    fn load_resident(&mut self) -> Result<()> {
        match &mut self.backend {
            Backend::Json(_) => {
                self.json_state()?;
                self.refresh_postings();
            }
            Backend::Store(s) => {
                let path = s.store.path().to_path_buf();
                let err = sql_error(&path);
                let (layout, dim, nonce) = (s.store.layout(), s.store.dim(), s.store.nonce());
                let dir = s.dir.clone();
                let data_version = s.store.data_version()?;
                let tx = s.store.read()?;
                let loaded = load_all(&tx).map_err(&err)?;
                let meta = load_meta(&tx).map_err(&err)?;
                let searcher = Searcher::load(&tx, &dir, layout, dim, nonce).map_err(&err)?;
                let clock = crate::store::read_clock_of(&tx).map_err(&err)?;
                tx.commit().map_err(&err)?;
                s.resident = Some(Resident {
                    loaded,
                    meta,
                    searcher,
                    clock,
                    data_version,
                    stale: false,
                });
            }
        }
        Ok(())
    }

    /// Rebuilds the posting lists of a resident hash-v1 state (sparse vectors).
    fn refresh_postings(&mut self) {
        let Backend::Json(j) = &mut self.backend else {
            return;
        };
        j.postings = None;
        let Some(state) = &j.state else { return };
        let sample: usize = state.index.iter().take(1000).map(|(_, v)| v.len()).sum();
        let nonzero: usize = state
            .index
            .iter()
            .take(1000)
            .map(|(_, v)| v.iter().filter(|x| **x != 0.0).count())
            .sum();
        if sample > 0 && nonzero * 2 < sample {
            j.postings = Some(Postings::build(&state.index));
        }
    }

    /// Brings a resident database brain up to date with other processes' commits
    /// (cheap when there are none: one `PRAGMA data_version`).
    pub(super) fn catch_up(&mut self) -> Result<()> {
        self.follow_replacement()?;
        let Backend::Store(s) = &mut self.backend else {
            return Ok(());
        };
        let StoreBackend {
            store,
            dir,
            resident,
        } = &mut **s;
        let Some(r) = resident.as_mut() else {
            return Ok(());
        };
        let dv = store.data_version()?;
        if dv == r.data_version && !r.stale {
            return Ok(());
        }
        // another process's `reembed` may have changed the layout and dimension
        store.reload_dim()?;
        let path = store.path().to_path_buf();
        let tx = store.read()?;
        refresh_resident(&tx, dir, r).map_err(sql_error(&path))?;
        tx.commit().map_err(sql_error(&path))?;
        r.data_version = dv;
        // a `reembed` changed the recorded embedder: the loaded one is dropped, and the
        // next embedding asks the loader again (the command line's resolves the
        // brain's record; seed 003 §6.3)
        let recorded = EmbedderInfo::from_meta(&r.meta);
        if let (Some(e), Some(info)) = (&self.embedder, recorded) {
            if (e.name(), e.dim()) != (info.name.as_str(), info.dim) {
                self.embedder = None;
            }
        }
        Ok(())
    }

    /// Opens the database again when another program replaced it since it was opened
    /// (`crabpath init` or `import` into the brain's directory rename a new file over
    /// it; [`Store::reopen_if_replaced`]): what is in memory (the resident graph, the
    /// embedder, the last query's rows) is dropped and read from the new file. Before,
    /// a server went on answering from the old file and committing into it, and every
    /// write it acknowledged after the replacement was lost.
    ///
    /// Errors: the new file cannot be opened (removed, not a brain).
    pub(super) fn follow_replacement(&mut self) -> Result<()> {
        let Backend::Store(s) = &mut self.backend else {
            return Ok(());
        };
        if !s.store.reopen_if_replaced()? {
            return Ok(());
        }
        s.dir = s.store.dir();
        let resident = s.resident.take().is_some();
        self.scratch = Loaded::default();
        self.serving = Default::default();
        self.embedder = None;
        if resident {
            self.load_resident()?;
        }
        Ok(())
    }

    // ----- the one write path ----------------------------------------------------------

    /// Runs `op` on the brain and persists what it changed, with the journal entries
    /// it appended, as one write (see the module docs). `scope` says what `op` may
    /// change; a database reads only that (or everything for [`Scope::All`]).
    ///
    /// On error nothing is written (a resident brain is read again before its next
    /// operation).
    pub fn write<T>(
        &mut self,
        scope: Scope<'_>,
        op: impl FnOnce(&mut Working<'_>) -> Result<T>,
    ) -> Result<T> {
        if !self.options.write {
            return Err(Error::Invalid(format!(
                "{}: opened for reading only",
                self.path().display()
            )));
        }
        match &self.backend {
            Backend::Json(_) => self.write_json(op),
            Backend::Store(_) => self.write_store_with(scope, false, op),
        }
    }

    fn write_json<T>(&mut self, op: impl FnOnce(&mut Working<'_>) -> Result<T>) -> Result<T> {
        let resident = self.options.resident;
        // a resident state that saves each write (the MCP server) reads, changes and
        // saves under one lock, like a command: before, it was locked only to be saved,
        // and its memory, read when the server started, was written over a write
        // another process had saved since (a `crabpath inject` answered `Injected`,
        // then an MCP `teach`: the injected node was gone)
        let saves_now = resident && self.options.save_writes;
        let _lock = if !resident || saves_now {
            self.json_lock()?
        } else {
            None
        };
        if !resident {
            // a state file is read under its lock: another writer may have saved it
            if let Backend::Json(j) = &mut self.backend {
                j.state = None;
            }
        } else if saves_now && self.changed_on_disk() {
            self.reread_state()?;
        }
        let mut journal = Vec::new();
        let (value, keep) = {
            let state = self.json_state()?;
            let mut w = Working::of_state(state, &mut journal);
            let v = op(&mut w);
            let keep = w.keeps();
            (v, keep)
        };
        let value = match value {
            Ok(v) => v,
            Err(e) => {
                // a state read for this write is dropped with whatever the operation
                // changed; a resident state is kept, as the reference's daemon keeps
                // its memory: dropping it lost every acknowledged write not yet saved
                // (the corrected daemon restores it from the file and its write-ahead
                // log instead, `crate::serve::daemon`)
                if !resident {
                    if let Backend::Json(j) = &mut self.backend {
                        j.state = None;
                    }
                }
                return Err(e);
            }
        };
        if keep && (!resident || self.options.save_writes) {
            // the file is staged, the journal appended, then the file put in place: a
            // journal that refuses its entries (a full disk) leaves the file as it was,
            // and the write is refused whole
            let saved = {
                let _lock = if resident && !saves_now {
                    self.json_lock()?
                } else {
                    None
                };
                self.json_save_then(journal)
            };
            if let Err(e) = saved {
                // the file holds every write acknowledged before this one (each was
                // saved), and nothing of this one
                if let Backend::Json(j) = &mut self.backend {
                    j.state = None;
                    j.postings = None;
                }
                if resident {
                    let _ = self.load_resident();
                }
                return Err(e);
            }
        } else {
            self.append_json_journal(journal)?;
        }
        if resident {
            self.refresh_postings();
        }
        Ok(value)
    }

    /// [`Self::json_save`], with the write's journal `entries` appended after the new
    /// file is written and before it replaces the old one (see
    /// [`save_state_file_then`]).
    fn json_save_then(&mut self, entries: Vec<PyDict>) -> Result<()> {
        let shape = self.options.graph_shape;
        let Backend::Json(j) = &self.backend else {
            return Ok(());
        };
        let journal = || append_journal(&j.journal, &entries);
        let Some(state) = j.state.as_ref() else {
            return journal();
        };
        if let Some(path) = &j.state_path {
            save_state_file_then(path, state, journal)?;
            // what is in memory is what the file holds now (saved under the lock)
            let version = file_version(path);
            if let Backend::Json(j) = &mut self.backend {
                j.version = version;
            }
            Ok(())
        } else if let Some(g) = &j.graph_path {
            crate::reference::reffiles::write_graph_then(g, &state.graph, shape, journal)
                .map(|_| ())
        } else {
            journal()
        }
    }

    fn append_json_journal(&self, entries: Vec<PyDict>) -> Result<()> {
        match &self.backend {
            Backend::Json(j) => append_journal(&j.journal, &entries),
            Backend::Store(_) => Ok(()),
        }
    }

    /// The database write path; with `dry`, the transaction is rolled back at the end
    /// (the caller writes the journal entries it took out of the working view).
    fn write_store_with<T>(
        &mut self,
        scope: Scope<'_>,
        dry: bool,
        op: impl FnOnce(&mut Working<'_>) -> Result<T>,
    ) -> Result<T> {
        self.follow_replacement()?;
        let Backend::Store(s) = &mut self.backend else {
            unreachable!("write_store on a state file")
        };
        let StoreBackend {
            store,
            dir,
            resident,
        } = &mut **s;
        let path = store.path().to_path_buf();
        let err = sql_error(&path);
        let dir = dir.clone();
        let mut w = store.write()?;
        // read inside the write lock: a `reembed` of another process may have changed
        // them since this store was opened
        let (layout, dim, nonce) = crate::store::read_layout_of(w.tx(), &path)?;
        let mut journal: Vec<PyDict> = Vec::new();
        let mut lazy: Option<(Loaded, Metadata)> = None;
        // the graph to work on: the resident one (caught up inside the write lock), or
        // the rows the scope needs
        if let Some(r) = resident.as_mut() {
            refresh_resident(w.tx(), &dir, r).map_err(&err)?;
        } else {
            let loaded = match scope.ids() {
                None => load_all(w.tx()).map_err(&err)?,
                Some(ids) => {
                    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                    let syms: Vec<i64> = syms_of(w.tx(), &refs)
                        .map_err(&err)?
                        .into_iter()
                        .flatten()
                        .collect();
                    load_part(w.tx(), &syms).map_err(&err)?
                }
            };
            let meta = if scope.meta() {
                load_meta(w.tx()).map_err(&err)?
            } else {
                Metadata::new()
            };
            lazy = Some((loaded, meta));
        }
        let (loaded, meta): (&mut Loaded, &mut Metadata) = match (&mut lazy, resident.as_mut()) {
            (Some((l, m)), _) => (l, m),
            (None, Some(r)) => (&mut r.loaded, &mut r.meta),
            (None, None) => unreachable!("loaded above"),
        };
        let scope_ids: Option<Vec<NodeId>> = scope.ids().map(|ids| {
            ids.iter()
                .filter_map(|id| loaded.graph.lookup(id))
                .collect()
        });
        let pre = Pre::capture(loaded, scope_ids.as_deref());
        let with_meta = scope.meta();
        let meta_before = with_meta.then(|| meta.clone());
        let mut no_meta = Metadata::new();
        let outcome = {
            let mut vectors = TxnVectors::new(&mut w, dir.clone(), layout, dim, nonce);
            let meta_ref: &mut Metadata = if with_meta { &mut *meta } else { &mut no_meta };
            let mut working = Working::new(&mut loaded.graph, &mut vectors, meta_ref, &mut journal);
            let value = op(&mut working);
            let keep = working.keeps();
            vectors.finish().and(value).map(|v| (v, keep))
        };
        let (value, keep) = match outcome {
            Ok(x) => x,
            Err(e) => {
                if let Some(r) = resident.as_mut() {
                    r.stale = true;
                }
                return Err(e);
            }
        };
        if dry {
            drop(w);
            if let Some(r) = resident.as_mut() {
                r.stale = true;
            }
            return Ok(value);
        }
        if keep {
            let written = write_back(
                &mut w,
                &pre,
                loaded,
                meta_before.as_ref(),
                with_meta.then_some(&*meta),
            );
            if let Err(e) = written {
                if let Some(r) = resident.as_mut() {
                    r.stale = true;
                }
                return Err(e);
            }
            if meta_before.as_ref().is_some_and(|b| b != &*meta) {
                w.structure_changed();
            }
        } else if let Some(r) = resident.as_mut() {
            // the operation may have changed the graph in memory without keeping it
            r.stale = true;
        }
        for e in &journal {
            let text = crate::store::rows::journal_text(e)?;
            crate::store::rows::append_journal(w.tx(), &text).map_err(&err)?;
        }
        let touched = w.vectors_touched();
        let dv = w.data_version()?;
        let clock = match w.commit() {
            Ok(c) => c,
            Err(e) => {
                if let Some(r) = resident.as_mut() {
                    r.stale = true;
                }
                return Err(e);
            }
        };
        if dim == 0 || (layout, dim) != (store.layout(), store.dim()) {
            store.reload_dim()?;
        }
        // the derived search index: rebuilt after vectors were deleted or replaced, or
        // once many were added since it was built
        if layout == Layout::Sparse
            && touched
            && crate::store::search::needs_rebuild(store.conn(), &dir, store.dim(), nonce)
                .map_err(&err)?
        {
            crate::store::search::rebuild(store.conn(), &dir, layout, store.dim(), nonce)?;
        }
        if let Some(r) = resident.as_mut() {
            if !r.stale {
                r.clock = clock;
                r.data_version = dv;
                r.searcher.refresh(store.conn(), &dir).map_err(&err)?;
            }
        }
        Ok(value)
    }

    /// Runs `op` like [`Brain::write`] on a throwaway copy of the brain (a dry run):
    /// nothing it changes is kept, its journal entries are.
    pub fn write_dry<T>(
        &mut self,
        scope: Scope<'_>,
        op: impl FnOnce(&mut Working<'_>) -> Result<T>,
    ) -> Result<T> {
        match &mut self.backend {
            Backend::Json(_) => {
                let mut copy = self.json_state()?.clone();
                let mut journal = Vec::new();
                let value = {
                    let mut w = Working::of_state(&mut copy, &mut journal);
                    op(&mut w)?
                };
                self.append_json_journal(journal)?;
                Ok(value)
            }
            Backend::Store(_) => {
                let mut entries = Vec::new();
                let value = self.write_store_with(scope, true, |w| {
                    let v = op(w)?;
                    entries = w.take_journal();
                    Ok(v)
                })?;
                self.journal_stamped(entries)?;
                Ok(value)
            }
        }
    }

    /// Runs `op` on the whole brain without changing it (health, info, export).
    pub fn read<T>(&mut self, op: impl FnOnce(&Graph, &Metadata) -> T) -> Result<T> {
        self.catch_up()?;
        match &mut self.backend {
            Backend::Json(_) => {
                let st = self.json_state()?;
                Ok(op(&st.graph, &st.meta))
            }
            Backend::Store(s) => {
                if let Some(r) = &s.resident {
                    return Ok(op(&r.loaded.graph, &r.meta));
                }
                let path = s.store.path().to_path_buf();
                let err = sql_error(&path);
                let tx = s.store.read()?;
                let loaded = load_all(&tx).map_err(&err)?;
                let meta = load_meta(&tx).map_err(&err)?;
                tx.commit().map_err(&err)?;
                Ok(op(&loaded.graph, &meta))
            }
        }
    }

    /// Appends journal entries on their own (a query's, `health`'s).
    pub fn journal(&mut self, events: Vec<PyDict>) -> Result<()> {
        let entries: Vec<PyDict> = events
            .into_iter()
            .map(|e| crate::reference::journal::stamp(e, pyformat::pytime::time_time()))
            .collect();
        self.journal_stamped(entries)
    }

    fn journal_stamped(&mut self, entries: Vec<PyDict>) -> Result<()> {
        match &mut self.backend {
            Backend::Json(_) => self.append_json_journal(entries),
            Backend::Store(s) => {
                if !s.store.writable() {
                    return Ok(());
                }
                let path = s.store.path().to_path_buf();
                for e in &entries {
                    let text = crate::store::rows::journal_text(e)?;
                    crate::store::rows::append_journal(s.store.conn(), &text)
                        .map_err(sql_error(&path))?;
                }
                if let Some(r) = s.resident.as_mut() {
                    // our own commit: nothing to catch up with
                    r.data_version = s.store.data_version()?;
                }
                Ok(())
            }
        }
    }

    /// The journal's entries in order: from the database's table, or the state file's
    /// `journal.jsonl` (see [`crate::reference::journal::read_journal`]).
    pub fn journal_entries(&mut self) -> Result<crate::reference::journal::Journal> {
        match &self.backend {
            Backend::Json(j) => crate::reference::journal::read_journal(&j.journal, self.profile),
            Backend::Store(s) => {
                let rows = crate::store::rows::journal_rows(s.store.conn())
                    .map_err(sql_error(s.store.path()))?;
                let mut out = crate::reference::journal::Journal::default();
                for (i, (seq, l)) in rows.iter().enumerate() {
                    match pyformat::pyjson::loads(l) {
                        Ok(pyformat::pyjson::PyValue::Dict(d)) => {
                            out.entries.push(d);
                            out.positions.push(*seq);
                        }
                        _ => out.malformed.push(i + 1),
                    }
                }
                Ok(out)
            }
        }
    }
}

/// Reads a state or graph file into a state.
pub(super) fn read_json(j: &JsonBackend) -> Result<State> {
    if let Some(p) = &j.state_path {
        if let Some(st) = crate::reference::sidecar::load(p) {
            return Ok(st);
        }
        return crate::reference::statefile::load_state(p);
    }
    let Some(g) = &j.graph_path else {
        return Err(Error::Invalid("no brain given".into()));
    };
    let (graph, _) = crate::reference::reffiles::read_graph(g)?;
    let index = match &j.index_path {
        Some(i) => crate::reference::reffiles::read_index(i)?,
        None => Default::default(),
    };
    Ok(State::new(graph, index))
}

/// The identity of a state file's current version: size, modification time and
/// inode (an atomic save makes a new inode); `None` if it cannot be read.
pub fn file_version(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0u64;
    Some(format!("{}:{t}:{ino}", m.len()))
}

/// Appends a write's journal `entries` to a state file's journal (nothing when there
/// are none: the file is not even opened).
fn append_journal(journal: &Path, entries: &[PyDict]) -> Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    crate::reference::journal::append_entries(journal, entries)
}

/// Saves a state file as the reference does (`store.py::save_state` with the loaded
/// meta), keeping the previous file as `<state>.bak` and refreshing the binary
/// sidecar.
pub fn save_state_file(path: &Path, state: &State) -> Result<()> {
    save_state_file_then(path, state, || Ok(()))
}

/// [`save_state_file`], with `before` run once the new file is written beside the old
/// one and before it replaces it ([`pyformat::io::stage_atomic`]): a write's journal
/// entries go there, so that an entry that finds no room (a full disk) leaves the state
/// file as it was (only its `.bak` has been refreshed to the current content) instead of
/// a changed state without its entry.
pub fn save_state_file_then(
    path: &Path,
    state: &State,
    before: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let rendered = crate::reference::statefile::render_state(path, state, None, None, None)?;
    pyformat::io::keep_backup(path)?;
    let staged = pyformat::io::stage_atomic(path, rendered.text.as_bytes())?;
    before()?;
    staged.commit()?;
    let _ = crate::reference::sidecar::write_rendered(path, &rendered, &state.index);
    Ok(())
}

/// Applies other processes' commits to a resident brain (inside a transaction that
/// sees them): rows with a newer revision are applied in order; after a structural
/// change (deletions, reordering, a new `meta`) everything is read again.
fn refresh_resident(
    conn: &rusqlite::Connection,
    dir: &Path,
    r: &mut Resident,
) -> rusqlite::Result<()> {
    let clock = crate::store::read_clock_of(conn)?;
    if r.stale || clock.structure != r.clock.structure {
        r.loaded = load_all(conn)?;
        r.meta = load_meta(conn)?;
        r.searcher.refresh(conn, dir)?;
        r.clock = clock;
        r.stale = false;
        return Ok(());
    }
    if clock.rev == r.clock.rev {
        return Ok(());
    }
    crate::store::rows::apply_newer(conn, &mut r.loaded, r.clock.rev)?;
    r.searcher.refresh(conn, dir)?;
    r.clock = clock;
    Ok(())
}
