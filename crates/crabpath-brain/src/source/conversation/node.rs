//! The node of a turn and the chain edges of a session.
//!
//! **Content.** What an agent reads in its context: `speaker (time): text`
//! ([`turn_content`]; `speaker: text` without a time, `(time): text` without a speaker,
//! the text alone without either). The time is in the content so that a question about
//! *when* can be answered from the context; the speaker, so that "what did Caroline
//! say" can. The raw fields are kept as node metadata: `kind` ([`CONVERSATION`]),
//! `turn` (0-based position among the brain's conversation turns), and `speaker`,
//! `session`, `time` when given. There is no `file` metadata: a folder `sync` never
//! touches a turn.
//!
//! **Ids.** A turn's id is its node id. A turn without one gets
//! [`generated_id`]: `turn:<session>:<k>` (`turn:<k>` without a session), `k` its
//! 1-based position in its session — stable for the same file, and the same rule for
//! a turn added later with `remember`. If that id is taken (a given id, or a node of
//! the brain), `~2`, `~3`, … is appended until it is free, so a generated id never
//! collides with a given one.
//!
//! **Edges.** A session is what the folder bootstrap calls a file: an ordered run of
//! chunks. Consecutive turns of one session get edges both ways with the core's
//! sibling weight [`crate::source::bootstrap::sibling_weight`]`("session:<session>", k)`
//! (`"session"` for turns without a session), `k` the 0-based index of the pair in the
//! session ([`chain_weight`]). Turns of different sessions are linked only by their
//! entity edges ([`super::entities`]: the same rare words, weight
//! [`super::entities::ENTITY_WEIGHT`], added after the chains). Sessions
//! may interleave in the file: a turn is chained to the previous turn of its session.

use std::collections::{HashMap, HashSet};

use crabpath::graph::{Edge, Graph, Metadata, Node};
use pyformat::pystr;
use serde_json::Value;

use super::turn::Turn;
use crate::error::Result;
use crate::source::bootstrap::sibling_weight;

/// The `meta` key naming what a brain was built from (absent: a folder).
pub const SOURCE_KEY: &str = "source";

/// [`SOURCE_KEY`]'s value for a brain built from a conversation, and the `kind`
/// metadata of a turn's node.
pub const CONVERSATION: &str = "conversation";

/// What an agent reads of a turn (see the module docs).
pub fn turn_content(t: &Turn) -> String {
    format!("{}{}", content_prefix(t), t.text)
}

/// What [`turn_content`] puts before a turn's text: `speaker (time): `, `speaker: `,
/// `(time): ` or nothing.
fn content_prefix(t: &Turn) -> String {
    match (&t.speaker, &t.time) {
        (Some(s), Some(tm)) => format!("{s} ({tm}): "),
        (Some(s), None) => format!("{s}: "),
        (None, Some(tm)) => format!("({tm}): "),
        (None, None) => String::new(),
    }
}

/// The weight of the chain edges between the `k`-th and `k+1`-th turns (0-based) of
/// `session` (see the module docs).
pub fn chain_weight(session: Option<&str>, k: usize) -> f64 {
    let file = match session {
        Some(s) => format!("session:{s}"),
        None => "session".to_string(),
    };
    sibling_weight(&file, k)
}

/// The id of a turn given none: the `k`-th (1-based) turn of `session`, with `~2`,
/// `~3`, … appended while `taken` says the id is used (see the module docs).
pub fn generated_id(
    session: Option<&str>,
    k: usize,
    mut taken: impl FnMut(&str) -> bool,
) -> String {
    let base = match session {
        Some(s) => format!("turn:{s}:{k}"),
        None => format!("turn:{k}"),
    };
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|i| format!("{base}~{i}"))
        .find(|c| !taken(c))
        .unwrap_or(base)
}

/// The node of turn `t` with id `id`, the `position`-th (0-based) conversation turn of
/// its brain (see the module docs).
pub fn turn_node(t: &Turn, id: String, position: usize) -> Node {
    let content = turn_content(t);
    let mut metadata = Metadata::new();
    metadata.insert("kind".into(), Value::from(CONVERSATION));
    metadata.insert("turn".into(), Value::from(position));
    for (key, v) in [
        ("speaker", &t.speaker),
        ("session", &t.session),
        ("time", &t.time),
    ] {
        if let Some(v) = v {
            metadata.insert(key.into(), Value::from(v.as_str()));
        }
    }
    Node {
        id,
        summary: pystr::first_line(&content).to_string(),
        content,
        metadata,
    }
}

