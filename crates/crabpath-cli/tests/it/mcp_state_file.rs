//! `crabpath mcp` on a state file saves each acknowledged write before answering it.
//! Before, the server held a state file resident and never saved it: a `feedback`
//! answered `edges_updated: 5` was in the journal but not in `state.json`, and was gone
//! when the server exited (end of input or `kill -9`). A database brain commits each
//! write anyway.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use crabpath_brain::reference::statefile::load_state;
use serde_json::{json, Value};

/// Every edge of the state file as (source, target, weight), sorted.
fn edges(dir: &std::path::Path) -> Vec<(String, String, String)> {
    let st = load_state(dir.join("brain/state.json")).unwrap();
    let mut out: Vec<_> = st
        .graph
        .edges()
        .map(|(s, t, e)| {
            (
                st.graph.name(s).to_string(),
                st.graph.name(t).to_string(),
                format!("{:?}", e.weight),
            )
        })
        .collect();
    out.sort();
    out
}

/// `crabpath mcp --state brain/state.json` (corrected profile) over stdio, initialized.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(dir: &std::path::Path) -> Server {
        let mut child = common::command(dir, "corrected", &["mcp", "--state", "brain/state.json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn crabpath mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Server {
            child,
            stdin,
            stdout,
        };
        s.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        );
        s.notify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn notify(&mut self, msg: Value) {
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and reads its answer.
    fn send(&mut self, msg: Value) -> Value {
        self.notify(msg);
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Closes its input (end of input) and waits for it to exit.
    fn finish(mut self) {
        drop(self.stdin.take());
        self.child.wait().unwrap();
    }
}

#[test]
fn an_acknowledged_feedback_survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    common::fixture_brain(dir.path(), "paper");
    let before = edges(dir.path());
    let mut server = Server::start(dir.path());
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    };
    let q = server.send(call(
        1,
        "query",
        json!({"query": "deploy rollback", "chat_id": "c1"}),
    ));
    assert_eq!(q["result"]["isError"], json!(false), "{q}");
    // a feedback whose journal entry cannot be written (a directory where the journal
    // should be: what a full disk does, without root) is refused whole: the state file
    // is not changed, and the server's memory forgets it too. Before, the state file
    // was saved first (the write stood, answered as an error) and the credit it
    // recorded made the retry below "already credited", 0 edges.
    let asked = edges(dir.path());
    let journal = dir.path().join("brain/journal.jsonl");
    let _ = std::fs::remove_file(&journal);
    std::fs::create_dir(&journal).unwrap();
    let refused = server.send(call(
        2,
        "feedback",
        json!({"chat_id": "c1", "outcome": 1.0}),
    ));
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    assert_eq!(
        edges(dir.path()),
        asked,
        "nothing of the refused feedback is saved"
    );
    std::fs::remove_dir(&journal).unwrap();
    let f = server.send(call(
        3,
        "feedback",
        json!({"chat_id": "c1", "outcome": 1.0}),
    ));
    let updated = f["result"]["structuredContent"]["edges_updated"].as_u64();
    assert!(updated.is_some_and(|n| n > 0), "{f}");
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert_ne!(
        edges(dir.path()),
        before,
        "the acknowledged feedback ({updated:?} edges) is in state.json"
    );
}

/// A write another process saves in the state file while `crabpath mcp` serves it is
/// kept. Before, the server saved its memory (read when it started) over the file with
/// its next write: a `crabpath inject` answered `Injected` was gone after an MCP
/// `teach`.
#[test]
fn a_write_saved_by_another_process_is_not_saved_over() {
    let dir = tempfile::tempdir().unwrap();
    common::fixture_brain(dir.path(), "paper");
    let mut server = Server::start(dir.path());
    common::inject_by_cli(
        dir.path(),
        "cli_note",
        "Written by another process while the server runs.",
    );
    let t = server.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "teach", "arguments": {"content": "Taught over MCP."}}}),
    );
    assert_eq!(t["result"]["isError"], json!(false), "{t}");
    let taught = t["result"]["structuredContent"]["node_id"]
        .as_str()
        .unwrap()
        .to_string();
    server.finish();
    let st = load_state(dir.path().join("brain/state.json")).unwrap();
    assert!(
        st.graph.lookup("cli_note").is_some(),
        "the other process's inject is in state.json"
    );
    assert!(
        st.graph.lookup(&taught).is_some(),
        "the MCP teach ({taught})"
    );
}
