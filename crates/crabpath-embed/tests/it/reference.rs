//! all-MiniLM-L6-v2 against the vectors sentence-transformers produced from the same
//! weights (committed in `results/reference/minilm/`, README there). Needs the model
//! weights, an external input: the test is ignored by `cargo test --workspace` and,
//! when run with `-- --ignored` without them, fails saying how to fetch them.

use crate::common;

use common::{cosine, read_gz_json};
use crabpath::embed::Embedder;
use crabpath_embed::model::check_model_dir;
use crabpath_embed::{resolve_model_dir, EmbedderOptions, MiniLmEmbedder, MAX_SEQ_LEN};

fn load_model(options: EmbedderOptions) -> MiniLmEmbedder {
    let dir = resolve_model_dir(None);
    testdata::external(
        "the all-MiniLM-L6-v2 weights",
        "cargo run -p crabpath-embed -- fetch-model (or set CRABPATH_MODEL_DIR)",
        check_model_dir(&dir),
    );
    MiniLmEmbedder::load(&dir, options).unwrap_or_else(|e| panic!("loading the model: {e}"))
}

struct Item {
    text: String,
    tokens_untruncated: usize,
    embedding: Vec<f64>,
}

fn reference_items() -> Vec<Item> {
    let json = read_gz_json(&testdata::reference("minilm/minilm-reference.json.gz"));
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
#[ignore = "needs the all-MiniLM-L6-v2 weights (cargo run -p crabpath-embed -- fetch-model); run with: cargo test --workspace -- --ignored"]
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
    });
    check(&single, "fast, unbatched");
}

/// The committed reference file itself (no model needed): ten texts, 384-d unit vectors.
#[test]
fn reference_file_is_well_formed() {
    let items = reference_items();
    assert_eq!(items.len(), 10);
    for item in &items {
        assert_eq!(item.embedding.len(), 384, "{:?}", item.text);
        let norm: f64 = item.embedding.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{:?}: norm {norm}", item.text);
        assert!(item.tokens_untruncated > 0);
    }
}

/// A weights file of the right size and shape whose bytes are not the model's (one
/// bit flipped) is refused at load, naming the file, its digest and `fetch-model`;
/// before, it loaded and embedded wrong vectors without a word (which `sync` or
/// `teach` would then have written into a brain). An unchanged copy still loads.
#[test]
#[ignore = "needs the all-MiniLM-L6-v2 weights (cargo run -p crabpath-embed -- fetch-model); run with: cargo test --workspace -- --ignored"]
fn damaged_weights_are_refused_at_load() {
    let dir = resolve_model_dir(None);
    testdata::external(
        "the all-MiniLM-L6-v2 weights",
        "cargo run -p crabpath-embed -- fetch-model (or set CRABPATH_MODEL_DIR)",
        check_model_dir(&dir),
    );
    let copy = tempfile::tempdir().unwrap();
    for f in crabpath_embed::model::REQUIRED_FILES {
        std::fs::copy(dir.join(f), copy.path().join(f)).unwrap();
    }
    let options = EmbedderOptions::default;
    MiniLmEmbedder::load(copy.path(), options()).expect("an unchanged copy loads");
    let weights = copy.path().join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    // a byte well inside the tensors (the header is a few kB)
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&weights, &bytes).unwrap();
    let e = MiniLmEmbedder::load(copy.path(), options())
        .expect_err("a flipped bit in the weights")
        .to_string();
    for part in ["model.safetensors", "SHA-256", "fetch-model"] {
        assert!(e.contains(part), "{part} in: {e}");
    }
}
