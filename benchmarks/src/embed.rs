//! Text embedders of `bench run` and `bench embed` (`benchmarks/README.md`).
//!
//! * `hash-v1`: the reference's hashed n-gram embedder (reference
//!   `crabpath/hasher.py::HashEmbedder`, commit 134c676; the core's
//!   [`crabpath::embed::HashEmbedder`]), bit-exact, so the `paper` protocol reproduces the
//!   reference program's numbers on the same rows.
//! * `minilm`: sentence-transformers' all-MiniLM-L6-v2 (384 dimensions), run offline on the CPU
//!   by [`crabpath_embed::MiniLmEmbedder`], behind the on-disk cache of
//!   [`crabpath_embed::CachedEmbedder`] (keyed by model id and the SHA-256 of each text; vectors
//!   stored as f32). The model directory is `--model-dir`, else `$CRABPATH_MODEL_DIR`, else
//!   `datasets/models/all-MiniLM-L6-v2` under the workspace root
//!   ([`crabpath_embed::resolve_model_dir`]); when it lacks a file the run stops with one line
//!   naming the file and the `bench fetch-model` command (exit 2), even if the data fails too.
//!
//! Behind the cache the model is loaded only when a text misses ([`LazyMiniLm`]): a warm
//! run never parses the 90 MB of weights. The weights' SHA-256, which every report records,
//! is computed on a background thread from the moment the embedder is opened
//! ([`WeightsSha`]), so it overlaps with reading the dataset.
//!
//! [`TextEmbedder::embed`] embeds each distinct text once (node contents repeat across
//! questions) and returns the vectors in input order with [`EmbedStats`] (how many texts the
//! model actually ran on, and how fast). Vectors do not depend on the chunking, the thread
//! count or the cache: MiniLM vectors are f32 widened to f64 whether they come from the model
//! or from the cache, so a cold and a warm run write the same report.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use clap::{Args, ValueEnum};
use crabpath::embed::{Embedder, HashEmbedder};
use crabpath_embed::cache::{default_cache_root, EmbeddingCache};
use crabpath_embed::spec::{ModelSpec, MINILM, MPNET};
use crabpath_embed::{
    resolve_dir, resolve_model_dir, CachedEmbedder, EmbedError, EmbedderOptions, MiniLmEmbedder,
};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use rayon::prelude::*;
use results::bench::EmbedderId;

use crate::error::{Error, Result};

/// Texts per call into MiniLM (each call sorts its texts by length and batches them; the
/// progress bar and the cache advance per call).
const MINILM_CHUNK: usize = 128;
/// Texts per parallel task of `hash-v1`.
const HASH_CHUNK: usize = 64;

/// `--embedder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum EmbedderArg {
    /// The reference's deterministic hashed n-gram embedder (reference
    /// `crabpath/hasher.py::HashEmbedder`, commit 134c676), bit-exact.
    #[value(name = "hash-v1")]
    HashV1,
    /// all-MiniLM-L6-v2 sentence embeddings (offline, CPU), through the embedding cache.
    Minilm,
    /// all-mpnet-base-v2 sentence embeddings (768 dimensions; offline, CPU), through the
    /// embedding cache; its model directory is `$CRABPATH_MPNET_MODEL_DIR`, else
    /// `datasets/models/all-mpnet-base-v2` (issue 28 item 4). `--protocol product` only.
    Mpnet,
}

impl EmbedderArg {
    /// The embedder's part of the default output file name (`hash-v1`, `minilm`).
    pub fn slug(self) -> &'static str {
        match self {
            EmbedderArg::HashV1 => "hash-v1",
            EmbedderArg::Minilm => "minilm",
            EmbedderArg::Mpnet => "mpnet",
        }
    }

    /// The sentence-transformers model behind the embedder, `None` for `hash-v1`.
    pub fn spec(self) -> Option<&'static ModelSpec> {
        match self {
            EmbedderArg::HashV1 => None,
            EmbedderArg::Minilm => Some(&MINILM),
            EmbedderArg::Mpnet => Some(&MPNET),
        }
    }
}

/// Where the model and the embedding cache are (flattened into `bench run` and `bench embed`).
#[derive(Debug, Clone, Default, Args)]
pub struct ModelOpts {
    /// all-MiniLM-L6-v2 model directory (config.json, tokenizer.json, model.safetensors)
    /// [default: $CRABPATH_MODEL_DIR, else datasets/models/all-MiniLM-L6-v2 under the
    /// workspace root]. Fetch it with `bench fetch-model`.
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,

