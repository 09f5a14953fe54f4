//! The report of `bench run` (`results/bench/*.json`): one [`Report`] type for every
//! protocol, its protocol's own sections flattened in the middle.
//!
//! Layout, in key order: what was run on what ([`Report::dataset`] … the graph it built),
//! [`Parameters`], [`Configuration`] (the command line that reproduces the file and the
//! core's effective configuration), then the protocol's sections — [`Stream`] (protocols
//! `paper` and `clean`: prequential or split stream), [`Heldout`] (`related`, `unrelated`,
//! `repeat`), [`Official`] (MultiHop-RAG's official protocol), [`crate::locomo::Locomo`]
//! (LoCoMo) — then the notes, the files
//! written beside the report, the [`Manifest`] of the rows, the [`Provenance`] and the
//! timings. A new protocol adds its sections type here (and a variant of [`Sections`], the
//! reader's union) and reuses everything else.
//!
//! The writers are `bench`'s protocols (`benchmarks/src/{standard,heldout,official_run}.rs`)
//! through its one report writer (`benchmarks/src/report.rs`); `report` and `bench check`
//! read them with [`AnyReport`].

use crabpath::{LearningConfig, RouterConfig, TraversalConfig};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Slot;

/// Metric name → value (a method's means, a curve point, ...), in the metric table's order.
pub type Means = IndexMap<String, f64>;

/// Method name → its means, in run order.
pub type MethodMeans = IndexMap<String, Means>;

/// A bench report whose protocol sections are `S` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report<S> {
    /// The reference's dataset name (`HotPotQA`, `MultiHop-RAG`).
    pub dataset: String,
    /// Queries loaded.
    pub dataset_queries: usize,
    /// `--protocol` (`paper`, `clean`, `related`, `unrelated`, `repeat`).
    pub protocol: String,
    /// Label-free base edges (`reference`, `title-mentions`, `knn`).
    pub graph_builder: String,
    /// The embedder's id (`hash-v1`, `all-MiniLM-L6-v2`).
    pub embedder: String,
    /// The core profile (`paper`, `corrected`).
    pub core_profile: String,
    /// Nodes of the graph.
    pub graph_nodes: usize,
    /// Edges of the graph.
    pub graph_edges: usize,
    /// Edges the label operations added or raised (0 without label edges).
    pub graph_edges_set_by_labels: usize,
    /// One sentence on a protocol that is not the reference's (official protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_note: Option<String>,
    /// The run's parameters (stream and held-out protocols).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Parameters>,
    /// The command that reproduces the file and the core's configuration.
    pub configuration: Configuration,
    /// The protocol's own sections.
    #[serde(flatten)]
    pub sections: S,
    /// Metric name → what it measures (stream and held-out protocols).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_notes: Option<IndexMap<String, String>>,
    /// Method name → one line on what it does, in run order.
    pub method_notes: IndexMap<String, String>,
    /// Run files and qrels beside the report (`null`: none written; absent: the protocol
    /// writes none).
    #[serde(default, skip_serializing_if = "Slot::is_absent")]
    pub files: Slot<Files>,
    /// What others need to rebuild the sample.
    pub manifest: Manifest,
    /// Program, commit, dataset file, embedder, seeds.
    pub provenance: Provenance,
    /// Wall-clock seconds per stage (left out with `--no-timings`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings_s: Option<IndexMap<String, f64>>,
    /// What embedding cost (stream protocols; left out with `--no-timings`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_stats: Option<EmbeddingStats>,
}

/// A report of any protocol, as the readers see it.
pub type AnyReport = Report<Sections>;

/// The sections of every protocol (the readers' union; a document is recognised by its
/// keys: `locomo`, `heldout`, `chunking`, `locomo_product`, else the stream sections).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Sections {
    /// LoCoMo ([`crate::locomo`]).
    Locomo(Box<crate::locomo::Locomo>),
    /// `related`, `unrelated`, `repeat`.
    Heldout(Box<Heldout>),
    /// The official MultiHop-RAG protocol.
    Official(Box<Official>),
    /// LoCoMo through the product's path ([`crate::locomo_product`]; key
    /// `locomo_product`).
    Product(Box<crate::locomo_product::Product<PairedTests>>),
    /// `paper` and `clean`.
    Stream(Box<Stream>),
}

impl<S> Report<S> {
    /// The command line that reproduces the report.
    pub fn command(&self) -> &str {
        &self.configuration.command
    }
}

