//! Neurogenesis in the served brain (issue 31 items 1 and 5; seed 000 §5, seed 001
//! §2.7–2.8): a question becomes a node, and that node is how feedback changes the next
//! answer to the same question.
//!
//! * **Birth** ([`Brain::grow`], run by every [`Brain::query`] of a writable database
//!   brain of the corrected profile with neurogenesis on). The question's `auto:` id
//!   ([`crabpath::neurogenesis::auto_id`]) exists: it is *refreshed* (asked again).
//!   Otherwise the corrected novelty gate ([`assess_novelty`]) reads top1, the best
//!   cosine between the question's vector and its seeds' vectors (under dense seeding
//!   exactly the nearest node's; under lexical or hybrid seeding the nearest of the
//!   nodes the question reached, which costs a few vector reads instead of a search);
//!   in the novel band the node is *born* on probation: its text is the question (so
//!   index of the nodes set aside, `aside_fts`, and the vectors find it when the
//!   question is asked again; its words stay out of the content's BM25 statistics, so
//!   asking changes no other question's answer), with
//!   provisional edges to the turn's seeds ([`SEED_EDGE_WEIGHT`]) and to the nodes the
//!   conversation's previous turn fired ([`PRIOR_EDGE_WEIGHT`]). The edges go *from*
//!   the question only: seed 001 §2.7 also draws edges into it, but an edge from content
//!   would let any question that fires that content fire this one. The turn's answer is
//!   the one computed before the birth: a node joins from the next turn on.
//! * **Credit** ([`Brain::credit_question`], from [`Brain::feedback`]). A credited
//!   turn's question node gets `outcome · weight · `[`CREDIT_STEP`] on its edge to each
//!   node the agent used (`used_ids`), or without them to each node the turn fired of
//!   the documents the answer showed in its first five places, the places the outcome
//!   judged ([`super::judged`]; a query stores them in the node's `auto.judged`);
//!   below zero an edge is inhibitory. A turn whose question has no node gets one now
//!   (seed 000 §5.1's gap trigger: feedback says what the question needed), if the
//!   question passes the gate's quality rules. Each auto node the turn fired, and its
//!   question node, counts the credit toward its probation: [`PROMOTION_CREDITS`]
//!   positive credits make it permanent; a negative one demotes it (a permanent node
//!   returns to probation, a probationary one starts its count again).
//! * **Steering** ([`split_autos`], [`Steer`], used by the query's ranking). An auto
//!   node is a question, not content: it never takes a slot of the answer (its text is
//!   what the agent just asked). It seeds only a question it [`matches`] (the same
//!   words, a paraphrase sharing at least half of them; read from the aside index,
//!   [`split_autos`]); then the nodes its credited
//!   edges point to come first, strongest first, and the nodes it inhibits go to the
//!   end of the seeding's list (so the next nodes seed, fire, and take the next
//!   feedback in their place) and, in the answer, behind its first five documents
//!   ([`super::judged::after_judged_places`]: a −1 judged them as a set, and one may
//!   still be part of what the question needs). Any other auto node is left out of the seeding,
//!   so a question no one asked before is answered as without neurogenesis.
//! * **Death and merge** ([`Brain::neurogenesis_maintain`], in `maintain`; seed 001
//!   §2.8): a probationary node that no turn has asked again or credited for
//!   [`ORPHAN_TURNS`] queries dies with its provisional edges; two auto nodes of the same
//!   words are merged into the one with more credits.
//!
//! State: the node's metadata `auto` (`state` `probation`/`permanent`, `credits`,
//! `asked`, `born_seq`, `last_seq`: journal positions, whose query entries are the turn
//! clock; `judged`: the newest answer's first documents); the switch is the brain
//! setting [`NEUROGENESIS_KEY`] in `meta` (`on`, the default, or `off`) or a request's
//! own. Every birth, refresh, promotion, demotion,
//! death and merge is journaled (`"type": "neurogenesis"`, `"event"`, `"node"`).

use crabpath::graph::{Edge, EdgeKind, Graph, Metadata, Node, NodeId};
use crabpath::neurogenesis::{
    assess_novelty, auto_id, NoveltyConfig, ORPHAN_TURNS, PRIOR_EDGE_WEIGHT, PROMOTION_CREDITS,
    SEED_EDGE_WEIGHT,
};
use crabpath::traverse::TraversalResult;
use pyformat::pyjson::{PyDict, PyInt, PyValue};
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Value};

