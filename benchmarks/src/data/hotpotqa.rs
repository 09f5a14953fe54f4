//! HotPotQA dev distractor v1 (`hotpot_dev_distractor_v1.json`) and the staged subsets in the
//! same schema.
//!
//! File schema (one JSON array; keys per row in file order):
//!
//! | key | type | used for |
//! |---|---|---|
//! | `_id` | string | [`Question::id`] |
//! | `answer` | string | [`Question::answer`] |
//! | `question` | string | query text, verbatim (trailing spaces kept) |
//! | `supporting_facts` | `[[title, sent_idx], ...]` | relevant set (`_ground_truth_ids`) |
//! | `context` | `[[title, [sentence, ...]], ...]` | nodes (`_build_graph`) |
//! | `type` | string (`bridge`/`comparison`) | optional here |
//! | `level` | string (`easy`/`medium`/`hard`) | optional here |
//!
//! The loader is stricter than the reference script, which silently skips malformed
//! paragraphs: any value of the wrong type is an [`crate::error::Error::Malformed`] naming file, row
//! (0-based) and field. Unknown extra keys are ignored.
//!
//! [`PaperCorpus`] builds the node table, the per-question context ids and the relevant sets of
//! the reference protocol (`benchmarks/external/run_hotpotqa.py::_build_graph` and
//! `_ground_truth_ids`, commit 134c676), and the ordered list of edge operations.

use std::path::Path;

use serde_json::Value;

use super::json::{for_each_row, Flow, RowCtx};
use super::nodes::NodeTable;
use super::text::{hotpot_paragraph_text, py_strip};
use super::EdgeOp;
use crate::error::Result;

/// Weight of the edges between the paragraphs of one question (reference `_build_graph`).
pub const CONTEXT_EDGE_WEIGHT: f64 = 0.3;
/// Weight of the edges between the supporting-fact paragraphs of one question (reference
/// `_build_graph`; these are the label-leaking edges, `benchmarks/README.md`, defect 1).
pub const SUPPORT_EDGE_WEIGHT: f64 = 0.5;
/// Default number of rows of the reference (`--limit 500`; `0` means all).
pub const DEFAULT_LIMIT: usize = 500;
/// Checkpoints of the reference learning curve (`CHECKPOINTS` of `run_hotpotqa.py`).
pub const CHECKPOINTS: [usize; 4] = [50, 100, 200, 500];
/// Number of questions in the full dev distractor file.
pub const FULL_DEV_ROWS: usize = 7405;

/// One context paragraph of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paragraph {
    /// Title, stripped with Python's `str.strip()` (as the reference does).
    pub title: String,
    /// Node content: stripped non-empty sentences joined by one space
    /// ([`hotpot_paragraph_text`], as the reference's `_build_graph`).
    pub text: String,
    /// The sentences as in the file (sentence indices of `supporting_facts` refer to these).
    pub sentences: Vec<String>,
}

/// One HotPotQA question, in the form the benchmark needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// 0-based position of the row in the file.
    pub index: usize,
    /// `_id`.
    pub id: String,
    /// `question`, verbatim (the reference embeds it unstripped).
    pub question: String,
    /// `answer`.
    pub answer: String,
    /// `type` (`bridge` or `comparison`), if present.
    pub qtype: Option<String>,
    /// `level`, if present.
    pub level: Option<String>,
    /// `supporting_facts` as in the file: `(title, sentence index)`.
    pub supporting_facts: Vec<(String, u64)>,
    /// Distinct supporting-fact titles, stripped, non-empty, in first-seen order.
    pub supporting_titles: Vec<String>,
    /// Context paragraphs in file order; a paragraph whose stripped title is empty is left out,
    /// as the reference skips it.
    pub paragraphs: Vec<Paragraph>,
}

impl Question {
    /// `(title, text)` of each paragraph, in order: the node title and content the reference
    /// derives from each context entry (reference `_build_graph`).
    pub fn title_texts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.paragraphs
            .iter()
            .map(|p| (p.title.as_str(), p.text.as_str()))
    }

    /// Parses one row. `ctx` names the file and row in errors.
    pub fn from_value(ctx: &RowCtx<'_>, v: &Value) -> Result<Question> {
        let obj = ctx.object(v)?;
        let id = ctx.req_string(obj, "_id")?;
        let question = ctx.req_string(obj, "question")?;
        let answer = ctx.req_string(obj, "answer")?;
        let qtype = ctx.opt_string(obj, "type", "type")?;
        let level = ctx.opt_string(obj, "level", "level")?;

        let facts_v = ctx.array(ctx.required(obj, "supporting_facts")?, "supporting_facts")?;
        let mut supporting_facts = Vec::with_capacity(facts_v.len());
        let mut supporting_titles: Vec<String> = Vec::new();
        for (i, fact) in facts_v.iter().enumerate() {
            let field = format!("supporting_facts[{i}]");
            let pair = ctx.array(fact, &field)?;
            if pair.len() != 2 {
                return Err(ctx.err(&field, "[title, sentence index]", fact));
            }
            let title = ctx.string(&pair[0], &format!("{field}[0]"))?;
            let sent = ctx.index(&pair[1], &format!("{field}[1]"))?;
            let stripped = py_strip(&title);
            if !stripped.is_empty() && !supporting_titles.iter().any(|t| t == stripped) {
                supporting_titles.push(stripped.to_string());
            }
            supporting_facts.push((title, sent));
        }

        let ctx_v = ctx.array(ctx.required(obj, "context")?, "context")?;
        let mut paragraphs = Vec::with_capacity(ctx_v.len());
        for (i, para) in ctx_v.iter().enumerate() {
            let field = format!("context[{i}]");
            let pair = ctx.array(para, &field)?;
            if pair.len() != 2 {
                return Err(ctx.err(&field, "[title, [sentence, ...]]", para));
            }
            let title = ctx.string(&pair[0], &format!("{field}[0]"))?;
            let sents_v = ctx.array(&pair[1], &format!("{field}[1]"))?;
            let mut sentences = Vec::with_capacity(sents_v.len());
            for (j, s) in sents_v.iter().enumerate() {
                sentences.push(ctx.string(s, &format!("{field}[1][{j}]"))?);
            }
            let title = py_strip(&title);
            if title.is_empty() {
                continue;
            }
            paragraphs.push(Paragraph {
                title: title.to_string(),
                text: hotpot_paragraph_text(&sentences),
                sentences,
            });
        }

        Ok(Question {
            index: ctx.row,
            id,
            question,
            answer,
            qtype,
            level,
            supporting_facts,
            supporting_titles,
            paragraphs,
        })
    }
}

