//! A query answered although its journal entry could not be written (issue 30 item 4:
//! "a full disk gives a clear error for the write, nothing corrupt, and queries keep
//! working").
//!
//! Every query of a database appends one journal entry. On a full disk (SQLite's
//! `SQLITE_FULL`) or a database or file system that turned read-only under a writable
//! connection (`SQLITE_READONLY`), that append fails; the query itself only read. So
//! the answer is still returned, marked: [`Unjournaled`] names the database file and the
//! reason, and every interface reports it with the same two fields, `journaled: false`
//! and `warning` (the CLI also on stderr). Such a query grows no question node
//! (neurogenesis writes too), and its conversation's turn is not logged: a feedback or
//! correction for that chat then fails with [`Unjournaled::feedback_error`] until a
//! later query of the chat is journaled ([`UnjournaledChats`], kept in memory by the
//! serving process: a command-line run ends with its query). Every other write still
//! fails with the database's error and changes nothing (SQLite rolls the statement
//! back).
//!
//! A state file's brain does the same in the corrected profile when its `journal.jsonl`
//! cannot take the entry for want of room ([`crate::reference::journal::no_room`]): the
//! append leaves nothing of itself in the file
//! ([`crate::reference::journal::append_whole`]), and the answer is marked with the
//! journal's path and the system's reason.
//!
//! A brain opened for reading on purpose (or by the read-only fallback) journals nothing
//! and says so its own way; it is not marked here.

use std::path::PathBuf;

use rusqlite::ErrorCode;

use crate::error::{Error, Result};
use crate::store::{sql_error, Store};

/// Why a query's journal entry was not written: the database file and SQLite's reason
/// (e.g. `database or disk is full`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unjournaled {
    /// The database file (`…/brain.db`), or a state file's `journal.jsonl`.
    pub path: PathBuf,
    /// SQLite's (or the system's) message for the failed append.
    pub reason: String,
}

impl Unjournaled {
    /// The one-line warning every interface shows (the `warning` field; the CLI's
    /// stderr): the file, the reason, and that the answer stands.
    pub fn warning(&self) -> String {
        format!(
            "{}: {}: the query is answered but not journaled (no feedback can credit it)",
            self.path.display(),
            self.reason
        )
    }

    /// The error a feedback for a chat whose newest query was not journaled gets.
    pub fn feedback_error(&self, chat_id: &str) -> Error {
        Error::Invalid(format!(
            "chat `{chat_id}`: its newest query was not journaled ({}: {}): nothing to credit",
            self.path.display(),
            self.reason
        ))
    }
}

/// Whether a failed write means "the database cannot take a write now" (full, or
/// read-only underneath a writable connection) rather than a fault of the data.
pub(crate) fn no_room(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DiskFull | ErrorCode::ReadOnly)
    )
}

/// Appends a query's journal entry to a database opened for writing (a read-only brain
/// answers queries without journaling them). `Ok(Some(_))` when the database had no
/// room for it ([`no_room`]); any other failure is an error.
pub(crate) fn store_journal(
    store: &Store,
    entry: &pyformat::pyjson::PyDict,
) -> Result<Option<Unjournaled>> {
    if !store.writable() {
        return Ok(None);
    }
    let text = crate::store::rows::journal_text(entry)?;
    match crate::store::rows::append_journal(store.conn(), &text) {
        Ok(()) => Ok(None),
        Err(e) if no_room(&e) => Ok(Some(Unjournaled {
            path: store.path().to_path_buf(),
            reason: reason(&e),
        })),
        Err(e) => Err(sql_error(store.path())(e)),
    }
}

/// SQLite's own message (`database or disk is full`), without rusqlite's wrapping.
fn reason(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(m)) if !m.is_empty() => m.clone(),
        rusqlite::Error::SqliteFailure(f, _) => f.to_string(),
        other => other.to_string(),
    }
}

/// The chats whose newest query was answered but not journaled, with why (at most
/// [`UnjournaledChats::CAP`]; the oldest is forgotten first).
#[derive(Debug, Default)]
pub(crate) struct UnjournaledChats(Vec<(String, Unjournaled)>);

impl UnjournaledChats {
    /// How many chats are remembered: a bound on the memory a long full-disk spell
    /// takes (each entry is a chat id and a path).
    pub(crate) const CAP: usize = 1024;

    /// Records that `chat_id`'s newest query was not journaled.
    pub(crate) fn insert(&mut self, chat_id: &str, why: &Unjournaled) {
        self.remove(chat_id);
        if self.0.len() >= Self::CAP {
            self.0.remove(0);
        }
        self.0.push((chat_id.to_string(), why.clone()));
    }

    /// Forgets `chat_id` (a query of it was journaled).
    pub(crate) fn remove(&mut self, chat_id: &str) {
        self.0.retain(|(c, _)| c != chat_id);
    }

    /// Why `chat_id`'s newest query was not journaled, if it was not.
    pub(crate) fn get(&self, chat_id: &str) -> Option<&Unjournaled> {
        self.0.iter().find(|(c, _)| c == chat_id).map(|(_, u)| u)
    }
}

/// The chat id a query's journal metadata names (`{"chat_id": ...}`, as the daemon and
/// the MCP server journal it).
pub(crate) fn chat_of(meta: &pyformat::pyjson::PyValue) -> Option<String> {
    match meta.as_dict().and_then(|d| d.get("chat_id")) {
        Some(pyformat::pyjson::PyValue::Str(c)) => Some(c.clone()),
        _ => None,
    }
}