impl AnyReport {
    /// Each method's means (`method_metrics`; the official protocol's are its scores under
    /// their own names, [`Official::official`]).
    pub fn method_metrics(&self) -> Option<&MethodMeans> {
        match &self.sections {
            Sections::Heldout(h) => Some(&h.method_metrics),
            Sections::Stream(s) => Some(&s.method_metrics),
            Sections::Locomo(l) => Some(&l.method_metrics),
            Sections::Product(p) => Some(&p.method_metrics),
            Sections::Official(_) => None,
        }
    }

    /// The LoCoMo sections, for a LoCoMo report.
    pub fn locomo(&self) -> Option<&crate::locomo::Locomo> {
        match &self.sections {
            Sections::Locomo(l) => Some(l),
            _ => None,
        }
    }

    /// The stream sections, for a `paper` or `clean` report.
    pub fn stream(&self) -> Option<&Stream> {
        match &self.sections {
            Sections::Stream(s) => Some(s),
            _ => None,
        }
    }

    /// The held-out sections, for a `related`, `unrelated` or `repeat` report.
    pub fn heldout(&self) -> Option<&Heldout> {
        match &self.sections {
            Sections::Heldout(h) => Some(h),
            _ => None,
        }
    }

    /// The paired tests of every pair of methods (stream and held-out protocols).
    pub fn paired_tests(&self) -> Option<&PairedTests> {
        match &self.sections {
            Sections::Heldout(h) => Some(&h.paired_tests),
            Sections::Stream(s) => Some(&s.paired_tests),
            Sections::Official(_) | Sections::Locomo(_) | Sections::Product(_) => None,
        }
    }
}

/// `parameters`: the options that shape the results. Fields marked "stream" are written by
/// the `paper` and `clean` protocols, "held-out" by `related`, `unrelated` and `repeat`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    /// `--limit` (0 = every row).
    pub limit: usize,
    /// Seeds per traversal.
    pub seed_top_k: usize,
    /// Where the seeds come from (`dense`, `rrf`; stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_source: Option<String>,
    /// Results of `embedding_topk` and `bm25_topk`.
    pub embed_top_k: usize,
    /// Traversal hops.
    pub max_hops: usize,
    /// Traversal beam.
    pub beam_width: usize,
    /// Learning rate of both rules.
    pub learning_rate: f64,
    /// Discount of both rules.
    pub discount: f64,
    /// Temperature of the policy-gradient call (stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pg_temperature: Option<f64>,
    /// Baseline of the policy-gradient call (stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pg_baseline: Option<f64>,
    /// Neighbours per node of `--graph knn` (stream; `null` for other builders).
    #[serde(default, skip_serializing_if = "Slot::is_absent")]
    pub knn_k: Slot<usize>,
    /// `--shared-edge-state` (stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_edge_state: Option<bool>,
    /// `--split` (stream; `null` for a prequential run).
    #[serde(default, skip_serializing_if = "Slot::is_absent")]
    pub split: Slot<f64>,
    /// The routers (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routers: Option<Vec<String>>,
    /// `--router-alpha` (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router_alpha: Option<f64>,
    /// `--router-top-k` (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router_top_k: Option<usize>,
    /// `--confidence-temperature` (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence_temperature: Option<f64>,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    /// Seed of the bootstrap and permutation generators.
    pub bootstrap_seed: u64,
    /// Rounds of the permutation tests.
    pub permutations: usize,
}

/// `configuration`: how to reproduce the file and what the core ran with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Configuration {
    /// The `bench run` command line that reproduces the file (`bench check` re-runs it).
    pub command: String,
    /// Arithmetic of the cosine search (`f64-exact`, `f32-tiled`; stream and official).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense_search: Option<String>,
    /// The core's effective traversal configuration.
    pub traversal: TraversalConfig,
    /// The core's effective learning configuration.
    pub learning: LearningConfig,
    /// Arguments of every `apply_outcome_pg` call (stream and held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pg_call: Option<PgCall>,
    /// Router parameters (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router: Option<RouterConfig>,
}

/// `configuration.pg_call`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PgCall {
    /// Baseline b.
    pub baseline: f64,
    /// Temperature τ.
    pub temperature: f64,
}

/// `evaluation`: which queries learned and which were scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// `prequential` or `split`.
    pub mode: String,
    /// Steps after which the learning methods updated the graph.
    pub learned_from_queries: usize,
    /// Queries scored.
    pub scored_queries: usize,
    /// What the scored queries are drawn from, and the outcome rule.
    #[serde(flatten)]
    pub scope: EvaluationScope,
}

