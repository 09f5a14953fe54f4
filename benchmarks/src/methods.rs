//! The retrieval methods of a run: one entry each in [`METHODS`] (its name, how it ranks,
//! whether and how it learns, what shapes its output), and the engine that runs them over a
//! [`Stage`] ([`run_methods`]).
//!
//! The first four are the reference's methods (`benchmarks/external/run_hotpotqa.py` and
//! `run_multihop_rag.py`, functions `_embedding_topk`, `_run_static` and `_run_learning`,
//! commit 134c676), in its run order; `bm25_topk` is a lexical baseline at the same budget
//! as `embedding_topk`, and `rrf_topk` the hybrid of the two by reciprocal-rank fusion
//! ([`crate::retrieval::reciprocal_rank_fusion`], `k = 60`). Adding a method is adding an entry (and, for a new way of ranking, a
//! [`Ranking`] variant and its arm in the engine).
//!
//! Learning methods walk every step of the run's [`Schedule`](crate::schedule::Schedule) in
//! order: traverse, record the result if the step is scored, then, if the step learns, apply
//! the outcome (+1 when the dataset's outcome metric is 1 for this query, else −1). The
//! query is thus scored before its own update (test-then-train, as the reference).
//!
//! **Edge state.** By default each learning method runs on its own deep copy of the base
//! graph (and they run in parallel). With `shared_edge_state` the reference's shallow copies
//! are reproduced exactly (`benchmarks/README.md`, defect 2): the learning methods run one
//! after the other in table order, and each starts from the base graph's edges carrying the
//! weights (and kinds) that the previous one left on them — the heuristic and PG rules
//! assign weights to existing edge objects in place, and the reference's copies share those
//! objects; edges *created* by a learning run are fresh objects of its own graph and are not
//! seen by the next.

use std::sync::OnceLock;
use std::time::Instant;

use crabpath::{
    apply_outcome, apply_outcome_pg, apply_outcome_router_pg, Episode, Graph, LearningConfig,
    NodeId, NodeVectors, PgArgs, QueryRouter, RouterConfig, RouterKind, TraversalConfig, Traverser,
    UnitVectors,
};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::build::{node_id, Corpus};
use crate::catalog::Dataset;
use crate::error::{Error, Result};
use crate::metrics::{Judged, Metric, METRICS};
use crate::retrieval::{reciprocal_rank_fusion, Bm25, RRF_DEPTH, RRF_K};
use crate::schedule::Step;

/// A part of a run's configuration that shapes a method's output; a method's run file is
/// named by the parts it depends on ([`Method::shaped_by`], `crate::plan::Names`), so that runs sharing them share
/// the file. The rows and the scored queries shape every output and are always named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factor {
    /// Protocol and graph builder.
    Graph,
    /// The text embedder.
    Embedder,
    /// `--embed-top-k`.
    ResultCount,
    /// Seeds, hops and beam of the traversal.
    Traversal,
    /// Learning rate and discount.
    Learning,
    /// The core profile.
    Profile,
    /// `--shared-edge-state`.
    SharedState,
    /// The dense-search arithmetic ([`crate::dense::DenseSearch`]); named only where it is
    /// not the one `auto` gives the embedder's reference runs (see
    /// [`Plan::names`](crate::plan::Plan::names)).
    DenseSearch,
    /// The router parameters (`--router-alpha`, `--router-top-k`,
    /// `--confidence-temperature`).
    Router,
    /// The list of routers: names the report only (each routed method carries its router
    /// in its own name, `<method>@<router>`).
    Routers,
}

/// One retrieved list (node indices, in rank order) per scored step.
pub type Lists = Vec<Vec<usize>>;

/// Which outcome rule a learning method applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `apply_outcome` (reference `crabpath/learn.py::apply_outcome`, commit 134c676).
    Heuristic,
    /// `apply_outcome_pg` (reference `crabpath/learn.py::apply_outcome_pg`, commit 134c676).
    PolicyGradient,
}

