//! `brain-bench`: the brain's everyday operations timed side by side, in one run, for
//! up to three programs on the same folder: this `crabpath` (a brain database), a
//! `crabpath` of the previous design (one `state.json` rewritten on every write), and
//! the reference program (`python3 -m crabpath`, v11.2.1). `--baseline` adds another
//! `crabpath` of brain databases (e.g. main before hybrid seeding), measured the same way.
//!
//! Every number is one process from start to exit (wall time and peak resident memory
//! from `wait4`), except the daemon's, measured by a client over its stdin/stdout.
//! Operations are interleaved (a round runs each program once before the next round),
//! so that a load change on a shared machine hits every program alike; the load
//! average is recorded with the results. Medians are reported.
//!
//! ```text
//! cargo build --release -p crabpath-cli
//! target/release/brain-bench --workspace <tldr>/pages --label "tldr-pages/tldr@08e345f pages/" \
//!     --json-path <old crabpath> --reference <checkout of jonathangu/crabpath at 134c676> \
//!     --work /tmp/bench --output bench.json
//! ```
//!
//! Not a test: nothing is asserted; the numbers go to BENCHMARKS.md.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use clap::Parser;

/// Times a brain's everyday operations for up to three programs, side by side.
#[derive(Debug, Parser)]
#[command(name = "brain-bench", version)]
struct Args {
    /// The folder to build brains from (e.g. tldr-pages/tldr's `pages/`).
    #[arg(long)]
    workspace: PathBuf,
    /// How the folder is named in the results (repository, commit, subfolder).
    #[arg(long, default_value = "")]
    label: String,
    /// The `crabpath` to measure (default: the one beside this program).
    #[arg(long)]
    ours: Option<PathBuf>,
    /// A `crabpath` of the previous design (state.json), to measure beside it.
    #[arg(long)]
    json_path: Option<PathBuf>,
    /// Another `crabpath` that builds brain databases (e.g. main before hybrid seeding,
    /// whose queries are seeded by the vectors alone), to measure beside it with the
    /// same steps: today's default against the new one (issue 28, "Cost").
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// A checkout of the reference program at 134c676 (run with `python3 -m crabpath`).
    #[arg(long)]
    reference: Option<PathBuf>,
    /// `hash` or `minilm` (the reference has only hash-v1).
    #[arg(long, default_value = "hash")]
    embedder: String,
    /// Repeats of learn, inject, query and sync.
    #[arg(long, default_value = "5")]
    runs: usize,
    /// Repeats for the reference (each of its writes takes minutes on a large folder).
    #[arg(long, default_value = "1")]
    reference_runs: usize,
    /// Queries sent to each daemon.
    #[arg(long, default_value = "200")]
    daemon_queries: usize,
    /// The scratch directory (brains are built in it; the folder is copied into it).
    #[arg(long)]
    work: PathBuf,
    /// Where to write the results (JSON).
    #[arg(long)]
    output: PathBuf,
    /// A file of the folder to change for `sync` (relative path).
    #[arg(long, default_value = "common/tar.md")]
    changed_file: String,
    /// The fired ids `learn` teaches (comma-separated).
    #[arg(long, default_value = "common/tar.md::1,common/tar.md::2")]
    fired_ids: String,
    /// The query text.
    #[arg(long, default_value = "how do I extract a tar archive")]
    query: String,
    /// Also time this program's daemon with its queries seeded this way (`dense`,
    /// `lexical` or `hybrid`, the daemon's `seeding` param) against the default seeding:
    /// a second daemon alternates the two, query by query, so that both see the same
    /// load (issue 28, item 3).
    #[arg(long, value_name = "SEEDING")]
    compare_seeding: Option<String>,
    /// Also time this program's daemon with neurogenesis on (the corrected default)
    /// against off (the daemon's `neurogenesis` param), alternated query by query in
    /// one daemon: what the novelty gate and a question node's birth cost a query
    /// (issue 31, "A real folder": at most 0.5 ms at p50).
    #[arg(long)]
    compare_neurogenesis: bool,
}

/// One program under test.
struct System {
    name: &'static str,
    program: Vec<String>,
    /// The brain directory.
    dir: PathBuf,
    /// The `--state` argument.
    state: String,
    reference: bool,
}

impl System {
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.program[0]);
        c.args(&self.program[1..]).args(args);
        c
    }
}

