//! On-disk embedding cache and the [`CachedEmbedder`] wrapper.
//!
//! A cache is a directory per (model id, dimension, [`VECTORS_REVISION`]) holding immutable
//! *shard* files.
//! Each shard is written to a temporary file in the same directory and renamed into
//! place, so a reader sees a shard completely or not at all; shards are never
//! modified afterwards, so any number of processes can share a cache directory.
//! New vectors go into new shards; [`EmbeddingCache::compact`] merges the shards
//! into one (and runs by itself when a directory has many shards).
//!
//! Shard format (`*.cpe`, all integers little-endian):
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `CPEMBED\0` |
//! | 8 | 4 | format version (u32) = 1 |
//! | 12 | 4 | dimension `d` (u32) |
//! | 16 | 2 | model id length `m` (u16) |
//! | 18 | `m` | model id, UTF-8 |
//! | 18+`m` | 8 | record count `n` (u64) |
//! | 26+`m` | `n`·(32+4`d`) | records: SHA-256 of the text's UTF-8 bytes (32 bytes), then `d` f32 |
//!
//! A shard's file name is the first 32 hex digits of the SHA-256 of its contents,
//! so two writers producing the same shard produce the same file.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crabpath::embed::Embedder;
use sha2::{Digest, Sha256};

use crate::error::{EmbedError, Result};

/// Magic bytes at the start of every shard.
pub const MAGIC: &[u8; 8] = b"CPEMBED\0";
/// Shard format version.
pub const FORMAT_VERSION: u32 = 1;
/// Revision of the embedders' arithmetic, part of every cache directory's name: bumped
/// when vectors of the same model would come out with other bits, so that old and new
/// vectors are never mixed. Revision 2: the MiniLM encoder sums its matrix products in
/// machine-independent blocks (`fast.rs`, `MAX_GEMM_K`).
pub const VECTORS_REVISION: u32 = 2;
/// Shard file extension.
pub const SHARD_EXT: &str = "cpe";
/// Environment variable naming the cache root directory.
pub const CACHE_DIR_ENV: &str = "CRABPATH_EMBED_CACHE";
/// Cache root relative to the workspace root when nothing else is given.
pub const DEFAULT_CACHE_SUBDIR: &str = "datasets/cache/embeddings";
/// [`EmbeddingCache::open`] compacts a directory holding more shards than this.
pub const COMPACT_ABOVE: usize = 32;
/// [`CachedEmbedder`] writes a shard once this many new vectors are pending.
pub const FLUSH_EVERY: usize = 4096;

/// A cache key: SHA-256 of the text's UTF-8 bytes.
pub type Key = [u8; 32];

/// The cache key of `text`.
pub fn text_key(text: &str) -> Key {
    Sha256::digest(text.as_bytes()).into()
}

/// Cache root: `$CRABPATH_EMBED_CACHE` if set and non-empty, else
/// `datasets/cache/embeddings` under the workspace root.
pub fn default_cache_root() -> PathBuf {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => crate::model::workspace_root().join(DEFAULT_CACHE_SUBDIR),
    }
}

/// Directory name for a model id: its safe characters plus a short hash of the id.
fn model_dir_name(model_id: &str, dim: usize) -> String {
    let safe: String = model_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let h = Sha256::digest(format!("{model_id}\0{dim}\0r{VECTORS_REVISION}").as_bytes());
    format!("{safe}-d{dim}-{}", &hex::encode(h)[..8])
}

/// Vectors of one model, keyed by text hash, backed by a shard directory.
#[derive(Debug)]
pub struct EmbeddingCache {
    dir: PathBuf,
    model_id: String,
    dim: usize,
    map: HashMap<Key, Box<[f32]>>,
    pending: Vec<Key>,
}

impl EmbeddingCache {
    /// Opens (creating if needed) the cache of `model_id`/`dim` under `root` and
    /// loads every shard. Compacts first if there are more than [`COMPACT_ABOVE`].
    pub fn open(root: &Path, model_id: &str, dim: usize) -> Result<Self> {
        if model_id.len() > usize::from(u16::MAX) || u32::try_from(dim).is_err() || dim == 0 {
            return Err(EmbedError::Cache {
                path: root.to_path_buf(),
                message: format!("unsupported model id length or dimension {dim}"),
            });
        }
        let dir = root.join(model_dir_name(model_id, dim));
        std::fs::create_dir_all(&dir).map_err(|e| EmbedError::io("creating", &dir, e))?;
        let mut cache = EmbeddingCache {
            dir,
            model_id: model_id.to_string(),
            dim,
            map: HashMap::new(),
            pending: Vec::new(),
        };
        let shards = cache.shard_paths()?;
        for p in &shards {
            cache.load_shard(p)?;
        }
        if shards.len() > COMPACT_ABOVE {
            cache.compact()?;
        }
        Ok(cache)
    }

    /// The shard directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The model id recorded in the shards.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of cached vectors (loaded and pending).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the cache holds no vector.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Number of vectors added since the last flush.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The cached vector of a key.
    pub fn get(&self, key: &Key) -> Option<&[f32]> {
        self.map.get(key).map(|v| &v[..])
    }

