//! Issue 30 items 1 and 2 against the real server binary over HTTP: `crabpath token`
//! (add, list without the secret, revoke), 401 and 403 (logged without the secret),
//! `--allow-remote` refused without tokens, and `mcp --brains DIR`: a token of brain A
//! never reads or changes brain B, through any tool or the node resource.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Child;
use std::sync::{Arc, Mutex};

use crabpath_mcp::client;
use serde_json::{json, Value};

/// A served directory `dir/served` with brains `alpha` and `beta` (the fixture
/// workspace, `crabpath init`).
pub(crate) fn served(dir: &Path) {
    common::copy_tree(&common::fixtures().join("workspace"), &dir.join("ws"));
    for b in ["alpha", "beta"] {
        let out = format!("served/{b}");
        let (rc, _, err) = common::run_text(
            dir,
            "corrected",
            &["init", "--workspace", "ws", "--output", &out],
        );
        assert_eq!(rc, 0, "{err}");
    }
}

/// `crabpath token add`: the secret (stdout) and the public id (stderr).
pub(crate) fn add_token(dir: &Path, brain: &str, role: &str) -> (String, String) {
    let out = common::run(
        dir,
        "corrected",
        &[
            "token", "add", "--brains", "served", "--brain", brain, "--role", role,
        ],
        "",
    );
    assert!(out.status.success(), "{out:?}");
    let secret = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let err = String::from_utf8(out.stderr).unwrap();
    let id = err
        .split("added ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    (secret, id.to_string())
}

/// The running server, its address and everything it wrote on stderr so far.
pub(crate) struct Running {
    pub(crate) child: Child,
    pub(crate) addr: String,
    log: Arc<Mutex<String>>,
}

impl Running {
    /// Everything the server wrote on stderr so far (after its address line).
    pub(crate) fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start(dir: &Path) -> Running {
    start_with(dir, &[])
}

/// [`start`] with `extra` arguments of `crabpath mcp`.
pub(crate) fn start_with(dir: &Path, extra: &[&str]) -> Running {
    let mut args = vec!["mcp", "--brains", "served", "--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let mut child = common::spawn_piped(dir, "corrected", &args);
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut addr = None;
    for l in lines.by_ref() {
        let l = l.unwrap();
        if let Some(u) = l.split("http://").nth(1) {
            addr = Some(u.trim_end_matches("/mcp").to_string());
            break;
        }
    }
    let log = Arc::new(Mutex::new(String::new()));
    let l2 = log.clone();
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            l2.lock().unwrap().push_str(&(l + "\n"));
        }
    });
    Running {
        child,
        addr: addr.expect("the server's address"),
        log,
    }
}

pub(crate) use crabpath_mcp::client::Answer;

/// POSTs a JSON-RPC message to /mcp ([`crabpath_mcp::client::post`]), which must
/// answer.
fn post(addr: &str, token: Option<&str>, session: Option<&str>, msg: &Value) -> Answer {
    client::post(addr, token, session, msg).expect("an HTTP answer from the server")
}

/// An MCP session of `token` ([`crabpath_mcp::client::session`]), which must open.
pub(crate) fn session(addr: &str, token: &str) -> String {
    client::session(addr, token).expect("an MCP session")
}

/// A tool call, which must be answered.
pub(crate) fn call(addr: &str, token: &str, sid: &str, tool: &str, args: Value) -> Answer {
    client::call(addr, token, sid, tool, args).expect("an HTTP answer from the server")
}

/// A node resource read, which must be answered.
pub(crate) fn read_node(addr: &str, token: &str, sid: &str, id: &str) -> Answer {
    client::read_node(addr, token, sid, id).expect("an HTTP answer from the server")
}

/// The structured result of a successful tool call.
pub(crate) fn result(a: &Answer) -> Value {
    assert_eq!(a.status, 200, "{}", a.body);
    let v = a.json();
    assert_eq!(v["result"]["isError"], json!(false), "{}", a.body);
    v["result"]["structuredContent"].clone()
}

