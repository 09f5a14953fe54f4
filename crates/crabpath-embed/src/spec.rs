//! The model's fixed facts (all-MiniLM-L6-v2's name, input length and dimension), in a
//! module of their own that imports nothing, so that the error type, the forward pass and
//! the model loader can all name them without importing each other.

/// Stable embedder name, recorded in state files, results and cache headers.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// Longest input in tokens, special tokens included (sentence-transformers'
/// `max_seq_length` for this model); longer texts are truncated.
pub const MAX_SEQ_LEN: usize = 256;
/// Output dimension of all-MiniLM-L6-v2.
pub const DIM: usize = 384;
