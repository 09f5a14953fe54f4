//! MultiHop-RAG (Tang & Yang, 2024): the queries file `MultiHopRAG.json`, the staged
//! 500-query sample in the same layout, and the news corpus `corpus.json`.
//!
//! Queries file schema (one JSON array):
//!
//! | key | type | notes |
//! |---|---|---|
//! | `query` | string | query text, verbatim |
//! | `answer` | string | |
//! | `question_type` | string | `inference_query`, `comparison_query`, `temporal_query`, `null_query` |
//! | `evidence_list` | array of objects | `title, author, url, source, category, published_at, fact` |
//!
//! For the four evidence keys the reference reads (`title`, `fact`, `source`, `category`) the
//! loader reproduces Python's `str(item.get(key, ""))`: a missing key reads as `""` and a
//! `null` as `"None"`; then the value is stripped ([`py_strip`]). `author`, `url` and
//! `published_at` are optional strings (`author` is `null` on some upstream items). Any other
//! type is an [`crate::error::Error::Malformed`] naming file, row (0-based) and field.
//!
//! Corpus schema (one JSON array of articles): `title, author, source, published_at, category,
//! url, body`; `title` and `body` are required strings, the rest optional strings.
//!
//! [`PaperCorpus`] reproduces the node table, groups, evidence ids and edge order of the
//! reference protocol (`benchmarks/external/run_multihop_rag.py::_build_graph` and
//! `_ground_truth_ids`, commit 134c676).

use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value;

use super::json::{for_each_row, Flow, RowCtx};
use super::nodes::NodeTable;
use super::text::py_strip;
use super::EdgeOp;
use crate::error::Result;

/// `question_type` of the queries that have no evidence; excluded by the reference.
pub const NULL_QUERY: &str = "null_query";
/// Weight of the same-source and same-category edges (reference `_build_graph`).
pub const GROUP_EDGE_WEIGHT: f64 = 0.35;
/// Weight of the edges between the evidence of one query (reference `_build_graph`;
/// label-leaking, `benchmarks/README.md`, defect 1).
pub const EVIDENCE_EDGE_WEIGHT: f64 = 0.5;
/// Default number of (non-null) queries of the reference (`0` means all).
pub const DEFAULT_LIMIT: usize = 1000;
/// Checkpoints of the reference learning curve (`CHECKPOINTS` of `run_multihop_rag.py`).
pub const CHECKPOINTS: [usize; 5] = [100, 250, 500, 1000, 2556];
/// Number of queries in the full `MultiHopRAG.json`.
pub const FULL_QUERY_ROWS: usize = 2556;

/// One evidence item of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Article title (Python-`str`, stripped). Empty titles are skipped by the reference.
    pub title: String,
    /// Quoted fact (Python-`str`, stripped): the node content (reference `_build_graph`).
    pub fact: String,
    /// News source (Python-`str`, stripped); empty means "no source group".
    pub source: String,
    /// Category (Python-`str`, stripped); empty means "no category group".
    pub category: String,
    /// Author, if present and not `null`.
    pub author: Option<String>,
    /// Article URL, if present.
    pub url: Option<String>,
    /// Publication time as written, if present.
    pub published_at: Option<String>,
}

/// One MultiHop-RAG query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// 0-based position of the row in the file (before any filtering).
    pub index: usize,
    /// `query`, verbatim.
    pub query: String,
    /// `answer`.
    pub answer: String,
    /// `question_type` (Python-`str`: missing reads as `""`).
    pub question_type: String,
    /// `evidence_list`, in order.
    pub evidence: Vec<Evidence>,
}

impl Query {
    /// Parses one row. `ctx` names the file and row in errors.
    pub fn from_value(ctx: &RowCtx<'_>, v: &Value) -> Result<Query> {
        let obj = ctx.object(v)?;
        let query = ctx.req_string(obj, "query")?;
        let answer = ctx.req_string(obj, "answer")?;
        let question_type = ctx.py_str_field(obj, "question_type", "question_type")?;
        let list = ctx.array(ctx.required(obj, "evidence_list")?, "evidence_list")?;
        let mut evidence = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let base = format!("evidence_list[{i}]");
            let o = item
                .as_object()
                .ok_or_else(|| ctx.err(&base, "object", item))?;
            let f = |key: &str| -> Result<String> {
                let s = ctx.py_str_field(o, key, &format!("{base}.{key}"))?;
                Ok(py_strip(&s).to_string())
            };
            evidence.push(Evidence {
                title: f("title")?,
                fact: f("fact")?,
                source: f("source")?,
                category: f("category")?,
                author: ctx.opt_string(o, "author", &format!("{base}.author"))?,
                url: ctx.opt_string(o, "url", &format!("{base}.url"))?,
                published_at: ctx.opt_string(o, "published_at", &format!("{base}.published_at"))?,
            });
        }
        Ok(Query {
            index: ctx.row,
            query,
            answer,
            question_type,
            evidence,
        })
    }

    /// `true` for `null_query` rows (no evidence by construction).
    pub fn is_null_query(&self) -> bool {
        self.question_type == NULL_QUERY
    }
}

/// Which rows [`load_queries`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuerySelection {
    /// Keep `null_query` rows (the reference drops them).
    pub include_null: bool,
    /// Keep at most this many rows *after* the null filter (`None`: all).
    pub limit: Option<usize>,
}

impl QuerySelection {
    /// The reference selection (`_load_dataset`): non-null queries in file order, then the first
    /// `limit` (`None` = all).
    pub fn paper(limit: Option<usize>) -> Self {
        QuerySelection {
            include_null: false,
            limit,
        }
    }

    /// Every row.
    pub fn all() -> Self {
        QuerySelection {
            include_null: true,
            limit: None,
        }
    }
}

