//! The brain's system of record: one SQLite database ([`schema`]) through `rusqlite`
//! (SQLite compiled in, no system library).
//!
//! * **Journal mode WAL**: readers never wait for a writer and see the last committed
//!   state; one writer at a time.
//! * **`synchronous = NORMAL`** (SQLite's recommendation with WAL): a committed
//!   transaction survives the crash or `kill -9` of any process; a power cut may lose
//!   the last transactions before the next checkpoint, never corrupt the database.
//!   (`FULL` would add an `fsync` to every commit, every query's journal entry
//!   included.)
//! * **Pages of [`PAGE_SIZE`] bytes** (SQLite's default is 4,096): a MiniLM vector row
//!   (384 × 4 B, 1.5 KB) fills a 4 KB page to 78 % (two rows), an 8 KB page to 94 %
//!   (five). On tldr-pages (79,118 chunks) the MiniLM brain takes 164 MB instead of 201
//!   MB — 1.28 × its dense vectors and texts instead of 1.56 ×. Set when the file is
//!   created; a brain created before keeps its pages (it works either way).
//! * **Busy timeout** of [`BUSY_TIMEOUT`]: a writer waits for the one before it.
//!   Writes start with `BEGIN IMMEDIATE`, so two writers never deadlock on an upgrade;
//!   every read-modify-write (`learn`, `inject`, …) reads its rows inside its write
//!   transaction, so no update is lost.
//! * **Checks on open**, before anything is written: the file must be a SQLite
//!   database of a brain ([`schema::APPLICATION_ID`]), not truncated, of a schema this
//!   program knows ([`schema::SCHEMA_VERSION`]; older ones are migrated).
//!
//! Cost: opening is a handful of page reads, independent of the brain's size.

pub mod build;
pub mod codec;
pub mod lexical;
pub mod raw;
pub mod rows;
pub mod schema;
pub mod search;
pub mod speaker;
pub mod vectors;
pub mod working;
pub mod writeback;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{
    params, Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior,
};

use crate::error::{Error, Result};
use schema::{APPLICATION_ID, DB_FILE, MIGRATIONS, SCHEMA_VERSION};

/// The page size of a new brain database (see the module docs).
pub const PAGE_SIZE: u32 = 8192;

/// How long a writer waits for the one before it.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// How many prepared statements a brain's connection keeps for reuse
/// (`prepare_cached`): more than the distinct statements of a served query, its
/// journal entry and turn log included, so that none is parsed again per query.
pub const STATEMENT_CACHE: usize = 64;

/// How vectors are encoded and scored (column `brain.layout`, see [`schema`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Non-zero components only; scores summed over them in component order.
    Sparse,
    /// Every component; scores by `crabpath::vectors::dot`.
    Dense,
}

impl Layout {
    /// The column value.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Sparse => "sparse",
            Layout::Dense => "dense",
        }
    }

    /// The layout a column value names (`sparse`, `dense`), `None` for any other.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "sparse" => Some(Layout::Sparse),
            "dense" => Some(Layout::Dense),
            _ => None,
        }
    }
}

/// The vector layout of an embedder: hash-v1 vectors are mostly zero (sparse), other
/// embedders' are dense.
pub fn layout_for(embedder: &str) -> Layout {
    if embedder == crabpath::embed::HashEmbedder::NAME {
        Layout::Sparse
    } else {
        Layout::Dense
    }
}

/// The counters of the `brain` row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    /// The last write transaction.
    pub rev: i64,
    /// The last position key handed out.
    pub seq: i64,
    /// Bumped when rows are deleted or reordered.
    pub structure: i64,
    /// Bumped when the vectors are replaced wholesale (a rollback).
    pub vectors: i64,
}

/// An open brain database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    layout: Layout,
    dim: usize,
    nonce: i64,
    writable: bool,
    /// Asked for writing, opened for reading: the file or its directory is not
    /// writable by this process (see [`Store::open`]).
    read_only_fallback: bool,
    /// The schema version of the file as opened (after any migration).
    version: i32,
    /// The process's descriptor of the file, for reading its header ([`raw`]); last,
    /// so that it is dropped after the connection. `None` for a new database
    /// ([`Store::create`]), which nobody else knows yet.
    _raw: Option<raw::Held>,
}

