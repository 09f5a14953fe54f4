//! `crabpath query` (reference `crabpath/cli.py::cmd_query`, `_keyword_seeds`,
//! `_ensure_hash_embedder_compat`, `_load_query_vector_from_stdin`, commit 134c676):
//! seeds from the vector index (an embedded query or a vector read from stdin) or, for
//! a `--graph` without `--index`, from keyword overlap
//! ([`crate::keyword::keyword_ranking`]); then a traversal of at most 15 hops with an
//! optional character budget.

use crate::graph::{Graph, Metadata, NodeId};
use crate::index::VectorIndex;
use crate::profile::Profile;
use crate::pyjson::{self, PyValue};
use crate::traverse::TraversalConfig;

use super::{CommandError, CommandResult, PyException};

/// Maximum hops of a command-line or daemon query.
pub const QUERY_MAX_HOPS: usize = 15;
/// The daemon's context budget (characters).
pub const DAEMON_MAX_CONTEXT_CHARS: usize = 20_000;

/// The traversal config of a query under a profile: 15 hops, the character budget
/// (a negative budget acts as 0), every other field at its default.
pub fn traversal_config(profile: Profile, max_context_chars: Option<i64>) -> TraversalConfig {
    let mut c = profile.traversal();
    c.max_hops = QUERY_MAX_HOPS;
    c.max_context_chars = max_context_chars.map(|m| m.max(0) as usize);
    c
}

/// Seeds from the index: `index.search(vector, top)`, ids resolved to graph symbols
/// (ids the graph never saw are dropped; the traversal drops ids without a node).
pub fn vector_seeds(
    graph: &Graph,
    index: &VectorIndex,
    vector: &[f64],
    top: usize,
) -> Vec<(NodeId, f64)> {
    index
        .search(vector, top)
        .into_iter()
        .filter_map(|(id, s)| graph.lookup(&id).map(|n| (n, s)))
        .collect()
}

/// The reference's guard before embedding a query or an injected node with the hash
/// embedder: a state whose `embedder_dim` is an integer other than 1024 is refused,
/// with the reference's message.
pub fn hash_compat(meta: &Metadata) -> CommandResult<()> {
    let name = meta
        .get("embedder_name")
        .and_then(|v| v.as_str())
        .or_else(|| meta.get("embedder").and_then(|v| v.as_str()));
    let Some(dim) = meta.get("embedder_dim").and_then(|v| v.as_i64()) else {
        return Ok(());
    };
    if dim != crate::embed::HashEmbedder::DEFAULT_DIM as i64 {
        return Err(CommandError::Reference(format!(
            "Index was built with {} (dim={dim}). CLI hash embedder uses dim=1024. Dimension mismatch. Use --query-vector-stdin with matching embedder.",
            name.unwrap_or("None")
        )));
    }
    Ok(())
}

/// Parses a vector given on stdin (reference `_load_query_vector_from_stdin`): the text
/// stripped, a JSON array, each element converted with Python `float()`. Errors carry
/// the reference's messages. With `finite_only` (corrected profile) NaN and ±∞
/// components are refused too.
pub fn parse_vector(text: &str, finite_only: bool) -> CommandResult<Vec<f64>> {
    let data = crate::pystr::strip(text);
    if data.is_empty() {
        return Err(CommandError::Reference(
            "query vector JSON required on stdin".into(),
        ));
    }
    let value = pyjson::loads(data).map_err(|e| PyException {
        kind: "json.decoder.JSONDecodeError",
        message: e.to_string(),
    })?;
    let PyValue::List(items) = value else {
        return Err(CommandError::Reference(
            "query vector stdin payload must be a JSON array".into(),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        let x = match v {
            PyValue::Str(s) => crate::pystr::parse_float(s).ok_or_else(|| PyException {
                kind: "ValueError",
                message: format!(
                    "could not convert string to float: {}",
                    crate::pyrepr::repr(v)
                ),
            })?,
            PyValue::Int(_) | PyValue::Float(_) | PyValue::Bool(_) => {
                v.as_number().ok_or_else(|| PyException {
                    kind: "OverflowError",
                    message: "int too large to convert to float".into(),
                })?
            }
            other => {
                let t = match other {
                    PyValue::Null => "NoneType",
                    PyValue::List(_) => "list",
                    _ => "dict",
                };
                return Err(PyException {
                    kind: "TypeError",
                    message: format!(
                        "float() argument must be a string or a real number, not '{t}'"
                    ),
                }
                .into());
            }
        };
        if finite_only && !x.is_finite() {
            return Err(CommandError::Reference(format!(
                "query vector component {i} is {x}: every component must be a finite number"
            )));
        }
        out.push(x);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vectors_from_stdin() {
        assert_eq!(
            parse_vector(" [1, 2.5, \"3\", true] \n", true).unwrap(),
            [1.0, 2.5, 3.0, 1.0]
        );
        let msg = |t: &str| parse_vector(t, false).unwrap_err().to_string();
        assert_eq!(msg("  "), "query vector JSON required on stdin");
        assert_eq!(msg("{}"), "query vector stdin payload must be a JSON array");
        assert_eq!(
            msg("[1,"),
            "json.decoder.JSONDecodeError: Expecting value: line 1 column 4 (char 3)"
        );
        assert_eq!(
            msg("[null]"),
            "TypeError: float() argument must be a string or a real number, not 'NoneType'"
        );
        assert_eq!(
            msg("[\"x\"]"),
            "ValueError: could not convert string to float: 'x'"
        );
        assert!(parse_vector("[NaN]", false).unwrap()[0].is_nan());
        assert!(parse_vector("[NaN]", true).is_err());
    }

    #[test]
    fn hash_guard() {
        let mut m = Metadata::new();
        assert!(hash_compat(&m).is_ok());
        m.insert("embedder_dim".into(), json!(1024));
        assert!(hash_compat(&m).is_ok());
        m.insert("embedder_name".into(), json!("custom"));
        m.insert("embedder_dim".into(), json!(1536));
        assert_eq!(
            hash_compat(&m).unwrap_err().to_string(),
            "Index was built with custom (dim=1536). CLI hash embedder uses dim=1024. Dimension mismatch. Use --query-vector-stdin with matching embedder."
        );
    }
}
