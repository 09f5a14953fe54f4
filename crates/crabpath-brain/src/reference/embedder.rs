//! The embedder a brain records (state `meta.embedder_name` / `meta.embedder_dim`,
//! reference `crabpath/cli.py::_state_embedder_meta`, commit 134c676), and the check
//! that a brain is used with the embedder it was built with.

use serde_json::Value;

use crabpath::embed::HashEmbedder;
use crabpath::graph::Metadata;

use crate::error::{Error, Result};

/// The embedder a brain was built with (state `meta.embedder_name` /
/// `meta.embedder_dim`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmbedderInfo {
    /// Name, e.g. `hash-v1`.
    pub name: String,
    /// Vector dimension.
    pub dim: usize,
}

impl EmbedderInfo {
    /// `hash-v1`, 1024 (the reference's default embedder).
    pub fn hash_v1() -> Self {
        EmbedderInfo {
            name: HashEmbedder::NAME.to_string(),
            dim: HashEmbedder::DEFAULT_DIM,
        }
    }

    /// The embedder recorded in a state's metadata (reference
    /// `cli.py::_state_embedder_meta`): `embedder_name` if it is a string, else a string
    /// `embedder`; `embedder_dim` if it is an integer. `None` when either is missing.
    pub fn from_meta(meta: &Metadata) -> Option<Self> {
        let name = meta
            .get("embedder_name")
            .and_then(Value::as_str)
            .or_else(|| meta.get("embedder").and_then(Value::as_str))?;
        let dim = meta.get("embedder_dim").and_then(Value::as_u64)?;
        Some(EmbedderInfo {
            name: name.to_string(),
            dim: usize::try_from(dim).ok()?,
        })
    }

    /// The metadata `init` records: `{"embedder_name": name, "embedder_dim": dim}`.
    pub fn to_meta(&self) -> Metadata {
        let mut m = Metadata::new();
        m.insert("embedder_name".into(), Value::from(self.name.as_str()));
        m.insert("embedder_dim".into(), Value::from(self.dim));
        m
    }

    /// Checks a vector this embedder returned for the node `id` before it is stored
    /// (`init`, `reembed`): of its dimension, every component finite.
    pub fn check_vector(&self, id: &str, v: &[f64]) -> Result<()> {
        if v.len() != self.dim {
            return Err(crabpath::Error::DimensionMismatch {
                expected: self.dim,
                got: v.len(),
            }
            .into());
        }
        if let Some(x) = v.iter().find(|x| !x.is_finite()) {
            return Err(crabpath::Error::NonFinite {
                what: format!("a component of the vector of `{id}`"),
                value: *x,
            }
            .into());
        }
        Ok(())
    }

    /// Checks that a brain (`file`) built with `self` can be used with the embedder
    /// `using`: same name and dimension. `Error::EmbedderMismatch` otherwise (e.g. a hash-v1
    /// brain queried with MiniLM vectors would silently score garbage).
    pub fn check_compatible(&self, using: &EmbedderInfo, file: &std::path::Path) -> Result<()> {
        if self == using {
            Ok(())
        } else {
            Err(Error::EmbedderMismatch {
                file: file.to_path_buf(),
                state: self.to_string(),
                requested: using.to_string(),
            })
        }
    }
}

impl std::fmt::Display for EmbedderInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (dim={})", self.name, self.dim)
    }
}
