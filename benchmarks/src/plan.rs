//! What a run will do: its options ([`RunArgs`]), resolved into a [`Plan`] before any data
//! is read, with its evaluation [`Schedule`] or held-out design ([`Heldout`]), the names of
//! its output files ([`Names`]) and the command line that reproduces it
//! ([`Plan::command_line`], parsed back by [`RunArgs::from_command_line`]).
//!
//! The plan is plain data: every traversal and learning parameter the core receives (profile
//! switches included), the methods to run, which queries learn and which are scored. A
//! protocol ([`crate::protocol`]) executes it and its report records it, so that `bench
//! check` can re-run a committed result from the result file alone.

use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};
use crabpath::{LearningConfig, PgArgs, Profile, RouterConfig, RouterKind, TraversalConfig};

use crate::build::GraphBuilder;
use crate::catalog::{self, Dataset, KnownFile, VariantArg};
use crate::dense::{DenseSearch, DenseSearchArg};
use crate::embed::{EmbedderArg, ModelOpts};
use crate::error::{Error, Result};
use crate::methods::{routed_methods, Factor, Method, Ranking, SeedSource, METHODS};
use crate::schedule::Schedule;
use crate::splits::{
    Heldout, HeldoutKind, DEFAULT_DEV_FRACTION, DEFAULT_SPLITS, DEFAULT_TRAIN_FRACTION,
};

/// `--protocol`: which edges the graph may hold and, for the held-out protocols, which
/// queries are learned from and which are scored (`benchmarks/README.md`, "Protocols";
/// [`crate::standard`], [`crate::heldout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// The reference protocol exactly, label-derived 0.5 edges included.
    Paper,
    /// No edge built from any label: the 0.5 edges are dropped, all else as paper.
    Clean,
    /// Held out, related: the clean graph; per random split (--splits, --split-seed) the
    /// learning methods learn from the train queries (the first --train-fraction of a
    /// random order, each scored before its own update but never reported) and are frozen;
    /// scored are the other queries that share at least one relevant document with some
    /// train query. What leaks: only that relation (a test query's documents may have
    /// been rewarded while learning from a train query that needs them too); no test
    /// query is ever learned from, and no edge comes from a label. Static methods are
    /// scored on the same test queries; results are averaged over splits.
    Related,
    /// Held out, unrelated (the control of `related`): the same splits, scored are the test
    /// queries that share no relevant document with any train query, so nothing a test
    /// query needs was rewarded by name.
    Unrelated,
    /// Repeat (memorisation): the clean graph; per split every query is asked in a random
    /// order, scored (first ask) and learned from; then every query is asked again on the
    /// frozen graph (re-ask, the reported score). The re-ask leaks by design: it measures
    /// how much of its own outcome the graph remembers.
    Repeat,
    /// LoCoMo only (`--dataset locomo`): the product's path — every conversation built by
    /// `crabpath init --conversation`'s code, every question asked through `Brain::query`
    /// with limit 50, scored by the LoCoMo paper's definition (benchmarks/README.md,
    /// "LoCoMo through the product", issue 28).
    Product,
}

impl ProtocolArg {
    /// `paper` / `clean` / `related` / `unrelated` / `repeat` / `product`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolArg::Paper => "paper",
            ProtocolArg::Clean => "clean",
            ProtocolArg::Related => "related",
            ProtocolArg::Unrelated => "unrelated",
            ProtocolArg::Repeat => "repeat",
            ProtocolArg::Product => "product",
        }
    }

    /// The held-out protocol, if this is one.
    pub fn heldout(self) -> Option<HeldoutKind> {
        match self {
            ProtocolArg::Paper | ProtocolArg::Clean | ProtocolArg::Product => None,
            ProtocolArg::Related => Some(HeldoutKind::Related),
            ProtocolArg::Unrelated => Some(HeldoutKind::Unrelated),
            ProtocolArg::Repeat => Some(HeldoutKind::Repeat),
        }
    }
}

/// `--router`: a query-aware router of the habitual edges (`crabpath::router`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RouterArg {
    /// Logit = edge weight (+ relevance): the weight-only rule, keeping the
    /// --router-top-k heaviest habitual offers per source.
    Edge,
    /// Logit = weight + α·cosine(query, target).
    #[value(name = "edge+sim")]
    EdgeSim,
    /// Logit = weight + β(s)·α·cosine(query, target), β(s) the normalised entropy of the
    /// source's weight softmax at --confidence-temperature: the graph decides where its
    /// weights are confident, the query elsewhere.
    Adaptive,
}

impl RouterArg {
    /// The core's kind.
    pub fn kind(self) -> RouterKind {
        match self {
            RouterArg::Edge => RouterKind::Edge,
            RouterArg::EdgeSim => RouterKind::EdgeSim,
            RouterArg::Adaptive => RouterKind::Adaptive,
        }
    }
}

/// `--graph`: the label-free base edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphArg {
    /// The reference's label-free edges (HotPotQA same-question context 0.3; MultiHop-RAG
    /// same-source/category 0.35).
    Reference,
    /// Paragraph A → B when A's text mentions B's title (whole word, case-insensitive), 0.3.
    TitleMentions,
    /// Each node → its --knn-k most cosine-similar nodes, 0.3. Exact, O(nodes² · dim): about
    /// 20 s for the 10,785 nodes of the 1100-question sample with minilm (384 dimensions) on 2
    /// cores, proportionally longer with hash-v1's 1024.
    Knn,
}

