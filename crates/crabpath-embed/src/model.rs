//! The all-MiniLM-L6-v2 embedder: tokenisation, BERT forward pass, mean pooling and
//! L2 normalisation.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams};

use crate::error::{EmbedError, Result};
use crate::fast::{Dims, FastBert};

/// Stable embedder name, recorded in state files, results and cache headers.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// Longest input in tokens, special tokens included (sentence-transformers'
/// `max_seq_length` for this model); longer texts are truncated.
pub const MAX_SEQ_LEN: usize = 256;
/// Output dimension of all-MiniLM-L6-v2.
pub const DIM: usize = 384;
/// Default number of texts per forward pass.
pub const DEFAULT_BATCH_SIZE: usize = 64;
/// Most tokens in one forward pass of the fast backend.
pub const MAX_BATCH_TOKENS: usize = 8192;

/// Files that must be present in a model directory.
pub const REQUIRED_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Environment variable naming the model directory.
pub const MODEL_DIR_ENV: &str = "CRABPATH_MODEL_DIR";
/// Model directory relative to the workspace root when nothing else is given.
pub const DEFAULT_MODEL_SUBDIR: &str = "datasets/models/all-MiniLM-L6-v2";

/// Which implementation of the BERT encoder runs the forward pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// This crate's lean forward pass (no padding, fused kernels); the default.
    #[default]
    Fast,
    /// `candle_transformers::models::bert::BertModel` on padded batches.
    Candle,
}

/// Runtime options of [`MiniLmEmbedder`].
#[derive(Debug, Clone)]
pub struct EmbedderOptions {
    /// Forward-pass implementation.
    pub backend: Backend,
    /// Texts per forward pass (after sorting by length). At least 1.
    pub batch_size: usize,
    /// Worker threads (`None`: rayon's global pool, i.e. `RAYON_NUM_THREADS` or the
    /// number of cores).
    pub threads: Option<usize>,
}

impl Default for EmbedderOptions {
    fn default() -> Self {
        EmbedderOptions {
            backend: Backend::default(),
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

/// Where the model lives: `explicit` if given, else `$CRABPATH_MODEL_DIR` if set and
/// non-empty, else `datasets/models/all-MiniLM-L6-v2` under the workspace root.
pub fn resolve_model_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    match std::env::var_os(MODEL_DIR_ENV) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => workspace_root().join(DEFAULT_MODEL_SUBDIR),
    }
}

/// Checks that `dir` holds the files the embedder needs; the error says how to fetch them.
pub fn check_model_dir(dir: &Path) -> Result<()> {
    for f in REQUIRED_FILES {
        let p = dir.join(f);
        if !p.is_file() {
            return Err(EmbedError::ModelMissing { path: p });
        }
    }
    Ok(())
}

/// sentence-transformers/all-MiniLM-L6-v2 on the CPU with candle.
///
/// Computes exactly what sentence-transformers does: WordPiece tokens (lower-cased,
/// `[CLS] … [SEP]`, truncated to [`MAX_SEQ_LEN`]), the six-layer BERT encoder with
/// all-zero token type ids, the mean of the last hidden states over real (unpadded)
/// tokens, and L2 normalisation.
pub struct MiniLmEmbedder {
    tokenizer: Tokenizer,
    engine: Engine,
    device: Device,
    dim: usize,
    pad_id: u32,
    batch_size: usize,
    pool: Option<rayon::ThreadPool>,
    model_dir: PathBuf,
}

enum Engine {
    Candle(Box<BertModel>),
    Fast(Box<FastBert>),
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("model_dir", &self.model_dir)
            .field("dim", &self.dim)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Loads the model from the resolved default location (see [`resolve_model_dir`]).
    pub fn load_default() -> Result<Self> {
        Self::load(&resolve_model_dir(None), EmbedderOptions::default())
    }

