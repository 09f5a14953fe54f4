//! `bench peers` (issue 29): peer memories side by side with CrabPath on LoCoMo, each
//! driven through the protocol agents use (MCP over stdio, the `rmcp` client), in one run.
//!
//! * [`adapter`]: one TOML file per system (`benchmarks/peers/<system>.toml`): how to start
//!   its server, which tool stores a turn and which searches, and how a result maps back to
//!   turn ids; checked when read, a bad file is one line naming the file and the field;
//! * [`client`]: a server's setup commands, its process, the MCP session, tool calls with a
//!   timeout, its peak RSS;
//! * [`run`]: one system through every conversation (fresh `${WORK}` and server each);
//! * [`record`]: the per-question record beside `peers.json`, from which its numbers are
//!   derived and `bench check` re-derives them;
//! * [`report`]: the paper's recall by category, characters, throughput, latency, RSS, and
//!   CrabPath against each peer on recall@10, as `peers.json` and `PEERS.md`.

pub mod adapter;
pub mod client;
pub mod record;
pub mod report;
pub mod run;

use std::path::{Path, PathBuf};

use adapter::Adapter;
use client::Env;

use crate::catalog::{self, Dataset, VariantArg};
use crate::data::locate::{resolve_input, DataDir};
use crate::error::{Error, Result};

/// Where the adapter files are (relative to the repository root).
pub const ADAPTER_DIR: &str = "benchmarks/peers";

/// Where the report goes by default.
pub const DEFAULT_OUT: &str = "results/bench/peers";

/// Results asked of every search (issue 29: "a result count of 50 where the tool takes one").
pub const DEFAULT_LIMIT: usize = 50;

/// The dataset `bench peers` runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PeersDataset {
    /// LoCoMo (Maharana et al., ACL 2024): 10 conversations, 1,986 questions.
    Locomo,
}

/// Arguments of `bench peers`.
#[derive(Debug, Clone, clap::Args)]
pub struct PeersArgs {
    /// The benchmark.
    #[arg(long, value_enum)]
    pub dataset: PeersDataset,

    /// Read this LoCoMo file (plain JSON or gzip) instead of locomo/locomo10.json(.gz) in
    /// the data directory (e.g. the fixture datasets/fixtures/locomo_tiny.json).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// An adapter file (repeat for several systems, run in the order given). Default:
    /// every `*.toml` of benchmarks/peers/, crabpath.toml first, then by name.
    #[arg(long = "adapter", value_name = "FILE")]
    pub adapters: Vec<PathBuf>,

    /// The install cache of the peers (`${PEERS}`; benchmarks/peers/install.sh fills it).
    #[arg(
        long,
        value_name = "DIR",
        env = "CRABPATH_PEERS_DIR",
        default_value = "target/peers"
    )]
    pub peers_dir: PathBuf,

    /// The crabpath binary (`${CRABPATH}`). Default: `crabpath` beside this bench binary
    /// (cargo builds both into the same target directory).
    #[arg(long, value_name = "FILE")]
    pub crabpath: Option<PathBuf>,

    /// The all-MiniLM-L6-v2 folder (`${MODEL_DIR}`). Default: $CRABPATH_MODEL_DIR, else
    /// datasets/models/all-MiniLM-L6-v2 (where `fetch-model` puts it).
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,

    /// Results asked of each search (`${limit}`).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,

    /// Where each conversation's fresh `${WORK}` directory is made (default: the system's
    /// temporary directory); removed after the conversation.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    /// Directory of peers.json, PEERS.md and the per-question record peers-questions.txt.xz
    /// (created).
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    pub out: PathBuf,

    /// `--bootstrap`, `--bootstrap-seed`, `--permutations`.
    #[command(flatten)]
    pub stats: crate::stat_args::StatArgs,
}