/// `--core-profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// Reference semantics, bugs included (what reproduces the reference numbers).
    Paper,
    /// The core's corrected semantics (crabpath::Profile::Corrected).
    Corrected,
}

impl ProfileArg {
    /// The core's profile.
    pub fn profile(self) -> Profile {
        match self {
            ProfileArg::Paper => Profile::Paper,
            ProfileArg::Corrected => Profile::Corrected,
        }
    }
}

/// Which rows a run reads (shared by `bench run` and `bench embed`).
#[derive(Debug, Clone, Args)]
pub struct DatasetArgs {
    /// Benchmark to run.
    #[arg(long, value_enum)]
    pub dataset: Dataset,

    /// Which file of the dataset to look for in the data directory (ignored with --input).
    #[arg(long, value_enum, default_value_t = VariantArg::Full)]
    pub variant: VariantArg,

    /// Read this dataset file (plain JSON or gzip) instead of looking in the data directory.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Number of queries, as the reference selects them (HotPotQA: first N rows; MultiHop-RAG:
    /// first N non-null queries); 0 = all [default: the reference's 500 / 1000].
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

impl DatasetArgs {
    /// The effective `--limit` (0 = all rows).
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or_else(|| self.dataset.default_limit())
    }
}

/// Default of `--seed-top-k` (the reference's `DEFAULT_SEED_TOP_K`).
pub const DEFAULT_SEED_TOP_K: usize = 8;
/// Default of `--embed-top-k` (the reference's `DEFAULT_EMBED_TOP_K`).
pub const DEFAULT_EMBED_TOP_K: usize = 10;
/// Default of `--max-hops` (the reference's `DEFAULT_MAX_HOPS`).
pub const DEFAULT_MAX_HOPS: usize = 3;
/// Default of `--beam-width` (the reference's `DEFAULT_BEAM_WIDTH`).
pub const DEFAULT_BEAM_WIDTH: usize = 4;
/// Default of `--lr` (the reference's `LEARNING_CONFIG`).
pub const DEFAULT_LR: f64 = 0.3;
/// Default of `--discount` (the reference's `LEARNING_CONFIG`).
pub const DEFAULT_DISCOUNT: f64 = 0.9;
/// Default of `--knn-k`.
pub const DEFAULT_KNN_K: usize = 5;
/// Temperature and baseline of the reference's `apply_outcome_pg` call (its scripts pass
/// `temperature=1.0` and no baseline).
pub const PG_CALL: PgArgs = PgArgs {
    baseline: 0.0,
    temperature: 1.0,
};