    /// The cached vector of a text.
    pub fn get_text(&self, text: &str) -> Option<&[f32]> {
        self.get(&text_key(text))
    }

    /// Adds a vector (kept in memory until [`flush`](Self::flush)).
    pub fn insert(&mut self, key: Key, vector: &[f32]) -> Result<()> {
        if vector.len() != self.dim {
            return Err(EmbedError::Cache {
                path: self.dir.clone(),
                message: format!(
                    "vector of dimension {} for a cache of {}",
                    vector.len(),
                    self.dim
                ),
            });
        }
        if self.map.insert(key, vector.into()).is_none() {
            self.pending.push(key);
        }
        Ok(())
    }

    /// Writes the pending vectors as a new shard (nothing if none are pending).
    pub fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut keys = std::mem::take(&mut self.pending);
        keys.sort_unstable();
        match self.write_shard(&keys) {
            Ok(_) => Ok(()),
            Err(e) => {
                self.pending = keys;
                Err(e)
            }
        }
    }

    /// Flushes, then replaces all shards by a single one holding every vector.
    /// Safe while other processes read or write the directory: the merged shard is
    /// renamed into place before the old shards are removed, and a reader that
    /// misses a removed shard only recomputes its vectors.
    pub fn compact(&mut self) -> Result<()> {
        self.flush()?;
        let old = self.shard_paths()?;
        // Pick up shards written by others since we loaded.
        for p in &old {
            self.load_shard(p)?;
        }
        let mut keys: Vec<Key> = self.map.keys().copied().collect();
        keys.sort_unstable();
        let merged = self.write_shard(&keys)?;
        for p in old {
            if p != merged {
                match std::fs::remove_file(&p) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(EmbedError::io("removing", &p, e)),
                }
            }
        }
        Ok(())
    }

    fn shard_paths(&self) -> Result<Vec<PathBuf>> {
        let rd =
            std::fs::read_dir(&self.dir).map_err(|e| EmbedError::io("listing", &self.dir, e))?;
        let mut v: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == SHARD_EXT))
            .collect();
        v.sort();
        Ok(v)
    }

    fn header(&self) -> Vec<u8> {
        let mut h = Vec::with_capacity(26 + self.model_id.len());
        h.extend_from_slice(MAGIC);
        h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        // Both bounds were checked in `open`.
        h.extend_from_slice(&(self.dim as u32).to_le_bytes());
        h.extend_from_slice(&(self.model_id.len() as u16).to_le_bytes());
        h.extend_from_slice(self.model_id.as_bytes());
        h
    }

    fn write_shard(&self, keys: &[Key]) -> Result<PathBuf> {
        let mut buf = self.header();
        buf.extend_from_slice(&(keys.len() as u64).to_le_bytes());
        buf.reserve(keys.len() * (32 + 4 * self.dim));
        for k in keys {
            let Some(v) = self.map.get(k) else { continue };
            buf.extend_from_slice(k);
            for x in v.iter() {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        let name = format!("{}.{SHARD_EXT}", &hex::encode(Sha256::digest(&buf))[..32]);
        let path = self.dir.join(name);
        let mut tmp = tempfile::Builder::new()
            .prefix(".shard-")
            .suffix(".tmp")
            .tempfile_in(&self.dir)
            .map_err(|e| EmbedError::io("creating a temporary file in", &self.dir, e))?;
        tmp.write_all(&buf)
            .map_err(|e| EmbedError::io("writing", tmp.path().to_path_buf(), e))?;
        // Readable by everyone who can read the directory (temporary files are 0600).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
                .map_err(|e| {
                    EmbedError::io("setting permissions of", tmp.path().to_path_buf(), e)
                })?;
        }
        tmp.as_file()
            .sync_all()
            .map_err(|e| EmbedError::io("syncing", tmp.path().to_path_buf(), e))?;
        tmp.persist(&path)
            .map_err(|e| EmbedError::io("renaming into", &path, e.error))?;
        Ok(path)
    }

    fn load_shard(&mut self, path: &Path) -> Result<()> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            // Removed by a concurrent compaction: its vectors are in the merged shard.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(EmbedError::io("reading", path, e)),
        };
        let bad = |message: String| EmbedError::Cache {
            path: path.to_path_buf(),
            message,
        };
        let header = self.header();
        if bytes.len() < header.len() + 8 {
            return Err(bad("shorter than its header".into()));
        }
        if &bytes[..8] != MAGIC {
            return Err(bad("not an embedding cache shard (bad magic)".into()));
        }
        if bytes[..header.len()] != header[..] {
            return Err(bad(format!(
                "header does not match model {} / dimension {} / version {FORMAT_VERSION}",
                self.model_id, self.dim
            )));
        }
        let mut count = [0u8; 8];
        count.copy_from_slice(&bytes[header.len()..header.len() + 8]);
        let count = u64::from_le_bytes(count);
        let record = 32 + 4 * self.dim;
        let body = &bytes[header.len() + 8..];
        if usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(record))
            != Some(body.len())
        {
            return Err(bad(format!(
                "{} body bytes for {count} records of {record} bytes",
                body.len()
            )));
        }
        for rec in body.chunks_exact(record) {
            let mut key = [0u8; 32];
            key.copy_from_slice(&rec[..32]);
            let v: Box<[f32]> = rec[32..]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            self.map.entry(key).or_insert(v);
        }
        Ok(())
    }
}

