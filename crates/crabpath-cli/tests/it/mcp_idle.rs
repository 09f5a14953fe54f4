//! `crabpath mcp --brains DIR --idle-close SECS` (issue 30 item 2: "Brains open lazily
//! and close when idle"): a brain unused for SECS is closed — its log line is written
//! and its SQLite WAL file is gone, which happens only when the last connection to the
//! database closes — and the next request, in the same session, opens it again and
//! finds what was written before.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::team::{add_token, call, read_node, result, served, session, start_with, Running};

/// Waits up to `limit` for `done`; whether it came.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// A served brain `alpha` behind a server closing brains idle 1 s (the closer looks
/// every 250 ms, idle::check_every), taught `marker` through a write token's session:
/// the server, the token, the session id and the taught node's id.
fn taught(d: &std::path::Path, marker: &str) -> (Running, String, String, String) {
    served(d);
    let (write, _) = add_token(d, "alpha", "write");
    let s = start_with(d, &["--idle-close", "1"]);
    let sid = session(&s.addr, &write);
    let taught = result(&call(
        &s.addr,
        &write,
        &sid,
        "teach",
        json!({"content": marker}),
    ));
    let id = taught["node_id"].as_str().unwrap().to_string();
    (s, write, sid, id)
}

#[test]
fn an_idle_brain_is_closed_and_opens_again_with_its_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (s, write, sid, id) = taught(d, "the idle marker quokka-417");
    let wal = d.join("served/alpha/brain.db-wal");
    assert!(wal.exists(), "the open brain has its WAL file");
    let closed = || s.log().contains("brain `alpha` closed after");
    assert!(wait_for(Duration::from_secs(5), closed), "{}", s.log());
    // SQLite removes the WAL file when the last connection to the database closes
    assert!(
        wait_for(Duration::from_secs(2), || !wal.exists()),
        "closed, but the WAL file is still there"
    );
    // the same session: the brain opens again and has the write
    let node = read_node(&s.addr, &write, &sid, &id);
    assert!(node.body.contains("quokka-417"), "{}", node.body);
    let q = result(&call(
        &s.addr,
        &write,
        &sid,
        "query",
        json!({"query": "idle marker quokka-417"}),
    ));
    assert!(q.to_string().contains(&id), "{q}");
}

/// The closer never closes a brain a request holds, closes it once released, and the
/// next request opens it again through the opener ([`crabpath_mcp::idle::Slots`]).
#[test]
fn a_held_brain_is_not_closed_and_a_closed_one_reopens() {
    use crabpath_mcp::idle::{Idle, Slots};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    crate::common::fixture_brain(dir.path(), "corrected");
    let reopened = Arc::new(AtomicUsize::new(0));
    let (d, n) = (dir.path().to_path_buf(), reopened.clone());
    let idle = Arc::new(Idle::new(
        "b",
        Arc::new(move || {
            n.fetch_add(1, Ordering::Relaxed);
            Ok(crate::common::mcp_brain(&d))
        }),
    ));
    let slots = Slots::new(crate::common::mcp_brain(dir.path()), Some(idle.clone()));
    let held = slots.hold(false).unwrap();
    assert!(!slots.close_if_idle(Duration::ZERO), "closed while held");
    drop(held);
    let reader = slots.hold(true).unwrap();
    assert!(!slots.close_if_idle(Duration::ZERO), "closed while read");
    drop(reader);
    assert!(slots.close_if_idle(Duration::ZERO));
    assert_eq!((idle.closes(), reopened.load(Ordering::Relaxed)), (1, 0));
    // a read of a closed brain opens it again (on the writer, which reopens the reader)
    let mut b = slots.hold(true).unwrap();
    assert!(b.read_node("a.md::0", |_| ()).is_ok());
    drop(b);
    assert_eq!(reopened.load(Ordering::Relaxed), 1);
    // not idle long enough: kept
    assert!(!slots.close_if_idle(Duration::from_secs(3600)));
}

/// A closed brain whose last session ended leaves the server's map (logged as
/// released), and the next session opens it anew with its writes. Before, the entry
/// (the brain's HTTP service, session manager and server) stayed for the server's life.
#[test]
fn a_closed_brain_without_sessions_is_released_and_opens_anew() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (s, write, sid, id) = taught(d, "the released marker wombat-902");
    let closed = || s.log().contains("brain `alpha` closed after");
    assert!(wait_for(Duration::from_secs(5), closed), "{}", s.log());
    // the session still holds the brain: closed, not released
    std::thread::sleep(Duration::from_millis(600));
    assert!(!s.log().contains("brain `alpha` released"), "{}", s.log());
    // the client ends its session
    let mut c = std::net::TcpStream::connect(&s.addr).unwrap();
    write!(
        c,
        "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {write}\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\n\r\n",
        s.addr
    )
    .unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 2"), "{answer}");
    let released = || s.log().contains("brain `alpha` released");
    assert!(wait_for(Duration::from_secs(5), released), "{}", s.log());
    // a new session opens it anew, with the write
    let sid = session(&s.addr, &write);
    let node = read_node(&s.addr, &write, &sid, &id);
    assert!(node.body.contains("wombat-902"), "{}", node.body);
}
