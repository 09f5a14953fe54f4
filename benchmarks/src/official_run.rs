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
//! No run files or qrels are written. Its report's sections are
//! [`results::bench::Official`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use aho_corasick::{AhoCorasick, MatchKind};
use results::bench::{Chunking, EvaluationScope, OfficialScores, Report};

use crate::build::{Corpus, CorpusNode, CorpusQuery};
use crate::catalog::{self, Dataset};
use crate::chunk::{metadata_str, node_text, SentenceSplitter};
use crate::data::json::sha256_of_content;
use crate::data::locate::resolve_input;
use crate::data::multihop::{self, Article, Query};
use crate::engine::{run_stream, sha256_of_file, Inputs, LoadedData, StreamRun};
use crate::error::{Error, Result};
use crate::official::{evidence_metrics, normalise, EvidenceMetrics};
use crate::plan::{Plan, RunArgs, DEFAULT_OUT_DIR};
use crate::protocol::{Env, Protocol};
use crate::report::{self, Format, Frame, Written};

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

/// The official protocol's plan: the run's plan, the splitter and the corpus file.
#[derive(Debug, Clone)]
pub struct OfficialPlan {
    /// The run's plan (every non-null query).
    pub plan: Plan,
    /// The chunker.
    pub splitter: SentenceSplitter,
    /// `--corpus`.
    pub corpus: PathBuf,
}

/// What the official protocol reads: the embedder and the chunk corpus, the queries with
/// their evidence, and the corpus file's identity.
#[derive(Debug)]
pub struct OfficialInputs {
    /// The embedder and the chunk corpus.
    pub inputs: Inputs,
    /// The queries, with their evidence facts.
    pub queries: Vec<Query>,
    /// Articles chunked.
    pub articles: usize,
    /// Chunks made.
    pub chunks: usize,
    /// The corpus file's name.
    pub corpus_name: String,
    /// SHA-256 of its content.
    pub corpus_sha: String,
}

/// The official MultiHop-RAG protocol (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Official;

impl Protocol for Official {
    type Args = RunArgs;
    type Plan = OfficialPlan;
    type Inputs = OfficialInputs;
    type Executed = StreamRun;
    type Report = Report<results::bench::Official>;
    type Error = Error;

    fn plan(&self, a: &RunArgs) -> Result<OfficialPlan> {
        let corpus = a
            .corpus
            .clone()
            .ok_or_else(|| Error::Internal("the official protocol needs --corpus".into()))?;
        if a.data.dataset != Dataset::MultihopRag {
            return Err(Error::Usage(
                "--corpus applies to --dataset multihop-rag only".into(),
            ));
        }
        if a.protocol.heldout().is_some() {
            return Err(Error::Usage(format!(
                "--corpus runs the official protocol over the queries in order: --protocol {} \
                 does not apply (use paper or clean, which build the same label-free graph \
                 here)",
                a.protocol.as_str()
            )));
        }
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
        Ok(OfficialPlan {
            plan,
            splitter,
            corpus,
        })
    }

    fn open(&self, p: &OfficialPlan, env: &mut Env) -> Result<OfficialInputs> {
        let args = &p.plan.args;
        let t = Instant::now();
        let embedder = crate::embed::TextEmbedder::open(args.embedder, &args.model)?;
        env.timings.tick("embedder_load", t);
        let t = Instant::now();
        let file = catalog::known_file(Dataset::MultihopRag, args.data.variant)?;
        let queries_path = resolve_input(args.data.input.as_deref(), env.data_dir, file)?;
        let limit = args.data.limit();
        let queries = multihop::load_queries(
            &queries_path,
            multihop::QuerySelection::paper((limit > 0).then_some(limit)),
        )?;
        let corpus_file = corpus_path(&p.corpus)?;
        let articles = multihop::load_corpus(&corpus_file)?;
        if articles.is_empty() {
            return Err(Error::Usage(format!(
                "{}: the corpus holds no article",
                corpus_file.display()
            )));
        }
        let chunks = chunk_articles(&articles, &p.splitter, &corpus_file)?;
        let corpus = chunk_corpus(&chunks, &articles, &queries);
        env.timings.tick("load_and_chunk", t);
        let content_sha = sha256_of_content(&queries_path)?;
        let corpus_sha = sha256_of_content(&corpus_file)?;
        let data = LoadedData {
            ds: Dataset::MultihopRag,
            file_sha: sha256_of_file(&queries_path)?,
            recognised: catalog::by_sha256(&content_sha),
            content_sha,
            path: queries_path,
            limit,
            corpus,
        };
        Ok(OfficialInputs {
            inputs: Inputs { embedder, data },
            queries,
            articles: articles.len(),
            chunks: chunks.len(),
            corpus_name: corpus_file
                .file_name()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
            corpus_sha,
        })
    }

