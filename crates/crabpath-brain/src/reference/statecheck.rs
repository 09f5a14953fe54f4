//! The strict check of a state file before `import` makes a brain of it: everything a
//! brain database relies on, reported as the JSON path of the first problem
//! (`graph.edges[17].target: no node "x::3"`).
//!
//! [`crate::reference::statefile::load_state`] reads what the reference reads, and the reference
//! reads a great deal it should not: a document without `graph` (0 nodes), the same node
//! id twice (the last one wins), the same edge twice, an empty id, any edge kind, a vector
//! for a node that does not exist, a negative `embedder_dim`, an embedder name no program
//! has (after which every query fails). A state file written by the reference (or by
//! `export`) passes: its nodes are unique and non-empty, its edges join existing nodes
//! with the kinds `sibling`, `inhibitory` and `cross_file`, its vectors belong to nodes and
//! have the recorded dimension. A bare graph (`{"nodes": [...], "edges": [...]}`, which
//! the reference's `load_state` also reads) passes too.
//!
//! This module imports only the error and embedder types of the crate.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{format_error, Result};
use crate::reference::embedder::EmbedderInfo;

/// The edge kinds the reference writes (reference `crabpath/graph.py`; CORE §1).
pub const EDGE_KINDS: [&str; 3] = ["sibling", "inhibitory", "cross_file"];

/// Checks a state document (the bytes of `path`) against everything a brain relies on
/// (see the module docs). `known` lists the embedders this program has: the document's
/// `meta.embedder_name` (default `hash-v1`) must be one of them, with its dimension.
///
/// Errors: `Error::Format` naming `path` and the JSON path of the first problem. Bytes
/// that are not a JSON object are left to [`crate::reference::statefile::load_state`]'s messages
/// (this check then passes, and the load fails).
pub fn check_state(bytes: &[u8], path: &Path, known: &[EmbedderInfo]) -> Result<()> {
    let Ok(Value::Object(root)) = serde_json::from_slice::<Value>(bytes) else {
        return Ok(());
    };
    check_document(&root, known).map_err(|m| format_error(path, m))
}

/// The check of [`check_state`] on a parsed document: `Err` holds `<json path>: <what>`.
pub fn check_document(root: &Map<String, Value>, known: &[EmbedderInfo]) -> Result<(), String> {
    let (graph, at) = match root.get("graph") {
        Some(Value::Object(g)) => (g, "graph."),
        Some(_) => return Err("graph: not an object".into()),
        None if root.contains_key("nodes") => (root, ""),
        None => {
            return Err(
                "graph: missing (a state file is {\"graph\": {\"nodes\": [...], \"edges\": [...]}, \"index\": {...}, \"meta\": {...}})"
                    .into(),
            )
        }
    };
    let nodes = check_nodes(graph, at)?;
    check_edges(graph, at, &nodes)?;
    let dim = check_index(root.get("index"), &nodes)?;
    check_meta(root.get("meta"), dim, known)
}

/// `nodes`: an array of objects with a non-empty, unique string `id`. Returns the index
/// of each id.
fn check_nodes<'a>(
    graph: &'a Map<String, Value>,
    at: &str,
) -> Result<HashMap<&'a str, usize>, String> {
    let Some(list) = graph.get("nodes") else {
        return Err(format!("{at}nodes: missing"));
    };
    let Value::Array(list) = list else {
        return Err(format!("{at}nodes: not an array"));
    };
    let mut ids: HashMap<&str, usize> = HashMap::with_capacity(list.len());
    for (i, node) in list.iter().enumerate() {
        let here = format!("{at}nodes[{i}]");
        let id = match node.get("id") {
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(format!("{here}.id: not a string")),
            None => return Err(format!("{here}.id: missing")),
        };
        if id.trim().is_empty() {
            return Err(format!("{here}.id: empty"));
        }
        if !matches!(node.get("content"), Some(Value::String(_))) {
            return Err(format!("{here}.content: missing or not a string"));
        }
        if let Some(first) = ids.insert(id, i) {
            return Err(format!(
                "{here}.id: duplicate of {at}nodes[{first}].id {}",
                quoted(id)
            ));
        }
    }
    Ok(ids)
}

