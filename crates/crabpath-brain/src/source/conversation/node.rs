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
    match (&t.speaker, &t.time) {
        (Some(s), Some(tm)) => format!("{s} ({tm}): {}", t.text),
        (Some(s), None) => format!("{s}: {}", t.text),
        (None, Some(tm)) => format!("({tm}): {}", t.text),
        (None, None) => t.text.clone(),
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
    // the prefix is what turn_content puts before an empty text
    let prefix = turn_content(&t);
    t.text = content.strip_prefix(&prefix).unwrap_or(content).to_string();
    Some(t)
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
    // per session: turns so far, and the node of the last one
    let mut last: HashMap<Option<&str>, (usize, crabpath::graph::NodeId)> = HashMap::new();
    let mut graph = Graph::new();
    let mut nodes = Vec::with_capacity(turns.len());
    for (position, t) in turns.iter().enumerate() {
        let session = t.session.as_deref();
        let seen = last.get(&session).map_or(0, |x| x.0);
        let id = match &t.id {
            Some(id) => id.clone(),
            None => {
                let id = generated_id(session, seen + 1, |c| {
                    given.contains(c) || generated.contains(c)
                });
                generated.insert(id.clone());
                id
            }
        };
        let n = graph.add_node(turn_node(t, id, position));
        nodes.push(n);
        if let Some(&(count, prev)) = last.get(&session) {
            let w = chain_weight(session, count - 1);
            graph.add_edge(prev, n, Edge::new(w))?;
            graph.add_edge(n, prev, Edge::new(w))?;
        }
        last.insert(session, (seen + 1, n));
    }
    for (i, j) in super::entities::entity_links(turns) {
        super::entities::link(&mut graph, nodes[i], nodes[j])?;
    }
    Ok(Chained {
        graph,
        sessions: last.len(),
    })
}