use super::engine::{Backend, Brain, Scope};
use super::judged::{is_judged, judged_documents};
use crate::error::Result;
use crate::service::turns::Turn;
use crate::store::lexical::query_terms;
use crate::store::sql_error;
use crate::store::working::Working;

/// The `meta` key of the brain's neurogenesis setting: `"on"` (the default) or `"off"`.
pub const NEUROGENESIS_KEY: &str = "neurogenesis";

/// The `type` of neurogenesis journal entries (births, refreshes, promotions,
/// demotions, deaths and merges of auto nodes), which the unlearning replay reads
/// ([`super::unlearn`], issue 30 item 3).
pub const NEUROGENESIS_EVENT: &str = "neurogenesis";

/// The prefix of an auto node's id (seed 001 §2.7: `auto:` + 12 hex digits of SHA-1).
pub const AUTO_PREFIX: &str = "auto:";

/// How much one full credit (outcome ±1, weight 1) moves a question node's edge: one
/// negative credit takes a provisional edge (0.15) below zero (inhibitory, the answer
/// moves down), one positive credit raises it above every provisional edge (steered).
pub const CREDIT_STEP: f64 = 0.25;

/// Least share of common words (Jaccard of [`query_terms`]) for an auto node to seed
/// a question: a paraphrase must share at least half of their words. "how can I unpack
/// a tar archive" steers "extract a tar archive" ({unpack, tar, archive} and {extract,
/// tar, archive}: 2 of 4); "list files in a tar archive" does not ({list, files, tar,
/// archive}: 2 of 5).
pub const MATCH_MIN: f64 = 0.5;

/// The switch's spelling: `on` or `off` (`--neurogenesis`, the daemon's and MCP's
/// `neurogenesis`, `meta.neurogenesis`); anything else is `None`.
pub fn parse_switch(s: &str) -> Option<bool> {
    match s.trim() {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// Whether `id` is an auto node's.
pub fn is_auto(id: &str) -> bool {
    id.starts_with(AUTO_PREFIX)
}

/// Whether an auto node of text `auto_text` speaks for `question` (see [`MATCH_MIN`]).
pub fn matches(question: &str, auto_text: &str) -> bool {
    let a = query_terms(question);
    let b = query_terms(auto_text);
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let common = a.iter().filter(|t| b.contains(t)).count();
    let union = a.len() + b.len() - common;
    common as f64 >= MATCH_MIN * union as f64
}

/// Counts of auto nodes (shown by `info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct NeurogenesisCounts {
    /// Auto nodes on probation.
    pub probation: usize,
    /// Auto nodes made permanent.
    pub permanent: usize,
    /// Auto nodes that died (journal `died` entries).
    pub dead: usize,
}

/// What `maintain` did to auto nodes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NeurogenesisMaintain {
    /// Probationary nodes that died.
    pub died: Vec<String>,
    /// Merged nodes: (removed, keeper).
    pub merged: Vec<(String, String)>,
}

/// An auto node's lifecycle state (its metadata `auto`).
#[derive(Debug, Clone, PartialEq)]
struct AutoState {
    permanent: bool,
    credits: u64,
    asked: u64,
    born_seq: i64,
    last_seq: i64,
    /// The documents the newest answer showed in its first places
    /// ([`super::judged`]); `None` for a node born by a feedback.
    judged: Option<Vec<String>>,
}

impl AutoState {
    fn of(node: &Node) -> Option<AutoState> {
        let a = node.metadata.get("auto")?;
        Some(AutoState {
            permanent: a.get("state").and_then(Value::as_str) == Some("permanent"),
            credits: a.get("credits").and_then(Value::as_u64).unwrap_or(0),
            asked: a.get("asked").and_then(Value::as_u64).unwrap_or(1),
            born_seq: a.get("born_seq").and_then(Value::as_i64).unwrap_or(0),
            last_seq: a.get("last_seq").and_then(Value::as_i64).unwrap_or(0),
            judged: a.get("judged").and_then(Value::as_array).map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            }),
        })
    }

    fn store(&self, node: &mut Node) {
        let mut v = json!({
            "state": if self.permanent { "permanent" } else { "probation" },
            "credits": self.credits,
            "asked": self.asked,
            "born_seq": self.born_seq,
            "last_seq": self.last_seq,
        });
        if let Some(j) = &self.judged {
            v["judged"] = json!(j);
        }
        node.metadata.insert("auto".into(), v);
    }
}

