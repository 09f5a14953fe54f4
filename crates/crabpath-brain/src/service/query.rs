//! The one query path: embed the text (or take a vector), seed from the vectors, traverse
//! the graph for at most 15 hops, journal the query, and answer with the fired nodes,
//! the context, the seeds, the path that reached each node and, on request, the
//! explanation (reference `crabpath/cli.py::cmd_query`, `daemon.py::_handle_query`,
//! commit 134c676).
//!
//! Seeds: a state file's index is searched exactly as the reference does (`f64`,
//! [`crabpath::index::VectorIndex::search`]; a resident hash-v1 index through posting
//! lists, with the same results); a database's vectors through
//! [`crate::store::search::Searcher`]. A graph file without an index is seeded by
//! keyword overlap ([`crabpath::keyword::keyword_ranking`]).
//!
//! Seeding ([`Seeding`], issue 28 item 3): a database brain of the corrected profile
//! is seeded by hybrid search by default — its vectors and its lexical (BM25) index
//! ([`crate::store::lexical`]), each searched to a depth of at least
//! [`lexical::MIN_FUSION_DEPTH`], fused by reciprocal rank ([`lexical::fuse`]) — and the
//! first `top` of the fused list are the seeds; a brain with hash-v1 vectors by its
//! lexical index alone ([`Seeding::default_for`] says why). The paper profile and every
//! state file are seeded by the vectors alone, exactly as before; so is a brain whose
//! lexical index finds nothing for the question.
//!
//! The ranked answer ([`Answer::ranked`], issue 28 items 2 and 6): the seeds in the
//! seeding's order, then the nodes the traversal added (best activation first, a named
//! speaker's turns boosted, [`speaker::added_in_order`]; at most
//! [`ADDED_PER_SEED`] per seed), then the rest of the seeding's list, then the rest of
//! what the traversal added, each once, at most `limit`: traversal may add nodes after
//! the seeds but never displaces one of the first `top` seeds, and displaces the
//! seeding's later ranks by a bounded number of places. In a conversation brain the
//! best addition comes fifth, before the fifth seed ([`super::lead`]), and then the first
//! [`super::rerank::DEPTH`] are re-ordered by a small linear ranker ([`super::rerank`]).
//!
//! Corrections (issue 31 item 4, corrected profile; [`crate::service::CorrectionMode`]):
//! a CORRECTION node is a guardrail, returned in [`Answer::guardrails`] beside the
//! content and never in the ranked content; a seeding's results that are corrections
//! seed beside its first `top` content results rather than in their place.
//!
//! Traversal of a database that is not resident reads only the part of the graph the
//! traversal visits: the seeds with their outgoing edges, then the outgoing edges of
//! every node that fires, until every node that fired has had its edges read (a
//! traversal only ever follows and inhibits through the edges of nodes that fired, so
//! the result is the one the whole graph gives).

use std::time::Instant;

use crabpath::explain::{explain, Explanation};
use crabpath::graph::{Graph, NodeId};
use crabpath::keyword::keyword_ranking;
use crabpath::router::RouterConfig;
use crabpath::traverse::{AsideFn, TraversalConfig, TraversalResult};
use pyformat::pyjson::PyValue;
use rusqlite::OptionalExtension;

use super::content_depth::{deepen, first_depth};
use super::engine::{Backend, Brain};
use super::guardrail::{is_guardrail, metadata_is_guardrail, seed_prefix};
use super::neurogenesis::{strip_autos, Growth, Steer};
use crate::error::{Error, Result};
use crate::reference::journal::query_event;
use crate::service::command::query::traversal_config;
use crate::service::route::Routing;
use crate::store::lexical;
use crate::store::rows::{load_part, Loaded};
use crate::store::search::Searcher;
use crate::store::speaker;
use crate::store::sql_error;

/// A query.
#[derive(Debug, Clone)]
pub struct QueryRequest<'q> {
    /// The query text (journaled; embedded unless `vector` is given).
    pub text: &'q str,
    /// The query vector, instead of embedding the text.
    pub vector: Option<Vec<f64>>,
    /// Number of seeds taken from the vectors (or the keyword ranking).
    pub top: usize,
    /// Character budget of the fired nodes (a negative one acts as 0).
    pub max_context_chars: Option<i64>,
    /// The journal entry's `metadata` (`null` from the command line, `{"chat_id":
    /// ...}` from the daemon).
    pub journal_metadata: PyValue,
    /// The router of habitual edges (`None`: none, as the reference traverses; see
    /// [`crate::service::route`]).
    pub route: Option<RouterConfig>,
    /// At most this many node ids in the ranked answer ([`Answer::ranked`]); `None`:
    /// as many as the answer has, and every other part of the answer exactly as before
    /// `limit` existed (issue 28, item 2).
    pub limit: Option<usize>,
    /// Which search seeds the traversal; `None`: the profile's default
    /// ([`Seeding::default_for`]) (issue 28, item 3).
    pub seeding: Option<Seeding>,
    /// Whether to traverse from the seeds (default `true`); `false` answers with the
    /// seeding's ranking alone, "the hybrid search alone" of issue 28, item 6.
    pub traverse: bool,
    /// Neurogenesis for this query (issue 31 item 1, `super::neurogenesis`): `None`
    /// the brain's setting (on unless `meta.neurogenesis` is `off`); `Some(false)`
    /// answers exactly as a brain without neurogenesis does and grows nothing.
    pub neurogenesis: Option<bool>,
    /// Whether a conversation brain's answer is re-ordered by [`super::rerank`] (default
    /// `true`; `false` gives the order before it, to measure it). Other brains ignore it.
    pub rerank: bool,
    /// Whether the answer keeps the ranker's candidates with their features
    /// ([`Answer::candidates`]; default `false`): what the ranker's weights are fitted on
    /// (`benchmarks/examples/rerank_dump.rs`), not needed to answer.
    pub keep_candidates: bool,
}

/// Which search seeds the traversal (issue 28, item 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seeding {
    /// The vectors alone: the reference's seeding, and the only one of a state file.
    Dense,
    /// The lexical (BM25) index of a database brain alone.
    Lexical,
    /// Dense and lexical results fused (see `crate::store::lexical`).
    Hybrid,
}

impl Seeding {
    /// Every seeding, in the order `--help` lists them.
    pub const ALL: [Seeding; 3] = [Seeding::Dense, Seeding::Lexical, Seeding::Hybrid];