/// The protocol-dependent part of [`Evaluation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EvaluationScope {
    /// A stream of the dataset's queries (`paper`, `clean`).
    Stream {
        /// Index of the first scored query (the query count when none is scored).
        scored_from_query: usize,
        /// The metric whose value 1 makes an outcome +1.
        outcome_metric: String,
        /// Queries without any relevant node (scored 0 by every method).
        queries_without_relevant: usize,
    },
    /// The official MultiHop-RAG protocol's chunks.
    Chunks {
        /// Texts scored per query.
        retrieved_scored_per_query: usize,
        /// Queries no chunk holds the evidence of.
        queries_without_relevant_chunk: usize,
        /// The metric whose value 1 makes an outcome +1.
        outcome_metric: String,
    },
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

/// The sections of the stream protocols (`paper`, `clean`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stream {
    /// Which queries learned and which were scored.
    pub evaluation: Evaluation,
    /// Method → metric → mean over the scored queries.
    pub method_metrics: MethodMeans,
    /// Learning method → checkpoint (`"<n>"`) → the reference metrics' cumulative means.
    pub learning_curves: IndexMap<String, MethodMeans>,
    /// The dataset's checkpoints.
    pub checkpoints: Vec<usize>,
    /// The traversal's hops and beam, as the reference writes them.
    pub traversal: TraversalShape,
    /// Every method's cumulative means at the checkpoints and at the last scored query.
    pub learning_curves_all: IndexMap<String, Vec<CurvePoint>>,
    /// Every method against `embedding_topk`.
    pub bootstrap_ci_vs_embedding_topk: Comparison,
    /// Every pair of methods.
    pub paired_tests: PairedTests,
}

/// `traversal` of a stream report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraversalShape {
    /// `--max-hops`.
    pub max_hops: usize,
    /// `--beam-width`.
    pub beam_width: usize,
}

/// One point of a learning curve: the cumulative means after `query` scored queries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Scored queries so far.
    pub query: usize,
    /// Metric → cumulative mean.
    #[serde(flatten)]
    pub means: Means,
}

/// Paired bootstrap intervals of every method against one baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// What the interval is of.
    pub statistic: String,
    /// Method → metric → interval.
    pub methods: IndexMap<String, IndexMap<String, Ci>>,
}

/// `paired_tests`: how every pair of methods was tested, and the pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTests {
    /// The metric tested.
    pub metric: String,
    /// Queries paired.
    pub queries: usize,
    /// What the difference is.
    pub statistic: String,
    /// The test.
    pub test: String,
    /// The interval.
    pub interval: String,
    /// The multiple-comparison correction.
    pub correction: String,
    /// Pairs tested (and corrected) when fewer are written (held-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs_tested: Option<usize>,
    /// The effect size.
    pub effect_size: String,
    /// Significance level.
    pub alpha: f64,
    /// Rounds of the randomization test.
    pub permutations: usize,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Seed.
    pub seed: u64,
    /// How the generators are seeded.
    pub rng: String,
    /// The pairs.
    pub pairs: Vec<PairTest>,
}

/// One tested pair of methods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairTest {
    /// First method.
    pub a: String,
    /// Second method.
    pub b: String,
    /// Mean of `a`.
    pub mean_a: f64,
    /// Mean of `b`.
    pub mean_b: f64,
    /// `mean_a − mean_b`.
    pub diff: f64,
    /// Bootstrap 2.5th percentile of the difference.
    pub ci95_low: f64,
    /// Bootstrap 97.5th percentile.
    pub ci95_high: f64,
    /// Permutation p-value.
    pub p_value: f64,
    /// Holm-adjusted p-value.
    pub p_holm: f64,
    /// Whether `p_holm` is below alpha.
    pub significant: bool,
    /// Cohen's d_z (`null` when the differences do not vary).
    pub effect_size_dz: Option<f64>,
    /// Queries on which `a` scored higher.
    pub a_better: usize,
    /// Queries on which `b` scored higher.
    pub b_better: usize,
}

/// The sections of the held-out protocols (`related`, `unrelated`, `repeat`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heldout {
    /// The design: splits, pools, sizes.
    pub heldout: HeldoutDesign,
    /// Method → metric → mean over splits of the split's mean (last checkpoint).
    pub method_metrics: MethodMeans,
    /// Each split's mean of the tested metric.
    pub per_split: PerSplit,
    /// Method → metric → interval over splits.
    pub method_intervals_over_splits: IndexMap<String, IndexMap<String, Summary>>,
    /// The learning methods' curves over the checkpoints of training.
    pub learning_curves: HeldoutCurves,
    /// Per-split paired differences.
    pub split_differences: SplitDifferences,
    /// Per-query paired tests.
    pub paired_tests: PairedTests,
    /// `repeat`: each learning method's first ask and re-ask (`null` for the others).
    pub repeat: Option<IndexMap<String, Repeat>>,
}