/// A neurogenesis journal entry.
fn event(kind: &str, node: &str, extra: &[(&str, PyValue)]) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str(NEUROGENESIS_EVENT.into()));
    e.insert("event".into(), PyValue::Str(kind.into()));
    e.insert("node".into(), PyValue::Str(node.into()));
    for (k, v) in extra {
        e.insert((*k).into(), v.clone());
    }
    e
}

/// A seeding's ranked list: `(sym, score)`, best first.
type Ranked = Vec<(i64, f64)>;

/// Auto nodes of the same words: the sorted words, and each node with its state.
type Group = (Vec<String>, Vec<(String, AutoState)>);

/// Most nodes read from the aside index (questions and corrections) for one question
/// ([`crate::store::lexical::search_aside`]) before [`matches`] picks the question nodes
/// that seed it: a match is short and shares at least half of the question's words, so
/// it ranks among the first by BM25 there (a brain of many corrections on the question's
/// words could push one out: the question is then answered as without it).
pub const AUTO_CANDIDATES: usize = 32;

/// The seeding list of a database brain without its auto nodes, and the auto nodes
/// that seed this question (`steer`: neurogenesis is on and the node [`matches`]).
/// Since schema 5 auto nodes are not in the lexical index: those that seed are among
/// `aside`, the question's search of the aside index ([`AUTO_CANDIDATES`] at most;
/// empty for an older brain), each with the score of the list's first node (a question
/// that speaks for this one seeds as strongly as its best content); a dense search still
/// lists them, with their cosine. A brain without auto nodes costs one index probe.
pub(super) fn split_autos(
    conn: &Connection,
    ranked: Vec<(i64, f64)>,
    text: &str,
    steer: bool,
    aside: &[crate::store::lexical::AsideHit],
) -> rusqlite::Result<(Ranked, Ranked)> {
    let any: bool = conn
        .prepare_cached(
            "SELECT EXISTS(SELECT 1 FROM nodes WHERE id >= 'auto:' AND id < 'auto;' AND node_seq IS NOT NULL)",
        )?
        .query_row([], |r| r.get(0))?;
    if !any {
        return Ok((ranked, Vec::new()));
    }
    let mut stmt = conn.prepare_cached("SELECT id, content FROM nodes WHERE sym = ?1")?;
    let best = ranked.first().map_or(1.0, |r| r.1);
    let mut content = Vec::with_capacity(ranked.len());
    let mut autos = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for (sym, score) in ranked {
        let row: Option<(String, Option<String>)> = stmt
            .query_row([sym], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        match row {
            Some((id, text_of)) if is_auto(&id) => {
                seen.insert(sym);
                if steer && matches(text, text_of.as_deref().unwrap_or("")) {
                    autos.push((sym, score));
                }
            }
            _ => content.push((sym, score)),
        }
    }
    if steer {
        for h in aside {
            if seen.insert(h.sym)
                && is_auto(&h.id)
                && matches(text, h.content.as_deref().unwrap_or(""))
            {
                autos.push((h.sym, best));
            }
        }
    }
    // what the question's node inhibits goes after the rest, so that the next seeds
    // fire (and take the next feedback) in place of a wrong answer's
    if !autos.is_empty() {
        let mut inhibited = rustc_hash::FxHashSet::default();
        let mut stmt =
            conn.prepare_cached("SELECT tgt FROM edges WHERE src = ?1 AND weight < 0")?;
        for &(a, _) in &autos {
            for t in stmt.query_map([a], |r| r.get::<_, i64>(0))? {
                inhibited.insert(t?);
            }
        }
        if !inhibited.is_empty() {
            let (down, up): (Vec<_>, Vec<_>) =
                content.into_iter().partition(|x| inhibited.contains(&x.0));
            content = up;
            content.extend(down);
        }
    }
    Ok((content, autos))
}

/// How the auto seeds of a question reorder its answer (see the module docs).
#[derive(Debug, Clone, Default)]
pub(super) struct Steer {
    /// Nodes the auto seeds' credited edges point to, strongest first.
    pub promoted: Vec<NodeId>,
    /// Nodes the auto seeds inhibit.
    pub demoted: Vec<NodeId>,
}

impl Steer {
    /// The steering of the auto nodes among `seeds` in `graph`; `order` ranks equal
    /// weights (the seeding's order, then anything else by name).
    pub fn of(graph: &Graph, seeds: &[(NodeId, f64)], order: &[&str]) -> Steer {
        let mut promoted: Vec<(NodeId, f64)> = Vec::new();
        let mut demoted = Vec::new();
        for &(s, _) in seeds.iter().filter(|(s, _)| is_auto(graph.name(*s))) {
            for (t, e) in graph.outgoing(s) {
                if !graph.has_node(t) || is_auto(graph.name(t)) {
                    continue;
                }
                if e.weight < 0.0 {
                    demoted.push(t);
                } else if e.weight > SEED_EDGE_WEIGHT {
                    match promoted.iter_mut().find(|p| p.0 == t) {
                        Some(p) => p.1 = p.1.max(e.weight),
                        None => promoted.push((t, e.weight)),
                    }
                }
            }
        }
        promoted.retain(|p| !demoted.contains(&p.0));
        let pos = |n: NodeId| {
            let name = graph.name(n);
            (
                order.iter().position(|o| *o == name).unwrap_or(usize::MAX),
                name,
            )
        };
        promoted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| pos(a.0).cmp(&pos(b.0))));
        Steer {
            promoted: promoted.into_iter().map(|p| p.0).collect(),
            demoted,
        }
    }

    /// The auto seeds' credited targets, to read with the part of a graph.
    pub fn targets(graph: &Graph, seeds: &[(NodeId, f64)]) -> Vec<NodeId> {
        seeds
            .iter()
            .filter(|(s, _)| is_auto(graph.name(*s)))
            .flat_map(|&(s, _)| graph.outgoing(s).map(|(t, _)| t))
            .collect()
    }
}

