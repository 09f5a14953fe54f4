//! `--neurogenesis on|off` on the command line (issue 31 item 1): `query
//! --neurogenesis off` answers byte for byte as a brain that never grew and leaves it
//! as it was; `init --neurogenesis off` records the setting; `info` counts auto nodes.

use crate::common;

use serde_json::Value;

fn info(d: &std::path::Path) -> Value {
    let (rc, out, err) = common::run_text(d, "corrected", &["info", "--state", "b", "--json"]);
    assert_eq!(rc, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn query(d: &std::path::Path, q: &str, extra: &[&str]) -> String {
    let mut args = vec!["query", q, "--state", "b", "--json", "--limit", "8"];
    args.extend_from_slice(extra);
    let (rc, out, err) = common::run_text(d, "corrected", &args);
    assert_eq!(rc, 0, "{err}");
    out
}

#[test]
fn neurogenesis_off_answers_as_a_fixed_graph_and_info_counts_auto_nodes() {
    let dir = common::scratch_brain();
    let d = dir.path();
    let questions = [
        "how do I deploy",
        "who is on call this week",
        "rollback steps",
    ];
    let nodes = info(d)["node_count"].as_u64().unwrap();
    let first: Vec<String> = questions
        .iter()
        .map(|q| query(d, q, &["--neurogenesis", "off"]))
        .collect();
    let again: Vec<String> = questions
        .iter()
        .map(|q| query(d, q, &["--neurogenesis", "off"]))
        .collect();
    assert_eq!(first, again, "byte for byte");
    assert_eq!(info(d)["auto_probation"], 0);
    assert_eq!(
        info(d)["node_count"].as_u64().unwrap(),
        nodes,
        "nothing grew"
    );
    // on (the default): a question is kept as a node only in the gate's novel band;
    // whatever grew, an answer asked with `off` is still today's
    for q in questions {
        query(d, q, &[]);
    }
    let grown = info(d);
    let kept = grown["auto_probation"].as_u64().unwrap();
    assert_eq!(grown["node_count"].as_u64().unwrap(), nodes + kept);
    assert_eq!(grown["auto_dead"], 0);
    // `health` counts the same auto nodes (issue 31 item 1), in its JSON and its text
    let (rc, out, err) = common::run_text(d, "corrected", &["health", "--state", "b", "--json"]);
    assert_eq!(rc, 0, "{err}");
    let health: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(health["auto_nodes"]["probation"].as_u64(), Some(kept));
    assert_eq!(health["auto_nodes"]["dead"], 0);
    let (_, text, _) = common::run_text(d, "corrected", &["health", "--state", "b"]);
    assert!(
        text.contains(&format!("Auto nodes (neurogenesis): {kept} on probation")),
        "{text}"
    );
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &["query", "x y z", "--state", "b", "--neurogenesis", "maybe"],
    );
    assert_eq!(rc, 2, "a bad value is a usage error");
    assert!(err.contains("expected on or off"), "{err}");
}

#[test]
fn init_records_neurogenesis_off() {
    let dir = common::scratch();
    let d = dir.path();
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "init",
            "--workspace",
            "ws",
            "--output",
            "b",
            "--neurogenesis",
            "off",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let nodes = info(d)["node_count"].as_u64().unwrap();
    for _ in 0..2 {
        query(d, "what does the data pipeline do nightly", &[]);
    }
    assert_eq!(
        info(d)["node_count"].as_u64().unwrap(),
        nodes,
        "nothing grew"
    );
}
