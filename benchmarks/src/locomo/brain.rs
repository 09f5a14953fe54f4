//! One brain per conversation: a node per turn, and the edges of a chosen [`Structure`].
//!
//! **Nodes.** Every turn becomes a node, in conversation order (session by session), so
//! `NodeId(i)` is turn `i` of [`super::data::Conversation::turns`]. Its id is the turn's
//! `dia_id` (`D3:7`), its content [`super::data::Turn::content`] (the text, plus the caption
//! of a shared image), its metadata `speaker`, `session`, `date_time` (when the session has
//! one) and `dia_id`. Only the content is embedded and searched: speaker and date are what a
//! memory would keep beside a turn, not part of what was said.
//!
//! **Edges.** A conversation is what the core's workspace bootstrap reads a folder as: an
//! ordered run of chunks. The core links consecutive chunks of one file both ways with
//! [`crabpath_brain::source::bootstrap::sibling_weight`]`(file, k)` (≈ 0.5, the habitual tier), and so do
//! the structures here, with sessions or the whole conversation as the "file":
//!
//! * [`Structure::SessionChains`]: each session is a file (`<sample_id>/session_<N>`):
//!   consecutive turns of a session are linked, sessions are not. A session is one sitting,
//!   one coherent exchange; the turn after a question in it is most often its answer, and
//!   LoCoMo's evidence often sits in neighbouring turns of one session.
//! * [`Structure::ConversationChain`]: the whole conversation is one file: the last turn of
//!   a session is also linked to the first of the next. Sessions are days or weeks apart,
//!   so the boundary link joins unrelated small talk; it is the ablation that says whether
//!   session boundaries matter.
//! * [`Structure::SessionChainsKnn`]: session chains plus, from every turn, edges to its `k`
//!   most similar turns of *other* sessions (cosine of the run's embedder, weight
//!   [`KNN_EDGE_WEIGHT`], the habitual tier). Multi-hop questions need evidence from
//!   several dialogues (`datasets/README.md`): chains never leave a dialogue, so this is
//!   the label-free structure that lets a walk from one dialogue's evidence reach another's.
//!   Links inside a session are left to the chain.
//! * [`Structure::NoEdges`]: the control: a traversal fires its seeds and nothing else.
//!
//! Nothing is built from a question, an answer or an evidence label, nor from the
//! generated summaries and observations of the release.

use crabpath::{Graph, Node};
use crabpath_brain::source::bootstrap::sibling_weight;
use serde_json::Value;

use super::data::{Category, Conversation, Question};
use super::evidence::TurnRef;
use crate::build::{add_or_boost, node_id, Corpus, CorpusNode, CorpusQuery, KNN_EDGE_WEIGHT};
use crate::catalog::Dataset;
use crate::dense::DenseIndex;
use crate::error::{Error, Result};

/// Which edges a brain holds (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Structure {
    /// No edges.
    NoEdges,
    /// Consecutive turns of each session, both ways.
    SessionChains,
    /// Consecutive turns of the whole conversation, both ways.
    ConversationChain,
    /// Session chains plus each turn's `k` nearest turns of other sessions.
    SessionChainsKnn(usize),
}

impl Structure {
    /// `none`, `session-chains`, `conversation-chain`, `session-chains+knn<k>`.
    pub fn name(self) -> String {
        match self {
            Structure::NoEdges => "none".into(),
            Structure::SessionChains => "session-chains".into(),
            Structure::ConversationChain => "conversation-chain".into(),
            Structure::SessionChainsKnn(k) => format!("session-chains+knn{k}"),
        }
    }

    /// Whether building it needs the node embeddings.
    pub fn needs_vectors(self) -> bool {
        matches!(self, Structure::SessionChainsKnn(_))
    }
}

