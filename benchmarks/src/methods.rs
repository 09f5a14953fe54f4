//! The retrieval methods of a run (BENCH.md §1.1) and the lexical baseline.
//!
//! * `embedding_topk`: the first `embed_top_k` ids of the exact cosine search.
//! * `crabpath_cold`: seeds = the first `seed_top_k` (id, cosine) pairs; `traverse` with the
//!   run's [`TraversalConfig`]; retrieved = `fired`. No learning.
//! * `crabpath_learning`: as cold, then after scoring the query `apply_outcome` (heuristic,
//!   CORE.md §5.2) with outcome +1 if the dataset's outcome metric is 1, else −1.
//! * `crabpath_pg_learning`: as learning with `apply_outcome_pg` (CORE.md §5.5), temperature
//!   1.0, baseline 0.0.
//! * `bm25_topk`: the first `embed_top_k` ids of [`crate::retrieval::Bm25`] (not in the
//!   reference; a lexical baseline at the same budget as `embedding_topk`).
//!
//! Evaluation is prequential (test-then-train: a query is scored before its own update) over
//! the first `train` queries; queries after `train` are scored on the frozen graph (the
//! `--split` evaluation; with the default `train = n` every query is learned from).
//!
//! **Edge state.** By default each learning method runs on its own deep copy of the base
//! graph (and the two run in parallel). With `shared_edge_state` the reference's defect 2
//! (BENCH.md §2) is reproduced exactly: the methods run one after the other in the order
//! embedding_topk, cold, learning, pg_learning; the reference's shallow copies share the
//! `Edge` objects of the base graph and the heuristic and PG rules assign weights to existing
//! edges in place, so the PG run starts from the base graph's edges carrying the weights (and
//! kinds) that the learning run left on them; edges *created* during the learning run are
//! fresh objects of the learning graph alone and are not seen by the PG run.

use crabpath::{
    apply_outcome, apply_outcome_pg, Episode, Graph, LearningConfig, NodeId, PgArgs,
    TraversalConfig, Traverser,
};
use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::build::{node_id, DatasetKind};
use crate::error::{Error, Result};
use crate::metrics;

/// Method names in output order (the reference's four first, in its run order).
pub const METHODS: [&str; 5] = [
    "embedding_topk",
    "crabpath_cold",
    "crabpath_learning",
    "crabpath_pg_learning",
    "bm25_topk",
];

/// The two learning methods (the reference reports learning curves for these).
pub const LEARNING_METHODS: [&str; 2] = ["crabpath_learning", "crabpath_pg_learning"];

/// One retrieved list (node indices, in rank order) per query.
pub type Lists = Vec<Vec<usize>>;

/// Parameters of the methods.
#[derive(Debug, Clone)]
pub struct MethodParams {
    /// Which dataset (decides the outcome metric).
    pub dataset: DatasetKind,
    /// Seeds per traversal.
    pub seed_top_k: usize,
    /// Results of `embedding_topk` and `bm25_topk`.
    pub embed_top_k: usize,
    /// Traversal configuration.
    pub traversal: TraversalConfig,
    /// Learning configuration.
    pub learning: LearningConfig,
    /// PG call arguments (temperature 1.0, baseline 0.0 in the reference).
    pub pg: PgArgs,
    /// Reproduce BENCH.md §2 defect 2 (see the module docs).
    pub shared_edge_state: bool,
    /// Learn from the first `train` queries, then freeze.
    pub train: usize,
}

fn core_err(e: crabpath::Error) -> Error {
    Error::Usage(format!("core error: {e}"))
}

/// `embedding_topk` from the precomputed search hits (`hits[q]` sorted, at least
/// `embed_top_k` long when the index is that large).
pub fn embedding_topk(hits: &[Vec<(usize, f64)>], k: usize) -> Vec<Vec<usize>> {
    hits.iter()
        .map(|h| h.iter().take(k).map(|&(d, _)| d).collect())
        .collect()
}

fn seeds_of(hits: &[(usize, f64)], k: usize) -> Vec<(NodeId, f64)> {
    hits.iter().take(k).map(|&(d, s)| (node_id(d), s)).collect()
}

