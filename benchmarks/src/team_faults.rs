//! The faults of issue 30 item 4 that `bench team-load` runs besides the load and the
//! kills, each on request:
//!
//! * `--full-disk DIR`: a small filesystem the caller mounted (e.g. `mount -t tmpfs -o
//!   size=64m tmpfs DIR`). A brain is built there and served; a teach is acknowledged;
//!   the disk is filled to the last byte; then teaches (each must fail with a clear
//!   message or be acknowledged and kept), queries, `health` and a node read; the
//!   filler removed, a teach again, `doctor`, and every acknowledged teach read back
//!   after a restart.
//! * `--idle N`: N TCP connections opened and left idle, then a client's calls while
//!   they are held: how many were answered, how, and how fast.

use std::io::Write as _;
use std::net::TcpStream;
use std::path::Path;
use std::time::Instant;

use crabpath_mcp::{client, load};
use serde_json::json;

use crate::error::{Error, Result};
use crate::team_proc::{kill, run, start};

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// The outcome of one tool call, in a few words: `ok`, or the error's first line.
fn outcome(a: Option<client::Answer>) -> String {
    match a {
        None => "no answer".into(),
        Some(a) if a.tool_result().is_some() => "ok".into(),
        Some(a) => {
            let v = a.json();
            let text = v["result"]["content"][0]["text"]
                .as_str()
                .or(v["error"]["message"].as_str())
                .unwrap_or(&a.body)
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            format!("{} {text}", a.status)
        }
    }
}