/// Leaves the auto nodes out of what a traversal fired (they seed, and their edges
/// lead on, but a question is not part of its own answer's context); the steps keep
/// them, so an explanation shows a path that starts at one.
pub(super) fn strip_autos(result: &mut TraversalResult, graph: &Graph) {
    if result.fired.iter().any(|&n| is_auto(graph.name(n))) {
        result.fired.retain(|&n| !is_auto(graph.name(n)));
        result
            .fired_scores
            .retain(|&(n, _)| !is_auto(graph.name(n)));
    }
}

/// What a query hands to [`Brain::grow`].
#[derive(Debug, Clone)]
pub(super) struct Growth {
    pub text: String,
    pub vector: Option<Vec<f64>>,
    pub seeds: Vec<String>,
    pub chat_id: Option<String>,
    /// The documents of the answer's first places ([`judged_documents`]).
    pub judged: Vec<String>,
}

/// The largest journal position (the turn clock's now).
fn journal_seq(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM journal")?
        .query_row([], |r| r.get(0))
}

/// The best cosine between `q` and the vectors of `ids` (`None`: none has a vector).
fn top_cosine(
    conn: &Connection,
    layout: crate::store::Layout,
    q: &[f64],
    ids: &[String],
) -> rusqlite::Result<Option<f64>> {
    let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm == 0.0 {
        return Ok(None);
    }
    let unit: Vec<f32> = q.iter().map(|x| (x / norm) as f32).collect();
    let mut stmt =
        conn.prepare("SELECT v.v FROM vectors v JOIN nodes n ON n.sym = v.sym WHERE n.id = ?1")?;
    let mut best: Option<f64> = None;
    for id in ids {
        let blob: Option<Vec<u8>> = stmt.query_row([id], |r| r.get(0)).optional()?;
        if let Some(b) = blob {
            let s = f64::from(crate::store::codec::score_blob(&unit, &b, layout));
            best = Some(best.map_or(s, |x: f64| x.max(s)));
        }
    }
    Ok(best)
}

impl Brain {
    /// Whether neurogenesis runs for a request: the request's switch, else the brain's
    /// setting ([`NEUROGENESIS_KEY`], on by default); only ever for a database brain of
    /// the corrected profile (the paper profile and state files are the reference's).
    pub fn neurogenesis_enabled(&mut self, request: Option<bool>) -> Result<bool> {
        if !self.profile.fixes_bugs() {
            return Ok(false);
        }
        let Backend::Store(s) = &self.backend else {
            return Ok(false);
        };
        if let Some(on) = request {
            return Ok(on);
        }
        let v = crate::store::rows::meta_value(s.store.conn(), NEUROGENESIS_KEY)
            .map_err(sql_error(s.store.path()))?;
        Ok(v.as_ref().and_then(Value::as_str) != Some("off"))
    }