    /// Root of the embedding cache [default: $CRABPATH_EMBED_CACHE, else
    /// datasets/cache/embeddings under the workspace root].
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Run the model on every text, neither reading nor writing the embedding cache.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
}

impl ModelOpts {
    /// The model directory: `--model-dir`, else `$CRABPATH_MODEL_DIR`, else the default.
    pub fn model_dir(&self) -> PathBuf {
        resolve_model_dir(self.model_dir.as_deref())
    }

    /// The directory of the model `spec`: MiniLM's is [`ModelOpts::model_dir`]; another
    /// model's is its own environment variable, else its default
    /// ([`crabpath_embed::resolve_dir`]; `--model-dir` names MiniLM's only).
    pub fn dir_of(&self, spec: &'static ModelSpec) -> PathBuf {
        if std::ptr::eq(spec, &MINILM) {
            self.model_dir()
        } else {
            resolve_dir(spec, None)
        }
    }

    /// The cache root, `None` with `--no-cache`.
    pub fn cache_root(&self) -> Option<PathBuf> {
        (!self.no_cache).then(|| self.cache_dir.clone().unwrap_or_else(default_cache_root))
    }
}

/// How many of the distinct `texts` the all-MiniLM-L6-v2 embedding cache under `opts`
/// lacks; `None` with `--no-cache`. Reads the whole cache (tens of MB for the staged
/// datasets).
pub fn cache_misses(opts: &ModelOpts, texts: &[&str]) -> Result<Option<usize>> {
    let Some(root) = opts.cache_root() else {
        return Ok(None);
    };
    let cache = EmbeddingCache::open(
        &root,
        crabpath_embed::model::MODEL_NAME,
        crabpath_embed::model::DIM,
    )
    .map_err(|e| Error::Embed(e.to_string()))?;
    let mut distinct: Vec<&str> = texts.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    Ok(Some(
        distinct
            .iter()
            .filter(|t| cache.get_text(t).is_none())
            .count(),
    ))
}

/// What [`TextEmbedder::embed`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmbedStats {
    /// Texts asked for.
    pub texts: usize,
    /// Distinct texts among them.
    pub distinct: usize,
    /// Distinct texts the model ran on (the rest came from the cache).
    pub computed: usize,
    /// Wall-clock seconds of the whole call.
    pub seconds: f64,
}

impl EmbedStats {
    /// Texts the model embedded per second (`None` when it embedded none).
    pub fn computed_per_s(&self) -> Option<f64> {
        (self.computed > 0 && self.seconds > 0.0).then(|| self.computed as f64 / self.seconds)
    }

    /// One line for the terminal.
    pub fn describe(&self) -> String {
        let rate = self
            .computed_per_s()
            .map_or(String::new(), |r| format!(", {r:.1} texts/s"));
        format!(
            "{} texts ({} distinct): {} embedded, {} from the cache, in {:.1} s{rate}",
            self.texts,
            self.distinct,
            self.computed,
            self.distinct - self.computed,
            self.seconds
        )
    }
}

/// A sentence-transformers model (all-MiniLM-L6-v2 unless [`LazyMiniLm::new_spec`] names
/// another) loaded on the first text it must embed ([`MiniLmEmbedder::load_spec`] with the
/// default options), so that a run whose texts are all in the embedding cache never reads
/// the weights. Its name and dimension are the spec's constants
/// ([`crabpath_embed::spec::ModelSpec`]); a model whose configuration disagrees fails at
/// its first use.
#[derive(Debug)]
pub struct LazyMiniLm {
    spec: &'static ModelSpec,
    dir: PathBuf,
    model: OnceLock<std::result::Result<MiniLmEmbedder, String>>,
}

impl LazyMiniLm {
    /// all-MiniLM-L6-v2 in `dir`, not loaded yet; `dir` must hold the model's files
    /// ([`crabpath_embed::model::check_model_dir`], a missing one is [`Error::ModelMissing`]).
    pub fn new(dir: PathBuf) -> Result<Self> {
        Self::new_spec(&MINILM, dir)
    }

    /// The model `spec` in `dir`, not loaded yet (see [`LazyMiniLm::new`]).
    pub fn new_spec(spec: &'static ModelSpec, dir: PathBuf) -> Result<Self> {
        crabpath_embed::model::check_dir(spec, &dir).map_err(|e| model_error(e, &dir))?;
        Ok(LazyMiniLm {
            spec,
            dir,
            model: OnceLock::new(),
        })
    }

