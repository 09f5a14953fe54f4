//! The PostgreSQL form of a brain's tables (issue 32 item 1, "the same schema version and
//! migrations apply to both").
//!
//! The SQLite schema ([`crabpath_brain::store::schema`]) is the one home of the tables:
//! [`tables`] reads them from a database made by
//! [`crabpath_brain::store::schema::create_current`] (`PRAGMA table_info`), and
//! [`create_sql`] writes the same tables, columns, `NOT NULL`s and primary keys in a
//! PostgreSQL schema, each SQLite declared type mapped to its PostgreSQL type
//! ([`Kind`]). A migration that adds a table or a column to the SQLite schema therefore
//! adds it here too, and a PostgreSQL copy records the schema version it was made with
//! ([`VERSION_TABLE`]).
//!
//! Left out: the lexical indexes (`nodes_fts` and `aside_fts`, FTS5 tables with their
//! shadow tables and triggers), which a brain rebuilds from `nodes` as SQLite fills them; SQLite's `CHECK`
//! constraints and secondary indexes, which serve SQLite's queries (a PostgreSQL engine
//! adds its own).

use crabpath_brain::store::schema::{create_current, ASIDE_LEXICAL_TABLE, LEXICAL_TABLE};

use crate::error::{Error, Result};

/// The table of a PostgreSQL copy that holds the SQLite file's marks: its
/// `PRAGMA application_id` and `PRAGMA user_version` (the schema version), one row.
pub const VERSION_TABLE: &str = "crabpath_brain";

/// The prefix of a brain's PostgreSQL schema: brain `notes` lives in schema
/// `brain_notes`.
pub const SCHEMA_PREFIX: &str = "brain_";

/// The storage class of a column: SQLite's declared type and its PostgreSQL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `INTEGER` → `BIGINT` (SQLite integers are 64-bit).
    Int,
    /// `REAL` → `DOUBLE PRECISION` (both IEEE 754 binary64: values round-trip exactly).
    Real,
    /// `TEXT` → `TEXT` (UTF-8 both).
    Text,
    /// `BLOB` → `BYTEA`.
    Blob,
}

impl Kind {
    fn of(declared: &str) -> Option<Kind> {
        match declared.to_ascii_uppercase().as_str() {
            "INTEGER" => Some(Kind::Int),
            "REAL" => Some(Kind::Real),
            "TEXT" => Some(Kind::Text),
            "BLOB" => Some(Kind::Blob),
            _ => None,
        }
    }

    /// The PostgreSQL type of the column.
    pub fn pg_type(self) -> &'static str {
        match self {
            Kind::Int => "BIGINT",
            Kind::Real => "DOUBLE PRECISION",
            Kind::Text => "TEXT",
            Kind::Blob => "BYTEA",
        }
    }

    /// The name of the storage class, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "an integer",
            Kind::Real => "a real",
            Kind::Text => "a text",
            Kind::Blob => "a blob",
        }
    }
}

/// A column of a brain table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its name (the same in both engines).
    pub name: &'static str,
    /// Its storage class.
    pub kind: Kind,
    /// Declared `NOT NULL` (a SQLite `INTEGER PRIMARY KEY` is never null either).
    pub not_null: bool,
}

/// A table of a brain, as both engines hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Its name.
    pub name: &'static str,
    /// Its columns, in SQLite's order.
    pub columns: Vec<Column>,
    /// The primary key's columns, in key order; empty for a table without one (its rows
    /// are copied in the order of every column).
    pub key: Vec<&'static str>,
}