/// How a method ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// The first `embed_top_k` ids of the exact cosine search.
    Dense,
    /// The first `embed_top_k` ids of BM25 ([`Bm25`]).
    Bm25,
    /// The first `embed_top_k` ids of the reciprocal-rank fusion ([`RRF_K`]) of the first
    /// [`RRF_DEPTH`] BM25 hits with a positive score and the first [`RRF_DEPTH`] cosine hits.
    Rrf,
    /// `traverse` from the first `seed_top_k` cosine hits (id, score); result = the fired
    /// nodes. With a rule, the graph learns from each learning step's outcome.
    Traversal {
        /// The learning rule, `None` for a cold (frozen) graph.
        learning: Option<Rule>,
        /// The query-aware router of the habitual edges (`crabpath::router`), `None` for
        /// the core's router-less traversal. With a router the policy-gradient rule is
        /// `apply_outcome_router_pg`, the gradient of the router's own softmax.
        router: Option<RouterKind>,
    },
}

/// One entry of the method table.
#[derive(Debug, Clone, Copy)]
pub struct Method {
    /// Name in reports and run files.
    pub name: &'static str,
    /// How it ranks and whether it learns.
    pub ranking: Ranking,
    /// One line for readers of the report.
    pub about: &'static str,
    /// Parts of the configuration its output depends on besides the rows and the scored
    /// queries (names its run file, see [`Factor`]).
    pub shaped_by: &'static [Factor],
}

const TRAVERSAL_FACTORS: &[Factor] = &[
    Factor::Graph,
    Factor::Embedder,
    Factor::DenseSearch,
    Factor::Traversal,
    Factor::Profile,
];
const LEARNING_FACTORS: &[Factor] = &[
    Factor::Graph,
    Factor::Embedder,
    Factor::DenseSearch,
    Factor::Traversal,
    Factor::Learning,
    Factor::Profile,
    Factor::SharedState,
];
const ROUTED_FACTORS: &[Factor] = &[
    Factor::Graph,
    Factor::Embedder,
    Factor::Traversal,
    Factor::Profile,
    Factor::Router,
];
const ROUTED_LEARNING_FACTORS: &[Factor] = &[
    Factor::Graph,
    Factor::Embedder,
    Factor::Traversal,
    Factor::Learning,
    Factor::Profile,
    Factor::SharedState,
    Factor::Router,
];

/// The three traversal methods with router `kind`, named `<method>@<router>`.
macro_rules! routed {
    ($kind:expr, $cold:literal, $learning:literal, $pg:literal) => {
        [
            Method {
                name: $cold,
                ranking: Ranking::Traversal {
                    learning: None,
                    router: Some($kind),
                },
                about: "as crabpath_cold, habitual edges chosen by the router after @ \
                        (crabpath::router; --router-alpha, --router-top-k, \
                        --confidence-temperature)",
                shaped_by: ROUTED_FACTORS,
            },
            Method {
                name: $learning,
                ranking: Ranking::Traversal {
                    learning: Some(Rule::Heuristic),
                    router: Some($kind),
                },
                about: "as crabpath_learning, traversing with the router after @ (which reads \
                        the learned weights)",
                shaped_by: ROUTED_LEARNING_FACTORS,
            },
            Method {
                name: $pg,
                ranking: Ranking::Traversal {
                    learning: Some(Rule::PolicyGradient),
                    router: Some($kind),
                },
                about: "traversal with the router after @, learning by REINFORCE over the \
                        router's own softmax (crabpath::router_pg::apply_outcome_router_pg; \
                        temperature and baseline of the learning configuration)",
                shaped_by: ROUTED_LEARNING_FACTORS,
            },
        ]
    };
}

/// The traversal methods of every router kind (`--router`), three per kind in
/// [`RouterKind::ALL`] order: cold, heuristic learning, router policy gradient.
pub const ROUTED_METHODS: [[Method; 3]; 3] = [
    routed!(
        RouterKind::Edge,
        "crabpath_cold@edge",
        "crabpath_learning@edge",
        "crabpath_pg_learning@edge"
    ),
    routed!(
        RouterKind::EdgeSim,
        "crabpath_cold@edge+sim",
        "crabpath_learning@edge+sim",
        "crabpath_pg_learning@edge+sim"
    ),
    routed!(
        RouterKind::Adaptive,
        "crabpath_cold@adaptive",
        "crabpath_learning@adaptive",
        "crabpath_pg_learning@adaptive"
    ),
];

