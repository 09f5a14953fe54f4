//! JSON I/O of graphs and scenarios (reference `Graph.load` / `Graph.save` and
//! `crabpath/simulator.py::load_scenarios`, commit a424df5).
//!
//! Graph files are `{"nodes": [...], "edges": [...]}` (other top-level keys, such as the
//! datasets' `source`, are ignored). Missing fields take their defaults; nodes and edges
//! are added in file order, so a save → load round trip keeps every order. A value of
//! the wrong type is an error naming the file, line and column (the reference would
//! coerce or crash).
//!
//! Scenario files are JSON Lines: one object `{"query", "feedback": {"reward"},
//! "expected_answer_fragments"}` per non-blank line.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::graph::{CreatedBy, Edge, Graph, Node};

#[derive(Deserialize)]
struct RawGraph {
    #[serde(default)]
    nodes: Vec<RawNode>,
    #[serde(default)]
    edges: Vec<RawEdge>,
}

#[derive(Deserialize)]
struct RawNode {
    id: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    potential: Option<f64>,
    #[serde(default)]
    trace: Option<f64>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
struct RawEdge {
    source: String,
    target: String,
    #[serde(default)]
    weight: Option<f64>,
    #[serde(default)]
    decay_rate: Option<f64>,
    #[serde(default)]
    last_followed_ts: Option<f64>,
    #[serde(default)]
    created_by: Option<String>,
    #[serde(default)]
    follow_count: Option<i64>,
    #[serde(default)]
    skip_count: Option<i64>,
}

/// Reads a graph file.
pub fn load_graph(path: impl AsRef<Path>) -> Result<Graph> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_graph(&text, path)
}

/// Parses graph JSON; `path` names the source in errors.
pub fn parse_graph(text: &str, path: &Path) -> Result<Graph> {
    let raw: RawGraph = serde_json::from_str(text).map_err(|e| Error::Graph {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: format!("{e} (expected {{\"nodes\": [...], \"edges\": [...]}})"),
    })?;
    let mut g = Graph::new();
    for n in raw.nodes {
        let metadata = n.metadata.unwrap_or_default();
        // The reference falls back to metadata.type / metadata.summary when the
        // top-level field is absent.
        let kind = n
            .kind
            .or_else(|| {
                metadata
                    .get("type")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_else(|| "fact".to_string());
        let summary = n
            .summary
            .or_else(|| {
                metadata
                    .get("summary")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_default();
        for (what, v) in [
            ("threshold", n.threshold),
            ("potential", n.potential),
            ("trace", n.trace),
        ] {
            check_finite(v, path, &format!("node `{}` {what}", n.id))?;
        }
        g.add_node(Node {
            id: n.id,
            content: n.content,
            summary,
            kind,
            threshold: n.threshold.unwrap_or(1.0),
            potential: n.potential.unwrap_or(0.0),
            trace: n.trace.unwrap_or(0.0),
            metadata,
        });
    }
    for e in raw.edges {
        let what = format!("edge {} -> {}", e.source, e.target);
        check_finite(e.weight, path, &format!("{what} weight"))?;
        check_finite(e.decay_rate, path, &format!("{what} decay_rate"))?;
        let source = g.intern(&e.source);
        let target = g.intern(&e.target);
        g.insert_edge(Edge {
            source,
            target,
            weight: e.weight.unwrap_or(1.0),
            decay_rate: e.decay_rate.unwrap_or(0.01),
            last_followed_ts: e.last_followed_ts,
            created_by: e
                .created_by
                .as_deref()
                .map(CreatedBy::parse)
                .unwrap_or_default(),
            follow_count: e.follow_count.unwrap_or(0),
            skip_count: e.skip_count.unwrap_or(0),
        });
    }
    Ok(g)
}

fn check_finite(v: Option<f64>, path: &Path, what: &str) -> Result<()> {
    match v {
        Some(x) if !x.is_finite() => Err(Error::Graph {
            path: path.to_path_buf(),
            line: 0,
            column: 0,
            message: format!("{what} must be a finite number, got {x}"),
        }),
        _ => Ok(()),
    }
}

/// The graph in the reference's persistence shape (`Graph.to_v2_dict`): nodes and edges
/// in container order, fields equal to their defaults omitted.
pub fn graph_to_value(g: &Graph) -> Value {
    let nodes: Vec<Value> = g
        .nodes()
        .map(|(_, n)| {
            let mut m = Map::new();
            m.insert("id".into(), n.id.clone().into());
            m.insert("content".into(), n.content.clone().into());
            if !n.summary.is_empty() {
                m.insert("summary".into(), n.summary.clone().into());
            }
            if n.kind != "fact" {
                m.insert("type".into(), n.kind.clone().into());
            }
            for (k, v, d) in [
                ("threshold", n.threshold, 1.0),
                ("potential", n.potential, 0.0),
                ("trace", n.trace, 0.0),
            ] {
                if v != d {
                    m.insert(k.into(), v.into());
                }
            }
            if !n.metadata.is_empty() {
                m.insert("metadata".into(), Value::Object(n.metadata.clone()));
            }
            Value::Object(m)
        })
        .collect();
    let edges: Vec<Value> = g
        .edges()
        .map(|e| {
            let mut m = Map::new();
            m.insert("source".into(), g.name(e.source).into());
            m.insert("target".into(), g.name(e.target).into());
            if e.weight != 1.0 {
                m.insert("weight".into(), e.weight.into());
            }
            if e.decay_rate != 0.01 {
                m.insert("decay_rate".into(), e.decay_rate.into());
            }
            if let Some(ts) = e.last_followed_ts {
                m.insert("last_followed_ts".into(), ts.into());
            }
            if e.created_by != CreatedBy::Manual {
                m.insert("created_by".into(), e.created_by.as_str().into());
            }
            if e.follow_count != 0 {
                m.insert("follow_count".into(), e.follow_count.into());
            }
            if e.skip_count != 0 {
                m.insert("skip_count".into(), e.skip_count.into());
            }
            Value::Object(m)
        })
        .collect();
    let mut root = Map::new();
    root.insert("nodes".into(), Value::Array(nodes));
    root.insert("edges".into(), Value::Array(edges));
    Value::Object(root)
}

/// Writes the graph atomically (`pyformat::io::write_atomic`) as
/// pretty-printed JSON in the shape of [`graph_to_value`].
pub fn save_graph(g: &Graph, path: impl AsRef<Path>) -> Result<()> {
    let mut text = serde_json::to_string_pretty(&graph_to_value(g))
        .map_err(|e| Error::Invalid(format!("graph is not serialisable: {e}")))?;
    text.push('\n');
    pyformat::io::write_atomic(path, text.as_bytes())?;
    Ok(())
}

/// One scenario episode.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The query text (also the learning baseline's key).
    pub query: String,
    /// `feedback.reward` (0.0 when absent or not a number, as in the reference).
    pub reward: f64,
    /// Fragments that must all occur (case-insensitively) in the loaded text.
    pub expected_answer_fragments: Vec<String>,
}

/// Reads a scenario JSONL file.
pub fn load_scenarios(path: impl AsRef<Path>) -> Result<Vec<Scenario>> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_scenarios(&text, path)
}

/// Parses scenario JSONL; `path` names the source in errors. Blank lines are skipped.
pub fn parse_scenarios(text: &str, path: &Path) -> Result<Vec<Scenario>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let err = |message: String| Error::Scenario {
            path: path.to_path_buf(),
            line: line_no,
            message,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| err(format!("invalid JSON at column {}: {e}", e.column())))?;
        let Value::Object(obj) = v else {
            return Err(err("expected a JSON object {\"query\", \"feedback\": {\"reward\"}, \"expected_answer_fragments\"}".into()));
        };
        let query = match obj.get("query") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(err(format!("`query` must be a string, got {other}"))),
        };
        let reward = match obj.get("feedback") {
            None | Some(Value::Null) => 0.0,
            Some(Value::Object(f)) => reward_value(f.get("reward")),
            Some(other) => {
                return Err(err(format!(
                    "`feedback` must be an object like {{\"reward\": 1}}, got {other}"
                )))
            }
        };
        let expected_answer_fragments = match obj.get("expected_answer_fragments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|x| match x {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(err(format!(
                        "`expected_answer_fragments` must hold strings, got {other}"
                    ))),
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(err(format!(
                    "`expected_answer_fragments` must be a list of strings, got {other}"
                )))
            }
        };
        out.push(Scenario {
            query,
            reward,
            expected_answer_fragments,
        });
    }
    Ok(out)
}

