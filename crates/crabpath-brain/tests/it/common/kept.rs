//! What `reembed` keeps (issue 28, item 7), read from a brain database for the tests
//! of the library (`tests/it/reembed.rs`) and of the command line
//! (`crabpath-cli/tests/it/reembed.rs`; its `main.rs` includes this file by path).

use std::path::Path;

use rusqlite::types::Value;

/// The rows of several queries, every column as SQLite holds it.
pub type Tables = Vec<Vec<Vec<Value>>>;

/// The rows of `sql`.
pub fn dump(c: &rusqlite::Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut st = c.prepare(sql).unwrap();
    let n = st.column_count();
    let rows = st
        .query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap();
    rows.collect::<Result<Vec<_>, _>>().unwrap()
}

/// The database at `db`, read-only.
pub fn open(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// What a reembed keeps: nodes, edges, journal, conversation log, ledger, and the
/// `meta` keys other than the embedder's — every column, byte for byte.
pub fn kept(db: &Path) -> Tables {
    let c = open(db);
    [
        "SELECT * FROM nodes ORDER BY sym",
        "SELECT * FROM edges ORDER BY src, tgt",
        "SELECT * FROM journal ORDER BY seq",
        "SELECT * FROM turns ORDER BY chat_id, turn",
        "SELECT * FROM ledger ORDER BY hash",
        "SELECT key, value FROM meta WHERE key NOT IN ('embedder_name', 'embedder_dim', 'embedder') ORDER BY pos",
    ]
    .iter()
    .map(|q| dump(&c, q))
    .collect()
}