/// Arguments of `bench run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Dataset, file and rows.
    #[command(flatten)]
    pub data: DatasetArgs,

    /// paper = the reference protocol with its label-derived edges; clean = those dropped;
    /// related / unrelated / repeat = the held-out protocols on the clean graph (each
    /// described below; see also --splits). The held-out protocols score only the test pool
    /// (every query outside the --dev-fraction dev pool) and write no run files.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Paper)]
    pub protocol: ProtocolArg,

    /// Route habitual edges with these routers (comma-separated): the traversal methods
    /// then run once per router, named `<method>@<router>` (crabpath_cold@edge+sim, ...),
    /// instead of the router-less traversal; their policy gradient is the router's own
    /// (apply_outcome_router_pg), with the temperature and baseline of the learning
    /// configuration (--core-profile corrected reads them from it).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ROUTER")]
    pub router: Vec<RouterArg>,

    /// α, the weight of the query-similarity term of edge+sim and adaptive (default:
    /// crabpath::router::RouterConfig's).
    #[arg(long, value_name = "X", default_value_t = RouterConfig::default().alpha)]
    pub router_alpha: f64,

    /// Habitual offers a router keeps per source (default: RouterConfig's).
    #[arg(long, value_name = "K", default_value_t = RouterConfig::default().top_k)]
    pub router_top_k: usize,

    /// τ_c of the adaptive router's confidence softmax (default: RouterConfig's).
    #[arg(long, value_name = "X", default_value_t = RouterConfig::default().confidence_temperature)]
    pub confidence_temperature: f64,

    /// Random splits of the held-out protocols (each a ChaCha8 permutation of the queries,
    /// stream i of --split-seed; every method is scored on the same splits).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SPLITS)]
    pub splits: usize,

    /// Seed of the held-out splits.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub split_seed: u64,

    /// Share of the queries in each split's train part (related / unrelated).
    #[arg(long, value_name = "F", default_value_t = DEFAULT_TRAIN_FRACTION)]
    pub train_fraction: f64,

    /// Share of the queries set aside, once and for all (a fixed ChaCha8 draw independent
    /// of --split-seed), as the dev pool of the held-out protocols: they may be learned
    /// from but are never scored, except with --dev.
    #[arg(long, value_name = "F", default_value_t = DEFAULT_DEV_FRACTION)]
    pub dev_fraction: f64,

    /// Score the dev pool instead of the test pool (for choosing hyper-parameters; never
    /// used to report a result).
    #[arg(long)]
    pub dev: bool,

    /// Text embedder for nodes and queries: hash-v1 reproduces the reference; minilm is
    /// all-MiniLM-L6-v2 through the embedding cache.
    #[arg(long, value_enum, default_value_t = EmbedderArg::HashV1)]
    pub embedder: EmbedderArg,

    /// Model and cache locations (--embedder minilm).
    #[command(flatten)]
    pub model: ModelOpts,

    /// Label-free base edges of the graph (the paper protocol adds the label edges on top).
    #[arg(long, value_enum, default_value_t = GraphArg::Reference)]
    pub graph: GraphArg,

    /// Neighbours per node for --graph knn.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KNN_K)]
    pub knn_k: usize,

    /// Arithmetic of the cosine search: auto = f64-exact (the reference's bits) for
    /// --protocol paper with hash-v1, f32-tiled (unit f32 vectors, tiled dot products in a fixed order,
    /// tens of times faster; f32 rounding may swap results whose cosines differ by < 1e-6)
    /// for every other run.
    #[arg(long, value_enum, value_name = "PATH", default_value_t = DenseSearchArg::Auto)]
    pub dense_search: DenseSearchArg,

    /// Seeds per traversal (first hits of the cosine search).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_SEED_TOP_K)]
    pub seed_top_k: usize,

    /// Where traversals get their seeds: dense = the first --seed-top-k cosine hits, scored
    /// by cosine (the reference); rrf = the first --seed-top-k nodes of rrf_topk's BM25 +
    /// dense fusion, scored by the fused score rescaled so the first seed has the query's
    /// top cosine (keeps the traversal's thresholds on the dense scale; benchmarks/README.md).
    #[arg(long, value_enum, value_name = "SOURCE", default_value_t = SeedSource::Dense)]
    pub seed_source: SeedSource,

    /// Results of embedding_topk and bm25_topk.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_EMBED_TOP_K)]
    pub embed_top_k: usize,

    /// Traversal max_hops.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_HOPS)]
    pub max_hops: usize,

    /// Traversal beam_width.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BEAM_WIDTH)]
    pub beam_width: usize,

    /// Learning rate of both learning rules.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_LR)]
    pub lr: f64,

    /// Discount of both learning rules.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_DISCOUNT)]
    pub discount: f64,

    /// Core semantics for traversal and learning.
    #[arg(long, value_enum, default_value_t = ProfileArg::Paper)]
    pub core_profile: ProfileArg,

    /// Reproduce the reference's shared edge objects (benchmarks/README.md, defect 2): each
    /// learning method starts from the weights the previous one left on the base graph's
    /// edges. Default: independent deep copies.
    #[arg(long)]
    pub shared_edge_state: bool,

    /// Learn on the first fraction F of the queries (prequentially), freeze the graph, and
    /// score every method on the rest only. Default: prequential over all queries.
    #[arg(long, value_name = "F")]
    pub split: Option<f64>,

    /// `--bootstrap`, `--bootstrap-seed`, `--permutations`.
    #[command(flatten)]
    pub stats: crate::stat_args::StatArgs,

    /// Output JSON path; xz-compressed TREC run files and qrels go to `runs/` beside it,
    /// named by what shapes them, so runs that share a method's output share its file
    /// [default: `results/bench/<file>-<protocol>[-<graph>]-<embedder>[-corrected][-shared]
    /// [-splitF].json`, non-default parameters added to the name].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Leave the wall-clock timings out of the JSON.
    #[arg(long)]
    pub no_timings: bool,

    /// Write no TREC run files or qrels: only the JSON report and the rows' shared
    /// query-id list (`runs/<rows>.queries.xz`, the manifest's).
    #[arg(long)]
    pub no_run_files: bool,

    /// Do not draw progress bars.
    #[arg(long)]
    pub no_progress: bool,

    /// MultiHop-RAG only: run the official retrieval protocol of the benchmark's authors
    /// (simple_retrieval.py, retrieval_evaluate.py) instead of the reference's: the nodes
    /// are the sentence-aware chunks (--chunk-size tokens, llama-index SentenceSplitter
    /// rules) of the articles of this corpus.json, the queries every non-null query (unless
    /// --limit), and the report's `official` block gives Hits@4, Hits@10, MAP@10 and MRR@10
    /// of every method's first 10 chunks against the evidence facts (benchmarks/README.md,
    /// "Official MultiHop-RAG protocol"). No run files are written.
    #[arg(long, value_name = "FILE")]
    pub corpus: Option<PathBuf>,

    /// Chunk budget in tokens of the official protocol (--corpus), metadata included.
    #[arg(long, value_name = "N", default_value_t = crate::chunk::CHUNK_SIZE)]
    pub chunk_size: usize,

    /// Most tokens of a chunk's last splits carried into the next chunk (--corpus;
    /// llama-index's default).
    #[arg(long, value_name = "N", default_value_t = crate::chunk::CHUNK_OVERLAP)]
    pub chunk_overlap: usize,

    /// Worker threads (0 = rayon's default: one per core). Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

/// `bench run`'s options alone, for parsing a recorded command line.
#[derive(Debug, Parser)]
#[command(name = "bench run", no_binary_name = true)]
struct RecordedRun {
    #[command(flatten)]
    args: RunArgs,
}

/// How every recorded command line starts.
pub const COMMAND_PREFIX: &str = "bench run";

