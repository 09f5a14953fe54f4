//! `bench team-load`: the full load and fault runs of issue 30 item 4 against the
//! `crabpath` binary, on loopback, bounded in count and time. The load, the read-back
//! and the kill rounds are [`crabpath_mcp::load`]'s, which the short runs of `cargo
//! test` (`crabpath-cli --test it mcp_load::`) use too.
//!
//! 1. `--brains` brains, each `crabpath init --workspace W` (hash-v1, the default), in
//!    one served directory, one write token each; `crabpath mcp --brains DIR --http
//!    127.0.0.1:0`.
//! 2. `--clients` HTTP MCP clients for `--seconds`, mixed query / feedback / teach /
//!    remember: throughput, p50/p99, errors; then every acknowledged write read back
//!    from its own brain (lost) and from the others (leaked).
//! 3. `--kills` rounds of teaching writers with the server killed (SIGKILL) at a
//!    seeded moment and restarted; then every acknowledged teach read back, and
//!    `crabpath doctor` of every brain.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use crabpath_mcp::load;

use crate::error::{Error, Result};
use crate::team_proc::{kill, run, start};

/// `bench team-load` options.
#[derive(Debug, Args)]
pub struct TeamLoadArgs {
    /// The folder every brain is built from (`crabpath init --workspace`).
    #[arg(long, value_name = "DIR")]
    pub workspace: PathBuf,
    /// Brains served.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub brains: usize,
    /// Concurrent clients of the mixed load (client c on brain c mod --brains).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub clients: usize,
    /// Length of the mixed load, in seconds.
    #[arg(long, value_name = "S", default_value_t = 60)]
    pub seconds: u64,
    /// Kill -9 rounds (0: no fault run).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub kills: usize,
    /// Teaching writers per brain in each kill round.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub kill_writers: usize,
    /// Earliest kill, in ms after the writers start; the kill comes uniformly within
    /// the next --kill-span ms.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub kill_after: u64,
    /// Width of the window the kill moment is drawn from, in ms.
    #[arg(long, value_name = "MS", default_value_t = 1800)]
    pub kill_span: u64,
    /// Seed of the load mix and of the kill moments.
    #[arg(long, default_value_t = 2026)]
    pub seed: u64,
    /// The crabpath binary. Default: `crabpath` beside this bench binary.
    #[arg(long, value_name = "FILE")]
    pub crabpath: Option<PathBuf>,
    /// Also open this many idle connections after the mixed load and time a client's
    /// queries while they are held (0: not run).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub idle: usize,
    /// Also run the full-disk fault on the small filesystem mounted at DIR (e.g. `mount
    /// -t tmpfs -o size=64m tmpfs DIR`; --workspace must fit in it about 3 times).
    #[arg(long, value_name = "DIR")]
    pub full_disk: Option<PathBuf>,
    /// Where the brains are built (default: a temporary directory, removed after).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
}

/// Runs the load and fault runs; the report, in Markdown lines.
pub fn cmd_team_load(a: &TeamLoadArgs) -> Result<String> {
    if a.brains == 0 || a.clients == 0 {
        return Err(Error::Usage(
            "--brains and --clients must be at least 1".into(),
        ));
    }
    let here = std::env::current_exe().map_err(|e| Error::Internal(format!("current_exe: {e}")))?;
    let bin = a.crabpath.clone().unwrap_or_else(|| {
        here.with_file_name(format!("crabpath{}", std::env::consts::EXE_SUFFIX))
    });
    let bin = std::path::absolute(&bin).unwrap_or(bin);
    let ws = std::path::absolute(&a.workspace).unwrap_or_else(|_| a.workspace.clone());
    let tmp = tempfile::tempdir().map_err(|e| Error::Io {
        path: std::env::temp_dir(),
        source: e,
    })?;
    let dir = a.work.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).map_err(|e| Error::Io {
        path: dir.clone(),
        source: e,
    })?;
    let ws = ws.to_string_lossy().into_owned();
    let names: Vec<String> = (0..a.brains).map(|i| format!("b{i}")).collect();
    let mut tokens = Vec::new();
    for n in &names {
        let out = format!("served/{n}");
        run(&bin, &dir, &["init", "--workspace", &ws, "--output", &out])?;
        let t = run(
            &bin,
            &dir,
            &[
                "token", "add", "--brains", "served", "--brain", n, "--role", "write",
            ],
        )?;
        tokens.push(t.trim().to_string());
    }
    let mut report = format!(
        "team-load: {} brains of {ws} (crabpath init), seed {}\n",
        a.brains, a.seed
    );

    let (child, addr) = start(&bin, &dir)?;
    let m = load::mixed(
        &addr,
        &tokens,
        a.clients,
        Duration::from_secs(a.seconds),
        a.seed,
    );
    let (lost, leaked) = load::misplaced(&addr, &tokens, &m.written);
    let idle = (a.idle > 0).then(|| crate::team_faults::idle(&addr, &tokens[0], a.idle));
    kill(child);
    report.push_str(&format!(
        "mixed load: {} clients on {} brains for {} s: {}; lost {}, leaked {}\n",
        a.clients,
        a.brains,
        a.seconds,
        m.summary(),
        lost.len(),
        leaked.len()
    ));
    for e in m.errors.iter().take(3) {
        report.push_str(&format!("  error: {e}\n"));
    }

    report.push_str(&idle.unwrap_or_default());

    if a.kills > 0 {
        let mut failed = None;
        let k = load::kill_rounds(
            a.kills,
            a.kill_writers,
            &tokens,
            a.seed,
            (a.kill_after, a.kill_span),
            || match start(&bin, &dir) {
                Ok((child, addr)) => (addr, Box::new(move || kill(child))),
                Err(e) => {
                    failed = Some(e.to_string());
                    (String::new(), Box::new(|| {}))
                }
            },
        );
        if let Some(e) = failed {
            return Err(Error::Usage(format!("a restart failed: {e}")));
        }
        let (child, addr) = start(&bin, &dir)?;
        let (lost, _) = load::misplaced(&addr, &tokens, &k.acked);
        kill(child);
        let mut doctor = Vec::new();
        for n in &names {
            let ok = run(&bin, &dir, &["doctor", "--state", &format!("served/{n}")]).is_ok();
            doctor.push(format!("{n} {}", if ok { "ok" } else { "FAILED" }));
        }
        let mut ms = k.moments_ms.clone();
        ms.sort_unstable();
        report.push_str(&format!(
            "kill -9: {} rounds ({} writers per brain), kills at {}-{} ms (median {} ms) after the writers started; {} acknowledged teaches, {} lost; doctor: {}\n",
            a.kills,
            a.kill_writers,
            ms.first().unwrap_or(&0),
            ms.last().unwrap_or(&0),
            ms.get(ms.len() / 2).unwrap_or(&0),
            k.acked.len(),
            lost.len(),
            doctor.join(", ")
        ));
    }
    if let Some(d) = &a.full_disk {
        report.push_str(&crate::team_faults::full_disk(&bin, &ws, d)?);
    }
    Ok(report)
}