/// One measured process.
#[derive(Debug, Clone, Copy, serde::Serialize)]
struct Sample {
    seconds: f64,
    max_rss_kb: i64,
    ok: bool,
}

/// Runs to the end; wall time from spawn to exit and peak memory (`wait4`, which also
/// reaps the child).
#[allow(clippy::zombie_processes)]
fn measure(mut c: Command, stdin: Option<&[u8]>) -> (Sample, String) {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    if stdin.is_some() {
        c.stdin(Stdio::piped());
    } else {
        c.stdin(Stdio::null());
    }
    let t = Instant::now();
    let mut child = c.spawn().expect("spawn");
    if let Some(input) = stdin {
        let mut i = child.stdin.take().expect("stdin");
        let _ = i.write_all(input);
    }
    let out_pipe = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut BufReader::new(out_pipe), &mut v);
        let s = String::from_utf8_lossy(&v).into_owned();
        s.lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect::<String>()
    });
    let err_pipe = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut BufReader::new(err_pipe), &mut v);
        String::from_utf8_lossy(&v).into_owned()
    });
    let (status, rss) = wait4(child.id() as i32);
    let seconds = t.elapsed().as_secs_f64();
    let first = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    (
        Sample {
            seconds,
            max_rss_kb: rss,
            ok: status == 0,
        },
        if status == 0 { first } else { err },
    )
}

/// `wait4`: exit status and peak resident set (KB).
fn wait4(pid: i32) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: plain system call on our own child; `usage` is written by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe {
        libc::wait4(pid, &mut status, 0, &mut usage);
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, usage.ru_maxrss)
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn percentile(mut v: Vec<f64>, p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    Some(v[k.min(v.len() - 1)])
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            total += dir_bytes(&p);
        } else if let Ok(m) = std::fs::symlink_metadata(&p) {
            total += m.len();
        }
    }
    total
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

#[derive(Default, serde::Serialize)]
struct Results {
    init: Vec<Sample>,
    size_after_init: u64,
    size_after_learn: u64,
    learn: Vec<Sample>,
    inject: Vec<Sample>,
    query: Vec<Sample>,
    first_sync: Option<Sample>,
    first_sync_output: String,
    sync_one_changed: Vec<Sample>,
    sync_output: String,
    daemon_start_s: Option<f64>,
    daemon_query_ms: Vec<f64>,
    daemon_shutdown_s: Option<f64>,
    /// The daemon's query times with `--compare-seeding` (empty without it), and those
    /// of the default seeding's queries alternated with them in the same daemon.
    daemon_compare_query_ms: Vec<f64>,
    daemon_paired_default_ms: Vec<f64>,
    /// With `--compare-neurogenesis`: the queries with neurogenesis on, and those with
    /// it off alternated with them in the same daemon.
    daemon_neurogenesis_on_ms: Vec<f64>,
    daemon_neurogenesis_off_ms: Vec<f64>,
}