/// The methods of router `kind` (see [`ROUTED_METHODS`]).
pub fn routed_methods(kind: RouterKind) -> &'static [Method; 3] {
    match kind {
        RouterKind::Edge => &ROUTED_METHODS[0],
        RouterKind::EdgeSim => &ROUTED_METHODS[1],
        RouterKind::Adaptive => &ROUTED_METHODS[2],
    }
}

/// Every method, in report order.
pub const METHODS: &[Method] = &[
    Method {
        name: "embedding_topk",
        ranking: Ranking::Dense,
        about: "the first embed_top_k nodes of the exact cosine search (no graph)",
        shaped_by: &[Factor::Embedder, Factor::DenseSearch, Factor::ResultCount],
    },
    Method {
        name: "crabpath_cold",
        ranking: Ranking::Traversal {
            learning: None,
            router: None,
        },
        about: "traversal from the first seed_top_k cosine hits on the unchanged graph",
        shaped_by: TRAVERSAL_FACTORS,
    },
    Method {
        name: "crabpath_learning",
        ranking: Ranking::Traversal {
            learning: Some(Rule::Heuristic),
            router: None,
        },
        about: "as crabpath_cold, the graph learning from each outcome with the heuristic rule",
        shaped_by: LEARNING_FACTORS,
    },
    Method {
        name: "crabpath_pg_learning",
        ranking: Ranking::Traversal {
            learning: Some(Rule::PolicyGradient),
            router: None,
        },
        about: "as crabpath_cold, the graph learning from each outcome with the policy gradient \
                (temperature 1, baseline 0)",
        shaped_by: LEARNING_FACTORS,
    },
    Method {
        name: "bm25_topk",
        ranking: Ranking::Bm25,
        about: "the first embed_top_k nodes of Okapi BM25 (k1 1.2, b 0.75) over node contents; \
                not in the reference",
        shaped_by: &[Factor::ResultCount],
    },
    Method {
        name: "rrf_topk",
        ranking: Ranking::Rrf,
        about: "the first embed_top_k nodes of reciprocal-rank fusion (k 60; Cormack, Clarke & \
                Büttcher, SIGIR 2009) of the first 100 BM25 hits with a positive score and the \
                first 100 cosine hits; ties by node order; not in the reference",
        shaped_by: &[Factor::Embedder, Factor::DenseSearch, Factor::ResultCount],
    },
];

impl Method {
    /// The method named `name`.
    pub fn by_name(name: &str) -> Option<&'static Method> {
        METHODS.iter().find(|m| m.name == name)
    }

    /// The method named `name`, router variants included.
    pub fn any_by_name(name: &str) -> Option<&'static Method> {
        Method::by_name(name).or_else(|| ROUTED_METHODS.iter().flatten().find(|m| m.name == name))
    }

    /// Whether the method changes its graph as the stream goes on.
    pub fn learns(&self) -> bool {
        matches!(
            self.ranking,
            Ranking::Traversal {
                learning: Some(_),
                ..
            }
        )
    }

    /// Whether the method traverses the graph.
    pub fn traverses(&self) -> bool {
        matches!(self.ranking, Ranking::Traversal { .. })
    }

    /// The router of a traversal method (`None` for the router-less traversal and for the
    /// methods that do not traverse).
    pub fn router(&self) -> Option<RouterKind> {
        match self.ranking {
            Ranking::Traversal { router, .. } => router,
            _ => None,
        }
    }

    /// How many cosine hits per query it reads.
    pub fn dense_depth(&self, seed_top_k: usize, embed_top_k: usize) -> usize {
        match self.ranking {
            Ranking::Dense => embed_top_k,
            Ranking::Bm25 => 0,
            Ranking::Rrf => RRF_DEPTH,
            Ranking::Traversal { .. } => seed_top_k,
        }
    }
}

/// Parameters of the methods.
#[derive(Debug, Clone)]
pub struct MethodParams {
    /// Which dataset (decides the outcome metric).
    pub dataset: Dataset,
    /// Seeds per traversal.
    pub seed_top_k: usize,
    /// Where the seeds come from.
    pub seed_source: SeedSource,
    /// Results of `embedding_topk` and `bm25_topk`.
    pub embed_top_k: usize,
    /// Traversal configuration.
    pub traversal: TraversalConfig,
    /// Learning configuration.
    pub learning: LearningConfig,
    /// PG call arguments.
    pub pg: PgArgs,
    /// Reproduce the reference's shared edge objects (see the module docs).
    pub shared_edge_state: bool,
    /// Router parameters (its `kind` is each routed method's own).
    pub router: RouterConfig,
}

