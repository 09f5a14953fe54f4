//! `bench folder-replay`: a real folder used for a while, with health before and after
//! and what the autotuner changed (issue 31, "Measured": "Replay 1,000 queries with
//! feedback on tldr-pages (79k chunks), then give the eight health metrics before and
//! after, and what the autotuner changed").
//!
//! * **Queries**: tldr pages' own example descriptions (`- Extract a tar archive:`),
//!   each the task of its page ([`descriptions`]): the lines of the folder's pages
//!   that start with `- ` and end with `:`, without the mnemonic brackets and
//!   backticks; only descriptions found on exactly one page (case-insensitive), whose
//!   right page is then known; `--queries` of them sampled without replacement
//!   ([`sample`], `ChaCha8Rng::seed_from_u64(--seed)`). They are text of the pages
//!   themselves, so easier than the hand-written questions of `bench folder`.
//! * **Replay**: one hash-v1 brain built as `crabpath init` builds it (once, then copied
//!   for each arm), opened resident and writable and served by the daemon's adapter
//!   ([`Daemon`]). Each query is asked as `bench folder-rounds` asks
//!   ([`super::rounds::request`], [`crate::served::ask`]: neurogenesis on, its own
//!   conversation), followed by outcome-only feedback ([`crate::served::feedback`]: +1
//!   when the right page is among the first five pages, −1 otherwise). After every
//!   `--maintain-every` queries the daemon gets a `maintain` request, as periodic
//!   maintenance would send it:
//!   - arm `autotune`: `{}`, the daemon's default tasks (health, decay, merge, prune;
//!     the health task runs the autotuner: health → autotune → guardrails → apply,
//!     journaled `"type": "autotune"`);
//!   - arm `no-autotune`: `{"tasks": "decay,merge,prune"}`, the same maintenance
//!     without the health task, so the parameters stay the defaults.
//! * **Measured** per block of `--maintain-every` queries, before its maintenance:
//!   success@5 by page, the eight health metrics ([`Brain::health_report`] over the
//!   last `--window` queries); after it: the autotune step (parameters before and
//!   after, the suggestions applied, what the guardrails clipped), merges and prunes,
//!   and the neurogenesis events of the block (journal `"type": "neurogenesis"`).
//!   "Before" is the first block's health (the four window metrics need queries),
//!   "after" the health after the last block and its maintenance.
//!
//! Measured once (`results/bench/folder/replay-tldr-08e345f.json` and `.md`), not in
//! `bench check`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use crabpath::profile::Profile;
use crabpath_brain::serve::daemon::{Daemon, Step};
use crabpath_brain::service::HealthReport;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{locate, Brain, OpenOptions};
use pyformat::pyjson::PyValue;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::{json, Value};

use super::run::{build_brain, loader};
use super::score::{first_hit, page_map, ranked_pages};
use crate::embed::{EmbedderArg, ModelOpts};
use crate::error::{Error, Result};
use crate::served;

/// `bench folder-replay`'s options.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The folder to build the brain from and to draw the queries from (tldr-pages/tldr's
    /// `pages/` at 08e345f for the committed result).
    #[arg(long, value_name = "DIR")]
    pub workspace: PathBuf,
    /// Queries replayed (drawn without replacement from the pages' example
    /// descriptions that name one page).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub queries: u64,
    /// Seed of the sample of descriptions (ChaCha8).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Queries between two `maintain` requests to the daemon (the block size of the
    /// per-block scores).
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub maintain_every: u64,
    /// The health window: the last N queries the four journal metrics are measured over
    /// (as `crabpath health --window`).
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub window: u64,
    /// Scratch directory the brains are built in (`base/`, then one copy per arm;
    /// replaced) [default: a temporary directory, removed at the end].
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Where to write the JSON result.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "results/bench/folder/replay-tldr-08e345f.json"
    )]
    pub output: PathBuf,
    /// Where to write the Markdown tables [default: the JSON result's path with `.md`].
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
}

/// A query with its one right page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// The example description, cleaned (see [`clean`]).
    pub text: String,
    /// The page it is written on, relative to the folder.
    pub page: String,
}

