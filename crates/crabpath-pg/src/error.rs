//! The one error type of crate `crabpath-pg`. Every message says which engine, which
//! brain (database file or PostgreSQL schema) and, for a row that cannot be copied, which
//! table, row and column.

use std::path::PathBuf;

/// Every failure of moving a brain between SQLite and PostgreSQL.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The SQLite brain could not be opened, read or written (the store's own error,
    /// naming the file).
    #[error(transparent)]
    Brain(#[from] crabpath_brain::Error),
    /// A SQLite statement failed on the brain database `path`.
    #[error("{}: {source}", path.display())]
    Sqlite {
        /// The brain database.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// The PostgreSQL server refused or failed (connection, statement, transaction).
    #[error("PostgreSQL ({target}): {source}")]
    Postgres {
        /// The server and schema concerned (`schema brain_notes`, or the connection).
        target: String,
        /// What the client or the server said.
        #[source]
        source: postgres::Error,
    },
    /// A value of the brain that the other engine's column cannot hold as it is (a
    /// SQLite value of another storage class than the column's).
    #[error("{table}, row {row}, column {column}: {message}")]
    Value {
        /// The table.
        table: &'static str,
        /// The row's key (its primary key, or its position).
        row: String,
        /// The column.
        column: &'static str,
        /// What was expected and what was found.
        message: String,
    },
    /// The request itself is wrong: a destination that exists, a brain name that is not a
    /// valid schema name, a schema of another version, a store address of no known kind.
    #[error("{0}")]
    Invalid(String),
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