/// `heldout`: the held-out design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldoutDesign {
    /// `related`, `unrelated` or `repeat`.
    pub protocol: String,
    /// How to read the report.
    pub about: String,
    /// Random splits.
    pub splits: usize,
    /// Their seed.
    pub split_seed: u64,
    /// Share of the queries in train (`null` for `repeat`).
    pub train_fraction: Option<f64>,
    /// Train queries per split.
    pub train_queries: usize,
    /// Share of the queries in the dev pool.
    pub dev_fraction: f64,
    /// Seed of the dev-pool draw.
    pub dev_seed: u64,
    /// Queries in the dev pool.
    pub dev_queries: usize,
    /// `test` or `dev`.
    pub scored_pool: String,
    /// Queries sharing a relevant document with some other query.
    pub queries_with_any_partner: usize,
    /// Test queries of each split.
    pub test_queries_per_split: Vec<usize>,
    /// Their mean.
    pub test_queries_per_split_mean: f64,
    /// Queries tested in at least one split.
    pub queries_ever_tested: usize,
    /// Checkpoints of training, percent of the train queries.
    pub checkpoints_percent_of_train: Vec<usize>,
    /// The metric whose value 1 makes an outcome +1.
    pub outcome_metric: String,
}

/// `per_split`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerSplit {
    /// The metric.
    pub metric: String,
    /// What the values are.
    pub about: String,
    /// Method → value per split, split order.
    pub methods: IndexMap<String, Vec<f64>>,
}

/// Mean, sd, 95 % t interval and minimum detectable difference of a sample (`null` where
/// not finite).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Mean.
    pub mean: Option<f64>,
    /// Sample standard deviation.
    pub sd: Option<f64>,
    /// Lower end of the 95 % t interval.
    pub ci95_low: Option<f64>,
    /// Upper end.
    pub ci95_high: Option<f64>,
    /// Minimum detectable difference at 80 % power.
    pub mdd80: Option<f64>,
    /// Sample size.
    pub n: usize,
}

/// `learning_curves` of a held-out report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldoutCurves {
    /// How to read them.
    pub about: String,
    /// Checkpoints, percent of the train queries.
    pub checkpoints_percent_of_train: Vec<usize>,
    /// Learning method → metric → band over the checkpoints.
    pub methods: IndexMap<String, IndexMap<String, Band>>,
}

/// A curve with its 95 % band, one value per checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Means.
    pub mean: Vec<Option<f64>>,
    /// Lower ends.
    pub ci95_low: Vec<Option<f64>>,
    /// Upper ends.
    pub ci95_high: Vec<Option<f64>>,
}

/// `split_differences`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitDifferences {
    /// The metric.
    pub metric: String,
    /// What a difference is.
    pub statistic: String,
    /// The interval.
    pub interval: String,
    /// The minimum detectable difference.
    pub mdd80: String,
    /// The pairs.
    pub pairs: Vec<SplitDifference>,
}

/// One pair of `split_differences`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitDifference {
    /// First method.
    pub a: String,
    /// Second method.
    pub b: String,
    /// Over the per-split differences.
    pub per_split: Summary,
    /// Minimum detectable difference over the per-query differences.
    pub per_query_mdd80: Option<f64>,
    /// Their standard deviation.
    pub per_query_sd: Option<f64>,
    /// Queries paired.
    pub queries: usize,
}

/// One learning method's entry of `repeat`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeat {
    /// Metric → mean at the first ask.
    pub first_ask: Means,
    /// Re-ask against first ask (`null` without a test).
    pub re_ask_minus_first_ask: Option<ReAsk>,
}

/// `repeat.<method>.re_ask_minus_first_ask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReAsk {
    /// The metric.
    pub metric: String,
    /// Mean difference.
    pub diff: f64,
    /// Bootstrap 2.5th percentile.
    pub ci95_low: f64,
    /// Bootstrap 97.5th percentile.
    pub ci95_high: f64,
    /// Permutation p-value.
    pub p_value: f64,
    /// Cohen's d_z.
    pub effect_size_dz: Option<f64>,
    /// Queries better at the re-ask.
    pub re_ask_better: usize,
    /// Queries better at the first ask.
    pub first_ask_better: usize,
}