    /// Records the brain's neurogenesis setting (`crabpath init --neurogenesis`).
    pub fn set_neurogenesis(&mut self, on: bool) -> Result<()> {
        let ids: Vec<String> = Vec::new();
        self.write(Scope::NodesAndMeta(&ids), |w| {
            w.meta.insert(
                NEUROGENESIS_KEY.into(),
                Value::from(if on { "on" } else { "off" }),
            );
            Ok(())
        })
    }

    /// Births or refreshes the question node of a served query (see the module docs).
    /// Nothing happens for a brain opened for reading.
    pub(super) fn grow(&mut self, g: Growth) -> Result<()> {
        let Backend::Store(s) = &self.backend else {
            return Ok(());
        };
        if !s.store.writable() {
            return Ok(());
        }
        let path = s.store.path().to_path_buf();
        let err = sql_error(&path);
        let now = journal_seq(s.store.conn()).map_err(&err)?;
        let layout = s.store.layout();
        let id = auto_id(&g.text);
        let gate = NoveltyConfig::corrected();
        if self.has_node(&id)? {
            return self.touch(&id, now, g.judged);
        }
        if assess_novelty(&g.text, Some(1.0), &gate).blocked {
            return Ok(());
        }
        let vector = match g.vector {
            Some(v) => v,
            None => self.embedder()?.embed(&g.text)?,
        };
        let Backend::Store(s) = &self.backend else {
            return Ok(());
        };
        let top1 = top_cosine(s.store.conn(), layout, &vector, &g.seeds).map_err(&err)?;
        let verdict = assess_novelty(&g.text, top1, &gate);
        if !verdict.should_create {
            return Ok(());
        }
        let prior = match &g.chat_id {
            Some(c) => self
                .recent_turns(c, 1)?
                .pop()
                .map(|t| t.fired)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let mut scope = vec![id.clone()];
        scope.extend(g.seeds.iter().cloned());
        scope.extend(prior.iter().cloned());
        let extra = [
            ("reason", PyValue::Str("novel".into())),
            ("top1", PyValue::Float(verdict.top_score)),
        ];
        self.write(Scope::Nodes(&scope), |w| {
            birth(
                w,
                &id,
                &g.text,
                &vector,
                &g.seeds,
                &prior,
                now,
                &extra,
                Some(g.judged.clone()),
            )
        })
    }

    /// A question asked again: its node's `asked` and turn clock move on.
    fn touch(&mut self, id: &str, now: i64, judged: Vec<String>) -> Result<()> {
        let scope = vec![id.to_string()];
        self.write(Scope::Nodes(&scope), |w| {
            let Some(n) = w.graph.lookup(id) else {
                w.discard();
                return Ok(());
            };
            let Some(node) = w.graph.node_mut(n) else {
                w.discard();
                return Ok(());
            };
            let Some(mut st) = AutoState::of(node) else {
                w.discard();
                return Ok(());
            };
            st.asked += 1;
            st.last_seq = now;
            st.judged = Some(judged);
            st.store(node);
            w.journal(event(
                "refreshed",
                id,
                &[("asked", PyValue::Int(PyInt::from(st.asked as i64)))],
            ));
            Ok(())
        })
    }

    /// Credits a feedback's turn to its question node and to the auto nodes it fired
    /// (see the module docs); `used` are the nodes the agent used (`used_ids`).
    pub(super) fn credit_question(
        &mut self,
        turn: &Turn,
        outcome: f64,
        used: Option<&[String]>,
    ) -> Result<()> {
        if !self.neurogenesis_enabled(None)? || outcome == 0.0 || !outcome.is_finite() {
            return Ok(());
        }
        // without used_ids the outcome judges the answer's first documents only
        let (targets, judged) = match used {
            Some(u) if !u.is_empty() => (u.to_vec(), false),
            _ => (turn.fired.clone(), true),
        };
        let steps: Vec<(String, f64)> = targets
            .into_iter()
            .map(|t| (t, CREDIT_STEP * outcome))
            .collect();
        self.question_edges(turn, &steps, Some(outcome), judged)
            .map(|_| ())
    }

    /// Moves the edges of a turn's question node (born now if it has none and the
    /// question passes the gate's quality rules) to each `(target, step)` by `step`
    /// (from [`SEED_EDGE_WEIGHT`] for a new edge, clamped to [−1, 1]; below zero the
    /// edge is inhibitory), and with `probation` counts that outcome toward the
    /// probation of the node and of the auto nodes the turn fired. Auto targets and
    /// targets that are not nodes are left out; with `judged`, so are targets outside
    /// the documents the turn's answer showed first ([`super::judged`]: those the node
    /// stored, else the first of the turn's fired order). Returns how many edges it
    /// wrote (0: the question has no node).
    pub(super) fn question_edges(
        &mut self,
        turn: &Turn,
        steps: &[(String, f64)],
        probation: Option<f64>,
        judged: bool,
    ) -> Result<usize> {
        let Backend::Store(s) = &self.backend else {
            return Ok(0);
        };
        let path = s.store.path().to_path_buf();
        let err = sql_error(&path);
        let now = journal_seq(s.store.conn()).map_err(&err)?;
        let id = auto_id(&turn.query);
        let mut targets: Vec<(String, f64)> = Vec::with_capacity(steps.len());
        for (t, step) in steps {
            if !is_auto(t) && t != &id && !targets.iter().any(|x| &x.0 == t) && self.has_node(t)? {
                targets.push((t.clone(), *step));
            }
        }
        let exists = self.has_node(&id)?;
        let vector = if exists
            || assess_novelty(&turn.query, Some(1.0), &NoveltyConfig::corrected()).blocked
        {
            None
        } else {
            Some(self.embedder()?.embed(&turn.query)?)
        };
        if !exists && vector.is_none() {
            return Ok(0);
        }
        let fired_autos: Vec<String> = turn.fired.iter().filter(|f| is_auto(f)).cloned().collect();
        let mut scope = vec![id.clone()];
        scope.extend(targets.iter().map(|t| t.0.clone()));
        scope.extend(turn.fired.iter().cloned());
        self.write(Scope::Nodes(&scope), |w| {
            if let Some(v) = &vector {
                let extra = [("reason", PyValue::Str("feedback".into()))];
                birth(w, &id, &turn.query, v, &turn.fired, &[], now, &extra, None)?;
            }
            let Some(me) = w.graph.lookup(&id).filter(|&n| w.graph.has_node(n)) else {
                w.discard();
                return Ok(0);
            };
            let judged = judged.then(|| {
                w.graph
                    .node(me)
                    .and_then(AutoState::of)
                    .and_then(|a| a.judged)
                    .unwrap_or_else(|| {
                        judged_documents(w.graph, turn.fired.iter().map(String::as_str))
                    })
            });
            let mut written = 0;
            for (t, step) in &targets {
                let Some(tn) = w.graph.lookup(t).filter(|&n| w.graph.has_node(n)) else {
                    continue;
                };
                if judged.as_ref().is_some_and(|j| !is_judged(w.graph, j, t)) {
                    continue;
                }
                let base = w.graph.weight(me, tn).unwrap_or(SEED_EDGE_WEIGHT);
                let weight = (base + step).clamp(-1.0, 1.0);
                let kind = if weight < 0.0 {
                    EdgeKind::Inhibitory
                } else {
                    EdgeKind::Sibling
                };
                let mut m = Metadata::new();
                m.insert("source".into(), json!("neurogenesis"));
                w.graph
                    .add_edge(me, tn, Edge::new(weight).with_kind(kind).with_metadata(m))?;
                written += 1;
            }
            if let Some(outcome) = probation {
                let mut credited = vec![id.clone()];
                credited.extend(fired_autos.iter().cloned());
                credited.dedup();
                for a in &credited {
                    probation_credit(w, a, outcome, now);
                }
            }
            Ok(written)
        })
    }

    /// Counts of auto nodes: probationary, permanent, and dead (from the journal).
    pub fn neurogenesis_counts(&mut self) -> Result<NeurogenesisCounts> {
        let Backend::Store(s) = &self.backend else {
            return Ok(NeurogenesisCounts::default());
        };
        let conn = s.store.conn();
        let err = sql_error(s.store.path());
        let mut c = NeurogenesisCounts::default();
        let mut stmt = conn
            .prepare("SELECT metadata FROM nodes WHERE id >= 'auto:' AND id < 'auto;' AND node_seq IS NOT NULL")
            .map_err(&err)?;
        let rows = stmt
            .query_map([], |r| r.get::<_, Option<String>>(0))
            .map_err(&err)?;
        for r in rows {
            let m = r.map_err(&err)?.unwrap_or_default();
            if m.contains("\"permanent\"") {
                c.permanent += 1;
            } else {
                c.probation += 1;
            }
        }
        let dead: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM journal WHERE json_extract(entry, '$.type') = 'neurogenesis' AND json_extract(entry, '$.event') = 'died'",
                [],
                |r| r.get(0),
            )
            .map_err(&err)?;
        c.dead = dead as usize;
        Ok(c)
    }

