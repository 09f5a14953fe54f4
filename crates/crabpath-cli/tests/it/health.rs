//! `crabpath health` in the corrected profile: the eight metrics of seed 002 §5.1,
//! Table 4, each printed with its target range and marked when out of it; `--json`, the
//! MCP `health` tool and the daemon's `health` return the same object; `--window`; the paper profile keeps the
//! reference's report (byte for byte: `reference_flow.rs`). The values themselves are
//! checked by hand computation in `crabpath-brain/tests/it/health.rs`.

use crate::common;

use serde_json::{json, Value};

/// Table 4's eight metrics with their ranges as the text prints them (seed 002 §5.1:
/// 1.0–2.0; 0–15 %; 70–95 %; 0–10 %; ≤ 20 %; 0–50 %; 0 %; 0).
const TABLE_4: [(&str, &str); 8] = [
    ("avg_nodes_fired_per_query", "1.0-2.0"),
    ("cross_file_edge_pct", "0%-15%"),
    ("dormant_pct", "70%-95%"),
    ("reflex_pct", "0%-10%"),
    ("context_compression", "<=20%"),
    ("proto_promotion_rate", "0%-50%"),
    ("reconvergence_rate", "0%"),
    ("orphan_nodes", "0"),
];

fn brain(dir: &std::path::Path) {
    common::fixture_brain(dir, "corrected");
}

fn ok(dir: &std::path::Path, profile: &str, args: &[&str]) -> String {
    let (rc, out, err) = common::run_text(dir, profile, args);
    assert_eq!(rc, 0, "{args:?}: {err}");
    out
}

fn health_json(dir: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["health", "--state", "brain", "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(dir, "corrected", &args)).unwrap()
}

#[test]
fn each_metric_is_printed_with_its_range_and_marked_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    brain(d);
    // before any query: the per-query metrics say so (no made-up 0)
    let text = ok(d, "corrected", &["health", "--state", "brain"]);
    let line = |text: &str, name: &str| -> String {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no line for {name} in\n{text}"))
            .to_string()
    };
    let l = line(&text, "avg_nodes_fired_per_query");
    assert!(l.contains("n/a (no queries yet)"), "{l}");
    assert!(line(&text, "context_compression").contains("n/a (no queries yet)"));
    ok(
        d,
        "corrected",
        &["query", "deploy the service", "--state", "brain"],
    );
    ok(
        d,
        "corrected",
        &["query", "how do I test", "--state", "brain"],
    );
    let text = ok(d, "corrected", &["health", "--state", "brain"]);
    let j = health_json(d, &[]);
    assert_eq!(j["queries"], 2);
    for (name, range) in TABLE_4 {
        let l = line(&text, name);
        assert!(l.contains(&format!("target {range} ")), "{name}: {l}");
        // the text marks exactly what the JSON says is out of range
        let status = j["metrics"][name]["status"].as_str().unwrap();
        let want = match status {
            "ok" => "ok".to_string(),
            "low" | "high" => format!("OUT OF RANGE ({status})"),
            _ => format!("n/a ({})", j["metrics"][name]["reason"].as_str().unwrap()),
        };
        assert!(
            l.trim_end().ends_with(&want),
            "{name}: {l} (status {status})"
        );
    }
    // the fixture's ten files hold orphans (no sibling): out of range, and so listed
    assert!(line(&text, "orphan_nodes").ends_with("OUT OF RANGE (high)"));
    let out: Vec<&str> = j["out_of_range"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(out.contains(&"orphan_nodes"), "{out:?}");
    let summary = format!("{} of 8 metrics out of range", out.len());
    assert!(text.contains(&summary), "{text}");
}

#[test]
fn json_the_mcp_tool_and_the_daemon_return_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    brain(d);
    for q in ["deploy the service", "how do I test", "rollback"] {
        ok(d, "corrected", &["query", q, "--state", "brain"]);
    }
    let s = common::mcp_server(d, None);
    for (cli, mcp) in [
        (vec![], json!({})),
        (vec!["--window", "2"], json!({"window": 2})),
    ] {
        let r = s.call_tool_now("health", mcp.as_object().unwrap());
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let from_mcp = r.structured_content.unwrap();
        let from_cli = health_json(d, &cli);
        assert_eq!(from_cli, from_mcp, "{cli:?}");
    }
    // the daemon (corrected profile) answers `health` with the same object
    let input = "{\"id\": 1, \"method\": \"health\", \"params\": {\"window\": 2}}\n";
    let o = common::run(d, "corrected", &["daemon", "--state", "brain"], input);
    let answer: Value = serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap();
    assert_eq!(
        answer["result"],
        health_json(d, &["--window", "2"]),
        "{answer}"
    );
    let j = health_json(d, &["--window", "2"]);
    assert_eq!(
        (j["window"].as_u64(), j["queries"].as_u64()),
        (Some(2), Some(2))
    );
    let names: Vec<&String> = j["metrics"].as_object().unwrap().keys().collect();
    assert_eq!(names, TABLE_4.map(|t| t.0));
    for (name, _) in TABLE_4 {
        let m = j["metrics"][name].as_object().unwrap();
        let fields: Vec<&String> = m.keys().collect();
        assert_eq!(
            fields,
            ["value", "unit", "min", "max", "status", "reason"],
            "{name}"
        );
    }
}

#[test]
fn a_corrected_state_file_is_measured_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::copy_tree(&common::fixtures().join("workspace"), &d.join("ws"));
    ok(d, "paper", &["init", "--workspace", "ws", "--output", "p"]);
    ok(
        d,
        "paper",
        &["query", "deploy the service", "--state", "p/state.json"],
    );
    let out = ok(
        d,
        "corrected",
        &["health", "--state", "p/state.json", "--json"],
    );
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["queries"], 1, "{j}");
    assert!(j["metrics"]["avg_nodes_fired_per_query"]["value"].is_number());
}

#[test]
fn the_window_is_checked_and_the_paper_profile_keeps_the_reference_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    brain(d);
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &["health", "--state", "brain", "--window", "0"],
    );
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("--window") && err.contains("at least 1"),
        "{err}"
    );
    common::copy_tree(&common::fixtures().join("workspace"), &d.join("ws2"));
    ok(d, "paper", &["init", "--workspace", "ws2", "--output", "p"]);
    let text = ok(d, "paper", &["health", "--state", "p/state.json"]);
    assert!(text.starts_with("Brain health:\n  Nodes: "), "{text}");
    assert!(!text.contains("target"), "{text}");
    let (rc, _, err) = common::run_text(
        d,
        "paper",
        &["health", "--state", "p/state.json", "--window", "5"],
    );
    assert_eq!(rc, 1);
    assert!(
        err.contains("--window needs the corrected profile"),
        "{err}"
    );
}
