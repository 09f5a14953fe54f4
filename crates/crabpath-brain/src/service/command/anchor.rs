//! `crabpath anchor`: node authority (`constitutional`, `canonical`, default
//! `overlay`), read by maintenance and sync (reference `crabpath/cli.py::cmd_anchor`,
//! commit 134c676). Authority is the node metadata key `authority`.

use serde_json::Value;

use crabpath::graph::Graph;
use pyformat::pyjson::{PyDict, PyValue};

use crate::error::{Error, Result};

/// The authority labels `anchor --authority` accepts.
pub const AUTHORITIES: [&str; 2] = ["constitutional", "canonical"];

/// `anchor --list`: nodes (node order) whose `authority` is `constitutional` or
/// `canonical`, with it.
pub fn anchored(graph: &Graph) -> Vec<(String, String)> {
    graph
        .nodes()
        .filter_map(|(_, n)| {
            let a = n.metadata.get("authority")?.as_str()?;
            AUTHORITIES
                .contains(&a)
                .then(|| (n.id.clone(), a.to_string()))
        })
        .collect()
}

/// What to do to one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnchorAction<'a> {
    /// Report the current authority.
    Show,
    /// Set it.
    Set(&'a str),
    /// Remove it (back to `overlay`).
    Remove,
}

/// Applies `action` to node `id`; returns the authority to report and whether the
/// state changed (and must be saved). The reported authority is the metadata value
/// as Python `str()` would print it (default `overlay`).
///
/// Errors (the reference's messages): `node not found: <id>`.
pub fn anchor(graph: &mut Graph, id: &str, action: AnchorAction<'_>) -> Result<(String, bool)> {
    let ix = graph
        .lookup(id)
        .filter(|&ix| graph.has_node(ix))
        .ok_or_else(|| Error::Reference(format!("node not found: {id}")))?;
    let Some(node) = graph.node_mut(ix) else {
        return Err(Error::Reference(format!("node not found: {id}")));
    };
    let show = |v: Option<&Value>| match v {
        None => "overlay".to_string(),
        Some(v) => pyformat::pyrepr::py_str(&pyformat::pyjson::PyValue::from(v)),
    };
    Ok(match action {
        AnchorAction::Show => (show(node.metadata.get("authority")), false),
        AnchorAction::Remove => {
            let had = node.metadata.shift_remove("authority").is_some();
            ("overlay".to_string(), had)
        }
        AnchorAction::Set(a) => {
            node.metadata
                .insert("authority".into(), Value::String(a.to_string()));
            (a.to_string(), true)
        }
    })
}

/// The journal entry type of an authority change (corrected profile).
pub const ANCHOR_EVENT: &str = "anchor";

/// The journal entry of an authority change of node `id`: `before` and `after` (the
/// metadata value, `None` when absent, i.e. `overlay`). `forget`'s replay sets each
/// anchored node back to its first entry's `before`, then repeats the changes in order
/// ([`crate::service::Brain::relearn`]): maintenance reads authority (decay, prune,
/// merge).
pub fn anchor_event(id: &str, before: Option<&Value>, after: Option<&Value>) -> PyDict {
    let value = |v: Option<&Value>| v.map_or(PyValue::Null, PyValue::from);
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str(ANCHOR_EVENT.into()));
    e.insert("id".into(), PyValue::Str(id.to_string()));
    e.insert("before".into(), value(before));
    e.insert("after".into(), value(after));
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath::graph::Node;

    #[test]
    fn set_show_remove_list() {
        let mut g = Graph::new();
        g.add_node(Node::new("a", "A").with_meta("file", "a.md"));
        g.add_node(Node::new("b", "B"));
        assert_eq!(
            anchor(&mut g, "a", AnchorAction::Show).unwrap(),
            ("overlay".into(), false)
        );
        assert_eq!(
            anchor(&mut g, "a", AnchorAction::Set("canonical")).unwrap(),
            ("canonical".into(), true)
        );
        // appended as the last metadata key
        let keys: Vec<_> = g.get_node("a").unwrap().metadata.keys().cloned().collect();
        assert_eq!(keys, ["file", "authority"]);
        assert_eq!(anchored(&g), [("a".to_string(), "canonical".to_string())]);
        assert_eq!(
            anchor(&mut g, "a", AnchorAction::Remove).unwrap(),
            ("overlay".into(), true)
        );
        assert_eq!(
            anchor(&mut g, "a", AnchorAction::Remove).unwrap(),
            ("overlay".into(), false)
        );
        assert_eq!(
            anchor(&mut g, "zzz", AnchorAction::Show)
                .unwrap_err()
                .to_string(),
            "node not found: zzz"
        );
    }
}
