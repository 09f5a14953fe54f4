//! The methods of the repository benchmark and the loops that run them (reference
//! `benchmarks/run_benchmark.py`, commit 134c676: `_keyword_overlap`, `_hash_overlap`,
//! `_weighted_hash_seeds`, `_traverse`, `_run_query_set`, `_run_learning_query_set`).
//!
//! | # | name | ranking | seeds | config | learning |
//! |---|---|---|---|---|---|
//! | 1 | `keyword_overlap` | every node by keyword overlap, first `--seed-top-k` (Python slice) | — | — | — |
//! | 2 | `hash_embed_similarity` | hash-v1 cosine search, first `--hash-top-k` | — | — | — |
//! | 3 | `static_traverse` | `fired` | hash rank | T | — |
//! | 4 | `crabpath_traverse` | `fired` | hash rank | T | heuristic |
//! | 5 | `crabpath_no_inhibition` | `fired` | hash rank | NI | heuristic |
//! | 6 | `crabpath_pg` | `fired` | hash rank | T | policy gradient |
//! | 7 | `crabpath_with_replay` | `fired` | keyword | R | heuristic |
//! | 8 | `crabpath_pg_with_replay` | `fired` | keyword | R | policy gradient |
//! | — | `bm25` (clean) | Okapi BM25 ([`crate::retrieval::Bm25`]), first `--hash-top-k` | — | — | — |
//! | — | `minilm_embed_similarity` (clean) | all-MiniLM-L6-v2 cosine search, first `--hash-top-k` | — | — | — |
//!
//! * Hash-rank seeds: the first `--traverse-seed-k` hits of the hash-v1 search, the i-th
//!   (0-based) weighted `1.0 − 0.05·i` whatever its cosine. Keyword seeds: the core's
//!   [`crabpath::keyword::keyword_seeds`] on the method's own (learning) graph.
//! * Configs: T = `max_hops` `--traverse-max-hops`, `beam_width` `--traverse-beam-width`;
//!   NI = T with inhibitory threshold −999 (no edge is inhibitory); R = `max_hops`
//!   `--replay-max-hops`, same beam. Everything else at the core's defaults for the
//!   profile; no router.
//! * Learning, after scoring each query (test-then-train), on the method's own copy of
//!   the graph: the episode is the traversal's step path
//!   ([`crabpath::keyword::replay_episode`]), the rule the core's `apply_outcome` or
//!   `apply_outcome_pg` (baseline 0, temperature 1). The outcome is the reference's fixed
//!   +1 ([`Outcome::Fixed`]) or, in the clean protocol, whether a relevant file appeared
//!   ([`Outcome::Relevance`]).
//! * Every method starts from a fresh copy of the split graph; nothing learned crosses
//!   methods.

use std::time::Instant;

use crabpath::keyword::{
    keyword_matches, keyword_ranking, keyword_seeds, keyword_seeds_from, replay_episode,
};
use crabpath::{
    apply_outcome, apply_outcome_pg, Graph, LearningConfig, NodeId, PgArgs, Profile,
    TraversalConfig, TraversalResult, Traverser,
};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::corpus::{Corpus, EmbeddingIndex};
use super::error::{internal, Result};
use super::queries::QueryRow;
use crate::retrieval::Bm25;

/// A single-pass ranking method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// Keyword overlap over every node.
    KeywordOverlap,
    /// hash-v1 cosine search.
    HashSimilarity,
    /// BM25.
    Bm25,
    /// all-MiniLM-L6-v2 cosine search.
    Dense,
}

/// Where traversal seeds come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seeding {
    /// Rank-weighted hash-v1 hits.
    Hash,
    /// Keyword seeds on the current graph.
    Keyword,
}

/// Which traversal configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Config {
    /// `--traverse-max-hops`, `--traverse-beam-width`.
    T,
    /// T without inhibition.
    NoInhibition,
    /// `--replay-max-hops`, `--traverse-beam-width`.
    R,
}

/// Which learning rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `apply_outcome`.
    Heuristic,
    /// `apply_outcome_pg`.
    PolicyGradient,
}

/// What a method does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One ranking per query.
    Ranking(Ranking),
    /// Seeded traversal, learning when `rule` is set.
    Traverse {
        /// Seeds.
        seeding: Seeding,
        /// Configuration.
        config: Config,
        /// Learning rule (`None` = static).
        rule: Option<Rule>,
    },
}

/// A named method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    /// The reference's name.
    pub name: &'static str,
    /// What it does.
    pub kind: Kind,
}

