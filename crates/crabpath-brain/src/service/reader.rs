//! A second, read-only handle on a database brain, for the reads a server answers
//! beside its writer (issue 30 item 4, tester's finding c: "a `health` call waits
//! 1.9 s behind a `sync`"). The writer keeps its own handle (and its mutex); the
//! reader is a separate SQLite connection opened read-only and not resident, so in
//! write-ahead-log mode it reads the last committed state while a write transaction
//! is open, never waiting for it, and holds no second copy of the graph in memory.

use crabpath::node::Node;

use super::engine::{Backend, Brain, Location, OpenOptions};
use crate::error::Result;
use crate::store::rows::{load_part, syms_of};
use crate::store::sql_error;

impl Brain {
    /// A read-only, non-resident handle on this brain's database (`None` for a state
    /// or graph file, whose reads need the writer's lock). Its reads see what the
    /// writer last committed; it never writes, journals nothing and embeds nothing.
    ///
    /// Errors: opening the database file again ([`Brain::open`]).
    pub fn reader(&self) -> Result<Option<Brain>> {
        let Location::Store(db) = &self.location else {
            return Ok(None);
        };
        let mut options = OpenOptions::new(self.profile);
        options.write = false;
        options.resident = false;
        Brain::open(Location::Store(db.clone()), options).map(Some)
    }

    /// Runs `op` on node `id` (`None` when there is no such node). A database brain
    /// that is not resident reads that node's row only (with its outgoing edges),
    /// not the whole graph as [`Brain::read`] does: the `crabpath://node/{id}`
    /// resource of a reader stays cheap on a brain of 79,000 chunks.
    ///
    /// Errors: reading the brain.
    pub fn read_node<T>(&mut self, id: &str, op: impl FnOnce(&Node) -> T) -> Result<Option<T>> {
        // a database replaced since (init, import) is read anew, not the old file
        self.follow_replacement()?;
        let resident = match &self.backend {
            Backend::Store(s) => s.resident.is_some(),
            Backend::Json(_) => true,
        };
        if resident {
            return self.read(|g, _| g.get_node(id).map(op));
        }
        let Backend::Store(s) = &mut self.backend else {
            return Ok(None);
        };
        let path = s.store.path().to_path_buf();
        let err = sql_error(&path);
        let tx = s.store.read()?;
        let found = match syms_of(&tx, &[id]).map_err(&err)?.first() {
            Some(Some(sym)) => Some(load_part(&tx, &[*sym]).map_err(&err)?),
            _ => None,
        };
        tx.commit().map_err(&err)?;
        Ok(found.and_then(|l| l.graph.get_node(id).map(op)))
    }
}
