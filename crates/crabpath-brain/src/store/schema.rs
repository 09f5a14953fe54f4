//! The brain database's schema, its version and its migrations.
//!
//! A brain is one SQLite file, `brain.db`, in the brain's directory. It can be opened
//! with the `sqlite3` shell; every table is documented here.
//!
//! | table | one row per | columns |
//! |---|---|---|
//! | `brain` | (one row) | `rev`: the last write transaction's number (every row it wrote carries it); `seq`: the last position key handed out; `structure`: bumped when rows are deleted or reordered; `vectors`: bumped when the vectors are replaced wholesale (a rollback); `layout`: `sparse` or `dense` (how vectors are encoded and scored); `dim`: the vectors' dimension; `nonce`: a random number naming this database (the derived search index records it); `nodes`: the number of nodes |
//! | `meta` | key of the state's `meta` object | `key`, `pos` (key order), `value` (JSON) |
//! | `nodes` | node id (and edge endpoint without a node) | `sym` (integer key), `id`, `node_seq` (position in node order; NULL for an endpoint without a node), `bucket_seq` (position of its outgoing edges among sources; NULL without any), `content`, `summary`, `metadata` (JSON object), `file` (the `file` metadata, for sync), `rev` |
//! | `edges` | directed edge | `src`, `tgt` (node `sym`s), `seq` (position among the source's edges), `weight`, `kind`, `metadata` (JSON object, NULL when empty), `rev` |
//! | `vectors` | node vector | `seq` (position in index order), `sym`, `v` (the unit vector as `f32`, see below), `rev` |
//! | `vector_gone` | deleted vector | `sym`, `rev` (the derived search index leaves out vectors deleted after it was built; rows older than the index are dropped when it is rebuilt) |
//! | `journal` | journal entry | `seq`, `entry` (the JSON line the reference's `journal.jsonl` holds) |
//! | `turns`, `ledger` | see [`SCHEMA_V2_CONVERSATIONS`] | |
//! | `nodes_fts` | node with content (FTS5, contentless; `rowid` = `nodes.sym`), the nodes set aside (questions, corrections) left out | `text`: the node's content with `[` and `]` removed; `file`: the node's file and document header (`metadata.doc`; so every chunk of `tar.md` matches "tar" and "archiving"); tokenized `porter unicode61 remove_diacritics 2`; kept by triggers on `nodes` (see [`SCHEMA_V3_LEXICAL`], [`SCHEMA_V5_ASIDE_LEXICAL`]) |
//! | `aside_fts` | node set aside: a question (`auto:`) or a correction (FTS5, contentless; `rowid` = `nodes.sym`) | `text`, as `nodes_fts`'s; kept by triggers on `nodes` (see [`SCHEMA_V5_ASIDE_LEXICAL`]) |
//!
//! Orders are those of the reference's in-memory graph (reference
//! `crabpath/graph.py`, commit 134c676): nodes by `node_seq`; sources by `bucket_seq`,
//! each source's edges by `seq`; vectors by `seq`. Position keys are taken from one
//! counter (`brain.seq`), so a new node, source, edge or vector sorts after every
//! existing one, as it does in memory.
//!
//! Vectors are unit vectors rounded once to `f32` (`crabpath::vectors::normalize_into`),
//! little-endian. With `layout = 'dense'` a blob holds `dim` floats; with `layout =
//! 'sparse'` (hash-v1, whose vectors are mostly zero) it holds the `k` non-zero
//! components: since schema 4 as a table of their distinct values and, per component,
//! its index gap and its value's place in the table
//! ([`super::codec::sparse_entries`]); before, as `k` `u16` indices (ascending)
//! followed by their `k` floats, a form still read.
//!
//! `PRAGMA application_id` marks the file as a brain and `PRAGMA user_version` is the
//! schema version: a file of another application, or of a newer schema than this
//! program knows, is refused before anything is written; an older one is migrated in
//! one transaction ([`MIGRATIONS`]).

/// `PRAGMA application_id` of a brain database: "CPBR".
pub const APPLICATION_ID: i32 = 0x4350_4252;

/// The schema version this program writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = 5;