/// What the routers read at traversal time: the unit node vectors (row `i` = node `i`) and
/// every query's embedding, in stream order.
#[derive(Debug)]
pub struct RouterInputs {
    /// Unit node vectors.
    pub nodes: UnitVectors,
    /// Query embeddings, stream order.
    pub queries: Vec<Vec<f64>>,
}

/// Everything the methods of one run read.
#[derive(Debug)]
pub struct Stage<'a> {
    /// Nodes and queries.
    pub corpus: &'a Corpus,
    /// The cosine search of every query, best first (at least as deep as any method reads).
    pub hits: &'a [Vec<(usize, f64)>],
    /// The base graph.
    pub graph: &'a Graph,
    /// The schedule's steps.
    pub steps: &'a [Step],
    /// Parameters.
    pub params: &'a MethodParams,
    /// Node and query vectors for the routed methods (`None` when no method routes).
    pub router_inputs: Option<&'a RouterInputs>,
    /// BM25 over the node contents, built when a method first needs it.
    bm25: OnceLock<Bm25>,
    /// Per query, its BM25 ranking as deep as any method reads ([`Stage::bm25_hits`]).
    bm25_hits: Vec<OnceLock<Vec<(usize, f64)>>>,
    /// Every query's traversal seeds, computed when a traversal first needs them.
    seeds: OnceLock<Vec<Vec<(NodeId, f64)>>>,
}

impl<'a> Stage<'a> {
    /// A stage over these inputs.
    pub fn new(
        corpus: &'a Corpus,
        hits: &'a [Vec<(usize, f64)>],
        graph: &'a Graph,
        steps: &'a [Step],
        params: &'a MethodParams,
        router_inputs: Option<&'a RouterInputs>,
    ) -> Self {
        Stage {
            corpus,
            hits,
            graph,
            steps,
            params,
            router_inputs,
            bm25: OnceLock::new(),
            bm25_hits: (0..corpus.queries.len()).map(|_| OnceLock::new()).collect(),
            seeds: OnceLock::new(),
        }
    }

    fn scored(&self) -> Vec<usize> {
        self.steps
            .iter()
            .filter(|s| s.scored)
            .map(|s| s.query)
            .collect()
    }

    /// BM25 over the node contents (built on first use).
    pub fn bm25(&self) -> &Bm25 {
        self.bm25.get_or_init(|| {
            let docs: Vec<&str> = self
                .corpus
                .nodes
                .iter()
                .map(|n| n.content.as_str())
                .collect();
            Bm25::new(&docs)
        })
    }

    /// Query `q`'s first `max(RRF_DEPTH, embed_top_k)` BM25 hits ([`Bm25::search`]), searched
    /// once and shared by `bm25_topk` and `rrf_topk`: the first `k` of a deeper search are
    /// the search to depth `k` (a strict order, then zero scores in node order).
    fn bm25_hits(&self, q: usize) -> &[(usize, f64)] {
        self.bm25_hits[q].get_or_init(|| {
            let depth = RRF_DEPTH.max(self.params.embed_top_k);
            self.bm25().search(&self.corpus.queries[q].text, depth)
        })
    }

