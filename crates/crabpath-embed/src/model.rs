//! The sentence embedders (all-MiniLM-L6-v2, all-mpnet-base-v2; see [`crate::spec`]):
//! tokenisation, BERT / MPNet forward pass, mean pooling and L2 normalisation.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use crate::error::{EmbedError, Result};
use crate::fast::{Dims, FastBert};

pub use crate::spec::{ModelSpec, DIM, MAX_SEQ_LEN, MINILM, MODEL_NAME, MPNET};
/// Default number of texts per forward pass.
pub const DEFAULT_BATCH_SIZE: usize = 64;
/// Most tokens in one forward pass of the fast backend.
pub const MAX_BATCH_TOKENS: usize = 8192;

/// Files that must be present in a model directory ([`crate::spec::REQUIRED_FILES`]).
pub use crate::spec::REQUIRED_FILES;

/// Environment variable naming all-MiniLM-L6-v2's directory.
pub const MODEL_DIR_ENV: &str = MINILM.dir_env;
/// all-MiniLM-L6-v2's directory relative to the workspace root when nothing else is given.
pub const DEFAULT_MODEL_SUBDIR: &str = MINILM.default_subdir;

/// Runtime options of [`SentenceEmbedder`].
#[derive(Debug, Clone)]
pub struct EmbedderOptions {
    /// Texts per forward pass (after sorting by length). At least 1.
    pub batch_size: usize,
    /// Worker threads (`None`: rayon's global pool, i.e. `RAYON_NUM_THREADS` or the
    /// number of cores).
    pub threads: Option<usize>,
}

impl Default for EmbedderOptions {
    fn default() -> Self {
        EmbedderOptions {
            batch_size: DEFAULT_BATCH_SIZE,
            threads: None,
        }
    }
}

/// The workspace root: the nearest ancestor of the current directory whose
/// `Cargo.toml` declares `[workspace]`, else the one this crate was built in.
pub fn workspace_root() -> PathBuf {
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            let manifest = dir.join("Cargo.toml");
            if let Ok(text) = std::fs::read_to_string(&manifest) {
                if text.lines().any(|l| l.trim() == "[workspace]") {
                    return dir.to_path_buf();
                }
            }
        }
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

/// Where all-MiniLM-L6-v2 lives (see [`resolve_dir`]).
pub fn resolve_model_dir(explicit: Option<&Path>) -> PathBuf {
    resolve_dir(&MINILM, explicit)
}

/// Where the model `spec` lives: `explicit` if given, else its environment variable
/// ([`ModelSpec::dir_env`], `CRABPATH_MODEL_DIR` for MiniLM) if set and non-empty, else
/// its [`ModelSpec::default_subdir`] under the workspace root (where `fetch-model` puts it).
pub fn resolve_dir(spec: &ModelSpec, explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    match std::env::var_os(spec.dir_env) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => workspace_root().join(spec.default_subdir),
    }
}

/// Checks that `dir` holds the files all-MiniLM-L6-v2 needs (see [`check_dir`]).
pub fn check_model_dir(dir: &Path) -> Result<()> {
    check_dir(&MINILM, dir)
}

/// Checks that `dir` holds the files the model `spec` needs; the error says how to fetch
/// them.
pub fn check_dir(spec: &'static ModelSpec, dir: &Path) -> Result<()> {
    for f in REQUIRED_FILES {
        let p = dir.join(f);
        if !p.is_file() {
            return Err(EmbedError::ModelMissing {
                model: spec,
                path: p,
            });
        }
    }
    Ok(())
}

/// Checks every file of [`ModelSpec::sha256`] in `dir` against its pinned SHA-256, the
/// weights from their bytes already read (`weights`, the file `weights_path`), the others
/// from disk. A file that differs is [`EmbedError::Weights`] naming it, both digests and
/// `fetch-model`. Cost: one SHA-256 pass over the files (about 90 MB for
/// all-MiniLM-L6-v2).
fn verify_pinned(
    spec: &'static ModelSpec,
    dir: &Path,
    weights_path: &Path,
    weights: &[u8],
) -> Result<()> {
    use sha2::{Digest, Sha256};
    for (file, want) in spec.sha256 {
        let path = dir.join(file);
        let got = if path == weights_path {
            hex::encode(Sha256::digest(weights))
        } else {
            crate::fetch::sha256_file(&path)?
        };
        if got != *want {
            return Err(EmbedError::Weights {
                path,
                message: format!(
                    "SHA-256 {got}, not {want}: this is not {}'s file (damaged or replaced); fetch it again: crabpath fetch-model --model {} --dir {}",
                    spec.name,
                    spec.key,
                    dir.display()
                ),
            });
        }
    }
    Ok(())
}