    /// Death and merge of auto nodes (seed 001 §2.8, see the module docs), run by
    /// `maintain`; `dry_run` journals and reports without keeping the change.
    pub fn neurogenesis_maintain(&mut self, dry_run: bool) -> Result<NeurogenesisMaintain> {
        if !self.neurogenesis_enabled(None)? {
            return Ok(NeurogenesisMaintain::default());
        }
        let Backend::Store(s) = &self.backend else {
            return Ok(NeurogenesisMaintain::default());
        };
        let conn = s.store.conn();
        let path = s.store.path().to_path_buf();
        let err = sql_error(&path);
        let ids: Vec<String> = {
            let mut stmt = conn
                .prepare("SELECT id FROM nodes WHERE id >= 'auto:' AND id < 'auto;' AND node_seq IS NOT NULL ORDER BY id")
                .map_err(&err)?;
            let rows = stmt.query_map([], |r| r.get(0)).map_err(&err)?;
            rows.collect::<rusqlite::Result<_>>().map_err(&err)?
        };
        if ids.is_empty() {
            return Ok(NeurogenesisMaintain::default());
        }
        let queries: Vec<i64> = {
            let mut stmt = conn
                .prepare("SELECT seq FROM journal WHERE json_extract(entry, '$.type') = 'query' ORDER BY seq")
                .map_err(&err)?;
            let rows = stmt.query_map([], |r| r.get(0)).map_err(&err)?;
            rows.collect::<rusqlite::Result<_>>().map_err(&err)?
        };
        let op = |w: &mut Working<'_>| -> Result<NeurogenesisMaintain> {
            let out = dying_and_merging(w, &ids, &queries);
            if out.died.is_empty() && out.merged.is_empty() {
                w.discard();
            }
            Ok(out)
        };
        if dry_run {
            self.write_dry(Scope::Nodes(&ids), op)
        } else {
            self.write(Scope::Nodes(&ids), op)
        }
    }
}