    /// `dense` / `lexical` / `hybrid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Seeding::Dense => "dense",
            Seeding::Lexical => "lexical",
            Seeding::Hybrid => "hybrid",
        }
    }

    /// The default seeding: a database brain of the corrected profile is seeded by
    /// hybrid search, or by its lexical index alone when its vectors are the hash
    /// embedder's (`hash_vectors`: the `sparse` layout, [`crate::store::layout_for`]);
    /// the paper profile and every state-file brain by the vectors alone, exactly as
    /// the reference.
    ///
    /// Why lexical for hash-v1 (issue 28, items 3 and 7): hash-v1 has no idf, and fusing
    /// it in costs more than it adds — on the tldr-pages folder questions BM25 alone
    /// answers success@5 0.636 against hybrid's 0.585, and on LoCoMo (the product path,
    /// 1,986 questions) recall@5 0.541 against 0.501 (`results/bench/folder/`,
    /// `results/bench/LOCOMO.md`). A retrieval-trained embedder's vectors are worth
    /// fusing: on LoCoMo hybrid seeds lift MiniLM's dense recall@10 from 0.466 to 0.61.
    pub fn default_for(
        profile: crabpath::profile::Profile,
        database: bool,
        hash_vectors: bool,
    ) -> Seeding {
        match (profile.fixes_bugs() && database, hash_vectors) {
            (false, _) => Seeding::Dense,
            (true, true) => Seeding::Lexical,
            (true, false) => Seeding::Hybrid,
        }
    }
}

impl std::fmt::Display for Seeding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Seeding {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Seeding::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
            .ok_or_else(|| format!("unknown seeding `{s}` (expected dense, lexical or hybrid)"))
    }
}

impl<'q> QueryRequest<'q> {
    /// A query of `text` with `top` seeds, no budget.
    pub fn new(text: &'q str, top: usize) -> Self {
        QueryRequest {
            text,
            vector: None,
            top,
            max_context_chars: None,
            journal_metadata: PyValue::Null,
            route: None,
            limit: None,
            seeding: None,
            traverse: true,
            neurogenesis: None,
            rerank: true,
            keep_candidates: false,
        }
    }
}

/// What a query found. It borrows the graph it ran on (the brain's, or the part read
/// for it), valid until the brain's next operation.
pub struct Answer<'b> {
    /// The graph the traversal ran on (at least every fired node, with its content).
    pub graph: &'b Graph,
    /// The traversal: fired nodes in order, steps, scores.
    pub result: TraversalResult,
    /// The seeds the traversal started from.
    pub seeds: Vec<(NodeId, f64)>,
    /// The search results as found (id, score), including ids without a node.
    pub hits: Vec<(String, f64)>,
    /// The traversal configuration used.
    pub config: TraversalConfig,
    /// Milliseconds spent embedding the query.
    pub embed_ms: f64,
    /// Milliseconds spent searching and traversing.
    pub traverse_ms: f64,
    /// The ranked node ids ([`Answer::ranked`]), already cut to the request's `limit`.
    pub ranking: Vec<String>,
    /// The corrections the answer reached, best first, then those the question found by
    /// its words that it had not reached, returned beside the content as guardrails and
    /// never in [`Answer::ranking`] (corrected profile; the `paper` profile ranks them as
    /// content). Issue 31 item 4, seed 003 §1.3.
    pub guardrails: Vec<String>,
    /// The texts of the guardrails the question found by its words
    /// (`super::guardrail::found_by_words`), which the graph part a query read may not
    /// hold: `(id, content)`.
    found_guardrails: Vec<(String, String)>,
    /// A re-ordered answer's candidates in the order before re-ranking, each with its
    /// features ([`super::rerank::features`] in a conversation brain,
    /// [`super::folder_rank::features`] in a hash-v1 folder brain): what the rankers'
    /// weights are fitted on. Empty unless the request asked for them
    /// ([`QueryRequest::keep_candidates`]) and the answer was re-ordered.
    pub candidates: Vec<(String, Vec<f64>)>,
    /// Set when the database could not take the query's journal entry (full disk,
    /// read-only underneath): the answer stands, unjournaled (issue 30 item 4,
    /// `super::unjournaled`).
    pub unjournaled: Option<super::unjournaled::Unjournaled>,
}

impl Answer<'_> {
    /// Whether the query was journaled (every interface's `journaled`; see
    /// [`Answer::unjournaled`]).
    pub fn journaled(&self) -> bool {
        self.unjournaled.is_none()
    }

    /// The node ids best first, at most the request's `limit` (without one: as many as
    /// the answer has), in the order the product puts them in an agent's context:
    /// recall@k is read from the first k (issue 28, items 2 and 6).
    ///
    /// The rule: the traversal's seeds in the seeding's order, then the nodes the
    /// traversal added (best activation first, at most [`ADDED_PER_SEED`] per seed),
    /// then the rest of the seeding's ranked list, then the rest of what the traversal
    /// added, each id once. Traversal may add nodes after the seeds but never removes
    /// one of the first `top` seeds.
    pub fn ranked(&self) -> Vec<&str> {
        self.ranking.iter().map(String::as_str).collect()
    }

    /// The guardrails ([`Answer::guardrails`]) with their texts, `(id, content)`, best
    /// first: what every interface returns under `guardrails` (issue 31 item 4).
    pub fn guardrail_texts(&self) -> Vec<(&str, &str)> {
        self.guardrails
            .iter()
            .map(|id| {
                let text = self
                    .graph
                    .lookup(id)
                    .and_then(|n| self.graph.node(n))
                    .map(|n| n.content.as_str())
                    .or_else(|| {
                        self.found_guardrails
                            .iter()
                            .find(|(g, _)| g == id)
                            .map(|(_, t)| t.as_str())
                    })
                    .unwrap_or("");
                (id.as_str(), text)
            })
            .collect()
    }

    /// [`Answer::guardrail_texts`] as the command line's `--json` and the daemon return
    /// them: `[{"id": ..., "text": ...}]` (the MCP server's `guardrails` has the same
    /// fields).
    pub fn guardrails_json(&self) -> PyValue {
        PyValue::List(
            self.guardrail_texts()
                .into_iter()
                .map(|(id, text)| {
                    PyValue::Dict(
                        [
                            ("id".to_string(), PyValue::Str(id.to_string())),
                            ("text".to_string(), PyValue::Str(text.to_string())),
                        ]
                        .into_iter()
                        .collect(),
                    )
                })
                .collect(),
        )
    }

    /// Whether `id` is one of the answer's guardrails (an interface lists it under
    /// `guardrails`, not among the content).
    pub fn is_guardrail(&self, id: &str) -> bool {
        self.guardrails.iter().any(|g| g == id)
    }

    /// The fired ids in order.
    pub fn fired(&self) -> Vec<&str> {
        self.result.fired_names(self.graph)
    }

    /// The context: fired contents, best activation first, within the budget.
    pub fn context(&self) -> String {
        self.result
            .context(self.graph, self.config.max_context_chars)
    }

    /// [`Answer::turn_record`] when the query was journaled; `None` when it was not (a
    /// full disk: such a query logs no turn, `super::unjournaled`). What every
    /// interface logs for a chat's query.
    pub fn journaled_turn(&self, query: &str) -> Option<crate::service::turns::TurnRecord> {
        self.journaled().then(|| self.turn_record(query))
    }

    /// The record of this answer in a conversation's log ([`crate::service::turns`]): the
    /// query, the fired ids in order with their scores, the traversed path.
    pub fn turn_record(&self, query: &str) -> crate::service::turns::TurnRecord {
        let g = self.graph;
        let score: rustc_hash::FxHashMap<NodeId, f64> =
            self.result.fired_scores.iter().copied().collect();
        crate::service::turns::TurnRecord {
            query: query.to_string(),
            fired: self.fired().iter().map(|s| s.to_string()).collect(),
            scores: self
                .result
                .fired
                .iter()
                .map(|n| score.get(n).copied().unwrap_or(0.0))
                .collect(),
            path: self
                .result
                .steps
                .iter()
                .map(|s| (g.name(s.from).to_string(), g.name(s.to).to_string()))
                .collect(),
        }
    }

    /// Why each node fired ([`crabpath::explain`]).
    pub fn explanation(&self) -> Explanation {
        explain(self.graph, &self.seeds, &self.result, &self.config)
    }
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

