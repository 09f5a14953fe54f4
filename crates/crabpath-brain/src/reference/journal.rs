//! The journal: an append-only JSONL log of queries, outcomes, health checks and
//! maintenance next to a state (reference `crabpath/journal.py`, `cli.py::
//! _resolve_journal_path`, commit 134c676).
//!
//! Each entry is one line: Python `json.dumps(event)` (compact, ASCII) + `\n`, the
//! event's own keys first, then `ts` (Unix time, `time.time()`) and `iso` (local time
//! `YYYY-MM-DDTHH:MM:SS±HHMM`). Key orders of the reference's events (before `ts`,
//! `iso`):
//!
//! | type | keys |
//! |---|---|
//! | `query` | type, query, fired, fired_count, node_count, metadata ([`query_event`]) |
//! | `learn` | type, fired, outcome, metadata ([`learn_event`]) |
//! | `health` | type, dormant_pct, habitual_pct, reflex_pct, cross_file_edge_pct, orphan_nodes, nodes, edges |
//! | `maintenance` | type, task, then per task: decay → edges_decayed; prune → edges_removed, nodes_removed; merge → suggested, applied, max_merges; connect → connected [, reason]; then dry_run |
//! | `replay` | type, queries_replayed, edges_reinforced, cross_file_created ([`replay_event`]) |
//! | `sync` | type, state_path, workspace_dir, nodes_added, nodes_updated, nodes_removed, nodes_unchanged, embeddings_computed, authority_set |
//! | `compact_daily_notes` | type, files_scanned, files_compacted, files_skipped, nodes_injected, lines_before, lines_after, dry_run |
//!
//! The corrected profile also writes `inject`, `correct` and `maintain` entries, and
//! names the conversation and the correction in a feedback `learn`'s `metadata`: the
//! inputs the unlearning replay of `forget` needs (issue 30 item 3,
//! [`crate::service::Relearned`]). The journal's statistics (reference
//! `journal_stats`, [`crate::service::command::journal::stats`]) count only `query` and
//! `learn` entries, and are unchanged by them.
//!
//! Appends are a single `write` of the whole line to a file opened in append mode, so
//! concurrent writers never interleave within a line.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::source::workspace::expanduser;
use crabpath::profile::Profile;
use pyformat::pyjson::{self, PyDict, PyInt, PyValue, Style};
use pyformat::pystr;
use pyformat::pytime;

/// The journal of a command (reference `_resolve_journal_path`): with a state path,
/// `journal.jsonl` beside it; else with a graph path, inside it if it is a directory,
/// else beside it; else `~/.crabpath/journal.jsonl`. Paths are `~`-expanded.
pub fn journal_path(state: Option<&Path>, graph: Option<&Path>) -> PathBuf {
    let beside = |p: &Path| match p.parent() {
        Some(d) => d.join("journal.jsonl"),
        None => PathBuf::from("journal.jsonl"),
    };
    if let Some(s) = state {
        return beside(&expanduser(s));
    }
    if let Some(g) = graph {
        let g = expanduser(g);
        if g.is_dir() {
            return g.join("journal.jsonl");
        }
        return beside(&g);
    }
    expanduser("~/.crabpath/journal.jsonl")
}

fn str_list(items: &[&str]) -> PyValue {
    PyValue::List(items.iter().map(|s| PyValue::Str(s.to_string())).collect())
}

fn int(n: usize) -> PyValue {
    PyValue::Int(PyInt::from(n as i64))
}

/// A `query` event (`metadata` is `null` from the CLI, `{"chat_id": ...}` from the
/// daemon).
pub fn query_event(query: &str, fired: &[&str], node_count: usize, metadata: PyValue) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str("query".into()));
    e.insert("query".into(), PyValue::Str(query.into()));
    e.insert("fired".into(), str_list(fired));
    e.insert("fired_count".into(), int(fired.len()));
    e.insert("node_count".into(), int(node_count));
    e.insert("metadata".into(), metadata);
    e
}

/// A `learn` event (`metadata` `null`).
pub fn learn_event(fired: &[&str], outcome: f64) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str("learn".into()));
    e.insert("fired".into(), str_list(fired));
    e.insert("outcome".into(), PyValue::Float(outcome));
    e.insert("metadata".into(), PyValue::Null);
    e
}

/// The `type` of [`replay_event`].
pub const REPLAY_EVENT: &str = "replay";

/// A `replay` event.
pub fn replay_event(
    queries_replayed: usize,
    edges_reinforced: usize,
    cross_file_created: usize,
) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str(REPLAY_EVENT.into()));
    e.insert("queries_replayed".into(), int(queries_replayed));
    e.insert("edges_reinforced".into(), int(edges_reinforced));
    e.insert("cross_file_created".into(), int(cross_file_created));
    e
}

