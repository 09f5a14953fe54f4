//! Benchmark corpora and graph builders (reference `benchmarks/external/run_hotpotqa.py` and
//! `run_multihop_rag.py`, `_build_graph`, commit 134c676; `benchmarks/README.md`).
//!
//! A [`Corpus`] is the dataset-neutral form of one benchmark run: the node table in the
//! reference's creation order, the ordered query stream with each query's
//! relevant node ids, and the reference's edge operations split into the label-free part and
//! the label-derived part (`benchmarks/README.md`, defect 1).
//!
//! Graphs are built by [`build_graph`]:
//!
//! * nodes are added in creation order (so `NodeId(i)` is node `i`, and the embedding index
//!   uses the same order, as the reference's `_build_index_from_nodes`);
//! * then the base edges of the chosen [`GraphBuilder`] are applied with "add or boost"
//!   ([`add_or_boost`], the reference's `_add_or_boost_edge`);
//! * then, only if `label_edges` (the `paper` protocol), the label-derived 0.5 edges
//!   (HotPotQA supporting-fact pairs, MultiHop-RAG same-query evidence pairs).
//!
//! With [`GraphBuilder::Reference`] and `label_edges = true` this is exactly the reference
//! graph; with `label_edges = false` it is the `clean` protocol of `benchmarks/README.md` (every edge that
//! is derived from a label is dropped; everything else is kept). Note that the reference's
//! label-free edges still encode *which paragraphs were put together for one question*
//! (HotPotQA context co-occurrence) or shared metadata (MultiHop-RAG source/category); the
//! two further builders use neither:
//!
//! * [`GraphBuilder::TitleMentions`]: paragraph A → paragraph B (weight
//!   [`MENTION_EDGE_WEIGHT`]) when A's text mentions B's title (whole-word, case-insensitive,
//!   Wikipedia disambiguator such as `" (film)"` removed, keys of at least
//!   [`MIN_MENTION_KEY_CHARS`] characters). This is the "bridge entity" link structure of
//!   HotPotQA, computed from the text alone.
//! * [`GraphBuilder::Knn`]: each node → its `k` most similar other nodes by the run's
//!   embedder (exact cosine, ties by node order), weight [`KNN_EDGE_WEIGHT`].

use aho_corasick::{AhoCorasick, MatchKind};
use crabpath::{Edge, Graph, Node, NodeId};
use serde_json::Value;

use crate::catalog::Dataset;
use crate::data::nodes::NodeTable;
use crate::data::{hotpotqa, multihop, EdgeOp};
use crate::dense::DenseIndex;
use crate::error::{Error, Result};

/// Weight of title-mention edges: the reference's context-edge weight, so traversal treats
/// them as the same (habitual) tier.
pub const MENTION_EDGE_WEIGHT: f64 = 0.3;
/// Weight of kNN edges (habitual tier, as the reference's label-free edges).
pub const KNN_EDGE_WEIGHT: f64 = 0.3;
/// Shortest title key (in characters) that may create a mention edge; shorter titles
/// ("It", "Up") would match almost everywhere.
pub const MIN_MENTION_KEY_CHARS: usize = 4;

/// Label-free base edges of a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphBuilder {
    /// The reference's label-free edges: HotPotQA same-question context pairs at 0.3,
    /// MultiHop-RAG same-source and same-category pairs at 0.35 (the reference scripts' `_build_graph`).
    Reference,
    /// Title-mention links (see the module docs).
    TitleMentions,
    /// Embedding k-nearest-neighbour links with this `k` (see the module docs).
    Knn(usize),
}

impl GraphBuilder {
    /// Name used in output (`reference`, `title-mentions`, `knn`).
    pub fn name(self) -> &'static str {
        match self {
            GraphBuilder::Reference => "reference",
            GraphBuilder::TitleMentions => "title-mentions",
            GraphBuilder::Knn(_) => "knn",
        }
    }
}

/// A node as created by the reference's `_build_graph`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusNode {
    /// Node id (slug of the first title).
    pub id: String,
    /// The title that created the node.
    pub title: String,
    /// Content (what is embedded).
    pub content: String,
}

