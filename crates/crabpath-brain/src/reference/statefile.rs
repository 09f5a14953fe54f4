//! State files: graph + vector index + metadata in one JSON document (reference
//! `crabpath/store.py::save_state`/`load_state`, commit 134c676):
//!
//! ```json
//! {"graph": {"nodes": [...], "edges": [...]}, "index": {"id": [0.1, ...]}, "meta": {...}}
//! ```
//!
//! Written atomically ([`pyformat::io::write_atomic`]) in the bytes of the reference's
//! `json.dumps(payload, indent=2)` ([`pyformat::pyjson`]: ASCII escapes, Python float
//! spelling), so a state made by either program opens in the other.

use std::fmt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::error::io_error;
use crate::error::{format_error, Result};
use crabpath::embed::HashEmbedder;
use crabpath::graph::{EdgeKind, EdgeMeta, EdgeRecord, Graph, GraphFile, Metadata, Node};
use crabpath::index::VectorIndex;
use crabpath::state::State;
use pyformat::io::write_atomic;

// ----- load ------------------------------------------------------------------------------

/// The document as read: a wrapper, or a bare graph (`payload.get("graph", payload)`).
#[derive(Deserialize)]
struct RawState {
    #[serde(default, deserialize_with = "present")]
    graph: Option<GraphFile>,
    #[serde(default)]
    nodes: Vec<Node>,
    #[serde(default)]
    edges: Vec<EdgeRecord>,
    #[serde(default, deserialize_with = "present")]
    index: Option<VectorIndex>,
    #[serde(default)]
    meta: Option<Value>,
}

/// A key that is present must hold a value of the type (`null` is an error).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> std::result::Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Loads a state file (reference `crabpath/store.py::load_state`): the wrapper object, or a
/// bare graph object (then the index is empty unless the object also has an `index` key).
/// Nodes are added in listed order, then every listed edge (weight default 0.5, clamped to
/// [-1, 1]; kind default `sibling`), so all orders survive a round trip. A `meta` that is
/// not an object reads as empty.
///
/// Errors: `Error::Io` (with the path) if the file cannot be read; `Error::Format`
/// (with the path and serde's line/column) for invalid JSON, a payload that is not an
/// object, a misshapen graph or index, or index vectors of mixed dimension.
pub fn load_state(path: impl AsRef<Path>) -> Result<State> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    parse_state(&bytes, path)
}

/// Checks that `bytes` are a loadable state file (the errors of [`load_state`]).
pub fn parse_check(bytes: &[u8], path: &Path) -> Result<()> {
    parse_state(bytes, path).map(|_| ())
}

/// Reads a state file's bytes (`path` names it in errors): [`load_state`] without the
/// read.
pub fn parse_state(bytes: &[u8], path: &Path) -> Result<State> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first.is_some_and(|&b| b != b'{') {
        return Err(format_error(path, "state payload must be a JSON object"));
    }
    let raw: RawState = serde_json::from_slice(bytes).map_err(|e| format_error(path, e))?;
    let file = raw.graph.unwrap_or(GraphFile {
        nodes: raw.nodes,
        edges: raw.edges,
    });
    let graph = Graph::from_file(file).map_err(|e| format_error(path, e))?;
    let meta = match raw.meta {
        Some(Value::Object(m)) => m,
        _ => Metadata::new(),
    };
    Ok(State {
        graph,
        index: raw.index.unwrap_or_default(),
        meta,
    })
}

// ----- save ------------------------------------------------------------------------------

/// Saves a state file (reference `crabpath/store.py::save_state`), atomically.
///
/// Metadata: the existing file's `meta` (if the file exists), updated with
/// `state.meta`; embedder name and dimension resolved as explicit argument > metadata >
/// `hash-v1`/1024 (a metadata dimension counts only if it is an integer). If the file
/// exists, the index is non-empty and the merged metadata's `embedder_name` is not
/// `hash-v1`, every vector must have the resolved dimension (`Error::DimensionMismatch`,
/// nothing written). Then `schema_version` (default 1) and `created_at` (UTC ISO-8601,
/// first save only) are set if absent, and `node_count`, `embedder_name`,
/// `embedder_dim` are set.
///
/// Errors: `Error::Io`/`Error::Format` reading an existing file, the dimension check, a
/// non-finite edge weight (`Error::NonFinite`), or `Error::Io` writing; on error the old
/// file is left as it was.
pub fn save_state(
    path: impl AsRef<Path>,
    state: &State,
    embedder_name: Option<&str>,
    embedder_dim: Option<usize>,
) -> Result<()> {
    let path = path.as_ref();
    let rendered = render_state(path, state, embedder_name, embedder_dim, None)?;
    Ok(write_atomic(path, rendered.text.as_bytes())?)
}

