//! `crabpath mcp` over stdio answers every bad line (issue 33, item 8): the real
//! binary, raw lines written after the MCP handshake, each answer awaited with a
//! timeout (no answer fails the test instead of hanging it), and a valid
//! `tools/call` after them still answered.
//!
//! Before the fix, a line that was not JSON, a line of invalid UTF-8 and a 20 MiB
//! line got no answer at all (rmcp's stdio transport dropped them), and a
//! `tools/call` with non-object `arguments` or without `name` was answered
//! `-32601 "tools/call"`.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// How long an answer may take. A debug build on a busy two-core machine answers in
/// well under a second; the 20 MiB line takes a few seconds to stream through.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The limit the server documents (`crabpath_mcp::stdio::MAX_LINE_BYTES`).
const LIMIT: usize = crabpath_mcp::stdio::MAX_LINE_BYTES;

/// The server, killed when the test ends however it ends.
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<Value>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    fn start(dir: &Path) -> Served {
        // stderr unread: null, so that nothing the server logs can fill a pipe
        let mut child = common::command(dir, "corrected", &["mcp", "--state", "brain"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn crabpath mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("the server wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Served {
            child,
            stdin: Some(stdin),
            answers,
        }
    }

    fn write(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes stdin and waits for the server to exit; its exit status.
    fn close(&mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < ANSWER_WITHIN,
                "the server did not exit at end of input"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The next answer, or a failure naming what went unanswered.
    fn answer(&self, to: &str) -> Value {
        self.answers
            .recv_timeout(ANSWER_WITHIN)
            .unwrap_or_else(|_| panic!("no answer within {ANSWER_WITHIN:?} to {to}"))
    }

    /// Writes `line` and checks that its answer is error `code` for `id`, with a
    /// message holding `says`.
    fn refused(&mut self, what: &str, line: &[u8], code: i64, id: Value, says: &str) {
        self.write(line);
        let a = self.answer(what);
        assert_eq!(a["jsonrpc"], "2.0", "{what}: {a}");
        assert_eq!(a["id"], id, "{what}: {a}");
        assert_eq!(a["error"]["code"], code, "{what}: {a}");
        let message = a["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{what}: `{says}` not in {a}");
    }

    /// The server's peak resident memory so far (kB), from `/proc`.
    fn peak_rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/<pid>/status")
    }
}

fn health_call(id: i64) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "health", "arguments": {}}})
    .to_string()
    .into_bytes()
}

#[test]
fn every_bad_line_is_answered_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(
        &common::fixtures().join("workspace"),
        &dir.path().join("ws"),
    );
    let (rc, _, err) = common::run_text(
        dir.path(),
        "corrected",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");

    let mut s = Served::start(dir.path());
    // the handshake MCP asks for first
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw-lines", "version": "0"}}});
    s.write(init.to_string().as_bytes());
    let a = s.answer("initialize");
    assert_eq!(a["result"]["serverInfo"]["name"], "crabpath", "{a}");
    s.write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    s.refused(
        "a line that is not JSON",
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#,
        -32700,
        Value::Null,
        "not JSON",
    );
    s.refused(
        "a line of invalid UTF-8",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/\xff\xfelist\"}",
        -32700,
        Value::Null,
        "not UTF-8",
    );
    s.refused(
        "JSON that is not a JSON-RPC message",
        br#"{"jsonrpc":"2.0","foo":"bar"}"#,
        -32600,
        Value::Null,
        "needs `method`",
    );
    s.refused(
        "a batch",
        br#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        -32600,
        Value::Null,
        "batches",
    );
    s.refused(
        "a request with jsonrpc 1.0",
        br#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#,
        -32600,
        json!(4),
        "`jsonrpc` must be \"2.0\"",
    );
    s.refused(
        "tools/call with arguments that are not an object",
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"health","arguments":"all"}}"#,
        -32602,
        json!(5),
        "`params.arguments` must be an object",
    );
    s.refused(
        "tools/call without a name",
        br#"{"jsonrpc":"2.0","id":"six","method":"tools/call","params":{"arguments":{}}}"#,
        -32602,
        json!("six"),
        "`params.name` is missing",
    );
    s.refused(
        "resources/read without a uri",
        br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{}}"#,
        -32602,
        json!(7),
        "uri",
    );

    // a 20 MiB line (the size that went unanswered): refused
    let long = |id: i64, mib: usize| {
        let mut line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"teach","arguments":{{"content":""#
        )
        .into_bytes();
        line.resize(mib << 20, b'a');
        line.extend_from_slice(br#""}}}"#);
        line
    };
    let over = format!("over the limit of {LIMIT} bytes");
    s.refused("a 20 MiB line", &long(8, 20), -32600, Value::Null, &over);
    // and never held whole: a 100 MiB line after it leaves the peak where the first
    // left it (the line buffer stops at the 4 MiB limit; holding the line would add
    // its 100 MiB)
    let before = s.peak_rss_kb();
    s.refused("a 100 MiB line", &long(9, 100), -32600, Value::Null, &over);
    let grew_kb = s.peak_rss_kb().saturating_sub(before);
    assert!(
        grew_kb < 8 * 1024,
        "the server's peak RSS grew by {grew_kb} kB reading a 100 MiB line"
    );

    // and the server still serves
    s.write(&health_call(9));
    let a = s.answer("tools/call health after the bad lines");
    assert_eq!(a["id"], 9, "{a}");
    assert_eq!(a["result"]["isError"], false, "{a}");
    assert!(
        a["result"]["structuredContent"]["nodes"].as_u64().unwrap() > 1,
        "{a}"
    );

    // an unknown tool is still the handler's -32602, an unknown method its -32601
    s.refused(
        "an unknown tool",
        br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"erase"}}"#,
        -32602,
        json!(10),
        "unknown tool `erase`",
    );
    s.refused(
        "an unknown method",
        br#"{"jsonrpc":"2.0","id":11,"method":"tools/rename"}"#,
        -32601,
        json!(11),
        "tools/rename",
    );

    // end of input ends the server cleanly
    let status = s.close();
    assert!(status.success(), "{status}");
}