    /// The model directory.
    pub fn model_dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the weights have been loaded (some text missed the cache).
    pub fn is_loaded(&self) -> bool {
        self.model.get().is_some_and(|m| m.is_ok())
    }

    fn model(&self) -> crabpath::Result<&MiniLmEmbedder> {
        let loaded = self.model.get_or_init(|| {
            // Threads: rayon's global pool, which `--threads` sizes.
            let m = MiniLmEmbedder::load_spec(self.spec, &self.dir, EmbedderOptions::default())
                .map_err(|e| e.to_string())?;
            match crabpath::embed::Embedder::dim(&m) {
                d if d == self.spec.dim => Ok(m),
                d => Err(format!(
                    "{}: the model has dimension {d}, expected {}",
                    self.dir.display(),
                    self.spec.dim
                )),
            }
        });
        loaded.as_ref().map_err(|message| crabpath::Error::Embed {
            name: self.spec.name.to_string(),
            message: message.clone(),
        })
    }
}

impl Embedder for LazyMiniLm {
    fn name(&self) -> &str {
        self.spec.name
    }

    fn dim(&self) -> usize {
        self.spec.dim
    }

    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        self.model()?.embed_batch(texts)
    }
}

/// SHA-256 of a model's `model.safetensors`, hashed on a background thread started by
/// [`WeightsSha::start`] and awaited by [`WeightsSha::get`] (the report's
/// `provenance.embedder.weights_sha256`).
#[derive(Debug)]
pub struct WeightsSha(Mutex<WeightsState>);

#[derive(Debug)]
enum WeightsState {
    Running(JoinHandle<std::result::Result<String, String>>),
    Done(std::result::Result<String, String>),
}

impl WeightsSha {
    /// Starts hashing `dir/model.safetensors`.
    pub fn start(dir: &Path) -> Self {
        let path = dir.join("model.safetensors");
        let handle = std::thread::spawn(move || {
            crabpath_embed::fetch::sha256_file(&path).map_err(|e| e.to_string())
        });
        WeightsSha(Mutex::new(WeightsState::Running(handle)))
    }

    /// The hex digest (waits for the hashing thread on the first call).
    pub fn get(&self) -> Result<String> {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let WeightsState::Running(_) = &*state {
            let done = match std::mem::replace(&mut *state, WeightsState::Done(Err(String::new())))
            {
                WeightsState::Running(h) => h.join().unwrap_or_else(|_| {
                    Err("the thread hashing the model weights panicked".into())
                }),
                WeightsState::Done(r) => r,
            };
            *state = WeightsState::Done(done);
        }
        match &*state {
            WeightsState::Done(r) => r.clone().map_err(Error::Embed),
            WeightsState::Running(_) => Err(Error::Internal(
                "the model weights' digest was not computed".into(),
            )),
        }
    }
}

/// An embedder of `bench` (see the module docs).
#[derive(Debug)]
pub enum TextEmbedder {
    /// `hash-v1`.
    Hash(HashEmbedder),
    /// all-MiniLM-L6-v2 without the cache (`--no-cache`), with its weights' digest.
    MiniLm(Box<MiniLmEmbedder>, WeightsSha),
    /// all-MiniLM-L6-v2 behind the embedding cache (loaded on the first miss), with its
    /// weights' digest.
    Cached(Box<CachedEmbedder<LazyMiniLm>>, WeightsSha),
}

impl TextEmbedder {
    /// Opens the embedder `kind`. For `minilm` (a missing model file is
    /// [`Error::ModelMissing`]) starts hashing the weights ([`WeightsSha`]), and either
    /// opens the embedding cache with the model loaded on the first miss ([`LazyMiniLm`]),
    /// or, with `opts.no_cache`, loads the model.
    pub fn open(kind: EmbedderArg, opts: &ModelOpts) -> Result<Self> {
        match kind {
            EmbedderArg::HashV1 => Ok(TextEmbedder::Hash(HashEmbedder::new())),
            EmbedderArg::Minilm | EmbedderArg::Mpnet => {
                let spec = kind.spec().unwrap_or(&MINILM);
                let dir = opts.dir_of(spec);
                match opts.cache_root() {
                    None => {
                        // Threads: rayon's global pool, which `--threads` sizes.
                        let model =
                            MiniLmEmbedder::load_spec(spec, &dir, EmbedderOptions::default())
                                .map_err(|e| model_error(e, &dir))?;
                        let sha = WeightsSha::start(&dir);
                        Ok(TextEmbedder::MiniLm(Box::new(model), sha))
                    }
                    Some(root) => {
                        let lazy = LazyMiniLm::new_spec(spec, dir.clone())?;
                        let sha = WeightsSha::start(&dir);
                        let cached = CachedEmbedder::open(lazy, &root)
                            .map_err(|e| Error::Embed(e.to_string()))?;
                        Ok(TextEmbedder::Cached(Box::new(cached), sha))
                    }
                }
            }
        }
    }