/// The fields of the model's `config.json` (Hugging Face `BertConfig`) that the
/// encoder needs.
#[derive(Debug, Clone, Deserialize)]
struct BertConfig {
    #[serde(default)]
    model_type: Option<String>,
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "default_layer_norm_eps")]
    layer_norm_eps: f64,
    #[serde(default = "default_hidden_act")]
    hidden_act: String,
}

fn default_layer_norm_eps() -> f64 {
    1e-12
}

fn default_hidden_act() -> String {
    "gelu".into()
}

/// A sentence-transformers model of [`crate::spec::MODELS`] on the CPU.
///
/// Computes exactly what sentence-transformers does: the model's own tokenizer.json
/// (WordPiece, lower-cased; `[CLS] … [SEP]` for MiniLM, `<s> … </s>` for MPNet), truncated
/// to [`ModelSpec::max_seq_len`], the encoder (BERT with all-zero token type ids, or MPNet
/// with its relative-position bias), the mean of the last hidden states over real
/// (unpadded) tokens, and L2 normalisation. Neither model prescribes a query or passage
/// prefix.
pub struct SentenceEmbedder {
    spec: &'static ModelSpec,
    tokenizer: Tokenizer,
    engine: FastBert,
    dim: usize,
    batch_size: usize,
    pool: Option<rayon::ThreadPool>,
    model_dir: PathBuf,
}

/// all-MiniLM-L6-v2 (the name older callers use; [`SentenceEmbedder::load`] loads it).
pub type MiniLmEmbedder = SentenceEmbedder;

impl std::fmt::Debug for SentenceEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEmbedder")
            .field("model", &self.spec.name)
            .field("model_dir", &self.model_dir)
            .field("dim", &self.dim)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

impl SentenceEmbedder {
    /// Loads all-MiniLM-L6-v2 from the resolved default location (see [`resolve_model_dir`]).
    pub fn load_default() -> Result<Self> {
        Self::load_default_spec(&MINILM)
    }

    /// Loads the model `spec` from its resolved default location (see [`resolve_dir`]).
    pub fn load_default_spec(spec: &'static ModelSpec) -> Result<Self> {
        Self::load_spec(spec, &resolve_dir(spec, None), EmbedderOptions::default())
    }

    /// Loads all-MiniLM-L6-v2 from `dir` (config.json, tokenizer.json, model.safetensors).
    pub fn load(dir: &Path, options: EmbedderOptions) -> Result<Self> {
        Self::load_spec(&MINILM, dir, options)
    }

