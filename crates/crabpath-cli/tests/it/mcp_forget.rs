//! The MCP tool `forget` (issue 30, item 3) and `crabpath forget`: both remove a file's
//! chunks and answer the same fields (`ForgetReport::to_json`); an unknown target or
//! two targets at once are one-line errors that change nothing.

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::common;

fn call(s: &crabpath_mcp::Server, a: Value) -> (bool, Value) {
    let m: Map<String, Value> = a.as_object().unwrap().clone();
    let r = s.call_tool_now("forget", &m);
    let text = serde_json::to_value(&r.content[0]).unwrap()["text"].clone();
    (
        r.is_error == Some(true),
        r.structured_content.unwrap_or(text),
    )
}

#[test]
fn the_mcp_tool_and_the_command_forget_a_file() {
    let dir = tempfile::tempdir().unwrap();
    common::fixture_brain(dir.path(), "corrected");
    let s = common::mcp_server(dir.path(), Some(dir.path().join("ws")));
    let (bad, msg) = call(&s, json!({"file": "notes.txt", "chat": "c"}));
    assert!(bad, "{msg}");
    assert_eq!(msg, "forget: give only one of file, node or chat");
    let (bad, msg) = call(&s, json!({"file": "nope.md"}));
    assert!(
        bad && msg.as_str().unwrap().contains("no file `nope.md`"),
        "{msg}"
    );
    let (bad, r) = call(&s, json!({"file": "notes.txt"}));
    assert!(!bad, "{r}");
    assert!(r["nodes"].as_u64().unwrap() >= 1, "{r}");
    let fields: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    drop(s);
    // the command line prints the same fields
    let (rc, out, err) = common::run_text(
        dir.path(),
        "corrected",
        &[
            "forget",
            "--state",
            "brain",
            "--file",
            "ws/guide.rst",
            "--json",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let cli: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(cli["target"], "guide.rst");
    let cli_fields: Vec<&str> = cli
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, cli_fields);
    let (rc, _, err) = common::run_text(
        dir.path(),
        "corrected",
        &["forget", "--state", "brain", "--node", "nope"],
    );
    assert_eq!(rc, 1);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(Path::new(&dir.path().join("brain/brain.db")).exists());
}