/// Whether a non-empty write-ahead log (`<path>-wal`) lies beside a database.
fn wal_beside(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).is_ok_and(|m| m.len() > 0)
}

/// `file:<path>?immutable=1`, the path percent-encoded (SQLite URI filenames).
fn immutable_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// Whether this process may write `path` and create files beside it (SQLite's
/// write-ahead log and shared-memory files): `access(2)` with `W_OK` on both, so a
/// file of another user, `chmod -w`, an immutable file or a read-only mount count,
/// while root passes mode bits as the kernel lets it.
fn may_write(path: &Path) -> bool {
    let ok = file_writable;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    ok(path) && ok(dir)
}

/// Whether this process may write the file at `path` (`access(2)`; the file is not
/// opened, see [`raw`]).
pub fn file_writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        // SAFETY: `c` is a valid NUL-terminated string for the duration of the call.
        .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
}

/// A random number for a new database (hashed from the time, the process and the
/// path with the standard library's randomly keyed hasher).
fn fresh_nonce(path: &Path) -> i64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write(path.as_os_str().as_encoded_bytes());
    h.write_u32(std::process::id());
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    (h.finish() >> 1) as i64
}

/// A SQLite error on the database at `path`.
pub fn sql_error(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

fn brain_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Brain {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The database file of a brain directory.
pub fn db_path(dir: &Path) -> PathBuf {
    dir.join(DB_FILE)
}

/// Whether the file starts like a SQLite database.
fn has_sqlite_header(raw: &raw::Held, path: &Path) -> Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 16];
    let n = raw
        .file()
        .read_at(&mut head, 0)
        .map_err(|e| crate::error::io_error(path, e))?;
    Ok(n == 16 && &head == b"SQLite format 3\0")
}

