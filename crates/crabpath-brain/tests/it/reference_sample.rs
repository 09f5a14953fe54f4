//! The reference's own sample workspace (`examples/sample_workspace` of a checkout of
//! jonathangu/crabpath at commit 134c676, not committed here): `init` outputs must have
//! the SHA-256 the reference's `init` produces.

use std::path::PathBuf;

use crabpath::{Embedder, HashEmbedder, Profile, VectorIndex};
use crabpath_brain::reference::reffiles::{write_init, EmbedderInfo};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use sha2::{Digest, Sha256};

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[test]
#[ignore = "needs a checkout of the reference at 134c676 in CRABPATH_REFERENCE_CHECKOUT; run with: cargo test --workspace -- --ignored"]
fn sample_workspace_init_matches_reference_hashes() {
    let checkout = std::env::var_os("CRABPATH_REFERENCE_CHECKOUT").unwrap_or_else(|| {
        panic!(
            "CRABPATH_REFERENCE_CHECKOUT is not set: point it at a checkout of jonathangu/crabpath \
             at commit 134c676 (git clone https://github.com/jonathangu/crabpath && git -C crabpath checkout 134c676)"
        )
    });
    let ws = PathBuf::from(checkout).join("examples/sample_workspace");
    assert!(ws.is_dir(), "{} is not a directory", ws.display());
    let b = split_workspace(&ws, &SplitOptions::new(Profile::Paper)).unwrap();
    let embedder = HashEmbedder::new();
    let mut index = VectorIndex::new();
    for (id, text) in b.texts() {
        index.upsert(id, embedder.embed(text).unwrap()).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let files = write_init(out.path(), &b.graph, &index, &EmbedderInfo::hash_v1()).unwrap();
    // the reference's `init` output hashes, as recorded with the reference run
    // (graph.json 11 884 bytes, index.json 260 019 bytes, texts.json 3 194 bytes)
    let want = [
        (
            &files.graph,
            "bef31e5b1eb9a52df9275df870db4ea46c4beed85835e1216d103c21b3d427a7",
        ),
        (
            &files.index,
            "1a6eae81da72d08433ba89dd293e85900027d34e73c556dd596c918cd51cb67d",
        ),
        (
            &files.texts,
            "a9e01662a6e7a10df6224c9df812147f39ba9aa0a5e9910bc7d78fbd914cefbe",
        ),
    ];
    for (path, sha) in want {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(sha256_hex(&bytes), sha, "{}", path.display());
    }
}
