//! Issue 30 item 4, the short runs for `cargo test`: concurrent HTTP MCP clients on two
//! brains lose no acknowledged write and see no error, and `kill -9` of the server under
//! a teaching load keeps every acknowledged write (and `doctor` passes). The full runs
//! (32 clients, 4 brains, 60 s; >= 20 kills) are BENCHMARKS.md's. The HTTP client is
//! `team`'s.

use crate::common;
use crate::reliability::Rng;
use crate::team::{add_token, call, read_node, result, served, start, try_post, try_session};

use std::time::{Duration, Instant};

use serde_json::json;

/// The p-th percentile (nearest rank) of sorted latencies, in ms.
fn pct(sorted: &[Duration], p: usize) -> f64 {
    let i = (sorted.len() * p).div_ceil(100).max(1) - 1;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e3
}

/// `true` when node `id` of the brain behind `token` holds `text`.
fn holds(addr: &str, token: &str, sid: &str, id: &str, text: &str) -> bool {
    let a = read_node(addr, token, sid, id);
    a.status == 200 && a.json()["error"].is_null() && a.body.contains(text)
}

#[test]
fn concurrent_clients_on_two_brains_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let brains = ["alpha", "beta"];
    let tokens: Vec<String> = brains.iter().map(|b| add_token(d, b, "write").0).collect();
    let s = start(d);
    let run = Duration::from_secs(2);
    let t0 = Instant::now();
    let workers: Vec<_> = (0..8u64)
        .map(|t| {
            let addr = s.addr.clone();
            let b = (t % 2) as usize;
            let token = tokens[b].clone();
            std::thread::spawn(move || {
                let mut rng = Rng(0x5EED_0000 + t);
                let sid = try_session(&addr, &token).expect("a session");
                let chat = format!("chat-{t}");
                // (brain, node id, unique text) of every acknowledged write
                let mut written = Vec::new();
                let mut lat = Vec::new();
                let mut errors = Vec::new();
                let mut n = 0u64;
                while t0.elapsed() < run {
                    // the first op is a query, so `feedback` has a turn of its chat
                    let op = if n == 0 { 0 } else { rng.below(4) };
                    let marker = format!("marker-{t}-{n}-{:x}", rng.next());
                    let (tool, args) = match op {
                        0 => (
                            "query",
                            json!({"query": "deploy the service", "chat_id": chat}),
                        ),
                        1 => ("feedback", json!({"outcome": 1, "chat_id": chat})),
                        2 => (
                            "teach",
                            json!({"content": format!("fact {t} {n} {marker}")}),
                        ),
                        _ => (
                            "remember",
                            json!({"text": format!("said {t} {n} {marker}"),
                                   "id": format!("turn-{t}-{n}")}),
                        ),
                    };
                    let q = Instant::now();
                    let a = call(&addr, &token, &sid, tool, args);
                    lat.push(q.elapsed());
                    let v = a.json();
                    if a.status != 200 || v["result"]["isError"] != json!(false) {
                        errors.push(format!("{tool}: {} {}", a.status, a.body));
                    } else if op >= 2 {
                        let id = v["result"]["structuredContent"]["node_id"]
                            .as_str()
                            .expect("node_id of a write")
                            .to_string();
                        written.push((b, id, marker));
                    }
                    n += 1;
                }
                (written, lat, errors)
            })
        })
        .collect();
    let mut written = Vec::new();
    let mut lat = Vec::new();
    let mut errors = Vec::new();
    for w in workers {
        let (wr, l, e) = w.join().unwrap();
        written.extend(wr);
        lat.extend(l);
        errors.extend(e);
    }
    let secs = t0.elapsed().as_secs_f64();
    lat.sort();
    println!(
        "mcp_load: 8 clients, 2 brains, {} calls in {secs:.2} s = {:.1} calls/s, p50 {:.1} ms, p99 {:.1} ms, {} writes",
        lat.len(),
        lat.len() as f64 / secs,
        pct(&lat, 50),
        pct(&lat, 99),
        written.len()
    );
    assert!(
        errors.is_empty(),
        "{} errors: {:?}",
        errors.len(),
        &errors[..errors.len().min(3)]
    );
    assert!(
        written.len() >= 8,
        "too few writes to test: {}",
        written.len()
    );
    // every acknowledged write is in its brain, never in the other
    let sids: Vec<String> = tokens
        .iter()
        .map(|t| try_session(&s.addr, t).unwrap())
        .collect();
    for (b, id, marker) in &written {
        assert!(
            holds(&s.addr, &tokens[*b], &sids[*b], id, marker),
            "{id} {marker} lost in {}",
            brains[*b]
        );
        let o = 1 - b;
        assert!(
            !holds(&s.addr, &tokens[o], &sids[o], id, marker),
            "{id} {marker} in {}",
            brains[o]
        );
    }
    // the lookup can fail: a text never written is not found under a written id
    let (b, id, _) = &written[0];
    assert!(!holds(
        &s.addr,
        &tokens[*b],
        &sids[*b],
        id,
        "marker-never-taught"
    ));
    // and the counts agree: each brain's health has at least its acknowledged writes
    for (b, token) in tokens.iter().enumerate() {
        let h = result(&call(&s.addr, token, &sids[b], "health", json!({})));
        let mine = written.iter().filter(|w| w.0 == b).count() as u64;
        assert!(h["nodes"].as_u64().unwrap_or(0) >= mine, "{h}");
    }
}

