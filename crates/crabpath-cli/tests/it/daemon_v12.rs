//! The daemon's protocol at upstream v12 parity (`openclawbrain/daemon.py`,
//! `protocol.py`, 12.2.6): every v12 method, `route_mode` on `query`, `protocol`, and
//! the errors (unknown method, bad params, with upstream's messages), in both
//! profiles: `paper` on a reference state file (the conversation log in memory),
//! `corrected` on a brain database (the log in its tables).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde_json::{json, Value};

fn brain(dir: &Path, profile: &str) -> &'static str {
    common::copy_tree(&common::fixtures().join("workspace"), &dir.join("ws"));
    let (rc, _, err) = common::run_text(
        dir,
        profile,
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
    if profile == "paper" {
        assert!(dir.join("brain/state.json").is_file());
        "brain/state.json"
    } else {
        assert!(dir.join("brain/brain.db").is_file());
        "brain"
    }
}

/// Sends every request to one daemon and returns the answers, in order.
fn session(profile: &str, requests: &[Value]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let state = brain(dir.path(), profile);
    let mut c = common::spawn_piped(dir.path(), profile, &["daemon", "--state", state]);
    let mut stdin = c.stdin.take().unwrap();
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let mut answers = Vec::new();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        answers
            .push(serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
    }
    writeln!(stdin, "{}", json!({"id": "end", "method": "shutdown"})).unwrap();
    drop(stdin);
    assert!(c.wait().unwrap().success());
    answers
}

fn req(id: usize, method: &str, params: Value) -> Value {
    json!({"id": id, "method": method, "params": params})
}

fn result<'a>(a: &'a Value, what: &str) -> &'a Value {
    a.get("result").unwrap_or_else(|| panic!("{what}: {a}"))
}