impl Brain {
    /// Answers a query (see the module docs) and journals it.
    ///
    /// Errors: no embedder for a text query; a query vector of another dimension than
    /// the brain's (corrected profile); a lexical or hybrid seeding asked of a state
    /// file; reading the brain.
    pub fn query(&mut self, req: &QueryRequest<'_>) -> Result<Answer<'_>> {
        self.catch_up()?;
        let neuro = self.neurogenesis_enabled(req.neurogenesis)?;
        let mut parts = self.query_parts(req, neuro)?;
        if let Some(chat) = super::unjournaled::chat_of(&req.journal_metadata) {
            match &parts.unjournaled {
                Some(u) => self.serving.unjournaled.insert(&chat, u),
                None => self.serving.unjournaled.remove(&chat),
            }
        }
        if let Some(g) = parts.growth.take() {
            let fired = parts.fired_names.clone();
            self.grow(g)?;
            // a resident graph read again by the write (another process changed its
            // structure meanwhile) has other node numbers: ask again, without growing
            let same = self.graph_at(parts.at).is_some_and(|graph| {
                parts.result.fired_names(graph)
                    == fired.iter().map(String::as_str).collect::<Vec<_>>()
            });
            if !same {
                parts = self.query_parts(req, neuro)?;
                parts.growth = None;
            }
        }
        let Some(graph) = self.graph_at(parts.at) else {
            return Err(Error::Invalid(
                "the brain changed while it was queried".into(),
            ));
        };
        Ok(Answer {
            graph,
            result: parts.result,
            seeds: parts.seeds,
            hits: parts.hits,
            config: parts.config,
            embed_ms: parts.embed_ms,
            traverse_ms: parts.traverse_ms,
            ranking: parts.ranking,
            guardrails: parts.guardrails,
            found_guardrails: parts.found_guardrails,
            candidates: parts.candidates,
            unjournaled: parts.unjournaled,
        })
    }

    /// The graph a query's answer was computed on.
    fn graph_at(&self, at: GraphAt) -> Option<&Graph> {
        match (&self.backend, at) {
            (Backend::Json(j), GraphAt::Json) => j.state.as_ref().map(|s| &s.graph),
            (Backend::Store(s), GraphAt::Resident) => s.resident.as_ref().map(|r| &r.loaded.graph),
            (Backend::Store(_), GraphAt::Scratch) => Some(&self.scratch.graph),
            _ => None,
        }
    }

    /// The query itself (see [`Brain::query`]), its answer owned, the graph named by
    /// [`GraphAt`]; with `neuro`, auto nodes steer the seeding and the growth to do is
    /// returned.
    fn query_parts(&mut self, req: &QueryRequest<'_>, neuro: bool) -> Result<Parts> {
        let profile = self.profile;
        // corrected profile: a correction the walk reaches is a guardrail, set aside so
        // that the walk among the content goes on as without it (issue 31 item 4)
        self.traverser
            .set_aside(profile.fixes_bugs().then_some(is_guardrail as AsideFn));
        // the brain's tuned reflex threshold and damping (issue 31 item 3)
        let config = self
            .tuning()?
            .traversal(&traversal_config(profile, req.max_context_chars));
        let (database, hash_vectors) = match &self.backend {
            Backend::Store(s) => (true, s.store.layout() == crate::store::Layout::Sparse),
            Backend::Json(_) => (false, false),
        };
        // a conversation brain's answer puts one addition among the first seeds
        // (super::lead)
        let conversation = match &self.backend {
            Backend::Store(s) if profile.fixes_bugs() => {
                speaker::is_conversation(s.store.conn()).map_err(sql_error(s.store.path()))?
            }
            _ => false,
        };
        let seeding = req
            .seeding
            .unwrap_or_else(|| Seeding::default_for(profile, database, hash_vectors));
        if !database && seeding != Seeding::Dense {
            return Err(Error::Invalid(format!(
                "seeding {seeding} needs a brain database (a state file has no lexical index): use seeding dense"
            )));
        }
        let depth = seeding_depth(req, seeding);
        let embed_start = Instant::now();
        let needs_vector = match &self.backend {
            Backend::Json(j) => match &j.state {
                Some(st) => {
                    !st.index.is_empty() || j.index_path.is_some() || j.state_path.is_some()
                }
                None => j.state_path.is_some() || j.index_path.is_some(),
            },
            Backend::Store(_) => seeding != Seeding::Lexical,
        };
        let vector = match (&req.vector, needs_vector) {
            (Some(v), _) => Some(v.clone()),
            (None, true) => Some(self.embedder()?.embed(req.text)?),
            (None, false) => None,
        };
        let embed_ms = ms(embed_start);
        let start = Instant::now();
        let Brain {
            backend,
            traverser,
            scratch,
            serving,
            ..
        } = self;
        let route = req.route.as_ref();
        let text = req.text;
        // a conversation brain's answer is re-ordered (super::rerank): the coverage of
        // the question's terms, per node read
        let rerank = conversation && req.rerank;
        // a hash-v1 folder brain's answer is re-ordered (super::folder_rank; its weights
        // were fitted on hash-v1 and cost a MiniLM brain its first page)
        let folder =
            !conversation && database && hash_vectors && profile.fixes_bugs() && req.rerank;
        let ranker = match (rerank, folder) {
            (true, _) => Some(Ranker::Conversation),
            (false, true) => Some(Ranker::Folder),
            (false, false) => None,
        };
        let mut cover = rustc_hash::FxHashMap::default();
        // corrections the question finds by its words (schema 5, corrected profile)
        let mut found_guardrails: Vec<(String, String)> = Vec::new();
        let mut unjournaled = None;
        let (graph, hits, seeds, result, list, at): (&Graph, _, _, _, Vec<_>, _) = match backend {
            Backend::Json(j) => {
                if j.state.is_none() {
                    j.state = Some(super::engine::read_json(j)?);
                }
                let st = j.state.as_ref().expect("read above");
                let graph = &st.graph;
                let mut found: Vec<(String, f64)> = match &vector {
                    Some(v) => {
                        if profile.fixes_bugs() {
                            if let Some(d) = st.index.dim() {
                                if d != v.len() {
                                    return Err(Error::Invalid(format!(
                                        "the query vector has {} dimensions, the index {d}",
                                        v.len()
                                    )));
                                }
                            }
                        }
                        match &j.postings {
                            Some(p) => {
                                let mut scratch = crabpath::postings::Scratch::default();
                                p.search(&st.index, v, depth, &mut scratch)
                            }
                            None => st.index.search(v, depth),
                        }
                    }
                    None => keyword_ranking(graph, req.text, depth)
                        .into_iter()
                        .map(|(n, s)| (graph.name(n).to_string(), s))
                        .collect(),
                };
                let list: Vec<String> = found
                    .iter()
                    .filter(|(id, _)| graph.lookup(id).is_some_and(|n| graph.has_node(n)))
                    .map(|(id, _)| id.clone())
                    .collect();
                let n = match profile.fixes_bugs() {
                    true => seed_prefix(found.len(), req.top, |i| {
                        graph
                            .lookup(&found[i].0)
                            .is_some_and(|n| is_guardrail(graph, n))
                    }),
                    false => req.top,
                };
                found.truncate(n);
                let hits = found;
                let seeds: Vec<(NodeId, f64)> = hits
                    .iter()
                    .filter_map(|(id, s)| graph.lookup(id).map(|n| (n, *s)))
                    .collect();
                let result = if req.traverse {
                    let vectors = crate::service::route::IndexVectors::new(graph, &st.index);
                    let routing = Routing {
                        config: route,
                        vectors: Some(&vectors),
                        query: vector.as_deref(),
                        text,
                    };
                    crate::service::route::traverse(traverser, graph, &seeds, &config, routing)?
                } else {
                    seeds_alone(graph, &seeds)
                };
                let entry = query_entry(req, &result, graph, graph.node_count());
                match crate::reference::journal::append_entries(&j.journal, &[entry]) {
                    Ok(()) => {}
                    // corrected profile: the answer stands, marked, as a database's
                    // (super::unjournaled); the reference fails the query
                    Err(Error::Io { path, source })
                        if profile.fixes_bugs() && crate::reference::journal::no_room(&source) =>
                    {
                        unjournaled = Some(super::unjournaled::Unjournaled {
                            path,
                            reason: source.to_string(),
                        });
                    }
                    Err(e) => return Err(e),
                }
                (graph, hits, seeds, result, list, GraphAt::Json)
            }
            Backend::Store(s) => {
                let v = vector.as_deref().unwrap_or(&[]);
                let dim = s.store.dim();
                if dim > 0 && vector.is_some() && v.len() != dim {
                    return Err(Error::Invalid(format!(
                        "{}: the query vector has {} dimensions, the brain's vectors {dim}",
                        s.store.path().display(),
                        v.len()
                    )));
                }
                let path = s.store.path().to_path_buf();
                let err = sql_error(&path);
                // a version-2 brain opened for reading has no lexical index
                let seeding = if s.store.has_lexical() {
                    seeding
                } else {
                    Seeding::Dense
                };
                // the content depth's first search (super::content_depth::first_depth)
                let first = first_depth(depth, !conversation && seeding != Seeding::Hybrid);
                if let Some(r) = &s.resident {
                    let graph = &r.loaded.graph;
                    // corrected profile: `depth` content results (super::content_depth)
                    let search = |d| {
                        seeding_list(
                            &r.searcher,
                            s.store.conn(),
                            v,
                            text,
                            seeding,
                            d,
                            Some(&r.loaded),
                        )
                    };
                    let ranked = match profile.fixes_bugs() {
                        true => deepen(depth, first, search, |sym| {
                            Ok(r.loaded.by_sym.get(&sym).is_some_and(|&n| {
                                super::neurogenesis::is_auto(graph.name(n))
                                    || is_guardrail(graph, n)
                            }))
                        }),
                        false => search(depth),
                    }
                    .map_err(&err)?;
                    let aside =
                        aside_hits(s.store.conn(), text, profile, s.store.has_aside_lexical())
                            .map_err(&err)?;
                    let (ranked, autos) = super::neurogenesis::split_autos(
                        s.store.conn(),
                        ranked,
                        text,
                        neuro,
                        &aside,
                    )
                    .map_err(&err)?;
                    found_guardrails = super::guardrail::found_by_words(text, &aside);
                    let n = match profile.fixes_bugs() {
                        true => seed_prefix(ranked.len(), req.top, |i| {
                            r.loaded
                                .by_sym
                                .get(&ranked[i].0)
                                .is_some_and(|&n| is_guardrail(graph, n))
                        }),
                        false => req.top,
                    };
                    let found = with_autos(&ranked, n, &autos);
                    let found = &found[..];
                    let mut hits = Vec::with_capacity(found.len());
                    let mut seeds = Vec::with_capacity(found.len());
                    for &(sym, score) in found {
                        if let Some(&n) = r.loaded.by_sym.get(&sym) {
                            hits.push((graph.name(n).to_string(), score));
                            if graph.has_node(n) {
                                seeds.push((n, score));
                            }
                        }
                    }
                    let list: Vec<String> = ranked
                        .iter()
                        .filter_map(|(sym, _)| r.loaded.by_sym.get(sym))
                        .filter(|&&n| graph.has_node(n))
                        .map(|&n| graph.name(n).to_string())
                        .collect();
                    let result = if !req.traverse {
                        seeds_alone(graph, &seeds)
                    } else if route.is_some() {
                        let stamp =
                            crate::service::route::vector_stamp(s.store.conn()).map_err(&err)?;
                        serving.vectors.validate(stamp);
                        let sym_of = |n: NodeId| r.loaded.sym(n);
                        let vectors = crate::service::route::StoreVectors::new(
                            s.store.conn(),
                            s.store.layout(),
                            dim,
                            &sym_of,
                            &serving.vectors,
                        );
                        let routing = Routing {
                            config: route,
                            vectors: Some(&vectors),
                            query: Some(v),
                            text,
                        };
                        crate::service::route::traverse(traverser, graph, &seeds, &config, routing)?
                    } else {
                        traverser.traverse(graph, &seeds, &config)?
                    };
                    let mut result = result;
                    strip_autos(&mut result, graph);
                    let entry = query_entry(req, &result, graph, graph.node_count());
                    unjournaled = super::unjournaled::store_journal(&s.store, &entry)?;
                    if rerank {
                        let conn = s.store.conn();
                        let nodes = brain_nodes(conn)
                            .and_then(|n| content_nodes(conn, n, s.store.has_aside_lexical()))
                            .map_err(&err)?;
                        cover =
                            super::rerank::coverage(conn, text, &r.loaded, nodes).map_err(&err)?;
                    }
                    (graph, hits, seeds, result, list, GraphAt::Resident)
                } else {
                    let (layout, nonce) = (s.store.layout(), s.store.nonce());
                    let dir = s.dir.clone();
                    let aside_index = s.store.has_aside_lexical();
                    let tx = s.store.read()?;
                    let searcher = Searcher::load(&tx, &dir, layout, dim, nonce).map_err(&err)?;
                    // corrected profile: `depth` content results (super::content_depth);
                    // each result's row is read once, and its kind (question node,
                    // correction) serves both the depth and the places below
                    let search = |d| seeding_list(&searcher, &tx, v, text, seeding, d, None);
                    let mut kinds: rustc_hash::FxHashMap<i64, (bool, bool)> = Default::default();
                    let ranked = match profile.fixes_bugs() {
                        true => tx
                            .prepare_cached("SELECT id, metadata FROM nodes WHERE sym = ?1")
                            .and_then(|mut stmt| {
                                deepen(depth, first, search, |sym| {
                                    if let Some(&(auto, guard)) = kinds.get(&sym) {
                                        return Ok(auto || guard);
                                    }
                                    let row = stmt
                                        .query_row([sym], |r| {
                                            Ok((
                                                r.get::<_, String>(0)?,
                                                r.get::<_, Option<String>>(1)?,
                                            ))
                                        })
                                        .optional()?;
                                    let (auto, guard) = row.map_or((false, false), |(id, m)| {
                                        (
                                            super::neurogenesis::is_auto(&id),
                                            m.is_some_and(|m| metadata_is_guardrail(&m)),
                                        )
                                    });
                                    kinds.insert(sym, (auto, guard));
                                    Ok(auto || guard)
                                })
                            }),
                        false => search(depth),
                    }
                    .map_err(&err)?;
                    let aside = aside_hits(&tx, text, profile, aside_index).map_err(&err)?;
                    let (ranked, autos) =
                        super::neurogenesis::split_autos(&tx, ranked, text, neuro, &aside)
                            .map_err(&err)?;
                    found_guardrails = super::guardrail::found_by_words(text, &aside);
                    // which ranked results are corrections (the paper profile has none):
                    // deepen read the kind of every result it kept
                    let guards: Vec<bool> = ranked
                        .iter()
                        .map(|r| kinds.get(&r.0).is_some_and(|k| k.1))
                        .collect();
                    let n = seed_prefix(ranked.len(), req.top, |i| guards[i]);
                    let found = with_autos(&ranked, n, &autos);
                    let found = &found[..];
                    // with a limit, the ranked nodes are read too (with their edges,
                    // which only adds true edges to the part: the traversal follows
                    // edges of fired nodes only), so that the answer has their texts
                    let mut sources: Vec<i64> = found.iter().map(|f| f.0).collect();
                    if let Some(k) = req.limit {
                        // corrections take no place: the first k content results
                        let m = seed_prefix(ranked.len(), k, |i| guards[i]);
                        sources.extend(ranked.iter().take(m).map(|f| f.0));
                        sources.sort_unstable();
                        sources.dedup();
                    }
                    let cache = crate::service::route::VectorCache::default();
                    let (loaded, result) = loop {
                        let loaded = load_part(&tx, &sources).map_err(&err)?;
                        let seeds = seeds_in(&loaded, found);
                        if !req.traverse {
                            let result = seeds_alone(&loaded.graph, &seeds);
                            break (loaded, result);
                        }
                        let sym_of = |n: NodeId| loaded.sym(n);
                        let vectors = crate::service::route::StoreVectors::new(
                            &tx, layout, dim, &sym_of, &cache,
                        );
                        let routing = Routing {
                            config: route,
                            vectors: Some(&vectors),
                            query: Some(v),
                            text,
                        };
                        let result = crate::service::route::traverse(
                            traverser,
                            &loaded.graph,
                            &seeds,
                            &config,
                            routing,
                        )?;
                        let missing: Vec<i64> = result
                            .fired
                            .iter()
                            .chain(Steer::targets(&loaded.graph, &seeds).iter())
                            .filter(|n| !loaded.bucket_loaded[n.index()])
                            .filter_map(|&n| loaded.sym(n))
                            .collect();
                        if missing.is_empty() {
                            break (loaded, result);
                        }
                        sources.extend(missing);
                        sources.sort_unstable();
                        sources.dedup();
                    };
                    let mut result = result;
                    strip_autos(&mut result, &loaded.graph);
                    let list = list_names(&tx, &loaded, &ranked).map_err(&err)?;
                    let nodes = brain_nodes(&tx).map_err(&err)?;
                    if rerank {
                        let content = content_nodes(&tx, nodes, aside_index).map_err(&err)?;
                        cover =
                            super::rerank::coverage(&tx, text, &loaded, content).map_err(&err)?;
                    }
                    tx.commit().map_err(&err)?;
                    let entry = query_entry(req, &result, &loaded.graph, nodes);
                    unjournaled = super::unjournaled::store_journal(&s.store, &entry)?;
                    *scratch = loaded;
                    let graph = &scratch.graph;
                    let mut hits = Vec::with_capacity(found.len());
                    for (sym, score) in found {
                        if let Some(&n) = scratch.by_sym.get(sym) {
                            hits.push((graph.name(n).to_string(), *score));
                        }
                    }
                    let seeds = seeds_in(scratch, found);
                    (graph, hits, seeds, result, list, GraphAt::Scratch)
                }
            }
        };
        let traverse_ms = ms(start);
        let list: Vec<&str> = list.iter().map(String::as_str).collect();
        let steer = Steer::of(graph, &seeds, &list);
        let adjust = Adjust {
            question: req.text,
            steer: &steer,
            guard: profile.fixes_bugs(),
            conversation,
        };
        let (ranking, guardrails, held, candidates) = match ranker {
            None => {
                let r = rank(graph, &seeds, &result, &list, req.limit, &adjust);
                (r.ids, r.guards, r.held, Vec::new())
            }
            Some(ranker) => {
                // the base order's first rerank::DEPTH (at least `limit`), re-ordered
                let depth = super::rerank::DEPTH.max(req.limit.unwrap_or(0));
                let wide = req.limit.map(|_| depth);
                let Ranked {
                    ids: base,
                    guards: g,
                    held,
                } = rank(graph, &seeds, &result, &list, wide, &adjust);
                let ids: Vec<&str> = base.iter().take(depth).map(String::as_str).collect();
                let keep = |f: &[f64]| req.keep_candidates.then(|| f.to_vec());
                let (scores, feats): (Vec<f64>, Vec<Option<Vec<f64>>>) = match ranker {
                    Ranker::Conversation => {
                        super::rerank::features(graph, &seeds, &result, &list, &ids, &cover)
                            .iter()
                            .map(|f| (super::rerank::score(f), keep(f)))
                            .unzip()
                    }
                    Ranker::Folder => super::folder_rank::features(graph, &ids, text)
                        .iter()
                        .map(|f| (super::folder_rank::score(f), keep(f)))
                        .unzip(),
                };
                let candidates = ids
                    .iter()
                    .zip(feats)
                    .filter_map(|(id, f)| Some((id.to_string(), f?)))
                    .collect();
                (
                    super::rerank::reorder_by(base, &scores, req.limit),
                    g,
                    held,
                    candidates,
                )
            }
        };
        // what the question's node inhibits goes behind the next answer's first
        // documents, after any re-ordering, so no ranker brings it back into them
        let ranking = super::judged::after_judged_places(graph, ranking, held, req.limit);
        let mut guardrails = guardrails;
        for (id, _) in &found_guardrails {
            if !guardrails.contains(id) {
                guardrails.push(id.clone());
            }
        }
        let fired_names: Vec<String> = result
            .fired_names(graph)
            .into_iter()
            .map(str::to_string)
            .collect();
        // an unjournaled query grows nothing: the growth is a write too
        let growth = (neuro && at != GraphAt::Json && unjournaled.is_none()).then(|| Growth {
            judged: super::judged::judged_documents(graph, ranking.iter().map(String::as_str)),
            text: text.to_string(),
            vector: vector.clone(),
            seeds: seeds
                .iter()
                .map(|s| graph.name(s.0))
                .filter(|n| !super::neurogenesis::is_auto(n))
                .map(str::to_string)
                .collect(),
            chat_id: super::unjournaled::chat_of(&req.journal_metadata),
        });
        Ok(Parts {
            result,
            seeds,
            hits,
            config,
            embed_ms,
            traverse_ms,
            ranking,
            at,
            growth,
            fired_names,
            guardrails,
            found_guardrails,
            candidates,
            unjournaled,
        })
    }
}

/// Which ranker re-orders an answer's first [`super::rerank::DEPTH`] ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ranker {
    /// A conversation brain's ([`super::rerank`]).
    Conversation,
    /// A hash-v1 folder brain's ([`super::folder_rank`]).
    Folder,
}

