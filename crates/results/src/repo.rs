//! The report of `bench repo` (`results/repo-bench/*.json.gz`): the reference's results
//! JSON (reference `benchmarks/run_benchmark.py::main`, commit 134c676), keys in its order,
//! and the keys the fair protocol adds after `methods` ([`Report::protocol`],
//! [`Report::paired`], [`Report::verdict`]); plus the workspace graph of `--graph-out`
//! ([`GraphDoc`]).
//!
//! The writer is `bench`'s repository protocol (`benchmarks/src/repo/`), in Python's
//! `json.dumps(indent=2)` format; `report` reads both documents.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The four reference scores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Recall of the first 3 files.
    #[serde(rename = "Recall@3")]
    pub recall_3: f64,
    /// Recall of the first 5 files.
    #[serde(rename = "Recall@5")]
    pub recall_5: f64,
    /// Relevant files among the first 3, divided by 3.
    #[serde(rename = "Precision@3")]
    pub precision_3: f64,
    /// Reciprocal rank of the first relevant file.
    #[serde(rename = "MRR")]
    pub mrr: f64,
}

impl From<[f64; 4]> for Scores {
    fn from(v: [f64; 4]) -> Self {
        Scores {
            recall_3: v[0],
            recall_5: v[1],
            precision_3: v[2],
            mrr: v[3],
        }
    }
}

impl From<&[f64]> for Scores {
    fn from(v: &[f64]) -> Self {
        let g = |i: usize| v.get(i).copied().unwrap_or(0.0);
        Scores::from([g(0), g(1), g(2), g(3)])
    }
}

/// `init_timing_ms`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct InitTiming {
    /// Milliseconds of the split.
    pub split: f64,
    /// Milliseconds of embedder construction, embedding and indexing.
    pub embed: f64,
}

/// `traversal`: the three traversal flags as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraversalInfo {
    /// `--traverse-max-hops`.
    pub max_hops: i64,
    /// `--traverse-beam-width`.
    pub beam_width: i64,
    /// `--traverse-seed-k`.
    pub seed_k: i64,
}

/// `environment`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// The Python version in the reference; `null` here.
    pub python: Option<String>,
    /// Operating system and architecture.
    pub platform: String,
    /// The reference's note, verbatim.
    pub machine_notes: String,
}

/// `latency_ms` of a method.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
}

/// One entry of `per_query`; `R` is how a `relevant` entry is held (the writer keeps the
/// queries file's values exactly, a reader takes them as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerQuery<R = serde_json::Value> {
    /// The query text.
    pub query: String,
    /// `relevant` as given.
    pub relevant: Vec<R>,
    /// The first 5 ranked files.
    pub predicted_files: Vec<String>,
    /// Reference scores.
    pub scores: Scores,
    /// Milliseconds (absent from copies stripped of timings).
    #[serde(default)]
    pub latency_ms: f64,
    /// Budget-matched scores (clean protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_scores: Option<IndexMap<String, f64>>,
}

/// One method's entry of `methods`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodReport<R = serde_json::Value> {
    /// Mean reference scores.
    pub scores: Scores,
    /// Latency percentiles (absent from copies stripped of timings).
    #[serde(default)]
    pub latency_ms: Latency,
    /// Per query, in query order.
    pub per_query: Vec<PerQuery<R>>,
    /// Learning curve (`{}` for methods that do not learn).
    pub learning_curve: IndexMap<String, Scores>,
    /// Mean budget-matched scores (clean protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_scores: Option<IndexMap<String, f64>>,
    /// Held-out curve of budget-matched scores (clean protocol, learning methods).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heldout_curve: Option<IndexMap<String, IndexMap<String, f64>>>,
}

/// The whole report. The fields that differ between runs of the same benchmark (times,
/// machine, paths) may be absent, as in the copies stripped of them that tests compare
/// (`results/reference/repo-bench/*/results.stripped.json.gz`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report<R = serde_json::Value> {
    /// When the run ended (UTC, Python `isoformat`).
    #[serde(default)]
    pub generated_at: String,
    /// The workspace (absolute, or the label given with `--workspace-label`).
    #[serde(default)]
    pub workspace: String,
    /// The queries path as given, normalised.
    #[serde(default)]
    pub query_source: String,
    /// Number of query rows.
    pub query_count: usize,
    /// Split and embedding times.
    #[serde(default)]
    pub init_timing_ms: InitTiming,
    /// Nodes of the split graph.
    pub graph_nodes: usize,
    /// Chunks (= nodes).
    pub chunks: usize,
    /// `hash-v1`.
    pub embedder: String,
    /// 1024.
    pub embedder_dim: usize,
    /// Traversal flags.
    pub traversal: TraversalInfo,
    /// Machine.
    #[serde(default)]
    pub environment: Environment,
    /// Per method, in method order.
    pub methods: IndexMap<String, MethodReport<R>>,
    /// Protocol description (protocols other than the paper's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// Paired comparisons (protocols other than the paper's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// Which method wins (protocols other than the paper's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
}

