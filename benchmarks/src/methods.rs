//! The retrieval methods of a run: one entry each in [`METHODS`] (its name, how it ranks,
//! whether and how it learns, what shapes its output), and the engine that runs them over a
//! [`Stage`] ([`run_methods`]).
//!
//! The first four are the reference's methods (`benchmarks/external/run_hotpotqa.py` and
//! `run_multihop_rag.py`, functions `_embedding_topk`, `_run_static` and `_run_learning`,
//! commit 134c676), in its run order; `bm25_topk` is a lexical baseline at the same budget
//! as `embedding_topk`. Adding a method is adding an entry (and, for a new way of ranking, a
//! [`Ranking`] variant and its arm in the engine).
//!
//! Learning methods walk every step of the run's [`Schedule`](crate::plan::Schedule) in
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
    apply_outcome, apply_outcome_pg, Episode, Graph, LearningConfig, NodeId, PgArgs,
    TraversalConfig, Traverser,
};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::build::{node_id, Corpus};
use crate::catalog::Dataset;
use crate::error::{Error, Result};
use crate::metrics::{Judged, Metric, METRICS};
use crate::plan::{Factor, Step};
use crate::retrieval::Bm25;

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
    /// `traverse` from the first `seed_top_k` cosine hits (id, score); result = the fired
    /// nodes. With a rule, the graph learns from each learning step's outcome.
    Traversal {
        /// The learning rule, `None` for a cold (frozen) graph.
        learning: Option<Rule>,
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
    Factor::Traversal,
    Factor::Profile,
];
const LEARNING_FACTORS: &[Factor] = &[
    Factor::Graph,
    Factor::Embedder,
    Factor::Traversal,
    Factor::Learning,
    Factor::Profile,
    Factor::SharedState,
];

