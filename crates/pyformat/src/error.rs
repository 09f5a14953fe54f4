//! The one error type of this crate. It imports nothing from the rest of the crate.

use std::path::PathBuf;

/// A failure to write a value or a file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value that cannot be written as JSON (e.g. a map key that is not a string or
    /// number), as Python's `json.dumps` would refuse it too.
    #[error("cannot serialize: {0}")]
    Serialize(String),
    /// An I/O failure, with the path it concerned.
    #[error("{path}: {source}")]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
