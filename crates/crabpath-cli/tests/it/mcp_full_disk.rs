//! The MCP `query` tool on a full database (issue 30 item 4): the answer, with
//! `journaled: false` and a `warning` naming the file, the same fields as the daemon's
//! (`crabpath-brain`'s `full_disk::` tests); feedback for its chat is refused.

use serde_json::{json, Value};

fn call(s: &crabpath_mcp::Server, tool: &str, a: Value) -> (bool, Value) {
    let args = a.as_object().unwrap().clone();
    let r = s.call_tool_now(tool, &args);
    let text = serde_json::to_value(&r.content[0]).unwrap()["text"].clone();
    (
        r.is_error == Some(true),
        r.structured_content.unwrap_or(text),
    )
}

#[test]
fn an_mcp_query_on_a_full_database_is_answered_unjournaled() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::fixture_brain(dir.path(), "corrected");
    let mut b = crate::common::mcp_brain(dir.path());
    let page = b.fill_database_for_test().unwrap();
    let s = crabpath_mcp::Server::new(
        b,
        crabpath_mcp::Options {
            route_mode: crabpath_brain::service::route::RouteMode::EdgeSim,
            workspace: None,
        },
    );
    // a journal entry longer than a page needs a new one: the database has none
    let q = "how do I deploy the service ".repeat(2 * page / 20);
    let (failed, r) = call(&s, "query", json!({"query": q, "chat_id": "c1"}));
    assert!(!failed, "{r}");
    assert_eq!(r["journaled"], false, "{r}");
    let w = r["warning"].as_str().unwrap();
    assert!(w.contains("brain.db: database or disk is full"), "{w}");
    assert!(r.get("turn").is_none(), "no turn logged: {r}");
    let (failed, e) = call(&s, "feedback", json!({"chat_id": "c1", "outcome": 1}));
    assert!(failed && e.to_string().contains("not journaled"), "{e}");
    let (failed, e) = call(&s, "teach", json!({"content": "x ".repeat(page)}));
    assert!(
        failed && e.to_string().contains("database or disk is full"),
        "{e}"
    );
}
