//! Error type of the `bench` library.
//!
//! Every error renders as one line. Data errors name the file, the row and the field:
//!
//! ```text
//! datasets/fixtures/hotpotqa_malformed.json: row 1: field context[0][1][2]: expected string, found number 7
//! ```
//!
//! **Rows are counted from 0** (the position of the row in the top-level JSON array), the same
//! convention as the `original_index` column of the staged sidecar `.index.tsv` files.
//!
//! [`Error::exit_code`] maps errors to the exit status of the `bench` binary: `2` for anything
//! wrong with the data (missing, malformed, checksum mismatch), for a missing embedding model
//! and for bad usage; `1` for everything that is not the user's to fix: network, local I/O
//! while writing, the embedder itself, an error of the core library ([`Error::Core`]) and a
//! broken internal invariant ([`Error::Internal`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Result alias of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the data layer and of `bench fetch`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A row does not have the shape of the official schema.
    #[error("{}: row {row}: field {field}: expected {expected}, found {found}", file.display())]
    Malformed {
        /// File being read.
        file: PathBuf,
        /// 0-based position of the row in the top-level array.
        row: usize,
        /// Path of the offending field inside the row, e.g. `context[3][1][0]`.
        field: String,
        /// What the schema requires there.
        expected: String,
        /// Short description of what is there instead.
        found: String,
    },

    /// The bytes are not valid JSON (or the gzip stream is corrupt).
    #[error("{}: {}invalid JSON at line {line}, column {column}: {message}", file.display(), row_prefix(*row))]
    Json {
        /// File being read.
        file: PathBuf,
        /// 0-based row being read when the error occurred, if inside the array.
        row: Option<usize>,
        /// 1-based line of the error (serde_json's convention).
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// serde_json's description, without its position suffix.
        message: String,
    },

    /// The top level of the file is not a JSON array of rows.
    #[error("{}: expected a JSON array of rows at the top level, found {found}", file.display())]
    NotAnArray {
        /// File being read.
        file: PathBuf,
        /// What the top level is.
        found: String,
    },

    /// No dataset file was found at any of the candidate locations.
    #[error("{what} not found; tried: {}. {hint}", join_paths(tried))]
    NotFound {
        /// Human name of the file looked for.
        what: String,
        /// Every path that was tried, in order.
        tried: Vec<PathBuf>,
        /// How to obtain the file (e.g. `run \`bench fetch --dataset hotpotqa\``).
        hint: String,
    },

    /// A file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A downloaded (or already present) file does not have the expected SHA-256.
    #[error("{}: SHA-256 mismatch for {what}: expected {expected}, got {actual}{}", origin, removed_note(*removed))]
    ChecksumMismatch {
        /// URL or path the bytes came from.
        origin: String,
        /// What was checked (`whole file`, or the prefix check of HotPotQA).
        what: String,
        /// Expected hex digest.
        expected: String,
        /// Computed hex digest.
        actual: String,
        /// Whether the downloaded bytes were deleted.
        removed: bool,
    },

    /// The HTTP transfer failed (connection, status code, truncated body).
    #[error("download of {url} failed: {message}")]
    Download {
        /// URL requested.
        url: String,
        /// Description of the failure.
        message: String,
    },

    /// Invalid combination of options (detected by the library, not by clap).
    #[error("{0}")]
    Usage(String),

    /// The all-MiniLM-L6-v2 model directory lacks a file `--embedder minilm` needs; the
    /// message names the file and the command that fetches the model.
    #[error("{0}")]
    ModelMissing(String),

    /// Loading or running the embedder, fetching the model, or reading or writing the
    /// embedding cache failed.
    #[error("{0}")]
    Embed(String),

    /// The core library (`crabpath`) refused an operation of a run (traversal, learning,
    /// graph construction).
    #[error("{context}: {source}")]
    Core {
        /// What the run was doing.
        context: String,
        /// The core's error.
        #[source]
        source: crabpath::Error,
    },

    /// The product's brain (`crabpath_brain`) refused an operation of the LoCoMo product
    /// path (building a conversation's brain, asking it a question).
    #[error("{context}: {source}")]
    Brain {
        /// What the run was doing.
        context: String,
        /// The brain's error.
        #[source]
        source: crabpath_brain::Error,
    },

    /// An invariant of this program does not hold (a bug, not a problem of the input).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// Exit status of the `bench` binary for this error: 2 for data errors (missing,
    /// malformed or corrupt data, checksum mismatch, missing model, bad option), 1 for
    /// network and other I/O failures, core and internal errors.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Malformed { .. }
            | Error::Json { .. }
            | Error::NotAnArray { .. }
            | Error::NotFound { .. }
            | Error::ChecksumMismatch { .. }
            | Error::Usage(_)
            | Error::ModelMissing(_) => 2,
            Error::Io { .. }
            | Error::Download { .. }
            | Error::Embed(_)
            | Error::Core { .. }
            | Error::Brain { .. }
            | Error::Internal(_) => 1,
        }
    }

    /// `true` for the errors that [`Error::exit_code`] maps to 2.
    pub fn is_data_error(&self) -> bool {
        self.exit_code() == 2
    }

    /// A core error, with what the run was doing.
    pub(crate) fn core(context: impl Into<String>, source: crabpath::Error) -> Self {
        Error::Core {
            context: context.into(),
            source,
        }
    }

    /// A brain error, with what the run was doing.
    pub(crate) fn brain(context: impl Into<String>, source: crabpath_brain::Error) -> Self {
        Error::Brain {
            context: context.into(),
            source,
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

fn row_prefix(row: Option<usize>) -> String {
    match row {
        Some(r) => format!("row {r}: "),
        None => String::new(),
    }
}

fn removed_note(removed: bool) -> &'static str {
    if removed {
        " (downloaded bytes deleted)"
    } else {
        ""
    }
}

fn join_paths(paths: &[PathBuf]) -> String {
    let mut s = String::new();
    for (i, p) in paths.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{}", p.display());
    }
    s
}

/// One-line description of a JSON value for error messages (`string "abc"`, `number 7`,
/// `array of 3`, ...). Long strings are cut at 40 characters.
pub(crate) fn describe(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let cut: String = s.chars().take(40).collect();
            if cut.len() < s.len() {
                format!("string {:?}...", cut)
            } else {
                format!("string {:?}", s)
            }
        }
        Value::Array(a) => format!("array of {}", a.len()),
        Value::Object(o) => format!("object with {} keys", o.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_and_internal_errors_exit_1_data_and_usage_errors_exit_2() {
        let core = Error::core(
            "traversing query 3",
            crabpath::Error::UnknownNode("n".into()),
        );
        assert_eq!(core.exit_code(), 1);
        assert_eq!(core.to_string(), "traversing query 3: unknown node id `n`");
        assert_eq!(Error::Internal("x".into()).exit_code(), 1);
        assert_eq!(Error::Usage("x".into()).exit_code(), 2);
        assert!(Error::ModelMissing("x".into()).is_data_error());
        assert!(!Error::Embed("x".into()).is_data_error());
    }
}