/// A conversation as the methods of `bench` see it, plus what the LoCoMo metrics need.
#[derive(Debug, Clone)]
pub struct ConversationCorpus {
    /// `sample_id`.
    pub sample_id: String,
    /// Nodes (one per turn, conversation order) and queries (one per question with at least
    /// one evidence turn, file order); `structural_ops` empty until [`build`] is called.
    pub corpus: Corpus,
    /// Per node: its session number.
    pub session_of: Vec<u32>,
    /// Per node: its content length in code points (what a context budget counts).
    pub chars: Vec<usize>,
    /// Per query: the question it is (index into the conversation's `questions`).
    pub question_of: Vec<usize>,
    /// Per query: its category.
    pub category: Vec<Category>,
    /// Questions left out for having no evidence turn (`qa` indices).
    pub without_evidence: Vec<usize>,
}

impl ConversationCorpus {
    /// The nodes and queries of `conv` (see the module docs; no edges yet).
    pub fn new(conv: &Conversation) -> Result<ConversationCorpus> {
        let mut nodes = Vec::with_capacity(conv.turn_count());
        let mut session_of = Vec::with_capacity(conv.turn_count());
        let mut chars = Vec::with_capacity(conv.turn_count());
        let mut index: std::collections::HashMap<TurnRef, usize> = Default::default();
        for (s, t) in conv.turns() {
            index.insert(t.id, nodes.len());
            let content = t.content();
            chars.push(content.chars().count());
            session_of.push(s.number);
            nodes.push(CorpusNode {
                id: t.id.to_string(),
                title: t.id.to_string(),
                content,
            });
        }
        let mut queries = Vec::new();
        let mut question_of = Vec::new();
        let mut category = Vec::new();
        let mut without_evidence = Vec::new();
        for q in &conv.questions {
            if q.evidence.is_empty() {
                without_evidence.push(q.index);
                continue;
            }
            queries.push(query_of(conv, q, &index)?);
            question_of.push(q.index);
            category.push(q.category);
        }
        Ok(ConversationCorpus {
            sample_id: conv.sample_id.clone(),
            corpus: Corpus {
                dataset: Dataset::Locomo,
                nodes,
                queries,
                structural_ops: Vec::new(),
                label_ops: Vec::new(),
            },
            session_of,
            chars,
            question_of,
            category,
            without_evidence,
        })
    }

    /// The edge operations of `structure`, in the order the module docs list them (`index`:
    /// the node embeddings, needed by [`Structure::SessionChainsKnn`] only). Cost: linear
    /// in the turns; kNN adds one exact search per node, O(n² · dim).
    pub fn edge_ops(
        &self,
        structure: Structure,
        index: Option<&DenseIndex>,
    ) -> Result<Vec<(usize, usize, f64)>> {
        let mut ops = Vec::new();
        match structure {
            Structure::NoEdges => {}
            Structure::SessionChains | Structure::SessionChainsKnn(_) => {
                let mut start = 0;
                while start < self.session_of.len() {
                    let s = self.session_of[start];
                    let end = start
                        + self.session_of[start..]
                            .iter()
                            .take_while(|&&x| x == s)
                            .count();
                    let file = format!("{}/session_{s}", self.sample_id);
                    chain(&mut ops, start..end, &file);
                    start = end;
                }
            }
            Structure::ConversationChain => {
                chain(&mut ops, 0..self.session_of.len(), &self.sample_id);
            }
        }
        if let Structure::SessionChainsKnn(k) = structure {
            let index = index.ok_or_else(|| {
                Error::Internal("the kNN structure needs the node embeddings".into())
            })?;
            ops.extend(self.cross_session_knn(index, k)?);
        }
        Ok(ops)
    }

    /// From each node in order, `A → B` at [`KNN_EDGE_WEIGHT`] for its `k` most similar
    /// nodes of other sessions (exact cosine, ties by node order, zero-similarity
    /// neighbours skipped).
    fn cross_session_knn(&self, index: &DenseIndex, k: usize) -> Result<Vec<(usize, usize, f64)>> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let longest = longest_run(&self.session_of);
        let hits = index.search_nodes(k + longest)?;
        Ok(hits
            .into_iter()
            .enumerate()
            .flat_map(|(a, hits)| {
                let sa = self.session_of[a];
                hits.into_iter()
                    .filter(move |&(b, s)| self.session_of[b] != sa && s > 0.0)
                    .take(k)
                    .map(move |(b, _)| (a, b, KNN_EDGE_WEIGHT))
            })
            .collect())
    }
}