/// The oldest schema version read without migrating it (a brain opened for reading
/// cannot be migrated): version 3 only adds the lexical index, derived from the nodes,
/// which a query of a version-2 brain goes without (dense seeding); version 5 only moves
/// questions and corrections into an index of their own, which a query of an older brain
/// goes without (it finds them in the lexical index, as before).
pub const READ_COMPATIBLE: i32 = 2;

/// The database file inside a brain directory.
pub const DB_FILE: &str = pyformat::io::BRAIN_DB_FILE;

/// The statements creating schema version 1.
pub const SCHEMA_V1: &str = "
CREATE TABLE brain(
    id INTEGER PRIMARY KEY CHECK (id = 1),
    rev INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    structure INTEGER NOT NULL,
    vectors INTEGER NOT NULL,
    layout TEXT NOT NULL CHECK (layout IN ('sparse', 'dense')),
    dim INTEGER NOT NULL,
    nonce INTEGER NOT NULL,
    nodes INTEGER NOT NULL
);
CREATE TABLE meta(
    key TEXT PRIMARY KEY,
    pos INTEGER NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE nodes(
    sym INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    node_seq INTEGER,
    bucket_seq INTEGER,
    content TEXT,
    summary TEXT,
    metadata TEXT,
    file TEXT,
    rev INTEGER NOT NULL
);
CREATE INDEX nodes_rev ON nodes(rev);
CREATE INDEX nodes_file ON nodes(file);
CREATE TABLE edges(
    src INTEGER NOT NULL,
    tgt INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    weight REAL NOT NULL,
    kind TEXT NOT NULL,
    metadata TEXT,
    rev INTEGER NOT NULL,
    PRIMARY KEY (src, tgt)
) WITHOUT ROWID;
CREATE INDEX edges_tgt ON edges(tgt);
CREATE INDEX edges_rev ON edges(rev);
CREATE TABLE vectors(
    seq INTEGER PRIMARY KEY,
    sym INTEGER NOT NULL UNIQUE,
    v BLOB NOT NULL,
    rev INTEGER NOT NULL
);
CREATE INDEX vectors_rev ON vectors(rev);
CREATE TABLE vector_gone(
    sym INTEGER NOT NULL,
    rev INTEGER NOT NULL
);
CREATE INDEX vector_gone_rev ON vector_gone(rev);
CREATE TABLE journal(
    seq INTEGER PRIMARY KEY,
    entry TEXT NOT NULL
);
";

/// Migrations: `MIGRATIONS[i]` takes a database from version `i + 1` to `i + 2`; a new
/// database is made with [`SCHEMA_V1`] and every migration. A future schema adds its
/// step here and bumps [`SCHEMA_VERSION`].
pub const MIGRATIONS: &[&str] = &[
    SCHEMA_V2_CONVERSATIONS,
    SCHEMA_V3_LEXICAL,
    SCHEMA_V4_VALUE_TABLES,
    SCHEMA_V5_ASIDE_LEXICAL,
];

/// Version 2: the conversation log and the feedback ledger ([`crate::service::turns`]).
///
/// | table | one row per | columns |
/// |---|---|---|
/// | `turns` | query served in a conversation | `chat_id`, `turn` (1, 2, … per conversation), `ts` (Unix seconds), `query`, `fired` (JSON list of ids, fired order), `scores` (JSON list), `path` (JSON list of `[from, to]` steps), `credited` (1 once feedback consumed its credit) |
/// | `ledger` | correction, teaching or directive applied | `hash` (SHA-256 of the stripped text), `kind`, `chat_id`, `node_id`, `ts` |
pub const SCHEMA_V2_CONVERSATIONS: &str = "
CREATE TABLE turns(
    chat_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    ts REAL NOT NULL,
    query TEXT NOT NULL,
    fired TEXT NOT NULL,
    scores TEXT NOT NULL,
    path TEXT NOT NULL,
    credited INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, turn)
) WITHOUT ROWID;
CREATE TABLE ledger(
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    chat_id TEXT,
    node_id TEXT NOT NULL,
    ts REAL NOT NULL
) WITHOUT ROWID;
";