#[test]
fn kill_9_under_load_keeps_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    served(d);
    let (token, _) = add_token(d, "alpha", "write");
    let mut rng = Rng(0x00C0_FFEE);
    // (node id, unique text) of every teach whose answer came back
    let mut acked: Vec<(String, String)> = Vec::new();
    let mut kills = Vec::new();
    for round in 0..3u64 {
        let mut s = start(d);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writers: Vec<_> = (0..4u64)
            .map(|t| {
                let addr = s.addr.clone();
                let token = token.clone();
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut out = Vec::new();
                    let Some(sid) = try_session(&addr, &token) else {
                        return out;
                    };
                    let mut n = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let text = format!(
                            "kill round {round} writer {t} fact {n} marker-r{round}w{t}n{n}"
                        );
                        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "teach", "arguments": {"content": text}}});
                        // no answer (the server killed): not acknowledged, stop
                        let Some(a) = try_post(&addr, Some(&token), Some(&sid), &msg) else {
                            break;
                        };
                        let v = a.json();
                        match v["result"]["structuredContent"]["node_id"].as_str() {
                            Some(id)
                                if a.status == 200 && v["result"]["isError"] == json!(false) =>
                            {
                                out.push((id.to_string(), text))
                            }
                            // an answer cut short by the kill is no acknowledgement
                            _ => break,
                        }
                        n += 1;
                    }
                    out
                })
            })
            .collect();
        let wait = 100 + rng.below(301);
        kills.push(wait);
        std::thread::sleep(Duration::from_millis(wait));
        s.child.kill().unwrap(); // SIGKILL
        s.child.wait().unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for w in writers {
            acked.extend(w.join().unwrap());
        }
    }
    println!(
        "mcp_load: kill -9 after {kills:?} ms, {} acknowledged teaches",
        acked.len()
    );
    assert!(
        !acked.is_empty(),
        "no teach was acknowledged before the kills"
    );
    let s = start(d);
    let sid = try_session(&s.addr, &token).unwrap();
    for (id, text) in &acked {
        assert!(
            holds(&s.addr, &token, &sid, id, text),
            "acknowledged teach lost: {id} {text}"
        );
    }
    // the lookup can fail
    assert!(!holds(
        &s.addr,
        &token,
        &sid,
        &acked[0].0,
        "marker-never-taught"
    ));
    drop(s);
    let (rc, out, err) = common::run_text(d, "corrected", &["doctor", "--state", "served/alpha"]);
    assert_eq!(rc, 0, "doctor after kill -9: {out}{err}");
}
