//! A small linear ranker over a conversation brain's own candidates (issue 28, "recall@10
//! ≥ 0.72", "recall@5 ≥ 0.62", "multi-hop recall@10 ≥ 0.50").
//!
//! The default answer's first 50 hold far more evidence than its first 10 (LoCoMo,
//! hash-v1, the product path, all 1,986 questions: recall@50 0.843 against recall@10
//! 0.700): the order is the weak part. This module re-orders the first [`DEPTH`] ids of
//! the answer (`super::query`'s rule, "the base order") by a linear score of features
//! every candidate already has, none of them specific to a data set:
//!
//! | feature | value |
//! |---|---|
//! | base place `p` (0-based) | 1 / (1 + p) |
//! | place `r` in the seeding's ranked list (absent: [`ABSENT`]) | 1 / (5 + r) |
//! | reached by the traversal, not a seed | 0 or 1 |
//! | a neighbour of the base order's first id (an edge from it) | 0 or 1 |
//! | idf-weighted share of the question's terms the candidate contains | in [0, 1] |
//! | in the same dialogue (`session` metadata) as the base order's first id | 0 or 1 |
//! | share of the base order's first [`DIALOGUE_WINDOW`] in the candidate's dialogue | in [0, 1] |
//! | length: ln(1 + characters of its content) / [`LENGTH_SCALE`] | about 0–1 |
//!
//! The coverage feature is read from the lexical index itself (SQLite FTS5, the tokenizer of the
//! BM25 search, stemming included): for each term of [`lexical::query_terms`], the rows
//! containing it give its document frequency `df` and the candidates that contain it; a
//! term weighs ln(1 + N / (1 + df)), N the brain's node count. Unlike BM25 it ignores
//! term frequency and length, so a short turn naming one rare word does not outrank a
//! turn naming every word of the question. The dialogue features say that a question's
//! evidence comes in runs: the turns of one conversation's dialogue that the first
//! ten already crowd into are where the rest of the answer tends to be. The length
//! feature prefers a turn with content over a short reply ("Wow, thanks!") that happens
//! to share a word.
//!
//! **Fitted** ([`WEIGHTS`]) by coordinate ascent on recall@10 + ½ recall@5 of the default
//! query over the tuning conversations only (conv-26 and conv-30, 304 questions;
//! the rule "knobs are tuned on conv-26 and conv-30 only"), hash-v1, the base
//! place's weight fixed at 1, each other weight from a grid of -0.5..1, started from
//! the base order alone and from the previous fit's weights (the better start on the
//! tuning objective wins). Refit with
//! `cargo run --release -p bench --example rerank_dump -- OUT.jsonl` then
//! `python3 benchmarks/scripts/rerank_fit.py OUT.jsonl 1,-0.3,0.05,0.1,0.5` (the
//! previous weights). Tuning recall@10 0.727 → 0.773 (the five first features alone:
//! 0.762); all 1,986 questions recall@5 / 10 0.584 / 0.700 → 0.622 / 0.740 (five
//! features: 0.616 / 0.724), multi-hop recall@10 0.344 → 0.400 (0.395); the eight test
//! conversations alone 0.584 / 0.696 → 0.618 / 0.734 (`benchmarks/README.md`,
//! "Conversation features").
//!
//! Only conversation brains of the corrected profile are re-ordered (as
//! [`super::lead`]): a folder brain's answer, the paper profile and their committed
//! results are unchanged.

use rusqlite::Connection;
use rustc_hash::{FxHashMap, FxHashSet};

use crabpath::graph::{Graph, NodeId};
use crabpath::traverse::TraversalResult;

use crate::store::lexical;
use crate::store::rows::Loaded;

/// How many of the base order's first ids are re-ordered (the product path's answer
/// length on LoCoMo, issue 28's `limit 50`); an answer asked with a larger `limit` is
/// re-ordered to that depth.
pub const DEPTH: usize = 50;

/// The seeding-list place given to a candidate the list does not hold.
pub const ABSENT: usize = 200;

/// Number of features ([`features`]).
pub const FEATURES: usize = 8;

/// How many of the base order's first ids the dialogue-share feature counts.
pub const DIALOGUE_WINDOW: usize = 10;

/// The length feature is ln(1 + characters) / this: about 1 for a turn of 1,100
/// characters.
pub const LENGTH_SCALE: f64 = 7.0;

