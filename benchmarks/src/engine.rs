//! What the protocols of `bench run` share: loading the rows ([`load_data`]), opening the
//! embedder beside them ([`Inputs::open`]), and the first half of every execution —
//! embed nodes and queries, exact cosine search ([`dense_search`], once per query, on the
//! plan's [`DenseSearch`] path; every method reads a prefix of the same stable ranking),
//! build the graph ([`prepare`]) — then the method runs of a stream ([`run_stream`]).
//! No protocol lives here and nothing here writes a report: the protocols
//! ([`crate::standard`], [`crate::heldout`], [`crate::official_run`]) call these pieces
//! and hand their documents to the one writer ([`crate::report`]).
//!
//! Everything is deterministic (same inputs and options → the same report, whatever
//! `--threads` and whether the embeddings came from the cache) except the fields that
//! describe the machine and the moment, listed in [`crate::report::ENVIRONMENT_FIELDS`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use crabpath::{Graph, UnitVectors};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget};

use crate::build::{build_graph, Corpus};
use crate::catalog::{self, Dataset, KnownFile};
use crate::data::json::{sha256_of_reader, GZIP_MAGIC};
use crate::data::locate::{resolve_input, DataDir};
use crate::data::{hotpotqa, multihop};
use crate::dense::{DenseIndex, DenseSearch, Hits};
use crate::embed::{EmbedStats, TextEmbedder};
use crate::error::{Error, Result};
use crate::methods::{run_methods, MethodParams, MethodRun, RouterInputs, Stage};
use crate::plan::{DatasetArgs, Plan};
use crate::schedule::Step;
use results::bench::EmbedderId;

/// The rows of a run, loaded and turned into the reference's corpus.
#[derive(Debug)]
pub struct LoadedData {
    /// Which dataset.
    pub ds: Dataset,
    /// The file read.
    pub path: PathBuf,
    /// SHA-256 of the decompressed content.
    pub content_sha: String,
    /// SHA-256 of the file's bytes.
    pub file_sha: String,
    /// The known file it is (by content), if any.
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

    /// The file's name (without its directory).
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    }
}

/// SHA-256 of a file's bytes.
pub fn sha256_of_file(path: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(hex::encode(Sha256::digest(&bytes)))
}

/// SHA-256 of the file's bytes and of its content (decompressed when it is gzip, the
/// convention of
/// [`crate::data::json::sha256_of_content`]), from one read of the file.
pub fn file_and_content_sha256(path: &Path) -> Result<(String, String)> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let file_sha = hex::encode(Sha256::digest(&bytes));
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok((file_sha.clone(), file_sha));
    }
    let content_sha = sha256_of_reader(
        path,
        &mut flate2::read::MultiGzDecoder::new(bytes.as_slice()),
    )?;
    Ok((file_sha, content_sha))
}

/// A staged dataset's whole corpus (every row) with its clean graph (the reference's
/// builder, no shared edge state): what the product-path studies (`bench guard`, `bench
/// neurogenesis`) build their brains from.
pub fn staged_clean_corpus(
    data_dir: &DataDir,
    dataset: Dataset,
    variant: crate::catalog::VariantArg,
) -> Result<(LoadedData, Graph)> {
    let d = load_data(
        data_dir,
        &DatasetArgs {
            dataset,
            variant,
            input: None,
            limit: Some(0),
        },
    )?;
    let graph = build_graph(
        &d.corpus,
        crate::build::GraphBuilder::Reference,
        false,
        None,
    )?;
    Ok((d, graph))
}

