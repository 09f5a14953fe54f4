//! `bench run`: one benchmark run end to end (BENCH.md §1 protocol, §3 requirements).
//!
//! Open the embedder ([`crate::embed`]) → load the rows → [`Corpus`] → embed nodes and
//! queries → exact cosine search ([`CosineIndex`], once per query; `embedding_topk` and the
//! traversal seeds are prefixes of the same stable ranking) → build the graph for the protocol → run the methods ([`crate::methods`]) → per-query
//! metrics ([`crate::metrics`]) → JSON report, TREC run files and qrels, all written
//! atomically (temporary file + rename).
//!
//! The JSON keeps the reference program's keys with the same shapes (`dataset`,
//! `dataset_queries`, `graph_nodes`, `graph_edges`, `parameters`, `method_metrics`
//! `{method: {metric: mean}}`, `learning_curves` `{method: {"<n>": {metric: cumulative
//! mean}}}` for the two learning methods and the reference metrics, `checkpoints`,
//! `traversal`), and adds the protocol, checksums, budget-matched metrics, curves of every
//! method (`learning_curves_all`, a list of `{"query": n, metric: ...}`), paired bootstrap
//! intervals and the output file names. Everything is deterministic (same inputs and flags
//! → byte-identical JSON, whatever `--threads` and whether the embeddings came from the
//! cache) except `timings_s` and `embedding_stats` (texts embedded vs. read from the cache,
//! texts/s), which `--no-timings` leaves out.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use crabpath::{LearningConfig, PgArgs, Profile, TraversalConfig};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use crate::build::{build_graph, Corpus, DatasetKind, GraphBuilder};
use crate::catalog::{self, KnownFile, Variant};
use crate::data::json::sha256_of_content;
use crate::data::locate::{resolve_input, DataDir};
use crate::data::{hotpotqa, multihop};
pub use crate::embed::EmbedderArg;
use crate::embed::{ModelOpts, TextEmbedder};
use crate::error::{Error, Result};
use crate::methods::{self, MethodParams, LEARNING_METHODS, METHODS};
use crate::metrics;
use crate::retrieval::{Bm25, CosineIndex};

/// `--dataset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DatasetArg {
    /// HotPotQA dev distractor (BENCH.md §1.2).
    Hotpotqa,
    /// MultiHop-RAG queries (BENCH.md §1.3).
    MultihopRag,
}

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// The reference protocol exactly, label-derived 0.5 edges included (BENCH.md §1, §2.1).
    Paper,
    /// No edge built from any label: the 0.5 edges are dropped, all else as paper (BENCH.md §3).
    Clean,
}

/// `--graph`.
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

/// `--variant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariantArg {
    /// The complete upstream file.
    Full,
    /// HotPotQA staged subset: first 103 questions.
    First103,
    /// HotPotQA staged subset: sample of 1100 questions.
    Sample1100,
    /// MultiHop-RAG staged subset: sample of 500 queries.
    Sample500,
}

/// `--core-profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// Reference semantics, bugs included (what reproduces the reference numbers).
    Paper,
    /// The core's corrected semantics (crabpath::Profile::Corrected).
    Corrected,
}

/// Which rows a run reads (shared by `bench run` and `bench embed`).
#[derive(Debug, Clone, Args)]
pub struct DatasetArgs {
    /// Benchmark to run.
    #[arg(long, value_enum)]
    pub dataset: DatasetArg,

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

/// Arguments of `bench run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Dataset, file and rows.
    #[command(flatten)]
    pub data: DatasetArgs,

    /// paper = the reference protocol with its label-derived edges; clean = those dropped.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Paper)]
    pub protocol: ProtocolArg,

    /// Text embedder for nodes and queries (BENCH.md §3): hash-v1 reproduces the reference;
    /// minilm is all-MiniLM-L6-v2 through the embedding cache.
    #[arg(long, value_enum, default_value_t = EmbedderArg::HashV1)]
    pub embedder: EmbedderArg,