/// The corpus of every conversation of `l`, in file order.
pub fn corpora(l: &super::data::Locomo) -> Result<Vec<ConversationCorpus>> {
    l.conversations
        .iter()
        .map(ConversationCorpus::new)
        .collect()
}

/// The core's sibling edges over the consecutive nodes `range` of one "file".
fn chain(ops: &mut Vec<(usize, usize, f64)>, range: std::ops::Range<usize>, file: &str) {
    for (k, a) in range.clone().zip(range.skip(1)).enumerate() {
        let w = sibling_weight(file, k);
        ops.push((a.0, a.1, w));
        ops.push((a.1, a.0, w));
    }
}

/// Length of the longest run of equal values.
fn longest_run(xs: &[u32]) -> usize {
    xs.chunk_by(|a, b| a == b)
        .map(<[u32]>::len)
        .max()
        .unwrap_or(0)
}

fn query_of(
    conv: &Conversation,
    q: &Question,
    index: &std::collections::HashMap<TurnRef, usize>,
) -> Result<CorpusQuery> {
    let relevant = q
        .evidence
        .iter()
        .map(|r| {
            index.get(r).copied().ok_or_else(|| {
                Error::Internal(format!(
                    "{} qa[{}]: evidence {r} was kept but is not a turn",
                    conv.sample_id, q.index
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(CorpusQuery {
        qid: format!("{}:q{}", conv.sample_id, q.index),
        text: q.question.clone(),
        relevant,
    })
}

/// The brain of `cc` with `ops` (from [`ConversationCorpus::edge_ops`]): one node per turn
/// in node order, with the metadata of the module docs, then the edges by "add or boost"
/// ([`add_or_boost`]; on a fresh graph each is the core's `add_edge`).
pub fn build(conv: &Conversation, ops: &[(usize, usize, f64)]) -> Result<Graph> {
    let mut g = Graph::new();
    for (i, (s, t)) in conv.turns().enumerate() {
        let mut node = Node::new(t.id.to_string(), t.content());
        let m = &mut node.metadata;
        m.insert("speaker".into(), Value::String(t.speaker.clone()));
        m.insert("session".into(), Value::from(s.number));
        if let Some(d) = &s.date_time {
            m.insert("date_time".into(), Value::String(d.clone()));
        }
        m.insert("dia_id".into(), Value::String(t.id.to_string()));
        let ix = g.add_node(node);
        if ix.index() != i {
            return Err(Error::Internal(format!(
                "{}: turn {} got symbol {} instead of {i}",
                conv.sample_id, t.id, ix.0
            )));
        }
    }
    for &(a, b, w) in ops {
        add_or_boost(&mut g, node_id(a), node_id(b), w)?;
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::DenseSearch;
    use crate::locomo::data::{Session, Turn};

    pub(crate) fn conv() -> Conversation {
        let turn = |s, t, text: &str| Turn {
            id: TurnRef {
                session: s,
                turn: t,
            },
            speaker: if t % 2 == 1 { "Ann" } else { "Bo" }.into(),
            text: text.into(),
            caption: None,
        };
        let q = |index, question: &str, category, evidence: Vec<TurnRef>| Question {
            index,
            question: question.into(),
            category,
            evidence,
            released_evidence: Vec::new(),
            answer: None,
        };
        let r = |session, turn| TurnRef { session, turn };
        Conversation {
            row: 0,
            sample_id: "conv-t".into(),
            speakers: ["Ann".into(), "Bo".into()],
            sessions: vec![
                Session {
                    number: 1,
                    date_time: Some("1 May".into()),
                    turns: vec![turn(1, 1, "a"), turn(1, 2, "b"), turn(1, 3, "c")],
                },
                Session {
                    number: 2,
                    date_time: None,
                    turns: vec![turn(2, 1, "d"), turn(2, 2, "e")],
                },
            ],
            questions: vec![
                q(0, "q0", Category::MultiHop, vec![r(1, 2), r(2, 1)]),
                q(1, "q1", Category::OpenDomain, vec![]),
                q(2, "q2", Category::SingleHop, vec![r(2, 2)]),
            ],
        }
    }

    #[test]
    fn nodes_queries_and_the_questions_left_out() {
        let cc = ConversationCorpus::new(&conv()).unwrap();
        assert_eq!(cc.corpus.nodes.len(), 5);
        assert_eq!(cc.session_of, [1, 1, 1, 2, 2]);
        assert_eq!(cc.corpus.nodes[3].id, "D2:1");
        assert_eq!(cc.corpus.queries.len(), 2);
        assert_eq!(cc.corpus.queries[0].relevant, [1, 3]);
        assert_eq!(cc.corpus.queries[1].qid, "conv-t:q2");
        assert_eq!(cc.question_of, [0, 2]);
        assert_eq!(cc.category, [Category::MultiHop, Category::SingleHop]);
        assert_eq!(cc.without_evidence, [1]);
    }

    #[test]
    fn chains_are_the_cores_sibling_edges() {
        let cc = ConversationCorpus::new(&conv()).unwrap();
        let ops = cc.edge_ops(Structure::SessionChains, None).unwrap();
        let w = |f: &str, k| sibling_weight(f, k);
        assert_eq!(
            ops,
            [
                (0, 1, w("conv-t/session_1", 0)),
                (1, 0, w("conv-t/session_1", 0)),
                (1, 2, w("conv-t/session_1", 1)),
                (2, 1, w("conv-t/session_1", 1)),
                (3, 4, w("conv-t/session_2", 0)),
                (4, 3, w("conv-t/session_2", 0)),
            ]
        );
        let ops = cc.edge_ops(Structure::ConversationChain, None).unwrap();
        assert_eq!(ops.len(), 8);
        assert_eq!(
            ops[4],
            (2, 3, w("conv-t", 2)),
            "the session boundary is linked"
        );
        assert!(cc.edge_ops(Structure::NoEdges, None).unwrap().is_empty());
        assert!(cc.edge_ops(Structure::SessionChainsKnn(1), None).is_err());
    }

    #[test]
    fn knn_links_only_other_sessions() {
        let cc = ConversationCorpus::new(&conv()).unwrap();
        // node 0 is closest to node 1 (same session), then to node 4
        let v = vec![
            vec![1.0, 0.0, 0.0],
            vec![1.0, 0.1, 0.0],
            vec![0.0, 0.0, 1.0],
            vec![0.0, 1.0, 0.0],
            vec![1.0, 0.0, 0.2],
        ];
        let index = DenseIndex::new(DenseSearch::F64Exact, &v, 3).unwrap();
        let ops = cc
            .edge_ops(Structure::SessionChainsKnn(1), Some(&index))
            .unwrap();
        let knn: Vec<(usize, usize)> = ops[6..].iter().map(|&(a, b, _)| (a, b)).collect();
        assert_eq!(knn, [(0, 4), (1, 4), (2, 4), (3, 1), (4, 0)]);
        assert!(ops[6..].iter().all(|o| o.2 == KNN_EDGE_WEIGHT));
    }

    #[test]
    fn the_graph_holds_turns_in_order_with_metadata() {
        let c = conv();
        let cc = ConversationCorpus::new(&c).unwrap();
        let ops = cc.edge_ops(Structure::SessionChains, None).unwrap();
        let g = build(&c, &ops).unwrap();
        assert_eq!(g.node_count(), 5);
        assert_eq!(g.edge_count(), 6);
        let n = g.node(node_id(3)).unwrap();
        assert_eq!(n.id, "D2:1");
        assert_eq!(n.metadata.get("session"), Some(&Value::from(2)));
        assert_eq!(n.metadata.get("speaker"), Some(&Value::from("Ann")));
        assert_eq!(n.metadata.get("date_time"), None);
        let n0 = g.node(node_id(0)).unwrap();
        assert_eq!(n0.metadata.get("date_time"), Some(&Value::from("1 May")));
    }
}