    /// Loads the model `spec` from `dir` (config.json, tokenizer.json, model.safetensors);
    /// the config's `model_type` and hidden size must be the spec's.
    pub fn load_spec(
        spec: &'static ModelSpec,
        dir: &Path,
        options: EmbedderOptions,
    ) -> Result<Self> {
        check_dir(spec, dir)?;
        let config_path = dir.join("config.json");
        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| EmbedError::io("reading", &config_path, e))?;
        let config: BertConfig =
            serde_json::from_str(&config_text).map_err(|e| EmbedError::Config {
                path: config_path.clone(),
                message: e.to_string(),
            })?;

        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tok_path)
            .map_err(|e| EmbedError::Tokenizer(format!("{}: {e}", tok_path.display())))?;
        // The shipped tokenizer.json files truncate and pad to a fixed 128 tokens;
        // sentence-transformers truncates at max_seq_len and pads each batch to its
        // longest text, which we do ourselves after sorting by length.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: spec.max_seq_len,
                ..Default::default()
            }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(None);
        let model_type = config.model_type.as_deref().unwrap_or("bert");
        if model_type != spec.arch.model_type() || config.hidden_size != spec.dim {
            return Err(EmbedError::Config {
                path: config_path,
                message: format!(
                    "model_type {model_type:?} with hidden_size {}: this is not {} \
                     (model_type {:?}, hidden_size {})",
                    config.hidden_size,
                    spec.name,
                    spec.arch.model_type(),
                    spec.dim
                ),
            });
        }
        if config.hidden_act != "gelu" {
            return Err(EmbedError::Config {
                path: config_path,
                message: format!(
                    "hidden_act {:?}: only \"gelu\" (exact erf) is implemented",
                    config.hidden_act
                ),
            });
        }

        let weights_path = dir.join("model.safetensors");
        let bytes = std::fs::read(&weights_path)
            .map_err(|e| EmbedError::io("reading", &weights_path, e))?;
        // the pinned files' SHA-256, hashed beside the weights' conversion: a damaged or
        // replaced file of the right size and shape would otherwise embed silently wrong
        // vectors, which a sync or a teach then writes into the brain
        let (verified, engine) = std::thread::scope(|scope| {
            let check = scope.spawn(|| verify_pinned(spec, dir, &weights_path, &bytes));
            let engine = Self::engine(&bytes, &weights_path, &config, spec);
            let verified = check.join().unwrap_or_else(|_| {
                Err(EmbedError::Inner {
                    name: spec.name.into(),
                    message: "the thread checking the model files panicked".into(),
                })
            });
            (verified, engine)
        });
        verified?;
        let engine = engine?;
        drop(bytes);

        let pool = match options.threads {
            Some(n) if n > 0 => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| EmbedError::Inner {
                        name: spec.name.into(),
                        message: format!("thread pool: {e}"),
                    })?,
            ),
            _ => None,
        };
        Ok(SentenceEmbedder {
            spec,
            tokenizer,
            engine,
            dim: config.hidden_size,
            batch_size: options.batch_size.max(1),
            pool,
            model_dir: dir.to_path_buf(),
        })
    }

    /// The encoder of the weights file's `bytes` (at `path`, for errors).
    fn engine(
        bytes: &[u8],
        path: &Path,
        config: &BertConfig,
        spec: &'static ModelSpec,
    ) -> Result<FastBert> {
        let tensors =
            safetensors::SafeTensors::deserialize(bytes).map_err(|e| EmbedError::Weights {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let dims = Dims {
            hidden: config.hidden_size,
            heads: config.num_attention_heads,
            intermediate: config.intermediate_size,
            layers: config.num_hidden_layers,
            vocab: config.vocab_size,
            max_positions: config.max_position_embeddings,
            eps: config.layer_norm_eps as f32,
            arch: spec.arch,
            name: spec.name,
        };
        FastBert::load(&tensors, dims).map_err(|e| match e {
            EmbedError::Inner { message, .. } => EmbedError::Weights {
                path: path.to_path_buf(),
                message,
            },
            other => other,
        })
    }

    /// The model's fixed facts.
    pub fn spec(&self) -> &'static ModelSpec {
        self.spec
    }

    /// The directory the model was loaded from.
    pub fn model_dir(&self) -> &Path {
        &self.model_dir
    }

    /// Token ids of `text` as the model sees them (`[CLS] … [SEP]` or `<s> … </s>`,
    /// truncated).
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self
            .tokenizer
            .encode_fast(text, true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Embeds `texts` as f32 vectors, one per text, in order.
    pub fn embed_f32(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        match &self.pool {
            Some(pool) => pool.install(|| self.embed_inner(texts)),
            None => self.embed_inner(texts),
        }
    }

    fn embed_inner(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        use rayon::prelude::*;
        let ids: Vec<Vec<u32>> = texts
            .par_iter()
            .map(|t| self.token_ids(t))
            .collect::<Result<_>>()?;
        // Longest first: similar lengths share a batch, so little padding.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        // No padding here, so batches are cut by size only; each pass uses every
        // worker (matrix products, attention per text, row kernels).
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut start = 0;
        while start < order.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < order.len()
                && end - start < self.batch_size
                && (end == start || tokens + ids[order[end]].len() <= MAX_BATCH_TOKENS)
            {
                tokens += ids[order[end]].len();
                end += 1;
            }
            let batch: Vec<&[u32]> = order[start..end]
                .iter()
                .map(|&i| ids[i].as_slice())
                .collect();
            for (&i, v) in order[start..end].iter().zip(self.engine.embed(&batch)?) {
                out[i] = v;
            }
            start = end;
        }
        Ok(out)
    }
}

impl crabpath::embed::Embedder for SentenceEmbedder {
    fn name(&self) -> &str {
        self.spec.name
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        let v = self.embed_f32(texts)?;
        Ok(v.into_iter()
            .map(|v| v.into_iter().map(f64::from).collect())
            .collect())
    }
}
