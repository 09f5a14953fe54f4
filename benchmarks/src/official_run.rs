//! `bench run --dataset multihop-rag --corpus FILE`: the official MultiHop-RAG retrieval
//! protocol (Tang & Yang 2024; repository `yixuantt/MultiHop-RAG`, `simple_retrieval.py` and
//! `retrieval_evaluate.py`), next to the reference program's protocol that a plain
//! `bench run --dataset multihop-rag` reproduces.
//!
//! * **Nodes** are the chunks of the articles of `corpus.json`, in article order then chunk
//!   order ([`chunk_corpus`]): llama-index's `SentenceSplitter` with chunk size 256
//!   ([`crate::chunk`], which says what is matched and what is approximated), each node's
//!   text the chunk under its article's metadata, as the official script embeds and scores
//!   it. Node ids are `a<article row>c<chunk>`.
//! * **Queries** are the non-null queries of the queries file (all of them unless `--limit`
//!   is given), in file order, ids `mh<row>` as in the reference protocol.
//! * **Graph** (label-free; no edge is derived from a label, so `--protocol paper` and
//!   `clean` build the same graph): `--graph reference` links consecutive chunks of one
//!   article both ways at [`SIBLING_EDGE_WEIGHT`] (the previous/next relationships the
//!   splitter records); `knn` and `title-mentions` are the usual builders
//!   ([`crate::build`]) over the chunks.
//! * **Methods** are the plan's (`embedding_topk`, the traversals, `bm25_topk`, `rrf_topk`);
//!   the learning methods learn from the chunk-level relevant sets below.
//! * **Scores** are the official four ([`crate::official`]): Hits@4, Hits@10, MAP@10 and
//!   MRR@10 of each method's first ten node texts against the query's evidence facts. They
//!   are the report's `official` block; the project's own recall metrics are not reported.
//!
//! Relevant chunks of a query (read only by the learning methods' outcome; the official
//! scores use the facts themselves): the chunks whose text, spaces and
//! newlines deleted, contains one of the query's evidence facts treated the same way — the
//! official relevance rule. Empty facts are left out of the relevant sets (the official
//! script would count every chunk as holding them; [`crate::official`] scores them so).
//! Gold facts are the loader's stripped `fact` strings ([`multihop::Evidence::fact`]); the
//! official script deletes only spaces and newlines from the raw ones, so the two differ
//! only for facts padded with other whitespace.
//!
//! No run files or qrels are written.

use std::path::{Path, PathBuf};
use std::time::Instant;

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::{json, Map, Value};

use crate::build::{Corpus, CorpusNode, CorpusQuery};
use crate::catalog::{self, Dataset};
use crate::chunk::{metadata_str, node_text, SentenceSplitter};
use crate::data::json::sha256_of_content;
use crate::data::locate::{resolve_input, DataDir};
use crate::data::multihop::{self, Article, Query};
use crate::error::{Error, Result};
use crate::official::{evidence_metrics, normalise, EvidenceMetrics};
use crate::output::{self, RunOutput};
use crate::plan::{Plan, RunArgs};
use crate::run::{execute, progress, set_threads, Inputs, LoadedData, Timings, DEFAULT_OUT_DIR};

/// Weight of the edges between consecutive chunks of one article (the MultiHop-RAG
/// reference graph's weight for its label-free group edges, [`multihop::GROUP_EDGE_WEIGHT`]).
pub const SIBLING_EDGE_WEIGHT: f64 = multihop::GROUP_EDGE_WEIGHT;

/// Retrieved texts the official script scores per query (`simple_retrieval.py`'s
/// `--topk` default, and the depth of every metric of `retrieval_evaluate.py`).
pub const OFFICIAL_DEPTH: usize = 10;

/// One chunk of an article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Row of the article in `corpus.json`.
    pub article: usize,
    /// Position of the chunk in its article.
    pub index: usize,
    /// The node text: the chunk under its article's metadata ([`node_text`]).
    pub text: String,
}