/// The entry as written: the event followed by `ts` and `iso` for Unix time `ts`
/// (an existing `ts`/`iso` key is overwritten in place, as the reference does).
pub fn stamp(mut event: PyDict, ts: f64) -> PyDict {
    event.insert("ts".into(), PyValue::Float(ts));
    event.insert("iso".into(), PyValue::Str(pytime::strftime_iso_local(ts)));
    event
}

/// One journal line (without the newline): `json.dumps(entry)`.
pub fn entry_line(entry: &PyDict) -> String {
    let mut out = String::new();
    let v = PyValue::Dict(entry.clone());
    if let Ok(s) = pyjson::to_string_with(&v, Style::COMPACT) {
        out = s;
    }
    out
}

/// Appends `event` stamped with the current time (reference `log_event`), creating
/// parent directories. Returns the entry written.
///
/// Cost: one append of one line.
pub fn append(path: &Path, event: PyDict) -> Result<PyDict> {
    let entry = stamp(event, pytime::time_time());
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut line = entry_line(&entry);
    line.push('\n');
    append_whole(path, &line).map_err(io)?;
    Ok(entry)
}

/// Appends `text` (whole lines) to the file at `path`, creating it, so that the file
/// never keeps part of it: when the write fails (a full disk, a quota), the file is
/// cut back to its length before the write and the error returned. And when the file
/// ends in a line without its newline (a torn line an earlier crash left), `text`
/// starts on a line of its own instead of being glued to it: readers skip the torn
/// line ([`read_journal`], corrected profile) and keep the new ones.
///
/// Both are departures from the reference's `log_event` (a plain append, which a full
/// disk leaves torn and a later append glues onto) only where the file is already or
/// about to be damaged: a successful append of a sound file writes the same bytes.
///
/// Cost: one lock of the file, one `fstat`, one read of its last byte, one append.
pub fn append_whole(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    // one append at a time (an advisory lock every append of this program takes): the
    // cut back after a failure must not take another process's lines with it
    f.lock()?;
    let before = f.metadata()?.len();
    let mut torn = false;
    if before > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(before - 1))?;
        f.read_exact(&mut last)?;
        torn = last[0] != b'\n';
    }
    match torn {
        true => write_or_cut_back(&mut f, before, format!("\n{text}").as_bytes(), false),
        false => write_or_cut_back(&mut f, before, text.as_bytes(), false),
    }
}

/// Writes `bytes` at the end of `f` (a file opened for appending, `before` bytes long)
/// and, with `sync`, to the disk; when the write or the sync fails, cuts the file back
/// to `before` and returns the error, so that nothing of the write stays: a torn line
/// would make the next whole one unreadable. The one home of that rule for the
/// journal ([`append_whole`]) and the daemon's write-ahead log
/// ([`crate::serve::daemon`]).
///
/// Cost: one write (and one `fdatasync` with `sync`); one truncation on failure.
pub fn write_or_cut_back(
    f: &mut std::fs::File,
    before: u64,
    bytes: &[u8],
    sync: bool,
) -> std::io::Result<()> {
    let written = f.write_all(bytes).and_then(|()| match sync {
        true => f.sync_data(),
        false => f.flush(),
    });
    if let Err(e) = written {
        let _ = f.set_len(before);
        return Err(e);
    }
    Ok(())
}

/// Whether an append failed for want of room (a full disk or a quota): the write is
/// refused, nothing else is wrong with the brain.
pub fn no_room(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull || e.kind() == std::io::ErrorKind::QuotaExceeded
}

/// Appends entries already stamped ([`stamp`]) to the journal file at `path`, one
/// line each, in one write ([`append_whole`]: all of them or none).
pub fn append_entries(path: &Path, entries: &[PyDict]) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut text = String::new();
    for e in entries {
        text.push_str(&entry_line(e));
        text.push('\n');
    }
    append_whole(path, &text).map_err(io)
}

/// The entries of a journal (reference `read_journal`): a missing file reads as empty;
/// blank lines are skipped. A line that is not a JSON object is an error naming it
/// ([`Profile::Paper`], as the reference), or skipped and counted in
/// [`Journal::malformed`] ([`Profile::Corrected`]: a torn last line left by a crash
/// must not make the journal unreadable).
///
/// Cost: reads the whole file.
pub fn read_journal(path: &Path, profile: Profile) -> Result<Journal> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Journal::default()),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let text = pystr::universal_newlines(&text);
    let mut out = Journal::default();
    for (n, line) in pystr::splitlines(&text).into_iter().enumerate() {
        if pystr::strip(line).is_empty() {
            continue;
        }
        match pyjson::loads(pystr::strip(line)) {
            Ok(PyValue::Dict(d)) => {
                out.entries.push(d);
                out.positions.push(n as i64 + 1);
            }
            other => {
                if profile.fixes_bugs() {
                    out.malformed.push(n + 1);
                    continue;
                }
                let message = match other {
                    Err(e) => e.to_string(),
                    Ok(_) => "journal entry is not a JSON object".to_string(),
                };
                return Err(Error::Line {
                    path: path.to_path_buf(),
                    line: n + 1,
                    message,
                });
            }
        }
    }
    Ok(out)
}