/// An example description as a user would type it: without tldr's mnemonic brackets
/// (`[c]reate` → `create`) and backticks, trimmed.
pub fn clean(line: &str) -> String {
    line.chars()
        .filter(|c| !matches!(c, '[' | ']' | '`'))
        .collect::<String>()
        .trim()
        .to_string()
}

/// The example descriptions of one page's text: the lines `- <text>:`, cleaned, in
/// page order (empty ones dropped).
pub fn page_descriptions(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("- ")?.trim_end().strip_suffix(':'))
        .map(clean)
        .filter(|d| !d.is_empty())
        .collect()
}

/// The descriptions of `pages` (`(page, text)` in the given order) found on exactly one
/// page and once there (compared case-insensitively), in page and line order.
pub fn descriptions(pages: &[(String, String)]) -> Vec<Described> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut all = Vec::new();
    for (page, text) in pages {
        for d in page_descriptions(text) {
            *seen.entry(d.to_lowercase()).or_default() += 1;
            all.push(Described {
                text: d,
                page: page.clone(),
            });
        }
    }
    all.retain(|d| seen.get(&d.text.to_lowercase()) == Some(&1));
    all
}

/// `n` of `pool` drawn without replacement with `ChaCha8Rng::seed_from_u64(seed)`
/// (all of them, shuffled, when `n` is larger).
pub fn sample<T: Clone>(pool: &[T], n: usize, seed: u64) -> Vec<T> {
    let mut order: Vec<usize> = (0..pool.len()).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    order.truncate(n);
    order.into_iter().map(|i| pool[i].clone()).collect()
}

/// Counts of the neurogenesis events (`born`, `promoted`, …) among journal entries.
pub fn count_events<'e>(events: impl IntoIterator<Item = &'e str>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for e in events {
        *out.entry(e.to_string()).or_default() += 1;
    }
    out
}

/// One metric of a health report as the result keeps it.
#[derive(Debug, Clone, Serialize)]
pub struct MetricValue {
    /// The value (`null`: not computable, see `reason`).
    pub value: Option<f64>,
    /// `ok`, `low`, `high` or `n/a`.
    pub status: &'static str,
    /// Why there is no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// The eight metrics of a [`HealthReport`], by name in table order, with the queries the
/// window held.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// Queries in the window.
    pub queries: usize,
    /// Nodes and edges of the graph.
    pub nodes: usize,
    /// Edges of the graph.
    pub edges: usize,
    /// The metrics (Table 4's order).
    pub metrics: Vec<(String, MetricValue)>,
}