    /// The embedder as the core and the product take it (what a brain's `init` embeds
    /// node texts with; the LoCoMo product path, [`crate::locomo::product`]).
    pub fn as_embedder(&self) -> &dyn Embedder {
        match self {
            TextEmbedder::Hash(e) => e,
            TextEmbedder::MiniLm(e, _) => e.as_ref(),
            TextEmbedder::Cached(e, _) => e.as_ref(),
        }
    }

    /// The embedder's name as recorded in reports (`hash-v1`, `all-MiniLM-L6-v2`).
    pub fn name(&self) -> &str {
        match self {
            TextEmbedder::Hash(e) => e.name(),
            TextEmbedder::MiniLm(e, _) => e.name(),
            TextEmbedder::Cached(e, _) => e.name(),
        }
    }

    /// Name, dimension and weights checksum (of a MiniLM model's weights file, about 90 MB,
    /// hashed on a background thread since [`TextEmbedder::open`]; waits for it).
    pub fn id(&self) -> Result<EmbedderId> {
        let weights_sha256 = match self {
            TextEmbedder::Hash(_) => None,
            TextEmbedder::MiniLm(_, sha) | TextEmbedder::Cached(_, sha) => Some(sha.get()?),
        };
        Ok(EmbedderId {
            id: self.name().to_string(),
            dim: self.dim(),
            weights_sha256,
        })
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        match self {
            TextEmbedder::Hash(e) => e.dim(),
            TextEmbedder::MiniLm(e, _) => e.dim(),
            TextEmbedder::Cached(e, _) => e.dim(),
        }
    }

