//! Helpers shared by the reference tests (`reference.rs` for all-MiniLM-L6-v2,
//! `mpnet_reference.rs` for all-mpnet-base-v2).

#![allow(dead_code)]

use std::io::Read;
use std::path::Path;

/// A gzip-compressed JSON file (the committed reference vectors).
pub fn read_gz_json(path: &Path) -> serde_json::Value {
    let file = std::fs::File::open(path)
        .unwrap_or_else(|e| panic!("reference file {}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip JSON");
    serde_json::from_str(&text).expect("reference JSON")
}

/// Cosine similarity of two vectors.
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (na * nb)
}