/// The adapter files: `given`, else every `*.toml` of `dir`, `crabpath.toml` first, then
/// by name.
pub fn adapter_files(given: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>> {
    if !given.is_empty() {
        return Ok(given.to_vec());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort_by_key(|p| (p.file_stem().is_none_or(|s| s != "crabpath"), p.clone()));
    Ok(files)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// `bench peers`: every adapter's system through every conversation, then the report
/// written to `--out`; returns the Markdown. A system that fails is reported as such; the
/// command fails only on bad input (data, adapter files, output).
pub fn cmd_peers(data_dir: &DataDir, a: &PeersArgs) -> Result<String> {
    // A server that dies leaves a closed pipe: writing the next request must be an error
    // of that system (EPIPE), not the signal that ends this process (main restores
    // SIGPIPE's default for `| head`).
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" installs no handler; no other
    // thread changes signal dispositions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let file = catalog::known_file(Dataset::Locomo, VariantArg::Full)?;
    let path = resolve_input(a.input.as_deref(), data_dir, file)?;
    let data = crate::locomo::data::load(&path)?;
    let (file_sha, _) = crate::engine::file_and_content_sha256(&path)?;
    let adapters = adapter_files(&a.adapters, Path::new(ADAPTER_DIR))?
        .iter()
        .map(|p| Adapter::read(p))
        .collect::<Result<Vec<_>>>()?;
    if adapters.is_empty() {
        return Err(Error::Usage(format!(
            "no adapter files: none given and none in {ADAPTER_DIR}"
        )));
    }
    let here = std::env::current_exe().map_err(|e| Error::Internal(format!("current_exe: {e}")))?;
    let crabpath = a.crabpath.clone().unwrap_or_else(|| {
        here.with_file_name(format!("crabpath{}", std::env::consts::EXE_SUFFIX))
    });
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let env = Env {
        peers: absolute(&a.peers_dir),
        crabpath: absolute(&crabpath),
        model_dir: absolute(&crabpath_embed::model::resolve_model_dir(
            a.model_dir.as_deref(),
        )),
    };
    let work_root = a.work_dir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&work_root).map_err(|e| Error::io(&work_root, e))?;
    let mut runs = Vec::new();
    for ad in &adapters {
        eprintln!("bench peers: {} ({})", ad.name, file_name(&ad.path));
        let r = run::run_system(ad, &env, &data, a.limit, &work_root);
        match &r.failure {
            Some((c, e)) => eprintln!("bench peers: {} FAILED in {c}: {e}", ad.name),
            None => eprintln!("bench peers: {} done in {:.1} s", ad.name, r.seconds),
        }
        runs.push(r);
    }
    let mut command = vec!["bench peers --dataset locomo".to_string()];
    if let Some(i) = &a.input {
        command.push(format!("--input {}", file_name(i)));
    }
    for ad in &adapters {
        // a committed adapter by its path in the repository, another as given
        let committed = ad.path.parent().is_some_and(|d| d.ends_with(ADAPTER_DIR));
        command.push(match committed {
            true => format!("--adapter {ADAPTER_DIR}/{}", file_name(&ad.path)),
            false => format!("--adapter {}", ad.path.display()),
        });
    }
    if a.limit != DEFAULT_LIMIT {
        command.push(format!("--limit {}", a.limit));
    }
    command.push(format!(
        "--bootstrap {} --bootstrap-seed {} --permutations {}",
        a.stats.bootstrap, a.stats.bootstrap_seed, a.stats.permutations
    ));
    let meta = report::Meta {
        command: command.join(" "),
        input: (file_name(&path), file_sha),
        limit: a.limit,
        tests: (
            a.stats.permutations,
            a.stats.bootstrap,
            a.stats.bootstrap_seed,
        ),
    };
    let rec = record::Record::from_runs(&data, &runs)?;
    let (json, md) = report::render(&data, &runs, &rec, &meta);
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io(&a.out, e))?;
    rec.write(&a.out.join(record::RECORD_FILE))?;
    let jp = a.out.join("peers.json");
    let text = serde_json::to_string_pretty(&json)
        .map_err(|e| Error::Internal(format!("peers.json: {e}")))?;
    std::fs::write(&jp, text + "\n").map_err(|e| Error::io(&jp, e))?;
    let mp = a.out.join("PEERS.md");
    std::fs::write(&mp, &md).map_err(|e| Error::io(&mp, e))?;
    Ok(md)
}