/// Times a daemon of `sys`: its start, `queries` queries, its shutdown. With
/// `compare`, every other query (the odd ones) asks for that seeding, so that the two
/// seedings are timed under the same load; their times are returned second.
fn daemon(
    sys: &System,
    queries: usize,
    text: &str,
    compare: Option<&str>,
) -> Option<(f64, Vec<f64>, Vec<f64>, f64)> {
    let fragment = compare.map(|s| format!(r#", "seeding": "{s}""#));
    daemon_with(sys, queries, text, fragment.as_deref())
}

/// [`daemon`] with every second query carrying `compare`, a fragment of extra params
/// (`, "name": value`).
fn daemon_with(
    sys: &System,
    queries: usize,
    text: &str,
    compare: Option<&str>,
) -> Option<(f64, Vec<f64>, Vec<f64>, f64)> {
    let t = Instant::now();
    let mut child = sys
        .command(&["daemon", "--state", &sys.state])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    let mut output = BufReader::new(child.stdout.take()?);
    let mut ask = |line: &str| -> Option<String> {
        input.write_all(line.as_bytes()).ok()?;
        input.write_all(b"\n").ok()?;
        input.flush().ok()?;
        let mut a = String::new();
        output.read_line(&mut a).ok()?;
        Some(a)
    };
    ask(r#"{"id": 0, "method": "info"}"#)?;
    let start = t.elapsed().as_secs_f64();
    let mut times = Vec::with_capacity(queries);
    let mut compared = Vec::new();
    let words = [
        "tar", "git", "docker", "ssh", "find", "grep", "curl", "python", "disk", "network",
    ];
    for k in 0..queries {
        // every query text differs, so that no embedder cache answers a repeat
        let n = words.len();
        let q = format!("{text} {} {} {k}", words[k % n], words[(k / n) % n]);
        let other = compare.filter(|_| k % 2 == 1);
        let extra = other.unwrap_or("");
        let line = format!(
            r#"{{"id": {k}, "method": "query", "params": {{"query": "{q}", "top_k": 10{extra}}}}}"#
        );
        let t = Instant::now();
        let a = ask(&line)?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        match other {
            Some(_) => compared.push(ms),
            None => times.push(ms),
        }
        if !a.contains("fired_nodes") {
            eprintln!("brain-bench: {}: daemon answered {a}", sys.name);
            return None;
        }
    }
    // a write, so that shutdown has something to save
    ask(
        r#"{"id": "l", "method": "learn", "params": {"fired_nodes": ["common/tar.md::1", "common/tar.md::2"], "outcome": 1}}"#,
    )?;
    let t = Instant::now();
    ask(r#"{"id": "end", "method": "shutdown"}"#)?;
    let _ = child.wait();
    Some((start, times, compared, t.elapsed().as_secs_f64()))
}

/// `p50 ms / p99 ms` of query times, `–` when there are none.
fn p50_p99(v: &[f64]) -> String {
    match v.is_empty() {
        false => format!(
            "{:.2} ms / {:.2} ms",
            median(v.to_vec()).unwrap_or(0.0),
            percentile(v.to_vec(), 99.0).unwrap_or(0.0),
        ),
        true => "–".into(),
    }
}

fn main() {
    let a = Args::parse();
    // checked before minutes of measuring: a new path or a regular file, outside brains
    if let Err(e) = pyformat::io::check_output("--output", &a.output) {
        eprintln!("brain-bench: {e}");
        std::process::exit(2);
    }
    let ours = a.ours.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.join("crabpath")))
            .unwrap_or_else(|| PathBuf::from("crabpath"))
    });
    std::fs::create_dir_all(&a.work).expect("work directory");
    let work = std::fs::canonicalize(&a.work).expect("work directory");
    // the folder is copied, so that `sync` can change a file without touching it
    let ws = work.join("ws");
    let _ = std::fs::remove_dir_all(&ws);
    copy_tree(&a.workspace, &ws);
    let mut systems = vec![System {
        name: "ours",
        program: vec![ours.display().to_string()],
        dir: work.join("ours"),
        state: work.join("ours").display().to_string(),
        reference: false,
    }];
    if let Some(p) = &a.baseline {
        systems.push(System {
            name: "baseline",
            program: vec![p.display().to_string()],
            dir: work.join("baseline"),
            state: work.join("baseline").display().to_string(),
            reference: false,
        });
    }
    if let Some(p) = &a.json_path {
        systems.push(System {
            name: "json_path",
            program: vec![p.display().to_string()],
            dir: work.join("json"),
            state: work.join("json/state.json").display().to_string(),
            reference: false,
        });
    }
    if let Some(r) = &a.reference {
        if a.embedder == "hash" {
            systems.push(System {
                name: "reference",
                program: vec!["python3".into(), "-m".into(), "crabpath".into()],
                dir: work.join("reference"),
                state: work.join("reference/state.json").display().to_string(),
                reference: true,
            });
            std::env::set_var("PYTHONPATH", r);
        }
    }
    let mut results: Vec<Results> = systems.iter().map(|_| Results::default()).collect();
    let loads_before = load_average();
    let embedder_flag: Vec<&str> = if a.embedder == "hash" {
        vec![]
    } else {
        vec!["--embedder", a.embedder.as_str()]
    };
    // init, once each (the reference's takes minutes and gigabytes)
    for (s, r) in systems.iter().zip(results.iter_mut()) {
        let _ = std::fs::remove_dir_all(&s.dir);
        let ws_s = ws.display().to_string();
        let out_s = s.dir.display().to_string();
        let mut args = vec![
            "init",
            "--workspace",
            ws_s.as_str(),
            "--output",
            out_s.as_str(),
        ];
        if !s.reference {
            args.extend(embedder_flag.iter().copied());
        }
        let mut c = s.command(&args);
        if s.reference {
            c.env("PYTHONPATH", a.reference.as_ref().unwrap());
        }
        eprintln!("brain-bench: {} init ...", s.name);
        let (sample, msg) = measure(c, None);
        if !sample.ok {
            eprintln!("brain-bench: {} init failed: {msg}", s.name);
        }
        eprintln!(
            "brain-bench: {} init {:.2} s, {} MB",
            s.name,
            sample.seconds,
            sample.max_rss_kb / 1024
        );
        r.init.push(sample);
        r.size_after_init = dir_bytes(&s.dir);
    }
    // the first sync after init (this program and the previous design)
    for (s, r) in systems.iter().zip(results.iter_mut()) {
        if s.reference {
            continue;
        }
        let ws_s = ws.display().to_string();
        let (sample, msg) = measure(
            s.command(&["sync", "--state", &s.state, "--workspace", &ws_s]),
            None,
        );
        eprintln!(
            "brain-bench: {} first sync {:.2} s: {}",
            s.name,
            sample.seconds,
            msg.trim()
        );
        r.first_sync = Some(sample);
        r.first_sync_output = msg.trim().to_string();
    }
    let changed = ws.join(&a.changed_file);
    let original = std::fs::read_to_string(&changed).unwrap_or_default();
    for round in 0..a.runs {
        // one file changed (every other round back to the original), then each program
        // syncs it
        let edit = if round % 2 == 0 {
            format!(
                "{original}\n- A line added for the benchmark, round {round}:\n\n`tar --version`\n"
            )
        } else {
            original.clone()
        };
        std::fs::write(&changed, edit).expect("edit the changed file");
        for (s, r) in systems.iter().zip(results.iter_mut()) {
            if s.reference && round >= a.reference_runs {
                continue;
            }
            let ids = a.fired_ids.as_str();
            let (sample, msg) = measure(
                s.command(&[
                    "learn",
                    "--state",
                    &s.state,
                    "--outcome",
                    "1",
                    "--fired-ids",
                    ids,
                ]),
                None,
            );
            if !sample.ok {
                eprintln!("brain-bench: {} learn failed: {msg}", s.name);
            }
            r.learn.push(sample);
            if round == 0 {
                r.size_after_learn = dir_bytes(&s.dir);
            }
            let id = format!("bench-note-{round}");
            let content = format!("to extract a gzipped tar archive run tar -xzf, note {round}");
            let (sample, msg) = measure(
                s.command(&[
                    "inject",
                    "--state",
                    &s.state,
                    "--id",
                    &id,
                    "--content",
                    &content,
                ]),
                None,
            );
            if !sample.ok {
                eprintln!("brain-bench: {} inject failed: {msg}", s.name);
            }
            r.inject.push(sample);
            let (sample, msg) = measure(
                s.command(&[
                    "query", &a.query, "--state", &s.state, "--top", "10", "--json",
                ]),
                None,
            );
            if !sample.ok {
                eprintln!("brain-bench: {} query failed: {msg}", s.name);
            }
            r.query.push(sample);
            if !s.reference {
                let ws_s = ws.display().to_string();
                let (sample, msg) = measure(
                    s.command(&["sync", "--state", &s.state, "--workspace", &ws_s]),
                    None,
                );
                r.sync_one_changed.push(sample);
                r.sync_output = msg.trim().to_string();
            }
            eprintln!(
                "brain-bench: round {round} {}: learn {:.3} s, inject {:.3} s, query {:.3} s",
                s.name,
                r.learn.last().map_or(0.0, |x| x.seconds),
                r.inject.last().map_or(0.0, |x| x.seconds),
                r.query.last().map_or(0.0, |x| x.seconds),
            );
        }
    }
    for (s, r) in systems.iter().zip(results.iter_mut()) {
        if s.reference {
            continue;
        }
        if let Some((start, times, _, shutdown)) = daemon(s, a.daemon_queries, &a.query, None) {
            r.daemon_start_s = Some(start);
            r.daemon_query_ms = times;
            r.daemon_shutdown_s = Some(shutdown);
        }
        if let (Some(seeding), "ours") = (&a.compare_seeding, s.name) {
            let queries = 2 * a.daemon_queries;
            if let Some((_, default, other, _)) = daemon(s, queries, &a.query, Some(seeding)) {
                r.daemon_paired_default_ms = default;
                r.daemon_compare_query_ms = other;
            }
        }
        if a.compare_neurogenesis && s.name == "ours" {
            let queries = 2 * a.daemon_queries;
            let off = Some(r#", "neurogenesis": "off""#);
            if let Some((_, on, off, _)) = daemon_with(s, queries, &a.query, off) {
                r.daemon_neurogenesis_on_ms = on;
                r.daemon_neurogenesis_off_ms = off;
            }
        }
    }
    std::fs::write(&changed, &original).expect("restore the changed file");
    let loads_after = load_average();
    // the report
    let med = |v: &[Sample]| median(v.iter().filter(|x| x.ok).map(|x| x.seconds).collect());
    let mut table = String::new();
    table.push_str(&format!(
        "| step | {} |\n|---|{}\n",
        systems
            .iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(systems.len())
    ));
    let row = |label: &str, f: &dyn Fn(&Results) -> String| {
        format!(
            "| {label} | {} |\n",
            results.iter().map(f).collect::<Vec<_>>().join(" | ")
        )
    };
    let secs = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{v:.3} s"));
    table.push_str(&row("init", &|r| {
        format!(
            "{} ({} MB RAM)",
            secs(med(&r.init)),
            r.init.first().map_or(0, |x| x.max_rss_kb / 1024)
        )
    }));
    table.push_str(&row(
        "brain on disk after init / after the first learn",
        &|r| {
            format!(
                "{:.1} MB / {:.1} MB",
                r.size_after_init as f64 / 1e6,
                r.size_after_learn as f64 / 1e6
            )
        },
    ));
    table.push_str(&row("learn (median)", &|r| secs(med(&r.learn))));
    table.push_str(&row("inject (median)", &|r| secs(med(&r.inject))));
    table.push_str(&row("query (median)", &|r| secs(med(&r.query))));
    table.push_str(&row("first sync after init", &|r| {
        secs(r.first_sync.map(|x| x.seconds))
    }));
    table.push_str(&row("sync after one changed file (median)", &|r| {
        secs(med(&r.sync_one_changed))
    }));
    table.push_str(&row(
        "daemon start / query p50 / p99 / shutdown",
        &|r| match r.daemon_start_s {
            Some(st) => format!(
                "{:.3} s / {:.2} ms / {:.2} ms / {:.3} s",
                st,
                median(r.daemon_query_ms.clone()).unwrap_or(0.0),
                percentile(r.daemon_query_ms.clone(), 99.0).unwrap_or(0.0),
                r.daemon_shutdown_s.unwrap_or(0.0)
            ),
            None => "–".into(),
        },
    ));
    if let Some(seeding) = &a.compare_seeding {
        table.push_str(&row(
            &format!("daemon query p50 / p99, alternated: default / seeding {seeding}"),
            &|r| {
                format!(
                    "{} vs {}",
                    p50_p99(&r.daemon_paired_default_ms),
                    p50_p99(&r.daemon_compare_query_ms)
                )
            },
        ));
    }
    if a.compare_neurogenesis {
        table.push_str(&row(
            "daemon query p50 / p99, alternated: neurogenesis on / off",
            &|r| {
                format!(
                    "{} vs {}",
                    p50_p99(&r.daemon_neurogenesis_on_ms),
                    p50_p99(&r.daemon_neurogenesis_off_ms)
                )
            },
        ));
    }
    println!("{table}");
    println!("load average before: {loads_before}; after: {loads_after}");
    let doc = serde_json::json!({
        "workspace": a.label,
        "embedder": a.embedder,
        "runs": a.runs,
        "reference_runs": a.reference_runs,
        "load_average_before": loads_before,
        "load_average_after": loads_after,
        "systems": systems.iter().map(|s| s.name).collect::<Vec<_>>(),
        "results": results,
        "table": table,
    });
    if let Err(e) = pyformat::io::write_atomic(
        &a.output,
        serde_json::to_string_pretty(&doc)
            .unwrap_or_default()
            .as_bytes(),
    ) {
        eprintln!("brain-bench: {e}");
        std::process::exit(1);
    }
}

fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("create");
    for e in std::fs::read_dir(src).expect("read the folder").flatten() {
        let p = e.path();
        let to = dst.join(e.file_name());
        match e.file_type() {
            Ok(t) if t.is_dir() => copy_tree(&p, &to),
            Ok(t) if t.is_file() => {
                std::fs::copy(&p, &to).expect("copy");
            }
            _ => {}
        }
    }
}
