//! Nodes of the memory graph and their interned ids (paper §2 "The Graph"; reference
//! `crabpath/graph.py::Node`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Free-form JSON metadata of nodes and edges (key order preserved).
pub type Metadata = serde_json::Map<String, Value>;

/// Dense interned index of a node id. Ids of edge endpoints that have no node
/// ("dangling" targets, reference `crabpath/graph.py::Graph`) are interned too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// Index into per-symbol arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A document chunk (reference `crabpath/graph.py::Node`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// External id.
    pub id: String,
    /// Text content (its length in code points is what context budgets count).
    pub content: String,
    /// Optional short summary.
    #[serde(default)]
    pub summary: String,
    /// Metadata (`file`, `authority`, `type`, ...).
    #[serde(default)]
    pub metadata: Metadata,
}

impl Node {
    /// A node with empty summary and metadata.
    pub fn new(id: impl Into<String>, content: impl Into<String>) -> Self {
        Node {
            id: id.into(),
            content: content.into(),
            summary: String::new(),
            metadata: Metadata::new(),
        }
    }

    /// Builder: set one metadata key.
    pub fn with_meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.to_string(), value.into());
        self
    }

    /// Number of Unicode code points of the content (what the reference's `len()` counts).
    pub fn content_chars(&self) -> usize {
        self.content.chars().count()
    }

    /// The node's `file` metadata as a string, if present and a string.
    pub fn file(&self) -> Option<&str> {
        self.metadata.get("file").and_then(Value::as_str)
    }
}