    /// Model and cache locations (--embedder minilm).
    #[command(flatten)]
    pub model: ModelOpts,

    /// Label-free base edges of the graph (the paper protocol adds the label edges on top).
    #[arg(long, value_enum, default_value_t = GraphArg::Reference)]
    pub graph: GraphArg,

    /// Neighbours per node for --graph knn.
    #[arg(long, value_name = "K", default_value_t = 5)]
    pub knn_k: usize,

    /// Seeds per traversal (first hits of the cosine search).
    #[arg(long, value_name = "K", default_value_t = 8)]
    pub seed_top_k: usize,

    /// Results of embedding_topk and bm25_topk.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub embed_top_k: usize,

    /// Traversal max_hops.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_hops: usize,

    /// Traversal beam_width.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub beam_width: usize,

    /// Learning rate of both learning rules.
    #[arg(long, value_name = "X", default_value_t = 0.3)]
    pub lr: f64,

    /// Discount of both learning rules.
    #[arg(long, value_name = "X", default_value_t = 0.9)]
    pub discount: f64,

    /// Core semantics for traversal and learning.
    #[arg(long, value_enum, default_value_t = ProfileArg::Paper)]
    pub core_profile: ProfileArg,

    /// Reproduce the reference's shared edge objects (BENCH.md §2 defect 2): PG starts from
    /// the weights the heuristic run left on the base graph's edges. Default: deep copies.
    #[arg(long)]
    pub shared_edge_state: bool,

    /// Learn on the first fraction F of the queries (prequentially), freeze the graph, and
    /// score every method on the rest only. Default: prequential over all queries.
    #[arg(long, value_name = "F")]
    pub split: Option<f64>,

    /// Paired bootstrap resamples for the 95% intervals (0 = none).
    #[arg(long, value_name = "B", default_value_t = 1000)]
    pub bootstrap: usize,

    /// Seed of the bootstrap's ChaCha8 generator.
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub bootstrap_seed: u64,

    /// Output JSON path; run files (`<out>.<method>.run`) and qrels (`<out>.qrels`) go beside
    /// it [default:
    /// `results/bench/<file>-<protocol>[-<graph>]-<embedder>[-shared][-splitF].json`, embedder
    /// hash-v1 or minilm].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Leave the wall-clock timings out of the JSON (for byte-for-byte comparisons).
    #[arg(long)]
    pub no_timings: bool,

    /// Write only the JSON report (no TREC run files or qrels).
    #[arg(long)]
    pub no_run_files: bool,

    /// Do not draw progress bars.
    #[arg(long)]
    pub no_progress: bool,

    /// Worker threads (0 = rayon's default: one per core). Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

/// What a finished run wrote.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The JSON report.
    pub json_path: PathBuf,
    /// The report itself.
    pub report: Value,
}

fn dataset_kind(a: DatasetArg) -> DatasetKind {
    match a {
        DatasetArg::Hotpotqa => DatasetKind::HotpotQa,
        DatasetArg::MultihopRag => DatasetKind::MultihopRag,
    }
}

fn known_file(ds: DatasetKind, v: VariantArg) -> Result<&'static KnownFile> {
    let cds = match ds {
        DatasetKind::HotpotQa => catalog::Dataset::HotpotQa,
        DatasetKind::MultihopRag => catalog::Dataset::MultihopRag,
    };
    let var = match v {
        VariantArg::Full => Variant::Full,
        VariantArg::First103 => Variant::First103,
        VariantArg::Sample1100 => Variant::Sample1100,
        VariantArg::Sample500 => Variant::Sample500,
    };
    catalog::lookup(cds, var).ok_or_else(|| {
        Error::Usage(format!(
            "--variant {v:?} does not exist for {cds}; HotPotQA has full, first103, sample1100; \
             MultiHop-RAG has full, sample500"
        ))
    })
}