/// The turn node `id` with `content` and `metadata` was made from ([`turn_node`] read
/// back): `None` unless `metadata.kind` is [`CONVERSATION`]. The text is the content
/// without the `speaker (time): ` prefix [`turn_content`] gave it (the whole content
/// if it no longer starts with it).
pub fn turn_of_node(id: &str, content: &str, metadata: &Metadata) -> Option<Turn> {
    if metadata.get("kind").and_then(Value::as_str) != Some(CONVERSATION) {
        return None;
    }
    let field = |key: &str| metadata.get(key).and_then(Value::as_str).map(String::from);
    let mut t = Turn {
        id: Some(id.to_string()),
        session: field("session"),
        time: field("time"),
        speaker: field("speaker"),
        text: String::new(),
    };
    t.text = turn_text(&t, content.to_string());
    Some(t)
}

/// The text of turn `t` (its speaker and time set) given its node's `content`: the
/// content without the `speaker (time): ` prefix [`turn_content`] gave it (the whole
/// content if it no longer starts with it). The one reading of a turn's text from its
/// node, [`turn_of_node`]'s and `remember`'s.
pub fn turn_text(t: &Turn, mut content: String) -> String {
    let prefix = content_prefix(t);
    if content.starts_with(&prefix) {
        content.drain(..prefix.len());
    }
    content
}

/// The graph of a conversation.
#[derive(Debug, Clone, Default)]
pub struct Chained {
    /// A node per turn, in order; the chain edges of each session.
    pub graph: Graph,
    /// The number of sessions (turns without a session count as one).
    pub sessions: usize,
}

/// Builds the graph of `turns` (checked by [`super::parse_jsonl`]: no id given twice;
/// see the module docs for ids, contents and edges).
///
/// Cost: linear in the turns (one SHA-256 per chain edge pair).
pub fn build_graph(turns: &[Turn]) -> Result<Chained> {
    let given: HashSet<&str> = turns.iter().filter_map(|t| t.id.as_deref()).collect();
    let mut generated: HashSet<String> = HashSet::new();
    // per session: turns so far
    let mut seen: HashMap<Option<&str>, usize> = HashMap::new();
    let mut graph = Graph::new();
    let mut nodes = Vec::with_capacity(turns.len());
    for (position, t) in turns.iter().enumerate() {
        let session = t.session.as_deref();
        let k = seen.entry(session).or_insert(0);
        *k += 1;
        let id = match &t.id {
            Some(id) => id.clone(),
            None => {
                let id = generated_id(session, *k, |c| given.contains(c) || generated.contains(c));
                generated.insert(id.clone());
                id
            }
        };
        nodes.push(graph.add_node(turn_node(t, id, position)));
    }
    link_turns(&mut graph, turns, &nodes)?;
    Ok(Chained {
        graph,
        sessions: seen.len(),
    })
}

/// The edges of a conversation among its nodes: `nodes[i]` is the node of `turns[i]`,
/// in order. Each turn is chained both ways to the previous turn of its session
/// ([`chain_weight`]), turn by turn; then the entity links of all of them
/// ([`super::entities::entity_links`], [`super::entities::link`]). The one rule of
/// `init --conversation` ([`build_graph`]) and of the unlearning replay's rebuild of a
/// conversation (`crate::service::unlearn`).
///
/// Cost: linear in the turns, plus the entity links.
pub fn link_turns(
    graph: &mut Graph,
    turns: &[Turn],
    nodes: &[crabpath::graph::NodeId],
) -> Result<()> {
    let mut last: HashMap<Option<&str>, (usize, crabpath::graph::NodeId)> = HashMap::new();
    for (t, &n) in turns.iter().zip(nodes) {
        let session = t.session.as_deref();
        let count = match last.get(&session) {
            Some(&(count, prev)) => {
                let w = chain_weight(session, count - 1);
                graph.add_edge(prev, n, Edge::new(w))?;
                graph.add_edge(n, prev, Edge::new(w))?;
                count
            }
            None => 0,
        };
        last.insert(session, (count + 1, n));
    }
    for (i, j) in super::entities::entity_links(turns) {
        super::entities::link(graph, nodes[i], nodes[j])?;
    }
    Ok(())
}