#[test]
fn tokens_401_403_and_logs_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let (read, read_id) = add_token(d, "alpha", "read");
    let (write, _) = add_token(d, "alpha", "write");
    // list: ids, brain and role, never a secret
    let (rc, out, _) = common::run_text(d, "corrected", &["token", "list", "--brains", "served"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains(&read_id) && out.contains("alpha\tread"),
        "{out}"
    );
    assert!(!out.contains(&read) && !out.contains(&write), "{out}");
    let s = start(d);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}});
    // no token, a wrong one: 401 with the challenge
    for t in [None, Some("cpt_0000")] {
        let a = post(&s.addr, t, None, &init);
        assert_eq!(a.status, 401, "{}", a.body);
        assert_eq!(a.header("www-authenticate"), Some("Bearer"));
    }
    // a read token may query, not teach (403, a JSON-RPC error saying forbidden)
    let sid = session(&s.addr, &read);
    result(&call(
        &s.addr,
        &read,
        &sid,
        "query",
        json!({"query": "deploy"}),
    ));
    let a = call(&s.addr, &read, &sid, "teach", json!({"content": "x"}));
    assert_eq!(a.status, 403, "{}", a.body);
    let msg = a.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("forbidden:") && msg.contains("needs write"),
        "{msg}"
    );
    let wsid = session(&s.addr, &write);
    result(&call(
        &s.addr,
        &write,
        &wsid,
        "teach",
        json!({"content": "written by the write token"}),
    ));
    // revoked: 401 from the next request on, on the running server
    let (rc, _, e) = common::run_text(
        d,
        "corrected",
        &["token", "revoke", "--brains", "served", &read_id],
    );
    assert_eq!(rc, 0, "{e}");
    let (_, out, _) = common::run_text(d, "corrected", &["token", "list", "--brains", "served"]);
    assert!(!out.contains(&read_id), "{out}");
    let a = call(&s.addr, &read, &sid, "query", json!({"query": "deploy"}));
    assert_eq!(a.status, 401, "{}", a.body);
    std::thread::sleep(std::time::Duration::from_millis(100));
    let log = s.log.lock().unwrap().clone();
    assert!(log.contains("401 no bearer token"), "{log}");
    assert!(log.contains(&format!("403 token {read_id}")), "{log}");
    assert!(
        !log.contains(&read[4..]) && !log.contains(&write[4..]),
        "{log}"
    );
}

#[test]
fn allow_remote_needs_tokens() {
    let dir = tempfile::tempdir().unwrap();
    common::fixture_brain(dir.path(), "corrected");
    let (rc, _, e) = common::run_text(
        dir.path(),
        "corrected",
        &[
            "mcp",
            "--state",
            "brain",
            "--http",
            "0.0.0.0:0",
            "--allow-remote",
        ],
    );
    assert_eq!(rc, 1);
    assert!(e.contains("--allow-remote: refused without tokens"), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
}

/// Every tool and the node resource through brain A's tokens, with a node only brain B
/// has: nothing of B comes back, and B's counts do not move.
#[test]
fn a_token_of_one_brain_never_reaches_another() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let (a_admin, _) = add_token(d, "alpha", "admin");
    let (b_write, _) = add_token(d, "beta", "write");
    let s = start(d);
    let bs = session(&s.addr, &b_write);
    let secret = "the beta vault code is zebra-4217";
    let taught = result(&call(
        &s.addr,
        &b_write,
        &bs,
        "teach",
        json!({"content": secret}),
    ));
    let b_node = taught["node_id"]
        .as_str()
        .expect("teach's node_id")
        .to_string();
    result(&call(
        &s.addr,
        &b_write,
        &bs,
        "query",
        json!({"query": "vault code", "chat_id": "b-chat"}),
    ));
    let health = |s: &Running| {
        let h = result(&call(&s.addr, &b_write, &bs, "health", json!({})));
        (h["nodes"].clone(), h["edges"].clone())
    };
    let before = health(&s);
    // B's node is there for B
    assert_eq!(read_node(&s.addr, &b_write, &bs, &b_node).status, 200);
    let asid = session(&s.addr, &a_admin);
    let calls = [
        (
            "query",
            json!({"query": "beta vault code zebra", "chat_id": "b-chat"}),
        ),
        ("feedback", json!({"outcome": 1, "chat_id": "b-chat"})),
        ("feedback", json!({"outcome": -1, "fired_ids": [b_node]})),
        (
            "correct",
            json!({"content": "alpha correction", "chat_id": "b-chat"}),
        ),
        ("teach", json!({"content": "alpha teaching"})),
        ("remember", json!({"text": "alpha turn"})),
        ("sync", json!({})),
        ("health", json!({})),
    ];
    for (tool, args) in calls {
        let a = call(&s.addr, &a_admin, &asid, tool, args);
        assert!(!a.body.contains("zebra"), "{tool}: {}", a.body);
    }
    // B's node through A's token: not found, nothing of it
    let a = read_node(&s.addr, &a_admin, &asid, &b_node);
    assert!(a.json()["error"].is_object(), "{}", a.body);
    assert!(!a.body.contains("zebra"), "{}", a.body);
    // B's session through A's token reaches A's service, where it is unknown
    let a = call(&s.addr, &a_admin, &bs, "query", json!({"query": "vault"}));
    assert_ne!(a.status, 200, "{}", a.body);
    assert!(!a.body.contains("zebra"), "{}", a.body);
    // B did not change: same node and edge counts, none of A's texts
    assert_eq!(health(&s), before);
    let q = call(
        &s.addr,
        &b_write,
        &bs,
        "query",
        json!({"query": "alpha teaching correction turn"}),
    );
    assert!(
        !q.body.contains("alpha teaching") && !q.body.contains("alpha turn"),
        "{}",
        q.body
    );
}
