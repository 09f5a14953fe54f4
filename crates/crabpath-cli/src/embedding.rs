//! Embedding many texts: in batches, in parallel for hash-v1 (MiniLM parallelises
//! inside each batch), with a progress bar when a person is watching. Results are in
//! input order and do not depend on the number of threads.

use crabpath::embed::Embedder;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::context::Which;
use crate::error::CliResult;

/// Texts per batch.
const BATCH: usize = 256;

/// A progress bar on stderr (hidden unless `show`).
pub fn bar(len: usize, what: &str, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// Embeds `texts` in order.
pub fn embed_all(
    embedder: &dyn Embedder,
    which: Which,
    texts: &[&str],
    show_progress: bool,
) -> CliResult<Vec<Vec<f64>>> {
    let pb = bar(
        texts.len(),
        "embedding",
        show_progress && texts.len() > BATCH,
    );
    let batches: Vec<&[&str]> = texts.chunks(BATCH).collect();
    let results: Vec<crabpath::Result<Vec<Vec<f64>>>> = if which == Which::Hash {
        batches
            .par_iter()
            .map(|b| {
                let r = embedder.embed_batch(b);
                pb.inc(b.len() as u64);
                r
            })
            .collect()
    } else {
        batches
            .iter()
            .map(|b| {
                let r = embedder.embed_batch(b);
                pb.inc(b.len() as u64);
                r
            })
            .collect()
    };
    pb.finish_and_clear();
    let mut out = Vec::with_capacity(texts.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}
