//! `used_ids` on the command line (issue 31 item 5; the lead's note: "`learn` has no
//! chat to credit"): `query --chat-id c1` logs the turn, and `learn --chat-id c1
//! --outcome 1 --used-ids X` credits X, a node outside the answer, to that turn's
//! question, through the same `Brain::feedback` as the daemon's `learn_by_chat_id` and
//! MCP `feedback`. The same question asked again puts X first; the same feedback
//! without `--used-ids` does not.

use crate::common;

use serde_json::Value;

const QUESTION: &str = "how do we roll back a bad deploy";

/// `learn` of +1 for conversation c1, as JSON.
const LEARN_C1: [&str; 8] = [
    "learn",
    "--state",
    "b",
    "--chat-id",
    "c1",
    "--outcome",
    "1",
    "--json",
];

/// Chunks of the fixture workspace, any one of which is outside the first answer.
const CANDIDATES: [&str; 3] = ["guide.rst::0", "small.ini::0", "script.py::0"];

fn run_json(d: &std::path::Path, args: &[&str]) -> Value {
    let (rc, out, err) = common::run_text(d, "corrected", args);
    assert_eq!(rc, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

fn ranked(d: &std::path::Path, chat: Option<&str>) -> Vec<String> {
    let mut args = vec!["query", QUESTION, "--state", "b", "--limit", "5", "--json"];
    if let Some(c) = chat {
        args.extend(["--chat-id", c]);
    }
    run_json(d, &args)["ranked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Asks, teaches +1 for the turn (with `used` as `--used-ids` when given), asks again:
/// the node picked as used, and the second answer.
fn ask_teach_ask(with_used: bool) -> (String, Vec<String>) {
    let dir = common::scratch_brain();
    let d = dir.path();
    let first = ranked(d, Some("c1"));
    let used = CANDIDATES
        .iter()
        .find(|c| !first.iter().any(|f| f == *c))
        .unwrap()
        .to_string();
    let mut args = vec!["learn", "--state", "b", "--chat-id", "c1", "--outcome", "1"];
    if with_used {
        args.extend(["--used-ids", used.as_str()]);
    }
    args.push("--json");
    let r = run_json(d, &args);
    // the one logged turn, credited whole: turns ago 0, weight exp(0) = 1
    assert_eq!(r["credited"][0]["turn"], 1, "{r}");
    assert_eq!(r["credited"][0]["weight"], 1.0, "{r}");
    assert_eq!(r["chat_id"], "c1");
    (used, ranked(d, None))
}

#[test]
fn used_node_outside_the_answer_comes_first_when_asked_again() {
    let (used, again) = ask_teach_ask(true);
    assert_eq!(again[0], used, "{again:?}");
    // without the credit of --used-ids the same feedback leaves it out of first place
    let (used, again) = ask_teach_ask(false);
    assert_ne!(again[0], used, "{again:?}");
}

#[test]
fn chat_feedback_refuses_what_it_cannot_credit() {
    let dir = common::scratch_brain();
    let d = dir.path();
    ranked(d, Some("c1"));
    let fail = |args: &[&str]| {
        let (rc, _, err) = common::run_text(d, "corrected", args);
        (rc, err)
    };
    let (rc, err) = fail(&[
        "learn",
        "--state",
        "b",
        "--chat-id",
        "c1",
        "--outcome",
        "1",
        "--used-ids",
        "nope",
    ]);
    assert_eq!(rc, 1);
    assert!(err.contains("--used-ids: `nope` is not a node"), "{err}");
    let (rc, err) = fail(&["learn", "--state", "b", "--chat-id", " ", "--outcome", "1"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("--chat-id: expected a conversation id"),
        "{err}"
    );
    // --used-ids belongs to a conversation's turn, not to explicit fired ids
    let (rc, _) = fail(&[
        "learn",
        "--state",
        "b",
        "--outcome",
        "1",
        "--fired-ids",
        "README.md::0",
        "--used-ids",
        "README.md::1",
    ]);
    assert_eq!(rc, 2, "a usage error");
    // the refused feedback consumed nothing: the turn is still credited once
    let r = run_json(d, &LEARN_C1);
    assert_eq!(r["credited"].as_array().unwrap().len(), 1, "{r}");
    let r = run_json(d, &LEARN_C1);
    assert_eq!(r["credited"], Value::Array(vec![]), "{r}");
    assert!(r["note"]
        .as_str()
        .unwrap()
        .contains("credited by earlier feedback"));
    // a state file keeps no conversation log between commands
    let (rc, _, err) =
        common::run_text(d, "paper", &["init", "--workspace", "ws", "--output", "p"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, err) = fail(&["query", QUESTION, "--state", "p", "--chat-id", "c1"]);
    assert_eq!(rc, 1);
    assert!(err.contains("keeps no conversation log"), "{err}");
}

/// A feedback whose write is refused keeps its turns' credit for a retry. Before, the
/// turns were marked credited (committed on their own) before the weights were
/// written, so a write that failed (a full disk, a busy database) consumed the credit:
/// the retry answered "already credited" and the outcome could never be taught. Here a
/// trigger in the brain's database refuses every change of an edge.
#[test]
fn a_refused_feedback_leaves_the_turn_to_be_credited() {
    let dir = common::scratch_brain();
    let d = dir.path();
    ranked(d, Some("c1"));
    let db = rusqlite::Connection::open(d.join("b/brain.db")).unwrap();
    db.execute_batch(
        "CREATE TRIGGER refuse_insert BEFORE INSERT ON edges BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
         CREATE TRIGGER refuse_update BEFORE UPDATE ON edges BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
    )
    .unwrap();
    let (rc, _, err) = common::run_text(d, "corrected", &LEARN_C1);
    assert_ne!(rc, 0, "the write is refused");
    assert!(err.contains("refused by the test"), "{err}");
    db.execute_batch("DROP TRIGGER refuse_insert; DROP TRIGGER refuse_update;")
        .unwrap();
    let r = run_json(d, &LEARN_C1);
    assert_eq!(
        r["credited"][0]["turn"], 1,
        "the retry credits the turn: {r}"
    );
    assert!(r["edges_updated"].as_u64().is_some_and(|n| n > 0), "{r}");
    assert_eq!(r["already_credited"], serde_json::json!([]), "{r}");
}

/// The same for a correction (the daemon's `correction`, which MCP `correct` shares): a
/// refused one keeps its turn's credit, so that its retry credits the turn. Before, the
/// retry answered with no credited turn.
#[test]
fn a_refused_correction_leaves_the_turn_to_be_credited() {
    use std::io::{BufRead, Write};
    let dir = common::scratch_brain();
    let d = dir.path();
    let mut c = common::spawn_piped(d, "corrected", &["daemon", "--state", "b"]);
    let mut stdin = c.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(c.stdout.take().unwrap());
    let mut ask = |r: Value| -> Value {
        writeln!(stdin, "{r}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let q = ask(
        serde_json::json!({"id": 1, "method": "query", "params": {"query": QUESTION, "chat_id": "c1"}}),
    );
    assert!(q.get("result").is_some(), "{q}");
    let correction = |id: u64| {
        serde_json::json!({"id": id, "method": "correction", "params":
            {"chat_id": "c1", "outcome": -1, "content": "Roll back with the release pipeline."}})
    };
    let db = rusqlite::Connection::open(d.join("b/brain.db")).unwrap();
    db.execute_batch(
        "CREATE TRIGGER refuse_insert BEFORE INSERT ON edges BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
         CREATE TRIGGER refuse_update BEFORE UPDATE ON edges BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
    )
    .unwrap();
    let refused = ask(correction(2));
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("refused by the test")),
        "{refused}"
    );
    db.execute_batch("DROP TRIGGER refuse_insert; DROP TRIGGER refuse_update;")
        .unwrap();
    let again = ask(correction(3));
    let r = &again["result"];
    assert_eq!(r["deduped"], false, "{again}");
    assert_eq!(
        r["credited"][0]["turn"], 1,
        "the retry credits the turn: {again}"
    );
    drop(stdin);
    let _ = c.wait();
}
