//! `crabpath mcp --http` under the tester's findings (issue 30 item 4): sessions
//! capped per key, slow headers and bodies dropped, connections capped, foreign
//! origins refused, DELETE naming an unknown connection id 404, a body that is not JSON a
//! JSON-RPC parse error, an oversized one 413. The server runs in this process with
//! small limits (milliseconds, a handful of sessions) so each test takes well under a
//! second; raw HTTP/1.1 over a socket, so nothing hides what the server sends.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use crabpath_mcp::sessions::SessionLimits;
use crabpath_mcp::HttpOptions;

/// Limits small enough for a test: 300 ms timeouts, 4 connections, 4 sessions.
fn small() -> HttpOptions {
    HttpOptions {
        header_timeout: Duration::from_millis(300),
        body_timeout: Duration::from_millis(300),
        max_connections: 4,
        max_body_bytes: 1000,
        sessions: SessionLimits {
            per_key: 4,
            idle: Duration::from_secs(60),
        },
        ..HttpOptions::default()
    }
}

/// Starts a server on a fresh fixture brain, on a thread of its own (it ends with the
/// test process).
fn start(options: HttpOptions) -> SocketAddr {
    let dir = tempfile::tempdir().unwrap();
    common::fixture_brain(dir.path(), "corrected");
    let server = common::mcp_server(dir.path(), None);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _dir = dir;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        rt.block_on(crabpath_mcp::serve_http_with(
            crabpath_mcp::auth::Served::One(server),
            addr,
            options,
            |b| tx.send(b).unwrap(),
        ))
        .unwrap();
    });
    rx.recv_timeout(Duration::from_secs(20)).unwrap()
}

/// One request on its own connection: (status, head, body).
fn send(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    parse(&out)
}

fn parse(out: &[u8]) -> (u16, String, String) {
    let text = String::from_utf8_lossy(out).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-06-18");

/// The connection id the server gives a new client (after `initialize` and the
/// `initialized` notification).
fn session(addr: SocketAddr) -> String {
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (status, head, body) = send(addr, "POST", &[JSON], init);
    assert_eq!(status, 200, "{head}\n{body}");
    let id = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {head}"));
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _, _) = send(
        addr,
        "POST",
        &[JSON, VERSION, ("Mcp-Session-Id", &id)],
        note,
    );
    assert_eq!(status, 202);
    id
}

fn ping(addr: SocketAddr, id: &str) -> u16 {
    let ping = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    send(addr, "POST", &[JSON, VERSION, ("Mcp-Session-Id", id)], ping).0
}

#[test]
fn sessions_are_capped_per_key_the_longest_idle_closed_first() {
    let addr = start(small());
    // 10 sessions against a cap of 4: the first 6 are closed as the later ones open
    let ids: Vec<String> = (0..10).map(|_| session(addr)).collect();
    for id in &ids[..6] {
        assert_eq!(ping(addr, id), 404, "session {id} should be closed");
    }
    for id in &ids[6..] {
        assert_eq!(ping(addr, id), 200, "session {id} should be live");
    }
}