impl Table {
    /// The columns that order a copy of the table: its key, else every column. Both
    /// engines read a table in this order, so a copy and its copy back list rows alike.
    pub fn order(&self) -> Vec<&'static str> {
        if self.key.is_empty() {
            self.columns.iter().map(|c| c.name).collect()
        } else {
            self.key.clone()
        }
    }

    /// `SELECT <every column> FROM <qualified> ORDER BY <order>`: the one statement both
    /// engines read a table with (`qualified`: `nodes`, or `brain_x.nodes`).
    pub fn select_sql(&self, qualified: &str) -> String {
        format!(
            "SELECT {} FROM {qualified} ORDER BY {}",
            self.column_list(),
            self.order().join(", ")
        )
    }

    /// `INSERT INTO <qualified>(<every column>) VALUES (<marks>)`, the i-th value's mark
    /// (1-based) written by `mark` (`$1` for PostgreSQL, `?1` for SQLite).
    pub fn insert_sql(&self, qualified: &str, mark: char) -> String {
        let marks: Vec<String> = (1..=self.columns.len())
            .map(|i| format!("{mark}{i}"))
            .collect();
        format!(
            "INSERT INTO {qualified}({}) VALUES ({})",
            self.column_list(),
            marks.join(", ")
        )
    }

    fn column_list(&self) -> String {
        self.columns
            .iter()
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Leaks a name read from SQLite's catalogue: the schema is read once per process
/// ([`tables`] keeps what it read) and its few dozen names live as long as it.
fn name(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The tables of the current brain schema, read from a new in-memory database made by
/// [`create_current`] (the lexical index left out: see the module docs) at the first
/// call, and kept for the process. Errors: a column of a declared type other than
/// `INTEGER`, `REAL`, `TEXT`, `BLOB` (a schema this crate does not know how to copy).
/// Cost: one in-memory schema creation, a few milliseconds, once.
pub fn tables() -> Result<&'static [Table]> {
    static TABLES: std::sync::OnceLock<std::result::Result<Vec<Table>, String>> =
        std::sync::OnceLock::new();
    TABLES
        .get_or_init(|| read_tables().map_err(|e| e.to_string()))
        .as_deref()
        .map_err(|e| Error::Invalid(e.clone()))
}

fn read_tables() -> Result<Vec<Table>> {
    let sql = |e: rusqlite::Error| Error::Invalid(format!("the brain schema: {e}"));
    let conn = rusqlite::Connection::open_in_memory().map_err(sql)?;
    create_current(&conn).map_err(sql)?;
    let mut stmt = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE TABLE%' \
             AND name NOT LIKE 'sqlite_%' AND name NOT LIKE ?1 || '%' AND name NOT LIKE ?2 || '%' \
             ORDER BY rowid",
        )
        .map_err(sql)?;
    let names = stmt
        .query_map([LEXICAL_TABLE, ASIDE_LEXICAL_TABLE], |r| {
            r.get::<_, String>(0)
        })
        .map_err(sql)?
        .collect::<rusqlite::Result<Vec<String>>>()
        .map_err(sql)?;
    let mut out = Vec::new();
    for t in names {
        let mut info = conn
            .prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid")
            .map_err(sql)?;
        let cols = info
            .query_map([&t], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .map_err(sql)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(sql)?;
        let mut columns = Vec::new();
        let mut key: Vec<(i64, &'static str)> = Vec::new();
        for (c, declared, not_null, pk) in cols {
            let kind = Kind::of(&declared).ok_or_else(|| {
                Error::Invalid(format!(
                    "the brain schema: {t}.{c} is declared {declared}, which has no PostgreSQL column here"
                ))
            })?;
            let c = name(c);
            if pk > 0 {
                key.push((pk, c));
            }
            columns.push(Column {
                name: c,
                kind,
                not_null: not_null || pk > 0,
            });
        }
        key.sort();
        out.push(Table {
            name: name(t),
            columns,
            key: key.into_iter().map(|k| k.1).collect(),
        });
    }
    Ok(out)
}

/// The schema name of brain `brain` ([`SCHEMA_PREFIX`] + the name), after checking the
/// name: 1 to 40 of `a`–`z`, `0`–`9`, `_` (a PostgreSQL identifier that needs no
/// quoting and cannot reach another schema).
pub fn schema_name(brain: &str) -> Result<String> {
    let ok = !brain.is_empty()
        && brain.len() <= 40
        && brain
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !ok {
        return Err(Error::Invalid(format!(
            "brain name {brain:?}: expected 1 to 40 characters of a-z, 0-9 and _ (it names the PostgreSQL schema {SCHEMA_PREFIX}<name>)"
        )));
    }
    Ok(format!("{SCHEMA_PREFIX}{brain}"))
}

/// The statements that create `tables` in the PostgreSQL schema `schema` (which must
/// not exist), with the version table holding `application_id` and `version`.
pub fn create_sql(schema: &str, tables: &[Table], application_id: i32, version: i32) -> String {
    let mut s = format!("CREATE SCHEMA {schema};\n");
    s.push_str(&format!(
        "CREATE TABLE {schema}.{VERSION_TABLE}(application_id INTEGER NOT NULL, schema_version INTEGER NOT NULL);\n\
         INSERT INTO {schema}.{VERSION_TABLE} VALUES ({application_id}, {version});\n"
    ));
    for t in tables {
        let mut cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} {}{}",
                    c.name,
                    c.kind.pg_type(),
                    if c.not_null { " NOT NULL" } else { "" }
                )
            })
            .collect();
        if !t.key.is_empty() {
            cols.push(format!("PRIMARY KEY ({})", t.key.join(", ")));
        }
        s.push_str(&format!(
            "CREATE TABLE {schema}.{}({});\n",
            t.name,
            cols.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nine tables of schema version 3 (crabpath-brain `store/schema.rs`: `brain`,
    /// `meta`, `nodes`, `edges`, `vectors`, `vector_gone`, `journal` in version 1,
    /// `turns` and `ledger` in version 2; version 3 adds only the lexical index, left
    /// out), with their keys.
    #[test]
    fn the_tables_are_read_from_the_sqlite_schema() {
        let t = tables().unwrap();
        let names: Vec<_> = t.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "brain",
                "meta",
                "nodes",
                "edges",
                "vectors",
                "vector_gone",
                "journal",
                "turns",
                "ledger"
            ]
        );
        let key = |n: &str| t.iter().find(|t| t.name == n).unwrap().key.clone();
        assert_eq!(key("edges"), ["src", "tgt"]);
        assert_eq!(key("turns"), ["chat_id", "turn"]);
        assert!(key("vector_gone").is_empty());
        let nodes = t.iter().find(|t| t.name == "nodes").unwrap();
        assert_eq!(nodes.columns.len(), 9);
        assert_eq!(nodes.columns[0].kind, Kind::Int);
        assert!(
            nodes.columns[0].not_null,
            "an INTEGER PRIMARY KEY is never null"
        );
        assert!(!nodes.columns[4].not_null, "content may be null");
        let sql = create_sql("brain_x", t, 1, 3);
        assert!(sql.contains("CREATE TABLE brain_x.vectors(seq BIGINT NOT NULL, sym BIGINT NOT NULL, v BYTEA NOT NULL, rev BIGINT NOT NULL, PRIMARY KEY (seq));"), "{sql}");
    }

    #[test]
    fn a_brain_name_is_a_plain_identifier() {
        assert_eq!(schema_name("notes_2").unwrap(), "brain_notes_2");
        for bad in ["", "Notes", "a-b", "x; DROP SCHEMA public", &"a".repeat(41)] {
            let e = schema_name(bad).unwrap_err().to_string();
            assert!(e.contains("expected 1 to 40 characters"), "{bad}: {e}");
        }
    }
}