/// The sections of the official MultiHop-RAG protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Official {
    /// How the articles were chunked.
    pub chunking: Chunking,
    /// Which queries learned and which were scored.
    pub evaluation: Evaluation,
    /// Method → the official scores.
    pub official: IndexMap<String, OfficialScores>,
    /// Score → what it measures.
    pub official_notes: IndexMap<String, String>,
}

/// `chunking` of the official protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunking {
    /// The splitter.
    pub splitter: String,
    /// Chunk budget in tokens.
    pub chunk_size: usize,
    /// Overlap in tokens.
    pub chunk_overlap: usize,
    /// How tokens are counted.
    pub token_count: String,
    /// Articles chunked.
    pub articles: usize,
    /// Chunks made.
    pub chunks: usize,
    /// The corpus file's name.
    pub corpus_file: String,
    /// The known file it is, if any.
    pub corpus_known_file: Option<String>,
    /// SHA-256 of its content.
    pub corpus_content_sha256: String,
}

/// The official protocol's four scores of one method.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OfficialScores {
    /// Hits@4.
    pub hits_at_4: f64,
    /// Hits@10.
    pub hits_at_10: f64,
    /// MAP@10.
    pub map_at_10: f64,
    /// MRR@10.
    pub mrr_at_10: f64,
}

/// `files`: the run files and qrels beside the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Files {
    /// The qrels, relative to the report.
    pub qrels: String,
    /// Method → its run file, relative to the report.
    pub runs: IndexMap<String, String>,
    /// The format of both.
    pub run_format: String,
}

/// `manifest`: what others need to rebuild the sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// How to read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
    /// The dataset file as `datasets/SHA256SUMS` names it (`null`: a file it does not list).
    #[serde(default, skip_serializing_if = "Slot::is_absent")]
    pub dataset_file: Slot<String>,
    /// Its SHA-256 as listed there.
    #[serde(default, skip_serializing_if = "Slot::is_absent")]
    pub dataset_sha256: Slot<String>,
    /// Queries of the stream.
    pub queries: usize,
    /// The stream's query ids in order (gzip, one per line), relative to the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_ids_file: Option<String>,
    /// SHA-256 of the stream's query ids, each followed by a newline.
    pub query_ids_sha256: String,
    /// Of the scored query ids (stream protocols).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored_query_ids_sha256: Option<String>,
    /// Of the queries tested in at least one split (held-out protocols).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tested_query_ids_sha256: Option<String>,
    /// Documents (nodes).
    pub documents: usize,
    /// SHA-256 of the document ids.
    pub document_ids_sha256: String,
}

/// `provenance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// `bench <version>`.
    pub program: String,
    /// The commit the program was built from.
    pub git_commit: Option<String>,
    /// Whether its work tree had changes.
    pub git_dirty: Option<bool>,
    /// The dataset file read.
    pub dataset: DatasetFile,
    /// The embedder.
    pub embedder: EmbedderId,
    /// The run's RNG seeds (`null`: none drawn).
    pub seeds: Option<Seeds>,
}

/// `provenance.dataset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetFile {
    /// The known file it is (by content), if any.
    pub known_file: Option<String>,
    /// Its name.
    pub file: String,
    /// SHA-256 of its bytes.
    pub file_sha256: String,
    /// SHA-256 of its content (decompressed).
    pub content_sha256: String,
}

/// Which embedder a run used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedderId {
    /// The embedder's name (`hash-v1`, `all-MiniLM-L6-v2`).
    pub id: String,
    /// Vector dimension.
    pub dim: usize,
    /// SHA-256 of the model weights; `None` for `hash-v1`, which has none.
    pub weights_sha256: Option<String>,
}

/// `provenance.seeds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seeds {
    /// Of the bootstrap and the permutation tests.
    pub bootstrap: u64,
    /// Of the held-out splits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub splits: Option<u64>,
    /// Of the dev-pool draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev: Option<u64>,
}

/// `embedding_stats`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingStats {
    /// Texts embedded (nodes and queries).
    pub texts: usize,
    /// Distinct texts.
    pub distinct_texts: usize,
    /// Computed.
    pub embedded: usize,
    /// Read from the cache.
    pub from_cache: usize,
    /// Seconds.
    pub seconds: f64,
    /// Computed per second.
    pub embedded_per_s: Option<f64>,
}