/// The weights of the features, in [`features`]' order (see the module docs: fitted on
/// conv-26 and conv-30, hash-v1).
pub const WEIGHTS: [f64; FEATURES] = [1.0, -0.3, 0.05, 0.1, 0.5, 0.02, 0.1, 0.1];

/// English function words a question's coverage leaves out besides
/// [`lexical::query_terms`]' stop words (pronouns and auxiliaries: "What did she say to
/// him?" is covered by the turn that says what, not by every turn with "did" or "him").
/// Only the ranker's coverage reads them; the BM25 search keeps them.
pub const FUNCTION_WORDS: &[&str] = &[
    "did", "had", "has", "have", "he", "her", "him", "his", "our", "she", "they", "them", "been",
    "not", "whom",
];

/// The question's words both rankers read: [`lexical::query_terms`] without
/// [`FUNCTION_WORDS`] (this module's coverage, [`super::folder_rank`]'s file names).
pub fn question_terms(question: &str) -> Vec<String> {
    lexical::query_terms(question)
        .into_iter()
        .filter(|t| !FUNCTION_WORDS.contains(&t.as_str()))
        .collect()
}

/// Per node id of `loaded` (the part of the graph read for the query), the
/// idf-weighted share of the question's terms it contains (see the module docs); nodes
/// containing no term, or not in `loaded`, are absent. `nodes` is the brain's node
/// count N. Cost: one FTS5 posting-list read per query term (at most
/// [`lexical::MAX_QUERY_TERMS`]), unranked ([`lexical::matching`]).
pub fn coverage(
    conn: &Connection,
    question: &str,
    loaded: &Loaded,
    nodes: usize,
) -> rusqlite::Result<FxHashMap<String, f64>> {
    let terms = question_terms(question);
    let mut out = FxHashMap::default();
    if terms.is_empty() {
        return Ok(out);
    }
    let n = nodes as f64;
    let mut rows = Vec::with_capacity(terms.len());
    for t in &terms {
        rows.push(lexical::matching(conn, t)?);
    }
    let idf: Vec<f64> = rows
        .iter()
        .map(|r| (1.0 + n / (1.0 + r.len() as f64)).ln())
        .collect();
    let total: f64 = idf.iter().sum();
    if total <= 0.0 {
        return Ok(out);
    }
    for (w, r) in idf.iter().zip(&rows) {
        for sym in r {
            if let Some(&node) = loaded.by_sym.get(sym) {
                *out.entry(loaded.graph.name(node).to_string())
                    .or_insert(0.0) += w / total;
            }
        }
    }
    Ok(out)
}

/// The dialogue (`session` metadata, [`crate::source::conversation`]) of node `n`, if
/// it has one.
fn dialogue(graph: &Graph, n: Option<NodeId>) -> Option<&str> {
    graph
        .node(n?)?
        .metadata
        .get("session")
        .and_then(|v| v.as_str())
}

/// The features of each of `base` (the base order, best first; see the module docs):
/// `seeds` and `result` are the query's seeds and traversal, `list` the seeding's ranked
/// list, `cover` [`coverage`]'s answer. Cost: O(|base| + |list|) lookups, and one pass
/// over each candidate's content for its length.
pub fn features(
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    result: &TraversalResult,
    list: &[&str],
    base: &[&str],
    cover: &FxHashMap<String, f64>,
) -> Vec<[f64; FEATURES]> {
    let place: FxHashMap<&str, usize> = list
        .iter()
        .enumerate()
        .rev()
        .map(|(i, &id)| (id, i))
        .collect();
    let seed: FxHashSet<NodeId> = seeds.iter().map(|s| s.0).collect();
    let fired: FxHashSet<NodeId> = result.fired.iter().copied().collect();
    let nodes: Vec<Option<NodeId>> = base.iter().map(|id| graph.lookup(id)).collect();
    let dialogues: Vec<Option<&str>> = nodes.iter().map(|&n| dialogue(graph, n)).collect();
    let first = nodes.first().copied().flatten();
    let first_dialogue = dialogues.first().copied().flatten();
    let window = &dialogues[..dialogues.len().min(DIALOGUE_WINDOW)];
    base.iter()
        .enumerate()
        .map(|(p, &id)| {
            let n = nodes[p];
            let r = place.get(id).copied().unwrap_or(ABSENT);
            let added = n.is_some_and(|n| fired.contains(&n) && !seed.contains(&n));
            let adjacent = match (first, n) {
                (Some(f), Some(n)) => f != n && graph.edge(f, n).is_some(),
                _ => false,
            };
            let d = dialogues[p];
            let same_first = d.is_some() && d == first_dialogue;
            let share = match d {
                Some(d) => {
                    window.iter().filter(|w| **w == Some(d)).count() as f64 / DIALOGUE_WINDOW as f64
                }
                None => 0.0,
            };
            let chars = n
                .and_then(|n| graph.node(n))
                .map_or(0, |x| x.content.chars().count());
            [
                1.0 / (1.0 + p as f64),
                1.0 / (5.0 + r as f64),
                f64::from(u8::from(added)),
                f64::from(u8::from(adjacent)),
                cover.get(id).copied().unwrap_or(0.0),
                f64::from(u8::from(same_first)),
                share,
                (1.0 + chars as f64).ln() / LENGTH_SCALE,
            ]
        })
        .collect()
}

