//! Issue 30 item 4, the tester's finding c ("a `health` call waits 1.9 s behind a
//! `sync`: a long tool blocks the others"): over HTTP, `health` and the node resource
//! of a brain answer while a `sync` of the same brain holds its writer, from the last
//! committed state. Before the read-only handle (`Brain::reader`) both waited for the
//! writer's mutex, so they answered only after the sync; this test then fails.

use crate::team::{add_token, call, read_node, result, served, session, start};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

/// Files added to the workspace before the `sync` (6 chunks each): 600 chunks, about
/// 1.7 s of splitting, hashing and writing in a debug build (300 took 0.9 s; the test
/// prints its own time).
const BULK_FILES: usize = 100;

#[test]
fn health_and_node_reads_answer_while_a_sync_holds_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let bulk = d.join("ws/bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    for i in 0..BULK_FILES {
        let text: String = (0..6)
            .map(|p| format!("## Part {p}\n\nFile {i} part {p}: rotate the keys of service {i} every {p} days, then restart worker {i}.\n\n"))
            .collect();
        std::fs::write(bulk.join(format!("f{i}.md")), text).unwrap();
    }
    let (token, _) = add_token(d, "alpha", "write");
    let s = start(d);
    let sid = session(&s.addr, &token);
    let taught = result(&call(
        &s.addr,
        &token,
        &sid,
        "teach",
        json!({"content": "marker-reader the pager rota lives in the ops wiki"}),
    ));
    let id = taught["node_id"].as_str().unwrap().to_string();
    let before = result(&call(&s.addr, &token, &sid, "health", json!({})))["nodes"].clone();

    let done = Arc::new(AtomicBool::new(false));
    // the sync in a session of its own, as another client's: two calls in flight in
    // one session with the same JSON-RPC id would be the client's error
    let syncing = {
        let (addr, token, done) = (s.addr.clone(), token.clone(), done.clone());
        let sid = session(&addr, &token);
        std::thread::spawn(move || {
            let t = Instant::now();
            let r = result(&call(&addr, &token, &sid, "sync", json!({})));
            done.store(true, Ordering::SeqCst);
            (r, t.elapsed())
        })
    };
    // the sync's request is on the server and holds the writer
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let h = result(&call(&s.addr, &token, &sid, "health", json!({})));
    let node = read_node(&s.addr, &token, &sid, &id);
    let reads = t.elapsed();
    let sync_still_running = !done.load(Ordering::SeqCst);
    let (synced, sync_took) = syncing.join().unwrap();
    println!("mcp_reader: sync {sync_took:?}, health + node read during it {reads:?}");
    assert!(
        synced["nodes_added"].as_u64().unwrap_or(0) >= BULK_FILES as u64,
        "{synced}"
    );
    assert!(
        sync_still_running,
        "health and the node read waited for the sync: they took {reads:?}, the sync {sync_took:?}"
    );
    // from the last committed state: the nodes before the sync, and the taught node
    assert_eq!(h["nodes"], before, "{h}");
    assert_eq!(node.status, 200, "{}", node.body);
    assert!(node.body.contains("marker-reader"), "{}", node.body);
    // and after the sync, the reader sees what it committed
    let after = result(&call(&s.addr, &token, &sid, "health", json!({})));
    assert!(
        after["nodes"].as_u64() >= Some(before.as_u64().unwrap() + BULK_FILES as u64),
        "{after}"
    );
}