    /// Builds, on the calling thread, what `methods` will read lazily: the BM25 index and
    /// every query's seeds. Call it outside the rayon pool before running methods in
    /// parallel: a lazy initialiser that itself runs parallel work must not be entered from
    /// a pool thread, which could steal a job that waits on the same initialiser.
    pub fn prepare(&self, methods: &[&'static Method]) {
        let traverses = methods
            .iter()
            .any(|m| matches!(m.ranking, Ranking::Traversal { .. }));
        let lexical = methods
            .iter()
            .any(|m| matches!(m.ranking, Ranking::Bm25 | Ranking::Rrf));
        if lexical || (traverses && self.params.seed_source == SeedSource::Rrf) {
            self.bm25();
        }
        if traverses && !self.corpus.queries.is_empty() {
            self.seeds(0);
        }
    }

    /// `(node, score)` of the reciprocal-rank fusion of query `q`'s first [`RRF_DEPTH`]
    /// BM25 hits with a positive score and its first [`RRF_DEPTH`] cosine hits, the first
    /// `top`.
    fn fused(&self, q: usize, top: usize) -> Vec<(usize, f64)> {
        let lexical: Vec<usize> = self
            .bm25_hits(q)
            .iter()
            .take(RRF_DEPTH)
            .filter(|&&(_, s)| s > 0.0)
            .map(|x| x.0)
            .collect();
        let dense: Vec<usize> = self.hits[q]
            .iter()
            .take(RRF_DEPTH)
            .map(|&(d, _)| d)
            .collect();
        reciprocal_rank_fusion(&[&lexical, &dense], RRF_K, top)
    }

    /// Query `q`'s traversal seeds (see [`SeedSource`]).
    fn seeds(&self, q: usize) -> &[(NodeId, f64)] {
        let all = self.seeds.get_or_init(|| {
            let k = self.params.seed_top_k;
            (0..self.corpus.queries.len())
                .into_par_iter()
                .map(|q| match self.params.seed_source {
                    SeedSource::Dense => seeds_of(&self.hits[q], k),
                    SeedSource::Rrf => {
                        let top = self.hits[q].first().map_or(0.0, |h| h.1);
                        rrf_seeds(&self.fused(q, k), top)
                    }
                })
                .collect()
        });
        &all[q]
    }
}

/// `--seed-source`: where a traversal's seeds and their activations come from.
///
/// * `Dense`: the first `seed_top_k` cosine hits, each activated with its cosine (the
///   reference).
/// * `Rrf`: the first `seed_top_k` nodes of the reciprocal-rank fusion that `rrf_topk`
///   ranks by (BM25 and dense, `k = 60`), activated with their fused score rescaled so that
///   the first seed gets the query's top cosine: `score_i = rrf_i / rrf_1 · cos_1`
///   ([`rrf_seeds`]).
///
/// Why that mapping: the traversal compares activations (a seed's score, then score × edge
/// weight per hop, damped) against fixed thresholds (`fire_threshold` 0.01, the tiers'
/// weights). Raw fused scores are at most 2/61 ≈ 0.033, so one 0.3-weight hop would leave
/// ≈ 0.01 and the walk would stop at the seeds; the fused ranks carry no cosine for nodes
/// only BM25 found. Rescaling keeps the fused order and relative gaps and puts the seeds on
/// the scale dense seeding uses for the same query, so the thresholds mean what they mean
/// for dense seeds, and the comparison with `--seed-source dense` isolates *which* nodes
/// seed the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeedSource {
    /// The first seed_top_k cosine hits, activated with their cosines (the reference).
    Dense,
    /// The first seed_top_k nodes of the BM25 + dense reciprocal-rank fusion (rrf_topk's
    /// ranking), activated with the fused score scaled so the first seed has the query's
    /// top cosine.
    Rrf,
}

impl SeedSource {
    /// `dense` / `rrf`.
    pub fn as_str(self) -> &'static str {
        match self {
            SeedSource::Dense => "dense",
            SeedSource::Rrf => "rrf",
        }
    }
}

/// Seeds from fused hits `(node, rrf score)`, best first: `score_i = rrf_i / rrf_1 · top`
/// (see [`SeedSource`]). Empty for no hits.
pub fn rrf_seeds(fused: &[(usize, f64)], top: f64) -> Vec<(NodeId, f64)> {
    let Some(&(_, first)) = fused.first() else {
        return Vec::new();
    };
    fused
        .iter()
        .map(|&(d, s)| (node_id(d), s / first * top))
        .collect()
}

/// What one method produced.
#[derive(Debug, Clone)]
pub struct MethodRun {
    /// The method.
    pub method: &'static Method,
    /// One list per scored step.
    pub lists: Lists,
    /// Wall-clock seconds it took.
    pub seconds: f64,
}