/// What [`read_journal`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Journal {
    /// Entries in file order.
    pub entries: Vec<PyDict>,
    /// Each entry's position: its line number in a file, its row's `seq` in a brain
    /// database (increasing; a `rollback` entry names the position it returns to,
    /// issue 30 item 3).
    pub positions: Vec<i64>,
    /// Line numbers skipped as malformed (corrected profile only).
    pub malformed: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_after_a_torn_line_starts_a_line_of_its_own() {
        // a crash mid-append left `{"type": "query", "query": "de` without its newline;
        // glued to it, the next entry would be unreadable too
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let whole = r#"{"type": "learn", "outcome": 1.0}"#;
        std::fs::write(
            &path,
            format!("{whole}\n{{\"type\": \"query\", \"query\": \"de"),
        )
        .unwrap();
        append_whole(&path, &format!("{whole}\n")).unwrap();
        let j = read_journal(&path, Profile::Corrected).unwrap();
        assert_eq!(
            j.entries.len(),
            2,
            "the entries before and after the torn line"
        );
        assert_eq!(j.malformed, [2], "only the torn line is skipped");
        // a sound file gets exactly the appended bytes (the reference's append)
        append_whole(&path, &format!("{whole}\n")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with(&format!("de\n{whole}\n{whole}\n")), "{text}");
    }

    #[test]
    fn a_full_device_refuses_the_append_for_want_of_room() {
        // /dev/full fails every write with ENOSPC, as a full disk does
        let e = append_whole(Path::new("/dev/full"), "{}\n").unwrap_err();
        assert!(no_room(&e), "{e}");
    }

    #[test]
    fn lines_match_the_reference() {
        // a `learn` line of the reference's journal (CLI run on its sample workspace,
        // Python 3.11.7, TZ=UTC): the event keys, then ts and iso
        let want = r#"{"type": "learn", "fired": ["deploy.md::0", "deploy.md::1"], "outcome": 1.0, "metadata": null, "ts": 1795348831.5523171, "iso": "2026-11-22T12:00:31+0000"}"#;
        let mut e = learn_event(&["deploy.md::0", "deploy.md::1"], 1.0);
        e.insert("ts".into(), PyValue::Float(1795348831.5523171));
        e.insert(
            "iso".into(),
            PyValue::Str("2026-11-22T12:00:31+0000".into()),
        );
        assert_eq!(entry_line(&e), want);
        // round trip through the parser keeps every byte
        let back = pyjson::loads(want).unwrap();
        assert_eq!(pyjson::to_string_with(&back, Style::COMPACT).unwrap(), want);
        let nan = entry_line(&learn_event(&["a"], f64::NAN));
        assert!(nan.contains("\"outcome\": NaN"), "{nan}");
        let q = entry_line(&query_event("é?", &[], 19, PyValue::Null));
        assert_eq!(
            q,
            r#"{"type": "query", "query": "\u00e9?", "fired": [], "fired_count": 0, "node_count": 19, "metadata": null}"#
        );
    }

    #[test]
    fn append_read_and_malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("deep").join("journal.jsonl");
        assert!(read_journal(&p, Profile::Paper).unwrap().entries.is_empty());
        append(&p, replay_event(3, 2, 1)).unwrap();
        append(&p, learn_event(&["a", "b"], -1.0)).unwrap();
        let j = read_journal(&p, Profile::Paper).unwrap();
        assert_eq!(j.entries.len(), 2);
        assert_eq!(
            j.entries[0].keys().collect::<Vec<_>>(),
            [
                "type",
                "queries_replayed",
                "edges_reinforced",
                "cross_file_created",
                "ts",
                "iso"
            ]
        );
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"type\": \"le").unwrap();
        let e = read_journal(&p, Profile::Paper).unwrap_err();
        assert!(
            e.to_string()
                .contains("journal.jsonl:3: Unterminated string"),
            "{e}"
        );
        let j = read_journal(&p, Profile::Corrected).unwrap();
        assert_eq!((j.entries.len(), j.malformed.clone()), (2, vec![3]));
    }

    #[test]
    fn journal_locations() {
        assert_eq!(
            journal_path(Some(Path::new("b/state.json")), None),
            Path::new("b/journal.jsonl")
        );
        assert_eq!(
            journal_path(Some(Path::new("state.json")), None),
            Path::new("journal.jsonl")
        );
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            journal_path(None, Some(dir.path())),
            dir.path().join("journal.jsonl")
        );
        assert_eq!(
            journal_path(None, Some(Path::new("x/g.json"))),
            Path::new("x/journal.jsonl")
        );
    }
}