/// One query of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusQuery {
    /// Query id for TREC files: HotPotQA `_id`; MultiHop-RAG `mh<row>` (0-based file row).
    pub qid: String,
    /// Query text, verbatim (the reference embeds it unstripped).
    pub text: String,
    /// Relevant node indices (into [`Corpus::nodes`]), distinct.
    pub relevant: Vec<usize>,
}

/// Everything a run needs from a dataset, in reference order.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Which benchmark.
    pub dataset: Dataset,
    /// Nodes in creation order.
    pub nodes: Vec<CorpusNode>,
    /// Queries in stream order.
    pub queries: Vec<CorpusQuery>,
    /// Label-free reference edge operations, in reference order.
    pub structural_ops: Vec<(usize, usize, f64)>,
    /// Label-derived reference edge operations (the 0.5 edges), in reference order.
    pub label_ops: Vec<(usize, usize, f64)>,
}

impl Corpus {
    /// The node ids of a query's relevant nodes, in the query's order: what a product-path
    /// study scores an answer's node ids against. Cost: O(relevant).
    pub fn relevant_ids(&self, q: &CorpusQuery) -> Vec<String> {
        q.relevant
            .iter()
            .map(|&i| self.nodes[i].id.clone())
            .collect()
    }

    /// Corpus of HotPotQA questions (already limited): reference
    /// `benchmarks/external/run_hotpotqa.py::_build_graph` and `_ground_truth_ids`.
    pub fn from_hotpotqa(questions: &[hotpotqa::Question]) -> Result<Corpus> {
        let pc = hotpotqa::PaperCorpus::build(questions);
        let queries = questions
            .iter()
            .enumerate()
            .map(|(i, q)| (q.id.clone(), q.question.clone(), pc.relevant(i)));
        Corpus::assemble(
            Dataset::HotpotQa,
            &pc.nodes,
            queries,
            &pc.edge_ops(false),
            &pc.label_ops(),
        )
    }

    /// Corpus of MultiHop-RAG queries (already selected: non-null, limited): reference
    /// `benchmarks/external/run_multihop_rag.py::_build_graph` and `_ground_truth_ids`.
    pub fn from_multihop(queries: &[multihop::Query]) -> Result<Corpus> {
        let pc = multihop::PaperCorpus::build(queries);
        let qs = queries
            .iter()
            .enumerate()
            .map(|(i, q)| (format!("mh{}", q.index), q.query.clone(), pc.relevant(i)));
        let (structural, all) = (pc.edge_ops(false), pc.edge_ops(true));
        let label = all.get(structural.len()..).unwrap_or(&[]);
        Corpus::assemble(Dataset::MultihopRag, &pc.nodes, qs, &structural, label)
    }