impl RunArgs {
    /// Parses a command line written by [`Plan::command_line`] (`bench run --dataset ...`).
    pub fn from_command_line(line: &str) -> Result<RunArgs> {
        let rest = line
            .strip_prefix(COMMAND_PREFIX)
            .filter(|r| r.is_empty() || r.starts_with(' '))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "recorded command does not start with `{COMMAND_PREFIX}`: {line}"
                ))
            })?;
        RecordedRun::try_parse_from(rest.split_whitespace())
            .map(|r| r.args)
            .map_err(|e| Error::Usage(format!("recorded command `{line}`: {e}")))
    }
}

/// Output file names of a run (see [`Factor`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// Name parts in order; `None` = shapes every output.
    parts: Vec<(Option<Factor>, String)>,
    /// Whether the report's name carries the [`Factor::DenseSearch`] part.
    dense_in_report: bool,
}

impl Names {
    fn joined(&self, keep: impl Fn(Factor) -> bool) -> String {
        self.parts
            .iter()
            .filter(|(f, _)| f.is_none_or(&keep))
            .map(|(_, s)| s.as_str())
            .collect()
    }

    /// Default file name of the JSON report: every part.
    pub fn report(&self) -> String {
        format!(
            "{}.json",
            self.joined(|f| f != Factor::DenseSearch || self.dense_in_report)
        )
    }

    /// The run file of `method`, relative to the report's directory.
    pub fn run(&self, method: &Method) -> String {
        format!(
            "{RUNS_DIR}/{}.{}.run.xz",
            self.joined(|f| method.shaped_by.contains(&f)),
            method.name
        )
    }

    /// The qrels file, relative to the report's directory.
    pub fn qrels(&self) -> String {
        format!("{RUNS_DIR}/{}.qrels.xz", self.joined(|_| false))
    }

    /// The query-id list of the rows (the stream's ids in order, one per line), relative to
    /// the report's directory: named by the rows alone, like the qrels, so that every report
    /// of the same rows shares one file instead of repeating 1,100 ids in its manifest.
    pub fn query_ids(&self) -> String {
        let rows = self.parts.first().map_or("", |(_, s)| s.as_str());
        format!("{RUNS_DIR}/{rows}.queries.xz")
    }
}

/// Sub-directory of a report's directory holding run files and qrels.
pub const RUNS_DIR: &str = "runs";

/// Default directory of `bench run`'s reports (ignored by git; `bench check --update`
/// replaces committed results).
pub const DEFAULT_OUT_DIR: &str = "out/bench";

/// A resolved `bench run` (see the module docs).
#[derive(Debug, Clone)]
pub struct Plan {
    /// The options as given.
    pub args: RunArgs,
    /// The known file `--variant` selects (also the expected file with `--input`).
    pub file: &'static KnownFile,
    /// Label-free base edges.
    pub builder: GraphBuilder,
    /// Whether the label-derived edges are added (`--protocol paper`).
    pub label_edges: bool,
    /// Core profile.
    pub profile: Profile,
    /// Traversal configuration, profile switches applied.
    pub traversal: TraversalConfig,
    /// Learning configuration, profile switches applied.
    pub learning: LearningConfig,
    /// Arguments of every `apply_outcome_pg` call.
    pub pg: PgArgs,
    /// Which queries learn and which are scored.
    pub schedule: Schedule,
    /// The dense-search path.
    pub dense_search: DenseSearch,
    /// The methods, in report order.
    pub methods: Vec<&'static Method>,
    /// Router parameters (each routed method sets its own kind).
    pub router: RouterConfig,
    /// The held-out protocol's resolved parameters (`None` for paper and clean).
    pub heldout: Option<Heldout>,
}