/// Finds, checks and loads the rows `a` selects.
pub fn load_data(data_dir: &DataDir, a: &DatasetArgs) -> Result<LoadedData> {
    let ds = a.dataset;
    let file = catalog::known_file(ds, a.variant)?;
    let path = resolve_input(a.input.as_deref(), data_dir, file)?;
    let limit = a.limit();
    let lim = (limit > 0).then_some(limit);
    // The checksums and the rows are independent reads of the file: done side by side.
    let (shas, corpus) = rayon::join(
        || file_and_content_sha256(&path),
        || match ds {
            Dataset::HotpotQa => Corpus::from_hotpotqa(&hotpotqa::load_questions(&path, lim)?),
            Dataset::MultihopRag => Corpus::from_multihop(&multihop::load_queries(
                &path,
                multihop::QuerySelection::paper(lim),
            )?),
            Dataset::Locomo => Err(Error::Usage(
                "LoCoMo is not a query stream over one corpus (one brain per conversation): \
                 the standard, official and held-out protocols do not run it"
                    .into(),
            )),
        },
    );
    let (file_sha, content_sha) = shas?;
    let corpus = corpus?;
    let recognised = catalog::by_sha256(&content_sha);
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

/// Wall-clock seconds of the stages of a run, in order (the report's `timings_s`).
#[derive(Debug, Clone, Default)]
pub struct Timings(pub Vec<(String, f64)>);

impl Timings {
    /// Records the seconds since `t` under `name`.
    pub fn tick(&mut self, name: &str, t: Instant) {
        self.0.push((name.to_string(), t.elapsed().as_secs_f64()));
    }

    /// The report's `timings_s`: stage → seconds rounded to milliseconds.
    pub fn to_map(&self) -> indexmap::IndexMap<String, f64> {
        self.0
            .iter()
            .map(|(k, s)| (k.clone(), (s * 1000.0).round() / 1000.0))
            .collect()
    }
}

/// The embedder and the rows of a run.
#[derive(Debug)]
pub struct Inputs {
    /// The text embedder.
    pub embedder: TextEmbedder,
    /// The rows.
    pub data: LoadedData,
}

impl Inputs {
    /// Opens the embedder and loads the rows side by side (see the module docs); an error of
    /// the embedder (such as a missing model) is the one reported when both fail.
    pub fn open(plan: &Plan, data_dir: &DataDir, timings: &mut Timings) -> Result<Inputs> {
        let ((embedder, t_embedder), (data, t_data)) = rayon::join(
            || {
                let t = Instant::now();
                let e = TextEmbedder::open(plan.args.embedder, &plan.args.model);
                (e, t.elapsed().as_secs_f64())
            },
            || {
                let t = Instant::now();
                let d = load_data(data_dir, &plan.args.data);
                (d, t.elapsed().as_secs_f64())
            },
        );
        let embedder = embedder?;
        let data = data?;
        timings.0.push(("embedder_load".to_string(), t_embedder));
        timings.0.push(("load".to_string(), t_data));
        Ok(Inputs { embedder, data })
    }
}

/// A progress display on stderr, or hidden.
pub fn progress(visible: bool) -> MultiProgress {
    MultiProgress::with_draw_target(if visible {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    })
}

/// The graph's size, as every report records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphStats {
    /// Nodes of the graph.
    pub nodes: usize,
    /// Edges of the graph.
    pub edges: usize,
    /// Edges the label operations added or raised (0 without label edges).
    pub set_by_labels: usize,
}

/// What every execution starts from: the embedded corpus searched and its graph built
/// ([`prepare`]); the methods then run over a [`Stage`] of it ([`Prepared::stage`]).
#[derive(Debug)]
pub struct Prepared {
    /// Name, dimension and weights of the embedder.
    pub embedder: EmbedderId,
    /// What embedding cost.
    pub embed_stats: EmbedStats,
    /// The graph.
    pub graph: Graph,
    /// Its size.
    pub graph_stats: GraphStats,
    /// Every query's cosine hits, best first, as deep as any method reads.
    pub hits: Hits,
    /// Node and query vectors, when a method routes.
    pub router_inputs: Option<RouterInputs>,
    /// The methods' parameters.
    pub params: MethodParams,
}

impl Prepared {
    /// The stage the methods of `steps` read (an empty schedule for protocols that make
    /// their own, such as the held-out splits).
    pub fn stage<'a>(&'a self, corpus: &'a Corpus, steps: &'a [Step]) -> Stage<'a> {
        Stage::new(
            corpus,
            &self.hits,
            &self.graph,
            steps,
            &self.params,
            self.router_inputs.as_ref(),
        )
    }
}