/// The score of one candidate: [`WEIGHTS`] · `f`.
pub fn score(f: &[f64; FEATURES]) -> f64 {
    f.iter().zip(&WEIGHTS).map(|(x, w)| x * w).sum()
}

/// `base` with its first `scores.len()` ids re-ordered by their score, best first (a
/// tie keeps the base order), the rest after them as they were; at most `limit` ids.
/// The one re-ordering of both rankers (this module's [`score`], and
/// [`super::folder_rank::score`]; the hook is `super::query`'s).
/// Cost: one sort of the scored ids.
pub fn reorder_by(base: Vec<String>, scores: &[f64], limit: Option<usize>) -> Vec<String> {
    let depth = scores.len().min(base.len());
    let mut idx: Vec<usize> = (0..depth).collect();
    idx.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut out: Vec<String> = idx.iter().map(|&i| base[i].clone()).collect();
    out.extend(base.into_iter().skip(depth));
    out.truncate(limit.unwrap_or(usize::MAX));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_covering_the_question_moves_up_within_the_depth_only() {
        let base: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        // WEIGHTS [1, -0.3, 0.05, 0.1, 0.5, 0.02, 0.1, 0.1]; c: base place 2 (1/3),
        // absent from the list, covers the whole question: 1/3 - 0.3/205 + 0.5 = 0.832
        // > b's 1/2 - 0.3/6 = 0.45, < a's 1 - 0.3/5 = 0.94
        let f = [
            [1.0, 1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.5, 1.0 / 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [1.0 / 3.0, 1.0 / 205.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        ];
        let scores: Vec<f64> = f.iter().map(score).collect();
        assert_eq!(reorder_by(base.clone(), &scores, None), ["a", "c", "b"]);
        assert_eq!(reorder_by(base.clone(), &scores, Some(2)), ["a", "c"]);
        // only the first two are re-ordered: c stays last
        assert_eq!(reorder_by(base, &scores[..2], None), ["a", "b", "c"]);
    }

    #[test]
    fn dialogue_features_count_the_first_ids_dialogues_and_length_reads_the_content() {
        use crabpath::graph::Node;
        let mut g = Graph::new();
        for (id, session, text) in [
            ("a", Some("1"), "x".repeat(10)),
            ("b", Some("2"), "y".repeat(100)),
            ("c", Some("1"), String::new()),
            ("d", None, "z".to_string()),
        ] {
            let mut n = Node::new(id, &text);
            if let Some(s) = session {
                n.metadata.insert("session".into(), s.into());
            }
            g.add_node(n);
        }
        let base = ["a", "b", "c", "d"];
        let f = features(
            &g,
            &[],
            &TraversalResult::default(),
            &[],
            &base,
            &FxHashMap::default(),
        );
        // same dialogue as the first id ("a", dialogue 1): a and c; d has none
        let same: Vec<f64> = f.iter().map(|x| x[5]).collect();
        assert_eq!(same, [1.0, 0.0, 1.0, 0.0]);
        // of the first DIALOGUE_WINDOW (10) ids, 2 are in dialogue 1, 1 in dialogue 2
        let share: Vec<f64> = f.iter().map(|x| x[6]).collect();
        assert_eq!(share, [0.2, 0.1, 0.2, 0.0]);
        // ln(1 + 10) / 7, ln(1 + 100) / 7, ln(1) / 7 = 0
        assert!((f[0][7] - 11f64.ln() / 7.0).abs() < 1e-12);
        assert!((f[1][7] - 101f64.ln() / 7.0).abs() < 1e-12);
        assert_eq!(f[2][7], 0.0);
    }
}