/// Chunks every article (see the module docs); `path` names the corpus file in errors.
pub fn chunk_articles(
    articles: &[Article],
    splitter: &SentenceSplitter,
    path: &Path,
) -> Result<Vec<Chunk>> {
    let mut out = Vec::new();
    for a in articles {
        let meta = metadata_str(&a.title, a.published_at.as_deref(), a.source.as_deref());
        let chunks =
            splitter
                .split_with_metadata(&a.body, &meta)
                .map_err(|e| Error::Malformed {
                    file: path.to_path_buf(),
                    row: a.index,
                    field: "title, published_at, source".into(),
                    expected: format!(
                        "metadata shorter than the chunk size {}",
                        splitter.chunk_size
                    ),
                    found: e.to_string(),
                })?;
        out.extend(chunks.iter().enumerate().map(|(k, c)| Chunk {
            article: a.index,
            index: k,
            text: node_text(&meta, c),
        }));
    }
    Ok(out)
}

/// Per query, the chunks that hold one of its (non-empty) evidence facts, ascending (the
/// official relevance rule, see the module docs). One pass over the chunks with every
/// distinct fact as a pattern.
pub fn relevant_chunks(chunks: &[Chunk], queries: &[Query]) -> Vec<Vec<usize>> {
    let mut patterns: indexmap::IndexMap<String, Vec<usize>> = indexmap::IndexMap::new();
    for (q, query) in queries.iter().enumerate() {
        for ev in &query.evidence {
            let f = normalise(&ev.fact);
            if !f.is_empty() {
                patterns.entry(f).or_default().push(q);
            }
        }
    }
    let mut out = vec![Vec::new(); queries.len()];
    if patterns.is_empty() {
        return out;
    }
    let keys: Vec<&str> = patterns.keys().map(String::as_str).collect();
    let Ok(ac) = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(&keys)
    else {
        return out;
    };
    for (d, c) in chunks.iter().enumerate() {
        let text = normalise(&c.text);
        for m in ac.find_overlapping_iter(&text) {
            for &q in &patterns[m.pattern().as_usize()] {
                if out[q].last() != Some(&d) {
                    out[q].push(d);
                }
            }
        }
    }
    out
}

/// The run's corpus: chunk nodes, the queries with their relevant chunks, consecutive-chunk
/// edges as the label-free structure and no label edges.
pub fn chunk_corpus(chunks: &[Chunk], articles: &[Article], queries: &[Query]) -> Corpus {
    // `Article::index` is the article's position in what `load_corpus` returns
    let title = |row: usize| articles.get(row).map_or("", |a| a.title.as_str());
    let nodes = chunks
        .iter()
        .map(|c| CorpusNode {
            id: format!("a{}c{}", c.article, c.index),
            title: title(c.article).to_string(),
            content: c.text.clone(),
        })
        .collect();
    let mut structural_ops = Vec::new();
    for d in 1..chunks.len() {
        if chunks[d].article == chunks[d - 1].article {
            structural_ops.push((d - 1, d, SIBLING_EDGE_WEIGHT));
            structural_ops.push((d, d - 1, SIBLING_EDGE_WEIGHT));
        }
    }
    let relevant = relevant_chunks(chunks, queries);
    Corpus {
        dataset: Dataset::MultihopRag,
        nodes,
        queries: queries
            .iter()
            .zip(relevant)
            .map(|(q, relevant)| CorpusQuery {
                qid: format!("mh{}", q.index),
                text: q.query.clone(),
                relevant,
            })
            .collect(),
        structural_ops,
        label_ops: Vec::new(),
    }
}

/// The official metrics of one method: its lists (one per scored query, node indices best
/// first) cut to [`OFFICIAL_DEPTH`], as node texts, against the evidence facts.
pub fn method_metrics(
    corpus: &Corpus,
    lists: &[Vec<usize>],
    scored: &[usize],
    queries: &[Query],
) -> EvidenceMetrics {
    let retrieved: Vec<Vec<&str>> = lists
        .iter()
        .map(|l| {
            l.iter()
                .take(OFFICIAL_DEPTH)
                .map(|&d| corpus.nodes[d].content.as_str())
                .collect()
        })
        .collect();
    let gold: Vec<Vec<&str>> = scored
        .iter()
        .map(|&q| {
            queries[q]
                .evidence
                .iter()
                .map(|e| e.fact.as_str())
                .collect()
        })
        .collect();
    evidence_metrics(&retrieved, &gold)
}