/// `feedback.reward` as the reference reads it: a number (or bool) as a float, anything
/// else 0.0.
fn reward_value(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_defaults_and_round_trip() {
        let text = r#"{"source": "x", "nodes": [{"id": "a", "content": "A", "type": "guardrail"},
            {"id": "b", "content": "B", "summary": "bee"}],
            "edges": [{"source": "a", "target": "b", "weight": 0.5}, {"source": "b", "target": "a"}]}"#;
        let g = parse_graph(text, Path::new("g.json")).unwrap();
        assert_eq!(g.node("a").unwrap().kind, "guardrail");
        assert_eq!(g.node("b").unwrap().summary, "bee");
        assert_eq!(g.edge_by_name("b", "a").unwrap().weight, 1.0);
        let v = graph_to_value(&g);
        let back = parse_graph(&v.to_string(), Path::new("g2.json")).unwrap();
        assert_eq!(graph_to_value(&back), v);
        assert_eq!(
            v["edges"][1],
            serde_json::json!({"source": "b", "target": "a"})
        );
    }

    #[test]
    fn bad_graph_names_file_line_and_column() {
        let text = "{\"nodes\": [\n {\"id\": \"a\", \"content\": 3}\n]}";
        let e = parse_graph(text, Path::new("bad.json")).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("bad.json:2:"), "{msg}");
        assert!(msg.contains("expected a string"), "{msg}");
    }

    #[test]
    fn scenarios_parse_and_bad_line_is_named() {
        let ok = "{\"query\": \"q\", \"feedback\": {\"reward\": -1}, \"expected_answer_fragments\": [\"x\"]}\n\n{\"query\": \"r\"}\n";
        let s = parse_scenarios(ok, Path::new("s.jsonl")).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].reward, -1.0);
        assert_eq!(s[1].reward, 0.0);
        let bad = "{\"query\": \"q\"}\n{\"query\": \"q\", \"feedback\": 5}\n";
        let e = parse_scenarios(bad, Path::new("s.jsonl")).unwrap_err();
        assert!(e.to_string().starts_with("s.jsonl:2: `feedback`"), "{e}");
        let e = parse_scenarios("[1]\n", Path::new("s.jsonl")).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("s.jsonl:1: expected a JSON object"));
    }
}
