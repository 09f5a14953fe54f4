//! Moving a brain between the engines (issue 32 item 3, `crabpath migrate --from
//! sqlite:PATH --to postgres://…` and back).
//!
//! **SQLite → PostgreSQL** ([`sqlite_to_postgres`]): the brain database is read in one
//! read transaction (a consistent snapshot, while other processes keep writing), and
//! written into a new schema `brain_<name>` ([`crate::schema::schema_name`]) in one
//! PostgreSQL transaction: the schema, its tables ([`crate::schema::create_sql`]), and
//! every row. A schema of that name that exists already is refused, and nothing is
//! written unless everything is: a failure rolls the transaction back.
//!
//! **PostgreSQL → SQLite** ([`postgres_to_sqlite`]): the schema is read in one
//! `REPEATABLE READ` transaction and written into a new brain database made by the
//! store's own creation path ([`crabpath_brain::store::Store::create`]), whose
//! triggers fill the lexical index as `nodes` rows arrive. The destination directory
//! must not exist; on failure it is removed, so a half-written brain is never left.
//!
//! Every value is copied with its storage class ([`crate::schema::Kind`]); a value of
//! another class than its column's (SQLite allows one) is an error naming the table, the
//! row and the column, and nothing is written. Rows are read in the order of each
//! table's key ([`crate::schema::Table::order`]) on both sides.
//!
//! Cost: O(rows) statements, each one round trip to the server; the whole brain is held
//! in memory one table at a time.

use std::path::{Path, PathBuf};

use crabpath_brain::store::schema::{APPLICATION_ID, DB_FILE, SCHEMA_VERSION};
use crabpath_brain::store::{Layout, Store};
use postgres::types::ToSql;
use postgres::Client;
use rusqlite::types::Value;

use crate::error::{Error, Result};
use crate::schema::{create_sql, schema_name, tables, Kind, Table, VERSION_TABLE};

/// What a copy moved: each table with its number of rows, in schema order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    /// The PostgreSQL schema written or read.
    pub schema: String,
    /// `(table, rows)` for every table.
    pub tables: Vec<(String, usize)>,
}

/// One value in transit, of a column's storage class or null.
#[derive(Debug, Clone)]
enum Cell {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
    Blob(Option<Vec<u8>>),
}

impl Cell {
    fn param(&self) -> &(dyn ToSql + Sync) {
        match self {
            Cell::Int(v) => v,
            Cell::Real(v) => v,
            Cell::Text(v) => v,
            Cell::Blob(v) => v,
        }
    }

    fn sqlite(&self) -> Value {
        match self {
            Cell::Int(Some(v)) => Value::Integer(*v),
            Cell::Real(Some(v)) => Value::Real(*v),
            Cell::Text(Some(v)) => Value::Text(v.clone()),
            Cell::Blob(Some(v)) => Value::Blob(v.clone()),
            _ => Value::Null,
        }
    }
}

/// The key of row `cells` of `t`, for messages (`sym=12`, or the row's position).
fn row_label(t: &Table, cells: &[Cell], position: usize) -> String {
    if t.key.is_empty() {
        return format!("#{}", position + 1);
    }
    t.key
        .iter()
        .filter_map(|k| t.columns.iter().position(|c| c.name == *k))
        .map(|i| {
            let v = match &cells[i] {
                Cell::Int(Some(v)) => v.to_string(),
                Cell::Real(Some(v)) => v.to_string(),
                Cell::Text(Some(v)) => format!("{v:?}"),
                Cell::Blob(Some(v)) => format!("{} bytes", v.len()),
                _ => "null".into(),
            };
            format!("{}={v}", t.columns[i].name)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A SQLite value as a cell of `kind`; `Err` says what it is instead.
fn cell(kind: Kind, v: Value) -> std::result::Result<Cell, String> {
    Ok(match (kind, v) {
        (Kind::Int, Value::Null) => Cell::Int(None),
        (Kind::Real, Value::Null) => Cell::Real(None),
        (Kind::Text, Value::Null) => Cell::Text(None),
        (Kind::Blob, Value::Null) => Cell::Blob(None),
        (Kind::Int, Value::Integer(i)) => Cell::Int(Some(i)),
        (Kind::Real, Value::Real(r)) => Cell::Real(Some(r)),
        (Kind::Text, Value::Text(s)) => Cell::Text(Some(s)),
        (Kind::Blob, Value::Blob(b)) => Cell::Blob(Some(b)),
        (k, other) => {
            let found = match other {
                Value::Null => "null",
                Value::Integer(_) => "an integer",
                Value::Real(_) => "a real",
                Value::Text(_) => "a text",
                Value::Blob(_) => "a blob",
            };
            return Err(format!("expected {}, found {found}", k.name()));
        }
    })
}

/// Whether the PostgreSQL schema `schema` exists (a brain of that name is there), asked
/// through `client` (a connection or a transaction). Cost: one catalogue lookup.
pub fn schema_exists(
    client: &mut impl postgres::GenericClient,
    schema: &str,
) -> std::result::Result<bool, postgres::Error> {
    Ok(client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)",
            &[&schema],
        )?
        .get(0))
}

fn pg_error(target: &str) -> impl Fn(postgres::Error) -> Error + '_ {
    move |source| Error::Postgres {
        target: target.to_string(),
        source,
    }
}

