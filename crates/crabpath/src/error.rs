//! Typed errors of the core library. Binaries wrap them with `anyhow`.

use std::path::PathBuf;

/// Every failure the core can report. No function of this crate panics on bad input
/// (unknown ids, NaN weights, corrupt state files); it returns one of these instead.
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
    /// A state or graph file that is not valid JSON or not of the expected shape.
    #[error("{path}: {message}")]
    Format {
        /// File that was being read.
        path: PathBuf,
        /// What was wrong, including the JSON location where known.
        message: String,
    },
    /// An I/O failure, with the path it concerned.
    #[error("{path}: {source}")]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A state built with one embedder opened with another ([`crate::brain::EmbedderInfo`]).
    #[error("the state was built with {state}, not {requested}: re-run init with this embedder, or use the state's")]
    EmbedderMismatch {
        /// The embedder recorded in the state.
        state: crate::brain::EmbedderInfo,
        /// The embedder asked for.
        requested: crate::brain::EmbedderInfo,
    },
    /// Walking, reading or chunking a workspace ([`crate::workspace`], [`crate::bootstrap`]).
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    /// Reading session logs ([`crate::session`]).
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    /// Reading or appending to a journal ([`crate::journal`]).
    #[error(transparent)]
    Journal(#[from] crate::journal::JournalError),
    /// A value that cannot be written as JSON (e.g. a map key that is not a string or
    /// number).
    #[error("cannot serialize: {0}")]
    Serialize(String),
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