/// `edges` (optional): objects whose `source` and `target` are node ids, each pair
/// once, with a known `kind` and a numeric `weight` when given.
fn check_edges(
    graph: &Map<String, Value>,
    at: &str,
    nodes: &HashMap<&str, usize>,
) -> Result<(), String> {
    let list = match graph.get("edges") {
        None => return Ok(()),
        Some(Value::Array(l)) => l,
        Some(_) => return Err(format!("{at}edges: not an array")),
    };
    let mut pairs: HashMap<(&str, &str), usize> = HashMap::with_capacity(list.len());
    for (i, edge) in list.iter().enumerate() {
        let here = format!("{at}edges[{i}]");
        let end = |key: &str| -> Result<&str, String> {
            match edge.get(key) {
                Some(Value::String(s)) if nodes.contains_key(s.as_str()) => Ok(s.as_str()),
                Some(Value::String(s)) => Err(format!("{here}.{key}: no node {}", quoted(s))),
                Some(_) => Err(format!("{here}.{key}: not a string")),
                None => Err(format!("{here}.{key}: missing")),
            }
        };
        let (source, target) = (end("source")?, end("target")?);
        match edge.get("kind") {
            None => {}
            Some(Value::String(k)) if EDGE_KINDS.contains(&k.as_str()) => {}
            Some(k) => {
                return Err(format!(
                    "{here}.kind: {k} is not an edge kind ({})",
                    EDGE_KINDS.join(", ")
                ))
            }
        }
        if edge.get("weight").is_some_and(|w| !w.is_number()) {
            return Err(format!("{here}.weight: not a number"));
        }
        if let Some(first) = pairs.insert((source, target), i) {
            return Err(format!(
                "{here}: duplicate of {at}edges[{first}] ({} -> {})",
                quoted(source),
                quoted(target)
            ));
        }
    }
    Ok(())
}

/// `index` (optional): an object mapping node ids to arrays of numbers of one length.
/// Returns that length (`None` for an empty or missing index).
fn check_index(
    index: Option<&Value>,
    nodes: &HashMap<&str, usize>,
) -> Result<Option<usize>, String> {
    let map = match index {
        None => return Ok(None),
        Some(Value::Object(m)) => m,
        Some(_) => return Err("index: not an object".into()),
    };
    let mut dim: Option<(usize, &str)> = None;
    for (id, v) in map {
        let here = format!("index[{}]", quoted(id));
        if !nodes.contains_key(id.as_str()) {
            return Err(format!("{here}: no node {}", quoted(id)));
        }
        let Value::Array(v) = v else {
            return Err(format!("{here}: not an array of numbers"));
        };
        if let Some(j) = v.iter().position(|x| !x.is_number()) {
            return Err(format!("{here}[{j}]: not a number"));
        }
        match dim {
            None => dim = Some((v.len(), id)),
            Some((d, first)) if d != v.len() => {
                return Err(format!(
                    "{here}: {} numbers, but index[{}] has {d}",
                    v.len(),
                    quoted(first)
                ))
            }
            Some(_) => {}
        }
    }
    Ok(dim.map(|(d, _)| d))
}

/// `meta` (optional): `embedder_name` one of `known` (default `hash-v1`), `embedder_dim`
/// a positive integer equal to that embedder's dimension and to the vectors' length.
fn check_meta(
    meta: Option<&Value>,
    dim: Option<usize>,
    known: &[EmbedderInfo],
) -> Result<(), String> {
    let empty = Map::new();
    let meta = match meta {
        Some(Value::Object(m)) => m,
        _ => &empty,
    };
    let names = || {
        known
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = match meta.get("embedder_name") {
        None | Some(Value::Null) => crabpath::embed::HashEmbedder::NAME,
        Some(Value::String(s)) => s.as_str(),
        Some(v) => return Err(format!("meta.embedder_name: {v} is not a string")),
    };
    let Some(embedder) = known.iter().find(|k| k.name == name) else {
        return Err(format!(
            "meta.embedder_name: {} is not an embedder this program has ({})",
            quoted(name),
            names()
        ));
    };
    let recorded = match meta.get("embedder_dim") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().filter(|&d| d > 0) {
            Some(d) => Some(d as usize),
            None => return Err(format!("meta.embedder_dim: {v} is not a positive integer")),
        },
    };
    if let Some(d) = recorded.filter(|&d| d != embedder.dim) {
        return Err(format!(
            "meta.embedder_dim: {d}, but {} has {} dimensions",
            embedder.name, embedder.dim
        ));
    }
    if let Some(d) = dim.filter(|&d| d != embedder.dim) {
        return Err(format!(
            "index: vectors of {d} numbers, but {} has {} dimensions",
            embedder.name, embedder.dim
        ));
    }
    Ok(())
}

/// A string as JSON writes it (`"x::3"`).
fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}