/// Every method, in report order.
pub const METHODS: &[Method] = &[
    Method {
        name: "embedding_topk",
        ranking: Ranking::Dense,
        about: "the first embed_top_k nodes of the exact cosine search (no graph)",
        shaped_by: &[Factor::Embedder, Factor::ResultCount],
    },
    Method {
        name: "crabpath_cold",
        ranking: Ranking::Traversal { learning: None },
        about: "traversal from the first seed_top_k cosine hits on the unchanged graph",
        shaped_by: TRAVERSAL_FACTORS,
    },
    Method {
        name: "crabpath_learning",
        ranking: Ranking::Traversal {
            learning: Some(Rule::Heuristic),
        },
        about: "as crabpath_cold, the graph learning from each outcome with the heuristic rule",
        shaped_by: LEARNING_FACTORS,
    },
    Method {
        name: "crabpath_pg_learning",
        ranking: Ranking::Traversal {
            learning: Some(Rule::PolicyGradient),
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
];

impl Method {
    /// The method named `name`.
    pub fn by_name(name: &str) -> Option<&'static Method> {
        METHODS.iter().find(|m| m.name == name)
    }

    /// Whether the method changes its graph as the stream goes on.
    pub fn learns(&self) -> bool {
        matches!(self.ranking, Ranking::Traversal { learning: Some(_) })
    }

    /// How many cosine hits per query it reads.
    pub fn dense_depth(&self, seed_top_k: usize, embed_top_k: usize) -> usize {
        match self.ranking {
            Ranking::Dense => embed_top_k,
            Ranking::Bm25 => 0,
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
    /// BM25 over the node contents, built when a method first needs it.
    bm25: OnceLock<Bm25>,
}

impl<'a> Stage<'a> {
    /// A stage over these inputs.
    pub fn new(
        corpus: &'a Corpus,
        hits: &'a [Vec<(usize, f64)>],
        graph: &'a Graph,
        steps: &'a [Step],
        params: &'a MethodParams,
    ) -> Self {
        Stage {
            corpus,
            hits,
            graph,
            steps,
            params,
            bm25: OnceLock::new(),
        }
    }

    fn scored(&self) -> Vec<usize> {
        self.steps
            .iter()
            .filter(|s| s.scored)
            .map(|s| s.query)
            .collect()
    }

    fn bm25(&self) -> &Bm25 {
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
        let bar = bar(progress, scored.len(), m.name);
        let t = Instant::now();
        let lists = match m.ranking {
            Ranking::Dense => dense(stage, &scored),
            Ranking::Bm25 => bm25(stage, &scored),
            Ranking::Traversal { .. } => cold(stage, &scored, &bar)?,
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
            } => Some((i, *m, rule, bar(progress, stage.steps.len(), m.name))),
            _ => None,
        })
        .collect();
    let runs: Vec<(usize, MethodRun)> = if stage.params.shared_edge_state {
        let mut shared = stage.graph.clone();
        let mut runs = Vec::new();
        for (i, m, rule, bar) in &learners {
            let t = Instant::now();
            let mut g = shared.clone();
            let lists = learn_stream(&mut g, stage, *rule, bar)?;
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
                let lists = learn_stream(&mut g, stage, *rule, bar)?;
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

fn bar(progress: &MultiProgress, len: usize, msg: &str) -> ProgressBar {
    let b = progress.add(ProgressBar::new(len as u64));
    if let Ok(style) =
        ProgressStyle::with_template("{msg:>22} [{bar:30}] {pos}/{len} {elapsed_precise}")
    {
        b.set_style(style.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
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
    let (index, k) = (stage.bm25(), stage.params.embed_top_k);
    scored
        .par_iter()
        .map(|&q| {
            index
                .search(&stage.corpus.queries[q].text, k)
                .into_iter()
                .map(|x| x.0)
                .collect()
        })
        .collect()
}

fn seeds_of(hits: &[(usize, f64)], k: usize) -> Vec<(NodeId, f64)> {
    hits.iter().take(k).map(|&(d, s)| (node_id(d), s)).collect()
}

fn fired_indices(fired: &[NodeId]) -> Vec<usize> {
    fired.iter().map(|n| n.index()).collect()
}

/// One traversal of query `q` on `graph` (empty without seeds).
fn traverse(tr: &mut Traverser, graph: &Graph, stage: &Stage, q: usize) -> Result<Episode> {
    let seeds = seeds_of(&stage.hits[q], stage.params.seed_top_k);
    if seeds.is_empty() {
        return Ok(Episode::default());
    }
    let r = tr
        .traverse(graph, &seeds, &stage.params.traversal)
        .map_err(|e| Error::core(format!("traversing query {q}"), e))?;
    Ok(Episode::from_result(&r))
}

/// A frozen traversal method: one traversal per scored query (parallel over queries).
fn cold(stage: &Stage, scored: &[usize], bar: &ProgressBar) -> Result<Lists> {
    scored
        .par_iter()
        .map_init(Traverser::new, |tr, &q| {
            let e = traverse(tr, stage.graph, stage, q)?;
            bar.inc(1);
            Ok(fired_indices(&e.fired))
        })
        .collect()
}

/// The dataset's outcome metric.
fn outcome_metric(ds: Dataset) -> Result<&'static Metric> {
    let name = ds.outcome_metric();
    METRICS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::Internal(format!("outcome metric {name} is not in the table")))
}

/// A learning method over the schedule on `graph` (mutated); see the module docs.
fn learn_stream(graph: &mut Graph, stage: &Stage, rule: Rule, bar: &ProgressBar) -> Result<Lists> {
    let p = stage.params;
    let outcome_of = outcome_metric(p.dataset)?.compute;
    let mut tr = Traverser::new();
    let mut out = Vec::new();
    for step in stage.steps {
        let q = step.query;
        let episode = traverse(&mut tr, graph, stage, q)?;
        let retrieved = fired_indices(&episode.fired);
        if step.learn {
            let judged = Judged {
                retrieved: &retrieved,
                relevant: &stage.corpus.queries[q].relevant,
                embed_top_k: p.embed_top_k,
            };
            let outcome = if outcome_of(&judged) >= 1.0 {
                1.0
            } else {
                -1.0
            };
            let context = || format!("learning from query {q}");
            match rule {
                Rule::Heuristic => apply_outcome(graph, &episode, outcome, &p.learning, None)
                    .map_err(|e| Error::core(context(), e))?,
                Rule::PolicyGradient => {
                    apply_outcome_pg(graph, &episode, outcome, &p.learning, None, p.pg)
                        .map_err(|e| Error::core(context(), e))?
                }
            };
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