/// A state file's text (what [`save_state`] writes) and the byte offsets of the
/// lines that open its `"index"` and `"meta"` members (each offset is that of the
/// newline before `  "index": ` / `  "meta": `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The whole file.
    pub text: String,
    /// Offset of `\n  "index": `.
    pub index_at: usize,
    /// Offset of `\n  "meta": `.
    pub meta_at: usize,
}

/// The text [`save_state`] writes to `path` for `state` (metadata merged with the
/// existing file's, see there), without writing it. `index_text` may give the index
/// already rendered at the top level (`index.json`'s text, [`index_text`] at depth
/// 0); it is then nested instead of being formatted again.
///
/// Cost: linear in the state; the index (most of the file) is formatted in parallel.
pub fn render_state(
    path: &Path,
    state: &State,
    embedder_name: Option<&str>,
    embedder_dim: Option<usize>,
    index_text_top: Option<&str>,
) -> Result<Rendered> {
    let exists = path.exists();
    let mut meta = if exists {
        existing_meta(path)?
    } else {
        Metadata::new()
    };
    for (k, v) in &state.meta {
        meta.insert(k.clone(), v.clone());
    }
    let name = match embedder_name {
        Some(n) => Value::from(n),
        None => match meta.get("embedder_name") {
            Some(v) if !v.is_null() => v.clone(),
            _ => Value::from(HashEmbedder::NAME),
        },
    };
    let dim = match embedder_dim {
        Some(d) => Value::from(d),
        None => match meta.get("embedder_dim") {
            Some(v) if python_int(v).is_some() => v.clone(),
            _ => Value::from(HashEmbedder::DEFAULT_DIM),
        },
    };
    let existing_embedder = meta.get("embedder_name").and_then(Value::as_str);
    if exists && existing_embedder != Some(HashEmbedder::NAME) {
        if let Some(got) = state.index.dim() {
            check_dim(&dim, got)?;
        }
    }
    for (s, t, e) in state.graph.edges() {
        if !e.weight.is_finite() {
            return Err(crabpath::Error::NonFinite {
                what: format!(
                    "edge weight {}->{}",
                    state.graph.name(s),
                    state.graph.name(t)
                ),
                value: e.weight,
            }
            .into());
        }
    }
    meta.entry("schema_version").or_insert(Value::from(1));
    meta.entry("created_at")
        .or_insert_with(|| Value::from(utc_now_iso()));
    meta.insert(
        "node_count".to_string(),
        Value::from(state.graph.node_count()),
    );
    meta.insert("embedder_name".to_string(), name);
    meta.insert("embedder_dim".to_string(), dim);

    let nest = |t: &str| t.replace('\n', "\n  ");
    let pretty = |v: &dyn erased::Pretty| {
        v.pretty()
            .map_err(|e| format_error(path, format!("cannot serialize state: {e}")))
    };
    let graph = nest(&pretty(&GraphOut(&state.graph))?);
    let index = match index_text_top {
        Some(t) => nest(t),
        None => index_text(&state.index, 1),
    };
    let meta = nest(&pretty(&meta)?);
    let mut text = String::with_capacity(graph.len() + index.len() + meta.len() + 40);
    text.push_str("{\n  \"graph\": ");
    text.push_str(&graph);
    let index_at = text.len() + 1;
    text.push_str(",\n  \"index\": ");
    text.push_str(&index);
    let meta_at = text.len() + 1;
    text.push_str(",\n  \"meta\": ");
    text.push_str(&meta);
    text.push_str("\n}");
    Ok(Rendered {
        text,
        index_at,
        meta_at,
    })
}

