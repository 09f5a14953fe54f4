//! A brain's data in memory: the graph, its node vectors and the file metadata
//! (the three members of the reference's state document, reference
//! `crabpath/store.py::save_state`, commit 134c676). Reading and writing state files is
//! the application's (crate `crabpath-brain`); the algorithms that need more than the
//! graph ([`crate::maintain::run_maintenance`]) take this.

use crate::graph::{Graph, Metadata};
use crate::index::VectorIndex;

/// Everything a state holds.
#[derive(Debug, Clone, Default)]
pub struct State {
    /// The memory graph.
    pub graph: Graph,
    /// Node vectors.
    pub index: VectorIndex,
    /// File metadata (`schema_version`, `created_at`, `node_count`, `embedder_name`,
    /// `embedder_dim`, and whatever else the file carried), in file order.
    pub meta: Metadata,
}

impl State {
    /// A state with the given graph and index and empty metadata.
    pub fn new(graph: Graph, index: VectorIndex) -> Self {
        State {
            graph,
            index,
            meta: Metadata::new(),
        }
    }
}
