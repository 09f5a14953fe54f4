//! The keyword "embedding" of the experiments: a bag-of-words count vector and its
//! cosine (reference `experiments/run_comparison.py::_build_keyword_vectors` with
//! `crabpath/embeddings.py::EmbeddingIndex`, commit 73444b2). It seeds the RAG arm and
//! CrabPath's start node; no neural embedding is involved anywhere.
//!
//! * Tokens: the maximal runs of `a-z`, `0-9` and `'` in the lower-cased text.
//! * Vocabulary: tokens numbered in order of first occurrence, scanning node **contents**
//!   in graph node order ([`VocabularySource::Contents`], the reference). The vectors
//!   embed each node's summary (or its content when the summary is empty, plus
//!   `metadata.error_class`), so summary words absent from every content are dropped —
//!   gate-bloat query nodes embed to zero. [`VocabularySource::EmbeddedTexts`] (the
//!   corrected profile) numbers the tokens of the embedded texts instead.
//! * Cosine: `dot / (|a| * |b|)`, 0.0 when either norm is 0.
//!
//! Vectors are stored sparse. Every component is a small integer count, so every dot
//! product and squared norm is an exact integer sum whatever the order of summation;
//! `sqrt`, the product of the norms and the one division are correctly rounded, so the
//! scores are bit-identical to the reference's dense loops.

use rustc_hash::FxHashMap;

use crate::graph::{Graph, Id};

/// Which texts define the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VocabularySource {
    /// Node contents (the reference; summary-only words are out of vocabulary).
    Contents,
    /// The embedded texts themselves (summary-or-content plus `error_class`).
    EmbeddedTexts,
}

/// Splits `text` into keyword tokens: maximal runs of `[a-z0-9']` after lower-casing.
pub fn tokenize(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '\''))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The text a node is embedded from: its summary if non-empty, else its content, then
/// ` <metadata.error_class>` when that is a non-empty string.
pub fn embedded_text(node: &crate::graph::Node) -> String {
    let mut text = if node.summary.is_empty() {
        node.content.clone()
    } else {
        node.summary.clone()
    };
    if let Some(ec) = node.metadata.get("error_class").and_then(|v| v.as_str()) {
        if !ec.is_empty() {
            text.push(' ');
            text.push_str(ec);
        }
    }
    text
}

/// A sparse count vector: (token index, count) sorted by index, with its squared norm.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVec {
    entries: Vec<(u32, f64)>,
    norm2: f64,
}

impl SparseVec {
    /// The Euclidean norm.
    pub fn norm(&self) -> f64 {
        self.norm2.sqrt()
    }

    /// Whether every component is zero.
    pub fn is_zero(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Cosine of two count vectors (0.0 if either is zero): `dot / (na * nb)`.
pub fn cosine(a: &SparseVec, b: &SparseVec) -> f64 {
    let (na, nb) = (a.norm(), b.norm());
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let (mut i, mut j, mut dot) = (0, 0, 0.0);
    while i < a.entries.len() && j < b.entries.len() {
        let (ka, va) = a.entries[i];
        let (kb, vb) = b.entries[j];
        match ka.cmp(&kb) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += va * vb;
                i += 1;
                j += 1;
            }
        }
    }
    dot / (na * nb)
}

/// The keyword index of one graph state.
#[derive(Debug, Clone)]
pub struct KeywordIndex {
    vocab: FxHashMap<String, u32>,
    vectors: Vec<(Id, SparseVec)>,
}

