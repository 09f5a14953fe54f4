//! Errors of `bench repo`.
//!
//! Every error is one line naming the file (and the row, counted from 0, for a bad
//! query row). [`RepoError::exit_code`] gives the process status: the reference program
//! (`benchmarks/run_benchmark.py`, commit 134c676) exits with status 1 for all of its
//! input errors, and so does `bench repo` under `--profile paper`; otherwise bad input
//! exits with 2 and internal failures with 1, as everywhere in the workspace.

use std::path::PathBuf;

/// What can go wrong in `bench repo`.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    /// The queries file does not exist (the reference's message, verbatim).
    #[error("queries file missing: {0}")]
    QueriesMissing(String),

    /// The queries file is not a JSON array (the reference's message, verbatim).
    #[error("queries.json must contain a list (read {path}: found {found})")]
    QueriesNotAList {
        /// The queries path as given.
        path: String,
        /// What the top level is.
        found: String,
    },

    /// The queries file is not valid UTF-8 or not valid JSON.
    #[error("{path}: {message}")]
    QueriesUnreadable {
        /// The queries path as given.
        path: String,
        /// Python's message (e.g. `Expecting value: line 1 column 1 (char 0)`).
        message: String,
    },

    /// A query row the reference cannot process either (it stops with a traceback).
    #[error("{path}: row {row}: {message}")]
    BadRow {
        /// The queries path as given.
        path: String,
        /// 0-based row.
        row: usize,
        /// What is wrong and what was expected.
        message: String,
    },

    /// The workspace could not be split (missing directory, unreadable file, ...).
    #[error("splitting the workspace: {0}")]
    Split(#[source] crabpath_brain::Error),

    /// `--expect-tree` did not match the workspace's content.
    #[error(
        "workspace {path}: git tree hash is {actual}, expected {expected}{}; the corpus is \
         the files on disk, so the numbers would not be the expected ones (untracked or \
         edited files, e.g. from running the reference in place, change it; `git status \
         --ignored` lists them)",
        commit.as_deref().map(|c| format!(" (commit {c})")).unwrap_or_default()
    )]
    TreeMismatch {
        /// The workspace.
        path: PathBuf,
        /// Expected tree hash.
        expected: String,
        /// The commit it belongs to, when known.
        commit: Option<String>,
        /// Computed tree hash.
        actual: String,
    },

    /// An invalid flag value or combination.
    #[error("{0}")]
    Usage(String),

    /// The embedder, the index or the core failed.
    #[error("{0}")]
    Internal(String),

    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },

    /// An error of the bench harness (embedder, model, ...).
    #[error(transparent)]
    Bench(#[from] crate::Error),
}

impl RepoError {
    /// The exit status (see the module docs). `paper_exit` = reproduce the reference's
    /// status 1 for input errors.
    pub fn exit_code(&self, paper_exit: bool) -> u8 {
        match self {
            RepoError::QueriesMissing(_)
            | RepoError::QueriesNotAList { .. }
            | RepoError::QueriesUnreadable { .. }
            | RepoError::BadRow { .. }
            | RepoError::Split(_) => {
                if paper_exit {
                    1
                } else {
                    2
                }
            }
            RepoError::TreeMismatch { .. } | RepoError::Usage(_) => 2,
            RepoError::Internal(_) | RepoError::Io { .. } => 1,
            RepoError::Bench(e) => e.exit_code(),
        }
    }
}

/// Result alias of `bench repo`.
pub type Result<T, E = RepoError> = std::result::Result<T, E>;

pub(crate) fn internal(e: impl std::fmt::Display) -> RepoError {
    RepoError::Internal(e.to_string())
}