/// Where a turn joins a conversation (what `remember` adds, computed before the
/// write, [`join`]): its position, the previous turn of its session and the chain
/// weight to it, and the entity links that change.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// Its 0-based position among the conversation's turns (`metadata.turn`).
    pub position: usize,
    /// The id of the last turn of its session before it, if any.
    pub last: Option<String>,
    /// The weight of the chain edges to that turn.
    pub weight: f64,
    /// The entity links the turn makes, as pairs of ids.
    pub linked: Vec<(String, String)>,
    /// The entity links between earlier turns it undoes, as pairs of ids.
    pub unlinked: Vec<(String, String)>,
}

/// How `turn` (with its id set) joins `turns` (the conversation so far, in order),
/// which it is pushed onto: the previous turn of its session and the chain weight
/// ([`chain_weight`] of the pair's index), and the entity links with it against those
/// without it ([`super::entities::WordIndex::change`], on `words`, which keeps the texts
/// it split for the next turn). The rule of `remember` and of the unlearning replay of
/// a `remember`.
///
/// Cost: that of [`super::entities::WordIndex::change`] (linear in the conversation's
/// turns and words; texts `words` split before are not split again).
pub fn join(turns: &mut Vec<Turn>, turn: Turn, words: &mut super::entities::WordIndex) -> Join {
    let session = turn.session.clone();
    let of_session = turns.iter().filter(|t| t.session == session).count();
    let last = turns
        .iter()
        .rev()
        .find(|t| t.session == session)
        .and_then(|t| t.id.clone());
    let position = turns.len();
    turns.push(turn);
    let change = words.change(turns);
    let pair_ids = |pairs: &[(usize, usize)]| -> Vec<(String, String)> {
        let id_of = |i: usize| turns[i].id.clone().unwrap_or_default();
        pairs.iter().map(|&(i, j)| (id_of(i), id_of(j))).collect()
    };
    Join {
        position,
        last,
        weight: chain_weight(session.as_deref(), of_session.saturating_sub(1)),
        linked: pair_ids(&change.added),
        unlinked: pair_ids(&change.removed),
    }
}

/// The edges of [`Join`] `j` for node `n` (id `id`) in `graph`: the chain edges both
/// ways to the previous turn of the same `session` value (when that is a node), the
/// entity links it
/// undoes ([`super::entities::unlink`]), then those it makes
/// ([`super::entities::link`]); a pair whose ends are not both nodes is skipped.
/// Returns the edges added and removed.
pub fn apply_join(
    graph: &mut Graph,
    n: crabpath::graph::NodeId,
    id: &str,
    j: &Join,
) -> Result<JoinEdges> {
    let mut edges = Vec::new();
    if let Some(prev) = j.last.as_deref() {
        if let Some(p) = graph.lookup(prev).filter(|&p| graph.has_node(p)) {
            graph.add_edge(p, n, Edge::new(j.weight))?;
            graph.add_edge(n, p, Edge::new(j.weight))?;
            edges.push((prev.to_string(), id.to_string(), j.weight));
            edges.push((id.to_string(), prev.to_string(), j.weight));
        }
    }
    // the pair (a, b) of ids as graph nodes, when both are there
    let ends = |g: &Graph, a: &str, b: &str| {
        let (x, y) = (g.lookup(a)?, g.lookup(b)?);
        (g.has_node(x) && g.has_node(y)).then_some((x, y))
    };
    let mut removed = Vec::new();
    for (a, b) in &j.unlinked {
        if let Some((x, y)) = ends(graph, a, b) {
            for (from, _) in super::entities::unlink(graph, x, y) {
                let (f, t) = if from == x { (a, b) } else { (b, a) };
                removed.push((f.clone(), t.clone()));
            }
        }
    }
    for (a, b) in &j.linked {
        if let Some((x, y)) = ends(graph, a, b) {
            for (from, _) in super::entities::link(graph, x, y)? {
                let (f, t) = if from == x { (a, b) } else { (b, a) };
                edges.push((f.clone(), t.clone(), super::entities::ENTITY_WEIGHT));
            }
        }
    }
    Ok(JoinEdges {
        added: edges,
        removed,
    })
}

/// The edges [`apply_join`] changed, by id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JoinEdges {
    /// The edges added, `(from, to, weight)`: the chain edges, then the entity edges.
    pub added: Vec<(String, String, f64)>,
    /// The entity edges removed, `(from, to)`.
    pub removed: Vec<(String, String)>,
}