impl Plan {
    /// Checks and resolves the options (no file is read).
    pub fn new(args: &RunArgs) -> Result<Plan> {
        if args.embedder == crate::embed::EmbedderArg::Mpnet {
            return Err(Error::Usage(
                "--embedder mpnet runs with --dataset locomo --protocol product only".into(),
            ));
        }
        let schedule = match args.split {
            None => Schedule::Prequential,
            Some(f) if f > 0.0 && f < 1.0 => Schedule::Split(f),
            Some(f) => return Err(Error::Usage(format!("--split must be in (0, 1), got {f}"))),
        };
        let heldout = match args.protocol.heldout() {
            None => None,
            Some(kind) => {
                if args.split.is_some() || args.shared_edge_state {
                    return Err(Error::Usage(format!(
                        "--protocol {} makes its own splits: --split and --shared-edge-state \
                         do not apply",
                        args.protocol.as_str()
                    )));
                }
                Some(Heldout::new(
                    kind,
                    args.splits,
                    args.split_seed,
                    args.train_fraction,
                    args.dev_fraction,
                    args.dev,
                )?)
            }
        };
        if heldout.is_none() && args.dev {
            return Err(Error::Usage(
                "--dev applies to the held-out protocols (related, unrelated, repeat)".into(),
            ));
        }
        let router = RouterConfig {
            alpha: args.router_alpha,
            top_k: args.router_top_k,
            confidence_temperature: args.confidence_temperature,
            ..RouterConfig::default()
        };
        if !router.alpha.is_finite() || router.top_k == 0 {
            return Err(Error::Usage(format!(
                "--router-alpha must be finite and --router-top-k at least 1, got {} and {}",
                router.alpha, router.top_k
            )));
        }
        let t = router.confidence_temperature;
        if !(t.is_finite() && t > 0.0) {
            return Err(Error::Usage(format!(
                "--confidence-temperature must be finite and > 0, got {t}"
            )));
        }
        let mut routers: Vec<RouterKind> = Vec::new();
        for r in &args.router {
            if !routers.contains(&r.kind()) {
                routers.push(r.kind());
            }
        }
        let methods: Vec<&'static Method> = if routers.is_empty() {
            METHODS.iter().collect()
        } else {
            METHODS
                .iter()
                .flat_map(|m| match m.ranking {
                    Ranking::Traversal { learning, .. } => routers
                        .iter()
                        .map(|&k| {
                            let i = match learning {
                                None => 0,
                                Some(crate::methods::Rule::Heuristic) => 1,
                                Some(crate::methods::Rule::PolicyGradient) => 2,
                            };
                            &routed_methods(k)[i]
                        })
                        .collect::<Vec<_>>(),
                    _ => vec![m],
                })
                .collect()
        };
        let file = catalog::known_file(args.data.dataset, args.data.variant)?;
        let builder = match args.graph {
            GraphArg::Reference => GraphBuilder::Reference,
            GraphArg::TitleMentions => GraphBuilder::TitleMentions,
            GraphArg::Knn => GraphBuilder::Knn(args.knn_k),
        };
        let profile = args.core_profile.profile();
        let traversal = profile.adjust_traversal(TraversalConfig {
            max_hops: args.max_hops,
            beam_width: args.beam_width,
            ..TraversalConfig::default()
        });
        let learning = profile.adjust_learning(LearningConfig {
            learning_rate: args.lr,
            discount: args.discount,
            ..LearningConfig::default()
        });
        Ok(Plan {
            args: args.clone(),
            file,
            builder,
            label_edges: args.protocol == ProtocolArg::Paper,
            router,
            heldout,
            profile,
            traversal,
            learning,
            pg: PG_CALL,
            schedule,
            dense_search: DenseSearch::resolve(
                args.dense_search,
                args.protocol == ProtocolArg::Paper && args.embedder == EmbedderArg::HashV1,
            ),
            methods,
        })
    }

    /// Whether any method routes (the run then keeps node and query vectors).
    pub fn routes(&self) -> bool {
        self.methods.iter().any(|m| m.router().is_some())
    }

    /// The routers, in `--router` order without repeats.
    pub fn routers(&self) -> Vec<RouterKind> {
        let mut v: Vec<RouterKind> = Vec::new();
        for k in self.methods.iter().filter_map(|m| m.router()) {
            if !v.contains(&k) {
                v.push(k);
            }
        }
        v
    }

    /// The dataset.
    pub fn dataset(&self) -> Dataset {
        self.args.data.dataset
    }

    /// Cosine hits per query the methods need (the deepest prefix any of them reads).
    pub fn dense_depth(&self) -> usize {
        let seeds = match self.args.seed_source {
            SeedSource::Dense => self.args.seed_top_k,
            SeedSource::Rrf => crate::retrieval::RRF_DEPTH,
        };
        self.methods
            .iter()
            .map(|m| m.dense_depth(seeds, self.args.embed_top_k))
            .max()
            .unwrap_or(0)
    }

    /// Output names for a run that loaded `n` queries from `recognised` (the known file
    /// whose content it read, if any).
    pub fn names(&self, recognised: Option<&KnownFile>, n: usize) -> Names {
        let a = &self.args;
        let limit = a.data.limit();
        let mut rows = recognised
            .map_or(a.data.dataset.slug(), |f| f.key)
            .to_string();
        if limit > 0 && n == limit && recognised.and_then(|f| f.rows) != Some(n) {
            rows.push_str(&format!("-limit{limit}"));
        }
        let mut parts = vec![(None, rows)];
        let mut part = |f: Factor, s: String| parts.push((Some(f), s));
        part(Factor::Graph, format!("-{}", a.protocol.as_str()));
        match self.builder {
            GraphBuilder::Reference => {}
            GraphBuilder::Knn(k) if k != DEFAULT_KNN_K => part(Factor::Graph, format!("-knn{k}")),
            b => part(Factor::Graph, format!("-{}", b.name())),
        }
        part(Factor::Embedder, format!("-{}", a.embedder.slug()));
        // hash-v1's natural path is f64-exact (its reference runs), every other embedder's
        // f32-tiled: a run on the other path is marked, so that e.g. the clean hash-v1 run's
        // embedding_topk file (f32) is not the paper run's (f64).
        let natural = if a.embedder == EmbedderArg::HashV1 {
            DenseSearch::F64Exact
        } else {
            DenseSearch::F32Tiled
        };
        if self.dense_search != natural {
            let tag = match self.dense_search {
                DenseSearch::F64Exact => "-f64",
                DenseSearch::F32Tiled => "-f32",
            };
            part(Factor::DenseSearch, tag.into());
        }
        if a.seed_source != SeedSource::Dense {
            part(
                Factor::Traversal,
                format!("-{}seeds", a.seed_source.as_str()),
            );
        }
        let non_default = [
            (Factor::ResultCount, "k", a.embed_top_k, DEFAULT_EMBED_TOP_K),
            (Factor::Traversal, "seeds", a.seed_top_k, DEFAULT_SEED_TOP_K),
            (Factor::Traversal, "hops", a.max_hops, DEFAULT_MAX_HOPS),
            (Factor::Traversal, "beam", a.beam_width, DEFAULT_BEAM_WIDTH),
        ];
        for (f, tag, v, default) in non_default {
            if v != default {
                part(f, format!("-{tag}{v}"));
            }
        }
        for (tag, v, default) in [
            ("lr", a.lr, DEFAULT_LR),
            ("discount", a.discount, DEFAULT_DISCOUNT),
        ] {
            if v != default {
                part(Factor::Learning, format!("-{tag}{v}"));
            }
        }
        if self.profile == Profile::Corrected {
            part(Factor::Profile, "-corrected".into());
        }
        if a.shared_edge_state {
            part(Factor::SharedState, "-shared".into());
        }
        let routers = self.routers();
        if !routers.is_empty() {
            let defaults = RouterConfig::default();
            let mut tag = String::from("-router");
            for k in &routers {
                tag.push('-');
                tag.push_str(k.as_str());
            }
            part(Factor::Routers, tag);
            if a.router_alpha != defaults.alpha {
                part(Factor::Router, format!("-alpha{}", a.router_alpha));
            }
            if a.router_top_k != defaults.top_k {
                part(Factor::Router, format!("-rtop{}", a.router_top_k));
            }
            if a.confidence_temperature != defaults.confidence_temperature {
                part(
                    Factor::Router,
                    format!("-ctemp{}", a.confidence_temperature),
                );
            }
        }
        if let Schedule::Split(f) = self.schedule {
            parts.push((None, format!("-split{f}")));
        }
        if let Some(h) = &self.heldout {
            parts.push((None, h.name_part()));
        }
        Names {
            parts,
            // auto's choice follows from the protocol and embedder, which the report's name
            // already gives; an explicit --dense-search names the report too
            dense_in_report: a.dense_search != DenseSearchArg::Auto,
        }
    }

    /// Where the report goes: `--out`, else [`DEFAULT_OUT_DIR`] / the report's name
    /// ([`Names::report`]).
    pub fn report_path(&self, recognised: Option<&KnownFile>, n: usize) -> PathBuf {
        match &self.args.out {
            Some(p) => p.clone(),
            None => PathBuf::from(DEFAULT_OUT_DIR).join(self.names(recognised, n).report()),
        }
    }

    /// The `bench run` command line that reproduces this run from the data directory (every
    /// option that shapes the results, defaults included; none that only concerns this
    /// machine). `recognised` names the file by its `--variant` when `--input` was a known
    /// file; an unknown input is named by its file name.
    pub fn command_line(&self, recognised: Option<&KnownFile>, input_name: &str) -> String {
        let a = &self.args;
        let mut c = vec![COMMAND_PREFIX.to_string()];
        let mut opt = |k: &str, v: String| {
            c.push(format!("--{k}"));
            c.push(v);
        };
        opt("dataset", a.data.dataset.slug().into());
        let variant = match (
            &a.data.input,
            recognised.and_then(|f| VariantArg::of(f.variant)),
        ) {
            (None, _) => Some(a.data.variant),
            (Some(_), v) => v,
        };
        match variant {
            Some(v) => opt("variant", v.as_str().into()),
            None => opt("input", input_name.into()),
        }
        opt("limit", a.data.limit().to_string());
        opt("protocol", a.protocol.as_str().into());
        opt("graph", value_name(&a.graph));
        if a.graph == GraphArg::Knn {
            opt("knn-k", a.knn_k.to_string());
        }
        opt("embedder", a.embedder.slug().into());
        if a.dense_search != DenseSearchArg::Auto {
            opt("dense-search", value_name(&a.dense_search));
        }
        opt("seed-top-k", a.seed_top_k.to_string());
        if a.seed_source != SeedSource::Dense {
            opt("seed-source", a.seed_source.as_str().into());
        }
        opt("embed-top-k", a.embed_top_k.to_string());
        opt("max-hops", a.max_hops.to_string());
        opt("beam-width", a.beam_width.to_string());
        opt("lr", a.lr.to_string());
        opt("discount", a.discount.to_string());
        opt("core-profile", self.profile.as_str().into());
        if let Some(f) = a.split {
            opt("split", f.to_string());
        }
        let routers = self.routers();
        if !routers.is_empty() {
            let list: Vec<&str> = routers.iter().map(|k| k.as_str()).collect();
            opt("router", list.join(","));
            opt("router-alpha", a.router_alpha.to_string());
            opt("router-top-k", a.router_top_k.to_string());
            opt(
                "confidence-temperature",
                a.confidence_temperature.to_string(),
            );
        }
        if let Some(h) = &self.heldout {
            opt("splits", h.splits.to_string());
            opt("split-seed", h.split_seed.to_string());
            if h.kind != HeldoutKind::Repeat {
                opt("train-fraction", h.train_fraction.to_string());
            }
            opt("dev-fraction", h.dev_fraction.to_string());
        }
        opt("bootstrap", a.stats.bootstrap.to_string());
        opt("bootstrap-seed", a.stats.bootstrap_seed.to_string());
        opt("permutations", a.stats.permutations.to_string());
        if a.shared_edge_state {
            c.push("--shared-edge-state".into());
        }
        if a.no_run_files {
            c.push("--no-run-files".into());
        }
        if a.dev {
            c.push("--dev".into());
        }
        c.join(" ")
    }
}