/// The corpus file of `--corpus`, checked to exist.
fn corpus_path(p: &Path) -> Result<PathBuf> {
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    Err(Error::NotFound {
        what: "MultiHop-RAG corpus (--corpus)".into(),
        tried: vec![p.to_path_buf()],
        hint: "Run `bench fetch --dataset multihop-rag-corpus` (it lands in \
               multihop_rag/corpus.json under the data directory) and pass that path."
            .into(),
    })
}

/// Runs the official protocol (`a.corpus` must be set; see the module docs) and writes its
/// report.
pub fn cmd_run(data_dir: &DataDir, a: &RunArgs) -> Result<RunOutput> {
    let corpus_arg = a
        .corpus
        .as_deref()
        .ok_or_else(|| Error::Internal("the official protocol needs --corpus".into()))?;
    if a.data.dataset != Dataset::MultihopRag {
        return Err(Error::Usage(
            "--corpus applies to --dataset multihop-rag only".into(),
        ));
    }
    if a.protocol.heldout().is_some() {
        return Err(Error::Usage(format!(
            "--corpus runs the official protocol over the queries in order: --protocol {} \
             does not apply (use paper or clean, which build the same label-free graph here)",
            a.protocol.as_str()
        )));
    }
    set_threads(a.threads);
    let mut args = a.clone();
    // the official protocol scores every non-null query
    args.data.limit = Some(args.data.limit.unwrap_or(0));
    let plan = Plan::new(&args)?;
    let splitter = SentenceSplitter {
        chunk_size: args.chunk_size,
        chunk_overlap: args.chunk_overlap,
    };
    if splitter.chunk_size == 0 || splitter.chunk_overlap > splitter.chunk_size {
        return Err(Error::Usage(format!(
            "--chunk-size must be positive and at least --chunk-overlap, got {} and {}",
            splitter.chunk_size, splitter.chunk_overlap
        )));
    }
    let t_all = Instant::now();
    let mut timings = Timings::default();
    let progress = progress(!args.no_progress);

    let t = Instant::now();
    let embedder = crate::embed::TextEmbedder::open(args.embedder, &args.model)?;
    timings.tick("embedder_load", t);
    let t = Instant::now();
    let file = catalog::known_file(Dataset::MultihopRag, args.data.variant)?;
    let queries_path = resolve_input(args.data.input.as_deref(), data_dir, file)?;
    let limit = args.data.limit();
    let queries = multihop::load_queries(
        &queries_path,
        multihop::QuerySelection::paper((limit > 0).then_some(limit)),
    )?;
    let corpus_file = corpus_path(corpus_arg)?;
    let articles = multihop::load_corpus(&corpus_file)?;
    if articles.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the corpus holds no article",
            corpus_file.display()
        )));
    }
    let chunks = chunk_articles(&articles, &splitter, &corpus_file)?;
    let corpus = chunk_corpus(&chunks, &articles, &queries);
    timings.tick("load_and_chunk", t);
    let content_sha = sha256_of_content(&queries_path)?;
    let corpus_sha = sha256_of_content(&corpus_file)?;
    let data = LoadedData {
        ds: Dataset::MultihopRag,
        file_sha: crate::run::sha256_of_file(&queries_path)?,
        recognised: catalog::by_sha256(&content_sha),
        content_sha,
        path: queries_path,
        limit,
        corpus,
    };
    let inputs = Inputs { embedder, data };
    let ex = execute(&plan, &inputs, &progress, &mut timings)?;
    let data = &inputs.data;
    let scored = ex.scored();
    let mut official = Map::new();
    for r in &ex.runs {
        let m = method_metrics(&data.corpus, &r.lists, &scored, &queries);
        official.insert(
            r.method.name.to_string(),
            json!({
                "hits_at_4": m.hits_at_4,
                "hits_at_10": m.hits_at_10,
                "map_at_10": m.map_at_10,
                "mrr_at_10": m.mrr_at_10,
            }),
        );
    }
    let corpus_name = corpus_file
        .file_name()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut report = output::report_head(&plan, data.ds, &ex, data.corpus.queries.len());
    let mut put = |k: &str, v: Value| {
        report.insert(k.to_string(), v);
    };
    put(
        "protocol_note",
        json!(
            "official MultiHop-RAG retrieval protocol (simple_retrieval.py + \
               retrieval_evaluate.py): nodes are 256-token chunks of corpus.json; the \
               chunk graph has no label edges, so paper and clean are the same graph"
        ),
    );
    let mut command = plan.command_line(data.recognised, &data.file_name());
    command.push_str(&format!(
        " --corpus {corpus_name} --chunk-size {} --chunk-overlap {}",
        splitter.chunk_size, splitter.chunk_overlap
    ));
    put(
        "configuration",
        json!({
            "command": command,
            "dense_search": plan.dense_search.as_str(),
            "traversal": plan.traversal,
            "learning": plan.learning,
        }),
    );
    put(
        "chunking",
        json!({
            "splitter": "llama-index SentenceSplitter (approximation, benchmarks/src/chunk.rs)",
            "chunk_size": splitter.chunk_size,
            "chunk_overlap": splitter.chunk_overlap,
            "token_count": "pieces of the cl100k_base pre-tokenisation pattern (a lower bound of tiktoken's count)",
            "articles": articles.len(),
            "chunks": chunks.len(),
            "corpus_file": corpus_name,
            "corpus_known_file": catalog::by_sha256(&corpus_sha).map(|f| f.key),
            "corpus_content_sha256": corpus_sha,
        }),
    );
    put(
        "evaluation",
        json!({
            "mode": plan.schedule.name(),
            "learned_from_queries": ex.steps.iter().filter(|s| s.learn).count(),
            "scored_queries": scored.len(),
            "retrieved_scored_per_query": OFFICIAL_DEPTH,
            "queries_without_relevant_chunk": data.corpus.queries.iter().filter(|q| q.relevant.is_empty()).count(),
            "outcome_metric": data.ds.outcome_metric(),
        }),
    );
    put("official", Value::Object(official));
    put(
        "official_notes",
        json!({
            "hits_at_4": "share of queries with an evidence-holding chunk among the first 4",
            "hits_at_10": "share of queries with an evidence-holding chunk among the first 10",
            "map_at_10": "retrieval_evaluate.py's MAP@10: per relevant rank r <= 10, facts found there first / r, summed, / min(facts, 10)",
            "mrr_at_10": "1 / rank of the first evidence-holding chunk within 10, else 0",
        }),
    );
    put(
        "method_notes",
        output::method_notes(ex.runs.iter().map(|r| r.method)),
    );
    put(
        "manifest",
        json!({
            "queries": data.corpus.queries.len(),
            "query_ids_sha256": output::lines_sha256(data.corpus.queries.iter().map(|q| q.qid.as_str())),
            "documents": data.corpus.nodes.len(),
            "document_ids_sha256": output::lines_sha256(data.corpus.node_ids()),
        }),
    );
    put("provenance", output::provenance(&inputs, &ex, Value::Null));
    timings.tick("total", t_all);
    if !args.no_timings {
        put("timings_s", timings.to_json());
    }
    let out = match &args.out {
        Some(p) => p.clone(),
        None => {
            let name = plan
                .names(data.recognised, data.corpus.queries.len())
                .report();
            Path::new(DEFAULT_OUT_DIR)
                .join(format!("{}-official.json", name.trim_end_matches(".json")))
        }
    };
    let report = Value::Object(report);
    output::save_json(&out, &report)?;
    let _ = progress.clear();
    Ok(RunOutput {
        json_path: out,
        report,
    })
}

/// A one-screen table of a report's `official` block (empty for other reports).
pub fn summary(report: &Value) -> String {
    let cols = ["hits_at_4", "hits_at_10", "map_at_10", "mrr_at_10"];
    output::method_table(report, "official", "method (official)", &cols, 12)
}
