//! Rank flips of the f32 dense search against the f64 reference arithmetic, for the run a
//! `bench run` command line describes (`BENCHMARKS.md`, "Dense search: f64 vs f32").
//!
//! ```text
//! cargo run --release -p bench --example dense_flips -- [--depth N] '<bench run command line>'...
//! ```
//!
//! Embeds the run's nodes and queries (through the embedding cache for MiniLM), searches
//! every query on both paths ([`bench::dense`]) to `--depth` hits (default 100, the depth
//! `rrf_topk` reads), and prints, per command line: how many queries have the same ids in
//! the same order at depths 8 (seeds), 10 (`embedding_topk`) and `--depth`; then one line
//! per rank where the two lists differ (query, rank, the f64 and f32 ids there, and the gap
//! between the f64 cosines of the two ids).

use anyhow::{bail, Context, Result};
use bench::data::locate::DataDir;
use bench::dense::{DenseIndex, DenseSearch};
use bench::engine::{Inputs, Timings};
use bench::plan::{Plan, RunArgs};

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut depth = 100;
    if args.first().map(String::as_str) == Some("--depth") {
        depth = args.get(1).context("--depth needs a value")?.parse()?;
        args.drain(..2);
    }
    if args.is_empty() {
        bail!("usage: dense_flips [--depth N] '<bench run command line>'...");
    }
    let data_dir = DataDir::resolve(None);
    for line in &args {
        let plan = Plan::new(&RunArgs::from_command_line(line)?)?;
        let mut timings = Timings::default();
        let inputs = Inputs::open(&plan, &data_dir, &mut timings)?;
        let texts = inputs.data.texts();
        let bar = indicatif::ProgressBar::hidden();
        let (mut vectors, _) = inputs.embedder.embed(&texts, &bar)?;
        let queries = vectors.split_off(inputs.data.corpus.nodes.len());
        let dim = inputs.embedder.dim();
        let exact = DenseIndex::new(DenseSearch::F64Exact, &vectors, dim)?;
        let fast = DenseIndex::new(DenseSearch::F32Tiled, &vectors, dim)?;
        // the f64 cosine of every node, to measure the gap of a swapped pair
        let full = exact.search_all(&queries, vectors.len())?;
        let a = exact.search_all(&queries, depth)?;
        let b = fast.search_all(&queries, depth)?;
        println!("{line}");
        for k in [8, 10, depth] {
            let same = a
                .iter()
                .zip(&b)
                .filter(|(x, y)| ids(x, k) == ids(y, k))
                .count();
            println!("  same top-{k} ids in order: {same}/{}", a.len());
        }
        let mut flips = 0;
        let mut max_gap: f64 = 0.0;
        for (q, (x, y)) in a.iter().zip(&b).enumerate() {
            let cos: std::collections::HashMap<usize, f64> = full[q].iter().copied().collect();
            for (r, (p, s)) in x.iter().zip(y).enumerate() {
                if p.0 != s.0 {
                    flips += 1;
                    let gap = (cos[&p.0] - cos[&s.0]).abs();
                    max_gap = max_gap.max(gap);
                    println!(
                        "  flip: query {q} ({}) rank {}: f64 node {} vs f32 node {}, f64 cosine gap {gap:.3e}",
                        inputs.data.corpus.queries[q].qid,
                        r + 1,
                        p.0,
                        s.0
                    );
                }
            }
        }
        println!(
            "  ranks that differ within top-{depth}: {flips} (max f64 cosine gap {max_gap:.3e})"
        );
    }
    Ok(())
}

fn ids(h: &[(usize, f64)], k: usize) -> Vec<usize> {
    h.iter().take(k).map(|p| p.0).collect()
}