/// Which of the brain's graphs a query ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GraphAt {
    /// A state file's.
    Json,
    /// A resident database's.
    Resident,
    /// The part of a database read for the query ([`Brain`]'s scratch).
    Scratch,
}

/// A query's answer before it borrows its graph again ([`Brain::query`]).
struct Parts {
    result: TraversalResult,
    seeds: Vec<(NodeId, f64)>,
    hits: Vec<(String, f64)>,
    config: TraversalConfig,
    embed_ms: f64,
    traverse_ms: f64,
    ranking: Vec<String>,
    guardrails: Vec<String>,
    found_guardrails: Vec<(String, String)>,
    candidates: Vec<(String, Vec<f64>)>,
    unjournaled: Option<super::unjournaled::Unjournaled>,
    at: GraphAt,
    growth: Option<Growth>,
    fired_names: Vec<String>,
}

/// The question's one search of the aside index (schema 5, `aside_index`; corrected
/// profile), which both its question nodes ([`super::neurogenesis::split_autos`]) and
/// the corrections it finds by its words ([`super::guardrail::found_by_words`]) are read
/// from: at most [`super::neurogenesis::AUTO_CANDIDATES`] nodes, best first. Empty
/// otherwise.
fn aside_hits(
    conn: &rusqlite::Connection,
    text: &str,
    profile: crabpath::profile::Profile,
    aside_index: bool,
) -> rusqlite::Result<Vec<crate::store::lexical::AsideHit>> {
    if !(profile.fixes_bugs() && aside_index) {
        return Ok(Vec::new());
    }
    crate::store::lexical::search_aside(conn, text, super::neurogenesis::AUTO_CANDIDATES)
}

