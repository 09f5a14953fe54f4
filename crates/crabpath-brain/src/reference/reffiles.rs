//! The reference's brain files besides `state.json` ([`crate::reference::statefile`]): `graph.json`,
//! `index.json`, `texts.json`, written byte-identical to the reference CLI (reference
//! `crabpath/cli.py::cmd_init`, `_write_graph`, `_load_graph`, `_load_index`, commit
//! 134c676), and the embedder a state records.
//!
//! All files are Python `json.dumps(..., indent=2)` ([`pyformat::pyjson::Style::PRETTY`]:
//! ASCII escapes, Python float spelling, no trailing newline) and are written
//! atomically ([`pyformat::io::write_atomic`]).
//!
//! | file | content | writer |
//! |---|---|---|
//! | `graph.json` after `init` | `{"graph": {"nodes", "edges"}, "meta": {"embedder_name", "embedder_dim"}}` | [`GraphShape::WithMeta`] |
//! | `--graph` file after `learn` | `{"graph": {"nodes", "edges"}}` | [`GraphShape::Wrapped`] |
//! | `--graph` file after `merge`/`connect`/`replay` | `{"nodes", "edges"}` | [`GraphShape::Bare`] |
//! | `index.json` | `{id: [f64 × dim]}` in index order | [`index_json`] |
//! | `texts.json` | `{id: chunk}` in node order | [`texts_json`] |
//!
//! [`write_init`] writes the four files of `crabpath init` in the reference's order.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::error::io_error;
use crate::error::{Error, Result};
pub use crate::reference::embedder::EmbedderInfo;
use crate::reference::statefile::{render_state, GraphOut};
use crabpath::graph::{Graph, GraphFile, Metadata};
use crabpath::index::VectorIndex;
use crabpath::state::State;
use pyformat::io::write_atomic;
use pyformat::pyjson::{self, Style};

/// The three shapes in which the reference writes a graph file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GraphShape<'a> {
    /// `{"graph": {...}, "meta": meta}` (`init`'s `graph.json`).
    WithMeta(&'a Metadata),
    /// `{"graph": {...}}` (`learn --graph`; the meta is dropped).
    Wrapped,
    /// `{"nodes": [...], "edges": [...]}` (`merge`, `connect`, `replay` with `--graph`).
    Bare,
}

struct GraphDoc<'a> {
    graph: &'a Graph,
    shape: GraphShape<'a>,
}

impl Serialize for GraphDoc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.shape {
            GraphShape::Bare => GraphOut(self.graph).serialize(s),
            GraphShape::Wrapped => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("graph", &GraphOut(self.graph))?;
                m.end()
            }
            GraphShape::WithMeta(meta) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("graph", &GraphOut(self.graph))?;
                m.serialize_entry("meta", meta)?;
                m.end()
            }
        }
    }
}

/// The text of a graph file (nodes in insertion order with keys id, content, summary,
/// metadata; edges bucket by bucket with keys source, target, weight, kind, metadata).
///
/// Cost: linear in the graph size.
pub fn graph_json(graph: &Graph, shape: GraphShape<'_>) -> Result<String> {
    Ok(pyjson::to_string_with(
        &GraphDoc { graph, shape },
        Style::PRETTY,
    )?)
}

/// Writes [`graph_json`] to `path` atomically. Unlike the reference (whose `learn
/// --graph <dir>` crashes), an existing directory means `<dir>/graph.json`; missing
/// parent directories are created. Returns the path written.
pub fn write_graph(path: &Path, graph: &Graph, shape: GraphShape<'_>) -> Result<PathBuf> {
    write_graph_then(path, graph, shape, || Ok(()))
}

/// [`write_graph`], with `before` run once the new file is written beside the old one
/// and before it replaces it ([`pyformat::io::stage_atomic`]): an error of `before`
/// (a journal entry that found no room) leaves the graph file as it was.
pub fn write_graph_then(
    path: &Path,
    graph: &Graph,
    shape: GraphShape<'_>,
    before: impl FnOnce() -> Result<()>,
) -> Result<PathBuf> {
    let dest = if path.is_dir() {
        path.join("graph.json")
    } else {
        path.to_path_buf()
    };
    create_parent(&dest)?;
    let staged = pyformat::io::stage_atomic(&dest, graph_json(graph, shape)?.as_bytes())?;
    before()?;
    staged.commit()?;
    Ok(dest)
}

fn create_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => {
            std::fs::create_dir_all(p).map_err(|e| io_error(p, e))
        }
        _ => Ok(()),
    }
}

/// `index.json`: `json.dumps({id: vector}, indent=2)` in index order.
pub fn index_json(index: &VectorIndex) -> Result<String> {
    Ok(pyjson::to_string_with(index, Style::PRETTY)?)
}