    /// `queries` yields `(qid, text, relevant node ids)`; `structural` followed by `label`
    /// is the reference's `edge_ops(true)`.
    fn assemble<'a>(
        dataset: Dataset,
        table: &NodeTable,
        queries: impl Iterator<Item = (String, String, &'a [String])>,
        structural: &[EdgeOp],
        label: &[EdgeOp],
    ) -> Result<Corpus> {
        let queries = queries
            .map(|(qid, text, ids)| {
                Ok(CorpusQuery {
                    qid,
                    text,
                    relevant: ids_to_indices(table, ids)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Corpus {
            dataset,
            nodes: to_nodes(table),
            queries,
            structural_ops: ops_to_indices(table, structural)?,
            label_ops: ops_to_indices(table, label)?,
        })
    }

    /// Node ids in node order.
    pub fn node_ids(&self) -> impl Iterator<Item = &str> {
        self.nodes.iter().map(|n| n.id.as_str())
    }
}

fn to_nodes(table: &NodeTable) -> Vec<CorpusNode> {
    table
        .iter()
        .map(|n| CorpusNode {
            id: n.id.clone(),
            title: n.title.clone(),
            content: n.content.clone(),
        })
        .collect()
}

fn index_of(table: &NodeTable, id: &str) -> Result<usize> {
    table
        .nodes
        .get_index_of(id)
        .ok_or_else(|| Error::Internal(format!("node id `{id}` is not in the node table")))
}

fn ids_to_indices(table: &NodeTable, ids: &[String]) -> Result<Vec<usize>> {
    ids.iter().map(|id| index_of(table, id)).collect()
}

fn ops_to_indices(table: &NodeTable, ops: &[EdgeOp]) -> Result<Vec<(usize, usize, f64)>> {
    ops.iter()
        .map(|op| {
            Ok((
                index_of(table, &op.source)?,
                index_of(table, &op.target)?,
                op.weight,
            ))
        })
        .collect()
}

/// "add or boost" (reference `benchmarks/external/run_hotpotqa.py::_add_or_boost_edge`,
/// commit 134c676): skip self-pairs; add `a → b` with weight `w` (kind
/// `sibling`) if absent or if `w` is greater than the existing weight; a replacement keeps
/// the edge's position in `a`'s ordered bucket (reference `crabpath/graph.py::Graph.add_edge` overwrites the
/// dictionary entry in place).
pub fn add_or_boost(graph: &mut Graph, a: NodeId, b: NodeId, w: f64) -> Result<()> {
    if a == b {
        return Ok(());
    }
    let add = match graph.edge(a, b) {
        None => true,
        Some(e) => w > e.weight,
    };
    if add {
        graph
            .add_edge(a, b, Edge::new(w))
            .map_err(|e| Error::core("adding a graph edge", e))?;
    }
    Ok(())
}

/// Builds the graph of a run (see the module docs). `index` is needed by
/// [`GraphBuilder::Knn`] only (the node embeddings of the run).
pub fn build_graph(
    corpus: &Corpus,
    builder: GraphBuilder,
    label_edges: bool,
    index: Option<&DenseIndex>,
) -> Result<Graph> {
    let mut g = Graph::new();
    for (i, n) in corpus.nodes.iter().enumerate() {
        let mut node = Node::new(n.id.clone(), n.content.clone());
        node.metadata
            .insert("title".into(), Value::String(n.title.clone()));
        let ix = g.add_node(node);
        if ix.index() != i {
            return Err(Error::Internal(format!(
                "node `{}` got symbol {} instead of {i}",
                n.id, ix.0
            )));
        }
    }
    let base: Vec<(usize, usize, f64)> = match builder {
        GraphBuilder::Reference => corpus.structural_ops.clone(),
        GraphBuilder::TitleMentions => title_mention_ops(corpus),
        GraphBuilder::Knn(k) => {
            let index = index.ok_or_else(|| {
                Error::Internal("the knn builder needs the node embeddings".into())
            })?;
            knn_ops(index, k)?
        }
    };
    for &(a, b, w) in &base {
        add_or_boost(&mut g, node_id(a), node_id(b), w)?;
    }
    if label_edges {
        for &(a, b, w) in &corpus.label_ops {
            add_or_boost(&mut g, node_id(a), node_id(b), w)?;
        }
    }
    Ok(g)
}

/// Graph symbol of node `i` (nodes are interned first, in order).
#[inline]
pub fn node_id(i: usize) -> NodeId {
    NodeId(i as u32)
}

/// The matching key of a title: lower-cased, a trailing parenthesised disambiguator removed
/// (`"Ed Wood (film)"` → `"ed wood"`), trimmed.
pub fn mention_key(title: &str) -> String {
    let mut t = title.trim();
    if t.ends_with(')') {
        if let Some(open) = t.rfind(" (") {
            t = t[..open].trim_end();
        }
    }
    t.to_lowercase()
}

/// Title-mention edge operations: for each node A in node order, for each distinct node B
/// whose [`mention_key`] occurs in A's lower-cased content as a whole word (the characters
/// around the match are not alphanumeric), in order of first match position then node
/// order: `A → B` at [`MENTION_EDGE_WEIGHT`]. Keys shorter than [`MIN_MENTION_KEY_CHARS`]
/// are ignored; nodes sharing a key are all linked.
pub fn title_mention_ops(corpus: &Corpus) -> Vec<(usize, usize, f64)> {
    let mut keys: indexmap::IndexMap<String, Vec<usize>> = indexmap::IndexMap::new();
    for (i, n) in corpus.nodes.iter().enumerate() {
        let k = mention_key(&n.title);
        if k.chars().count() >= MIN_MENTION_KEY_CHARS {
            keys.entry(k).or_default().push(i);
        }
    }
    let mut ops = Vec::new();
    if keys.is_empty() {
        return ops;
    }
    let patterns: Vec<&str> = keys.keys().map(String::as_str).collect();
    let ac = match AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(&patterns)
    {
        Ok(ac) => ac,
        Err(_) => return ops,
    };
    for (a, n) in corpus.nodes.iter().enumerate() {
        let text = n.content.to_lowercase();
        let mut hits: Vec<(usize, usize)> = Vec::new(); // (start, pattern)
        for m in ac.find_overlapping_iter(&text) {
            let before = text[..m.start()].chars().next_back();
            let after = text[m.end()..].chars().next();
            if before.is_some_and(char::is_alphanumeric) || after.is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            hits.push((m.start(), m.pattern().as_usize()));
        }
        hits.sort();
        let mut done = std::collections::HashSet::new();
        for (_, p) in hits {
            for &b in &keys[p] {
                if b != a && done.insert(b) {
                    ops.push((a, b, MENTION_EDGE_WEIGHT));
                }
            }
        }
    }
    ops
}

/// kNN edge operations: for each node in order, its `k` most similar other nodes (exact
/// cosine of the run's embeddings, stable ties by node order, zero-similarity neighbours
/// skipped), `A → B` at [`KNN_EDGE_WEIGHT`]. Cost O(n²·dim).
pub fn knn_ops(index: &DenseIndex, k: usize) -> Result<Vec<(usize, usize, f64)>> {
    Ok(index
        .search_nodes(k + 1)?
        .into_iter()
        .enumerate()
        .flat_map(|(a, hits)| {
            hits.into_iter()
                .filter(move |&(b, s)| b != a && s > 0.0)
                .take(k)
                .map(move |(b, _)| (a, b, KNN_EDGE_WEIGHT))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mention_key_drops_disambiguator() {
        assert_eq!(mention_key("Ed Wood (film)"), "ed wood");
        assert_eq!(mention_key("Scott Derrickson"), "scott derrickson");
        assert_eq!(mention_key("(film)"), "(film)");
    }

    #[test]
    fn add_or_boost_keeps_position_and_only_raises() {
        let mut g = Graph::new();
        for id in ["a", "b", "c"] {
            g.add_node(Node::new(id, id));
        }
        let (a, b, c) = (node_id(0), node_id(1), node_id(2));
        add_or_boost(&mut g, a, b, 0.3).unwrap();
        add_or_boost(&mut g, a, c, 0.3).unwrap();
        add_or_boost(&mut g, a, b, 0.5).unwrap();
        add_or_boost(&mut g, a, c, 0.2).unwrap();
        add_or_boost(&mut g, a, a, 0.9).unwrap();
        let out: Vec<(NodeId, f64)> = g.outgoing(a).map(|(t, e)| (t, e.weight)).collect();
        assert_eq!(out, vec![(b, 0.5), (c, 0.3)]);
        assert_eq!(g.edge_count(), 2);
    }

    #[test]
    fn title_mentions_whole_words_only() {
        let node = |id: &str, title: &str, content: &str| CorpusNode {
            id: id.into(),
            title: title.into(),
            content: content.into(),
        };
        let corpus = Corpus {
            dataset: Dataset::HotpotQa,
            nodes: vec![
                node("a", "Alpha Film", "Directed by Bob Ray; see Gamma."),
                node("b", "Bob Ray (director)", "Bob Ray made Alpha Film."),
                node("g", "Gamma", "Gammaray is not Gamma."),
            ],
            queries: vec![],
            structural_ops: vec![],
            label_ops: vec![],
        };
        let ops = title_mention_ops(&corpus);
        assert_eq!(
            ops,
            vec![(0, 1, 0.3), (0, 2, 0.3), (1, 0, 0.3)],
            "g mentions only itself; 'Gammaray' is not a whole-word match"
        );
    }
}
