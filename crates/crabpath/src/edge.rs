//! Signed, weighted edges of the memory graph (paper §2 "The Graph"; reference
//! `crabpath/graph.py::Edge`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::node::Metadata;

/// Descriptive edge kind (reference `crabpath/graph.py::Edge`). No traversal, learning,
/// decay or health computation reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum EdgeKind {
    /// Default and learned edges.
    #[default]
    Sibling,
    /// Edges made or marked negative.
    Inhibitory,
    /// Edges between files (connect, inject).
    CrossFile,
    /// Any other label read from a file.
    Other(Box<str>),
}

impl EdgeKind {
    /// The label as the reference writes it.
    pub fn as_str(&self) -> &str {
        match self {
            EdgeKind::Sibling => "sibling",
            EdgeKind::Inhibitory => "inhibitory",
            EdgeKind::CrossFile => "cross_file",
            EdgeKind::Other(s) => s,
        }
    }

    /// Parses a label; unknown labels are kept verbatim.
    pub fn parse(s: &str) -> Self {
        match s {
            "sibling" => EdgeKind::Sibling,
            "inhibitory" => EdgeKind::Inhibitory,
            "cross_file" => EdgeKind::CrossFile,
            other => EdgeKind::Other(other.into()),
        }
    }
}

impl Serialize for EdgeKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EdgeKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(EdgeKind::parse(&s))
    }
}

/// Edge metadata: a JSON map stored out of line, so that an edge without metadata
/// (almost all of them) costs 8 bytes for it. Same methods as a JSON map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EdgeMeta(Option<Box<Metadata>>);

impl EdgeMeta {
    /// Empty metadata.
    pub fn new() -> Self {
        EdgeMeta(None)
    }

    /// The value of a key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref().and_then(|m| m.get(key))
    }

    /// Whether a key is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Inserts a key (keeps the position of an existing key).
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) -> Option<Value> {
        self.0
            .get_or_insert_with(Default::default)
            .insert(key.into(), value.into())
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |m| m.len())
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> + '_ {
        self.0.iter().flat_map(|m| m.iter())
    }

    /// A copy as a plain JSON map.
    pub fn to_map(&self) -> Metadata {
        self.0.as_deref().cloned().unwrap_or_default()
    }
}

impl From<Metadata> for EdgeMeta {
    fn from(m: Metadata) -> Self {
        if m.is_empty() {
            EdgeMeta(None)
        } else {
            EdgeMeta(Some(Box::new(m)))
        }
    }
}

/// A directed signed edge (reference `crabpath/graph.py::Edge`), 40 bytes. Source and
/// target are the keys under which the graph stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Weight; [`crate::graph::Graph::add_edge`] clamps it to [-1, 1].
    pub weight: f64,
    /// Descriptive kind.
    pub kind: EdgeKind,
    /// Metadata; `relevance` (number) is read by the policy-gradient softmax.
    pub metadata: EdgeMeta,
}

impl Edge {
    /// An edge of kind `sibling` with empty metadata.
    pub fn new(weight: f64) -> Self {
        Edge {
            weight,
            kind: EdgeKind::Sibling,
            metadata: EdgeMeta::new(),
        }
    }

    /// Builder: set the metadata.
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata.into();
        self
    }

    /// Builder: set the kind.
    pub fn with_kind(mut self, kind: EdgeKind) -> Self {
        self.kind = kind;
        self
    }

    /// The numeric `relevance` metadata (PG softmax, reference
    /// `crabpath/learn.py::apply_outcome_pg`), default 0.0.
    pub fn relevance(&self) -> f64 {
        self.metadata
            .get("relevance")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    }
}