/// The rows of `t` in the SQLite transaction `tx` of the database `path`, in key order.
fn read_sqlite(tx: &rusqlite::Connection, path: &Path, t: &Table) -> Result<Vec<Vec<Cell>>> {
    let sql_err = |source| Error::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let mut stmt = tx.prepare(&t.select_sql(t.name)).map_err(sql_err)?;
    let mut rows = stmt.query([]).map_err(sql_err)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(sql_err)? {
        let mut cells = Vec::with_capacity(t.columns.len());
        let mut bad = None;
        for (i, c) in t.columns.iter().enumerate() {
            let v: Value = r.get(i).map_err(sql_err)?;
            match cell(c.kind, v) {
                Ok(x) => cells.push(x),
                Err(m) => {
                    bad = Some((c.name, m));
                    cells.push(Cell::Int(None));
                }
            }
        }
        if let Some((column, message)) = bad {
            return Err(Error::Value {
                table: t.name,
                row: row_label(t, &cells, out.len()),
                column,
                message,
            });
        }
        out.push(cells);
    }
    Ok(out)
}

/// Copies the brain database `db` into PostgreSQL as brain `brain` (schema
/// `brain_<brain>`, which must not exist), in one transaction (see the module docs).
/// Errors: the database is not a brain of the current schema version (open it once
/// with `crabpath` to migrate it), the name is not valid, the schema exists, a value of
/// another storage class than its column's, or the server's failure.
pub fn sqlite_to_postgres(db: &Path, client: &mut Client, brain: &str) -> Result<Copied> {
    let schema = schema_name(brain)?;
    let mut store = Store::open(db, false)?;
    if store.schema_version() != SCHEMA_VERSION {
        return Err(Error::Invalid(format!(
            "{}: schema version {}, this program copies version {SCHEMA_VERSION}: open it once for writing (e.g. `crabpath doctor --state …`) to migrate it first",
            db.display(),
            store.schema_version()
        )));
    }
    let tables = tables()?;
    let target = format!("schema {schema}");
    let err = pg_error(&target);
    let exists = schema_exists(client, &schema).map_err(&err)?;
    if exists {
        return Err(Error::Invalid(format!(
            "PostgreSQL schema {schema} exists already: a brain named {brain:?} is there; choose another name (nothing was written)"
        )));
    }
    let tx_sqlite = store.read()?;
    let mut pg = client.transaction().map_err(&err)?;
    pg.batch_execute(&create_sql(&schema, tables, APPLICATION_ID, SCHEMA_VERSION))
        .map_err(&err)?;
    let mut counts = Vec::new();
    for t in tables {
        let rows = read_sqlite(&tx_sqlite, db, t)?;
        let insert = pg
            .prepare(&t.insert_sql(&format!("{schema}.{}", t.name), '$'))
            .map_err(&err)?;
        for r in &rows {
            let params: Vec<&(dyn ToSql + Sync)> = r.iter().map(Cell::param).collect();
            pg.execute(&insert, &params).map_err(&err)?;
        }
        counts.push((t.name.to_string(), rows.len()));
    }
    pg.commit().map_err(&err)?;
    drop(tx_sqlite);
    Ok(Copied {
        schema,
        tables: counts,
    })
}

/// The rows of `t` in the PostgreSQL schema `schema`, in key order.
fn read_postgres(
    pg: &mut postgres::Transaction<'_>,
    schema: &str,
    t: &Table,
    target: &str,
) -> Result<Vec<Vec<Cell>>> {
    let err = pg_error(target);
    let rows = pg
        .query(&t.select_sql(&format!("{schema}.{}", t.name)), &[])
        .map_err(&err)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let mut cells = Vec::with_capacity(t.columns.len());
        for (i, c) in t.columns.iter().enumerate() {
            cells.push(match c.kind {
                Kind::Int => Cell::Int(r.try_get(i).map_err(&err)?),
                Kind::Real => Cell::Real(r.try_get(i).map_err(&err)?),
                Kind::Text => Cell::Text(r.try_get(i).map_err(&err)?),
                Kind::Blob => Cell::Blob(r.try_get(i).map_err(&err)?),
            });
        }
        out.push(cells);
    }
    Ok(out)
}

/// Removes the directory it guards unless [`Fresh::keep`] was called: a copy that fails
/// leaves no half-written brain.
struct Fresh(Option<PathBuf>);