/// Object-safe pretty printing of the state's parts.
mod erased {
    pub trait Pretty {
        fn pretty(&self) -> crate::error::Result<String>;
    }
    impl<T: serde::Serialize> Pretty for T {
        fn pretty(&self) -> crate::error::Result<String> {
            Ok(pyformat::pyjson::to_string_with(
                self,
                pyformat::pyjson::Style::PRETTY,
            )?)
        }
    }
}

/// `json.dumps(index, indent=2)` nested at `depth` levels (the closing brace indented
/// by `2 · depth` spaces): `{id: [x, ...]}` in insertion order, one number per line.
/// Vectors are formatted in parallel (rayon) and joined in order, so the bytes do
/// not depend on the number of threads.
pub fn index_text(index: &VectorIndex, depth: usize) -> String {
    use rayon::prelude::*;
    if index.is_empty() {
        return "{}".into();
    }
    let ind = |k: usize| " ".repeat(2 * k);
    let (member, element, close) = (ind(depth + 1), ind(depth + 2), ind(depth + 1));
    let rows: Vec<(&str, &[f64])> = index.iter().collect();
    let parts: Vec<String> = rows
        .par_chunks(256)
        .map(|chunk| {
            let mut out = String::with_capacity(chunk.len() * (chunk[0].1.len() * 24 + 40));
            for (id, v) in chunk {
                out.push_str(&member);
                pyformat::pyjson::push_str_literal(&mut out, id, true);
                out.push_str(": ");
                if v.is_empty() {
                    out.push_str("[]");
                } else {
                    out.push('[');
                    for (k, x) in v.iter().enumerate() {
                        out.push_str(if k == 0 { "\n" } else { ",\n" });
                        out.push_str(&element);
                        pyformat::pyjson::push_float_repr(&mut out, *x);
                    }
                    out.push('\n');
                    out.push_str(&close);
                    out.push(']');
                }
                out.push_str(",\n");
            }
            out
        })
        .collect();
    let mut text = String::with_capacity(parts.iter().map(String::len).sum::<usize>() + 8);
    text.push_str("{\n");
    for p in &parts {
        text.push_str(p);
    }
    text.truncate(text.len() - 2); // the last ",\n"
    text.push('\n');
    text.push_str(&ind(depth));
    text.push('}');
    text
}

/// The value of Python's `int(x)` for JSON values with `isinstance(x, int)` (integers and,
/// as in Python, booleans).
fn python_int(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        Value::Bool(b) => Some(i128::from(*b)),
        _ => None,
    }
}

/// Every index vector (all of dimension `got`) must have the resolved dimension.
fn check_dim(dim: &Value, got: usize) -> Result<()> {
    match python_int(dim) {
        Some(d) if d == got as i128 => Ok(()),
        Some(d) => Err(match usize::try_from(d) {
            Ok(expected) => crabpath::Error::DimensionMismatch { expected, got }.into(),
            Err(_) => crabpath::Error::InvalidConfig(format!(
                "embedder_dim {d} cannot match index vectors of dimension {got}"
            ))
            .into(),
        }),
        None => Err(crabpath::Error::InvalidConfig(format!(
            "embedder_dim {dim} is not an integer"
        ))
        .into()),
    }
}