/// `protocol`: the evaluation design of a run that is not the reference's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Protocol {
    /// `paper` or `clean`.
    pub name: String,
    /// The core profile.
    pub profile: String,
    /// Which files form the corpus.
    pub corpus: CorpusRule,
    /// What learning methods learn from.
    pub outcome: OutcomeRule,
    /// How learning methods are scored.
    pub evaluation: EvaluationDesign,
    /// Queries scored.
    pub evaluated_queries: usize,
    /// Rows without a relevant file.
    pub queries_without_relevant_file: Vec<usize>,
    /// How the budget-matched scores are made (`null` without them).
    pub budget_scores: Option<String>,
}

/// `protocol.corpus`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusRule {
    /// `as-is` or `clean`.
    pub rule: String,
    /// Files left out, with why.
    pub excluded: Vec<ExcludedFile>,
    /// `--exclude` patterns.
    pub exclude_patterns: Vec<String>,
    /// Files of the corpus.
    pub files: usize,
}

/// One file left out of the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludedFile {
    /// Path relative to the workspace.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// `protocol.outcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRule {
    /// `fixed` or `relevance`.
    pub rule: String,
    /// The fixed outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Files inspected by the relevance rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// The relevance rule in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `protocol.evaluation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluationDesign {
    /// `online` or `heldout`.
    pub design: String,
    /// Folds (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folds: Option<usize>,
    /// Repetitions (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<usize>,
    /// Seed of the fold shuffles (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The design in words.
    pub description: String,
}

/// A paired bootstrap interval of a difference of means.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ci {
    /// The difference.
    pub diff: f64,
    /// 2.5th percentile.
    pub ci95_low: f64,
    /// 97.5th percentile.
    pub ci95_high: f64,
}

/// Method → metric → interval against one baseline.
pub type Against = IndexMap<String, IndexMap<String, Ci>>;

/// `paired`: the fair protocol's paired comparisons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// What the intervals are of.
    pub statistic: String,
    /// The metrics compared.
    pub metrics: Vec<String>,
    /// Every method against BM25 (when it ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_bm25: Option<Against>,
    /// Every method against MiniLM (when it ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_minilm_embed_similarity: Option<Against>,
    /// Each learning method against its cold traversal (held-out evaluation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning_vs_cold: Option<Against>,
}

/// `verdict`: which method wins, and whether by more than the noise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The metric methods are ranked by.
    pub metric: String,
    /// Method → mean, best first.
    pub ranking: IndexMap<String, f64>,
    /// The first method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// Methods with the winner's per-query scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tied_with_winner: Option<Vec<String>>,
    /// The best method not tied with the winner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_up: Option<String>,
    /// Winner against runner-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner_minus_runner_up: Option<Ci>,
    /// Whether that interval lies above 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_winner: Option<bool>,
    /// The best traversal against the best retriever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_traversal_vs_best_retriever: Option<TraversalVsRetriever>,
    /// Learning method → `helps`, `hurts` or `no significant effect`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning_on_heldout_queries: Option<IndexMap<String, String>>,
    /// Metric → the best method and its mean.
    pub best_per_metric: IndexMap<String, Best>,
    /// The verdict in words.
    pub summary: String,
}

/// `verdict.best_traversal_vs_best_retriever`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraversalVsRetriever {
    /// The best traversal method.
    pub traversal: String,
    /// Its mean.
    pub traversal_mean: f64,
    /// The best retriever.
    pub retriever: String,
    /// Its mean.
    pub retriever_mean: f64,
    /// Traversal minus retriever.
    pub difference: Ci,
    /// `better`, `worse` or `not significantly different`.
    pub result: String,
}

/// `verdict.best_per_metric.<metric>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Best {
    /// The method.
    pub method: String,
    /// Its mean.
    pub mean: f64,
}

/// The workspace graph of `bench repo --graph-out` (seed 002 Fig. 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphDoc {
    /// The workspace label.
    pub workspace: String,
    /// How to read the document.
    pub description: String,
    /// Files, in corpus order.
    pub files: Vec<String>,
    /// Each node's file (index into `files`; `null` when it has none).
    pub node_file: Vec<Option<u32>>,
    /// The split graph's edges.
    pub bootstrap_edges: Vec<GraphEdge>,
    /// The learned graph (`null` when none was learned).
    pub learned: Option<LearnedGraph>,
}

/// An edge: source position, target position, weight to 4 decimals.
pub type GraphEdge = (usize, usize, f64);

/// `learned` of a [`GraphDoc`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedGraph {
    /// The learning method.
    pub method: String,
    /// Queries it learned from.
    pub queries: usize,
    /// Its edges.
    pub edges: Vec<GraphEdge>,
}
