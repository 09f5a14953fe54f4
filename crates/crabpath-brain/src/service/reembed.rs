//! [`Brain::reembed`]: the service's entry to [`crate::service::command::reembed`] (issue 28, item 7;
//! seed 003 §6.3).

use super::engine::{Backend, Brain};
use crate::error::{Error, Result};
use crate::service::command::reembed::{ReembedOptions, ReembedReport};

impl Brain {
    /// Re-embeds every node of a brain database with `opts.embedder` in place,
    /// resumably, keeping nodes, edges, weights, journal, turns and ledger
    /// ([`crate::service::command::reembed::reembed`]). Afterwards the brain records the new embedder, and
    /// this `Brain` drops what it held of the old one (its loaded embedder, a resident
    /// graph and search index), so that the next operation embeds with the embedder
    /// its loader gives for the new record.
    ///
    /// Errors: a state or graph file (the reference's format: `import` it into a
    /// database first); a brain opened for reading; see [`crate::service::command::reembed::reembed`].
    pub fn reembed(&mut self, opts: &ReembedOptions<'_>) -> Result<ReembedReport> {
        if !self.options.write {
            return Err(Error::Invalid(format!(
                "{}: opened for reading only",
                self.path().display()
            )));
        }
        let Backend::Store(s) = &mut self.backend else {
            return Err(crate::service::command::reembed::not_a_database(
                self.path(),
            ));
        };
        let report = crate::service::command::reembed::reembed(&mut s.store, opts)?;
        self.embedder = None;
        self.reload()?;
        Ok(report)
    }
}
