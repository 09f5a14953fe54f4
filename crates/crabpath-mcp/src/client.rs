//! A minimal blocking HTTP/1.1 client of `crabpath mcp --http` (one connection per
//! request, `Connection: close`), for the load and fault runs of issue 30 item 4 and
//! the tests that drive the server binary. It speaks just enough streamable HTTP:
//! a POST of one JSON-RPC message with the bearer token and session id, and an answer
//! that is JSON or an event stream, plain or chunked. Every failure is `None` (no
//! answer, or one cut short by a killed server): the caller decides what that means.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{json, Value};

/// One HTTP answer: status, headers (lower-case names), body.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: String,
}

impl Answer {
    /// The value of header `name` (lower case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message: the body, or its event stream's data line (`Null` when
    /// neither is JSON).
    pub fn json(&self) -> Value {
        let data = self
            .body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .find(|l| l.starts_with('{'));
        serde_json::from_str(data.unwrap_or(&self.body)).unwrap_or(Value::Null)
    }

    /// The structured result of a tool call that succeeded (status 200, `isError`
    /// false); `None` otherwise.
    pub fn tool_result(&self) -> Option<Value> {
        let v = self.json();
        (self.status == 200 && v["result"]["isError"] == json!(false))
            .then(|| v["result"]["structuredContent"].clone())
    }
}

/// POSTs JSON-RPC message `msg` to `http://addr/mcp`; `None` when the connection
/// fails or the answer is cut short.
pub fn post(addr: &str, token: Option<&str>, session: Option<&str>, msg: &Value) -> Option<Answer> {
    let body = msg.to_string();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(t) = token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if let Some(s) = session {
        req.push_str(&format!("Mcp-Session-Id: {s}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    let mut s = TcpStream::connect(addr).ok()?;
    s.write_all(req.as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = raw.split_once("\r\n\r\n")?;
    let mut hl = head.lines();
    let status = hl.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = hl
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_string()
    };
    Some(Answer {
        status,
        headers,
        body,
    })
}

/// The body of a chunked answer; `None` when it is cut short.
fn dechunk(mut s: &str) -> Option<String> {
    let mut out = String::new();
    while let Some((n, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(n.trim(), 16).ok()?;
        if n == 0 {
            return Some(out);
        }
        out.push_str(rest.get(..n)?);
        s = rest.get(n + 2..)?;
    }
    None
}

/// An MCP session of `token`: `initialize`, then `notifications/initialized`; its
/// session id, or `None` when the server does not answer both steps.
pub fn session(addr: &str, token: &str) -> Option<String> {
    let a = post(
        addr,
        Some(token),
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "crabpath-load", "version": "0"}}}),
    )?;
    if a.status != 200 {
        return None;
    }
    let sid = a.header("mcp-session-id")?.to_string();
    let a = post(
        addr,
        Some(token),
        Some(&sid),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )?;
    (a.status < 300).then_some(sid)
}

/// Calls tool `tool` with `args` in session `sid`.
pub fn call(addr: &str, token: &str, sid: &str, tool: &str, args: Value) -> Option<Answer> {
    post(
        addr,
        Some(token),
        Some(sid),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": tool, "arguments": args}}),
    )
}

/// Reads the resource `crabpath://node/{id}` in session `sid`.
pub fn read_node(addr: &str, token: &str, sid: &str, id: &str) -> Option<Answer> {
    post(
        addr,
        Some(token),
        Some(sid),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                "params": {"uri": format!("{}{id}", crate::server::NODE_URI)}}),
    )
}

/// `true` when node `id` of the brain behind `token` holds `text` (a written node
/// found again: the "every acknowledged write is there" check).
pub fn holds(addr: &str, token: &str, sid: &str, id: &str, text: &str) -> bool {
    read_node(addr, token, sid, id)
        .is_some_and(|a| a.status == 200 && a.json()["error"].is_null() && a.body.contains(text))
}
