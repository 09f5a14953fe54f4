//! `remember`: an agent adds a turn of a conversation (issue 28, item 1), as the
//! daemon method and the MCP tool of that name do. The turn is checked as a line of a
//! conversation file is ([`crate::source::conversation::Turn::from_object`]), becomes the node
//! a conversation `init` would make of it ([`crate::source::conversation::turn_node`]),
//! embedded with the brain's embedder, and is chained to the last turn of its session
//! with the chain weight of `init` ([`crate::source::conversation::chain_weight`]): one write
//! transaction through [`Brain::write`].
//!
//! The last turn of a session is the conversation node (`metadata.kind` =
//! `conversation`) of that `metadata.session` with the highest `metadata.turn`, found
//! in the database (`json_extract`, a scan of the nodes: linear in the brain) before
//! the write. Two processes remembering into the same session at the same instant may
//! both chain to the same previous turn; a duplicate id is refused inside the write
//! either way.
//!
//! Any database brain of the corrected profile remembers (a folder brain can keep a
//! conversation too); a state file is refused.

use crabpath::graph::Edge;
use pyformat::pyjson::{PyDict, PyInt, PyValue};
use rusqlite::OptionalExtension;

use super::engine::{Backend, Brain, Scope};
use crate::error::{Error, Result};
use crate::source::conversation::{chain_weight, generated_id, turn_node, Turn, CONVERSATION};
use crate::store::sql_error;

/// What `remember` did.
#[derive(Debug, Clone, PartialEq)]
pub struct RememberReport {
    /// The node of the turn (its id, or the generated one).
    pub node_id: String,
    /// Its position among the brain's conversation turns (0-based; `metadata.turn`).
    pub turn: usize,
    /// The chain edges added, `(from, to, weight)`: to and from the previous turn of the
    /// session, or none for a session's first turn.
    pub edges: Vec<(String, String, f64)>,
}

/// The brain's conversation turns: how many, how many of `session`, and the id of the
/// last of `session`.
fn conversation_tail(
    conn: &rusqlite::Connection,
    session: Option<&str>,
) -> rusqlite::Result<(usize, usize, Option<String>)> {
    let all: i64 = conn.query_row(
        "SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL AND json_extract(metadata, '$.kind') = ?1",
        [CONVERSATION],
        |r| r.get(0),
    )?;
    let of_session: i64 = conn.query_row(
        "SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL AND json_extract(metadata, '$.kind') = ?1 AND json_extract(metadata, '$.session') IS ?2",
        rusqlite::params![CONVERSATION, session],
        |r| r.get(0),
    )?;
    let last: Option<String> = conn
        .query_row(
            "SELECT id FROM nodes WHERE node_seq IS NOT NULL AND json_extract(metadata, '$.kind') = ?1 AND json_extract(metadata, '$.session') IS ?2 ORDER BY json_extract(metadata, '$.turn') DESC, node_seq DESC LIMIT 1",
            rusqlite::params![CONVERSATION, session],
            |r| r.get(0),
        )
        .optional()?;
    Ok((all as usize, of_session as usize, last))
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
        let (all, of_session, last) = match &self.backend {
            Backend::Store(s) => conversation_tail(s.store.conn(), session)
                .map_err(sql_error(s.store.path()))?,
            Backend::Json(_) => {
                return Err(Error::Invalid(format!(
                    "remember: {} is a state file: remember works on a brain database (crabpath import makes one)",
                    self.path().display()
                )))
            }
        };
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
        let node = turn_node(turn, id.clone(), all);
        let vector = self
            .embedder()?
            .embed(&crate::source::embedtext::embedded_text(&node))?;
        let weight = chain_weight(session, of_session.saturating_sub(1));
        let mut scope = vec![id.clone()];
        scope.extend(last.clone());
        self.write(Scope::Nodes(&scope), |w| {
            if w.graph.get_node(&id).is_some() {
                return Err(duplicate(&id));
            }
            let n = w.graph.add_node(node);
            w.vectors.upsert(&id, &vector)?;
            let mut edges = Vec::new();
            if let Some(prev) = last.as_deref() {
                if let Some(p) = w.graph.lookup(prev).filter(|&p| w.graph.has_node(p)) {
                    w.graph.add_edge(p, n, Edge::new(weight))?;
                    w.graph.add_edge(n, p, Edge::new(weight))?;
                    edges.push((prev.to_string(), id.clone(), weight));
                    edges.push((id.clone(), prev.to_string(), weight));
                }
            }
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
                turn: all,
                edges,
            })
        })
    }
}
