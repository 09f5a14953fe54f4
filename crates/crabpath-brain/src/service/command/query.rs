//! `crabpath query` (reference `crabpath/cli.py::cmd_query`, `_keyword_seeds`,
//! `_ensure_hash_embedder_compat`, `_load_query_vector_from_stdin`, commit 134c676):
//! seeds from the vector index (an embedded query or a vector read from stdin) or, for
//! a `--graph` without `--index`, from keyword overlap
//! ([`crabpath::keyword::keyword_ranking`]); then a traversal of at most 15 hops with an
//! optional character budget.

use crabpath::explain::Explanation;
use crabpath::graph::{Graph, Metadata, NodeId};
use crabpath::index::VectorIndex;
use crabpath::profile::Profile;
use crabpath::traverse::Step;
use crabpath::traverse::TraversalConfig;
use pyformat::pyjson::{self, PyDict, PyInt, PyValue};

use crate::error::{Error, Result};

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
pub fn hash_compat(meta: &Metadata) -> Result<()> {
    let name = meta
        .get("embedder_name")
        .and_then(|v| v.as_str())
        .or_else(|| meta.get("embedder").and_then(|v| v.as_str()));
    let Some(dim) = meta.get("embedder_dim").and_then(|v| v.as_i64()) else {
        return Ok(());
    };
    if dim != crabpath::embed::HashEmbedder::DEFAULT_DIM as i64 {
        return Err(Error::Reference(format!(
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
pub fn parse_vector(text: &str, finite_only: bool) -> Result<Vec<f64>> {
    let data = pyformat::pystr::strip(text);
    if data.is_empty() {
        return Err(Error::Reference(
            "query vector JSON required on stdin".into(),
        ));
    }
    let value = pyjson::loads(data).map_err(|e| Error::Exception {
        kind: "json.decoder.JSONDecodeError",
        message: e.to_string(),
    })?;
    let PyValue::List(items) = value else {
        return Err(Error::Reference(
            "query vector stdin payload must be a JSON array".into(),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        let x = match v {
            PyValue::Str(s) => pyformat::pystr::parse_float(s).ok_or_else(|| Error::Exception {
                kind: "ValueError",
                message: format!(
                    "could not convert string to float: {}",
                    pyformat::pyrepr::repr(v)
                ),
            })?,
            PyValue::Int(_) | PyValue::Float(_) | PyValue::Bool(_) => {
                v.as_number().ok_or_else(|| Error::Exception {
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
                return Err(Error::Exception {
                    kind: "TypeError",
                    message: format!(
                        "float() argument must be a string or a real number, not '{t}'"
                    ),
                });
            }
        };
        if finite_only && !x.is_finite() {
            return Err(Error::Reference(format!(
                "query vector component {i} is {x}: every component must be a finite number"
            )));
        }
        out.push(x);
    }
    Ok(out)
}

/// One step of a path as JSON.
fn step_dict(graph: &Graph, s: &Step) -> PyValue {
    let mut d = PyDict::new();
    d.insert("from".into(), PyValue::Str(graph.name(s.from).into()));
    d.insert("to".into(), PyValue::Str(graph.name(s.to).into()));
    d.insert("tier".into(), PyValue::Str(s.tier.as_str().into()));
    d.insert("weight".into(), PyValue::Float(s.weight));
    d.insert("effective_weight".into(), PyValue::Float(s.effective));
    PyValue::Dict(d)
}

/// An explanation ([`Explanation`]) as JSON: `{"fired": [{"id", "rank", "score", "seed_score",
/// "path": [{"from", "to", "tier", "weight", "effective_weight"}]}], "vetoes":
/// [{"source", "target", "weight", "target_fired"}], "unfired_seeds": [{"id",
/// "score", "reason"}]}`.
pub fn explanation_dict(e: &Explanation, graph: &Graph) -> PyDict {
    let fired = e
        .fired
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut d = PyDict::new();
            d.insert("id".into(), PyValue::Str(graph.name(f.node).into()));
            d.insert("rank".into(), PyValue::Int(PyInt::from(i as i64 + 1)));
            d.insert("score".into(), PyValue::Float(f.score));
            d.insert(
                "seed_score".into(),
                f.seed_score.map_or(PyValue::Null, PyValue::Float),
            );
            d.insert(
                "path".into(),
                PyValue::List(f.path.iter().map(|s| step_dict(graph, s)).collect()),
            );
            PyValue::Dict(d)
        })
        .collect();
    let vetoes = e
        .vetoes
        .iter()
        .map(|v| {
            let mut d = PyDict::new();
            d.insert("source".into(), PyValue::Str(graph.name(v.source).into()));
            d.insert("target".into(), PyValue::Str(graph.name(v.target).into()));
            d.insert("weight".into(), PyValue::Float(v.weight));
            d.insert("target_fired".into(), PyValue::Bool(v.target_fired));
            PyValue::Dict(d)
        })
        .collect();
    let unfired = e
        .unfired_seeds
        .iter()
        .map(|u| {
            let mut d = PyDict::new();
            d.insert("id".into(), PyValue::Str(graph.name(u.node).into()));
            d.insert("score".into(), PyValue::Float(u.score));
            d.insert("reason".into(), PyValue::Str(u.reason.clone()));
            PyValue::Dict(d)
        })
        .collect();
    let mut out = PyDict::new();
    out.insert("fired".into(), PyValue::List(fired));
    out.insert("vetoes".into(), PyValue::List(vetoes));
    out.insert("unfired_seeds".into(), PyValue::List(unfired));
    out
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