    fn texts<'i>(&self, inputs: &'i OfficialInputs) -> Vec<&'i str> {
        inputs.inputs.data.texts()
    }

    fn execute(
        &self,
        p: &OfficialPlan,
        inputs: &OfficialInputs,
        env: &mut Env,
    ) -> Result<StreamRun> {
        run_stream(&p.plan, &inputs.inputs, &env.progress, &mut env.timings)
    }

    fn report(
        &self,
        p: &OfficialPlan,
        oi: &OfficialInputs,
        ex: StreamRun,
        env: &mut Env,
    ) -> Result<Written<Self::Report>> {
        let plan = &p.plan;
        let data = &oi.inputs.data;
        let scored = ex.scored();
        let official = ex
            .runs
            .iter()
            .map(|r| {
                let m = method_metrics(&data.corpus, &r.lists, &scored, &oi.queries);
                (
                    r.method.name.to_string(),
                    OfficialScores {
                        hits_at_4: m.hits_at_4,
                        hits_at_10: m.hits_at_10,
                        map_at_10: m.map_at_10,
                        mrr_at_10: m.mrr_at_10,
                    },
                )
            })
            .collect();
        let frame = Frame {
            plan,
            inputs: &oi.inputs,
            embedder: &ex.embedder,
            graph: ex.graph,
        };
        let sections = results::bench::Official {
            chunking: Chunking {
                splitter: "llama-index SentenceSplitter (approximation, benchmarks/src/chunk.rs)"
                    .to_string(),
                chunk_size: p.splitter.chunk_size,
                chunk_overlap: p.splitter.chunk_overlap,
                token_count: "pieces of the cl100k_base pre-tokenisation pattern (a lower \
                              bound of tiktoken's count)"
                    .to_string(),
                articles: oi.articles,
                chunks: oi.chunks,
                corpus_file: oi.corpus_name.clone(),
                corpus_known_file: catalog::by_sha256(&oi.corpus_sha).map(|f| f.key.to_string()),
                corpus_content_sha256: oi.corpus_sha.clone(),
            },
            evaluation: report::evaluation(
                plan,
                ex.learned(),
                scored.len(),
                EvaluationScope::Chunks {
                    retrieved_scored_per_query: OFFICIAL_DEPTH,
                    queries_without_relevant_chunk: data
                        .corpus
                        .queries
                        .iter()
                        .filter(|q| q.relevant.is_empty())
                        .count(),
                    outcome_metric: data.ds.outcome_metric().to_string(),
                },
            ),
            official,
            official_notes: [
                (
                    "hits_at_4",
                    "share of queries with an evidence-holding chunk among the first 4",
                ),
                (
                    "hits_at_10",
                    "share of queries with an evidence-holding chunk among the first 10",
                ),
                (
                    "map_at_10",
                    "retrieval_evaluate.py's MAP@10: per relevant rank r <= 10, facts found \
                     there first / r, summed, / min(facts, 10)",
                ),
                (
                    "mrr_at_10",
                    "1 / rank of the first evidence-holding chunk within 10, else 0",
                ),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        };
        let methods: Vec<_> = ex.runs.iter().map(|r| r.method).collect();
        let mut doc = frame.report(sections, &methods);
        doc.protocol_note = Some(
            "official MultiHop-RAG retrieval protocol (simple_retrieval.py + \
             retrieval_evaluate.py): nodes are 256-token chunks of corpus.json; the chunk \
             graph has no label edges, so paper and clean are the same graph"
                .to_string(),
        );
        doc.configuration.command.push_str(&format!(
            " --corpus {} --chunk-size {} --chunk-overlap {}",
            oi.corpus_name, p.splitter.chunk_size, p.splitter.chunk_overlap
        ));
        doc.configuration.dense_search = Some(plan.dense_search.as_str().to_string());
        doc.timings_s = report::timings(
            std::mem::take(&mut env.timings),
            env.started,
            plan.args.no_timings,
        );
        let path = match &plan.args.out {
            Some(o) => o.clone(),
            None => {
                let name = plan
                    .names(data.recognised, data.corpus.queries.len())
                    .report();
                Path::new(DEFAULT_OUT_DIR)
                    .join(format!("{}-official.json", name.trim_end_matches(".json")))
            }
        };
        Ok(Written {
            document: doc,
            path,
            format: Format::Pretty,
            files: Vec::new(),
        })
    }

    fn summary(&self, report: &Self::Report) -> String {
        let cols = ["hits_at_4", "hits_at_10", "map_at_10", "mrr_at_10"];
        report::method_table(
            "method (official)",
            report.sections.official.iter().map(|(m, s)| {
                (
                    m.as_str(),
                    vec![
                        Some(s.hits_at_4),
                        Some(s.hits_at_10),
                        Some(s.map_at_10),
                        Some(s.mrr_at_10),
                    ],
                )
            }),
            &cols,
            12,
        )
    }
}