struct TextsDoc<'a, I>(
    std::cell::RefCell<Option<I>>,
    std::marker::PhantomData<&'a ()>,
);

impl<'a, I: Iterator<Item = (&'a str, &'a str)>> Serialize for TextsDoc<'a, I> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(it) = self.0.borrow_mut().take() {
            for (k, v) in it {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// `texts.json`: `json.dumps({id: chunk}, indent=2)` in the given order (node order
/// for `init`).
pub fn texts_json<'a>(texts: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<String> {
    let doc = TextsDoc(
        std::cell::RefCell::new(Some(texts.into_iter())),
        std::marker::PhantomData,
    );
    Ok(pyjson::to_string_with(&doc, Style::PRETTY)?)
}

/// Paths of the files [`write_init`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitFiles {
    /// `<dir>/graph.json`.
    pub graph: PathBuf,
    /// `<dir>/state.json`.
    pub state: PathBuf,
    /// `<dir>/index.json`.
    pub index: PathBuf,
    /// `<dir>/texts.json`.
    pub texts: PathBuf,
}

/// Writes the outputs of `crabpath init` into `dir` (created with its parents), in the
/// reference's order: `graph.json` (with the embedder as meta), `state.json`
/// ([`crate::reference::statefile::save_state`]'s text, merging an existing state's meta, `created_at`
/// kept; with its binary index sidecar, [`crate::reference::sidecar`]),
/// `index.json`, `texts.json` (the node contents in node order). Every vector of
/// `index` must come from `embedder`.
///
/// The reference's `--output x.json` rule (use the parent directory when the path ends
/// in `.json` and is not a directory) is the caller's: pass the directory.
///
/// Cost: linear in graph plus index size; four atomic writes.
pub fn write_init(
    dir: &Path,
    graph: &Graph,
    index: &VectorIndex,
    embedder: &EmbedderInfo,
) -> Result<InitFiles> {
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    if let Some(d) = index.dim() {
        if d != embedder.dim {
            return Err(crabpath::Error::DimensionMismatch {
                expected: embedder.dim,
                got: d,
            }
            .into());
        }
    }
    let meta = embedder.to_meta();
    let files = InitFiles {
        graph: dir.join("graph.json"),
        state: dir.join("state.json"),
        index: dir.join("index.json"),
        texts: dir.join("texts.json"),
    };
    write_atomic(
        &files.graph,
        graph_json(graph, GraphShape::WithMeta(&meta))?.as_bytes(),
    )?;
    let state = State {
        graph: graph.clone(),
        index: index.clone(),
        meta: meta.clone(),
    };
    // the index is formatted once, for index.json and (nested) for state.json
    let index_text = crate::reference::statefile::index_text(index, 0);
    let rendered = render_state(&files.state, &state, None, None, Some(&index_text))?;
    write_atomic(&files.state, rendered.text.as_bytes())?;
    let _ = crate::reference::sidecar::write_rendered(&files.state, &rendered, index);
    write_atomic(&files.index, index_text.as_bytes())?;
    let texts = graph
        .nodes()
        .map(|(_, n)| (n.id.as_str(), n.content.as_str()));
    write_atomic(&files.texts, texts_json(texts)?.as_bytes())?;
    Ok(files)
}

fn format_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// A graph file as the reference's `--graph` option reads it (`cli.py::_load_graph`):
/// a directory means `<dir>/graph.json`; the graph is `payload["graph"]` if that key
/// exists, else the payload; the `meta` object is returned when present. Nodes in file
/// order, edges re-added in file order (weights clamped, defaults 0.5 / `sibling`).
///
/// Errors: `Error::Io` (missing file: the reference says `missing graph file: <arg>`),
/// `Error::Format` (invalid JSON with line and column, wrong shapes).
pub fn read_graph(path: &Path) -> Result<(Graph, Option<Metadata>)> {
    let file = if path.is_dir() {
        path.join("graph.json")
    } else {
        path.to_path_buf()
    };
    let bytes = std::fs::read(&file).map_err(|e| io_error(&file, e))?;
    let mut payload: serde_json::Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|e| format_error(&file, e))?;
    let meta = match payload.get("meta") {
        Some(Value::Object(m)) => Some(m.clone()),
        _ => None,
    };
    let graph_value = match payload.remove("graph") {
        Some(g) => g,
        None => Value::Object(payload),
    };
    let gf: GraphFile = serde_json::from_value(graph_value).map_err(|e| format_error(&file, e))?;
    let graph = Graph::from_file(gf).map_err(|e| format_error(&file, e))?;
    Ok((graph, meta))
}