/// Loads queries from `path` (plain or gzip) with the given selection. Reading stops once
/// `limit` rows are kept.
pub fn load_queries(path: &Path, sel: QuerySelection) -> Result<Vec<Query>> {
    let mut out = Vec::new();
    if sel.limit == Some(0) {
        return Ok(out);
    }
    for_each_row(path, |row, v| {
        let q = Query::from_value(&RowCtx::new(path, row), &v)?;
        if sel.include_null || !q.is_null_query() {
            out.push(q);
        }
        Ok(match sel.limit {
            Some(l) if out.len() >= l => Flow::Stop,
            _ => Flow::Continue,
        })
    })?;
    Ok(out)
}

/// One news article of `corpus.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Article {
    /// 0-based position in the file.
    pub index: usize,
    /// Title as in the file.
    pub title: String,
    /// Full text.
    pub body: String,
    /// Author, if present.
    pub author: Option<String>,
    /// News source, if present.
    pub source: Option<String>,
    /// Publication time as written, if present.
    pub published_at: Option<String>,
    /// Category, if present.
    pub category: Option<String>,
    /// URL, if present.
    pub url: Option<String>,
}

impl Article {
    /// Parses one corpus row.
    pub fn from_value(ctx: &RowCtx<'_>, v: &Value) -> Result<Article> {
        let o = ctx.object(v)?;
        Ok(Article {
            index: ctx.row,
            title: ctx.req_string(o, "title")?,
            body: ctx.req_string(o, "body")?,
            author: ctx.opt_string(o, "author", "author")?,
            source: ctx.opt_string(o, "source", "source")?,
            published_at: ctx.opt_string(o, "published_at", "published_at")?,
            category: ctx.opt_string(o, "category", "category")?,
            url: ctx.opt_string(o, "url", "url")?,
        })
    }
}

/// Loads every article of a `corpus.json` (plain or gzip).
pub fn load_corpus(path: &Path) -> Result<Vec<Article>> {
    let mut out = Vec::new();
    for_each_row(path, |row, v| {
        out.push(Article::from_value(&RowCtx::new(path, row), &v)?);
        Ok(Flow::Continue)
    })?;
    Ok(out)
}

/// Node table, groups and evidence ids of the reference protocol (reference `_build_graph`
/// and `_ground_truth_ids`).
#[derive(Debug, Clone, Default)]
pub struct PaperCorpus {
    /// Nodes in creation order (content = first fact; an empty content is filled by a later
    /// non-empty fact), and `title_to_id`.
    pub nodes: NodeTable,
    /// Non-empty source → its distinct node ids, sorted ascending; sources in first-seen order.
    pub source_groups: IndexMap<String, Vec<String>>,
    /// Non-empty category → its distinct node ids, sorted ascending; categories in first-seen
    /// order.
    pub category_groups: IndexMap<String, Vec<String>>,
    /// Per query: distinct ids of its evidence titles that are in `title_to_id`, sorted
    /// ascending. This is also the query's relevant set.
    pub evidence_ids: Vec<Vec<String>>,
}

impl PaperCorpus {
    /// Builds the corpus over `queries` (already selected, e.g. by [`QuerySelection::paper`]):
    /// every evidence item with a non-empty title, in order, is observed once; its node id
    /// joins the groups of its source and category even when its title was not the one that
    /// created the node.
    pub fn build(queries: &[Query]) -> PaperCorpus {
        let mut nodes = NodeTable::new();
        let mut source_groups: IndexMap<String, Vec<String>> = IndexMap::new();
        let mut category_groups: IndexMap<String, Vec<String>> = IndexMap::new();
        for q in queries {
            for ev in &q.evidence {
                if ev.title.is_empty() {
                    continue;
                }
                let id = nodes.observe(&ev.title, &ev.fact, true);
                if !ev.source.is_empty() {
                    source_groups
                        .entry(ev.source.clone())
                        .or_default()
                        .push(id.clone());
                }
                if !ev.category.is_empty() {
                    category_groups
                        .entry(ev.category.clone())
                        .or_default()
                        .push(id);
                }
            }
        }
        for ids in source_groups
            .values_mut()
            .chain(category_groups.values_mut())
        {
            ids.sort();
            ids.dedup();
        }
        let evidence_ids = queries
            .iter()
            .map(|q| {
                let mut ids: Vec<String> = q
                    .evidence
                    .iter()
                    .filter_map(|ev| nodes.id_of(&ev.title).map(str::to_string))
                    .collect();
                ids.sort();
                ids.dedup();
                ids
            })
            .collect();
        PaperCorpus {
            nodes,
            source_groups,
            category_groups,
            evidence_ids,
        }
    }

    /// Relevant node ids of query `i` (reference `_ground_truth_ids`), sorted.
    pub fn relevant(&self, i: usize) -> &[String] {
        &self.evidence_ids[i]
    }

    /// The edge operations of the reference's `_build_graph` in its order, to be applied with
    /// "add or boost": each source group (first-seen order) then each category group, every
    /// pair of sorted ids at 0.35 (`i < j`: `i→j` then `j→i`); then, if `label_edges` (the
    /// `paper` protocol), each query's evidence ids at 0.5.
    pub fn edge_ops(&self, label_edges: bool) -> Vec<EdgeOp> {
        let mut ops = Vec::new();
        for ids in self
            .source_groups
            .values()
            .chain(self.category_groups.values())
        {
            super::push_pairs(&mut ops, ids, GROUP_EDGE_WEIGHT);
        }
        if label_edges {
            for ids in &self.evidence_ids {
                super::push_pairs(&mut ops, ids, EVIDENCE_EDGE_WEIGHT);
            }
        }
        ops
    }
}