/// A database file shorter than its header says has lost pages: refused before
/// SQLite reads past its end.
///
/// The file is read without a lock, and a checkpoint of another process copies pages
/// from the WAL in page order, header first: for a moment the header may count pages
/// not yet written. So a short file is looked at again, and refused only if it stays
/// short while no WAL file exists (once the last connection closes, the WAL is
/// checkpointed and removed). While a WAL remains, SQLite reads the pages from it and
/// reports a page missing from both as a malformed database.
fn check_not_truncated(raw: &raw::Held, path: &Path) -> Result<()> {
    let wal = {
        let mut p = path.as_os_str().to_owned();
        p.push("-wal");
        PathBuf::from(p)
    };
    let mut short = 0;
    for _ in 0..40 {
        let Some((len, expected)) = header_size(raw, path)? else {
            return Ok(());
        };
        if len >= expected {
            return Ok(());
        }
        let wal_present = std::fs::metadata(&wal)
            .map(|m| m.len() > 0)
            .unwrap_or(false);
        short = if wal_present { 0 } else { short + 1 };
        if short == 3 {
            return Err(brain_error(
                path,
                format!(
                    "truncated: {len} bytes, its header says {expected}: restore a snapshot or re-run init"
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}

/// The file's length and the length its header records, if the header records one
/// (its "version valid for" number matches its change counter).
fn header_size(raw: &raw::Held, path: &Path) -> Result<Option<(u64, u64)>> {
    use std::os::unix::fs::FileExt;
    let f = raw.file();
    let len = f
        .metadata()
        .map_err(|e| crate::error::io_error(path, e))?
        .len();
    if len == 0 {
        return Err(brain_error(path, "empty file, not a brain database"));
    }
    let mut head = [0u8; 100];
    if f.read_exact_at(&mut head, 0).is_err() {
        return Err(brain_error(
            path,
            format!("truncated ({len} bytes, shorter than a database header): restore a snapshot or re-run init"),
        ));
    }
    let page_size = match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65_536u64,
        n => u64::from(n),
    };
    let pages = u64::from(u32::from_be_bytes([head[28], head[29], head[30], head[31]]));
    let valid_for = u32::from_be_bytes([head[92], head[93], head[94], head[95]]);
    let change = u32::from_be_bytes([head[24], head[25], head[26], head[27]]);
    Ok((valid_for == change && pages > 0).then_some((len, pages * page_size)))
}

impl Store {
    /// Opens the brain database at `path` (read-only unless `write`), after checking
    /// that it is one (see the module docs). A database of an older schema is migrated
    /// when opened for writing, and refused otherwise. A database this process may not
    /// write (a read-only file or directory) is opened read-only even when `write` is
    /// asked ([`Store::read_only_fallback`]): it can still be queried (SQLite refused
    /// every statement: `attempt to write a readonly database`), and a write is an
    /// error saying why.
    ///
    /// Errors ([`Error::Brain`], one line naming the file): missing, empty, truncated,
    /// not a SQLite database, a SQLite database of another application, a newer schema.
    pub fn open(path: &Path, write: bool) -> Result<Store> {
        if !path.is_file() {
            return Err(brain_error(path, "no such brain database"));
        }
        // the header is read through the process's one descriptor of the file: closing
        // another would drop the locks of this process's other connections to it
        let raw = raw::Held::open(path).map_err(|e| crate::error::io_error(path, e))?;
        if !has_sqlite_header(&raw, path)? {
            return Err(brain_error(
                path,
                "not a brain database (not a SQLite file): was it overwritten or truncated? restore a snapshot or re-run init",
            ));
        }
        check_not_truncated(&raw, path)?;
        let cannot_write = !may_write(path);
        let read_only_fallback = write && cannot_write;
        let write = write && !read_only_fallback;
        let flags = if write {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn = if cannot_write && !wal_beside(path) {
            // SQLite reads a write-ahead-log database only if it can create the
            // `-shm` file beside it, or if told that the file cannot change
            // (`immutable=1`): nobody may write here, and no log holds pending pages.
            // A read (`info`, `health`, `doctor`) as much as a write that falls back
            // to reading: before, `info` of a read-only brain failed with "not a
            // readable SQLite database: attempt to write a readonly database"
            Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
        } else {
            Connection::open_with_flags(path, flags)
        }
        .map_err(sql_error(path))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_error(path))?;
        // plans that never depend on a bound value: a cached statement whose parameter
        // the planner read (an FTS5 `MATCH ?1`) is otherwise compiled again at every
        // new binding, a fifth of a served query's time
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )
        .map_err(sql_error(path))?;
        // a served query runs about twenty statements, each prepared once per
        // connection from this cache (rusqlite's default holds 16)
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let app: i32 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .map_err(|e| brain_error(path, format!("not a readable SQLite database: {e}")))?;
        let version: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql_error(path))?;
        if app != APPLICATION_ID {
            return Err(brain_error(
                path,
                format!("a SQLite database of another program (application_id {app:#x}), not a crabpath brain"),
            ));
        }
        if version > SCHEMA_VERSION {
            return Err(brain_error(
                path,
                format!(
                    "written by a newer crabpath (schema {version}; this program reads schemas up to {SCHEMA_VERSION}): upgrade crabpath, or export the brain there and import it here"
                ),
            ));
        }
        if version < 1 {
            return Err(brain_error(path, format!("unknown brain schema {version}")));
        }
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            layout: Layout::Dense,
            dim: 0,
            nonce: 0,
            writable: write,
            read_only_fallback,
            version,
            _raw: Some(raw),
        };
        if write {
            store.configure()?;
            if version < SCHEMA_VERSION {
                store.migrate(version)?;
                store.version = SCHEMA_VERSION;
            }
        } else if version < schema::READ_COMPATIBLE {
            return Err(brain_error(
                path,
                format!("schema {version} needs an upgrade to {SCHEMA_VERSION}: open it once for writing (e.g. crabpath doctor)"),
            ));
        }
        (store.layout, store.dim, store.nonce) = store.read_layout()?;
        Ok(store)
    }

    /// Creates a new brain database at `path` (which must not exist) with the vector
    /// layout `layout`, for a bulk load: the caller fills it in one transaction and
    /// closes it (see [`Store::finish_bulk`]).
    pub fn create(path: &Path, layout: Layout, dim: usize) -> Result<Store> {
        let nonce = fresh_nonce(path);
        if path.exists() {
            return Err(brain_error(path, "exists already"));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(sql_error(path))?;
        let err = sql_error(path);
        // the page size first (it is fixed once the first page is written); a fresh file
        // that nobody else knows needs no journal while it is filled
        conn.pragma_update(None, "page_size", PAGE_SIZE)
            .map_err(&err)?;
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
            .map_err(&err)?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(&err)?;
        schema::create_current(&conn).map_err(&err)?;
        conn.execute(
            "INSERT INTO brain(id, rev, seq, structure, vectors, layout, dim, nonce, nodes) VALUES (1, 0, 0, 0, 0, ?1, ?2, ?3, 0)",
            params![layout.as_str(), dim as i64, nonce],
        )
        .map_err(&err)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(&err)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            layout,
            dim,
            nonce,
            writable: true,
            read_only_fallback: false,
            version: SCHEMA_VERSION,
            _raw: None,
        })
    }

    /// Ends a bulk load started by [`Store::create`]: the file is switched to WAL
    /// mode, flushed to disk and closed.
    pub fn finish_bulk(self) -> Result<()> {
        let err = sql_error(&self.path);
        self.conn
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
            .map_err(&err)?;
        self.conn.close().map_err(|(_, e)| err(e))?;
        let f =
            std::fs::File::open(&self.path).map_err(|e| crate::error::io_error(&self.path, e))?;
        f.sync_all()
            .map_err(|e| crate::error::io_error(&self.path, e))?;
        Ok(())
    }

    fn configure(&self) -> Result<()> {
        let err = sql_error(&self.path);
        let mode: String = self
            .conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(&err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(brain_error(
                &self.path,
                format!("cannot use write-ahead logging (journal mode {mode}): is the file system read-only?"),
            ));
        }
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(&err)?;
        Ok(())
    }

    fn migrate(&mut self, from: i32) -> Result<()> {
        let path = self.path.clone();
        let err = sql_error(&path);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&err)?;
        let current: i32 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(&err)?;
        if current == from {
            for (i, step) in MIGRATIONS.iter().enumerate().skip((from - 1) as usize) {
                tx.execute_batch(step).map_err(&err)?;
                tx.pragma_update(None, "user_version", i as i32 + 2)
                    .map_err(&err)?;
            }
        }
        tx.commit().map_err(&err)
    }

    fn read_layout(&self) -> Result<(Layout, usize, i64)> {
        read_layout_of(&self.conn, &self.path)
    }

    /// The schema version of the file (older than [`SCHEMA_VERSION`] only when it was
    /// opened for reading, see [`schema::READ_COMPATIBLE`]).
    pub fn schema_version(&self) -> i32 {
        self.version
    }

    /// Whether the brain has the lexical index ([`lexical`]; schema 3 on).
    pub fn has_lexical(&self) -> bool {
        self.version >= 3
    }

    /// Whether the brain keeps its question nodes and corrections in an index of their
    /// own ([`schema::SCHEMA_V5_ASIDE_LEXICAL`]; schema 5 on); before, they are in the
    /// lexical index.
    pub fn has_aside_lexical(&self) -> bool {
        self.version >= 5
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory holding the database (and the derived search index).
    pub fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The vector layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The vectors' dimension (0 for a brain created without vectors).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The number naming this database (see [`schema`]).
    pub fn nonce(&self) -> i64 {
        self.nonce
    }

    /// Re-reads the dimension (a first vector may have set it).
    pub fn reload_dim(&mut self) -> Result<()> {
        (self.layout, self.dim, self.nonce) = self.read_layout()?;
        Ok(())
    }

    /// Whether the database was opened for writing.
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// Whether writing was asked but the file or its directory is read-only, so the
    /// database was opened for reading (queries work, their journal entries are
    /// skipped).
    pub fn read_only_fallback(&self) -> bool {
        self.read_only_fallback
    }

    /// The connection (for the row helpers of this module's submodules).
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The counters, as committed.
    pub fn clock(&self) -> Result<Clock> {
        read_clock(&self.conn).map_err(sql_error(&self.path))
    }

    /// The number of nodes (kept in the `brain` row; no scan).
    pub fn node_count(&self) -> Result<usize> {
        self.conn
            .query_row("SELECT nodes FROM brain WHERE id = 1", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as usize)
            .map_err(sql_error(&self.path))
    }

    /// `PRAGMA data_version`: changes when another connection commits.
    pub fn data_version(&self) -> Result<i64> {
        self.conn
            .pragma_query_value(None, "data_version", |r| r.get(0))
            .map_err(sql_error(&self.path))
    }

    /// Whether the file at this store's path is no longer the one it has open: another
    /// program renamed a new brain over it (`crabpath init` or `import` into its
    /// directory) or deleted it. A write to the open file would then be lost: nobody
    /// opens that file again. `false` for a store made by [`Store::create`].
    pub fn replaced(&self) -> bool {
        self._raw
            .as_ref()
            .is_some_and(|r| r.replaced_at(&self.path))
    }

    /// Opens the file at this store's path again when it was replaced
    /// ([`Store::replaced`]), as it was opened (for writing or not); whether it did.
    ///
    /// # Errors
    /// What [`Store::open`] refuses (the path deleted: no such brain database).
    pub fn reopen_if_replaced(&mut self) -> Result<bool> {
        if !self.replaced() {
            return Ok(false);
        }
        let fresh = Store::open(&self.path, self.writable || self.read_only_fallback)?;
        *self = fresh;
        Ok(true)
    }

    /// Starts a write transaction (`BEGIN IMMEDIATE`: waits for the current writer,
    /// then holds the write lock until commit or drop). Its commit is refused when the
    /// file was replaced meanwhile ([`Store::replaced`]).
    pub fn write(&mut self) -> Result<Write<'_>> {
        if self.read_only_fallback {
            return Err(brain_error(
                &self.path,
                "read-only (this user may not write the file or its directory): nothing was written",
            ));
        }
        if !self.writable {
            return Err(brain_error(&self.path, "opened read-only"));
        }
        let path = self.path.clone();
        let raw = self._raw.as_ref();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_error(&path))?;
        let clock = read_clock(&tx).map_err(sql_error(&path))?;
        Ok(Write {
            tx,
            raw,
            path,
            rev: clock.rev + 1,
            seq: clock.seq,
            clock,
            structure: false,
            vectors: false,
            added: false,
            nodes: 0,
        })
    }

    /// Starts a read transaction: every statement until it ends sees one committed
    /// state.
    pub fn read(&mut self) -> Result<Transaction<'_>> {
        let path = self.path.clone();
        self.conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(sql_error(&path))
    }

    /// `PRAGMA integrity_check`: the problems found (empty when the database is
    /// sound). Reads the whole file.
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(sql_error(&self.path))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(sql_error(&self.path))?;
        let mut out = Vec::new();
        for r in rows {
            let line = r.map_err(sql_error(&self.path))?;
            if line != "ok" {
                out.push(line);
            }
        }
        Ok(out)
    }
}

