//! `remember`: an agent adds a turn of a conversation (issue 28, item 1), as the
//! daemon method and the MCP tool of that name do. The turn is checked as a line of a
//! conversation file is ([`crate::source::conversation::Turn::from_object`]), becomes the node
//! a conversation `init` would make of it ([`crate::source::conversation::turn_node`]),
//! embedded with the brain's embedder, and is chained to the last turn of its session
//! with the chain weight of `init` ([`crate::source::conversation::chain_weight`]). Its
//! entity edges (issue 28 item 5) are kept as `init` makes them: the links of the
//! brain's turns with the new one against those without it
//! ([`crate::source::conversation::entities::link_change`]), new links added and gone
//! ones removed ([`crate::source::conversation::entities::link`] / `unlink`), so a
//! conversation remembered turn by turn has the edges `init --conversation` gives it.
//! Where the turn joins and what edges it changes is computed by
//! [`crate::source::conversation::join`] and applied by
//! [`crate::source::conversation::apply_join`], the rule `forget`'s replay repeats
//! ([`crate::service::unlearn`]). One write transaction through [`Brain::write`].
//!
//! The brain's conversation turns (nodes with `metadata.kind` = `conversation`, in
//! `metadata.turn` order, read back by
//! [`crate::source::conversation::turn_of_node`]) are read before the write: from the
//! graph of a brain held in memory (the daemon's and MCP's, kept in step with the
//! database), else from the database (`json_extract`, a scan of the nodes). The last
//! turn of a session is its last there. The entity links are then computed on the
//! brain's [`crate::source::conversation::entities::WordIndex`], kept between
//! requests, so that each turn's text is split into words once, not at every
//! `remember`.
//!
//! Cost: linear in the brain's nodes and the conversation's turns and words (the
//! rankings of every turn are recomputed: see
//! [`crate::source::conversation::entities::WordIndex::change`]). Measured
//! (`crates/crabpath-mcp/bench/remember_scaling.py`, BENCHMARKS.md): a `remember`
//! through the daemon on a conversation of 5,000 LoCoMo turns took 0.28 × the time of
//! the previous design, which read every turn's metadata from the database and split
//! every text at each call. Two processes remembering into the same session at the same instant may
//! both chain to the same previous turn; a duplicate id is refused inside the write
//! either way.
//!
//! Any database brain of the corrected profile remembers (a folder brain can keep a
//! conversation too); a state file is refused.

use pyformat::pyjson::{PyDict, PyInt, PyValue};

use super::engine::{Backend, Brain, Scope};
use crate::error::{Error, Result};
use crate::source::conversation::{
    apply_join, generated_id, join, turn_node, turn_of_node, turn_text, JoinEdges, Turn,
    CONVERSATION,
};
use crate::store::sql_error;

/// What `remember` did.
#[derive(Debug, Clone, PartialEq)]
pub struct RememberReport {
    /// The node of the turn (its id, or the generated one).
    pub node_id: String,
    /// Its position among the brain's conversation turns (0-based; `metadata.turn`).
    pub turn: usize,
    /// The edges added, `(from, to, weight)`: first the chain edges to and from the
    /// previous turn with the same `session` value (none for the first such turn), then
    /// the entity edges of the links the turn made (each pair's two ways, in pair
    /// order).
    pub edges: Vec<(String, String, f64)>,
    /// The entity edges removed, `(from, to)`: links between earlier turns that the new
    /// turn undid (see the module docs).
    pub removed: Vec<(String, String)>,
}

/// A conversation turn read from its node, with what orders the turns: its
/// `metadata.turn` (absent unless a JSON number) and its `node_seq`.
type Placed = (Option<f64>, i64, Turn);

/// The turns of `placed` in `metadata.turn` order, turns without one first, ties in
/// node order: the order `remember` joins a new turn to; and the position a new turn
/// takes, one past the last turn's. That is the number of turns while they are
/// numbered 0, 1, 2, … (as `init` and `remember` number them), and more once a turn
/// left without the others moving up (two turns merged by maintenance): the number of
/// turns would then give the new turn the position of a later one, sort it before
/// that turn, and chain the next turn of its session to the wrong one.
fn in_turn_order(mut placed: Vec<Placed>) -> (Vec<Turn>, usize) {
    placed.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.total_cmp(&y).then(a.1.cmp(&b.1)),
        (x, y) => x.is_some().cmp(&y.is_some()).then(a.1.cmp(&b.1)),
    });
    let after_last = placed
        .iter()
        .filter_map(|p| p.0)
        .filter(|x| x.is_finite() && *x >= 0.0)
        .map(|x| (x as usize).saturating_add(1))
        .max()
        .unwrap_or(0);
    let next = after_last.max(placed.len());
    (placed.into_iter().map(|p| p.2).collect(), next)
}

/// The conversation turns of a brain held in memory (see [`stored_turns`]): each node
/// of `loaded` with `metadata.kind` [`CONVERSATION`], read back by [`turn_of_node`].
///
/// Cost: a pass over the nodes, a sort of the turns.
fn resident_turns(loaded: &crate::store::rows::Loaded) -> (Vec<Turn>, usize) {
    let g = &loaded.graph;
    let placed = g
        .nodes()
        .filter_map(|(n, node)| {
            let seq = loaded.node_seq.get(n.index()).copied().flatten()?;
            let t = turn_of_node(&node.id, &node.content, &node.metadata)?;
            let turn = node.metadata.get("turn").and_then(|v| v.as_f64());
            Some((turn, seq, t))
        })
        .collect();
    in_turn_order(placed)
}

