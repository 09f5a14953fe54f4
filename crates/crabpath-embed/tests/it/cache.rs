//! The embedding cache and `CachedEmbedder`, with a counting stand-in embedder.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crabpath::embed::Embedder;
use crabpath_embed::cache::{text_key, EmbeddingCache, MAGIC, SHARD_EXT};
use crabpath_embed::CachedEmbedder;

/// Counts the texts it embeds; vectors are f32-exact so the cache round-trips them.
struct Counting {
    calls: Arc<AtomicUsize>,
    texts: Arc<AtomicUsize>,
}

impl Embedder for Counting {
    fn name(&self) -> &str {
        "counting-test"
    }
    fn dim(&self) -> usize {
        4
    }
    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|t| {
                let n = t.len() as f64;
                vec![n, n * 0.5, -n, 1.0]
            })
            .collect())
    }
}

fn counting() -> (Counting, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let texts = Arc::new(AtomicUsize::new(0));
    (
        Counting {
            calls: calls.clone(),
            texts: texts.clone(),
        },
        calls,
        texts,
    )
}

#[test]
fn second_run_embeds_nothing() {
    let root = tempfile::tempdir().expect("tempdir");
    let inputs = ["alpha", "beta", "alpha", "gamma delta", ""];
    let first = {
        let (inner, calls, texts) = counting();
        let cached = CachedEmbedder::open(inner, root.path()).expect("open");
        let v = cached.embed_batch(&inputs).expect("embed");
        // One batch of the distinct misses.
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(texts.load(Ordering::SeqCst), 4);
        let again = cached.embed_batch(&inputs).expect("embed");
        assert_eq!(v, again);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        v
    }; // dropped: flushed to disk
    let (inner, calls, _) = counting();
    let cached = CachedEmbedder::open(inner, root.path()).expect("reopen");
    assert_eq!(cached.cached(), 4);
    let second = cached.embed_batch(&inputs).expect("embed");
    assert_eq!(first, second);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "second run embedded something"
    );
    assert_eq!(second[0], vec![5.0, 2.5, -5.0, 1.0]);
    assert!(cached.embed_batch(&[]).expect("empty").is_empty());
}

#[test]
fn only_misses_are_embedded() {
    let root = tempfile::tempdir().expect("tempdir");
    let (inner, _, texts) = counting();
    let cached = CachedEmbedder::open(inner, root.path()).expect("open");
    cached.embed_batch(&["a", "b"]).expect("embed");
    cached.embed_batch(&["b", "c", "a", "d"]).expect("embed");
    assert_eq!(texts.load(Ordering::SeqCst), 4);
}

#[test]
fn shards_are_complete_files_and_compact() {
    let root = tempfile::tempdir().expect("tempdir");
    let mut cache = EmbeddingCache::open(root.path(), "m", 3).expect("open");
    for i in 0..5 {
        cache
            .insert(text_key(&format!("t{i}")), &[i as f32, 0.25, -1.5])
            .expect("insert");
        cache.flush().expect("flush");
    }
    let shards = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .expect("list")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == SHARD_EXT))
            .collect()
    };
    let dir = cache.dir().to_path_buf();
    assert_eq!(shards(&dir).len(), 5);
    // No temporary files are left behind.
    assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 5);
    let bytes = std::fs::read(&shards(&dir)[0]).expect("read");
    assert_eq!(&bytes[..8], MAGIC);
    assert_eq!(bytes.len(), 8 + 4 + 4 + 2 + 1 + 8 + (32 + 12));
    cache.compact().expect("compact");
    assert_eq!(shards(&dir).len(), 1);
    let reopened = EmbeddingCache::open(root.path(), "m", 3).expect("reopen");
    assert_eq!(reopened.len(), 5);
    assert_eq!(reopened.get_text("t3"), Some(&[3.0f32, 0.25, -1.5][..]));
    // Another dimension is another directory, never mixed up.
    let other = EmbeddingCache::open(root.path(), "m", 4).expect("open other");
    assert!(other.is_empty());
}

#[test]
fn corrupt_shard_is_an_error_not_a_panic() {
    let root = tempfile::tempdir().expect("tempdir");
    let mut cache = EmbeddingCache::open(root.path(), "m", 2).expect("open");
    cache.insert(text_key("x"), &[1.0, 2.0]).expect("insert");
    cache.flush().expect("flush");
    let dir = cache.dir().to_path_buf();
    std::fs::write(dir.join(format!("bad.{SHARD_EXT}")), b"CPEMBED\0garbage").expect("write");
    let err = EmbeddingCache::open(root.path(), "m", 2).expect_err("corrupt shard");
    assert!(err.to_string().contains("bad."), "{err}");
}

/// Returns vectors of the wrong dimension.
struct Broken;

impl Embedder for Broken {
    fn name(&self) -> &str {
        "broken-test"
    }
    fn dim(&self) -> usize {
        3
    }
    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        Ok(texts.iter().map(|_| vec![1.0]).collect())
    }
}

#[test]
fn inconsistent_inner_embedder_is_an_error() {
    let root = tempfile::tempdir().expect("tempdir");
    let cached = CachedEmbedder::open(Broken, root.path()).expect("open");
    let err = cached.embed_batch(&["x"]).expect_err("wrong dimension");
    assert!(err.to_string().contains("broken-test"), "{err}");
    assert_eq!(cached.cached(), 0);
}