/// The vector layout, dimension and nonce of the `brain` row as `conn` sees it (inside
/// a transaction: as that transaction sees it; `reembed` changes layout and dimension,
/// so a long-lived process reads them again in every write). `path` names the file in
/// errors.
pub fn read_layout_of(conn: &Connection, path: &Path) -> Result<(Layout, usize, i64)> {
    let row: Option<(String, i64, i64)> = conn
        .query_row(
            "SELECT layout, dim, nonce FROM brain WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
        .map_err(sql_error(path))?;
    match row {
        Some((l, d, n)) if d >= 0 => match Layout::parse(&l) {
            Some(layout) => Ok((layout, d as usize, n)),
            None => Err(brain_error(
                path,
                format!("damaged: unknown vector layout `{l}`"),
            )),
        },
        _ => Err(brain_error(
            path,
            "damaged: its `brain` row is missing; restore a snapshot or re-run init",
        )),
    }
}

/// The counters as `conn` sees them (inside a transaction: as it sees them).
pub fn read_clock_of(conn: &Connection) -> rusqlite::Result<Clock> {
    read_clock(conn)
}

fn read_clock(conn: &Connection) -> rusqlite::Result<Clock> {
    conn.query_row(
        "SELECT rev, seq, structure, vectors FROM brain WHERE id = 1",
        [],
        |r| {
            Ok(Clock {
                rev: r.get(0)?,
                seq: r.get(1)?,
                structure: r.get(2)?,
                vectors: r.get(3)?,
            })
        },
    )
}

/// A write transaction: its revision number (stamped on every row it writes), the
/// position keys it hands out, and whether it deleted or reordered rows or vectors.
/// Dropped without [`Write::commit`], it rolls back.
pub struct Write<'a> {
    tx: Transaction<'a>,
    /// The store's descriptor of its file: a commit checks that the file is still the
    /// one at the path ([`Store::replaced`]).
    raw: Option<&'a raw::Held>,
    path: PathBuf,
    /// This transaction's revision.
    pub rev: i64,
    seq: i64,
    clock: Clock,
    structure: bool,
    vectors: bool,
    added: bool,
    nodes: i64,
}