/// The `meta` object of an existing state file (empty if the payload is not an object
/// or its `meta` is not an object), reading nothing else into memory.
fn existing_meta(path: &Path) -> Result<Metadata> {
    struct MetaOnly(Metadata);
    impl<'de> Deserialize<'de> for MetaOnly {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            d.deserialize_any(MetaVisitor)
        }
    }
    struct MetaVisitor;
    impl<'de> Visitor<'de> for MetaVisitor {
        type Value = MetaOnly;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON document")
        }
        fn visit_map<A: MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<MetaOnly, A::Error> {
            let mut meta = Metadata::new();
            while let Some(key) = map.next_key::<String>()? {
                if key == "meta" {
                    meta = match map.next_value::<Value>()? {
                        Value::Object(m) => m,
                        _ => Metadata::new(),
                    };
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(MetaOnly(meta))
        }
        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<MetaOnly, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(MetaOnly(Metadata::new()))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<MetaOnly, E> {
            Ok(MetaOnly(Metadata::new()))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<MetaOnly, E> {
            Ok(MetaOnly(Metadata::new()))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<MetaOnly, E> {
            Ok(MetaOnly(Metadata::new()))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<MetaOnly, E> {
            Ok(MetaOnly(Metadata::new()))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<MetaOnly, E> {
            Ok(MetaOnly(Metadata::new()))
        }
        fn visit_unit<E: de::Error>(self) -> std::result::Result<MetaOnly, E> {
            Ok(MetaOnly(Metadata::new()))
        }
    }
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    serde_json::from_slice::<MetaOnly>(&bytes)
        .map(|m| m.0)
        .map_err(|e| format_error(path, e))
}

/// A graph as `{"nodes": [...], "edges": [...]}` (the same document as
/// [`Graph::to_file`], streamed).
pub(crate) struct GraphOut<'a>(pub(crate) &'a Graph);

impl Serialize for GraphOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let g = self.0;
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("nodes", &Seq(|| g.nodes().map(|(_, n)| n)))?;
        map.serialize_entry(
            "edges",
            &Seq(|| {
                g.edges().map(|(src, tgt, e)| EdgeOut {
                    source: g.name(src),
                    target: g.name(tgt),
                    weight: e.weight,
                    kind: &e.kind,
                    metadata: MetaOut(&e.metadata),
                })
            }),
        )?;
        map.end()
    }
}

/// A JSON array of the items of an iterator (made afresh by the closure).
struct Seq<F>(F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for item in (self.0)() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// One edge record, keys in the reference's order.
#[derive(Serialize)]
struct EdgeOut<'a> {
    source: &'a str,
    target: &'a str,
    weight: f64,
    kind: &'a EdgeKind,
    metadata: MetaOut<'a>,
}

struct MetaOut<'a>(&'a EdgeMeta);

impl Serialize for MetaOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

// ----- time ------------------------------------------------------------------------------

/// Current UTC time as Python's `datetime.now(timezone.utc).isoformat()` writes it.
fn utc_now_iso() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso_utc(d.as_secs() as i64, d.subsec_micros())
}