/// The brain's node count as its database records it (`brain.nodes`). Cost: one
/// primary-key read.
fn brain_nodes(conn: &rusqlite::Connection) -> rusqlite::Result<usize> {
    let n: i64 = conn
        .prepare_cached("SELECT nodes FROM brain WHERE id = 1")?
        .query_row([], |r| r.get(0))?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// The number of documents the lexical index's document frequencies are read against
/// (the conversation ranker's N, [`super::rerank::coverage`]): the brain's node count
/// `n` ([`brain_nodes`]) without the nodes set aside (questions and corrections, schema
/// 5, `aside`), which are not in the index. Cost: a count of the aside index's rows.
fn content_nodes(conn: &rusqlite::Connection, n: usize, aside: bool) -> rusqlite::Result<usize> {
    if !aside {
        return Ok(n);
    }
    let table = crate::store::schema::ASIDE_LEXICAL_TABLE;
    let set_aside: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM {table}"))?
        .query_row([], |r| r.get(0))?;
    Ok(n.saturating_sub(usize::try_from(set_aside).unwrap_or(0)))
}

/// The seeds of a database brain: the first `top` of the seeding's list, then the auto
/// nodes that seed the question (not counted in `top`: they are questions, not answers;
/// [`super::neurogenesis`]).
fn with_autos(ranked: &[(i64, f64)], top: usize, autos: &[(i64, f64)]) -> Vec<(i64, f64)> {
    ranked[..ranked.len().min(top)]
        .iter()
        .chain(autos)
        .copied()
        .collect()
}

/// How many results the seeding ranks: the `top` seeds, and the request's `limit` for
/// the ranked answer; a fused seeding at least [`lexical::MIN_FUSION_DEPTH`] from each
/// search. A dense query without a limit searches for `top` exactly, as before `limit`
/// existed (the search's order is total, so its first `top` never depend on the depth).
fn seeding_depth(req: &QueryRequest<'_>, seeding: Seeding) -> usize {
    let asked = req.top.max(req.limit.unwrap_or(0));
    match seeding {
        Seeding::Dense => asked,
        Seeding::Lexical | Seeding::Hybrid => asked.max(lexical::MIN_FUSION_DEPTH),
    }
}

/// The seeding's ranked list of a database brain, `(sym, score)`, best first, at most
/// `depth` long.
///
/// * dense: the vectors' search, scores as found (cosines);
/// * lexical: the BM25 search, ranked as found, scored by [`lexical::fuse`] of that one
///   list (so a seed's score is in (0, 1], on the traversal's scale);
/// * hybrid: [`lexical::fuse`] of the dense results with a positive score and the
///   BM25 results; when BM25 finds nothing (no word in common), the dense list alone,
///   exactly as dense seeding gives it.
///
/// `resident`: the graph of a resident brain, where a conversation's speakers are read
/// (else from the database, [`speaker::speaker_column`]).
fn seeding_list(
    searcher: &Searcher,
    conn: &rusqlite::Connection,
    v: &[f64],
    text: &str,
    seeding: Seeding,
    depth: usize,
    resident: Option<&Loaded>,
) -> rusqlite::Result<Vec<(i64, f64)>> {
    // a conversation brain's lexical search prefers the turns of a speaker the
    // question names (not its dense search: see crate::store::speaker)
    let conversation = speaker::is_conversation(conn)?;
    let wide = if conversation {
        depth.saturating_mul(speaker::CANDIDATES)
    } else {
        depth
    };
    let prefer = |found: Vec<(i64, f64)>| -> rusqlite::Result<Vec<(i64, f64)>> {
        if !conversation {
            return Ok(found);
        }
        let mut l = match resident {
            Some(r) => speaker::prefer_named(text, found, |sym| {
                Ok(r.by_sym
                    .get(&sym)
                    .and_then(|&n| speaker::speaker_in(&r.graph, n))
                    .map(str::to_string))
            })?,
            None => speaker::prefer_named(text, found, speaker::speaker_column(conn)?)?,
        };
        l.truncate(depth);
        Ok(l)
    };
    let dense = || -> Vec<(i64, f64)> {
        searcher
            .search(v, depth)
            .into_iter()
            .map(|(sym, s)| (sym, f64::from(s)))
            .collect()
    };
    let lexical_syms = || -> rusqlite::Result<Vec<i64>> {
        Ok(prefer(lexical::search(conn, text, wide)?)?
            .into_iter()
            .map(|x| x.0)
            .collect())
    };
    Ok(match seeding {
        Seeding::Dense => dense(),
        Seeding::Lexical => lexical::fuse(&[&lexical_syms()?]),
        Seeding::Hybrid => {
            let lex = lexical_syms()?;
            let found = dense();
            if lex.is_empty() {
                found
            } else {
                let dense: Vec<i64> = found.iter().filter(|x| x.1 > 0.0).map(|x| x.0).collect();
                let mut fused = lexical::fuse(&[&dense, &lex]);
                fused.truncate(depth);
                fused
            }
        }
    })
}

/// The node ids of a seeding's ranked list read in a transaction: from the part of the
/// graph read for the query, else from `nodes` (an id without a node is left out).
fn list_names(
    tx: &rusqlite::Connection,
    loaded: &Loaded,
    ranked: &[(i64, f64)],
) -> rusqlite::Result<Vec<String>> {
    let mut out = Vec::with_capacity(ranked.len());
    let mut stmt =
        tx.prepare_cached("SELECT id FROM nodes WHERE sym = ?1 AND node_seq IS NOT NULL")?;
    for &(sym, _) in ranked {
        match loaded.by_sym.get(&sym) {
            Some(&n) => {
                if loaded.graph.has_node(n) {
                    out.push(loaded.graph.name(n).to_string());
                }
            }
            None => {
                if let Some(id) = stmt
                    .query_row([sym], |r| r.get::<_, String>(0))
                    .optional()?
                {
                    out.push(id);
                }
            }
        }
    }
    Ok(out)
}

/// The answer of a query that does not traverse: the seeds fire, in order, with their
/// scores.
fn seeds_alone(graph: &Graph, seeds: &[(NodeId, f64)]) -> TraversalResult {
    let mut seen = rustc_hash::FxHashSet::default();
    let seeds: Vec<(NodeId, f64)> = seeds
        .iter()
        .copied()
        .filter(|(n, _)| graph.has_node(*n) && seen.insert(*n))
        .collect();
    TraversalResult {
        fired: seeds.iter().map(|x| x.0).collect(),
        fired_scores: seeds,
        ..TraversalResult::default()
    }
}

/// How many nodes the traversal may add to the ranked answer before the rest of the
/// seeding's list, per seed (issue 28, item 6: traversal may add, not displace).
/// Unbounded, the nodes it added pushed the seeding's ranks 7–50 down so far that on
/// LoCoMo (MiniLM, the product path, 1,986 questions) recall@25 fell below the seeds'
/// own, 0.751 against 0.781; one per seed gives 0.812. With hash-v1's lexical seeds one
/// per seed gives recall@5/10/25/50 0.584 / 0.698 / 0.787 / 0.826, two per seed 0.541 /
/// 0.696 / 0.813 / 0.863 (each with its seed count tuned on conv-26 and conv-30):
/// one keeps the first ranks, which an agent reads most. With the speaker preference of
/// conversation brains ([`crate::store::speaker`], on the seeds) two per seed gain
/// nothing on the tuning conversations (recall@10 0.717 with one or two).
pub const ADDED_PER_SEED: usize = 1;

/// What adjusts [`rank`]'s rule beyond the traversal: the question (a speaker it names,
/// [`speaker::added_in_order`]), neurogenesis' steer, and whether corrections are
/// guardrails (the corrected profile).
#[derive(Clone, Copy)]
struct Adjust<'a> {
    question: &'a str,
    steer: &'a Steer,
    guard: bool,
    /// A conversation brain: the first addition goes after [`super::lead::LEAD_SEEDS`]
    /// seeds.
    conversation: bool,
}