/// Wraps an [`Embedder`] with an [`EmbeddingCache`]: `embed_batch` looks every text
/// up first and embeds only the misses, in one batch of distinct texts, then stores
/// them. Vectors are stored as f32, so an embedder producing f64 values that are
/// not f32-exact comes back rounded to f32 (all-MiniLM-L6-v2 computes in f32).
///
/// New vectors are written as a shard every [`FLUSH_EVERY`] misses, on
/// [`flush`](Self::flush), and when the wrapper is dropped.
#[derive(Debug)]
pub struct CachedEmbedder<E: Embedder> {
    inner: E,
    cache: Mutex<EmbeddingCache>,
    name: String,
}

impl<E: Embedder> CachedEmbedder<E> {
    /// Wraps `inner` with the cache of `inner.name()` under `root`.
    pub fn open(inner: E, root: &Path) -> Result<Self> {
        let cache = EmbeddingCache::open(root, inner.name(), inner.dim())?;
        Ok(Self::with_cache(inner, cache))
    }

    /// Wraps `inner` with the cache under [`default_cache_root`].
    pub fn open_default(inner: E) -> Result<Self> {
        Self::open(inner, &default_cache_root())
    }

    /// Wraps `inner` with an already opened cache (which should belong to it).
    pub fn with_cache(inner: E, cache: EmbeddingCache) -> Self {
        let name = inner.name().to_string();
        CachedEmbedder {
            inner,
            cache: Mutex::new(cache),
            name,
        }
    }

    /// The wrapped embedder.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, EmbeddingCache> {
        // A panic elsewhere cannot leave the map half-updated in a harmful way.
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Number of cached vectors.
    pub fn cached(&self) -> usize {
        self.lock().len()
    }

    /// Writes pending vectors to disk.
    pub fn flush(&self) -> Result<()> {
        self.lock().flush()
    }

    /// Embeds `texts` as f32 vectors through the cache; also returns how many
    /// distinct texts had to be embedded.
    pub fn embed_f32(&self, texts: &[&str]) -> crabpath::Result<(Vec<Vec<f32>>, usize)> {
        let keys: Vec<Key> = texts.iter().map(|t| text_key(t)).collect();
        let mut out: Vec<Option<Vec<f32>>> = Vec::with_capacity(texts.len());
        let mut misses: Vec<&str> = Vec::new();
        let mut miss_keys: Vec<Key> = Vec::new();
        {
            let cache = self.lock();
            let mut seen: HashMap<Key, ()> = HashMap::new();
            for (t, k) in texts.iter().zip(&keys) {
                match cache.get(k) {
                    Some(v) => out.push(Some(v.to_vec())),
                    None => {
                        out.push(None);
                        if seen.insert(*k, ()).is_none() {
                            misses.push(t);
                            miss_keys.push(*k);
                        }
                    }
                }
            }
        }
        if misses.is_empty() {
            return Ok((out.into_iter().flatten().collect(), 0));
        }
        let fresh = self.inner.embed_batch(&misses)?;
        let dim = self.inner.dim();
        if fresh.len() != misses.len() || fresh.iter().any(|v| v.len() != dim) {
            return Err(EmbedError::Inner {
                name: self.name.clone(),
                message: format!(
                    "asked for {} vectors of dimension {dim}, got {} (dimensions {:?})",
                    misses.len(),
                    fresh.len(),
                    fresh.iter().map(Vec::len).take(3).collect::<Vec<_>>()
                ),
            }
            .into());
        }
        let mut fresh_map: HashMap<Key, Vec<f32>> = HashMap::with_capacity(fresh.len());
        {
            let mut cache = self.lock();
            for (k, v) in miss_keys.iter().zip(fresh) {
                let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
                cache.insert(*k, &v32)?;
                fresh_map.insert(*k, v32);
            }
            if cache.pending() >= FLUSH_EVERY {
                cache.flush()?;
            }
        }
        let n_fresh = fresh_map.len();
        let vectors = out
            .into_iter()
            .zip(&keys)
            .map(|(v, k)| v.or_else(|| fresh_map.get(k).cloned()).unwrap_or_default())
            .collect();
        Ok((vectors, n_fresh))
    }
}

impl<E: Embedder> Embedder for CachedEmbedder<E> {
    fn name(&self) -> &str {
        &self.name
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        let (v, _) = self.embed_f32(texts)?;
        Ok(v.into_iter()
            .map(|v| v.into_iter().map(f64::from).collect())
            .collect())
    }
}

impl<E: Embedder> Drop for CachedEmbedder<E> {
    fn drop(&mut self) {
        // Best effort: errors cannot be reported from drop; call `flush` to see them.
        let _ = self.lock().flush();
    }
}