/// The command-line spelling of a value of a `ValueEnum`.
fn value_name<T: ValueEnum>(v: &T) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> RunArgs {
        RunArgs::from_command_line(line).unwrap()
    }

    #[test]
    fn schedules() {
        let pre = Schedule::Prequential.steps(3);
        assert!(pre.iter().all(|s| s.learn && s.scored));
        let split = Schedule::Split(0.5).steps(5);
        let learn: Vec<bool> = split.iter().map(|s| s.learn).collect();
        let scored: Vec<bool> = split.iter().map(|s| s.scored).collect();
        assert_eq!(learn, [true, true, false, false, false]);
        assert_eq!(scored, [false, false, true, true, true]);
    }

    #[test]
    fn command_line_round_trips() {
        let a = args("bench run --dataset hotpotqa --variant first103 --split 0.5 --lr 0.25 --shared-edge-state --graph knn --knn-k 7 --core-profile corrected --no-run-files");
        let p = Plan::new(&a).unwrap();
        let line = p.command_line(None, "");
        let b = args(&line);
        let q = Plan::new(&b).unwrap();
        assert_eq!(q.command_line(None, ""), line);
        assert_eq!(
            line,
            "bench run --dataset hotpotqa --variant first103 --limit 500 --protocol paper \
             --graph knn --knn-k 7 --embedder hash-v1 --seed-top-k 8 --embed-top-k 10 \
             --max-hops 3 --beam-width 4 --lr 0.25 --discount 0.9 --core-profile corrected \
             --split 0.5 --bootstrap 1000 --bootstrap-seed 0 --permutations 10000 \
             --shared-edge-state --no-run-files"
        );
        assert!(RunArgs::from_command_line("bench runx --dataset hotpotqa").is_err());
        assert!(RunArgs::from_command_line("bench run --dataset nope").is_err());
    }

    #[test]
    fn heldout_and_router_options_round_trip_and_name_the_report() {
        let a = args(
            "bench run --dataset multihop-rag --variant sample500 --protocol related \
             --router edge+sim,edge,edge+sim --router-alpha 1 --lr 0.1 --core-profile corrected \
             --splits 5 --split-seed 3",
        );
        let p = Plan::new(&a).unwrap();
        assert!(!p.label_edges);
        assert_eq!(p.routers(), [RouterKind::EdgeSim, RouterKind::Edge]);
        let names: Vec<&str> = p.methods.iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            [
                "embedding_topk",
                "crabpath_cold@edge+sim",
                "crabpath_cold@edge",
                "crabpath_learning@edge+sim",
                "crabpath_learning@edge",
                "crabpath_pg_learning@edge+sim",
                "crabpath_pg_learning@edge",
                "bm25_topk",
                "rrf_topk"
            ]
        );
        let line = p.command_line(None, "");
        assert!(line.contains(
            "--router edge+sim,edge --router-alpha 1 --router-top-k 5 \
             --confidence-temperature 0.1 --splits 5 --split-seed 3 --train-fraction 0.5 \
             --dev-fraction 0.2"
        ));
        let q = Plan::new(&args(&line)).unwrap();
        assert_eq!(q.command_line(None, ""), line);
        assert_eq!(q.heldout, p.heldout);
        let f = catalog::lookup(Dataset::MultihopRag, catalog::Variant::Sample500);
        let n = p.names(f, 429);
        assert_eq!(
            n.report(),
            "multihop-rag-sample500-related-hash-v1-lr0.1-corrected-router-edge+sim-edge-alpha1\
             -splits5-sseed3.json"
        );
        let cold = Method::any_by_name("crabpath_cold@edge+sim").unwrap();
        assert_eq!(
            n.run(cold),
            "runs/multihop-rag-sample500-related-hash-v1-corrected-alpha1-splits5-sseed3\
             .crabpath_cold@edge+sim.run.xz"
        );
        for bad in [
            "bench run --dataset hotpotqa --protocol related --split 0.5",
            "bench run --dataset hotpotqa --protocol repeat --splits 1",
            "bench run --dataset hotpotqa --protocol unrelated --train-fraction 1",
            "bench run --dataset hotpotqa --protocol clean --dev",
            "bench run --dataset hotpotqa --router edge --router-top-k 0",
            "bench run --dataset hotpotqa --router adaptive --confidence-temperature 0",
            // mpnet: the LoCoMo product protocol only
            "bench run --dataset hotpotqa --embedder mpnet",
        ] {
            assert!(Plan::new(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_share_what_does_not_shape_a_method() {
        let by = |n: &str| METHODS.iter().find(|m| m.name == n).unwrap();
        let plan = |line: &str| Plan::new(&args(line)).unwrap();
        let f = catalog::lookup(Dataset::HotpotQa, catalog::Variant::Sample1100);
        let p = plan("bench run --dataset hotpotqa --variant sample1100 --limit 0");
        let n = p.names(f, 1100);
        assert_eq!(n.report(), "hotpotqa-sample1100-paper-hash-v1.json");
        assert_eq!(n.qrels(), "runs/hotpotqa-sample1100.qrels.xz");
        for (m, run) in [
            ("bm25_topk", "hotpotqa-sample1100.bm25_topk"),
            (
                "embedding_topk",
                "hotpotqa-sample1100-hash-v1.embedding_topk",
            ),
            (
                "crabpath_cold",
                "hotpotqa-sample1100-paper-hash-v1.crabpath_cold",
            ),
        ] {
            assert_eq!(n.run(by(m)), format!("runs/{run}.run.xz"));
        }
        let p = plan(
            "bench run --dataset hotpotqa --variant sample1100 --limit 50 --protocol clean \
             --graph knn --seed-top-k 4 --lr 0.1 --core-profile corrected --split 0.5",
        );
        let n = p.names(f, 50);
        assert_eq!(
            n.report(),
            "hotpotqa-sample1100-limit50-clean-knn-hash-v1-seeds4-lr0.1-corrected-split0.5.json"
        );
        for (m, run) in [
            (
                "crabpath_cold",
                "hotpotqa-sample1100-limit50-clean-knn-hash-v1-f32-seeds4-corrected-split0.5.crabpath_cold",
            ),
            (
                "embedding_topk",
                "hotpotqa-sample1100-limit50-hash-v1-f32-split0.5.embedding_topk",
            ),
        ] {
            assert_eq!(n.run(by(m)), format!("runs/{run}.run.xz"));
        }
    }

    /// The dense-search path: f64 only for the paper protocol with hash-v1 under auto; a
    /// path that is not the embedder's natural one names the files that read the cosine
    /// hits (so the paper and clean hash-v1 runs do not share an embedding_topk file), and
    /// the report as well when it was asked for explicitly.
    #[test]
    fn dense_search_path_and_names() {
        let by = |n: &str| METHODS.iter().find(|m| m.name == n).unwrap();
        let plan = |line: &str| Plan::new(&args(line)).unwrap();
        let f = catalog::lookup(Dataset::HotpotQa, catalog::Variant::Sample1100);
        let base = "bench run --dataset hotpotqa --variant sample1100 --limit 0";
        let paper = plan(base);
        assert_eq!(paper.dense_search, DenseSearch::F64Exact);
        let clean = plan(&format!("{base} --protocol clean"));
        assert_eq!(clean.dense_search, DenseSearch::F32Tiled);
        let n = clean.names(f, 1100);
        assert_eq!(n.report(), "hotpotqa-sample1100-clean-hash-v1.json");
        assert_eq!(
            n.run(by("embedding_topk")),
            "runs/hotpotqa-sample1100-hash-v1-f32.embedding_topk.run.xz"
        );
        assert_eq!(
            n.run(by("crabpath_cold")),
            "runs/hotpotqa-sample1100-clean-hash-v1-f32.crabpath_cold.run.xz"
        );
        assert_eq!(
            n.run(by("bm25_topk")),
            "runs/hotpotqa-sample1100.bm25_topk.run.xz"
        );
        let minilm = plan(&format!("{base} --embedder minilm"));
        assert_eq!(minilm.dense_search, DenseSearch::F32Tiled);
        assert_eq!(
            minilm.names(f, 1100).run(by("embedding_topk")),
            "runs/hotpotqa-sample1100-minilm.embedding_topk.run.xz"
        );
        let forced = plan(&format!(
            "{base} --protocol clean --embedder minilm --dense-search f64-exact"
        ));
        assert_eq!(forced.dense_search, DenseSearch::F64Exact);
        let n = forced.names(f, 1100);
        assert_eq!(n.report(), "hotpotqa-sample1100-clean-minilm-f64.json");
        assert_eq!(
            n.run(by("rrf_topk")),
            "runs/hotpotqa-sample1100-minilm-f64.rrf_topk.run.xz"
        );
        let line = forced.command_line(f, "");
        assert!(
            line.contains(" --embedder minilm --dense-search f64-exact "),
            "{line}"
        );
        assert_eq!(plan(&line).command_line(f, ""), line);
        assert!(!clean.command_line(f, "").contains("dense-search"));
    }

    /// `--seed-source rrf` names the report and the traversal methods' run files (not the
    /// baselines'), is recorded in the command line only when not the default, and makes
    /// the cosine search deep enough for the fusion.
    #[test]
    fn seed_source_names_and_depth() {
        let by = |n: &str| METHODS.iter().find(|m| m.name == n).unwrap();
        let f = catalog::lookup(Dataset::HotpotQa, catalog::Variant::Sample1100);
        let line = "bench run --dataset hotpotqa --variant sample1100 --limit 0 --protocol clean \
                    --embedder minilm --seed-source rrf";
        let p = Plan::new(&args(line)).unwrap();
        let n = p.names(f, 1100);
        assert_eq!(n.report(), "hotpotqa-sample1100-clean-minilm-rrfseeds.json");
        assert_eq!(
            n.run(by("crabpath_cold")),
            "runs/hotpotqa-sample1100-clean-minilm-rrfseeds.crabpath_cold.run.xz"
        );
        assert_eq!(
            n.run(by("rrf_topk")),
            "runs/hotpotqa-sample1100-minilm.rrf_topk.run.xz"
        );
        let recorded = p.command_line(f, "");
        assert!(recorded.contains(" --seed-source rrf "), "{recorded}");
        assert_eq!(
            Plan::new(&args(&recorded)).unwrap().command_line(f, ""),
            recorded
        );
        assert!(p.dense_depth() >= crate::retrieval::RRF_DEPTH);
    }
}