impl Method {
    /// Whether the method learns.
    pub fn learns(&self) -> bool {
        matches!(self.kind, Kind::Traverse { rule: Some(_), .. })
    }
}

const fn trav(name: &'static str, seeding: Seeding, config: Config, rule: Option<Rule>) -> Method {
    Method {
        name,
        kind: Kind::Traverse {
            seeding,
            config,
            rule,
        },
    }
}

/// The reference's eight methods, in its order.
pub const PAPER_METHODS: [Method; 8] = [
    Method {
        name: "keyword_overlap",
        kind: Kind::Ranking(Ranking::KeywordOverlap),
    },
    Method {
        name: "hash_embed_similarity",
        kind: Kind::Ranking(Ranking::HashSimilarity),
    },
    trav("static_traverse", Seeding::Hash, Config::T, None),
    trav(
        "crabpath_traverse",
        Seeding::Hash,
        Config::T,
        Some(Rule::Heuristic),
    ),
    trav(
        "crabpath_no_inhibition",
        Seeding::Hash,
        Config::NoInhibition,
        Some(Rule::Heuristic),
    ),
    trav(
        "crabpath_pg",
        Seeding::Hash,
        Config::T,
        Some(Rule::PolicyGradient),
    ),
    trav(
        "crabpath_with_replay",
        Seeding::Keyword,
        Config::R,
        Some(Rule::Heuristic),
    ),
    trav(
        "crabpath_pg_with_replay",
        Seeding::Keyword,
        Config::R,
        Some(Rule::PolicyGradient),
    ),
];

/// The BM25 baseline of the clean protocol.
pub const BM25: Method = Method {
    name: "bm25",
    kind: Kind::Ranking(Ranking::Bm25),
};

/// The dense (all-MiniLM-L6-v2) baseline of the clean protocol.
pub const DENSE: Method = Method {
    name: "minilm_embed_similarity",
    kind: Kind::Ranking(Ranking::Dense),
};

/// The flags that shape the methods.
#[derive(Debug, Clone)]
pub struct Params {
    /// `--seed-top-k` (keyword overlap; Python slice semantics).
    pub seed_top_k: i64,
    /// `--hash-top-k` (hash, BM25 and dense rankings).
    pub hash_top_k: i64,
    /// `--traverse-seed-k`.
    pub traverse_seed_k: i64,
    /// Config T.
    pub t: TraversalConfig,
    /// Config NI.
    pub ni: TraversalConfig,
    /// Config R.
    pub r: TraversalConfig,
    /// Learning configuration (the profile's defaults).
    pub learning: LearningConfig,
    /// PG call arguments.
    pub pg: PgArgs,
    /// Profile (the learning episode).
    pub profile: Profile,
}

/// What an update learns from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// The same outcome after every query (the reference: +1).
    Fixed(f64),
    /// +1 if one of the query's relevant files is among the first `k` files of the
    /// method's ranking, else −1; queries without a relevant file are not learned from.
    Relevance {
        /// Files inspected.
        k: usize,
    },
}

/// One method's rankings and per-query latencies.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Ranked node ids per query.
    pub rankings: Vec<Vec<NodeId>>,
    /// Milliseconds per query (retrieval, or seeding plus traversal).
    pub latencies_ms: Vec<f64>,
}

/// Everything the methods search in.
pub struct Engines<'a> {
    /// The split workspace.
    pub corpus: &'a Corpus,
    /// hash-v1 index.
    pub hash: &'a EmbeddingIndex,
    /// BM25 over the node contents (clean protocol).
    pub bm25: Option<&'a Bm25>,
    /// MiniLM index and the queries' vectors (clean protocol).
    pub dense: Option<(&'a EmbeddingIndex, &'a [Vec<f64>])>,
    /// Flags.
    pub params: &'a Params,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Python `list[:k]` length for a list of `n`.
fn py_slice_len(n: usize, k: i64) -> usize {
    if k >= 0 {
        n.min(k as usize)
    } else {
        n.saturating_sub(k.unsigned_abs() as usize)
    }
}