/// Adds the question node `id` on probation with its provisional edges (module docs).
#[allow(clippy::too_many_arguments)]
fn birth(
    w: &mut Working<'_>,
    id: &str,
    text: &str,
    vector: &[f64],
    seeds: &[String],
    prior: &[String],
    now: i64,
    extra: &[(&str, PyValue)],
    judged: Option<Vec<String>>,
) -> Result<()> {
    if w.graph.get_node(id).is_some() {
        return Ok(());
    }
    w.vectors.upsert(id, vector)?;
    let mut node = Node::new(id, text);
    node.summary = text.to_string();
    node.metadata.insert("source".into(), json!("auto"));
    node.metadata.insert("type".into(), json!("AUTO"));
    AutoState {
        permanent: false,
        credits: 0,
        asked: 1,
        born_seq: now,
        last_seq: now,
        judged,
    }
    .store(&mut node);
    let me = w.graph.add_node(node);
    let mut link = |target: &str, weight: f64| -> Result<()> {
        let Some(t) = w.graph.lookup(target).filter(|&t| w.graph.has_node(t)) else {
            return Ok(());
        };
        if t == me || is_auto(target) || w.graph.edge(me, t).is_some() {
            return Ok(());
        }
        let mut m = Metadata::new();
        m.insert("source".into(), json!("neurogenesis"));
        m.insert("provisional".into(), json!(true));
        w.graph
            .add_edge(me, t, Edge::new(weight).with_metadata(m))?;
        Ok(())
    };
    for s in seeds {
        link(s, SEED_EDGE_WEIGHT)?;
    }
    for p in prior {
        link(p, PRIOR_EDGE_WEIGHT)?;
    }
    w.journal(event("born", id, extra));
    Ok(())
}