/// The brain's conversation turns, in `metadata.turn` order (turns without one first,
/// ties: node order): each node with `metadata.kind` [`CONVERSATION`] read back as
/// [`turn_of_node`] reads it (and the position of a new turn, [`in_turn_order`]), its
/// `session`, `time` and `speaker` taken from the metadata by SQLite (a field that is
/// not a JSON string is absent, as there) rather than the whole metadata parsed again
/// for each turn.
///
/// Cost: a scan of the nodes (SQLite parses each one's metadata once), a sort of the
/// turns.
fn stored_turns(conn: &rusqlite::Connection, path: &std::path::Path) -> Result<(Vec<Turn>, usize)> {
    let sql = sql_error(path);
    let string = |f: &str| {
        format!("CASE json_type(metadata, '$.{f}') WHEN 'text' THEN json_extract(metadata, '$.{f}') END")
    };
    let mut st = conn
        .prepare_cached(&format!(
            "SELECT id, content, {}, {}, {}, CASE WHEN json_type(metadata, '$.turn') IN ('integer', 'real') THEN json_extract(metadata, '$.turn') END, node_seq FROM nodes WHERE node_seq IS NOT NULL AND json_extract(metadata, '$.kind') = ?1",
            string("session"),
            string("time"),
            string("speaker"),
        ))
        .map_err(&sql)?;
    let rows = st
        .query_map([CONVERSATION], |r| {
            let mut t = Turn {
                id: Some(r.get::<_, String>(0)?),
                session: r.get(2)?,
                time: r.get(3)?,
                speaker: r.get(4)?,
                text: String::new(),
            };
            let content = r.get::<_, Option<String>>(1)?.unwrap_or_default();
            t.text = turn_text(&t, content);
            Ok((r.get::<_, Option<f64>>(5)?, r.get::<_, i64>(6)?, t))
        })
        .map_err(&sql)?;
    let placed = rows
        .collect::<rusqlite::Result<Vec<Placed>>>()
        .map_err(&sql)?;
    Ok(in_turn_order(placed))
}

fn duplicate(id: &str) -> Error {
    Error::Invalid(format!(
        "remember: a node `{id}` exists already: a turn's id must be new (leave `id` out to have one generated)"
    ))
}

impl Brain {
    /// Adds `turn` to the brain, chained to the last turn of its session (see the
    /// module docs). Errors: the paper profile or a state file; a node with the
    /// turn's id; no embedder, or one of another dimension than the brain's.
    pub fn remember_turn(&mut self, turn: &Turn) -> Result<RememberReport> {
        if !self.profile.fixes_bugs() {
            return Err(Error::Invalid(
                "remember needs the corrected profile (the paper profile has no conversations)"
                    .into(),
            ));
        }
        self.catch_up()?;
        let session = turn.session.as_deref();
        let (mut turns, next) = match &self.backend {
            Backend::Store(s) => match &s.resident {
                Some(r) => resident_turns(&r.loaded),
                None => stored_turns(s.store.conn(), s.store.path())?,
            },
            Backend::Json(_) => {
                return Err(Error::Invalid(format!(
                    "remember: {} is a state file: remember works on a brain database (crabpath import makes one)",
                    self.path().display()
                )))
            }
        };
        let of_session = turns
            .iter()
            .filter(|t| t.session.as_deref() == session)
            .count();
        let id = match &turn.id {
            Some(id) => {
                if self.has_node(id)? {
                    return Err(duplicate(id));
                }
                id.clone()
            }
            None => {
                let mut failed = None;
                let id = generated_id(session, of_session + 1, |c| match self.has_node(c) {
                    Ok(b) => b,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                id
            }
        };
        self.serving.words.trim(turns.len() + 1);
        let mut joined = join(
            &mut turns,
            Turn {
                id: Some(id.clone()),
                ..turn.clone()
            },
            &mut self.serving.words,
        );
        joined.position = next;
        let node = turn_node(turn, id.clone(), joined.position);
        let vector = self
            .embedder()?
            .embed(&crate::source::embedtext::embedded_text(&node))?;
        let mut scope = vec![id.clone()];
        scope.extend(joined.last.clone());
        for (a, b) in joined.linked.iter().chain(&joined.unlinked) {
            scope.extend([a.clone(), b.clone()]);
        }
        scope.sort_unstable();
        scope.dedup();
        self.write(Scope::Nodes(&scope), |w| {
            if w.graph.get_node(&id).is_some() {
                return Err(duplicate(&id));
            }
            let n = w.graph.add_node(node);
            w.vectors.upsert(&id, &vector)?;
            let JoinEdges {
                added: edges,
                removed,
            } = apply_join(w.graph, n, &id, &joined)?;
            let mut e = PyDict::new();
            e.insert("type".into(), PyValue::Str("remember".into()));
            e.insert("node_id".into(), PyValue::Str(id.clone()));
            e.insert(
                "session".into(),
                session.map_or(PyValue::Null, |s| PyValue::Str(s.into())),
            );
            e.insert(
                "edges".into(),
                PyValue::Int(PyInt::from(edges.len() as i64)),
            );
            w.journal(e);
            Ok(RememberReport {
                node_id: id.clone(),
                turn: joined.position,
                edges,
                removed,
            })
        })
    }
}
