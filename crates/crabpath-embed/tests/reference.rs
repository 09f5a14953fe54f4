//! all-MiniLM-L6-v2 against the vectors sentence-transformers produced from the same
//! weights (`shared/spec/minilm-reference.json`). Needs the model: when it is
//! absent this test fails and says how to fetch it.

use std::path::PathBuf;

use crabpath::embed::Embedder;
use crabpath_embed::model::{check_model_dir, workspace_root};
use crabpath_embed::{resolve_model_dir, Backend, EmbedderOptions, MiniLmEmbedder, MAX_SEQ_LEN};

/// `$CRABPATH_SHARED_DIR/spec/minilm-reference.json` (or directly in that
/// directory), else `../shared/spec/` beside the workspace root.
fn reference_path() -> PathBuf {
    let shared = match std::env::var_os("CRABPATH_SHARED_DIR") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => workspace_root().join("../shared"),
    };
    let direct = shared.join("minilm-reference.json");
    if direct.is_file() {
        direct
    } else {
        shared.join("spec/minilm-reference.json")
    }
}

fn load_model(options: EmbedderOptions) -> MiniLmEmbedder {
    let dir = resolve_model_dir(None);
    if let Err(e) = check_model_dir(&dir) {
        panic!("{e}");
    }
    MiniLmEmbedder::load(&dir, options).unwrap_or_else(|e| panic!("loading the model: {e}"))
}

struct Item {
    text: String,
    tokens_untruncated: usize,
    embedding: Vec<f64>,
}

fn reference_items() -> Vec<Item> {
    let path = reference_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "reading {} (set CRABPATH_SHARED_DIR to the shared/ directory): {e}",
            path.display()
        )
    });
    let json: serde_json::Value = serde_json::from_str(&text).expect("reference JSON");
    let items = json["items"].as_array().expect("items array");
    items
        .iter()
        .map(|it| Item {
            text: it["text"].as_str().expect("text").to_string(),
            tokens_untruncated: it["tokens_untruncated"].as_u64().expect("tokens") as usize,
            embedding: it["embedding"]
                .as_array()
                .expect("embedding")
                .iter()
                .map(|x| x.as_f64().expect("number"))
                .collect(),
        })
        .collect()
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (na * nb)
}

fn check(model: &MiniLmEmbedder, batch_size_note: &str) {
    let items = reference_items();
    assert_eq!(items.len(), 10);
    let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
    let got = model.embed_batch(&texts).expect("embedding");
    assert_eq!(got.len(), items.len());
    let mut worst_cos = f64::INFINITY;
    let mut worst_diff = 0f64;
    for (item, v) in items.iter().zip(&got) {
        assert_eq!(v.len(), item.embedding.len(), "dimension");
        let cos = cosine(v, &item.embedding);
        let diff = v
            .iter()
            .zip(&item.embedding)
            .map(|(a, b)| (a - b).abs())
            .fold(0f64, f64::max);
        worst_cos = worst_cos.min(cos);
        worst_diff = worst_diff.max(diff);
        assert!(
            cos >= 0.9999 && diff <= 1e-4,
            "{batch_size_note}: {:?}: cosine {cos}, max |diff| {diff}",
            item.text
        );
    }
    println!("{batch_size_note}: min cosine {worst_cos:.9}, max |diff| {worst_diff:.3e}");
}

#[test]
fn matches_sentence_transformers() {
    let model = load_model(EmbedderOptions::default());
    for item in reference_items() {
        let ids = model.token_ids(&item.text).expect("tokenize");
        assert_eq!(
            ids.len(),
            item.tokens_untruncated.min(MAX_SEQ_LEN),
            "token count of {:?}",
            item.text
        );
    }
    check(&model, "fast, batched");
    assert!(model.embed_batch(&[]).expect("empty batch").is_empty());
    // One text per forward pass on one thread: batching must not change anything.
    let single = load_model(EmbedderOptions {
        batch_size: 1,
        threads: Some(1),
        ..Default::default()
    });
    check(&single, "fast, unbatched");
    // candle-transformers' BertModel on padded batches.
    let candle = load_model(EmbedderOptions {
        backend: Backend::Candle,
        batch_size: 4,
        ..Default::default()
    });
    check(&candle, "candle, padded batches of 4");
    assert!(candle.embed_batch(&[]).expect("empty batch").is_empty());
}