/// Counts one credit toward the probation of auto node `id` (module docs).
fn probation_credit(w: &mut Working<'_>, id: &str, outcome: f64, now: i64) {
    let Some(n) = w.graph.lookup(id) else {
        return;
    };
    let Some(node) = w.graph.node_mut(n) else {
        return;
    };
    let Some(mut st) = AutoState::of(node) else {
        return;
    };
    st.last_seq = now;
    let mut happened = None;
    if outcome > 0.0 {
        st.credits += 1;
        if !st.permanent && st.credits >= u64::from(PROMOTION_CREDITS) {
            st.permanent = true;
            happened = Some("promoted");
        }
    } else {
        happened = Some("demoted");
        st.permanent = false;
        st.credits = 0;
    }
    st.store(node);
    if let Some(e) = happened {
        w.journal(event(e, id, &[]));
    }
}

/// The deaths and merges of a maintenance (module docs); `queries`: the journal
/// positions of query entries, ascending.
fn dying_and_merging(w: &mut Working<'_>, ids: &[String], queries: &[i64]) -> NeurogenesisMaintain {
    let mut out = NeurogenesisMaintain::default();
    let turns_since = |seq: i64| (queries.len() - queries.partition_point(|&q| q <= seq)) as u64;
    // merge: the same words (the gate's normalisation differs only in order or case)
    let mut groups: Vec<Group> = Vec::new();
    for id in ids {
        let Some(node) = w.graph.get_node(id) else {
            continue;
        };
        let Some(st) = AutoState::of(node) else {
            continue;
        };
        let mut key = query_terms(&node.content);
        key.sort();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push((id.clone(), st)),
            None => groups.push((key, vec![(id.clone(), st)])),
        }
    }
    for (_, mut members) in groups {
        if members.len() > 1 {
            members.sort_by(|a, b| {
                b.1.credits
                    .cmp(&a.1.credits)
                    .then(a.1.born_seq.cmp(&b.1.born_seq))
            });
            let (keeper, _) = members[0].clone();
            for (gone, _) in &members[1..] {
                merge_into(w, gone, &keeper);
                out.merged.push((gone.clone(), keeper.clone()));
            }
        }
    }
    for id in ids {
        if out.merged.iter().any(|m| &m.0 == id) {
            continue;
        }
        let Some(n) = w.graph.lookup(id) else {
            continue;
        };
        let Some(st) = w.graph.node(n).and_then(AutoState::of) else {
            continue;
        };
        let idle = turns_since(st.last_seq);
        if !st.permanent && idle >= ORPHAN_TURNS {
            w.graph.remove_node(n);
            w.vectors.remove(id);
            w.journal(event(
                "died",
                id,
                &[("idle_turns", PyValue::Int(PyInt::from(idle as i64)))],
            ));
            out.died.push(id.clone());
        }
    }
    out
}

/// Moves `gone`'s edges into `keeper` (the stronger of two), its credits and asks
/// added, and removes `gone`.
fn merge_into(w: &mut Working<'_>, gone: &str, keeper: &str) {
    let (Some(g), Some(k)) = (w.graph.lookup(gone), w.graph.lookup(keeper)) else {
        return;
    };
    let edges: Vec<(NodeId, Edge)> = w.graph.outgoing(g).map(|(t, e)| (t, e.clone())).collect();
    for (t, e) in edges {
        if t == k {
            continue;
        }
        let keep = w.graph.edge(k, t).map(|x| x.weight);
        if keep.is_none_or(|x| e.weight.abs() > x.abs()) {
            let _ = w.graph.add_edge(k, t, e);
        }
    }
    let merged = w.graph.node(g).and_then(AutoState::of);
    if let (Some(m), Some(node)) = (merged, w.graph.node_mut(k)) {
        if let Some(mut st) = AutoState::of(node) {
            st.credits += m.credits;
            st.asked += m.asked;
            st.last_seq = st.last_seq.max(m.last_seq);
            if !st.permanent && st.credits >= u64::from(PROMOTION_CREDITS) {
                st.permanent = true;
            }
            st.store(node);
        }
    }
    w.graph.remove_node(g);
    w.vectors.remove(gone);
    w.journal(event(
        "merged",
        gone,
        &[("into", PyValue::Str(keeper.into()))],
    ));
}