fn sha256_of_file(path: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(hex::encode(Sha256::digest(&bytes)))
}

fn bar(mp: &MultiProgress, len: usize, msg: &str) -> ProgressBar {
    let b = mp.add(ProgressBar::new(len as u64));
    if let Ok(style) =
        ProgressStyle::with_template("{msg:>22} [{bar:30}] {pos}/{len} {elapsed_precise}")
    {
        b.set_style(style.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// The rows of a run, loaded and turned into the reference's corpus (BENCH.md §1.1–§1.3).
#[derive(Debug)]
pub struct LoadedData {
    /// Which dataset.
    pub ds: DatasetKind,
    /// The file read.
    pub path: PathBuf,
    /// SHA-256 of the decompressed content.
    pub content_sha: String,
    /// SHA-256 of the file's bytes.
    pub file_sha: String,
    /// The known file it is, if any.
    pub recognised: Option<&'static KnownFile>,
    /// The row limit applied (0 = all).
    pub limit: usize,
    /// Nodes and queries.
    pub corpus: Corpus,
}

impl LoadedData {
    /// Every text a run embeds: node contents in node order, then the queries in order.
    pub fn texts(&self) -> Vec<&str> {
        self.corpus
            .nodes
            .iter()
            .map(|x| x.content.as_str())
            .chain(self.corpus.queries.iter().map(|q| q.text.as_str()))
            .collect()
    }
}

/// Finds, checks and loads the rows `a` selects.
pub fn load_data(data_dir: &DataDir, a: &DatasetArgs) -> Result<LoadedData> {
    let ds = dataset_kind(a.dataset);
    let file = known_file(ds, a.variant)?;
    let path = resolve_input(a.input.as_deref(), data_dir, file)?;
    let content_sha = sha256_of_content(&path)?;
    let file_sha = sha256_of_file(&path)?;
    let recognised = catalog::by_sha256(&content_sha);
    let limit = a.limit.unwrap_or_else(|| ds.default_limit());
    let lim = (limit > 0).then_some(limit);
    let corpus = match ds {
        DatasetKind::HotpotQa => Corpus::from_hotpotqa(&hotpotqa::load_questions(&path, lim)?)?,
        DatasetKind::MultihopRag => Corpus::from_multihop(&multihop::load_queries(
            &path,
            multihop::QuerySelection::paper(lim),
        )?)?,
    };
    if corpus.nodes.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no nodes were built from the dataset",
            path.display()
        )));
    }
    Ok(LoadedData {
        ds,
        path,
        content_sha,
        file_sha,
        recognised,
        limit,
        corpus,
    })
}

