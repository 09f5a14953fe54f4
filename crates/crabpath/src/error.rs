//! The one error type of the core library (binaries wrap it with `anyhow`). This module
//! imports nothing from the rest of the crate.

/// Every failure the core can report. No function of this crate panics on bad input
/// (unknown ids, NaN weights, vectors of the wrong dimension); it returns one of these
/// instead.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A node id that the graph does not contain.
    #[error("unknown node id `{0}`")]
    UnknownNode(String),
    /// A weight, score, outcome or vector component that is NaN or infinite.
    #[error("{what} must be a finite number, got {value}")]
    NonFinite {
        /// What the number was (e.g. "edge weight a->b").
        what: String,
        /// The offending value.
        value: f64,
    },
    /// A configuration value out of its domain.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// Vectors of different dimension where one dimension is required.
    #[error("vector dimension mismatch: expected {expected}, got {got}")]
    DimensionMismatch {
        /// Dimension required (from the index or the embedder).
        expected: usize,
        /// Dimension found.
        got: usize,
    },
    /// An operation that needs vectors but none were available (reference
    /// `crabpath/maintain.py::connect_learning_nodes`, `crabpath/inject.py`).
    #[error("missing vector: {0}")]
    MissingVector(String),
    /// An embedder failed (tokenizer, model).
    #[error("embedder `{name}` failed: {message}")]
    Embed {
        /// Embedder name.
        name: String,
        /// Description of the failure.
        message: String,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns `Err(NonFinite)` unless `value` is finite.
pub fn finite(what: impl FnOnce() -> String, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::NonFinite {
            what: what(),
            value,
        })
    }
}