/// Calls `f` on each question of `path` (plain or gzip) in file order, stopping after `limit`
/// rows if given. Returns the number of questions read.
pub fn for_each_question<F>(path: &Path, limit: Option<usize>, mut f: F) -> Result<usize>
where
    F: FnMut(Question) -> Result<()>,
{
    if limit == Some(0) {
        return Ok(0);
    }
    for_each_row(path, |row, v| {
        let q = Question::from_value(&RowCtx::new(path, row), &v)?;
        f(q)?;
        Ok(match limit {
            Some(l) if row + 1 >= l => Flow::Stop,
            _ => Flow::Continue,
        })
    })
}

/// Loads the first `limit` questions of `path` (all with `None`), in file order — the row
/// selection of the reference's `_load_dataset`.
pub fn load_questions(path: &Path, limit: Option<usize>) -> Result<Vec<Question>> {
    let mut out = Vec::new();
    for_each_question(path, limit, |q| {
        out.push(q);
        Ok(())
    })?;
    Ok(out)
}

/// Node table, context ids and relevant sets of the reference protocol (reference
/// `_build_graph`) over a list of questions (the pooled corpus, `benchmarks/README.md`,
/// defect 5).
#[derive(Debug, Clone, Default)]
pub struct PaperCorpus {
    /// Nodes in creation order, and the reference's `title_to_id`.
    pub nodes: NodeTable,
    /// Per question: the distinct node ids of its paragraphs, sorted ascending (by code point).
    pub context_ids: Vec<Vec<String>>,
    /// Per question: node ids of its distinct supporting-fact titles that are in `title_to_id`,
    /// in first-seen order. This is also the question's relevant set (distinct titles in
    /// `title_to_id` have distinct ids).
    pub supporting_ids: Vec<Vec<String>>,
}

impl PaperCorpus {
    /// Builds the corpus exactly as the reference does: first all nodes (all questions, all
    /// paragraphs, in order), then the id lists, which depend on the final `title_to_id`.
    pub fn build(questions: &[Question]) -> PaperCorpus {
        let mut nodes = NodeTable::new();
        let mut context_ids = Vec::with_capacity(questions.len());
        for q in questions {
            let mut ids: Vec<String> = q
                .paragraphs
                .iter()
                .map(|p| nodes.observe(&p.title, &p.text, false))
                .collect();
            ids.sort();
            ids.dedup();
            context_ids.push(ids);
        }
        let supporting_ids = questions
            .iter()
            .map(|q| {
                q.supporting_titles
                    .iter()
                    .filter_map(|t| nodes.id_of(t).map(str::to_string))
                    .collect()
            })
            .collect();
        PaperCorpus {
            nodes,
            context_ids,
            supporting_ids,
        }
    }

    /// Relevant node ids of question `i` (reference `_ground_truth_ids`), as an ordered list without
    /// duplicates.
    pub fn relevant(&self, i: usize) -> &[String] {
        &self.supporting_ids[i]
    }

    /// The edge operations of the reference's `_build_graph` in its order, to be applied with
    /// "add or boost": for each question, every pair of its sorted context ids at weight 0.3
    /// (`i < j`: `i→j` then `j→i`); then, if `label_edges` (the `paper` protocol; `clean`
    /// leaves them out), for each question every pair of its supporting ids at 0.5, both
    /// directions. Self-pairs never occur (ids are distinct within each list).
    pub fn edge_ops(&self, label_edges: bool) -> Vec<EdgeOp> {
        let mut ops = Vec::new();
        for ids in &self.context_ids {
            super::push_pairs(&mut ops, ids, CONTEXT_EDGE_WEIGHT);
        }
        if label_edges {
            ops.extend(self.label_ops());
        }
        ops
    }

    /// The label part of [`PaperCorpus::edge_ops`]`(true)`, which follows `edge_ops(false)`:
    /// for each question every pair of its supporting ids at 0.5, both directions.
    pub fn label_ops(&self) -> Vec<EdgeOp> {
        let mut ops = Vec::new();
        for ids in &self.supporting_ids {
            super::push_pairs(&mut ops, ids, SUPPORT_EDGE_WEIGHT);
        }
        ops
    }
}
