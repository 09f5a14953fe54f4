//! `crabpath init --conversation` and `remember` from the command line's side (issue
//! 28, item 1): a conversation brain built in order with its metadata and session
//! chains; a bad file writes nothing (no directory made, an existing brain left byte
//! for byte); turns remembered through the daemon (stdin) and through MCP, chained and
//! found by a query; `sync` of a conversation brain says there is no folder; a daemon
//! killed (-9) while remembering leaves a valid brain with every answered turn.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/fixtures/conversation.jsonl")
}

/// `crabpath init --conversation <file> --output <output> [extra]` in `dir`.
fn init_from(dir: &Path, file: &Path, output: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "init",
        "--conversation",
        file.to_str().unwrap(),
        "--output",
        output,
    ];
    args.extend(extra);
    common::run_text(dir, "corrected", &args)
}

/// `crabpath init --conversation <fixture> --output brain` in `dir`; its `--json` line.
fn init(dir: &Path) -> Value {
    let (rc, out, err) = init_from(dir, &fixture(), "brain", &["--json"]);
    assert_eq!(rc, 0, "{err}");
    serde_json::from_str(out.trim()).unwrap()
}

fn open(dir: &Path) -> crabpath_brain::Brain {
    let mut o = crabpath_brain::OpenOptions::new(crabpath::Profile::Corrected);
    o.embedder = Some(std::sync::Arc::new(|| {
        Ok(Box::new(crabpath::HashEmbedder::new()) as Box<dyn crabpath::Embedder>)
    }));
    crabpath_brain::Brain::open(crabpath_brain::locate(&dir.join("brain")), o).unwrap()
}

/// Every file under `dir` with its bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(tree(&p));
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn init_conversation_builds_turns_in_order_chained_within_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let r = init(dir.path());
    // datasets/fixtures/conversation.jsonl: 6 turns in 2 sessions of 3, 2 pairs each way,
    // and the entity edges of "Lisbon" (S1:1, S2:1) both ways
    assert_eq!(r["nodes"], 6);
    assert_eq!(r["edges"], 10);
    assert_eq!(r["sessions"], 2);
    assert_eq!(r["embedder"], "hash-v1");
    let mut b = open(dir.path());
    let (ids, meta, s2_edges, source) = b
        .read(|g, m| {
            let ids: Vec<String> = g.nodes().map(|(_, n)| n.id.clone()).collect();
            let n = g.get_node("turn:2:2").unwrap();
            let s2: Vec<String> = g
                .bucket(g.lookup("turn:2:2").unwrap())
                .unwrap()
                .iter()
                .map(|(&t, _)| g.name(t).to_string())
                .collect();
            (ids, n.metadata.clone(), s2, m.get("source").cloned())
        })
        .unwrap();
    assert_eq!(ids, ["S1:1", "S1:2", "S1:3", "S2:1", "turn:2:2", "S2:3"]);
    assert_eq!(meta["kind"], "conversation");
    assert_eq!(meta["turn"], 4);
    assert_eq!(meta["session"], "2");
    assert_eq!(meta["speaker"], "Maya");
    assert!(meta.get("file").is_none());
    let mut s2_edges = s2_edges;
    s2_edges.sort();
    assert_eq!(
        s2_edges,
        ["S2:1", "S2:3"],
        "its neighbours are the turns with `session` 2 only"
    );
    assert_eq!(source, Some(json!("conversation")));

    // sync has no folder to read
    let (rc, _, err) = common::run_text(
        dir.path(),
        "corrected",
        &["sync", "--state", "brain", "--workspace", "."],
    );
    assert_eq!(rc, 1);
    assert!(
        err.contains("built from a conversation") && err.contains("no folder to sync"),
        "{err}"
    );
}

#[test]
fn workspace_and_conversation_exclude_each_other_and_help_explains_it() {
    let dir = tempfile::tempdir().unwrap();
    let (rc, _, err) = init_from(dir.path(), &fixture(), "b", &["--workspace", "."]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    let (rc, out, _) = common::run_text(dir.path(), "corrected", &["init", "--help"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("--conversation <FILE>") && out.contains("JSON Lines"),
        "{out}"
    );
    assert!(!dir.path().join("b").exists());
}

#[test]
fn a_bad_file_writes_nothing_and_leaves_a_brain_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\": \"a\", \"text\": \"hello\"}\n{\"id\": \"b\", \"text\": \"x\", \"spaeker\": \"Ann\"}\n",
    )
    .unwrap();
    let args = |out: &str| init_from(dir.path(), &bad, out, &[]);
    // a new directory is not even created
    let (rc, _, err) = args("fresh");
    assert_eq!(rc, 1);
    assert!(
        err.contains("bad.jsonl:2: unknown field `spaeker`"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!dir.path().join("fresh").exists());
    // an existing brain is not replaced, nor snapshotted
    init(dir.path());
    let before = tree(&dir.path().join("brain"));
    let (rc, _, err) = args("brain");
    assert_eq!(rc, 1, "{err}");
    assert_eq!(tree(&dir.path().join("brain")), before);
    // a good file over it keeps it as a snapshot first
    let (rc, _, err) = init_from(dir.path(), &fixture(), "brain", &[]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("before-init-"), "{err}");
}

/// `crabpath daemon --state brain` in `dir`, with its stdin and its answers.
fn spawn_daemon(
    dir: &Path,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    impl FnMut() -> Value,
) {
    let mut c = common::spawn_piped(dir, "corrected", &["daemon", "--state", "brain"]);
    let stdin = c.stdin.take().unwrap();
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let answer = move || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    (c, stdin, answer)
}

/// Sends `requests` to `crabpath daemon --state brain` in `dir`; the answers.
fn daemon(dir: &Path, requests: &[Value]) -> Vec<Value> {
    let (mut c, mut stdin, mut answer) = spawn_daemon(dir);
    let mut answers = Vec::new();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
        answers.push(answer());
    }
    drop(stdin);
    assert!(c.wait().unwrap().success());
    answers
}