#[test]
fn a_slow_header_is_dropped_and_others_are_served() {
    let addr = start(small());
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    // another client is served while the slow one trickles
    let id = session(addr);
    assert_eq!(ping(addr, &id), 200);
    std::thread::sleep(Duration::from_millis(700));
    // past the 300 ms header timeout: the server has closed the connection
    // (the write may still succeed into the socket buffer; the read sees the end)
    let _ = slow.write_all(b"X-Slow: 1\r\n");
    slow.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = Vec::new();
    let t = std::time::Instant::now();
    let got = slow.read_to_end(&mut buf);
    // the server closed it (an end of stream or a reset), not our 5 s read timeout
    let closed = match &got {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    assert!(closed && t.elapsed() < Duration::from_secs(3), "{got:?}");
    // hyper answers 408 or just closes; it never serves the request
    let (status, _, _) = parse(&buf);
    assert!(status == 0 || status == 408, "{status}");
}

#[test]
fn an_idle_connection_is_closed() {
    let addr = start(small());
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let t = std::time::Instant::now();
    let mut buf = Vec::new();
    let _ = idle.read_to_end(&mut buf);
    // closed by the 300 ms header timeout, not by our 5 s read timeout
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
fn a_slow_body_is_answered_408() {
    let addr = start(small());
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let (status, _, body) = parse(&buf);
    assert_eq!(status, 408, "{body}");
}

#[test]
fn connections_over_the_cap_are_answered_503_and_the_rest_served() {
    let addr = start(small());
    // the cap is 4: 4 connections that began a request fill it (silent ones would make
    // room: the next test)
    let idle: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut c = TcpStream::connect(addr).unwrap();
            c.write_all(b"POST /mcp HTTP/1.1\r\n").unwrap();
            c
        })
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    let (status, _, body) = send(addr, "GET", &[], b"");
    assert_eq!(status, 503, "{body}");
    // once the header timeout (300 ms) has dropped them, new clients are served
    drop(idle);
    std::thread::sleep(Duration::from_millis(100));
    let id = session(addr);
    assert_eq!(ping(addr, &id), 200);
}

/// Issue 30 item 4, "10,000 open idle connections": connections that never send a
/// byte fill the cap, yet a client that speaks is served at once (well within the
/// 300 ms header timeout that would otherwise free a place), and the oldest silent
/// connection is the one closed. Before `silent.rs` this client got 503.
#[test]
fn silent_connections_at_the_cap_make_room_for_a_client() {
    let addr = start(small());
    let mut idle: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(50));
    let t = std::time::Instant::now();
    let (status, _, body) = send(addr, "GET", &[], b"");
    assert_ne!(status, 503, "{body}");
    assert!(
        t.elapsed() < Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
    // the oldest was closed (end of stream), the newest is still open
    let mut b = [0u8; 1];
    idle[0]
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    assert_eq!(idle[0].read(&mut b).unwrap_or(1), 0);
    idle[3]
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    assert!(
        idle[3].read(&mut b).is_err(),
        "the newest silent connection is kept"
    );
}

#[test]
fn foreign_origins_are_refused() {
    let mut o = small();
    o.allow_origins = vec!["https://app.example.com:443".into()];
    let addr = start(o);
    let id = session(addr);
    let ping = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let with = |origin: &str| {
        send(
            addr,
            "POST",
            &[JSON, VERSION, ("Mcp-Session-Id", &id), ("Origin", origin)],
            ping,
        )
        .0
    };
    assert_eq!(with("http://evil.example"), 403);
    assert_eq!(with("https://app.example.com"), 200);
    assert_eq!(with("http://localhost:5173"), 200);
    assert_eq!(with("http://127.0.0.1:9"), 200);
}

#[test]
fn delete_of_an_unknown_session_is_404() {
    let addr = start(small());
    let (status, _, _) = send(
        addr,
        "DELETE",
        &[VERSION, ("Mcp-Session-Id", "no-such-session")],
        b"",
    );
    assert_eq!(status, 404);
    let id = session(addr);
    let (status, _, _) = send(addr, "DELETE", &[VERSION, ("Mcp-Session-Id", &id)], b"");
    assert_eq!(status, 202);
    assert_eq!(ping(addr, &id), 404);
}

#[test]
fn a_body_that_is_not_json_is_a_parse_error_and_an_oversized_one_413() {
    let addr = start(small());
    let (status, _, body) = send(addr, "POST", &[JSON], b"{not json");
    assert_eq!(status, 400, "{body}");
    let v: serde_json::Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(v["error"]["code"], -32700, "{body}");
    let (status, _, body) = send(addr, "POST", &[JSON], br#"{"foo":1}"#);
    assert_eq!(status, 400, "{body}");
    // small() caps bodies at 1,000 bytes
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(2000)
    );
    let (status, _, body) = send(addr, "POST", &[JSON], big.as_bytes());
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("1000 bytes"), "{body}");
}
