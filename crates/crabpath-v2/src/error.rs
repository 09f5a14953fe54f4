//! Typed errors of the v2 engine, one variant per subsystem.

use std::path::PathBuf;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A graph file that is not valid JSON or not of the graph shape
    /// (`{"nodes": [...], "edges": [...]}`); `line` and `column` locate the problem.
    #[error("{path}:{line}:{column}: {message}")]
    Graph {
        /// The graph file.
        path: PathBuf,
        /// 1-based line of the problem (0 when unknown).
        line: usize,
        /// 1-based column of the problem (0 when unknown).
        column: usize,
        /// What was wrong and what was expected.
        message: String,
    },
    /// A scenario (JSONL) line that is not a valid scenario object.
    #[error("{path}:{line}: {message}")]
    Scenario {
        /// The scenario file.
        path: PathBuf,
        /// 1-based line number in the file.
        line: usize,
        /// What was wrong and what was expected.
        message: String,
    },
    /// A data file whose SHA-256 differs from the recorded one.
    #[error("{path}: SHA-256 mismatch: expected {expected}, got {got} (the file is not the published data; fetch it again)")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// Recorded checksum.
        expected: String,
        /// Checksum of the file's bytes.
        got: String,
    },
    /// A data file that is not where the data directory says it should be.
    #[error("{path}: not found ({hint})")]
    MissingData {
        /// Where the file was looked for.
        path: PathBuf,
        /// How to obtain it.
        hint: String,
    },
    /// A configuration or argument out of its domain (e.g. zero seeds, NaN weight).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The atomic writer (`pyformat::io::write_atomic`) failed.
    #[error(transparent)]
    Write(#[from] pyformat::Error),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wraps an I/O error with the path it concerned.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
