//! The one error type of the application crate. Every message names the file (and,
//! where there is one, the line or row) and says what is wrong, on one line. This
//! module imports nothing from the rest of the crate.
//!
//! Two variants reproduce the reference program's own failures for the `paper`
//! profile, printed verbatim by the command line: [`Error::Reference`] (its
//! `SystemExit(...)` messages) and [`Error::Exception`] (the last line of a traceback it
//! would print, `<kind>: <message>`; the daemon answers the message alone).

use std::path::PathBuf;

/// Every failure of the application.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A message the reference prints before exiting with status 1 (e.g. `--top must
    /// be >= 1`, `node not found: x`), or the last line of a traceback it would print
    /// (`NameError: name 'apply_connections' is not defined`).
    #[error("{0}")]
    Reference(String),
    /// An uncaught exception of the reference, reproduced: Python exception type (e.g.
    /// `ValueError`) and `str(exception)`.
    #[error("{kind}: {message}")]
    Exception {
        /// Python exception type, e.g. `NameError`, `ValueError`.
        kind: &'static str,
        /// `str(exception)`.
        message: String,
    },
    /// A failure of the algorithm (unknown node, NaN weight, dimension mismatch, …).
    #[error(transparent)]
    Core(#[from] crabpath::Error),
    /// An I/O failure, with the path it concerned.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A file that is not valid JSON or not of the expected shape (state, graph, index,
    /// texts files).
    #[error("{}: {message}", path.display())]
    Format {
        /// File that was being read.
        path: PathBuf,
        /// What was wrong, including the JSON location where known.
        message: String,
    },
    /// A value that cannot be written as JSON.
    #[error("cannot serialize: {0}")]
    Serialize(String),
    /// The workspace path does not exist (the reference: `FileNotFoundError:
    /// workspace not found: <path>`).
    #[error("workspace not found: {}", .0.display())]
    WorkspaceNotFound(PathBuf),
    /// The workspace is not a directory (corrected profile only; the reference gives
    /// an empty brain).
    #[error("workspace is not a directory: {}", .0.display())]
    NotADirectory(PathBuf),
    /// A file is not valid UTF-8 (the reference: `UnicodeDecodeError`). `offset` is the
    /// byte offset in the file.
    #[error("{}: 'utf-8' codec can't decode byte 0x{byte:02x} in position {offset}: {reason}", path.display())]
    InvalidUtf8 {
        /// The file.
        path: PathBuf,
        /// Offset of the first byte that cannot be decoded.
        offset: usize,
        /// That byte.
        byte: u8,
        /// Python's reason: `invalid start byte`, `invalid continuation byte` or
        /// `unexpected end of data`.
        reason: &'static str,
    },
    /// A candidate file whose path is not valid UTF-8 (paper profile; the reference's
    /// node id would not be encodable).
    #[error("{}: path is not valid UTF-8", .0.display())]
    NonUtf8Path(PathBuf),
    /// A JSON file the reference cannot chunk either (its parser raises an error other
    /// than a decode error: an integer of more than 4300 digits, nesting deeper than
    /// the recursion limit) or that holds a string Rust cannot represent (a lone
    /// surrogate escape; the reference fails on it later, when embedding).
    #[error("{}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What went wrong, with Python's position.
        message: String,
    },
    /// A sessions argument that is neither a file nor a directory (the reference:
    /// `invalid sessions path: <path>`, exit 1).
    #[error("invalid sessions path: {}", .0.display())]
    SessionsPath(PathBuf),
    /// A line of a session log or a journal that cannot be processed (invalid UTF-8,
    /// not a JSON object, an unhashable `role`, an integer too long or nesting too deep
    /// for Python's parser, a numeric timestamp too large for a float).
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A brain built with one embedder opened with another.
    #[error("{}: the brain was built with {state}, not {requested}: re-run init with this embedder, or use the brain's", file.display())]
    EmbedderMismatch {
        /// The brain's file.
        file: PathBuf,
        /// The embedder recorded in the brain (`name (dim=N)`).
        state: String,
        /// The embedder asked for (`name (dim=N)`).
        requested: String,
    },
    /// A request that cannot be carried out as asked (an invalid or unknown snapshot
    /// name, an option out of its domain), with what to do instead.
    #[error("{0}")]
    Invalid(String),
    /// A brain's database that cannot be used: not a database, not a brain, truncated,
    /// made by a newer program, or failing a check. Nothing was written.
    #[error("{}: {message}", path.display())]
    Brain {
        /// The database file.
        path: PathBuf,
        /// What is wrong, and what to do about it.
        message: String,
    },
    /// SQLite reported an error while reading or writing a brain.
    #[error("{}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A path a writer will not write: not a regular file, or inside a brain
    /// directory (`pyformat::io::check_output`, `write_atomic`).
    #[error("{label}: {reason}")]
    Refused {
        /// The option and the path, or the path.
        label: String,
        /// The path refused.
        path: PathBuf,
        /// What is there.
        reason: pyformat::error::Refusal,
    },
    /// A sync refused before anything was written: the folder is not the one the
    /// brain was built from, or the sync would remove more than half of the brain's
    /// nodes. The message says which flag allows it.
    #[error("{0}")]
    SyncRefused(String),
}

impl From<pyformat::Error> for Error {
    fn from(e: pyformat::Error) -> Self {
        match e {
            pyformat::Error::Io { path, source } => Error::Io { path, source },
            pyformat::Error::Serialize(m) => Error::Serialize(m),
            pyformat::Error::Refused {
                label,
                path,
                reason,
            } => Error::Refused {
                label,
                path,
                reason,
            },
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Wraps an I/O error with the path it concerned.
pub fn io_error(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
    Error::Io {
        path: path.into(),
        source,
    }
}

/// A file that is not of the expected shape.
pub fn format_error(path: impl Into<PathBuf>, message: impl std::fmt::Display) -> Error {
    Error::Format {
        path: path.into(),
        message: message.to_string(),
    }
}