impl Fresh {
    fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Copies brain `brain` (schema `brain_<brain>`) out of PostgreSQL into a new brain
/// directory `dir` (which must not exist), read in one `REPEATABLE READ` transaction
/// (see the module docs). Errors: no such schema, a schema of another version or
/// application, the directory exists, the server's or SQLite's failure.
pub fn postgres_to_sqlite(client: &mut Client, brain: &str, dir: &Path) -> Result<Copied> {
    let schema = schema_name(brain)?;
    if dir.exists() {
        return Err(Error::Invalid(format!(
            "{}: exists already; `migrate` writes a new brain directory (nothing was written)",
            dir.display()
        )));
    }
    let tables = tables()?;
    let target = format!("schema {schema}");
    let err = pg_error(&target);
    let mut pg = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(&err)?;
    let exists = schema_exists(&mut pg, &schema).map_err(&err)?;
    if !exists {
        return Err(Error::Invalid(format!(
            "PostgreSQL has no brain named {brain:?} (no schema {schema})"
        )));
    }
    let marks = pg
        .query_one(
            &format!("SELECT application_id, schema_version FROM {schema}.{VERSION_TABLE}"),
            &[],
        )
        .map_err(&err)?;
    let (app, version): (i32, i32) = (marks.get(0), marks.get(1));
    if app != APPLICATION_ID || version != SCHEMA_VERSION {
        return Err(Error::Invalid(format!(
            "PostgreSQL schema {schema}: application {app:#x}, schema version {version}; this program reads application {APPLICATION_ID:#x}, version {SCHEMA_VERSION}"
        )));
    }
    let mut data = Vec::with_capacity(tables.len());
    for t in tables {
        data.push(read_postgres(&mut pg, &schema, t, &target)?);
    }
    pg.commit().map_err(&err)?;

    let brain_table = tables
        .iter()
        .position(|t| t.name == "brain")
        .ok_or_else(|| Error::Invalid("the brain schema has no `brain` table".into()))?;
    let [row] = &data[brain_table][..] else {
        return Err(Error::Invalid(format!(
            "PostgreSQL schema {schema}: table brain holds {} rows, expected 1",
            data[brain_table].len()
        )));
    };
    let col = |name: &str| {
        tables[brain_table]
            .columns
            .iter()
            .position(|c| c.name == name)
            .map(|i| row[i].sqlite())
    };
    let layout = match col("layout") {
        Some(Value::Text(s)) => Layout::parse(&s),
        _ => None,
    }
    .ok_or_else(|| {
        Error::Invalid(format!(
            "PostgreSQL schema {schema}: brain.layout is not sparse or dense"
        ))
    })?;
    let dim = match col("dim") {
        Some(Value::Integer(d)) if d >= 0 => d as usize,
        _ => {
            return Err(Error::Invalid(format!(
                "PostgreSQL schema {schema}: brain.dim is not a count"
            )))
        }
    };

    // built beside the target under a name of its own, then renamed into place: a copy
    // killed half-way leaves no brain at `dir` (before, an empty one that the next
    // `migrate` refused as existing)
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "brain".into());
    let building = dir.with_file_name(format!(".{name}.migrating-{}", std::process::id()));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| Error::Brain(crabpath_brain::error::io_error(&p, e))
    };
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::create_dir(&building).map_err(io(&building))?;
    let fresh = Fresh(Some(building.clone()));
    let db = building.join(DB_FILE);
    let store = Store::create(&db, layout, dim)?;
    let sql_err = |source| Error::Sqlite {
        path: db.clone(),
        source,
    };
    let conn = store.conn();
    conn.execute_batch("BEGIN").map_err(sql_err)?;
    // the row `Store::create` made is replaced by the copied one (its nonce, clock, counts)
    conn.execute("DELETE FROM brain", []).map_err(sql_err)?;
    let mut counts = Vec::new();
    for (t, rows) in tables.iter().zip(&data) {
        let mut stmt = conn.prepare(&t.insert_sql(t.name, '?')).map_err(sql_err)?;
        for r in rows {
            let values: Vec<Value> = r.iter().map(Cell::sqlite).collect();
            stmt.execute(rusqlite::params_from_iter(values))
                .map_err(sql_err)?;
        }
        counts.push((t.name.to_string(), rows.len()));
    }
    conn.execute_batch("COMMIT").map_err(sql_err)?;
    // (closes the database: its files can move)
    store.finish_bulk()?;
    if dir.exists() {
        return Err(Error::Invalid(format!(
            "{}: made by another process during the copy (nothing was written there)",
            dir.display()
        )));
    }
    std::fs::rename(&building, dir).map_err(io(dir))?;
    fresh.keep();
    Ok(Copied {
        schema,
        tables: counts,
    })
}