impl Engines<'_> {
    fn config(&self, c: Config) -> &TraversalConfig {
        match c {
            Config::T => &self.params.t,
            Config::NoInhibition => &self.params.ni,
            Config::R => &self.params.r,
        }
    }

    fn hash_vec(&self, q: &str) -> Result<Vec<f64>> {
        self.hash
            .embed(&[q])?
            .pop()
            .ok_or_else(|| internal("the hash embedder returned no vector"))
    }

    /// The ranking of a single-pass method for query `qi`.
    fn rank(&self, r: Ranking, qi: usize, q: &str) -> Result<Vec<NodeId>> {
        let k = self.params.hash_top_k;
        Ok(match r {
            Ranking::KeywordOverlap => {
                let g = &self.corpus.graph;
                let mut v: Vec<NodeId> = keyword_ranking(g, q, g.node_count())
                    .into_iter()
                    .map(|x| x.0)
                    .collect();
                v.truncate(py_slice_len(v.len(), self.params.seed_top_k));
                v
            }
            Ranking::HashSimilarity => self.hash.search(&self.hash_vec(q)?, k),
            Ranking::Bm25 => match self.bm25 {
                Some(b) if k > 0 => b
                    .search(q, k as usize)
                    .into_iter()
                    .map(|(p, _)| Corpus::node_id(p))
                    .collect(),
                _ => Vec::new(),
            },
            Ranking::Dense => match self.dense {
                Some((ix, qv)) => ix.search(&qv[qi], k),
                None => return Err(internal("the dense baseline has no index")),
            },
        })
    }

    /// Rank-weighted hash seeds of a query.
    fn hash_seeds(&self, q: &str) -> Result<Vec<(NodeId, f64)>> {
        let ids = self
            .hash
            .search(&self.hash_vec(q)?, self.params.traverse_seed_k);
        Ok(ids
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n, 1.0 - 0.05 * i as f64))
            .collect())
    }

    /// Seeds of a query on `graph`. `cached`: what does not depend on the graph,
    /// computed before (the hash seeds themselves, or the keyword matches).
    fn seeds(
        &self,
        graph: &Graph,
        seeding: Seeding,
        q: &str,
        cached: Option<&[(NodeId, f64)]>,
    ) -> Result<Vec<(NodeId, f64)>> {
        match (seeding, cached) {
            (Seeding::Hash, Some(c)) => Ok(c.to_vec()),
            (Seeding::Hash, None) => self.hash_seeds(q),
            (Seeding::Keyword, Some(m)) => Ok(keyword_seeds_from(graph, m)),
            (Seeding::Keyword, None) => Ok(keyword_seeds(graph, q)),
        }
    }

    /// The graph-independent part of a query's seeds (see [`Engines::seeds`]).
    fn seed_cache(&self, seeding: Seeding, q: &str) -> Result<Vec<(NodeId, f64)>> {
        match seeding {
            Seeding::Hash => self.hash_seeds(q),
            Seeding::Keyword => Ok(keyword_matches(&self.corpus.graph, q)),
        }
    }

    fn traverse(
        &self,
        tr: &mut Traverser,
        graph: &Graph,
        seeds: &[(NodeId, f64)],
        config: Config,
    ) -> Result<TraversalResult> {
        tr.traverse(graph, seeds, self.config(config))
            .map_err(internal)
    }

    /// The learning outcome of a query whose traversal fired `fired` (`None`: do not
    /// learn).
    fn outcome(&self, outcome: Outcome, fired: &[NodeId], row: &QueryRow) -> Option<f64> {
        match outcome {
            Outcome::Fixed(o) => Some(o),
            Outcome::Relevance { k } => {
                if row.relevant_files.is_empty() {
                    return None;
                }
                let files = self.corpus.ranked_files(fired);
                let hit = files
                    .iter()
                    .take(k)
                    .any(|&f| row.is_relevant(&self.corpus.files[f as usize]));
                Some(if hit { 1.0 } else { -1.0 })
            }
        }
    }

    fn learn(
        &self,
        graph: &mut Graph,
        result: &TraversalResult,
        rule: Rule,
        outcome: f64,
    ) -> Result<()> {
        let p = self.params;
        let episode = replay_episode(result, p.profile);
        match rule {
            Rule::Heuristic => apply_outcome(graph, &episode, outcome, &p.learning, None),
            Rule::PolicyGradient => {
                apply_outcome_pg(graph, &episode, outcome, &p.learning, None, p.pg)
            }
        }
        .map(|_| ())
        .map_err(internal)
    }

    /// Runs `method` over `rows` in order on a fresh copy of the split graph: single-pass
    /// methods rank each query; traversal methods traverse, and learning methods learn
    /// from `outcome` after scoring each query (reference `_run_query_set`,
    /// `_run_learning_query_set`). Returns the rankings and the graph afterwards.
    ///
    /// Cost per query: keyword methods tokenise every node; hash methods embed the query
    /// and scan every vector; traversal is linear in the edges examined.
    pub fn online(
        &self,
        method: &Method,
        rows: &[QueryRow],
        outcome: Outcome,
        bar: &indicatif::ProgressBar,
    ) -> Result<(Run, Graph)> {
        let mut graph = self.corpus.graph.clone();
        let mut run = Run::default();
        let mut tr = Traverser::new();
        for (qi, row) in rows.iter().enumerate() {
            let q = row.query.as_str();
            let t = Instant::now();
            let ranking = match method.kind {
                Kind::Ranking(r) => {
                    let v = self.rank(r, qi, q)?;
                    run.latencies_ms.push(ms(t));
                    v
                }
                Kind::Traverse {
                    seeding,
                    config,
                    rule: None,
                } => {
                    let seeds = self.seeds(&graph, seeding, q, None)?;
                    let v = if seeds.is_empty() {
                        Vec::new()
                    } else {
                        self.traverse(&mut tr, &graph, &seeds, config)?.fired
                    };
                    run.latencies_ms.push(ms(t));
                    v
                }
                Kind::Traverse {
                    seeding,
                    config,
                    rule: Some(rule),
                } => {
                    let seeds = self.seeds(&graph, seeding, q, None)?;
                    let result = self.traverse(&mut tr, &graph, &seeds, config)?;
                    run.latencies_ms.push(ms(t));
                    if let Some(o) = self.outcome(outcome, &result.fired, row) {
                        self.learn(&mut graph, &result, rule, o)?;
                    }
                    result.fired
                }
            };
            run.rankings.push(ranking);
            bar.inc(1);
        }
        Ok((run, graph))
    }
}