/// The SQL expression of the text the lexical index holds for a node's `content`
/// column `$col`: the content with the [`LEXICAL_JOINERS`] removed.
macro_rules! lexical_text {
    ($col:literal) => {
        concat!("replace(replace(", $col, ", '[', ''), ']', '')")
    };
}

/// The SQL of the `file` column of `nodes_fts` for the row `$row` (`new`, or empty for
/// the migration): the node's `file` and its document header (`metadata.doc`,
/// [`crate::source::embedtext::HEADER_KEY`], the page's name, title and description that a
/// folder chunk is also embedded with), an invalid metadata text read as none.
macro_rules! lexical_doc {
    ($row:literal) => {
        concat!(
            "coalesce(",
            $row,
            "file, '') || ' ' || coalesce(CASE WHEN json_valid(",
            $row,
            "metadata) THEN json_extract(",
            $row,
            "metadata, '$.doc') END, '')"
        )
    };
}

/// The lexical index's table (FTS5), searched by [`super::lexical`].
pub const LEXICAL_TABLE: &str = "nodes_fts";

/// The characters removed from a node's content before it is tokenized (and from a
/// query's text, [`super::lexical::query_terms`]): tldr-pages writes a command's
/// letter in brackets inside a word (`e[x]tract`), which must index as `extract`. The
/// same rule gives the text a folder chunk is embedded as
/// ([`crate::source::embedtext::demnemonise`]), so that both searches read a word alike.
pub const LEXICAL_JOINERS: [char; 2] = ['[', ']'];