fn fired_indices(fired: &[NodeId]) -> Vec<usize> {
    fired.iter().map(|n| n.index()).collect()
}

/// `crabpath_cold`: one traversal per query on the unchanged graph (parallel over queries).
pub fn cold(
    graph: &Graph,
    hits: &[Vec<(usize, f64)>],
    p: &MethodParams,
    bar: &ProgressBar,
) -> Result<Vec<Vec<usize>>> {
    hits.par_iter()
        .map_init(Traverser::new, |tr, h| {
            let seeds = seeds_of(h, p.seed_top_k);
            let out = if seeds.is_empty() {
                Vec::new()
            } else {
                let r = tr.traverse(graph, &seeds, &p.traversal).map_err(core_err)?;
                fired_indices(&r.fired)
            };
            bar.inc(1);
            Ok(out)
        })
        .collect()
}

/// Which outcome rule a learning run applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `apply_outcome` (heuristic).
    Heuristic,
    /// `apply_outcome_pg`.
    PolicyGradient,
}

/// A learning run over the query stream on `graph` (mutated): traverse, score, then (for
/// the first `p.train` queries) update with outcome ±1.
pub fn learning(
    graph: &mut Graph,
    hits: &[Vec<(usize, f64)>],
    relevant: &[Vec<usize>],
    rule: Rule,
    p: &MethodParams,
    bar: &ProgressBar,
) -> Result<Vec<Vec<usize>>> {
    let mut tr = Traverser::new();
    let names = metrics::all_metric_names(p.dataset);
    let oi = names
        .iter()
        .position(|n| *n == metrics::outcome_metric(p.dataset))
        .ok_or_else(|| Error::Usage("internal: outcome metric missing".into()))?;
    let mut out = Vec::with_capacity(hits.len());
    for (q, h) in hits.iter().enumerate() {
        let seeds = seeds_of(h, p.seed_top_k);
        let episode = if seeds.is_empty() {
            Episode::default()
        } else {
            let r = tr.traverse(graph, &seeds, &p.traversal).map_err(core_err)?;
            Episode::from_result(&r)
        };
        let retrieved = fired_indices(&episode.fired);
        if q < p.train {
            let m = metrics::query_metrics(p.dataset, &retrieved, &relevant[q], p.embed_top_k);
            let outcome = if m[oi] >= 1.0 { 1.0 } else { -1.0 };
            match rule {
                Rule::Heuristic => {
                    apply_outcome(graph, &episode, outcome, &p.learning, None).map_err(core_err)?;
                }
                Rule::PolicyGradient => {
                    apply_outcome_pg(graph, &episode, outcome, &p.learning, None, p.pg)
                        .map_err(core_err)?;
                }
            }
        }
        out.push(retrieved);
        bar.inc(1);
    }
    Ok(out)
}

/// BENCH.md §2 defect 2: `base` with the weights and kinds that the learning run left on the
/// edges that exist in `base` (edges created by the learning run are not carried over).
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

/// Retrieved lists of the two learning methods (heuristic, PG), with deep copies (in
/// parallel) or with the reference's shared edge state (sequential).
pub fn learning_pair(
    base: &Graph,
    hits: &[Vec<(usize, f64)>],
    relevant: &[Vec<usize>],
    p: &MethodParams,
    bars: (&ProgressBar, &ProgressBar),
) -> Result<(Lists, Lists)> {
    if p.shared_edge_state {
        let mut lg = base.clone();
        let l = learning(&mut lg, hits, relevant, Rule::Heuristic, p, bars.0)?;
        let mut pg = share_edge_state(base, &lg);
        drop(lg);
        let g = learning(&mut pg, hits, relevant, Rule::PolicyGradient, p, bars.1)?;
        Ok((l, g))
    } else {
        let (l, g) = rayon::join(
            || {
                let mut lg = base.clone();
                learning(&mut lg, hits, relevant, Rule::Heuristic, p, bars.0)
            },
            || {
                let mut pg = base.clone();
                learning(&mut pg, hits, relevant, Rule::PolicyGradient, p, bars.1)
            },
        );
        Ok((l?, g?))
    }
}