/// Runs `methods` on `stage` and returns their results in the same order. Static methods
/// run one after the other (each parallel over queries); learning methods run in parallel
/// on deep copies, or one after the other with `shared_edge_state`.
pub fn run_methods(
    methods: &[&'static Method],
    stage: &Stage,
    progress: &MultiProgress,
) -> Result<Vec<MethodRun>> {
    let scored = stage.scored();
    let mut out: Vec<Option<MethodRun>> = vec![None; methods.len()];
    for (i, m) in methods.iter().enumerate().filter(|(_, m)| !m.learns()) {
        let bar = bar(progress, scored.len(), m.name, 22);
        let t = Instant::now();
        let lists = match m.ranking {
            Ranking::Dense => dense(stage, &scored),
            Ranking::Bm25 => bm25(stage, &scored),
            Ranking::Rrf => rrf(stage, &scored),
            Ranking::Traversal { router, .. } => cold(stage, router, &scored, &bar)?,
        };
        bar.finish_and_clear();
        out[i] = Some(MethodRun {
            method: m,
            lists,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    let learners: Vec<(usize, &'static Method, Rule, ProgressBar)> = methods
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m.ranking {
            Ranking::Traversal {
                learning: Some(rule),
                ..
            } => Some((i, *m, rule, bar(progress, stage.steps.len(), m.name, 22))),
            _ => None,
        })
        .collect();
    let runs: Vec<(usize, MethodRun)> = if stage.params.shared_edge_state {
        let mut shared = stage.graph.clone();
        let mut runs = Vec::new();
        for (i, m, rule, bar) in &learners {
            let t = Instant::now();
            let mut g = shared.clone();
            let lists = learn_stream(&mut g, stage, m.router(), *rule, bar)?;
            shared = share_edge_state(&shared, &g);
            runs.push((*i, timed(m, lists, t)));
        }
        runs
    } else {
        learners
            .par_iter()
            .map(|(i, m, rule, bar)| {
                let t = Instant::now();
                let mut g = stage.graph.clone();
                let lists = learn_stream(&mut g, stage, m.router(), *rule, bar)?;
                Ok((*i, timed(m, lists, t)))
            })
            .collect::<Result<Vec<_>>>()?
    };
    for (i, r) in runs {
        out[i] = Some(r);
    }
    for (_, _, _, b) in &learners {
        b.finish_and_clear();
    }
    out.into_iter()
        .zip(methods)
        .map(|(r, m)| r.ok_or_else(|| Error::Internal(format!("method {} did not run", m.name))))
        .collect()
}

fn timed(method: &'static Method, lists: Lists, t: Instant) -> MethodRun {
    MethodRun {
        method,
        lists,
        seconds: t.elapsed().as_secs_f64(),
    }
}

/// A progress bar of `len` steps added to `progress`, labelled `msg` right-aligned in
/// `msg_width` columns (each caller's widest label, so that its bars line up): the one
/// bar style of the method runners (`methods`, `heldout`, `repo::run`).
pub(crate) fn bar(
    progress: &MultiProgress,
    len: usize,
    msg: &str,
    msg_width: usize,
) -> ProgressBar {
    let b = progress.add(ProgressBar::new(len as u64));
    let template = format!("{{msg:>{msg_width}}} [{{bar:30}}] {{pos}}/{{len}} {{elapsed_precise}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        b.set_style(style.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// The list of a method that does not learn, for each query of `queries` (cold traversals
/// included).
pub fn static_lists(
    method: &Method,
    stage: &Stage,
    queries: &[usize],
    bar: &ProgressBar,
) -> Result<Lists> {
    Ok(match method.ranking {
        Ranking::Dense => dense(stage, queries),
        Ranking::Bm25 => bm25(stage, queries),
        Ranking::Rrf => rrf(stage, queries),
        Ranking::Traversal { router, .. } => cold(stage, router, queries, bar)?,
    })
}

/// `embedding_topk`: the first `embed_top_k` cosine hits.
fn dense(stage: &Stage, scored: &[usize]) -> Lists {
    let k = stage.params.embed_top_k;
    scored
        .iter()
        .map(|&q| stage.hits[q].iter().take(k).map(|&(d, _)| d).collect())
        .collect()
}

/// `bm25_topk`: the first `embed_top_k` BM25 hits (parallel over queries).
fn bm25(stage: &Stage, scored: &[usize]) -> Lists {
    let k = stage.params.embed_top_k;
    scored
        .par_iter()
        .map(|&q| stage.bm25_hits(q).iter().take(k).map(|x| x.0).collect())
        .collect()
}

/// `rrf_topk`: the fusion of the BM25 and cosine rankings (parallel over queries).
fn rrf(stage: &Stage, scored: &[usize]) -> Lists {
    let k = stage.params.embed_top_k;
    scored
        .par_iter()
        .map(|&q| stage.fused(q, k).into_iter().map(|x| x.0).collect())
        .collect()
}

fn seeds_of(hits: &[(usize, f64)], k: usize) -> Vec<(NodeId, f64)> {
    hits.iter().take(k).map(|&(d, s)| (node_id(d), s)).collect()
}

/// The node indices of a result.
pub fn fired_indices(fired: &[NodeId]) -> Vec<usize> {
    fired.iter().map(|n| n.index()).collect()
}

/// Traverses (and learns for) one method: a reusable [`Traverser`] and, for a routed
/// method, its [`QueryRouter`] (buffers kept across queries, so the hot path allocates
/// only what the core's traversal itself allocates).
pub struct Walker<'a> {
    traverser: Traverser,
    router: Option<QueryRouter<'a>>,
    stage: &'a Stage<'a>,
}

impl<'a> Walker<'a> {
    /// A walker for a method with router `router` (`None`: the router-less traversal).
    pub fn new(stage: &'a Stage<'a>, router: Option<RouterKind>) -> Result<Walker<'a>> {
        let router = match router {
            None => None,
            Some(kind) => {
                let inputs = stage.router_inputs.ok_or_else(|| {
                    Error::Internal("a routed method ran without node vectors".into())
                })?;
                let config = RouterConfig {
                    kind,
                    ..stage.params.router
                };
                let vectors: &dyn NodeVectors = &inputs.nodes;
                Some(
                    QueryRouter::new(config, Some(vectors))
                        .map_err(|e| Error::core("setting up the router", e))?,
                )
            }
        };
        Ok(Walker {
            traverser: Traverser::new(),
            router,
            stage,
        })
    }

    /// One traversal of query `q` on `graph` (empty without seeds).
    pub fn traverse(&mut self, graph: &Graph, q: usize) -> Result<Episode> {
        let stage = self.stage;
        let seeds = stage.seeds(q);
        if seeds.is_empty() {
            return Ok(Episode::default());
        }
        let context = || format!("traversing query {q}");
        let r = match (&mut self.router, stage.router_inputs) {
            (Some(router), Some(inputs)) => {
                router
                    .set_query(&inputs.queries[q])
                    .map_err(|e| Error::core(context(), e))?;
                let text = stage.corpus.queries[q].text.as_str();
                self.traverser
                    .traverse_routed(graph, seeds, &stage.params.traversal, router, text)
            }
            _ => self
                .traverser
                .traverse(graph, seeds, &stage.params.traversal),
        }
        .map_err(|e| Error::core(context(), e))?;
        Ok(Episode::from_result(&r))
    }

    /// Applies the outcome of query `q` (its `episode`, just traversed by this walker) to
    /// `graph` with `rule`: +1 when the dataset's outcome metric of `retrieved` is 1, else
    /// −1. A routed method's policy gradient is the router's
    /// (`apply_outcome_router_pg`, the router still holding `q`'s query vector).
    pub fn learn(
        &mut self,
        graph: &mut Graph,
        q: usize,
        episode: &Episode,
        retrieved: &[usize],
        rule: Rule,
    ) -> Result<()> {
        let p = self.stage.params;
        let judged = Judged {
            retrieved,
            relevant: &self.stage.corpus.queries[q].relevant,
            embed_top_k: p.embed_top_k,
        };
        let outcome = if (outcome_metric(p.dataset)?.compute)(&judged) >= 1.0 {
            1.0
        } else {
            -1.0
        };
        let context = || format!("learning from query {q}");
        match (rule, &self.router) {
            (Rule::Heuristic, _) => apply_outcome(graph, episode, outcome, &p.learning, None),
            (Rule::PolicyGradient, None) => {
                apply_outcome_pg(graph, episode, outcome, &p.learning, None, p.pg)
            }
            (Rule::PolicyGradient, Some(router)) => {
                apply_outcome_router_pg(graph, episode, outcome, &p.learning, router, None)
            }
        }
        .map_err(|e| Error::core(context(), e))?;
        Ok(())
    }
}

/// A frozen traversal method: one traversal per scored query (parallel over queries).
fn cold(
    stage: &Stage,
    router: Option<RouterKind>,
    scored: &[usize],
    bar: &ProgressBar,
) -> Result<Lists> {
    Walker::new(stage, router)?; // reports a setup error once, before the parallel loop
    scored
        .par_iter()
        .map_init(
            || Walker::new(stage, router),
            |w, &q| {
                let w = w.as_mut().map_err(|e| Error::Internal(e.to_string()))?;
                let e = w.traverse(stage.graph, q)?;
                bar.inc(1);
                Ok(fired_indices(&e.fired))
            },
        )
        .collect()
}

/// The dataset's outcome metric.
pub fn outcome_metric(ds: Dataset) -> Result<&'static Metric> {
    let name = ds.outcome_metric();
    METRICS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::Internal(format!("outcome metric {name} is not in the table")))
}

/// A learning method over the schedule on `graph` (mutated); see the module docs.
fn learn_stream(
    graph: &mut Graph,
    stage: &Stage,
    router: Option<RouterKind>,
    rule: Rule,
    bar: &ProgressBar,
) -> Result<Lists> {
    let mut walker = Walker::new(stage, router)?;
    let mut out = Vec::new();
    for step in stage.steps {
        let q = step.query;
        let episode = walker.traverse(graph, q)?;
        let retrieved = fired_indices(&episode.fired);
        if step.learn {
            walker.learn(graph, q, &episode, &retrieved, rule)?;
        }
        if step.scored {
            out.push(retrieved);
        }
        bar.inc(1);
    }
    Ok(out)
}

/// `base` with the weights and kinds that a learning run left in `learned` on the edges that
/// exist in `base` (edges created by the learning run are not carried over); see the module
/// docs.
pub fn share_edge_state(base: &Graph, learned: &Graph) -> Graph {
    let mut g = base.clone();
    let updates: Vec<(NodeId, NodeId, f64, crabpath::EdgeKind)> = base
        .edges()
        .filter_map(|(s, t, _)| learned.edge(s, t).map(|e| (s, t, e.weight, e.kind.clone())))
        .collect();
    for (s, t, w, k) in updates {
        if let Some(e) = g.edge_mut(s, t) {
            e.weight = w;
            e.kind = k;
        }
    }
    g
}

#[cfg(test)]
mod tests {
    #[test]
    fn rrf_seeds_put_the_first_seed_at_the_top_cosine() {
        // fused 1/61 + 1/62, 1/61, 1/63; top cosine 0.8
        let fused = [
            (4, 1.0 / 61.0 + 1.0 / 62.0),
            (2, 1.0 / 61.0),
            (9, 1.0 / 63.0),
        ];
        let s = rrf_seeds(&fused, 0.8);
        assert_eq!(s[0], (node_id(4), 0.8));
        let r = 1.0 / 61.0 / (1.0 / 61.0 + 1.0 / 62.0);
        assert!((s[1].1 - 0.8 * r).abs() < 1e-15);
        assert_eq!(
            s.iter().map(|x| x.0).collect::<Vec<_>>(),
            [4, 2, 9].map(node_id)
        );
        assert!(s.windows(2).all(|w| w[0].1 >= w[1].1));
        assert!(rrf_seeds(&[], 0.8).is_empty());
    }

    use super::*;

    #[test]
    fn table_names_are_unique_and_the_reference_four_come_first() {
        let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        assert_eq!(
            names[..4],
            [
                "embedding_topk",
                "crabpath_cold",
                "crabpath_learning",
                "crabpath_pg_learning"
            ]
        );
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        let learners: Vec<&str> = METHODS
            .iter()
            .filter(|m| m.learns())
            .map(|m| m.name)
            .collect();
        assert_eq!(learners, ["crabpath_learning", "crabpath_pg_learning"]);
    }

    #[test]
    fn outcome_metrics_are_in_the_metric_table() {
        for ds in [Dataset::HotpotQa, Dataset::MultihopRag] {
            assert!(outcome_metric(ds).is_ok());
        }
    }
}
