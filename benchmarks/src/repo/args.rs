//! The options of `bench repo` ([`RepoArgs`]): the flag names, defaults and meanings of the
//! reference's `benchmarks/run_benchmark.py`, plus the fair protocol's switches.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// `--profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// The reference's semantics, quirks included (walk order, `.gitignore` handling,
    /// chunking, traversal and learning).
    Paper,
    /// The core's corrected semantics (git's `.gitignore` rules, sorted directories,
    /// learning on traversed steps, ...).
    Corrected,
}

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// The reference's protocol (as-is corpus, fixed +1 outcome, online evaluation).
    Paper,
    /// Fair protocol (clean corpus, real outcome, held-out evaluation, baselines,
    /// budget-matched scores, paired tests).
    Clean,
}

/// `--corpus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CorpusArg {
    /// Every file the walk finds, the queries file included (the reference).
    AsIs,
    /// The queries file and the benchmark's outputs (`--out`,
    /// `benchmarks/results.json`) left out.
    Clean,
}

/// `--outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutcomeArg {
    /// +1 after every query (the reference).
    Fixed,
    /// +1 if a relevant file is among the method's first `--outcome-k` files, else −1.
    Relevance,
}

/// `--evaluation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvaluationArg {
    /// One pass in file order, each query scored before it is learned from (the
    /// reference).
    Online,
    /// K-fold: learn on the other folds, score a fold on the frozen graph.
    Heldout,
}

/// `--dense`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DenseArg {
    /// all-MiniLM-L6-v2 (needs the model: `bench fetch-model`).
    Minilm,
    /// No dense baseline.
    None,
}

const AFTER_HELP: &str = "\
Reproducing the paper (seed 002, Tables 24 and 25): the workspace is the reference repository
at commit 70f0065 (datasets/crabpath-repo/README.md says how to fetch and verify it):
  bench repo --workspace <checkout> --queries <checkout>/benchmarks/queries.json \\
      --expect-tree 70f0065
The fair version of the same benchmark:
  bench repo --workspace <checkout> --queries <checkout>/benchmarks/queries.json --protocol clean

Exit status: 0 success; with --profile paper 1 for the input errors the reference also stops
on (missing or malformed queries file, missing workspace), else 2; 2 for usage errors and a
--expect-tree mismatch; 1 for internal failures.";

/// Arguments of `bench repo` (flag names, defaults and meanings of the reference's
/// `benchmarks/run_benchmark.py`, plus the fair protocol's).
#[derive(Debug, Clone, Args)]
#[command(after_help = AFTER_HELP, allow_negative_numbers = true)]
pub struct RepoArgs {
    /// Workspace directory to split (the corpus).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workspace: PathBuf,

    /// Query definitions: a JSON array of `{"query": ..., "relevant": [files]}` (default:
    /// `<workspace>/benchmarks/queries.json`).
    #[arg(long, visible_alias = "queries-path", value_name = "FILE")]
    pub queries: Option<String>,

    /// Top-k for keyword overlap (Python slice: 0 = none, -k = all but the last k).
    #[arg(long, value_name = "K", default_value_t = 20)]
    pub seed_top_k: i64,

    /// Top-k for hash similarity search (and the BM25 and MiniLM baselines).
    #[arg(long, value_name = "K", default_value_t = 20)]
    pub hash_top_k: i64,

    /// Seed top-k for traverse (hash-seeded methods; the beam keeps at most
    /// --traverse-beam-width of them).
    #[arg(long, value_name = "K", default_value_t = 8)]
    pub traverse_seed_k: i64,

    /// Traverse max_hops (methods 3–6).
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub traverse_max_hops: i64,

    /// Traverse beam_width (all traversal methods).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub traverse_beam_width: i64,

    /// Replay traverse max_hops (keyword-seeded methods 7–8).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub replay_max_hops: i64,

    /// Core semantics: paper = the reference exactly; corrected = its bugs fixed.
    #[arg(long, value_enum, default_value_t = ProfileArg::Paper)]
    pub profile: ProfileArg,

    /// Evaluation design [default: paper with --profile paper, else clean].
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolArg>,

    /// Which files form the corpus [default: as-is (paper protocol), clean (clean)].
    #[arg(long, value_enum)]
    pub corpus: Option<CorpusArg>,

    /// What learning methods learn from [default: fixed (paper), relevance (clean)].
    #[arg(long, value_enum)]
    pub outcome: Option<OutcomeArg>,

    /// Files inspected by --outcome relevance.
    #[arg(long, value_name = "K", default_value_t = 5)]
    pub outcome_k: usize,

    /// How learning methods are scored [default: online (paper), heldout (clean)].
    #[arg(long, value_enum)]
    pub evaluation: Option<EvaluationArg>,

    /// Folds of --evaluation heldout.
    #[arg(long, value_name = "K", default_value_t = 5)]
    pub folds: usize,

    /// Random fold assignments of --evaluation heldout (scores are averaged over them).
    #[arg(long, value_name = "R", default_value_t = 10)]
    pub repetitions: usize,

    /// Seed of the fold shuffles (ChaCha8; repetition r uses SEED + r).
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub seed: u64,

    /// Dense baseline of the clean protocol.
    #[arg(long, value_enum, default_value_t = DenseArg::Minilm)]
    pub dense: DenseArg,

    /// Model and cache locations (--dense minilm).
    #[command(flatten)]
    pub model: crate::embed::ModelOpts,

    /// Also leave out files matching PATTERN (a name, a `dir/` prefix or a glob over the
    /// relative path, as the reference's split exclusions); repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub exclude: Vec<String>,

    /// Paired bootstrap resamples (clean protocol; 0 = none).
    #[arg(long, value_name = "B", default_value_t = 10_000)]
    pub bootstrap: usize,

    /// Seed of the bootstrap's ChaCha8 generator.
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub bootstrap_seed: u64,

    /// Stop unless the workspace's git tree hash is this tree, or the tree of this
    /// known commit (70f0065 = the paper's tables, 134c676 = v11.2.1).
    #[arg(long, value_name = "COMMIT|TREE")]
    pub expect_tree: Option<String>,

    /// Results JSON [default: benchmarks/results.json under the current directory, as
    /// the reference].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Also write the workspace graph (seed 002 Fig. 3) to FILE: the split graph's
    /// nodes with their files and its edges, and the edges of the graph
    /// `crabpath_traverse` learned over the queries (weights to 4 decimals);
    /// gzip-compressed when FILE ends in `.gz`. Methods run held-out (the clean
    /// protocol) learn no single graph: the split graph's edges only then.
    #[arg(long, value_name = "FILE")]
    pub graph_out: Option<PathBuf>,

    /// Write this text as `workspace` in the JSON and on the first line instead of the
    /// absolute path (for results committed from any machine).
    #[arg(long, value_name = "TEXT")]
    pub workspace_label: Option<String>,

    /// Write 0 for every timing field and the epoch for `generated_at`, so that two runs
    /// give the same bytes.
    #[arg(long)]
    pub no_timings: bool,

    /// Do not draw progress bars.
    #[arg(long)]
    pub no_progress: bool,

    /// Worker threads of the held-out evaluation and the embedders (0 = one per core).
    /// Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}