impl Write<'_> {
    /// Records nodes added (positive) or removed (negative).
    pub fn count_nodes(&mut self, delta: i64) {
        self.nodes += delta;
    }

    /// The transaction (for the row helpers).
    pub fn tx(&self) -> &Transaction<'_> {
        &self.tx
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The counters as they were when the transaction began.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// A fresh position key, after every one handed out so far.
    pub fn next_seq(&mut self) -> i64 {
        self.seq += 1;
        self.seq
    }

    /// Records that rows were deleted or reordered (readers holding the graph in
    /// memory reload it).
    pub fn structure_changed(&mut self) {
        self.structure = true;
    }

    /// Records that the vectors were replaced wholesale (the derived search index no
    /// longer applies).
    pub fn vectors_changed(&mut self) {
        self.vectors = true;
    }

    /// Records that vectors were added, replaced or deleted.
    pub fn vectors_added(&mut self) {
        self.added = true;
    }

    /// Whether vectors were added, deleted or replaced.
    pub fn vectors_touched(&self) -> bool {
        self.vectors || self.added
    }

    /// `PRAGMA data_version` as this transaction sees it (no other connection can
    /// commit while it holds the write lock).
    pub fn data_version(&self) -> Result<i64> {
        self.tx
            .pragma_query_value(None, "data_version", |r| r.get(0))
            .map_err(sql_error(&self.path))
    }

    /// A SQLite error of this transaction, naming the file.
    pub fn err(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        sql_error(&self.path)
    }

    /// Commits: the counters are advanced, then the transaction is made durable
    /// (see the module docs). Returns the counters after the commit.
    pub fn commit(self) -> Result<Clock> {
        let clock = Clock {
            rev: self.rev,
            seq: self.seq,
            structure: self.clock.structure + i64::from(self.structure),
            vectors: self.clock.vectors + i64::from(self.vectors),
        };
        let err = sql_error(&self.path);
        if self.raw.is_some_and(|r| r.replaced_at(&self.path)) {
            // committed into a file nobody opens any more, the write would be lost:
            // rolled back (dropped), and refused
            return Err(brain_error(
                &self.path,
                "was replaced or removed by another program (crabpath init or import) while this write ran: nothing was written; ask again",
            ));
        }
        self.tx
            .execute(
                "UPDATE brain SET rev = ?1, seq = ?2, structure = ?3, vectors = ?4, nodes = nodes + ?5 WHERE id = 1",
                params![clock.rev, clock.seq, clock.structure, clock.vectors, self.nodes],
            )
            .map_err(&err)?;
        self.tx.commit().map_err(&err)?;
        Ok(clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new brain has pages of [`PAGE_SIZE`] bytes, also after the switch to WAL and a
    /// reopen (a page size set too late would silently stay at SQLite's 4,096).
    #[test]
    fn a_new_brain_has_the_chosen_page_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("brain.db");
        Store::create(&path, Layout::Dense, 4)
            .unwrap()
            .finish_bulk()
            .unwrap();
        let store = Store::open(&path, false).unwrap();
        let size: u32 = store
            .conn()
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .unwrap();
        // SQLite's default is 4,096, so this fails when the pragma comes too late.
        assert_eq!(size, PAGE_SIZE);
    }
}