    /// Embeds `texts` (each distinct text once), in input order; `bar` counts distinct texts.
    pub fn embed(&self, texts: &[&str], bar: &ProgressBar) -> Result<(Vec<Vec<f64>>, EmbedStats)> {
        let t = Instant::now();
        let mut slot: HashMap<&str, usize> = HashMap::with_capacity(texts.len());
        let mut distinct: Vec<&str> = Vec::new();
        let which: Vec<usize> = texts
            .iter()
            .map(|&s| {
                *slot.entry(s).or_insert_with(|| {
                    distinct.push(s);
                    distinct.len() - 1
                })
            })
            .collect();
        bar.set_length(distinct.len() as u64);
        let failed = |e: crabpath::Error| Error::Embed(format!("embedding failed: {e}"));
        let mut computed = 0;
        let vectors: Vec<Vec<f64>> = match self {
            TextEmbedder::Hash(e) => {
                computed = distinct.len();
                let chunks = distinct
                    .par_chunks(HASH_CHUNK)
                    .map(|c| {
                        let v = e.embed_batch(c).map_err(failed)?;
                        bar.inc(c.len() as u64);
                        Ok(v)
                    })
                    .collect::<Result<Vec<_>>>()?;
                chunks.into_iter().flatten().collect()
            }
            TextEmbedder::MiniLm(e, _) => {
                let mut out = Vec::with_capacity(distinct.len());
                for c in distinct.chunks(MINILM_CHUNK) {
                    let v = e.embed_f32(c).map_err(|e| Error::Embed(e.to_string()))?;
                    out.extend(v.into_iter().map(widen));
                    computed += c.len();
                    bar.inc(c.len() as u64);
                }
                out
            }
            TextEmbedder::Cached(e, _) => {
                let mut out = Vec::with_capacity(distinct.len());
                for c in distinct.chunks(MINILM_CHUNK) {
                    let (v, fresh) = e.embed_f32(c).map_err(failed)?;
                    out.extend(v.into_iter().map(widen));
                    computed += fresh;
                    bar.inc(c.len() as u64);
                }
                e.flush().map_err(|e| Error::Embed(e.to_string()))?;
                out
            }
        };
        if vectors.len() != distinct.len() || vectors.iter().any(|v| v.len() != self.dim()) {
            return Err(Error::Embed(format!(
                "embedder {} returned {} vectors for {} texts or a wrong dimension",
                self.name(),
                vectors.len(),
                distinct.len()
            )));
        }
        let stats = EmbedStats {
            texts: texts.len(),
            distinct: distinct.len(),
            computed,
            seconds: t.elapsed().as_secs_f64(),
        };
        // Each distinct vector moves to its last use and is copied to the earlier ones.
        let mut uses = vec![0usize; vectors.len()];
        for &i in &which {
            uses[i] += 1;
        }
        let mut vectors: Vec<Option<Vec<f64>>> = vectors.into_iter().map(Some).collect();
        let out = which
            .into_iter()
            .map(|i| {
                uses[i] -= 1;
                let v = if uses[i] == 0 {
                    vectors[i].take()
                } else {
                    vectors[i].clone()
                };
                v.ok_or_else(|| Error::Internal(format!("embedding {i} was used up")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((out, stats))
    }
}

fn widen(v: Vec<f32>) -> Vec<f64> {
    v.into_iter().map(f64::from).collect()
}

/// Maps an error of loading or fetching the model into `dir` to the bench's errors: a
/// missing file becomes [`Error::ModelMissing`] with the command that fetches the model.
pub fn model_error(e: EmbedError, dir: &Path) -> Error {
    match e {
        EmbedError::ModelMissing { path, .. } => Error::ModelMissing(format!(
            "all-MiniLM-L6-v2 model not found: {} is missing; fetch it with \
             `bench fetch-model --model-dir {}` (from the workspace: `cargo run --release -p \
             bench -- fetch-model`), or point --model-dir or CRABPATH_MODEL_DIR at a directory \
             holding config.json, tokenizer.json and model.safetensors",
            path.display(),
            dir.display()
        )),
        EmbedError::Checksum {
            path,
            expected,
            actual,
        } => Error::ChecksumMismatch {
            origin: path.display().to_string(),
            what: "model weights".into(),
            expected,
            actual,
            removed: true,
        },
        other => Error::Embed(other.to_string()),
    }
}

/// A progress bar for embedding: distinct texts done, texts per second, time left.
pub fn style_bar(b: &ProgressBar) {
    if let Ok(style) = ProgressStyle::with_template(
        "{msg:>22} [{bar:30}] {pos}/{len} texts, {rate}, {elapsed_precise} (eta {eta})",
    ) {
        let style = style.with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1} texts/s", s.per_sec());
        });
        b.set_style(style.progress_chars("=> "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lazy_model_is_read_only_when_a_text_must_be_embedded() {
        let dir = tempfile::tempdir().unwrap();
        // A missing file is the model-missing error, as when loading eagerly.
        assert!(matches!(
            LazyMiniLm::new(dir.path().to_path_buf()),
            Err(Error::ModelMissing(_))
        ));
        // Files that are there but not a model: opening succeeds (nothing is read) ...
        for f in crabpath_embed::model::REQUIRED_FILES {
            std::fs::write(dir.path().join(f), b"not a model").unwrap();
        }
        let lazy = LazyMiniLm::new(dir.path().to_path_buf()).unwrap();
        assert!(!lazy.is_loaded());
        assert_eq!(lazy.name(), "all-MiniLM-L6-v2");
        assert_eq!(lazy.dim(), 384);
        // ... an empty batch still reads nothing ...
        let cache = tempfile::tempdir().unwrap();
        let cached = CachedEmbedder::open(lazy, cache.path()).unwrap();
        assert_eq!(cached.embed_f32(&[]).unwrap(), (Vec::new(), 0));
        assert!(!cached.inner().is_loaded());
        // ... and the first miss loads the model, whose error is reported (every time).
        for _ in 0..2 {
            let err = cached.embed_f32(&["a text"]).unwrap_err().to_string();
            assert!(err.contains("config.json"), "{err}");
        }
        assert!(!cached.inner().is_loaded());
    }

    #[test]
    fn weights_digest_is_the_files_sha256() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("model.safetensors"), b"abc").unwrap();
        let sha = WeightsSha::start(dir.path());
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha.get().unwrap(), abc);
        assert_eq!(sha.get().unwrap(), abc);
        let missing = WeightsSha::start(&dir.path().join("absent"));
        assert!(matches!(missing.get(), Err(Error::Embed(_))));
    }
}
