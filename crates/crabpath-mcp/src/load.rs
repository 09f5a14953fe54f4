//! The load and fault runs of issue 30 item 4, in one home for the short runs of
//! `cargo test` (`crabpath-cli --test it mcp_load::`) and the full runs of `bench
//! team-load` (32 clients on 4 brains for 60 s; kill -9 at >= 20 seeded moments):
//!
//! * [`mixed`]: concurrent HTTP MCP clients, each with a token of one brain, drawing a
//!   seeded mix of `query`, `feedback`, `teach` and `remember` ([`MIX`]) until the run
//!   ends; latencies, errors, and every acknowledged write (a `node_id` that came back)
//!   with a text no other write has;
//! * [`misplaced`]: every acknowledged write read back through `crabpath://node/{id}`
//!   from its own brain (lost when absent) and never from another (leaked);
//! * [`kill_rounds`]: teaching writers, the server killed (SIGKILL) at a seeded moment
//!   and started again, round after round; every teach whose answer came back is
//!   acknowledged, one cut short is not.
//!
//! The client is [`crate::client`]; the caller starts the server (the test with its
//! helpers, the benchmark with the `crabpath` binary it is given).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::client;

/// The tools of the mixed load, drawn uniformly (the first call of a client is a
/// `query`, so its `feedback` has a turn to credit).
pub const MIX: [&str; 4] = ["query", "feedback", "teach", "remember"];

/// An acknowledged write: the brain (index into the tokens), the node id the server
/// answered and a text only this write holds.
#[derive(Debug, Clone)]
pub struct Write {
    /// Index of the brain's token.
    pub brain: usize,
    /// The node id of the answer.
    pub id: String,
    /// A text no other write holds.
    pub marker: String,
}

/// What a run of [`mixed`] saw.
#[derive(Debug, Default)]
pub struct Mixed {
    /// The latency of every call, sorted.
    pub latencies: Vec<Duration>,
    /// Calls per tool, in [`MIX`] order.
    pub per_tool: [usize; 4],
    /// Every acknowledged write.
    pub written: Vec<Write>,
    /// Every call that failed (no answer, an HTTP error or a tool error), with why.
    pub errors: Vec<String>,
    /// The run's wall time, in seconds.
    pub secs: f64,
}

impl Mixed {
    /// The `p`-th percentile of the latencies ([`percentile`]).
    pub fn percentile(&self, p: usize) -> f64 {
        percentile(&self.latencies, p)
    }

    /// Calls per second.
    pub fn throughput(&self) -> f64 {
        self.latencies.len() as f64 / self.secs.max(1e-9)
    }

    /// One line: calls, throughput, p50/p99, writes and errors.
    pub fn summary(&self) -> String {
        format!(
            "{} calls in {:.2} s = {:.1} calls/s, p50 {:.1} ms, p99 {:.1} ms; query/feedback/teach/remember {:?}; {} acknowledged writes, {} errors",
            self.latencies.len(),
            self.secs,
            self.throughput(),
            self.percentile(50),
            self.percentile(99),
            self.per_tool,
            self.written.len(),
            self.errors.len()
        )
    }
}

/// The `p`-th percentile (nearest rank) of sorted latencies, in ms (0 when empty).
pub fn percentile(sorted: &[Duration], p: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = (sorted.len() * p).div_ceil(100).max(1) - 1;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e3
}

/// The arguments of call `n` of client `c` for tool `MIX[op]`, with its unique marker.
fn args(op: usize, c: u64, n: u64, marker: &str, chat: &str) -> Value {
    match op {
        0 => json!({"query": "deploy the service", "chat_id": chat}),
        1 => json!({"outcome": 1, "chat_id": chat}),
        2 => json!({"content": format!("fact {c} {n} {marker}")}),
        _ => json!({"text": format!("said {c} {n} {marker}"), "id": format!("turn-{c}-{n}")}),
    }
}

/// `clients` concurrent clients for `run`, client `c` on brain `c % tokens.len()`
/// (its own session and chat), each drawing from [`MIX`] with seed `seed + c`.
pub fn mixed(addr: &str, tokens: &[String], clients: usize, run: Duration, seed: u64) -> Mixed {
    let t0 = Instant::now();
    let workers: Vec<_> = (0..clients as u64)
        .map(|c| {
            let addr = addr.to_string();
            let brain = c as usize % tokens.len().max(1);
            let token = tokens.get(brain).cloned().unwrap_or_default();
            std::thread::spawn(move || one_client(&addr, &token, brain, c, seed, t0, run))
        })
        .collect();
    let mut out = Mixed::default();
    for w in workers {
        match w.join() {
            Ok(m) => {
                out.latencies.extend(m.latencies);
                out.written.extend(m.written);
                out.errors.extend(m.errors);
                for (a, b) in out.per_tool.iter_mut().zip(m.per_tool) {
                    *a += b;
                }
            }
            Err(_) => out.errors.push("a client thread panicked".into()),
        }
    }
    out.secs = t0.elapsed().as_secs_f64();
    out.latencies.sort();
    out
}