/// Version 3: the lexical (BM25) index of node contents (issue 28, item 3).
///
/// `nodes_fts` is an FTS5 table without its own copy of the text (`content=''`,
/// `contentless_delete=1`: a row is deleted by its `rowid`), `rowid` = `nodes.sym`,
/// one row per node whose `content` is not NULL. Its columns: `text`, the content with
/// the [`LEXICAL_JOINERS`] removed (a plain SQL expression, so any SQLite keeps it the
/// same way), and `file`, the node's `file` and its document header (`metadata.doc`,
/// [`crate::source::embedtext`]: a folder's chunks are single lines, and the command a
/// tldr-pages example is about is often only in its file's name or title: on 176
/// questions on tldr-pages, success@5 by page 0.591 -> 0.631 with the file name,
/// hash-v1 brain, lexical alone); tokenized by `porter unicode61 remove_diacritics 2` (stemming, so
/// that a question's "extracting" finds "extract"). Three triggers on `nodes` keep it, so
/// that every writer (sync, teach, inject, correct, import, rollback, even the
/// `sqlite3` shell) keeps it in the same transaction as the row, with no code path to
/// forget: after an insert (with content), a delete, and an update of `sym`,
/// `content`, `file` or `metadata`. The migration fills it from the existing nodes.
pub const SCHEMA_V3_LEXICAL: &str = concat!(
    "
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    text,
    file,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes WHEN new.content IS NOT NULL BEGIN
    INSERT INTO nodes_fts(rowid, text, file) VALUES (new.sym, ",
    lexical_text!("new.content"),
    ", ",
    lexical_doc!("new."),
    ");
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    DELETE FROM nodes_fts WHERE rowid = old.sym;
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF sym, content, file, metadata ON nodes BEGIN
    DELETE FROM nodes_fts WHERE rowid = old.sym;
    INSERT INTO nodes_fts(rowid, text, file) SELECT new.sym, ",
    lexical_text!("new.content"),
    ", ",
    lexical_doc!("new."),
    " WHERE new.content IS NOT NULL;
END;
INSERT INTO nodes_fts(rowid, text, file) SELECT sym, ",
    lexical_text!("content"),
    ", ",
    lexical_doc!(""),
    " FROM nodes WHERE content IS NOT NULL;
"
);

/// Version 4: sparse vector blobs may be written in the value-table form
/// ([`super::codec::sparse_entries`]: about 2 bytes a component instead of 6 on hash-v1
/// vectors, the same `f32` bits). No table changes: this program reads blobs of both
/// forms, and the version bump makes an older program refuse a brain it could not read
/// (it would skip such vectors as damaged). Blobs written before stay as they are until
/// their vector is written again.
pub const SCHEMA_V4_VALUE_TABLES: &str = "-- no table changes: see the doc comment\n";

/// The index of the nodes set aside, questions and corrections (FTS5,
/// [`SCHEMA_V5_ASIDE_LEXICAL`]), searched by [`super::lexical::search_aside`].
pub const ASIDE_LEXICAL_TABLE: &str = "aside_fts";

/// The condition of the SQL row `$row` (`new.`, `old.` or empty) being set aside: a
/// question node (its id starts with [`crate::service::AUTO_PREFIX`]) or a correction
/// (its metadata `type` is `CORRECTION`, [`crate::service::is_guardrail`]'s rule; an
/// invalid metadata text read as none). A test checks that both agree with the service.
macro_rules! is_aside_row {
    ($row:literal) => {
        concat!(
            "(substr(",
            $row,
            "id, 1, 5) = 'auto:' OR coalesce(json_extract(CASE WHEN json_valid(",
            $row,
            "metadata) THEN ",
            $row,
            "metadata END, '$.type'), '') = 'CORRECTION')"
        )
    };
}

/// Version 5: questions and corrections leave the lexical index for one of their own
/// (issue 31, items 1 and 4).
///
/// Neither is content: a question node (neurogenesis', [`crate::service::AUTO_PREFIX`])
/// is what an agent asked, a correction is returned as a guardrail, and neither takes a
/// place in an answer. In `nodes_fts` their words still counted in every BM25 score:
/// each question asked lowered the idf of its words for all others, and a correction,
/// which quotes the content it corrects, lowered the idf of exactly the words that find
/// that content. Asking every question once and again with nothing corrected lost
/// recall@10 on 14 of 1,153 related LoCoMo questions; with the corrections, related
/// questions lost 23 (MultiHop-RAG 3 of 80), now 3 and 0 of 77 (`bench guard`,
/// `results/bench/README.md`).
/// Now `nodes_fts`'s insert and update triggers leave these rows out, and `aside_fts`
/// (FTS5, contentless, `rowid` = `nodes.sym`, one column `text`, the content as
/// `nodes_fts` holds it, the same tokenizer) holds exactly them, kept by three triggers
/// of its own. A question finds the question nodes that speak for it there
/// (`service/neurogenesis.rs`, `split_autos`) and the corrections that speak to it
/// (`service/guardrail.rs`, `found_by_words`); the paper profile seeds densely (the
/// reference has no lexical index), so its answers do not change. The migration moves the existing
/// rows; it replaces what it makes, so a file whose version was set back runs it again
/// intact.
pub const SCHEMA_V5_ASIDE_LEXICAL: &str = concat!(
    "
DROP TRIGGER IF EXISTS nodes_fts_insert;
DROP TRIGGER IF EXISTS nodes_fts_update;
DROP TRIGGER IF EXISTS aside_fts_insert;
DROP TRIGGER IF EXISTS aside_fts_delete;
DROP TRIGGER IF EXISTS aside_fts_update;
DROP TABLE IF EXISTS aside_fts;
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes WHEN new.content IS NOT NULL AND NOT ",
    is_aside_row!("new."),
    " BEGIN
    INSERT INTO nodes_fts(rowid, text, file) VALUES (new.sym, ",
    lexical_text!("new.content"),
    ", ",
    lexical_doc!("new."),
    ");
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF sym, id, content, file, metadata ON nodes BEGIN
    DELETE FROM nodes_fts WHERE rowid = old.sym;
    INSERT INTO nodes_fts(rowid, text, file) SELECT new.sym, ",
    lexical_text!("new.content"),
    ", ",
    lexical_doc!("new."),
    " WHERE new.content IS NOT NULL AND NOT ",
    is_aside_row!("new."),
    ";
END;
DELETE FROM nodes_fts WHERE rowid IN (SELECT sym FROM nodes WHERE ",
    is_aside_row!(""),
    ");
CREATE VIRTUAL TABLE aside_fts USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER aside_fts_insert AFTER INSERT ON nodes WHEN new.content IS NOT NULL AND ",
    is_aside_row!("new."),
    " BEGIN
    INSERT INTO aside_fts(rowid, text) VALUES (new.sym, ",
    lexical_text!("new.content"),
    ");
END;
CREATE TRIGGER aside_fts_delete AFTER DELETE ON nodes WHEN ",
    is_aside_row!("old."),
    " BEGIN
    DELETE FROM aside_fts WHERE rowid = old.sym;
END;
CREATE TRIGGER aside_fts_update AFTER UPDATE OF sym, id, content ON nodes WHEN ",
    is_aside_row!("old."),
    " OR ",
    is_aside_row!("new."),
    " BEGIN
    DELETE FROM aside_fts WHERE rowid = old.sym;
    INSERT INTO aside_fts(rowid, text) SELECT new.sym, ",
    lexical_text!("new.content"),
    " WHERE new.content IS NOT NULL AND ",
    is_aside_row!("new."),
    ";
END;
INSERT INTO aside_fts(rowid, text) SELECT sym, ",
    lexical_text!("content"),
    " FROM nodes WHERE content IS NOT NULL AND ",
    is_aside_row!(""),
    ";
"
);

/// Creates the current schema ([`SCHEMA_V1`] and every migration) in `conn`: a new
/// brain ([`super::Store::create`]) and the expected schema that `doctor` compares a
/// brain with ([`schema_problems`]) are made by this one function.
pub fn create_current(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch(SCHEMA_V1)?;
    for step in MIGRATIONS {
        conn.execute_batch(step)?;
    }
    Ok(())
}

/// A column as `PRAGMA table_info` lists it: name, declared type, `NOT NULL`, position
/// in the primary key (0: not in it).
type Column = (String, String, bool, i64);

/// A schema as [`describe`] reads it: each table with its columns, the index names and
/// the trigger names.
type Described = (Vec<(String, Vec<Column>)>, Vec<String>, Vec<String>);

/// The tables of `conn` with their columns, and the names of its indexes (those
/// declared by a statement; SQLite's automatic ones are left out) and triggers.
fn describe(conn: &rusqlite::Connection) -> rusqlite::Result<Described> {
    let names = |kind: &str| -> rusqlite::Result<Vec<String>> {
        let mut stmt = conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = ?1 AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )?;
        let rows = stmt.query_map([kind], |r| r.get(0))?;
        rows.collect()
    };
    let mut tables = Vec::new();
    for t in names("table")? {
        let mut stmt =
            conn.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")?;
        let cols = stmt
            .query_map([&t], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<Vec<Column>>>()?;
        tables.push((t, cols));
    }
    Ok((tables, names("index")?, names("trigger")?))
}

/// What the database `conn` lacks of the current schema (schema version
/// [`SCHEMA_VERSION`], as [`create_current`] makes it in an in-memory database): one
/// line per missing table, index, trigger or column, or column declared otherwise (`edges:
/// column weight is TEXT, not REAL NOT NULL`). Empty when it has every part; tables or
/// columns it has beyond them are not counted.
pub fn schema_problems(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<String>> {
    let expected = rusqlite::Connection::open_in_memory()?;
    create_current(&expected)?;
    let (want_tables, want_indexes, want_triggers) = describe(&expected)?;
    let (have_tables, have_indexes, have_triggers) = describe(conn)?;
    let show = |c: &Column| {
        let mut s = c.1.clone();
        if c.2 {
            s.push_str(" NOT NULL");
        }
        if c.3 > 0 {
            s.push_str(" PRIMARY KEY");
        }
        s
    };
    let mut out = Vec::new();
    for (t, want) in &want_tables {
        let Some((_, have)) = have_tables.iter().find(|(h, _)| h == t) else {
            out.push(format!("missing table {t}"));
            continue;
        };
        for c in want {
            match have.iter().find(|h| h.0 == c.0) {
                None => out.push(format!("{t}: missing column {}", c.0)),
                Some(h) if h != c => out.push(format!(
                    "{t}: column {} is {}, not {}",
                    c.0,
                    show(h),
                    show(c)
                )),
                Some(_) => {}
            }
        }
    }
    for i in want_indexes.iter().filter(|i| !have_indexes.contains(i)) {
        out.push(format!("missing index {i}"));
    }
    for t in want_triggers.iter().filter(|t| !have_triggers.contains(t)) {
        out.push(format!("missing trigger {t}"));
    }
    Ok(out)
}