    /// Loads the model from `dir` (config.json, tokenizer.json, model.safetensors).
    pub fn load(dir: &Path, options: EmbedderOptions) -> Result<Self> {
        check_model_dir(dir)?;
        let config_path = dir.join("config.json");
        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| EmbedError::io("reading", &config_path, e))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| EmbedError::Config {
                path: config_path.clone(),
                message: e.to_string(),
            })?;

        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tok_path)
            .map_err(|e| EmbedError::Tokenizer(format!("{}: {e}", tok_path.display())))?;
        // The shipped tokenizer.json truncates and pads to a fixed 128 tokens;
        // sentence-transformers truncates at 256 and pads each batch to its longest
        // text, which we do ourselves after sorting by length.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_SEQ_LEN,
                ..Default::default()
            }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(None);
        let pad_id = tokenizer.token_to_id("[PAD]").unwrap_or(0);

        let device = Device::Cpu;
        let weights_path = dir.join("model.safetensors");
        let bytes = std::fs::read(&weights_path)
            .map_err(|e| EmbedError::io("reading", &weights_path, e))?;
        let tensors = candle_core::safetensors::load_buffer(&bytes, &device)?;
        drop(bytes);
        let engine = match options.backend {
            Backend::Candle => {
                let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
                Engine::Candle(Box::new(BertModel::load(vb, &config)?))
            }
            Backend::Fast => {
                let dims = Dims {
                    hidden: config.hidden_size,
                    heads: config.num_attention_heads,
                    intermediate: config.intermediate_size,
                    layers: config.num_hidden_layers,
                    vocab: config.vocab_size,
                    max_positions: config.max_position_embeddings,
                    eps: config.layer_norm_eps as f32,
                };
                Engine::Fast(Box::new(FastBert::load(&tensors, dims)?))
            }
        };

        let pool = match options.threads {
            Some(n) if n > 0 => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| EmbedError::Inner {
                        name: MODEL_NAME.into(),
                        message: format!("thread pool: {e}"),
                    })?,
            ),
            _ => None,
        };
        Ok(MiniLmEmbedder {
            tokenizer,
            engine,
            device,
            dim: config.hidden_size,
            pad_id,
            batch_size: options.batch_size.max(1),
            pool,
            model_dir: dir.to_path_buf(),
        })
    }

    /// The directory the model was loaded from.
    pub fn model_dir(&self) -> &Path {
        &self.model_dir
    }

    /// Token ids of `text` as the model sees them (`[CLS] … [SEP]`, truncated).
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
        if let Engine::Fast(fast) = &self.engine {
            // No padding here, so batches are cut by size only; each pass uses
            // every worker (matrix products, attention per text, row kernels).
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
                for (&i, v) in order[start..end].iter().zip(fast.embed(&batch)?) {
                    out[i] = v;
                }
                start = end;
            }
            return Ok(out);
        }
        let workers = rayon::current_num_threads().max(1);
        let per_worker = order.len().div_ceil(workers);
        let chunk = self.batch_size.min(per_worker).max(1);
        let chunks: Vec<&[usize]> = order.chunks(chunk).collect();
        let pooled: Vec<Vec<Vec<f32>>> = chunks
            .par_iter()
            .map(|c| {
                let batch: Vec<&[u32]> = c.iter().map(|&i| ids[i].as_slice()).collect();
                self.forward_batch(&batch)
            })
            .collect::<Result<_>>()?;
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for (c, vs) in chunks.iter().zip(pooled) {
            for (&i, v) in c.iter().zip(vs) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// One forward pass over token id sequences (padded to the longest), returning
    /// mean-pooled, L2-normalised vectors.
    fn forward_batch(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let b = batch.len();
        let len = batch.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![self.pad_id; b * len];
        let mut mask = vec![0u32; b * len];
        for (r, seq) in batch.iter().enumerate() {
            ids[r * len..r * len + seq.len()].copy_from_slice(seq);
            mask[r * len..r * len + seq.len()].fill(1);
        }
        let input_ids = Tensor::from_vec(ids, (b, len), &self.device)?;
        let attention = Tensor::from_vec(mask, (b, len), &self.device)?;
        let token_types = input_ids.zeros_like()?;
        let Engine::Candle(model) = &self.engine else {
            return Err(EmbedError::Inner {
                name: MODEL_NAME.into(),
                message: "padded forward pass without the candle backend".into(),
            });
        };
        let hidden = model.forward(&input_ids, &token_types, Some(&attention))?;
        let hidden: Vec<Vec<Vec<f32>>> = hidden.to_vec3()?;
        Ok(hidden
            .iter()
            .zip(batch)
            .map(|(h, seq)| mean_pool_normalise(h, seq.len(), self.dim))
            .collect())
    }
}

/// Mean over the first `n` token vectors (sentence-transformers clamps the token
/// count at 1e-9), then division by the L2 norm (clamped at 1e-12).
fn mean_pool_normalise(tokens: &[Vec<f32>], n: usize, dim: usize) -> Vec<f32> {
    let mut sum = vec![0f32; dim];
    for t in tokens.iter().take(n) {
        for (s, x) in sum.iter_mut().zip(t) {
            *s += *x;
        }
    }
    let count = (n as f32).max(1e-9);
    for s in &mut sum {
        *s /= count;
    }
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for s in &mut sum {
        *s /= norm;
    }
    sum
}

impl crabpath::embed::Embedder for MiniLmEmbedder {
    fn name(&self) -> &str {
        MODEL_NAME
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
