//! Dataset loaders and the text/node rules of the reference benchmark protocol
//! (`benchmarks/external/run_hotpotqa.py`, `run_multihop_rag.py`, commit 134c676).
//!
//! * [`json`]: streaming reader for "one JSON array of rows" files, plain or gzip; 0-based row
//!   numbers in every error.
//! * [`hotpotqa`]: HotPotQA dev distractor rows → [`hotpotqa::Question`]; reference corpus.
//! * [`multihop`]: MultiHop-RAG queries → [`multihop::Query`], corpus → [`multihop::Article`];
//!   reference corpus.
//! * [`text`]: `slug`, Python `strip`, paragraph text.
//! * [`nodes`]: first-seen node table and `title_to_id`.
//! * [`locate`]: data directory resolution (`--data-dir`, `CRABPATH_DATA_DIR`, `datasets/`).

pub mod hotpotqa;
pub mod json;
pub mod locate;
pub mod multihop;
pub mod nodes;
pub mod text;

/// One "add or boost" edge operation of the reference graph builder (`_add_or_boost_edge`): add
/// `source → target` with `weight` (kind `sibling`) if absent or if `weight` is greater than
/// the existing weight. Lists of these are produced in the exact reference order by
/// [`hotpotqa::PaperCorpus::edge_ops`] and [`multihop::PaperCorpus::edge_ops`].
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeOp {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// Proposed weight.
    pub weight: f64,
}

/// Appends, for every `i < j` over `ids`, `ids[i] → ids[j]` then `ids[j] → ids[i]`, skipping
/// self-pairs (the reference's pair enumeration in `_build_graph`).
pub(crate) fn push_pairs(ops: &mut Vec<EdgeOp>, ids: &[String], weight: f64) {
    for i in 0..ids.len() {
        for j in i + 1..ids.len() {
            if ids[i] == ids[j] {
                continue;
            }
            ops.push(EdgeOp {
                source: ids[i].clone(),
                target: ids[j].clone(),
                weight,
            });
            ops.push(EdgeOp {
                source: ids[j].clone(),
                target: ids[i].clone(),
                weight,
            });
        }
    }
}
