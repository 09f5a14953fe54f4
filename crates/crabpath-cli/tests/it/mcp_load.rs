//! Issue 30 item 4, the short runs for `cargo test`: concurrent HTTP MCP clients on two
//! brains lose no acknowledged write and see no error, and `kill -9` of the server under
//! a teaching load keeps every acknowledged write (and `doctor` passes). The load, the
//! read-back and the kill rounds are `crabpath_mcp::load`'s, which `bench team-load`
//! runs in full (32 clients, 4 brains, 60 s; >= 20 kills; BENCHMARKS.md).

use crate::common;
use crate::team::{add_token, call, result, served, start};

use std::time::Duration;

use crabpath_mcp::{client, load};
use serde_json::json;

#[test]
fn concurrent_clients_on_two_brains_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let brains = ["alpha", "beta"];
    let tokens: Vec<String> = brains.iter().map(|b| add_token(d, b, "write").0).collect();
    let s = start(d);
    let run = load::mixed(&s.addr, &tokens, 8, Duration::from_secs(2), 0x5EED_0000);
    println!("mcp_load: 8 clients, 2 brains: {}", run.summary());
    assert!(
        run.errors.is_empty(),
        "{} errors: {:?}",
        run.errors.len(),
        &run.errors[..run.errors.len().min(3)]
    );
    assert!(
        run.written.len() >= 8,
        "too few writes to test: {}",
        run.written.len()
    );
    // every acknowledged write is in its brain, never in the other
    let (lost, leaked) = load::misplaced(&s.addr, &tokens, &run.written);
    assert!(lost.is_empty(), "lost: {lost:?}");
    assert!(leaked.is_empty(), "leaked: {leaked:?}");
    // the lookup can fail: a text never written is not found under a written id
    let w = &run.written[0];
    let sid = client::session(&s.addr, &tokens[w.brain]).unwrap();
    assert!(!client::holds(
        &s.addr,
        &tokens[w.brain],
        &sid,
        &w.id,
        "marker-never-taught"
    ));
    // and the counts agree: each brain's health has at least its acknowledged writes
    for (b, token) in tokens.iter().enumerate() {
        let sid = client::session(&s.addr, token).unwrap();
        let h = result(&call(&s.addr, token, &sid, "health", json!({})));
        let mine = run.written.iter().filter(|w| w.brain == b).count() as u64;
        assert!(h["nodes"].as_u64().unwrap_or(0) >= mine, "{h}");
    }
}

#[test]
fn kill_9_under_load_keeps_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let tokens = vec![add_token(d, "alpha", "write").0];
    // 3 rounds of 4 writers, SIGKILL 100-400 ms after they start
    let kills = load::kill_rounds(3, 4, &tokens, 0x00C0_FFEE, (100, 300), || {
        let s = start(d);
        // dropping the server kills it (SIGKILL) and waits for it
        (s.addr.clone(), Box::new(move || drop(s)))
    });
    println!(
        "mcp_load: kill -9 after {:?} ms, {} acknowledged teaches",
        kills.moments_ms,
        kills.acked.len()
    );
    assert!(
        !kills.acked.is_empty(),
        "no teach was acknowledged before the kills"
    );
    let s = start(d);
    let (lost, _) = load::misplaced(&s.addr, &tokens, &kills.acked);
    assert!(lost.is_empty(), "acknowledged teaches lost: {lost:?}");
    // the lookup can fail
    let sid = client::session(&s.addr, &tokens[0]).unwrap();
    assert!(!client::holds(
        &s.addr,
        &tokens[0],
        &sid,
        &kills.acked[0].id,
        "marker-never-taught"
    ));
    drop(s);
    let (rc, out, err) = common::run_text(d, "corrected", &["doctor", "--state", "served/alpha"]);
    assert_eq!(rc, 0, "doctor after kill -9: {out}{err}");
}
