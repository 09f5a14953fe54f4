//! Corrections that guide rather than erase (issue 31, item 4), as a new user meets
//! them: a corrected brain of the rollback workspace (`crabpath-brain`'s
//! `tests/fixtures/rollback`), the question asked through the MCP server
//! (top_k 4, chat c1), `correct` for c1, then the same question through the MCP
//! server, the daemon and `crabpath query` (text and `--json`): each returns the
//! correction marked as a guardrail, and the rollback notes beside it.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde_json::{json, Map, Value};

const QUESTION: &str = "how do I roll back a failed deploy";
const CORRECTION: &str = "Never roll back by hand: always use the release tool.";

fn brain(dir: &Path) {
    let ws =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crabpath-brain/tests/fixtures/rollback");
    common::copy_tree(&ws, &dir.join("ws"));
    let (rc, _, err) = common::run_text(
        dir,
        "corrected",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
}

fn call(s: &crabpath_mcp::Server, tool: &str, a: Value) -> Value {
    let a: Map<String, Value> = a.as_object().unwrap().clone();
    let r = s.call_tool_now(tool, &a);
    assert_eq!(r.is_error, Some(false), "{tool}: {r:?}");
    r.structured_content.unwrap()
}

fn ids(v: &Value, key: &str) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|x| x[key].as_str().unwrap().to_string())
        .collect()
}

/// The rollback chunks among `ids` (the notes the question needs).
fn rollback(ids: &[String]) -> usize {
    ids.iter()
        .filter(|id| id.starts_with("deploy.md") || id.starts_with("rollback-notes.md"))
        .count()
}

#[test]
fn a_correction_comes_back_as_a_guardrail_beside_the_content() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    brain(d);
    let node = {
        let s = common::mcp_server(d, Some(d.join("ws")));
        let q = json!({"query": QUESTION, "top_k": 4, "chat_id": "c1"});
        let before = call(&s, "query", q.clone());
        assert_eq!(ids(&before["fired"], "id").len(), 6, "{before}");
        assert_eq!(before["guardrails"], json!([]));
        let c = call(
            &s,
            "correct",
            json!({"content": CORRECTION, "chat_id": "c1"}),
        );
        assert_eq!(c["mode"], "guardrail", "{c}");
        assert_eq!(c["inhibited_nodes"], json!([]), "{c}");
        let after = call(&s, "query", q);
        // before issue 31 item 4: `fired` held the correction alone
        let node = c["node_id"].as_str().unwrap().to_string();
        assert_eq!(
            ids(&after["guardrails"], "id"),
            vec![node.clone()],
            "{after}"
        );
        assert_eq!(after["guardrails"][0]["text"], CORRECTION);
        let content = ids(&after["fired"], "id");
        assert!(
            rollback(&content) >= 2 && !content.contains(&node),
            "{after}"
        );
        node
    };
    // the daemon: `guardrails` beside `fired_nodes` and `context`
    let mut c = common::spawn_piped(d, "corrected", &["daemon", "--state", "brain"]);
    let mut stdin = c.stdin.take().unwrap();
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let q = json!({"id": 1, "method": "query", "params": {"query": QUESTION, "top_k": 4}});
    writeln!(stdin, "{q}").unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    writeln!(stdin, "{}", json!({"id": 2, "method": "shutdown"})).unwrap();
    drop(stdin);
    assert!(c.wait().unwrap().success());
    let a: Value = serde_json::from_str(&line).unwrap();
    let r = &a["result"];
    assert_eq!(ids(&r["guardrails"], "id"), vec![node.clone()], "{a}");
    assert_eq!(r["guardrails"][0]["text"], CORRECTION);
    // the command line, --json and text
    let query = ["query", QUESTION, "--state", "brain", "--top", "4"];
    let (rc, text, err) = common::run_text(d, "corrected", &[&query[..], &["--json"]].concat());
    assert_eq!(rc, 0, "{err}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(ids(&v["guardrails"], "id"), vec![node.clone()], "{v}");
    assert_eq!(v["guardrails"][0]["text"], CORRECTION);
    let (rc, text, err) = common::run_text(d, "corrected", &query);
    assert_eq!(rc, 0, "{err}");
    let head = format!("GUARDRAIL (correction) {node}\n");
    assert!(text.starts_with(&head), "{text}");
    assert!(
        text.contains(CORRECTION) && text.contains("deploy.md::"),
        "{text}"
    );
}