/// Sizes rayon's global pool (`--threads`; 0 keeps rayon's default). A pool that already
/// exists (e.g. built by a test) is kept.
pub fn set_threads(threads: usize) {
    if threads > 0 {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
}

/// Runs `bench run` with these arguments.
pub fn cmd_run(data_dir: &DataDir, a: &RunArgs) -> Result<RunOutput> {
    set_threads(a.threads);
    if let Some(f) = a.split {
        if !(f > 0.0 && f < 1.0) {
            return Err(Error::Usage(format!("--split must be in (0, 1), got {f}")));
        }
    }
    let t_all = Instant::now();
    let mut timings = Map::new();
    let mut tick = |name: &str, t: Instant| {
        timings.insert(
            name.to_string(),
            json!((t.elapsed().as_secs_f64() * 1000.0).round() / 1000.0),
        );
    };
    let mp = MultiProgress::with_draw_target(if a.no_progress {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    });

    // ---- embedder (first, so that a missing model stops the run before any data) -----
    let t = Instant::now();
    let embedder = TextEmbedder::open(a.embedder, &a.model)?;
    tick("embedder_load", t);

    // ---- data -----------------------------------------------------------------------
    let t = Instant::now();
    let data = load_data(data_dir, &a.data)?;
    tick("load", t);
    let _ = mp.println(format!(
        "bench run: {} ({} queries, {} nodes) from {}",
        data.ds.reference_name(),
        data.corpus.queries.len(),
        data.corpus.nodes.len(),
        data.path.display()
    ));

    // ---- embeddings and search ------------------------------------------------------
    let t = Instant::now();
    let texts = data.texts();
    let b = mp.add(ProgressBar::new(texts.len() as u64));
    crate::embed::style_bar(&b);
    b.set_message("embed");
    let (mut vectors, embed_stats) = embedder.embed(&texts, &b)?;
    b.finish_and_clear();
    drop(texts);
    let _ = mp.println(format!("bench run: embedded {}", embed_stats.describe()));
    let (ds, limit, recognised, corpus) = (data.ds, data.limit, data.recognised, &data.corpus);
    let n = corpus.queries.len();
    let query_vecs = vectors.split_off(corpus.nodes.len());
    let index = CosineIndex::new(&vectors, embedder.dim())?;
    drop(vectors);
    tick("embed", t);
    let t = Instant::now();
    let k_hits = a.seed_top_k.max(a.embed_top_k);
    let hits = index.search_all(&query_vecs, k_hits);
    drop(query_vecs);
    tick("search", t);

    // ---- graph ----------------------------------------------------------------------
    let t = Instant::now();
    let builder = match a.graph {
        GraphArg::Reference => GraphBuilder::Reference,
        GraphArg::TitleMentions => GraphBuilder::TitleMentions,
        GraphArg::Knn => GraphBuilder::Knn(a.knn_k),
    };
    let label_edges = a.protocol == ProtocolArg::Paper;
    let graph = build_graph(corpus, builder, label_edges, Some(&index))?;
    // Edges the label operations added or boosted (HotPotQA's supporting-fact pairs are
    // always context pairs too, so there they only raise 0.3 to 0.5).
    let edges_set_by_labels = if label_edges {
        let free = build_graph(corpus, builder, false, Some(&index))?;
        graph
            .edges()
            .filter(|&(s, t, e)| free.weight(s, t) != Some(e.weight))
            .count()
    } else {
        0
    };
    drop(index);
    tick("graph", t);

    // ---- methods --------------------------------------------------------------------
    let profile = match a.core_profile {
        ProfileArg::Paper => Profile::Paper,
        ProfileArg::Corrected => Profile::Corrected,
    };
    let traversal = profile.adjust_traversal(TraversalConfig {
        max_hops: a.max_hops,
        beam_width: a.beam_width,
        ..TraversalConfig::default()
    });
    let learning = profile.adjust_learning(LearningConfig {
        learning_rate: a.lr,
        discount: a.discount,
        ..LearningConfig::default()
    });
    let train = match a.split {
        Some(f) => ((n as f64) * f).floor() as usize,
        None => n,
    };
    let params = MethodParams {
        dataset: ds,
        seed_top_k: a.seed_top_k,
        embed_top_k: a.embed_top_k,
        traversal: traversal.clone(),
        learning: learning.clone(),
        pg: PgArgs {
            baseline: 0.0,
            temperature: 1.0,
        },
        shared_edge_state: a.shared_edge_state,
        train,
    };
    let relevant: Vec<Vec<usize>> = corpus.queries.iter().map(|q| q.relevant.clone()).collect();

    let t = Instant::now();
    let emb_topk = methods::embedding_topk(&hits, a.embed_top_k);
    tick("embedding_topk", t);
    let t = Instant::now();
    let b = bar(&mp, n, "crabpath_cold");
    let cold = methods::cold(&graph, &hits, &params, &b)?;
    b.finish_and_clear();
    tick("crabpath_cold", t);
    let t = Instant::now();
    let b1 = bar(&mp, n, "crabpath_learning");
    let b2 = bar(&mp, n, "crabpath_pg_learning");
    let (learn, pg) = methods::learning_pair(&graph, &hits, &relevant, &params, (&b1, &b2))?;
    b1.finish_and_clear();
    b2.finish_and_clear();
    tick("learning_and_pg_learning", t);
    let t = Instant::now();
    let bm25 = Bm25::new(
        &corpus
            .nodes
            .iter()
            .map(|x| x.content.as_str())
            .collect::<Vec<_>>(),
    );
    let bm25_topk: Vec<Vec<usize>> = corpus
        .queries
        .par_iter()
        .map(|q| {
            bm25.search(&q.text, a.embed_top_k)
                .into_iter()
                .map(|x| x.0)
                .collect()
        })
        .collect();
    drop(bm25);
    tick("bm25_topk", t);
    let retrieved: [&Vec<Vec<usize>>; 5] = [&emb_topk, &cold, &learn, &pg, &bm25_topk];

    // ---- metrics --------------------------------------------------------------------
    let t = Instant::now();
    let names = metrics::all_metric_names(ds);
    let ref_names = metrics::reference_metric_names(ds);
    let width = names.len();
    let scored = train.min(n)..n;
    let scored = if a.split.is_some() { scored } else { 0..n };
    let rows: Vec<Vec<Vec<f64>>> = retrieved
        .iter()
        .map(|lists| {
            scored
                .clone()
                .map(|q| metrics::query_metrics(ds, &lists[q], &relevant[q], a.embed_top_k))
                .collect()
        })
        .collect();
    let obj = |vals: &[f64], only_ref: bool| -> Value {
        let mut m = Map::new();
        for (name, v) in names.iter().zip(vals) {
            if !only_ref || ref_names.contains(name) {
                m.insert((*name).to_string(), json!(v));
            }
        }
        Value::Object(m)
    };
    let mut method_metrics = Map::new();
    for (mi, name) in METHODS.iter().enumerate() {
        method_metrics.insert(
            (*name).into(),
            obj(&metrics::mean_rows(&rows[mi], width), false),
        );
    }
    let checkpoints = ds.checkpoints();
    let mut learning_curves = Map::new();
    for name in LEARNING_METHODS {
        let mi = METHODS.iter().position(|m| *m == name).unwrap_or(0);
        let mut c = Map::new();
        for (q, vals) in metrics::curve(&rows[mi], width, checkpoints) {
            c.insert(q.to_string(), obj(&vals, true));
        }
        learning_curves.insert(name.into(), Value::Object(c));
    }
    let mut all_points: Vec<usize> = checkpoints.to_vec();
    if !all_points.contains(&rows[0].len()) {
        all_points.push(rows[0].len());
    }
    let mut curves_all = Map::new();
    for (mi, name) in METHODS.iter().enumerate() {
        let pts: Vec<Value> = metrics::curve(&rows[mi], width, &all_points)
            .into_iter()
            .map(|(q, vals)| {
                let mut m = Map::new();
                m.insert("query".into(), json!(q));
                if let Value::Object(o) = obj(&vals, false) {
                    m.extend(o);
                }
                Value::Object(m)
            })
            .collect();
        curves_all.insert((*name).into(), Value::Array(pts));
    }
    let headline = metrics::headline_metrics(ds);
    let mut ci = Map::new();
    let col = |mi: usize, k: usize| -> Vec<f64> { rows[mi].iter().map(|r| r[k]).collect() };
    let mut series_owned: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    let mut keys: Vec<(usize, &str)> = Vec::new();
    for mi in 1..METHODS.len() {
        for h in &headline {
            if let Some(k) = names.iter().position(|x| x == h) {
                series_owned.push((col(mi, k), col(0, k)));
                keys.push((mi, h));
            }
        }
    }
    let series: Vec<(&[f64], &[f64])> = series_owned
        .iter()
        .map(|(x, y)| (x.as_slice(), y.as_slice()))
        .collect();
    let cis = metrics::paired_bootstrap(&series, a.bootstrap, a.bootstrap_seed);
    for ((mi, h), c) in keys.iter().zip(cis) {
        let entry = ci
            .entry(METHODS[*mi].to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = entry {
            m.insert(
                (*h).to_string(),
                json!({"diff": c.diff, "ci95_low": c.lo, "ci95_high": c.hi}),
            );
        }
    }
    tick("metrics", t);

    // ---- output ---------------------------------------------------------------------
    let file_key = recognised.map_or(ds.slug(), |f| f.key);
    let out = match &a.out {
        Some(p) => p.clone(),
        None => {
            let mut name = file_key.to_string();
            if limit > 0 && n == limit && recognised.and_then(|f| f.rows) != Some(n) {
                name.push_str(&format!("-limit{limit}"));
            }
            name.push_str(match a.protocol {
                ProtocolArg::Paper => "-paper",
                ProtocolArg::Clean => "-clean",
            });
            if builder != GraphBuilder::Reference {
                name.push('-');
                name.push_str(builder.name());
            }
            name.push('-');
            name.push_str(a.embedder.slug());
            if a.core_profile == ProfileArg::Corrected {
                name.push_str("-corrected");
            }
            if a.shared_edge_state {
                name.push_str("-shared");
            }
            if let Some(f) = a.split {
                name.push_str(&format!("-split{f}"));
            }
            PathBuf::from("results/bench").join(format!("{name}.json"))
        }
    };
    let out_name = out
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bench.json".into());
    let run_name = |m: &str| format!("{out_name}.{m}.run");
    let qrels_name = format!("{out_name}.qrels");

    let mut report = Map::new();
    let mut put = |k: &str, v: Value| {
        report.insert(k.to_string(), v);
    };
    put("dataset", json!(ds.reference_name()));
    put(
        "dataset_file",
        json!(data
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())),
    );
    put("dataset_known_file", json!(recognised.map(|f| f.key)));
    put("dataset_sha256", json!(data.content_sha));
    put("dataset_file_sha256", json!(data.file_sha));
    put("dataset_queries", json!(n));
    put(
        "protocol",
        json!(if label_edges { "paper" } else { "clean" }),
    );
    put("graph_builder", json!(builder.name()));
    put("embedder", json!(embedder.name()));
    put("core_profile", json!(profile.as_str()));
    put("graph_nodes", json!(graph.node_count()));
    put("graph_edges", json!(graph.edge_count()));
    put("graph_edges_set_by_labels", json!(edges_set_by_labels));
    put(
        "parameters",
        json!({
            "limit": limit,
            "seed_top_k": a.seed_top_k,
            "embed_top_k": a.embed_top_k,
            "max_hops": a.max_hops,
            "beam_width": a.beam_width,
            "learning_rate": a.lr,
            "discount": a.discount,
            "pg_temperature": 1.0,
            "pg_baseline": 0.0,
            "knn_k": if matches!(builder, GraphBuilder::Knn(_)) { json!(a.knn_k) } else { Value::Null },
            "shared_edge_state": a.shared_edge_state,
            "split": a.split,
            "bootstrap": a.bootstrap,
            "bootstrap_seed": a.bootstrap_seed,
        }),
    );
    put(
        "evaluation",
        json!({
            "mode": if a.split.is_some() { "split" } else { "prequential" },
            "learned_from_queries": train.min(n),
            "scored_queries": rows[0].len(),
            "scored_from_query": scored.start,
            "outcome_metric": metrics::outcome_metric(ds),
            "queries_without_relevant": corpus.queries.iter().filter(|q| q.relevant.is_empty()).count(),
        }),
    );
    put("method_metrics", Value::Object(method_metrics));
    put("learning_curves", Value::Object(learning_curves));
    put("checkpoints", json!(checkpoints));
    put(
        "traversal",
        json!({"max_hops": a.max_hops, "beam_width": a.beam_width}),
    );
    put("learning_curves_all", Value::Object(curves_all));
    put(
        "bootstrap_ci_vs_embedding_topk",
        json!({
            "resamples": a.bootstrap,
            "seed": a.bootstrap_seed,
            "statistic": "mean(method) - mean(embedding_topk), paired over the scored queries",
            "methods": Value::Object(ci),
        }),
    );
    put("metric_notes", Value::Object(metrics::metric_notes(ds)));
    let files = if a.no_run_files {
        Value::Null
    } else {
        json!({
            "qrels": qrels_name,
            "runs": METHODS.iter().map(|m| (m.to_string(), json!(run_name(m)))).collect::<Map<_, _>>(),
            "run_format": "qid Q0 docid rank score tag; score = list length - rank + 1 (strictly decreasing, so trec_eval keeps our order); an empty node id is written as _",
        })
    };
    put("files", files);
    tick("total", t_all);
    if !a.no_timings {
        put("timings_s", Value::Object(timings));
        put(
            "embedding_stats",
            json!({
                "texts": embed_stats.texts,
                "distinct_texts": embed_stats.distinct,
                "embedded": embed_stats.computed,
                "from_cache": embed_stats.distinct - embed_stats.computed,
                "seconds": (embed_stats.seconds * 1000.0).round() / 1000.0,
                "embedded_per_s": embed_stats.computed_per_s().map(|r| (r * 10.0).round() / 10.0),
            }),
        );
    }
    let report = Value::Object(report);

    let dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut text = serde_json::to_string_pretty(&report)
        .map_err(|e| Error::Usage(format!("serialising the report: {e}")))?;
    text.push('\n');
    write_atomic(&out, text.as_bytes())?;
    if a.no_run_files {
        let _ = mp.clear();
        return Ok(RunOutput {
            json_path: out,
            report,
        });
    }
    let docid = |d: usize| -> &str {
        let id = corpus.nodes[d].id.as_str();
        if id.is_empty() {
            "_"
        } else {
            id
        }
    };
    let mut qrels = String::new();
    for q in scored.clone() {
        for &d in &corpus.queries[q].relevant {
            qrels.push_str(&format!("{} 0 {} 1\n", corpus.queries[q].qid, docid(d)));
        }
    }
    write_atomic(&dir.join(&qrels_name), qrels.as_bytes())?;
    for (mi, m) in METHODS.iter().enumerate() {
        let mut s = String::new();
        for q in scored.clone() {
            let list = &retrieved[mi][q];
            for (r, &d) in list.iter().enumerate() {
                s.push_str(&format!(
                    "{} Q0 {} {} {} {}\n",
                    corpus.queries[q].qid,
                    docid(d),
                    r + 1,
                    list.len() - r,
                    m
                ));
            }
        }
        write_atomic(&dir.join(run_name(m)), s.as_bytes())?;
    }
    let _ = mp.clear();
    Ok(RunOutput {
        json_path: out,
        report,
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// A one-screen summary of a report's `method_metrics` (printed by `bench run`).
pub fn summary(report: &Value) -> String {
    let mut s = String::new();
    let Some(mm) = report.get("method_metrics").and_then(Value::as_object) else {
        return s;
    };
    let cols = [
        "recall_at_5",
        "recall_at_10",
        "full_support_at_10",
        "mrr",
        "ndcg_at_10",
        "nodes_fired",
    ];
    s.push_str(&format!("{:<22}", "method"));
    for c in cols {
        s.push_str(&format!("{c:>20}"));
    }
    s.push('\n');
    for (m, v) in mm {
        s.push_str(&format!("{m:<22}"));
        for c in cols {
            let x = v.get(c).and_then(Value::as_f64).unwrap_or(f64::NAN);
            s.push_str(&format!("{x:>20.4}"));
        }
        s.push('\n');
    }
    s
}