impl KeywordIndex {
    /// Builds the vocabulary and one vector per node, in graph node order. O(total text).
    pub fn build(graph: &Graph, source: VocabularySource) -> KeywordIndex {
        let texts: Vec<(Id, String)> = graph
            .nodes()
            .map(|(id, n)| (id, embedded_text(n)))
            .collect();
        let mut vocab: FxHashMap<String, u32> = FxHashMap::default();
        let mut add = |text: &str| {
            for t in tokenize(text) {
                let next = vocab.len() as u32;
                vocab.entry(t).or_insert(next);
            }
        };
        match source {
            VocabularySource::Contents => graph.nodes().for_each(|(_, n)| add(&n.content)),
            VocabularySource::EmbeddedTexts => texts.iter().for_each(|(_, t)| add(t)),
        }
        let mut index = KeywordIndex {
            vocab,
            vectors: Vec::with_capacity(texts.len()),
        };
        index.vectors = texts.iter().map(|(id, t)| (*id, index.embed(t))).collect();
        index
    }

    /// Vocabulary size (the dense dimension of the reference's vectors).
    pub fn dimension(&self) -> usize {
        self.vocab.len()
    }

    /// The count vector of `text`; out-of-vocabulary tokens are ignored.
    pub fn embed(&self, text: &str) -> SparseVec {
        let mut counts: FxHashMap<u32, f64> = FxHashMap::default();
        for t in tokenize(text) {
            if let Some(&i) = self.vocab.get(&t) {
                *counts.entry(i).or_insert(0.0) += 1.0;
            }
        }
        let mut entries: Vec<(u32, f64)> = counts.into_iter().collect();
        entries.sort_by_key(|e| e.0);
        let norm2 = entries.iter().map(|e| e.1 * e.1).sum();
        SparseVec { entries, norm2 }
    }

    /// The node vectors in graph node order.
    pub fn vectors(&self) -> &[(Id, SparseVec)] {
        &self.vectors
    }

    /// The cosine of `query` with every node, stable-sorted by score descending (ties
    /// keep graph node order), truncated to `k`. O(nodes · query tokens + n log n).
    pub fn raw_scores(&self, query: &str, k: usize) -> Vec<(Id, f64)> {
        let q = self.embed(query);
        let mut scores: Vec<(Id, f64)> = self
            .vectors
            .iter()
            .map(|(id, v)| (*id, cosine(&q, v)))
            .collect();
        scores.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        scores.truncate(k);
        scores
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;

    #[test]
    fn tokens_are_lowercase_alnum_apostrophe_runs() {
        assert_eq!(
            tokenize("Don't run DB-migrations, v2!"),
            ["don't", "run", "db", "migrations", "v2"]
        );
    }

    #[test]
    fn summary_words_outside_the_content_vocabulary_embed_to_zero() {
        // Reference `experiments/run_comparison.py` (commit 73444b2) builds the vocabulary
        // from contents but embeds summaries (quirks log Q-VOCAB,
        // results/reference/v2/quirks/quirks_e752b95.log): "query entry" occurs in no content.
        let mut g = Graph::new();
        g.add_node(Node::new("root", "Gate bloat root"));
        g.add_node(Node::new("q", "Deploy now please").with_summary("query entry"));
        let paper = KeywordIndex::build(&g, VocabularySource::Contents);
        assert!(paper.vectors()[1].1.is_zero());
        let fixed = KeywordIndex::build(&g, VocabularySource::EmbeddedTexts);
        assert!(!fixed.vectors()[1].1.is_zero());
        assert_eq!(fixed.raw_scores("query", 1)[0].0, g.id("q").unwrap());
    }

    #[test]
    fn ties_keep_graph_order_and_cosine_is_exact() {
        let mut g = Graph::new();
        for (id, c) in [("a", "x y"), ("b", "z"), ("c", "x y")] {
            g.add_node(Node::new(id, c));
        }
        let idx = KeywordIndex::build(&g, VocabularySource::Contents);
        let s = idx.raw_scores("x", 3);
        let names: Vec<&str> = s.iter().map(|(i, _)| g.name(*i)).collect();
        assert_eq!(names, ["a", "c", "b"]);
        assert_eq!(s[0].1, 1.0 / (1.0 * 2f64.sqrt()));
        assert_eq!(s[2].1, 0.0);
    }
}
