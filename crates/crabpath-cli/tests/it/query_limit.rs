//! `limit` and `seeding` on every surface (issue 28, items 2 and 3): `crabpath query
//! --limit K` (text and JSON), the daemon's `query` params `limit` and `seeding`, the
//! MCP `query` tool's `limit`; without a limit the answers keep their keys; `doctor`
//! passes on a new brain and on a schema-2 brain it migrates.

use crate::common;

use std::io::{BufRead, BufReader, Write};

use serde_json::{json, Value};

/// The ids of a JSON array.
fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_command_line_answers_at_most_limit_nodes() {
    let dir = common::scratch_brain();
    let d = dir.path();
    let q = "how do I deploy";
    let (rc, out, err) = common::run_text(d, "corrected", &["query", q, "--state", "b", "--json"]);
    assert_eq!(rc, 0, "{err}");
    let plain: Value = serde_json::from_str(&out).unwrap();
    assert!(plain.get("ranked").is_none(), "no limit, no new key");
    assert!(ids(&plain["fired"]).len() > 2, "{out}");
    for (limit, seeding) in [("1", "hybrid"), ("2", "dense"), ("3", "lexical")] {
        let (rc, out, err) = common::run_text(
            d,
            "corrected",
            &[
                "query",
                q,
                "--state",
                "b",
                "--json",
                "--limit",
                limit,
                "--seeding",
                seeding,
            ],
        );
        assert_eq!(rc, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let ranked = ids(&v["ranked"]);
        assert_eq!(ranked.len(), limit.parse::<usize>().unwrap(), "{out}");
        // the text output lists the same nodes, one block each
        let (rc, text, err) = common::run_text(
            d,
            "corrected",
            &[
                "query",
                q,
                "--state",
                "b",
                "--limit",
                limit,
                "--seeding",
                seeding,
            ],
        );
        assert_eq!(rc, 0, "{err}");
        let blocks: Vec<&str> = text
            .lines()
            .zip(text.lines().skip(1))
            .filter(|(_, under)| !under.is_empty() && under.chars().all(|c| c == '~'))
            .map(|(id, _)| id)
            .collect();
        assert_eq!(blocks, ranked, "{text}");
    }
    // --no-traverse: the search alone, no steps
    let (rc, out, err) = common::run_text(
        d,
        "corrected",
        &[
            "query",
            q,
            "--state",
            "b",
            "--json",
            "--limit",
            "5",
            "--no-traverse",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["steps"], json!([]));
    assert!(ids(&v["ranked"]).len() <= 5);
    // bad values name the option
    for (args, needle) in [
        (vec!["--limit", "0"], "--limit"),
        (vec!["--limit", "x"], "--limit"),
        (vec!["--seeding", "bm25"], "--seeding"),
    ] {
        let mut all = vec!["query", q, "--state", "b"];
        all.extend(args);
        let (rc, _, err) = common::run_text(d, "corrected", &all);
        assert_eq!(rc, 2, "{err}");
        assert!(err.contains(needle), "{err}");
    }
    let (_, help, _) = common::run_text(d, "corrected", &["query", "--help"]);
    for flag in ["--limit", "--seeding", "--no-traverse"] {
        assert!(help.contains(flag), "{help}");
    }
}

#[test]
fn the_daemon_answers_at_most_limit_nodes() {
    let dir = common::scratch_brain();
    let mut child = common::spawn_piped(dir.path(), "corrected", &["daemon", "--state", "b"]);
    let mut input = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |params: Value| -> Value {
        let req = json!({"id": 1, "method": "query", "params": params});
        writeln!(input, "{req}").unwrap();
        input.flush().unwrap();
        serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap()
    };
    let plain = ask(json!({"query": "how do I deploy", "top_k": 4}));
    assert!(plain["result"].get("ranked").is_none(), "{plain}");
    for (limit, seeding) in [(1, "hybrid"), (2, "dense"), (3, "lexical")] {
        let a = ask(json!({"query": "how do I deploy", "limit": limit, "seeding": seeding}));
        assert_eq!(ids(&a["result"]["ranked"]).len(), limit, "{a}");
    }
    for (params, needle) in [
        (json!({"query": "deploy", "limit": 0}), "limit must be >= 1"),
        (
            json!({"query": "deploy", "limit": "3"}),
            "limit must be an integer",
        ),
        (
            json!({"query": "deploy", "seeding": "bm25"}),
            "unknown seeding",
        ),
    ] {
        let a = ask(params);
        let msg = a["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains(needle), "{a}");
    }
    drop(input);
    child.wait().unwrap();
}

#[test]
fn the_mcp_tool_answers_at_most_limit_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::copy_tree(&common::fixtures().join("workspace"), &d.join("ws"));
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
    let s = common::mcp_server(d, Some(d.join("ws")));
    let call = |a: Value| s.call_tool_now("query", a.as_object().unwrap());
    for limit in [1, 3, 200] {
        let r = call(json!({"query": "how do I deploy", "limit": limit}));
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let v = r.structured_content.unwrap();
        let fired = v["fired"].as_array().unwrap();
        assert!(!fired.is_empty() && fired.len() <= limit, "{v}");
        assert!(fired
            .iter()
            .all(|f| !f["text"].as_str().unwrap().is_empty()));
    }
    for bad in [json!(0), json!(201), json!("3")] {
        let r = call(json!({"query": "deploy", "limit": bad}));
        assert_eq!(r.is_error, Some(true), "{bad}: {r:?}");
    }
    let tools = crabpath_mcp::tools::list();
    let schema = serde_json::to_value(&tools[0].input_schema).unwrap();
    assert_eq!(schema["properties"]["limit"]["maximum"], json!(200));
}

#[test]
fn doctor_passes_on_a_new_brain_and_on_a_migrated_one() {
    let dir = common::scratch_brain();
    let d = dir.path();
    let (rc, out, _) = common::run_text(d, "corrected", &["doctor", "--state", "b"]);
    assert_eq!(rc, 0, "{out}");
    // the brain main's code writes: schema 2, without the lexical index
    let c = rusqlite::Connection::open(d.join("b/brain.db")).unwrap();
    c.execute_batch(
        "DROP TRIGGER nodes_fts_insert; DROP TRIGGER nodes_fts_delete; DROP TRIGGER nodes_fts_update;
         DROP TABLE nodes_fts; PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(c);
    let (rc, out, _) = common::run_text(d, "corrected", &["doctor", "--state", "b"]);
    assert_eq!(rc, 0, "{out}");
    let to = crabpath_brain::store::schema::SCHEMA_VERSION;
    assert!(out.contains(&format!("schema 2 migrated to {to}")), "{out}");
    let (rc, out, _) = common::run_text(d, "corrected", &["doctor", "--state", "b"]);
    assert_eq!(rc, 0, "{out}");
    assert!(!out.contains("migrated"), "{out}");
}