/// The held-out design of the clean protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOutSpec {
    /// Folds (K of K-fold cross-validation).
    pub folds: usize,
    /// Independent random fold assignments.
    pub repetitions: usize,
    /// Seed of the ChaCha8 shuffles (repetition r uses `seed + r`).
    pub seed: u64,
}

/// Held-out rankings of one learning method.
#[derive(Debug, Clone)]
pub struct HeldOut {
    /// Training sizes evaluated, in order; the last entry is `None` = the whole training
    /// part of each fold.
    pub checkpoints: Vec<Option<usize>>,
    /// `rankings[rep][checkpoint][query]`: the ranking of a query by the graph learned on
    /// the first `checkpoint` training queries of the folds that do not contain it
    /// (`None` for queries not evaluated: those without a relevant file).
    pub rankings: Vec<Vec<Vec<Option<Vec<NodeId>>>>>,
    /// Milliseconds of each query's final held-out evaluation in repetition 0 (with the
    /// graph-independent part of its seeding, computed once).
    pub latencies_ms: Vec<f64>,
}

impl Engines<'_> {
    /// K-fold held-out evaluation of a learning method (see [`HeldOutSpec`]): for every
    /// repetition the labelled queries (those with a relevant file), grouped by query text
    /// so that the repeats of a query share a fold, are shuffled group-wise and dealt into
    /// `folds` folds; for each fold a fresh copy of the split graph learns online, in file
    /// order, from the other folds' queries with `outcome`, and the fold's queries are
    /// ranked on the frozen graph after 0, 5, 10, 20 training queries (those every fold
    /// reaches) and after all of them. The rankings at 0 are the method's cold traversal.
    ///
    /// Results do not depend on the thread count: each (repetition, fold) is independent
    /// and merged in order. Latencies are those of repetition 0's final evaluation (hash
    /// seeds, computed once per query, included).
    pub fn heldout(
        &self,
        method: &Method,
        rows: &[QueryRow],
        spec: &HeldOutSpec,
        outcome: Outcome,
    ) -> Result<HeldOut> {
        let Kind::Traverse {
            seeding,
            config,
            rule: Some(rule),
        } = method.kind
        else {
            return Err(internal(format!("{} does not learn", method.name)));
        };
        let labelled: Vec<usize> = (0..rows.len())
            .filter(|&i| !rows[i].relevant_files.is_empty())
            .collect();
        let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
        for &q in &labelled {
            let text = rows[q].query.as_str();
            match groups.iter_mut().find(|g| g.0 == text) {
                Some(g) => g.1.push(q),
                None => groups.push((text, vec![q])),
            }
        }
        let k = spec.folds.max(2).min(groups.len().max(2));
        let folds_of: Vec<Vec<usize>> = (0..spec.repetitions)
            .map(|r| {
                let mut perm: Vec<usize> = (0..groups.len()).collect();
                perm.shuffle(&mut ChaCha8Rng::seed_from_u64(
                    spec.seed.wrapping_add(r as u64),
                ));
                let mut fold = vec![usize::MAX; rows.len()];
                for (j, &g) in perm.iter().enumerate() {
                    for &q in &groups[g].1 {
                        fold[q] = j % k;
                    }
                }
                fold
            })
            .collect();
        let labelled_ref = &labelled;
        let min_train = folds_of
            .iter()
            .flat_map(|fold| {
                (0..k).map(move |f| labelled_ref.iter().filter(|&&q| fold[q] != f).count())
            })
            .min()
            .unwrap_or(0);
        let mut checkpoints: Vec<Option<usize>> = [0, 5, 10, 20]
            .into_iter()
            .filter(|&c| c <= min_train)
            .map(Some)
            .collect();
        checkpoints.push(None);
        // What of the seeds does not depend on the graph is computed once per query (its
        // time is added to the query's latency).
        let mut seed_ms = vec![0.0; rows.len()];
        let mut cache: Vec<Vec<(NodeId, f64)>> = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let t = Instant::now();
            cache.push(self.seed_cache(seeding, &r.query)?);
            seed_ms[i] = ms(t);
        }
        let jobs: Vec<(usize, usize)> = (0..spec.repetitions)
            .flat_map(|r| (0..k).map(move |f| (r, f)))
            .collect();
        type Cell = (usize, usize, Vec<NodeId>, f64);
        let results: Vec<Result<(usize, Vec<Cell>)>> = jobs
            .par_iter()
            .map(|&(rep, f)| {
                let fold = &folds_of[rep];
                let train: Vec<usize> =
                    labelled.iter().copied().filter(|&q| fold[q] != f).collect();
                let test: Vec<usize> = labelled.iter().copied().filter(|&q| fold[q] == f).collect();
                let mut graph = self.corpus.graph.clone();
                let mut tr = Traverser::new();
                let mut cells: Vec<Cell> = Vec::new();
                let seeds_of = |graph: &Graph, q: usize| {
                    self.seeds(graph, seeding, &rows[q].query, Some(&cache[q]))
                };
                for m in 0..=train.len() {
                    for (ci, c) in checkpoints.iter().enumerate() {
                        if *c == Some(m) || (c.is_none() && m == train.len()) {
                            for &q in &test {
                                let t = Instant::now();
                                let seeds = seeds_of(&graph, q)?;
                                let fired = self.traverse(&mut tr, &graph, &seeds, config)?.fired;
                                cells.push((ci, q, fired, ms(t) + seed_ms[q]));
                            }
                        }
                    }
                    if let Some(&q) = train.get(m) {
                        let seeds = seeds_of(&graph, q)?;
                        let result = self.traverse(&mut tr, &graph, &seeds, config)?;
                        if let Some(o) = self.outcome(outcome, &result.fired, &rows[q]) {
                            self.learn(&mut graph, &result, rule, o)?;
                        }
                    }
                }
                Ok((rep, cells))
            })
            .collect();
        let mut rankings: Vec<Vec<Vec<Option<Vec<NodeId>>>>> =
            vec![vec![vec![None; rows.len()]; checkpoints.len()]; spec.repetitions];
        let mut latencies_ms = vec![0.0; rows.len()];
        let last = checkpoints.len() - 1;
        for r in results {
            let (rep, cells) = r?;
            for (ci, q, fired, lat) in cells {
                if rep == 0 && ci == last {
                    latencies_ms[q] = lat;
                }
                rankings[rep][ci][q] = Some(fired);
            }
        }
        Ok(HeldOut {
            checkpoints,
            rankings,
            latencies_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_slices() {
        assert_eq!(py_slice_len(46, 20), 20);
        assert_eq!(py_slice_len(46, 0), 0);
        assert_eq!(py_slice_len(46, -40), 6);
        assert_eq!(py_slice_len(46, -50), 0);
        assert_eq!(py_slice_len(3, 20), 3);
    }

    #[test]
    fn method_table() {
        let names: Vec<&str> = PAPER_METHODS.iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            [
                "keyword_overlap",
                "hash_embed_similarity",
                "static_traverse",
                "crabpath_traverse",
                "crabpath_no_inhibition",
                "crabpath_pg",
                "crabpath_with_replay",
                "crabpath_pg_with_replay"
            ]
        );
        assert_eq!(PAPER_METHODS.iter().filter(|m| m.learns()).count(), 5);
    }
}
