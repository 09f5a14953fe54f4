//! A value SQLite holds in a column of another storage class is named (table, row,
//! column, what was expected) and nothing reaches PostgreSQL; a schema that exists is
//! refused and left as it was.

use crabpath_brain::store::{Layout, Store};

use crate::server;

/// A new brain database in `dir` with two nodes and an edge whose weight is the text
/// `heavy` (a REAL column keeps a text that does not look like a number as text).
fn brain_with_text_weight(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("brain.db");
    let store = Store::create(&db, Layout::Sparse, 4).unwrap();
    store
        .conn()
        .execute_batch(
            "INSERT INTO nodes(sym, id, node_seq, bucket_seq, content, rev) VALUES (1, 'a', 1, 1, 'alpha', 1), (2, 'b', 2, 2, 'beta', 1);
             INSERT INTO edges(src, tgt, seq, weight, kind, rev) VALUES (1, 2, 1, 'heavy', 'sibling', 1);",
        )
        .unwrap();
    store.finish_bulk().unwrap();
    db
}

#[test]
#[ignore = "needs a PostgreSQL server (CRABPATH_POSTGRES; .ci/run starts one)"]
fn a_value_of_another_class_is_named_and_nothing_is_written() {
    let Some(addr) = testdata::postgres() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = brain_with_text_weight(dir.path());
    let mut client = crabpath_pg::connect(&addr).unwrap();
    let name = server::unique("badvalue");
    let e = crabpath_pg::sqlite_to_postgres(&db, &mut client, &name)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "edges, row src=1, tgt=2, column weight: expected a real, found a text"
    );
    // the transaction was rolled back: not even the schema exists
    let exists =
        crabpath_pg::migrate::schema_exists(&mut client, &format!("brain_{name}")).unwrap();
    assert!(!exists);
}

#[test]
#[ignore = "needs a PostgreSQL server (CRABPATH_POSTGRES; .ci/run starts one)"]
fn a_brain_name_in_use_is_refused_and_kept() {
    let Some(addr) = testdata::postgres() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("brain.db");
    Store::create(&db, Layout::Dense, 3)
        .unwrap()
        .finish_bulk()
        .unwrap();
    let mut client = crabpath_pg::connect(&addr).unwrap();
    let name = server::unique("taken");
    let first = crabpath_pg::sqlite_to_postgres(&db, &mut client, &name).unwrap();
    assert_eq!(first.tables[0], ("brain".to_string(), 1));
    let e = crabpath_pg::sqlite_to_postgres(&db, &mut client, &name)
        .unwrap_err()
        .to_string();
    assert!(e.contains("exists already"), "{e}");
    // the first copy is still whole: it copies back out
    let out = dir.path().join("back");
    let back = crabpath_pg::postgres_to_sqlite(&mut client, &name, &out).unwrap();
    assert_eq!(back.tables, first.tables);
    // and a directory that exists is refused, untouched
    let e = crabpath_pg::postgres_to_sqlite(&mut client, &name, &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("exists already"), "{e}");
    assert!(out.join("brain.db").is_file());
    client
        .batch_execute(&format!("DROP SCHEMA brain_{name} CASCADE"))
        .unwrap();
}
