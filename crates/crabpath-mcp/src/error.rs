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

/// A JSON-RPC 2.0 error answer, `{"jsonrpc": "2.0", "id": id, "error": {"code": code,
/// "message": message}}`: the one shape of the HTTP front's refusals
/// ([`crate::auth`]: 401, 403, 404, 408, 413) and of stdio's refused lines
/// ([`crate::stdio::Refusal`]).
pub fn rpc_error(id: &serde_json::Value, code: i64, message: &str) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