/// An `index.json` / `--index` file (`cli.py::_load_index`): an object of arrays of
/// numbers, in file order. Errors name the file: not an object (`index payload must be
/// a JSON object`), a value that is not an array of numbers, vectors of different
/// dimensions.
pub fn read_index(path: &Path) -> Result<VectorIndex> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| format_error(path, e))?;
    if !value.is_object() {
        return Err(format_error(path, "index payload must be a JSON object"));
    }
    serde_json::from_value(value).map_err(|e| format_error(path, e))
}

/// A `texts.json` file: an object id → string, in file order.
pub fn read_texts(path: &Path) -> Result<IndexMap<String, String>> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| format_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath::graph::{Edge, Node};

    #[test]
    fn graph_shapes_and_round_trip() {
        let mut g = Graph::new();
        g.add_node(Node::new("a", "Ä\n1e-05").with_meta("file", "x.md"));
        g.add_node(Node::new("b", "B"));
        g.add_edge_by_id("a", "b", Edge::new(0.00001)).unwrap();
        let meta = EmbedderInfo::hash_v1().to_meta();
        let with_meta = graph_json(&g, GraphShape::WithMeta(&meta)).unwrap();
        assert!(with_meta.starts_with("{\n  \"graph\": {\n    \"nodes\": [\n      {\n        \"id\": \"a\",\n        \"content\": \"\\u00c4\\n1e-05\","));
        assert!(with_meta.contains("\"weight\": 1e-05,"));
        assert!(with_meta.ends_with(
            "\"meta\": {\n    \"embedder_name\": \"hash-v1\",\n    \"embedder_dim\": 1024\n  }\n}"
        ));
        let bare = graph_json(&g, GraphShape::Bare).unwrap();
        assert!(bare.starts_with("{\n  \"nodes\": ["));
        let wrapped = graph_json(&g, GraphShape::Wrapped).unwrap();
        assert!(
            wrapped.starts_with("{\n  \"graph\": {")
                && !wrapped.contains("meta\": {\n    \"embedder")
        );
        let dir = tempfile::tempdir().unwrap();
        for (name, shape) in [
            ("m.json", GraphShape::WithMeta(&meta)),
            ("b.json", GraphShape::Bare),
            ("w.json", GraphShape::Wrapped),
        ] {
            let p = write_graph(&dir.path().join("sub").join(name), &g, shape).unwrap();
            let (back, m) = read_graph(&p).unwrap();
            assert_eq!(back.to_file(), g.to_file());
            assert_eq!(m.is_some(), matches!(shape, GraphShape::WithMeta(_)));
        }
        // a directory means its graph.json
        let p = write_graph(dir.path(), &g, GraphShape::Bare).unwrap();
        assert_eq!(p, dir.path().join("graph.json"));
        assert!(read_graph(dir.path()).is_ok());
    }

    #[test]
    fn embedder_checks() {
        let h = EmbedderInfo::hash_v1();
        let m = EmbedderInfo {
            name: "minilm".into(),
            dim: 384,
        };
        assert!(h.check_compatible(&h, Path::new("b")).is_ok());
        let e = h.check_compatible(&m, Path::new("b")).unwrap_err();
        assert!(e.to_string().contains("hash-v1 (dim=1024)"), "{e}");
        assert_eq!(EmbedderInfo::from_meta(&h.to_meta()), Some(h));
        let mut legacy = Metadata::new();
        legacy.insert("embedder".into(), Value::from("x"));
        legacy.insert("embedder_dim".into(), Value::from(3));
        assert_eq!(EmbedderInfo::from_meta(&legacy).unwrap().name, "x");
        legacy.insert("embedder_dim".into(), Value::from(3.0));
        assert_eq!(EmbedderInfo::from_meta(&legacy), None);
    }

    #[test]
    fn index_and_texts_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.json");
        std::fs::write(&p, "[1]").unwrap();
        assert!(read_index(&p)
            .unwrap_err()
            .to_string()
            .contains("must be a JSON object"));
        std::fs::write(&p, "{\"a\": [1, \"x\"]}").unwrap();
        assert!(read_index(&p)
            .unwrap_err()
            .to_string()
            .contains("index.json"));
        std::fs::write(&p, "{\"a\": [1, 2.5]}").unwrap();
        assert_eq!(read_index(&p).unwrap().get("a"), Some(&[1.0, 2.5][..]));
        let t = dir.path().join("texts.json");
        std::fs::write(&t, texts_json([("b", "é"), ("a", "x")]).unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&t).unwrap(),
            "{\n  \"b\": \"\\u00e9\",\n  \"a\": \"x\"\n}"
        );
        let back = read_texts(&t).unwrap();
        assert_eq!(back.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(texts_json(std::iter::empty()).unwrap(), "{}");
    }
}