fn error(a: &Value) -> (i64, String) {
    let e = a
        .get("error")
        .unwrap_or_else(|| panic!("not an error: {a}"));
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_string(),
    )
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_v12_method_in_both_profiles() {
    let q = |id| {
        req(
            id,
            "query",
            json!({"query": "deploy the service", "chat_id": "c"}),
        )
    };
    let requests = vec![
        req(0, "protocol", json!({})),
        q(1),
        req(2, "last_fired", json!({"chat_id": "c"})),
        req(
            3,
            "learn_by_chat_id",
            json!({"chat_id": "c", "outcome": 1.0}),
        ),
        req(
            4,
            "learn_by_chat_id",
            json!({"chat_id": "c", "outcome": 1.0}),
        ),
        q(5),
        req(
            6,
            "correction",
            json!({"chat_id": "c", "outcome": -1, "content": "Deploy with the release pipeline."}),
        ),
        req(
            7,
            "correction",
            json!({"chat_id": "c", "outcome": -1, "content": "Deploy with the release pipeline."}),
        ),
        req(
            8,
            "inject",
            json!({"id": "tip", "content": "Staging is eu-west.", "type": "TEACHING"}),
        ),
        req(
            9,
            "inject",
            json!({"id": "tip", "content": "Staging is eu-west.", "type": "TEACHING"}),
        ),
        req(
            10,
            "capture_feedback",
            json!({"chat_id": "c", "kind": "TEACHING", "content": "Prod is us-east.", "dedup_key": "m1"}),
        ),
        req(
            11,
            "capture_feedback",
            json!({"chat_id": "c", "kind": "DIRECTIVE", "content": "Other text", "message_id": "m1"}),
        ),
        req(
            12,
            "query",
            json!({"query": "deploy", "route_mode": "adaptive"}),
        ),
        req(13, "info", json!({})),
    ];
    for profile in ["paper", "corrected"] {
        let a = session(profile, &requests);
        let fixes = profile == "corrected";
        // the same brain, fresh
        let fresh = session(profile, &[req(0, "info", json!({}))]);
        let before = result(&fresh[0], "info")["nodes"].as_u64().unwrap();
        let p = result(&a[0], "protocol");
        assert_eq!(p["protocol_version"], 2, "{profile}");
        for m in [
            "query",
            "learn",
            "maintain",
            "health",
            "info",
            "save",
            "reload",
            "shutdown",
            "inject",
            "correction",
            "last_fired",
            "learn_by_chat_id",
            "capture_feedback",
        ] {
            assert!(
                ids(&p["methods"]).contains(&m.to_string()),
                "{profile}: {m}"
            );
        }
        // the default route mode: corrected edge+sim, paper off (the reference)
        assert_eq!(p["route_mode"], if fixes { "edge+sim" } else { "off" });

        let q1 = result(&a[1], "query");
        let fired1 = ids(&q1["fired_nodes"]);
        assert!(!fired1.is_empty());
        if fixes {
            assert_eq!(q1["turn"], 1);
            assert_eq!(q1["route_mode"], "edge+sim");
        } else {
            // the paper answer keeps the reference's keys
            assert!(q1.get("turn").is_none() && q1.get("route_mode").is_none());
        }
        let lf = result(&a[2], "last_fired");
        assert_eq!(lf["chat_id"], "c");
        assert_eq!(lf["lookback"], 1);
        assert_eq!(ids(&lf["fired_nodes"]), fired1, "{profile}");

        let l1 = result(&a[3], "learn_by_chat_id");
        assert!(l1["edges_updated"].as_u64().unwrap() > 0, "{profile}: {l1}");
        assert_eq!(l1["credited"][0]["turn"], 1);
        assert_eq!(l1["credited"][0]["weight"], 1.0);
        assert_eq!(l1["node_injected"], false);
        assert_eq!(ids(&l1["fired_ids_penalized"]), fired1);
        // the turn's credit is consumed
        let l2 = result(&a[4], "learn_by_chat_id");
        assert_eq!(l2["edges_updated"], 0, "{profile}: {l2}");
        assert!(l2["credited"].as_array().unwrap().is_empty());

        let c1 = result(&a[6], "correction");
        assert_eq!(c1["correction_injected"], true, "{profile}: {c1}");
        assert!(c1["node_id"].as_str().unwrap().starts_with("correction::"));
        assert_eq!(c1["deduped"], false);
        // turn 2 only: turn 1 was credited by learn_by_chat_id
        assert_eq!(
            c1["credited"].as_array().unwrap().len(),
            1,
            "{profile}: {c1}"
        );
        assert_eq!(c1["credited"][0]["turn"], 2);
        let c2 = result(&a[7], "correction");
        assert_eq!(c2["deduped"], true, "{profile}: {c2}");
        assert_eq!(c2["correction_injected"], false);
        assert_eq!(c2["node_id"], c1["node_id"]);

        assert_eq!(result(&a[8], "inject")["injected"], true);
        assert_eq!(result(&a[8], "inject")["node_id"], "tip");
        assert_eq!(result(&a[9], "inject")["injected"], false);

        let f1 = result(&a[10], "capture_feedback");
        assert_eq!(f1["deduped"], false, "{profile}: {f1}");
        assert!(f1["injected_node_id"]
            .as_str()
            .unwrap()
            .starts_with("teaching::"));
        assert_eq!(f1["dedup_key_used"], "m1");
        assert!(
            f1.get("outcome_used").is_none(),
            "a teaching without outcome"
        );
        // message_id is an alias of dedup_key (upstream): the same key is deduped
        let f2 = result(&a[11], "capture_feedback");
        assert_eq!(f2["deduped"], true, "{profile}: {f2}");
        assert_eq!(f2["edges_updated"], 0);

        let q12 = result(&a[12], "query");
        if fixes {
            assert_eq!(q12["route_mode"], "adaptive");
            assert!(q12.get("turn").is_none(), "no chat_id, no turn");
        }
        let info = result(&a[13], "info");
        // tip, the correction and the teaching were added, and (corrected profile,
        // neurogenesis on: issue 31 item 1) the `auto:` node of a question in the novel
        // band
        assert_eq!(
            info["nodes"].as_u64().unwrap(),
            before + 3 + u64::from(fixes),
            "{profile}: {info}"
        );
        assert_eq!(info.get("protocol_version").is_some(), fixes);
    }
}