/// `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00` (the fraction is omitted when zero, as Python
/// does) for seconds since the Unix epoch.
fn iso_utc(secs: i64, micros: u32) -> String {
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = pyformat::pytime::civil_from_days(days);
    let base = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    if micros == 0 {
        format!("{base}+00:00")
    } else {
        format!("{base}.{micros:06}+00:00")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crabpath::graph::{Edge, EdgeKind};
    use serde_json::json;

    fn sample() -> State {
        let mut g = Graph::new();
        g.add_node(Node::new("b", "Bee\nsecond line").with_meta("file", "x.md"));
        g.add_node(Node::new("a", "Ä — unicode"));
        g.add_node(Node::new("c", "C"));
        g.add_edge_by_id("c", "a", Edge::new(0.1 + 0.2)).unwrap();
        g.add_edge_by_id(
            "b",
            "c",
            Edge::new(-0.43999999999999995).with_kind(EdgeKind::Inhibitory),
        )
        .unwrap();
        let mut em = Metadata::new();
        em.insert("relevance".into(), json!(0.25));
        em.insert("source".into(), json!("inject"));
        g.add_edge_by_id("b", "ghost", Edge::new(1e-300).with_metadata(em))
            .unwrap();
        g.add_edge_by_id("c", "b", Edge::new(0.5)).unwrap();
        let mut ix = VectorIndex::new();
        ix.upsert("c", [0.1, 0.7]).unwrap();
        ix.upsert("a", [-1.0, 1e-17]).unwrap();
        let mut st = State::new(g, ix);
        st.meta.insert("zzz".into(), json!({"nested": [1, 2]}));
        st.meta.insert("embedder_name".into(), json!("hash-v1"));
        st
    }

    fn graph_json(g: &Graph) -> String {
        serde_json::to_string(&g.to_file()).unwrap()
    }

    #[test]
    fn round_trip_is_lossless() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        let st = sample();
        save_state(&p, &st, None, None).unwrap();
        let back = load_state(&p).unwrap();
        assert_eq!(graph_json(&back.graph), graph_json(&st.graph));
        assert_eq!(back.index, st.index);
        let keys: Vec<&str> = back.meta.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "zzz",
                "embedder_name",
                "schema_version",
                "created_at",
                "node_count",
                "embedder_dim"
            ]
        );
        assert_eq!(back.meta["node_count"], json!(3));
        assert_eq!(back.meta["embedder_dim"], json!(1024));
        assert_eq!(back.meta["schema_version"], json!(1));
        // a second save keeps created_at and writes the same bytes
        let first = std::fs::read(&p).unwrap();
        save_state(&p, &back, None, None).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), first);
        let text = String::from_utf8(first).unwrap();
        assert!(text.starts_with("{\n  \"graph\": {\n    \"nodes\": [\n"));
    }

    #[test]
    fn rendering_equals_the_generic_writer() {
        #[derive(Serialize)]
        struct Whole<'a> {
            graph: GraphOut<'a>,
            index: &'a VectorIndex,
            meta: &'a Metadata,
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        let mut st = sample();
        for i in 0..600 {
            st.index
                .upsert(&format!("v\u{e9}{i}"), [i as f64 * 1e-3, -0.0])
                .unwrap();
        }
        save_state(&p, &st, None, None).unwrap(); // fixes created_at
        let r = render_state(&p, &st, None, None, None).unwrap();
        assert_eq!(r.text.as_bytes(), std::fs::read(&p).unwrap());
        let meta = match pyformat::pyjson::loads(&r.text).unwrap() {
            pyformat::pyjson::PyValue::Dict(d) => d["meta"].to_json().unwrap(),
            _ => unreachable!(),
        };
        let meta = meta.as_object().unwrap().clone();
        let generic = pyformat::pyjson::to_string_with(
            &Whole {
                graph: GraphOut(&st.graph),
                index: &st.index,
                meta: &meta,
            },
            pyformat::pyjson::Style::PRETTY,
        )
        .unwrap();
        let first = r
            .text
            .bytes()
            .zip(generic.bytes())
            .position(|(a, b)| a != b);
        assert!(
            first.is_none() && r.text.len() == generic.len(),
            "first difference at {first:?}: {:?} vs {:?}",
            &r.text[first.unwrap_or(0).saturating_sub(60)
                ..(first.unwrap_or(0) + 60).min(r.text.len())],
            &generic[first.unwrap_or(0).saturating_sub(60)
                ..(first.unwrap_or(0) + 60).min(generic.len())]
        );
        assert!(r.text[r.index_at..].starts_with("\n  \"index\": {"));
        assert!(r.text[r.meta_at..].starts_with("\n  \"meta\": {"));
        // the top-level index text, nested, gives the same file
        let top = index_text(&st.index, 0);
        assert_eq!(
            top,
            pyformat::pyjson::to_string_with(&st.index, pyformat::pyjson::Style::PRETTY).unwrap()
        );
        let r2 = render_state(&p, &st, None, None, Some(&top)).unwrap();
        assert_eq!(r2.text, r.text);
        // empty index and graph
        let empty = State::default();
        let r3 = render_state(&p, &empty, None, None, None).unwrap();
        assert!(r3.text.starts_with(
            "{\n  \"graph\": {\n    \"nodes\": [],\n    \"edges\": []\n  },\n  \"index\": {},"
        ));
    }

    #[test]
    fn meta_merges_with_existing_file_and_resolves_embedder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        std::fs::write(
            &p,
            r#"{"graph": {"nodes": [], "edges": []}, "index": {},
                "meta": {"created_at": "then", "embedder_name": "minilm", "embedder_dim": 2,
                         "keep": true}}"#,
        )
        .unwrap();
        let mut st = sample();
        st.meta.clear();
        st.meta.insert("extra".into(), json!(7));
        // existing embedder is not hash-v1, index vectors are 2-d: dimension 2 checks out
        save_state(&p, &st, None, None).unwrap();
        let m = load_state(&p).unwrap().meta;
        assert_eq!(m["created_at"], json!("then"));
        assert_eq!(m["embedder_name"], json!("minilm"));
        assert_eq!(m["embedder_dim"], json!(2));
        assert_eq!(m["keep"], json!(true));
        assert_eq!(m["extra"], json!(7));
        // explicit arguments win; a wrong dimension is refused and nothing is written
        let before = std::fs::read(&p).unwrap();
        let err = save_state(&p, &st, Some("minilm"), Some(384)).unwrap_err();
        assert!(matches!(
            err,
            Error::Core(crabpath::Error::DimensionMismatch {
                expected: 384,
                got: 2
            })
        ));
        assert_eq!(std::fs::read(&p).unwrap(), before);
        // no check on first save (file absent)
        let q = dir.path().join("new.json");
        save_state(&q, &st, Some("minilm"), Some(384)).unwrap();
        assert_eq!(load_state(&q).unwrap().meta["embedder_dim"], json!(384));
    }

    #[test]
    fn bare_graph_file_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.json");
        std::fs::write(
            &p,
            r#"{"nodes": [{"id": "a", "content": "A"}, {"id": "b", "content": "B"}],
                "edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "a", "weight": 7}]}"#,
        )
        .unwrap();
        let st = load_state(&p).unwrap();
        assert_eq!(st.graph.node_count(), 2);
        let a = st.graph.lookup("a").unwrap();
        let b = st.graph.lookup("b").unwrap();
        assert_eq!(st.graph.weight(a, b), Some(0.5));
        assert_eq!(st.graph.weight(b, a), Some(1.0));
        assert_eq!(st.graph.edge(a, b).unwrap().kind, EdgeKind::Sibling);
        assert!(st.index.is_empty());
        assert!(st.meta.is_empty());
    }

    #[test]
    fn bad_files_are_errors_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.json");
        match load_state(&missing) {
            Err(Error::Io { path, .. }) => assert_eq!(path, missing),
            other => panic!("{other:?}"),
        }
        let cases = [
            "{\"graph\": {\"nodes\": [}",
            "[1, 2]",
            "{\"graph\": null}",
            "{\"index\": [1]}",
            "{\"index\": {\"a\": [1, 2], \"b\": [1]}}",
            "{\"nodes\": [{\"id\": \"a\"}]}",
            "{\"edges\": [{\"source\": \"a\", \"target\": \"b\", \"weight\": \"x\"}]}",
            "",
        ];
        for (i, text) in cases.iter().enumerate() {
            let p = dir.path().join(format!("bad{i}.json"));
            std::fs::write(&p, text).unwrap();
            match load_state(&p) {
                Err(e @ Error::Format { .. }) => {
                    let msg = e.to_string();
                    assert!(msg.starts_with(&p.display().to_string()), "{msg}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let p = dir.path().join("bad0.json");
        let msg = load_state(&p).unwrap_err().to_string();
        assert!(msg.contains("line 1 column"), "{msg}");
        // a non-object meta reads as empty
        let p = dir.path().join("meta.json");
        std::fs::write(&p, r#"{"meta": [1], "index": {"a": [1.5]}}"#).unwrap();
        let st = load_state(&p).unwrap();
        assert!(st.meta.is_empty());
        assert_eq!(st.index.get("a"), Some(&[1.5][..]));
    }

    #[test]
    fn failed_save_keeps_old_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        let mut st = sample();
        save_state(&p, &st, None, None).unwrap();
        let before = std::fs::read(&p).unwrap();
        let (c, a) = (st.graph.lookup("c").unwrap(), st.graph.lookup("a").unwrap());
        st.graph.edge_mut(c, a).unwrap().weight = f64::NAN;
        assert!(matches!(
            save_state(&p, &st, None, None),
            Err(Error::Core(crabpath::Error::NonFinite { .. }))
        ));
        assert_eq!(std::fs::read(&p).unwrap(), before);
        // an existing file that is not JSON is not overwritten either
        let q = dir.path().join("junk.json");
        std::fs::write(&q, "not json").unwrap();
        assert!(matches!(
            save_state(&q, &sample(), None, None),
            Err(Error::Format { .. })
        ));
        assert_eq!(std::fs::read(&q).unwrap(), b"not json");
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["junk.json", "s.json"]);
    }

    #[test]
    fn iso_timestamps_match_python() {
        assert_eq!(iso_utc(0, 0), "1970-01-01T00:00:00+00:00");
        assert_eq!(iso_utc(951_782_400, 5), "2000-02-29T00:00:00.000005+00:00");
        assert_eq!(
            iso_utc(1_772_150_400, 123_456),
            "2026-02-27T00:00:00.123456+00:00"
        );
        assert_eq!(iso_utc(4_107_542_399, 0), "2100-02-28T23:59:59+00:00");
        let now = utc_now_iso();
        assert!(now.ends_with("+00:00") && now.len() >= 25, "{now}");
    }
}
