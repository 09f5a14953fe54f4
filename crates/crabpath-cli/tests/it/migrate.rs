//! `crabpath migrate` (issue 32, item 3) against a real PostgreSQL server
//! (`CRABPATH_POSTGRES`; `.ci/run` starts a throwaway cluster): a brain that was queried,
//! taught, corrected and credited goes into PostgreSQL and back out, and the copy equals
//! the original in every table, in its `export` (the issue's "round trip is byte-equal on
//! `export`") and in what its lexical index finds. Refusals write nothing.

use std::path::Path;

use rusqlite::types::Value;

use crate::common;

fn ok(dir: &Path, args: &[&str]) -> String {
    let (rc, out, err) = common::run_text(dir, "corrected", args);
    assert_eq!(rc, 0, "{args:?}: {err}");
    out
}

/// Every row of every table of the brain schema (crabpath-pg's list, the lexical
/// index's FTS5 tables aside), each table in its key order.
fn tables(db: &Path) -> Vec<(String, Vec<Vec<Value>>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    crabpath_pg::schema::tables()
        .unwrap()
        .iter()
        .map(|t| {
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT * FROM {} ORDER BY {}",
                    t.name,
                    t.order().join(", ")
                ))
                .unwrap();
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
                .unwrap()
                .collect::<rusqlite::Result<Vec<Vec<Value>>>>()
                .unwrap();
            (t.name.to_string(), rows)
        })
        .collect()
}

#[test]
#[ignore = "needs a PostgreSQL server (CRABPATH_POSTGRES; .ci/run starts one)"]
fn a_used_brain_round_trips_through_postgres_equal_in_every_table() {
    let Some(pg) = testdata::postgres() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::fixture_brain(d, "corrected");
    // a history of every kind of write the tables keep: a chat's turns, a credited
    // learn and a correction of that chat (the ledger) through MCP, then a learn and an
    // injected node from the command line (the journal)
    {
        let s = common::mcp_server(d, Some(d.join("ws")));
        let call = |tool: &str, a: serde_json::Value| {
            let r = s.call_tool_now(tool, a.as_object().unwrap());
            assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
        };
        call(
            "query",
            serde_json::json!({"query": "fix the deploy", "chat_id": "c1"}),
        );
        call(
            "feedback",
            serde_json::json!({"chat_id": "c1", "outcome": 1}),
        );
        call(
            "correct",
            serde_json::json!({"content": "Never deploy on Fridays.", "chat_id": "c1"}),
        );
    }
    ok(
        d,
        &["query", "--state", "brain", "--chat-id", "c2", "deploy"],
    );
    ok(
        d,
        &[
            "learn",
            "--state",
            "brain",
            "--chat-id",
            "c2",
            "--outcome",
            "-1",
        ],
    );
    ok(
        d,
        &[
            "inject",
            "--state",
            "brain",
            "--id",
            "note1",
            "--content",
            "Deploy notes live in the wiki.",
        ],
    );
    let name = format!("roundtrip_{}", std::process::id());
    let _drop = DropSchema(pg.clone(), format!("brain_{name}"));
    let to = ok(
        d,
        &[
            "migrate",
            "--from",
            "sqlite:brain",
            "--to",
            &pg,
            "--brain",
            &name,
            "--json",
        ],
    );
    let back = ok(
        d,
        &[
            "migrate",
            "--from",
            &pg,
            "--brain",
            &name,
            "--to",
            "sqlite:copy",
            "--json",
        ],
    );
    // the same rows counted each way, and every table copied (9 in schema version 3)
    assert_eq!(to, back);
    let counts: serde_json::Value = serde_json::from_str(to.trim()).unwrap();
    assert_eq!(counts["tables"].as_object().unwrap().len(), 9, "{to}");
    assert!(counts["tables"]["turns"].as_u64().unwrap() >= 2, "{to}");
    assert!(counts["tables"]["ledger"].as_u64().unwrap() >= 1, "{to}");

    assert_eq!(
        tables(&d.join("brain/brain.db")),
        tables(&d.join("copy/brain.db"))
    );
    ok(d, &["export", "--state", "brain", "--output", "a.json"]);
    ok(d, &["export", "--state", "copy", "--output", "c.json"]);
    assert_eq!(
        std::fs::read(d.join("a.json")).unwrap(),
        std::fs::read(d.join("c.json")).unwrap()
    );
    // the lexical index was rebuilt from nodes: the same answers
    let ask = |b: &str| {
        ok(
            d,
            &[
                "query",
                "--state",
                b,
                "--seeding",
                "lexical",
                "--no-traverse",
                "--limit",
                "20",
                "--json",
                "--neurogenesis",
                "off",
                "deploy notes",
            ],
        )
    };
    let (a, c) = (ask("brain"), ask("copy"));
    let ranked =
        |s: &str| serde_json::from_str::<serde_json::Value>(s.trim()).unwrap()["ranked"].clone();
    assert!(!ranked(&a).as_array().unwrap().is_empty(), "{a}");
    assert_eq!(ranked(&a), ranked(&c));
    let (rc, out, _) = common::run_text(d, "corrected", &["doctor", "--state", "copy"]);
    assert_eq!(rc, 0, "{out}");

    // refusals: the schema and the directory exist; nothing is changed
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "migrate",
            "--from",
            "sqlite:brain",
            "--to",
            &pg,
            "--brain",
            &name,
        ],
    );
    assert_eq!(rc, 1);
    assert!(err.contains("exists already"), "{err}");
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "migrate",
            "--from",
            &pg,
            "--brain",
            &name,
            "--to",
            "sqlite:copy",
        ],
    );
    assert_eq!(rc, 1);
    assert!(err.contains("copy: exists already"), "{err}");
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "migrate",
            "--from",
            &pg,
            "--brain",
            "no_such_brain_here",
            "--to",
            "sqlite:x",
        ],
    );
    assert_eq!(rc, 1);
    assert!(err.contains("no schema brain_no_such_brain_here"), "{err}");
    assert!(!d.join("x").exists());
}

/// Drops the PostgreSQL schema a test made when the test ends, passed or failed.
struct DropSchema(String, String);

impl Drop for DropSchema {
    fn drop(&mut self) {
        if let Ok(mut c) = crabpath_pg::connect(&self.0) {
            let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.1));
        }
    }
}

/// Mistakes found before any server is reached: one line each, exit 1.
#[test]
fn bad_migrate_arguments_are_one_line_each() {
    let dir = common::scratch_brain();
    let d = dir.path();
    for (args, want) in [
        (
            vec!["migrate", "--from", "b", "--to", "postgres://u:secret@h/db"],
            "--from b: expected sqlite:PATH or a postgres:// address",
        ),
        (
            vec!["migrate", "--from", "sqlite:b", "--to", "sqlite:c"],
            "one of each",
        ),
        (
            vec![
                "migrate",
                "--from",
                "sqlite:b",
                "--to",
                "postgres://u:secret@h/db",
                "--brain",
                "Bad-Name",
            ],
            "brain name \"Bad-Name\": expected 1 to 40 characters",
        ),
        (
            vec![
                "migrate",
                "--from",
                "postgres://u:secret@h/db",
                "--to",
                "sqlite:c",
            ],
            "--brain is needed",
        ),
        (
            vec!["migrate", "--from", "x", "--to", "mysql://u:secret@h/db"],
            "expected sqlite:PATH or a postgres:// address",
        ),
    ] {
        let (rc, out, err) = common::run_text(d, "corrected", &args);
        assert_eq!(rc, 1, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            !err.contains("secret"),
            "a password is never printed: {err}"
        );
    }
    assert!(!d.join("c").exists());
}