#[test]
fn errors_are_upstreams_in_both_profiles() {
    let cases: Vec<(Value, i64, &str)> = vec![
        (
            req(1, "no_such_method", json!({})),
            -32601,
            "unknown method: no_such_method",
        ),
        (
            req(2, "learn_by_chat_id", json!({"outcome": 1})),
            -1,
            "chat_id is required",
        ),
        (
            req(3, "learn_by_chat_id", json!({"chat_id": 7, "outcome": 1})),
            -1,
            "chat_id must be a string",
        ),
        (
            req(4, "learn_by_chat_id", json!({"chat_id": "c"})),
            -1,
            "outcome is required",
        ),
        (
            req(5, "correction", json!({"chat_id": "c", "outcome": "x"})),
            -1,
            "outcome must be a number",
        ),
        (
            req(6, "last_fired", json!({"chat_id": "c", "lookback": 0})),
            -1,
            "lookback must be >= 1",
        ),
        (
            req(7, "last_fired", json!({"chat_id": " "})),
            -1,
            "chat_id is required",
        ),
        (
            req(
                8,
                "inject",
                json!({"id": "x", "content": "y", "type": "NOTE"}),
            ),
            -1,
            "type must be one of: TEACHING, CORRECTION, DIRECTIVE",
        ),
        (
            req(9, "inject", json!({"id": "x", "type": "TEACHING"})),
            -1,
            "content is required",
        ),
        (
            req(10, "inject", json!({"content": "y", "type": "TEACHING"})),
            -1,
            "id is required",
        ),
        (
            req(
                11,
                "inject",
                json!({"id": "x", "content": "y", "type": "TEACHING", "metadata": [1]}),
            ),
            -1,
            "metadata must be an object",
        ),
        (
            req(
                12,
                "capture_feedback",
                json!({"chat_id": "c", "kind": "NOTE", "content": "y"}),
            ),
            -1,
            "kind must be one of: CORRECTION, TEACHING, DIRECTIVE",
        ),
        (
            req(
                13,
                "capture_feedback",
                json!({"chat_id": "c", "kind": "TEACHING"}),
            ),
            -1,
            "content is required",
        ),
        (
            req(
                14,
                "capture_feedback",
                json!({"chat_id": "c", "kind": "TEACHING", "content": "y", "dedup_key": " "}),
            ),
            -1,
            "dedup_key must be a non-empty string",
        ),
        (
            req(
                15,
                "capture_feedback",
                json!({"chat_id": "c", "kind": "TEACHING", "content": "y", "message_id": 3}),
            ),
            -1,
            "message_id must be a string",
        ),
        (
            req(16, "query", json!({"query": "x", "route_mode": "bad"})),
            -1,
            "route_mode must be one of: off, edge, edge+sim, adaptive",
        ),
        (
            req(17, "query", json!({"query": "x", "route_mode": 3})),
            -1,
            "route_mode must be one of: off, edge, edge+sim, adaptive",
        ),
        (
            json!({"id": 18, "method": "protocol", "params": []}),
            -1,
            "params must be a JSON object",
        ),
    ];
    let requests: Vec<Value> = cases.iter().map(|c| c.0.clone()).collect();
    for profile in ["paper", "corrected"] {
        let answers = session(profile, &requests);
        for ((r, code, message), a) in cases.iter().zip(&answers) {
            assert_eq!(a["id"], r["id"], "{profile}");
            assert_eq!(error(a), (*code, message.to_string()), "{profile}: {r}");
        }
    }
}