fn call(i: usize, method: &str, params: Value) -> Value {
    json!({"id": i, "method": method, "params": params})
}

#[test]
fn the_daemon_remembers_turns_chained_and_found() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    let a = daemon(
        dir.path(),
        &[
            call(
                1,
                "remember",
                json!({"session": 2, "speaker": "Maya", "time": "6:45 pm on 19 March, 2024", "text": "Deal: bring flour and a jar on Saturday."}),
            ),
            call(
                2,
                "remember",
                json!({"id": "S3:1", "session": "3", "text": "The kayak trip is moved to June."}),
            ),
            call(3, "remember", json!({"id": "S1:1", "text": "again"})),
            call(4, "remember", json!({"session": 2})),
            call(
                5,
                "query",
                json!({"query": "bring flour and a jar on Saturday"}),
            ),
            call(6, "protocol", json!({})),
        ],
    );
    let r = &a[0]["result"];
    // part 2 of the conversation had 3 turns: this is its 4th, chained to S2:3
    assert_eq!(r["node_id"], "turn:2:4", "{}", a[0]);
    assert_eq!(r["turn"], 6);
    assert_eq!(r["edges"][0][0], "S2:3");
    assert_eq!(r["edges"][1][1], "S2:3");
    assert_eq!(a[1]["result"]["edges"], json!([]), "a new session");
    let e = a[2]["error"]["message"].as_str().unwrap();
    assert!(e.contains("`S1:1` exists already"), "{e}");
    let e = a[3]["error"]["message"].as_str().unwrap();
    assert!(e.contains("remember: `text` is missing"), "{e}");
    let fired = a[4]["result"]["fired_nodes"].as_array().unwrap();
    assert!(fired.contains(&json!("turn:2:4")), "{fired:?}");
    assert!(a[5]["result"]["methods"]
        .as_array()
        .unwrap()
        .contains(&json!("remember")));
    let mut b = open(dir.path());
    assert_eq!(b.node_count().unwrap(), 8);
    assert_eq!(b.vector_count().unwrap(), 8);
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn mcp_remember_chains_and_refuses_bad_turns_and_sync_says_why() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    let s = common::mcp_server(dir.path(), None);
    let ok = |tool: &str, a: Value| -> Value {
        let r = s.call_tool_now(tool, &args(a));
        assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
        r.structured_content.unwrap()
    };
    let err = |tool: &str, a: Value| -> String {
        let r = s.call_tool_now(tool, &args(a));
        assert_eq!(r.is_error, Some(true), "{tool}: {r:?}");
        serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r = ok(
        "remember",
        json!({"session": 1, "speaker": "Tom", "text": "Then I will water your plants from the 14th."}),
    );
    assert_eq!(r["node_id"], "turn:1:4");
    assert_eq!(r["edges"][0], json!(["S1:3", "turn:1:4", r["edges"][0][2]]));
    let q = ok("query", json!({"query": "water your plants"}));
    let fired: Vec<&Value> = q["fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["id"])
        .collect();
    assert!(fired.contains(&&json!("turn:1:4")), "{q}");
    assert_eq!(
        err("remember", json!({"text": "x", "sesion": 1})),
        "remember: unknown field `sesion` (the fields are: id, session, time, speaker, text; only text is required)"
    );
    assert_eq!(
        err("remember", json!({"text": ["x"]})),
        "remember: `text` must be a non-empty string, got an array"
    );
    let e = err("sync", json!({}));
    assert!(e.contains("built from a conversation"), "{e}");
}

#[test]
fn a_daemon_killed_while_remembering_leaves_a_valid_brain() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path());
    let (mut c, mut stdin, mut answer) = spawn_daemon(dir.path());
    // 40 requests sent at once, 10 answers read, then SIGKILL mid-stream
    for i in 0..40 {
        let r = call(
            i,
            "remember",
            json!({"session": "k", "text": format!("turn number {i} of a long chat")}),
        );
        writeln!(stdin, "{r}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answered = Vec::new();
    for _ in 0..10 {
        let v = answer();
        answered.push(v["result"]["node_id"].as_str().unwrap().to_string());
    }
    c.kill().unwrap();
    let _ = c.wait();
    let (rc, out, err) = common::run_text(dir.path(), "corrected", &["doctor", "--state", "brain"]);
    assert_eq!(rc, 0, "{out}{err}");
    let mut b = open(dir.path());
    let n = b.node_count().unwrap();
    assert!(n >= 6 + 10, "{n}");
    assert_eq!(b.vector_count().unwrap(), n, "a vector for every node");
    for id in &answered {
        assert!(b.has_node(id).unwrap(), "{id} was answered, then lost");
    }
    // the chain is unbroken: every turn of session k after the first has its predecessor
    let chained = b
        .read(|g, _| {
            (2..=n - 6).all(|k| {
                let (a, z) = (format!("turn:k:{}", k - 1), format!("turn:k:{k}"));
                match (g.lookup(&a), g.lookup(&z)) {
                    (Some(a), Some(z)) => g.edge(z, a).is_some() && g.edge(a, z).is_some(),
                    _ => false,
                }
            })
        })
        .unwrap();
    assert!(chained);
}