fn one_client(
    addr: &str,
    token: &str,
    brain: usize,
    c: u64,
    seed: u64,
    t0: Instant,
    run: Duration,
) -> Mixed {
    let mut out = Mixed::default();
    let mut rng = StdRng::seed_from_u64(seed.wrapping_add(c));
    let Some(sid) = client::session(addr, token) else {
        out.errors.push(format!("client {c}: no session"));
        return out;
    };
    let chat = format!("chat-{c}");
    let mut n = 0u64;
    while t0.elapsed() < run {
        let op = if n == 0 {
            0
        } else {
            rng.gen_range(0..MIX.len())
        };
        let marker = format!("marker-{c}-{n}-{:x}", rng.gen::<u64>());
        let q = Instant::now();
        let a = client::call(addr, token, &sid, MIX[op], args(op, c, n, &marker, &chat));
        out.latencies.push(q.elapsed());
        out.per_tool[op] += 1;
        match a.as_ref().and_then(client::Answer::tool_result) {
            None => out.errors.push(format!(
                "{}: {}",
                MIX[op],
                a.map_or("no answer".into(), |a| format!("{} {}", a.status, a.body))
            )),
            Some(v) if op >= 2 => match v["node_id"].as_str() {
                Some(id) => out.written.push(Write {
                    brain,
                    id: id.to_string(),
                    marker,
                }),
                None => out.errors.push(format!("{}: no node_id in {v}", MIX[op])),
            },
            Some(_) => {}
        }
        n += 1;
    }
    out
}

/// The acknowledged writes not found in their own brain (lost), and those found in
/// another brain (leaked), read back through the node resource with one session per
/// token. A write counts as lost when its brain cannot even open a session.
pub fn misplaced<'w>(
    addr: &str,
    tokens: &[String],
    written: &'w [Write],
) -> (Vec<&'w Write>, Vec<&'w Write>) {
    let sids: Vec<Option<String>> = tokens.iter().map(|t| client::session(addr, t)).collect();
    let found = |b: usize, w: &Write| match &sids[b] {
        Some(sid) => client::holds(addr, &tokens[b], sid, &w.id, &w.marker),
        None => false,
    };
    let mut lost = Vec::new();
    let mut leaked = Vec::new();
    for w in written {
        if !found(w.brain, w) {
            lost.push(w);
        }
        if (0..tokens.len()).any(|o| o != w.brain && found(o, w)) {
            leaked.push(w);
        }
    }
    (lost, leaked)
}

/// A server to kill: its address and how to kill it (SIGKILL, then wait for it).
pub type Started = (String, Box<dyn FnOnce()>);

/// What [`kill_rounds`] did.
#[derive(Debug, Default)]
pub struct Kills {
    /// When each kill came, in ms after the writers started.
    pub moments_ms: Vec<u64>,
    /// Every teach acknowledged before its server was killed.
    pub acked: Vec<Write>,
}

/// `rounds` rounds of: start the server (`start`), run `writers` teaching clients on
/// each token, kill the server `min_ms + U[0, span_ms]` ms later (seeded by `seed`).
/// A writer stops at its first call without a full answer.
pub fn kill_rounds(
    rounds: usize,
    writers: usize,
    tokens: &[String],
    seed: u64,
    (min_ms, span_ms): (u64, u64),
    mut start: impl FnMut() -> Started,
) -> Kills {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Kills::default();
    for round in 0..rounds {
        let (addr, kill) = start();
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..tokens.len() * writers)
            .map(|t| {
                let addr = addr.clone();
                let brain = t % tokens.len();
                let token = tokens[brain].clone();
                let stop = stop.clone();
                std::thread::spawn(move || teach_until(&addr, &token, brain, round, t, &stop))
            })
            .collect();
        let wait = min_ms + rng.gen_range(0..=span_ms);
        out.moments_ms.push(wait);
        std::thread::sleep(Duration::from_millis(wait));
        kill();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            if let Ok(w) = t.join() {
                out.acked.extend(w);
            }
        }
    }
    out
}

/// Teaches unique facts until `stop` or the first call without a full answer.
fn teach_until(
    addr: &str,
    token: &str,
    brain: usize,
    round: usize,
    t: usize,
    stop: &AtomicBool,
) -> Vec<Write> {
    let mut out = Vec::new();
    let Some(sid) = client::session(addr, token) else {
        return out;
    };
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let marker = format!("marker-r{round}w{t}n{n}");
        let text = format!("kill round {round} writer {t} fact {n} {marker}");
        let a = client::call(addr, token, &sid, "teach", json!({"content": text}));
        // no answer, or one cut short by the kill: not acknowledged, stop
        let Some(v) = a.as_ref().and_then(client::Answer::tool_result) else {
            break;
        };
        let Some(id) = v["node_id"].as_str() else {
            break;
        };
        out.push(Write {
            brain,
            id: id.to_string(),
            marker,
        });
        n += 1;
    }
    out
}