/// How many times each outcome came: `3x ok; 2x 200 ...`, in the order first seen.
fn tally(v: &[String]) -> String {
    let mut m: Vec<(&str, usize)> = Vec::new();
    for s in v {
        match m.iter_mut().find(|(k, _)| k == s) {
            Some(e) => e.1 += 1,
            None => m.push((s, 1)),
        }
    }
    m.iter()
        .map(|(k, n)| format!("{n}x {k}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Fills the filesystem of `dir` with `dir/filler` until a write fails (1 MiB
/// blocks, then 4 KiB, then single bytes); the bytes written.
fn fill(dir: &Path) -> Result<u64> {
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).map_err(io(&path))?;
    let mut total = 0u64;
    for block in [1 << 20, 4096, 1] {
        let buf = vec![0u8; block];
        while f.write_all(&buf).is_ok() {
            total += block as u64;
        }
        let _ = f.flush();
    }
    let _ = f.sync_all();
    Ok(total)
}

/// The full-disk run on the filesystem mounted at `dir`; its report lines.
pub fn full_disk(bin: &Path, ws: &str, dir: &Path) -> Result<String> {
    run(
        bin,
        dir,
        &["init", "--workspace", ws, "--output", "served/full"],
    )?;
    let token = run(
        bin,
        dir,
        &[
            "token", "add", "--brains", "served", "--brain", "full", "--role", "write",
        ],
    )?
    .trim()
    .to_string();
    let tokens = vec![token.clone()];
    let (child, addr) = start(bin, dir)?;
    let sid = client::session(&addr, &token)
        .ok_or_else(|| Error::Usage("full disk: no session".into()))?;
    let teach = |text: &str| client::call(&addr, &token, &sid, "teach", json!({"content": text}));
    let mut acked: Vec<load::Write> = Vec::new();
    // the outcome in words; an acknowledged teach is kept with its marker
    let ack = |acked: &mut Vec<load::Write>, a: Option<client::Answer>, marker: &str| {
        let id = a
            .as_ref()
            .and_then(client::Answer::tool_result)
            .and_then(|v| v["node_id"].as_str().map(str::to_string));
        if let Some(id) = id {
            acked.push(load::Write {
                brain: 0,
                id,
                marker: marker.to_string(),
            });
        }
        outcome(a)
    };
    let before = ack(
        &mut acked,
        teach("before the disk filled marker-full-0"),
        "marker-full-0",
    );
    let filled = fill(dir)?;
    let mut teaches = Vec::new();
    for i in 1..=5 {
        let m = format!("marker-full-{i}");
        teaches.push(ack(
            &mut acked,
            teach(&format!("while the disk is full {m}")),
            &m,
        ));
    }
    // a query is answered unjournaled (journaled: false and a warning, issue 30 item 4)
    let queries: Vec<String> = (0..5)
        .map(|i| {
            let a = client::call(
                &addr,
                &token,
                &sid,
                "query",
                json!({"query": format!("extract a tar archive {i}"), "chat_id": "full"}),
            );
            match a.as_ref().and_then(client::Answer::tool_result) {
                Some(v) if v["journaled"] == json!(false) => format!(
                    "answered ({} fired), not journaled: {}",
                    v["fired"].as_array().map_or(0, Vec::len),
                    v["warning"].as_str().unwrap_or("")
                ),
                _ => outcome(a),
            }
        })
        .collect();
    let feedback = outcome(client::call(
        &addr,
        &token,
        &sid,
        "feedback",
        json!({"chat_id": "full", "outcome": 1}),
    ));
    let health = outcome(client::call(&addr, &token, &sid, "health", json!({})));
    let node = match acked.first() {
        None => "nothing to read",
        Some(w) if client::holds(&addr, &token, &sid, &w.id, &w.marker) => "ok",
        Some(_) => "not found",
    };
    let filler = dir.join("filler");
    std::fs::remove_file(&filler).map_err(io(&filler))?;
    let after = ack(
        &mut acked,
        teach("after the disk was freed marker-full-9"),
        "marker-full-9",
    );
    kill(child);
    let doctor = match run(bin, dir, &["doctor", "--state", "served/full"]) {
        Ok(_) => "ok".to_string(),
        Err(e) => format!("FAILED: {e}"),
    };
    let (child, addr) = start(bin, dir)?;
    let (lost, _) = load::misplaced(&addr, &tokens, &acked);
    kill(child);
    Ok(format!(
        "full disk ({}): teach before: {before}; filler {filled} bytes; 5 teaches while full: {}; 5 queries: {}; feedback for their chat: {feedback}; health: {health}; node read: {node}; teach after freeing: {after}; doctor: {doctor}; {} acknowledged teaches, {} lost after a restart\n",
        dir.display(),
        tally(&teaches),
        tally(&queries),
        acked.len(),
        lost.len()
    ))
}

/// The idle-connection run: `n` idle connections to the server at `addr`, then 50
/// `query` calls of a client with `token` while they are held; its report line.
pub fn idle(addr: &str, token: &str, n: usize) -> String {
    let t = Instant::now();
    let held: Vec<TcpStream> = (0..n)
        .map_while(|_| TcpStream::connect(addr).ok())
        .collect();
    let opened = held.len();
    let open_s = t.elapsed().as_secs_f64();
    let mut lat = Vec::new();
    let mut outcomes = Vec::new();
    let sid = client::session(addr, token);
    for i in 0..50 {
        let q = Instant::now();
        let a = match &sid {
            Some(sid) => client::call(
                addr,
                token,
                sid,
                "query",
                json!({"query": format!("list files {i}")}),
            ),
            None => client::post(
                addr,
                Some(token),
                None,
                &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            ),
        };
        lat.push(q.elapsed());
        outcomes.push(a.map_or("no answer".to_string(), |a| a.status.to_string()));
    }
    lat.sort();
    let ok = outcomes.iter().filter(|s| *s == "200").count();
    drop(held);
    format!(
        "idle connections: {opened} of {n} opened in {open_s:.2} s; then a client {} a session; 50 queries: {ok} answered 200 ({}), p50 {:.1} ms, p99 {:.1} ms\n",
        if sid.is_some() { "opened" } else { "could NOT open" },
        tally(&outcomes),
        load::percentile(&lat, 50),
        load::percentile(&lat, 99)
    )
}
