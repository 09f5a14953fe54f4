//! The crate's error type. Imports nothing from the crate.

/// What can go wrong serving a brain.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A tool argument is missing, of the wrong type or out of range (a tool error for
    /// the calling model).
    #[error("{0}")]
    Argument(String),
    /// The brain refused or failed the operation.
    #[error(transparent)]
    Brain(#[from] crabpath_brain::Error),
    /// The transport failed (binding the address, reading stdin, ...).
    #[error("{0}")]
    Transport(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