/// Embeds, searches and builds the graph of `plan` on `inputs`: the first half of every
/// execution (see the module docs).
pub fn prepare(
    plan: &Plan,
    inputs: &Inputs,
    progress: &MultiProgress,
    timings: &mut Timings,
) -> Result<Prepared> {
    let (embedder, data) = (&inputs.embedder, &inputs.data);
    let corpus = &data.corpus;
    let _ = progress.println(format!(
        "bench run: {} ({} queries, {} nodes) from {}",
        data.ds.reference_name(),
        corpus.queries.len(),
        corpus.nodes.len(),
        data.path.display()
    ));

    let t = Instant::now();
    let texts = data.texts();
    let b = progress.add(ProgressBar::new(texts.len() as u64));
    crate::embed::style_bar(&b);
    b.set_message("embed");
    let (mut vectors, embed_stats) = embedder.embed(&texts, &b)?;
    b.finish_and_clear();
    drop(texts);
    let _ = progress.println(format!("bench run: embedded {}", embed_stats.describe()));
    let query_vecs = vectors.split_off(corpus.nodes.len());
    let router_inputs = match plan.routes() {
        true => Some(RouterInputs {
            nodes: UnitVectors::from_rows(&vectors)
                .map_err(|e| Error::core("node vectors for the routers", e))?,
            queries: query_vecs.clone(),
        }),
        false => None,
    };
    timings.tick("embed", t);
    let t = Instant::now();
    let (index, hits) = dense_search(
        plan.dense_search,
        &vectors,
        &query_vecs,
        embedder.dim(),
        plan.dense_depth(),
    )?;
    drop((vectors, query_vecs));
    timings.tick("search", t);

    let t = Instant::now();
    let graph = build_graph(corpus, plan.builder, plan.label_edges, Some(&index))?;
    let set_by_labels = if plan.label_edges {
        let free = build_graph(corpus, plan.builder, false, Some(&index))?;
        edges_set_by_labels(&graph, &free)
    } else {
        0
    };
    drop(index);
    timings.tick("graph", t);

    Ok(Prepared {
        embedder: embedder.id()?,
        embed_stats,
        graph_stats: GraphStats {
            nodes: graph.node_count(),
            edges: graph.edge_count(),
            set_by_labels,
        },
        graph,
        hits,
        router_inputs,
        params: MethodParams {
            dataset: data.ds,
            seed_top_k: plan.args.seed_top_k,
            seed_source: plan.args.seed_source,
            embed_top_k: plan.args.embed_top_k,
            traversal: plan.traversal.clone(),
            learning: plan.learning.clone(),
            pg: plan.pg,
            shared_edge_state: plan.args.shared_edge_state,
            router: plan.router,
        },
    })
}

/// What a stream of queries produced: every method's lists over the plan's schedule.
#[derive(Debug)]
pub struct StreamRun {
    /// Name, dimension and weights of the embedder.
    pub embedder: EmbedderId,
    /// What embedding cost.
    pub embed_stats: EmbedStats,
    /// The graph's size.
    pub graph: GraphStats,
    /// The schedule's steps.
    pub steps: Vec<Step>,
    /// Every method's results, in the plan's order.
    pub runs: Vec<MethodRun>,
}

impl StreamRun {
    /// The scored query indices, in step order (the order of every method's lists).
    pub fn scored(&self) -> Vec<usize> {
        self.steps
            .iter()
            .filter(|s| s.scored)
            .map(|s| s.query)
            .collect()
    }

    /// Steps after which the learning methods learned.
    pub fn learned(&self) -> usize {
        self.steps.iter().filter(|s| s.learn).count()
    }
}

/// Prepares `plan` on `inputs` and runs its methods over its schedule (the execution of
/// the stream protocols: the standard and the official one).
pub fn run_stream(
    plan: &Plan,
    inputs: &Inputs,
    progress: &MultiProgress,
    timings: &mut Timings,
) -> Result<StreamRun> {
    let prepared = prepare(plan, inputs, progress, timings)?;
    let corpus = &inputs.data.corpus;
    let steps = plan.schedule.steps(corpus.queries.len());
    let stage = prepared.stage(corpus, &steps);
    let t = Instant::now();
    stage.prepare(&plan.methods);
    timings.tick("bm25_index_and_seeds", t);
    let runs = run_methods(&plan.methods, &stage, progress)?;
    for r in &runs {
        timings.0.push((r.method.name.to_string(), r.seconds));
    }
    drop(stage);
    Ok(StreamRun {
        embedder: prepared.embedder,
        embed_stats: prepared.embed_stats,
        graph: prepared.graph_stats,
        steps,
        runs,
    })
}

/// The search step of a run: indexes the node vectors on `path` and returns the index (the
/// kNN graph builder reads it) with the first `depth` `(node, cosine)` hits of every query,
/// best first, ties by node order (see [`crate::dense`]).
pub fn dense_search(
    path: DenseSearch,
    node_vecs: &[Vec<f64>],
    query_vecs: &[Vec<f64>],
    dim: usize,
    depth: usize,
) -> Result<(DenseIndex, Hits)> {
    let index = DenseIndex::new(path, node_vecs, dim)?;
    let hits = index.search_all(query_vecs, depth)?;
    Ok((index, hits))
}

/// Edges of `graph` whose weight differs from (or is absent in) the label-free `free` graph:
/// those the label operations added or raised (HotPotQA's supporting-fact pairs are always
/// context pairs too, so there they only raise 0.3 to 0.5).
fn edges_set_by_labels(graph: &Graph, free: &Graph) -> usize {
    graph
        .edges()
        .filter(|&(s, t, e)| free.weight(s, t) != Some(e.weight))
        .count()
}
