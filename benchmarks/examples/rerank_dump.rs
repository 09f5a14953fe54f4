//! The candidates of every LoCoMo question asked through the product's default query
//! (hash-v1, `top` 6, `limit` 50), each with the features of
//! `crabpath_brain::service::rerank`, as JSON Lines (one conversation a line): what
//! `benchmarks/scripts/rerank_fit.py` fits the ranker's weights on (issue 28).
//!
//! `cargo run --release -p bench --example rerank_dump -- OUT.jsonl [DATA_DIR]`
//! (`DATA_DIR` holds `locomo/locomo10.json.gz`; default `$CRABPATH_DATA_DIR`, else
//! `../shared/datasets`).
//!
//! It also measures what the ranker costs: every question is asked twice more, with the
//! ranker on and off in alternating order, and the per-query times' p50 / p99 of each are
//! printed to stderr (one run, so the ratio is what to read; BENCHMARKS.md, "The
//! conversation ranker's cost").

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use bench::locomo::{data, product};
use crabpath::embed::Embedder;
use crabpath_brain::QueryRequest;

/// The `q`-quantile of `xs` (nearest rank; `xs` sorted ascending, not empty).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let i = ((xs.len() as f64 * q).ceil() as usize).clamp(1, xs.len()) - 1;
    xs[i]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .get(1)
        .context("usage: rerank_dump OUT.jsonl [DATA_DIR]")?;
    let dir = args
        .get(2)
        .cloned()
        .or_else(|| std::env::var("CRABPATH_DATA_DIR").ok())
        .unwrap_or_else(|| "../shared/datasets".into());
    let path = std::path::Path::new(&dir).join("locomo/locomo10.json.gz");
    let d = data::load(&path).with_context(|| format!("reading {}", path.display()))?;
    let e = crabpath::embed::HashEmbedder::new();
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    let (mut on_ms, mut off_ms) = (Vec::new(), Vec::new());
    for c in &d.conversations {
        let mut b = product::build(c, &e)?;
        let mut qs = Vec::new();
        for (i, q) in c.questions.iter().enumerate() {
            let mut req = QueryRequest::new(&q.question, 6);
            req.vector = Some(e.embed(&q.question)?);
            req.limit = Some(product::LIMIT);
            req.neurogenesis = Some(false);
            req.keep_candidates = true;
            let order = if i % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            };
            for rerank in order {
                req.rerank = rerank;
                let t = Instant::now();
                b.brain_mut().query(&req)?;
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                if rerank { &mut on_ms } else { &mut off_ms }.push(ms);
            }
            req.rerank = true;
            let a = b.brain_mut().query(&req)?;
            qs.push(serde_json::json!({
                "cat": q.category.code(),
                "ev": q.released_evidence,
                "ranked": a.ranking,
                "cand": a.candidates,
            }));
        }
        writeln!(f, "{}", serde_json::json!({"conv": c.sample_id, "qs": qs}))?;
    }
    for (name, xs) in [("ranker on", &mut on_ms), ("ranker off", &mut off_ms)] {
        xs.sort_by(f64::total_cmp);
        if !xs.is_empty() {
            eprintln!(
                "{name}: {} queries, p50 {:.3} ms, p99 {:.3} ms",
                xs.len(),
                quantile(xs, 0.5),
                quantile(xs, 0.99)
            );
        }
    }
    Ok(())
}