impl Health {
    fn of(r: &HealthReport) -> Health {
        Health {
            queries: r.queries,
            nodes: r.nodes,
            edges: r.edges,
            metrics: r
                .metrics
                .iter()
                .map(|m| {
                    (
                        m.target.name.to_string(),
                        MetricValue {
                            value: m.value.map(|v| (v * 1e6).round() / 1e6),
                            status: m.status().as_str(),
                            reason: m.reason,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// One block of queries and the maintenance after it.
#[derive(Debug, Clone, Serialize)]
pub struct Block {
    /// success@5 by page of the block's queries.
    pub success_at_5: f64,
    /// Health after the block's queries, before its maintenance: the values of
    /// [`ReplayReport::metrics`] (`null`: not computable).
    pub health: Vec<Option<f64>>,
    /// The daemon's maintenance answer: the autotune step (`before`, `after`,
    /// `applied`, `clipped`; absent in arm `no-autotune`), merges, prunes, edges; its
    /// neurogenesis counts without the ids (`without_ids`).
    pub maintain: Value,
    /// Neurogenesis events journaled in the block and its maintenance.
    pub neurogenesis: BTreeMap<String, usize>,
}

/// One arm of the replay.
#[derive(Debug, Clone, Serialize)]
pub struct Arm {
    /// `autotune` or `no-autotune`.
    pub name: String,
    /// The `maintain` request's params.
    pub maintain_params: Value,
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// Health after the first block, before its maintenance ("before": the four window
    /// metrics need queries).
    pub health_before: Option<Health>,
    /// Health after the last block and its maintenance.
    pub health_after: Health,
    /// The brain's parameters at the end (`meta.tuning`).
    pub tuning_after: Value,
    /// Auto nodes at the end: on probation, permanent, dead.
    pub auto_nodes: [usize; 3],
    /// Neurogenesis events of the whole replay.
    pub neurogenesis: BTreeMap<String, usize>,
    /// Seconds the arm took (queries, feedback, maintenance, health).
    pub seconds: f64,
}

/// The result file.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    /// How it was made.
    pub command: String,
    /// Where the queries come from.
    pub queries_from: String,
    /// Descriptions found on exactly one page (the pool sampled from).
    pub pool: usize,
    /// Queries replayed.
    pub queries: usize,
    /// Files that became nodes, and nodes (chunks).
    pub files: usize,
    /// Nodes (chunks) of the brain as built.
    pub chunks: usize,
    /// Queries per block (between two maintenance requests).
    pub maintain_every: usize,
    /// The health window, in queries.
    pub window: usize,
    /// The eight metrics' names, in Table 4's order (the order of [`Block::health`]).
    pub metrics: Vec<&'static str>,
    /// The arms.
    pub arms: Vec<Arm>,
}

/// The arms: name and the params of the `maintain` request.
fn arms() -> [(&'static str, Value); 2] {
    [
        ("autotune", json!({})),
        ("no-autotune", json!({"tasks": "decay,merge,prune"})),
    ]
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| Error::io(to, e))?;
    }
    std::fs::create_dir_all(to).map_err(|e| Error::io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| Error::io(from, e))? {
        let entry = entry.map_err(|e| Error::io(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| Error::io(&src, e))?;
        }
    }
    Ok(())
}

/// The neurogenesis events journaled after the first `from` entries; returns them and
/// the journal's length.
fn events_since(b: &mut Brain, from: usize) -> Result<(Vec<String>, usize)> {
    let j = b
        .journal_entries()
        .map_err(|e| Error::brain("reading the journal", e))?;
    let kinds = j.entries[from.min(j.entries.len())..]
        .iter()
        .filter(|e| e.get("type").and_then(PyValue::as_str) == Some("neurogenesis"))
        .filter_map(|e| e.get("event").and_then(PyValue::as_str).map(String::from))
        .collect();
    Ok((kinds, j.entries.len()))
}

fn health(b: &mut Brain, window: usize) -> Result<Health> {
    let r = b
        .health_report(window)
        .map_err(|e| Error::brain("health", e))?;
    Ok(Health::of(&r))
}

/// `answer` without the ids of the auto nodes its maintenance removed
/// (`neurogenesis.died_ids`, `neurogenesis.merged_ids`): hashes no table reads, about
/// 40 KB over a 1,000-query replay, while the counts beside them stay.
fn without_ids(mut answer: Value) -> Value {
    if let Some(n) = answer
        .get_mut("neurogenesis")
        .and_then(Value::as_object_mut)
    {
        n.remove("died_ids");
        n.remove("merged_ids");
    }
    answer
}

/// The daemon's answer to `maintain` with `params`, its `result` (the `health_before`
/// and `health_after` payloads and the suggestions' reasons left out: the block's
/// health is kept apart).
fn maintain(d: &mut Daemon, params: &Value) -> Result<Value> {
    let line = json!({"id": 1, "method": "maintain", "params": params}).to_string();
    let (Step::Answer(text) | Step::Stop(text)) = d.handle(&line) else {
        return Err(Error::Internal(
            "maintain: the daemon did not answer".into(),
        ));
    };
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Internal(format!("maintain: the daemon's answer: {e}")))?;
    let Some(Value::Object(mut r)) = v.get("result").cloned() else {
        return Err(Error::Internal(format!("maintain failed: {text}")));
    };
    r.remove("health_before");
    r.remove("health_after");
    if let Some(Value::Array(applied)) = r.get_mut("autotune").and_then(|a| a.get_mut("applied")) {
        for s in applied {
            if let Value::Object(s) = s {
                s.remove("reason");
            }
        }
    }
    Ok(Value::Object(r))
}

/// Runs `bench folder-replay` and writes its result and tables; returns the tables.
pub fn cmd_replay(a: &ReplayArgs) -> Result<String> {
    if !a.workspace.is_dir() {
        return Err(Error::Usage(format!(
            "--workspace: expected a folder, found none at {}",
            a.workspace.display()
        )));
    }
    let markdown = a
        .markdown
        .clone()
        .unwrap_or_else(|| a.output.with_extension("md"));
    for (opt, p) in [("--output", &a.output), ("--markdown", &markdown)] {
        pyformat::io::check_output(opt, p).map_err(|e| Error::Usage(e.to_string()))?;
    }
    let boot = crabpath_brain::source::bootstrap::split_workspace(
        &a.workspace,
        &SplitOptions::new(Profile::Corrected),
    )
    .map_err(|e| Error::brain(format!("{}: split", a.workspace.display()), e))?;
    let mut pages = Vec::with_capacity(boot.files.len());
    for f in &boot.files {
        let p = a.workspace.join(&f.rel);
        pages.push((
            f.rel.clone(),
            std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?,
        ));
    }
    let pool = descriptions(&pages);
    let queries = sample(&pool, a.queries as usize, a.seed);
    let graph = &boot.graph;
    let page = page_map(graph);
    let page_of = |id: &str| page.get(id).cloned();
    let (work, _tmp) = super::scratch(a.work.as_deref())?;
    let model = ModelOpts::default();
    let base = work.join("base");
    if base.exists() {
        std::fs::remove_dir_all(&base).map_err(|e| Error::io(&base, e))?;
    }
    build_brain(&base, graph, EmbedderArg::HashV1, &model, false)?;
    let every = a.maintain_every as usize;
    let window = a.window as usize;
    let mut out = Vec::new();
    for (name, params) in arms() {
        let started = std::time::Instant::now();
        let dir = work.join(name);
        copy_dir(&base, &dir)?;
        let mut o = OpenOptions::new(Profile::Corrected);
        o.resident = true;
        o.embedder = Some(loader(EmbedderArg::HashV1, &model));
        let brain = Brain::open(locate(&dir), o)
            .map_err(|e| Error::brain(format!("{}: open", dir.display()), e))?;
        let (mut d, _) =
            Daemon::new(brain, 0).map_err(|e| Error::brain("starting the daemon", e))?;
        let (_, mut seen) = events_since(d.brain(), 0)?;
        let mut all_events = Vec::new();
        let mut blocks = Vec::new();
        let mut before = None;
        for (b, chunk) in queries.chunks(every).enumerate() {
            let mut hits = Vec::with_capacity(chunk.len());
            for (i, q) in chunk.iter().enumerate() {
                let chat = format!("r{:04}", b * every + i + 1);
                let ranked = served::ask(
                    d.brain(),
                    super::rounds::request(&q.text),
                    true,
                    Some(&chat),
                )?;
                let pages = ranked_pages(ranked.iter().map(String::as_str), page_of);
                let hit = first_hit(&pages, std::slice::from_ref(&q.page)).is_some_and(|r| r <= 5);
                hits.push(hit);
                let (outcome, used) = served::Protocol::OutcomeOnly.feedback(hit, || None);
                served::feedback(d.brain(), &chat, outcome, used)?;
            }
            let h = health(d.brain(), window)?;
            if b == 0 {
                before = Some(h.clone());
            }
            let m = without_ids(maintain(&mut d, &params)?);
            let (events, now) = events_since(d.brain(), seen)?;
            seen = now;
            blocks.push(Block {
                success_at_5: served::share(&hits),
                health: h.metrics.iter().map(|(_, m)| m.value).collect(),
                maintain: m,
                neurogenesis: count_events(events.iter().map(String::as_str)),
            });
            all_events.extend(events);
        }
        let health_after = health(d.brain(), window)?;
        let tuning = d
            .brain()
            .tuning()
            .map_err(|e| Error::brain("reading the tuning", e))?;
        let counts = d
            .brain()
            .neurogenesis_counts()
            .map_err(|e| Error::brain("counting auto nodes", e))?;
        out.push(Arm {
            name: name.into(),
            maintain_params: params,
            blocks,
            health_before: before,
            health_after,
            tuning_after: serde_json::to_value(tuning).unwrap_or(Value::Null),
            auto_nodes: [counts.probation, counts.permanent, counts.dead],
            neurogenesis: count_events(all_events.iter().map(String::as_str)),
            seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        });
    }
    let report = ReplayReport {
        command: format!(
            "bench folder-replay --workspace <tldr-pages 08e345f>/pages --queries {} --seed {} --maintain-every {} --window {}",
            a.queries, a.seed, a.maintain_every, a.window
        ),
        queries_from: "the folder's example descriptions (`- <text>:` lines) found on exactly one page, mnemonic brackets and backticks removed; the right page is the page it is on".into(),
        pool: pool.len(),
        queries: queries.len(),
        files: boot.files.len(),
        chunks: graph.node_count(),
        maintain_every: every,
        window,
        metrics: crabpath_brain::service::health::TABLE_4
            .iter()
            .map(|t| t.name)
            .collect(),
        arms: out,
    };
    let table = markdown_of(&report);
    // one line: the file stays small (the Markdown tables are the reading copy)
    let text = serde_json::to_string(&report)
        .map_err(|e| Error::Internal(format!("the replay result as JSON: {e}")))?;
    crate::report::save(&a.output, (text + "\n").as_bytes())?;
    crate::report::save(&markdown, table.as_bytes())?;
    Ok(table)
}

fn fmt_metric(m: &MetricValue) -> String {
    match m.value {
        None => "n/a".into(),
        Some(v) if m.status == "ok" => format!("{v:.4}"),
        Some(v) => format!("{v:.4} ({})", m.status),
    }
}

fn knob(v: &Value, k: &str) -> String {
    match v.get(k) {
        Some(Value::Number(n)) => n.to_string(),
        _ => "–".into(),
    }
}

/// The Markdown tables of a report: health before and after, the autotune steps,
/// success@5 per block and the auto nodes.
pub fn markdown_of(r: &ReplayReport) -> String {
    let mut s = format!(
        "# Replay of {} queries on tldr-pages 08e345f (`bench folder-replay`)\n\n\
         Generated by `{}`.\n\n\
         {} files, {} chunks, hash-v1; queries: {} ({} in the pool); outcome-only feedback \
         after each; the daemon's `maintain` after every {} queries; health over the last \
         {} queries.\n\n",
        r.queries, r.command, r.files, r.chunks, r.queries_from, r.pool, r.maintain_every, r.window
    );
    s.push_str("## Health (seed 002 Table 4)\n\n| metric | before (after block 1) |");
    for a in &r.arms {
        s.push_str(&format!(" after: {} |", a.name));
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---|".repeat(r.arms.len()));
    s.push('\n');
    if let Some(first) = r.arms.first().and_then(|a| a.health_before.as_ref()) {
        for (i, (name, before)) in first.metrics.iter().enumerate() {
            s.push_str(&format!("| {name} | {} |", fmt_metric(before)));
            for a in &r.arms {
                let m = a.health_after.metrics.get(i).map(|(_, m)| fmt_metric(m));
                s.push_str(&format!(" {} |", m.unwrap_or_default()));
            }
            s.push('\n');
        }
    }
    s.push_str("\n## What the autotuner changed (arm `autotune`, one row per `maintain`)\n\n\
        | after block | half-life | promotion threshold | Hebbian increment | reflex threshold | damping | suggestions applied | clipped |\n\
        |---|---|---|---|---|---|---|---|\n");
    for a in r.arms.iter().filter(|a| a.name == "autotune") {
        for (i, b) in a.blocks.iter().enumerate() {
            let Some(t) = b.maintain.get("autotune") else {
                continue;
            };
            let (bf, af) = (&t["before"], &t["after"]);
            let cell = |k: &str| {
                let (x, y) = (knob(bf, k), knob(af, k));
                if x == y {
                    x
                } else {
                    format!("{x} → **{y}**")
                }
            };
            let applied: Vec<String> = t["applied"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .map(|s| {
                            format!(
                                "{} {} {}",
                                s["knob"].as_str().unwrap_or("?"),
                                s["suggested_adjustment"].as_str().unwrap_or("?"),
                                s["value"]
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let clipped: Vec<String> = t["clipped"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .map(|c| {
                            format!(
                                "{} {} → {}",
                                c["knob"].as_str().unwrap_or("?"),
                                c["proposed"],
                                c["kept"]
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                i + 1,
                cell("half_life"),
                cell("promotion_threshold"),
                cell("hebbian_increment"),
                cell("reflex_threshold"),
                cell("damping"),
                if applied.is_empty() {
                    "–".into()
                } else {
                    applied.join("; ")
                },
                if clipped.is_empty() {
                    "–".into()
                } else {
                    clipped.join("; ")
                },
            ));
        }
    }
    if let Some(a) = r.arms.first() {
        s.push_str(&format!(
            "\n## Health per block (arm `{}`, after the block's queries, before its `maintain`)\n\n| block |",
            a.name
        ));
        for m in &r.metrics {
            s.push_str(&format!(" {m} |"));
        }
        s.push_str(" neurogenesis events | merges / pruned edges / pruned nodes |\n|---|");
        s.push_str(&"---|".repeat(r.metrics.len() + 2));
        s.push('\n');
        for (i, b) in a.blocks.iter().enumerate() {
            s.push_str(&format!("| {} |", i + 1));
            for v in &b.health {
                match v {
                    Some(v) => s.push_str(&format!(" {v:.4} |")),
                    None => s.push_str(" n/a |"),
                }
            }
            let ev: Vec<String> = b
                .neurogenesis
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            s.push_str(&format!(
                " {} | {} / {} / {} |\n",
                ev.join(", "),
                b.maintain["merges_applied"],
                b.maintain["pruned_edges"],
                b.maintain["pruned_nodes"]
            ));
        }
    }
    s.push_str("\n## success@5 per block\n\n| arm |");
    let blocks = r.arms.first().map_or(0, |a| a.blocks.len());
    for i in 0..blocks {
        s.push_str(&format!(" {} |", i + 1));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(blocks));
    s.push('\n');
    for a in &r.arms {
        s.push_str(&format!("| {} |", a.name));
        for b in &a.blocks {
            s.push_str(&format!(" {:.2} |", b.success_at_5));
        }
        s.push('\n');
    }
    s.push_str("\n## Auto nodes (neurogenesis)\n\n| arm | events over the replay | at the end: probation / permanent / dead | seconds |\n|---|---|---|---|\n");
    for a in &r.arms {
        let ev: Vec<String> = a
            .neurogenesis
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        s.push_str(&format!(
            "| {} | {} | {} / {} / {} | {:.0} |\n",
            a.name,
            ev.join(", "),
            a.auto_nodes[0],
            a.auto_nodes[1],
            a.auto_nodes[2],
            a.seconds
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_the_example_lines_cleaned() {
        let page = "# tar\n\n> Archiving utility.\n> More: <https://x>.\n\n\
                    - [c]reate an archive from `files`:\n\n`tar cf {{a}}`\n\n\
                    - Not a description\n- List contents:  \n";
        assert_eq!(
            page_descriptions(page),
            vec!["create an archive from files", "List contents"]
        );
    }

    #[test]
    fn only_descriptions_of_one_page_are_kept() {
        // "Display help" is on two pages (case differs): both dropped; the rest kept in
        // page and line order
        let pages = vec![
            (
                "a.md".to_string(),
                "- Display help:\n- Extract a tar archive:\n".to_string(),
            ),
            (
                "b.md".to_string(),
                "- display HELP:\n- Show the version:\n".to_string(),
            ),
        ];
        let got: Vec<(String, String)> = descriptions(&pages)
            .into_iter()
            .map(|d| (d.text, d.page))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Extract a tar archive".to_string(), "a.md".to_string()),
                ("Show the version".to_string(), "b.md".to_string())
            ]
        );
    }

    #[test]
    fn the_sample_is_seeded_distinct_and_bounded() {
        let pool: Vec<usize> = (0..50).collect();
        let a = sample(&pool, 10, 7);
        assert_eq!(a, sample(&pool, 10, 7));
        assert_ne!(a, sample(&pool, 10, 8));
        let mut d = a.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 10);
        assert_eq!(sample(&pool, 80, 7).len(), 50);
    }

    #[test]
    fn events_are_counted_by_kind() {
        let c = count_events(["born", "born", "promoted", "died", "born"]);
        assert_eq!(c.get("born"), Some(&3));
        assert_eq!(c.get("promoted"), Some(&1));
        assert_eq!(c.get("died"), Some(&1));
        assert_eq!(c.len(), 3);
    }
}
