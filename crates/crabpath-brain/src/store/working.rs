//! What an operation on a brain works on, whatever holds the brain: the graph (all of
//! it, or the part the operation declared it reads), the vectors
//! (`crabpath::index::VectorStore`: the in-memory index of a `state.json`, or the
//! database's table), the `meta` object, and the journal entries it appends. The
//! service ([`crate::service`]) makes one, runs the operation on it and persists what
//! changed, entries included, as one write.

use crabpath::graph::{Graph, Metadata};
use crabpath::index::VectorStore;
use crabpath::state::State;
use pyformat::pyjson::PyDict;
use pyformat::pytime;

use crate::reference::journal::stamp;

/// An operation's view of a brain (see the module docs).
pub struct Working<'a> {
    /// The graph.
    pub graph: &'a mut Graph,
    /// The node vectors.
    pub vectors: &'a mut dyn VectorStore,
    /// The `meta` object (empty, and not written, for operations that declared they
    /// only touch some nodes).
    pub meta: &'a mut Metadata,
    journal: &'a mut Vec<PyDict>,
    keep: bool,
}

impl<'a> Working<'a> {
    /// A view over the parts; entries go to `journal`.
    pub fn new(
        graph: &'a mut Graph,
        vectors: &'a mut dyn VectorStore,
        meta: &'a mut Metadata,
        journal: &'a mut Vec<PyDict>,
    ) -> Self {
        Working {
            graph,
            vectors,
            meta,
            journal,
            keep: true,
        }
    }

    /// A view over an in-memory state.
    pub fn of_state(state: &'a mut State, journal: &'a mut Vec<PyDict>) -> Self {
        Working::new(&mut state.graph, &mut state.index, &mut state.meta, journal)
    }

    /// Appends a journal entry: `event` stamped with the current time (reference
    /// `journal.py::log_event`).
    pub fn journal(&mut self, event: PyDict) {
        self.journal.push(stamp(event, pytime::time_time()));
    }

    /// Takes the entries appended so far (they are then not written with the
    /// operation).
    pub fn take_journal(&mut self) -> Vec<PyDict> {
        std::mem::take(self.journal)
    }

    /// Asks that the graph, vectors and meta not be saved (a dry run, or nothing
    /// changed); journal entries are still written.
    pub fn discard(&mut self) {
        self.keep = false;
    }

    /// Whether the changes are to be saved.
    pub fn keeps(&self) -> bool {
        self.keep
    }
}