/// The ranked ids of an answer ([`Answer::ranked`]'s rule): the seeds in order, then
/// the nodes the traversal added (best activation first, a turn of a speaker `question`
/// names boosted, [`speaker::added_in_order`]; at most [`ADDED_PER_SEED`] per
/// seed), then the rest of the seeding's ranked `list`, then the rest of the nodes the
/// traversal added, each id once, at most `limit`. In a conversation brain
/// (`conversation`) the first addition goes after the first [`super::lead::LEAD_SEEDS`]
/// content seeds instead of after all of them.
///
/// Neurogenesis (issue 31 item 5, [`super::neurogenesis`]): an auto node never takes a
/// place (it is the question); the nodes its credited edges point to (`steer`) come
/// before everything. The nodes it inhibits that the answer reaches take no place of
/// the first list either: they are the third list, in the order they would have had,
/// for [`super::judged::after_judged_places`] to put back behind the next answer's first
/// documents once any re-ordering is done; those it does not reach go after
/// everything. Without auto seeds the rule above is unchanged and the third list is
/// empty.
///
/// With `guard`, a correction
/// ([`super::guardrail::is_guardrail`]) goes to the second list, the guardrails, in the
/// same order, and takes no place of the first.
fn rank(
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    result: &TraversalResult,
    list: &[&str],
    limit: Option<usize>,
    adjust: &Adjust<'_>,
) -> Ranked {
    let cap = limit.unwrap_or(usize::MAX);
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    let mut guards = Vec::new();
    let mut held = Vec::new();
    let Adjust {
        question,
        steer,
        guard,
        conversation,
    } = *adjust;
    let is_auto = super::neurogenesis::is_auto;
    // a correction the traversal reached is a guardrail: it takes none of the places
    // the traversal's content gets
    let (reached_guards, added): (Vec<NodeId>, Vec<NodeId>) =
        speaker::added_in_order(graph, question, seeds, result)
            .into_iter()
            .partition(|&n| guard && is_guardrail(graph, n));
    let added: Vec<&str> = added.into_iter().map(|n| graph.name(n)).collect();
    // neither a question (auto) node nor a correction seeding beside the content adds a
    // place for traversal's nodes
    let content_seeds = seeds
        .iter()
        .filter(|s| !(is_auto(graph.name(s.0)) || guard && is_guardrail(graph, s.0)))
        .count();
    let first = added
        .len()
        .min(content_seeds.saturating_mul(ADDED_PER_SEED));
    let demoted: Vec<&str> = steer.demoted.iter().map(|&n| graph.name(n)).collect();
    // a conversation brain: the best addition after the first LEAD_SEEDS seeds
    let (lead, lead_added) = match conversation && first > 0 {
        true => (
            super::lead::lead_split(
                seeds
                    .iter()
                    .map(|s| !(is_auto(graph.name(s.0)) || guard && is_guardrail(graph, s.0))),
            ),
            1,
        ),
        false => (seeds.len(), 0),
    };
    let ids = steer
        .promoted
        .iter()
        .map(|&n| graph.name(n))
        .chain(seeds[..lead].iter().map(|&(n, _)| graph.name(n)))
        .chain(added[..lead_added].iter().copied())
        .chain(seeds[lead..].iter().map(|&(n, _)| graph.name(n)))
        .chain(reached_guards.iter().map(|&n| graph.name(n)))
        .chain(added[lead_added..first].iter().copied())
        .chain(list.iter().copied())
        .chain(added[first..].iter().copied())
        .filter(|id| !is_auto(id));
    for id in ids {
        // every inhibited node the answer reaches is read, in its place, whether the
        // answer is full or not
        if out.len() >= cap && held.len() >= demoted.len() {
            break;
        }
        if !seen.insert(id) {
            continue;
        }
        let correction = guard && graph.lookup(id).is_some_and(|n| is_guardrail(graph, n));
        if correction {
            if out.len() < cap {
                guards.push(id.to_string());
            }
        } else if demoted.contains(&id) {
            held.push(id.to_string());
        } else if out.len() < cap {
            out.push(id.to_string());
        }
    }
    // an inhibited node this answer did not reach (another question's, found through a
    // paraphrase's node) is not brought into its first places: it goes last, as it did
    for id in demoted {
        if out.len() < cap && seen.insert(id) {
            out.push(id.to_string());
        }
    }
    Ranked {
        ids: out,
        guards,
        held,
    }
}

/// [`rank`]'s answer: the ranked content ids, the guardrails, and the nodes the
/// question's node inhibits (`held`, in the order they would have had).
struct Ranked {
    ids: Vec<String>,
    guards: Vec<String>,
    held: Vec<String>,
}

/// The seeds of search results in a part of the graph (results without a node are
/// dropped, as the traversal drops them).
fn seeds_in(loaded: &Loaded, found: &[(i64, f64)]) -> Vec<(NodeId, f64)> {
    found
        .iter()
        .filter_map(|(sym, s)| {
            loaded
                .by_sym
                .get(sym)
                .filter(|n| loaded.graph.has_node(**n))
                .map(|&n| (n, *s))
        })
        .collect()
}

/// The journal entry of a query (stamped now).
fn query_entry(
    req: &QueryRequest<'_>,
    result: &TraversalResult,
    graph: &Graph,
    node_count: usize,
) -> pyformat::pyjson::PyDict {
    let fired = result.fired_names(graph);
    let event = query_event(req.text, &fired, node_count, req.journal_metadata.clone());
    crate::reference::journal::stamp(event, pyformat::pytime::time_time())
}
