//! A test hook that makes a brain database full, deterministically (issue 30 item 4):
//! the tests of [`super::unjournaled`] cannot mount a small file system.

use super::engine::{Backend, Brain};
use crate::error::{Error, Result};
use crate::store::sql_error;

impl Brain {
    /// Test hook (issue 30 item 4): makes the database full, deterministically. It
    /// compacts the file (`VACUUM`, so no free page is left) and caps it at its current
    /// size (`PRAGMA max_page_count`) on this brain's connection: from then on any write
    /// that needs a new page fails with `SQLITE_FULL`, as on a full disk. Returns the
    /// page size in bytes (a journal entry longer than one page needs a new page).
    #[doc(hidden)]
    pub fn fill_database_for_test(&mut self) -> Result<usize> {
        let Backend::Store(s) = &self.backend else {
            return Err(Error::Invalid("only a brain database can be filled".into()));
        };
        let conn = s.store.conn();
        let err = sql_error(s.store.path());
        conn.execute_batch("VACUUM").map_err(&err)?;
        let pages: i64 = conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .map_err(&err)?;
        conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .map_err(&err)?;
        let size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(&err)?;
        Ok(size as usize)
    }
}
