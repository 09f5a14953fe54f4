//! The candidates of every LoCoMo question asked through the product's default query
//! (hash-v1, `top` 6, `limit` 50), each with the features of
//! `crabpath_brain::service::rerank`, as JSON Lines (one conversation a line): what
//! `benchmarks/scripts/rerank_fit.py` fits the ranker's weights on (issue 28).
//!
//! `cargo run --release -p bench --example rerank_dump -- OUT.jsonl [DATA_DIR]`
//! (`DATA_DIR` holds `locomo/locomo10.json.gz`; default `/work/shared/datasets`).

use std::io::Write;

use anyhow::Context;
use bench::locomo::{data, product};
use crabpath::embed::Embedder;
use crabpath_brain::QueryRequest;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .get(1)
        .context("usage: rerank_dump OUT.jsonl [DATA_DIR]")?;
    let dir = args.get(2).map_or("/work/shared/datasets", String::as_str);
    let d = data::load(&std::path::Path::new(dir).join("locomo/locomo10.json.gz"))?;
    let e = crabpath::embed::HashEmbedder::new();
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    for c in &d.conversations {
        let mut b = product::build(c, &e)?;
        let mut qs = Vec::new();
        for q in &c.questions {
            let mut req = QueryRequest::new(&q.question, 6);
            req.vector = Some(e.embed(&q.question)?);
            req.limit = Some(product::LIMIT);
            req.neurogenesis = Some(false);
            let a = b.brain_mut().query(&req)?;
            qs.push(serde_json::json!({
                "cat": q.category.code(),
                "ev": q.released_evidence,
                "ranked": a.ranking,
                "cand": a.reordered,
            }));
        }
        writeln!(f, "{}", serde_json::json!({"conv": c.sample_id, "qs": qs}))?;
    }
    Ok(())
}
