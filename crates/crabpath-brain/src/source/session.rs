//! Session logs: the conversations a brain is warmed up with (`crabpath replay`,
//! `crabpath init --sessions`). Reference `crabpath/replay.py::extract_interactions`,
//! `extract_queries`, `_extract_user_query_content`, `_extract_tool_calls`,
//! `_extract_query_timestamp`, and `cli.py::_load_session_interactions` /
//! `_load_session_queries`, commit 134c676.
//!
//! # Accepted formats (any mix, line by line)
//! A file is read as UTF-8 with universal newlines; each line is stripped (Python
//! `strip`); blank lines are skipped.
//! * **Plain text**: a line that is not valid JSON is a query.
//! * **Flat JSONL**: `{"role": "user" | "assistant", "content": ..., "ts": ...}`.
//! * **OpenClaw JSONL**: `{"type": "message", "timestamp": ..., "message": {"role": ...,
//!   "content": ...}}`; other records (`{"type": "session"}`) are ignored.
//!
//! Message text: a string content is stripped (empty → none); a list content joins with
//! one space its stripped non-empty strings and, for objects, their `text` or else their
//! `content` (recursively). Timestamp: the first of `ts`, `timestamp`, `created_at`,
//! `time` on the record, else on the inner message, that is a number (booleans count,
//! as in Python), a string `float()` accepts, or an ISO-8601 string (`Z` accepted; no
//! offset = local time).
//!
//! Pairing ([`extract_interactions`]): a user message with text starts an interaction
//! and leaves it open; an assistant message fills the open interaction's response, tool
//! calls and (when it has one) timestamp, or becomes a record of its own with no query;
//! a message with another role (OpenClaw format only), or a user message without text,
//! closes the open interaction. With `since`, records whose timestamp is ≤ `since` are
//! dropped. [`extract_queries`] (used by `init --sessions`) keeps only the query texts.
//!
//! # Profiles
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | S1 | a line that is a JSON scalar (`123`, `true`, `"text"`) is dropped | it is a plain-text query (its raw text) | `123` → no query vs. query `"123"` |
//! | S2 | a flat record with another role (`{"role": "system"}`) is ignored and does not close the open interaction, so a later assistant line answers an earlier user line | it closes the open interaction, as an OpenClaw `system` message does | flat `user`, `system`, `assistant` → 1 interaction with a response vs. 2 records |
//! | S3 | a `role` that is a JSON array or object aborts the whole replay (`TypeError: unhashable type`) | the record is ignored | error vs. ignored |
//! | S4 | a line that opens a JSON object but is broken (`{"role": "user", "content": `) is a plain-text query | an error naming the file, the line and the parser's reason; nothing is replayed | `Replayed 1/1` vs. exit 1 |
//!
//! Errors ([`crate::Error`]) name the file and, for content errors, the line.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::source::workspace::expanduser;
use crabpath::profile::Profile;
use pyformat::pyjson::{self, LoadsErrorKind, PyDict, PyValue};
use pyformat::pystr;
use pyformat::pytime;

/// One user query with its reply (reference interaction dict `{"query", "response",
/// "tool_calls", "ts"}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    /// The user's text (`None` for an assistant message without a preceding query).
    pub query: Option<String>,
    /// The assistant's text, if any.
    pub response: Option<String>,
    /// Tool calls of the reply, each `{id?, name?, arguments?}` (extracted, not used
    /// for learning).
    pub tool_calls: Vec<PyDict>,
    /// Unix time of the query, or of its reply when the reply has one.
    pub ts: Option<f64>,
}

impl Interaction {
    /// A plain query (no reply, no time).
    pub fn query(text: impl Into<String>) -> Self {
        Interaction {
            query: Some(text.into()),
            response: None,
            tool_calls: Vec::new(),
            ts: None,
        }
    }
}

/// The session files a `--sessions` argument names (reference `replay` and `init`):
/// a directory → every entry directly inside whose name matches `*.jsonl` (hidden
/// ones included), sorted by name; a file → that file; anything else →
/// [`Error::SessionsPath`]. `~` is expanded.
pub fn session_files(arg: impl AsRef<Path>) -> Result<Vec<PathBuf>> {
    let path = expanduser(arg);
    if path.is_dir() {
        let listing = std::fs::read_dir(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let mut names: Vec<String> = listing
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| crate::source::gitignore::fnmatch(n, "*.jsonl"))
            .collect();
        names.sort();
        Ok(names.into_iter().map(|n| path.join(n)).collect())
    } else if path.is_file() {
        Ok(vec![path])
    } else {
        Err(Error::SessionsPath(path))
    }
}

/// The lines of a session file as the reference iterates them: strict UTF-8
/// (error names the line), universal newlines, split at `\n`.
fn read_lines(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(pystr::universal_newlines(&s).into_owned()),
        Err(e) => {
            let ok = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let text = String::from_utf8_lossy(ok);
            let line = pystr::universal_newlines(&text).matches('\n').count() + 1;
            let off = e.utf8_error().valid_up_to();
            Err(Error::Line {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "'utf-8' codec can't decode byte 0x{:02x} in position {off}",
                    e.as_bytes()[off]
                ),
            })
        }
    }
}

/// The content text of a message (reference `_extract_user_query_content`).
pub fn message_text(content: Option<&PyValue>) -> Option<String> {
    match content? {
        PyValue::Str(s) => {
            let v = pystr::strip(s);
            (!v.is_empty()).then(|| v.to_string())
        }
        PyValue::List(items) => {
            let mut parts = Vec::new();
            for item in items {
                match item {
                    PyValue::Str(s) => {
                        let t = pystr::strip(s);
                        if !t.is_empty() {
                            parts.push(t.to_string());
                        }
                    }
                    PyValue::Dict(d) => {
                        if let Some(t) = message_text(d.get("text")) {
                            parts.push(t);
                        } else if let Some(t) = message_text(d.get("content")) {
                            parts.push(t);
                        }
                    }
                    _ => {}
                }
            }
            (!parts.is_empty()).then(|| parts.join(" "))
        }
        _ => None,
    }
}

fn is_none(v: Option<&PyValue>) -> bool {
    matches!(v, None | Some(PyValue::Null))
}

/// One tool call (reference `_extract_tool_call`).
fn tool_call(item: &PyDict) -> Option<PyDict> {
    let mut name = item.get("name").cloned();
    let mut arguments = item.get("arguments").cloned();
    if is_none(name.as_ref()) {
        if let Some(PyValue::Dict(f)) = item.get("function") {
            if let Some(PyValue::Str(n)) = f.get("name") {
                name = Some(PyValue::Str(n.clone()));
            }
            if is_none(arguments.as_ref()) {
                arguments = f.get("arguments").cloned();
            }
        }
    }
    let mut call = PyDict::new();
    if let Some(PyValue::Str(id)) = item.get("id") {
        call.insert("id".into(), PyValue::Str(id.clone()));
    }
    if let Some(PyValue::Str(n)) = &name {
        if !pystr::strip(n).is_empty() {
            call.insert("name".into(), PyValue::Str(n.clone()));
        }
    }
    if !is_none(arguments.as_ref()) {
        if let Some(a) = arguments {
            call.insert("arguments".into(), a);
        }
    }
    (!call.is_empty()).then_some(call)
}

/// Tool calls of an assistant message (reference `_extract_tool_calls`): from its
/// `tool_calls` list, then from content items with `"type": "tool_call"`.
pub fn tool_calls(message: &PyDict) -> Vec<PyDict> {
    let mut calls = Vec::new();
    if let Some(PyValue::List(raw)) = message.get("tool_calls") {
        for item in raw {
            if let PyValue::Dict(d) = item {
                calls.extend(tool_call(d));
            }
        }
    }
    if let Some(PyValue::List(content)) = message.get("content") {
        for item in content {
            if let PyValue::Dict(d) = item {
                if d.get("type").and_then(PyValue::as_str) == Some("tool_call") {
                    calls.extend(tool_call(d));
                }
            }
        }
    }
    calls
}

/// A record's message (reference `_extract_message_payload`): the inner `message`
/// object of a `"type": "message"` record, or the record itself when its `role` is
/// `user` or `assistant`. `Err` when the role is unhashable (the reference raises
/// `TypeError`).
fn message_of(payload: &PyDict) -> Result<Option<&PyDict>, String> {
    if payload.get("type").and_then(PyValue::as_str) == Some("message") {
        return Ok(payload.get("message").and_then(PyValue::as_dict));
    }
    match payload.get("role") {
        Some(r) if !r.is_hashable() => Err(format!(
            "unhashable type: '{}' (role)",
            if r.as_list().is_some() {
                "list"
            } else {
                "dict"
            }
        )),
        Some(PyValue::Str(r)) if r == "user" || r == "assistant" => Ok(Some(payload)),
        _ => Ok(None),
    }
}

/// The first timestamp among `ts`, `timestamp`, `created_at`, `time` of one object.
fn timestamp_in(d: &PyDict) -> Result<Option<f64>, String> {
    for key in ["ts", "timestamp", "created_at", "time"] {
        match d.get(key) {
            None | Some(PyValue::Null) => continue,
            Some(v @ (PyValue::Bool(_) | PyValue::Int(_) | PyValue::Float(_))) => {
                return v
                    .as_number()
                    .map(Some)
                    .ok_or_else(|| format!("{key}: int too large to convert to float"))
            }
            Some(PyValue::Str(s)) => {
                if let Some(f) = pystr::parse_float(s) {
                    return Ok(Some(f));
                }
                let iso = match s.strip_suffix('Z') {
                    Some(head) => format!("{head}+00:00"),
                    None => s.clone(),
                };
                if let Some(t) = pytime::fromisoformat_timestamp(&iso) {
                    return Ok(Some(t));
                }
            }
            Some(_) => {}
        }
    }
    Ok(None)
}

/// A record's timestamp (reference `_extract_query_timestamp`): the record's keys,
/// then its message's.
fn record_timestamp(payload: &PyDict) -> Result<Option<f64>, String> {
    if let Some(t) = timestamp_in(payload)? {
        return Ok(Some(t));
    }
    match message_of(payload)? {
        Some(m) => timestamp_in(m),
        None => Ok(None),
    }
}

/// A stripped line parsed with Python's `json.loads` (lone surrogates replaced).
/// `Ok(None)` when it is not JSON; `Err` for the parser's non-decode failures, and (with
/// `fixes`) for a line that opens a JSON object (`{`) but is not one: a broken record
/// (S4), not a query.
fn parse_line(raw: &str, fixes: bool) -> Result<Option<PyValue>, String> {
    match pyjson::loads_lossy(raw) {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.kind == LoadsErrorKind::Decode && fixes && raw.starts_with('{') => Err(
            format!("a broken JSON record ({e}): each record must be one JSON object on one line"),
        ),
        Err(e) if e.kind == LoadsErrorKind::Decode => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// What a stripped session line is.
enum LineKind {
    /// A plain-text query (not JSON; in the corrected profile also a JSON scalar).
    Plain,
    /// A JSON object.
    Record(PyDict),
    /// Ignored (a JSON scalar, paper profile).
    Ignore,
}

fn classify(raw: &str, fixes: bool) -> Result<LineKind, String> {
    Ok(match parse_line(raw, fixes)? {
        None => LineKind::Plain,
        Some(PyValue::Dict(d)) => LineKind::Record(d),
        Some(_) if fixes => LineKind::Plain,
        Some(_) => LineKind::Ignore,
    })
}

/// [`message_of`], with an unhashable role ignored in the corrected profile.
fn message_for(payload: &PyDict, fixes: bool) -> Result<Option<&PyDict>, String> {
    match message_of(payload) {
        Err(_) if fixes => Ok(None),
        other => other,
    }
}

/// Interactions of one session text (see the module docs); `path` names it in errors.
pub fn parse_interactions(
    text: &str,
    path: &Path,
    since: Option<f64>,
    profile: Profile,
) -> Result<Vec<Interaction>> {
    let fixes = profile.fixes_bugs();
    let mut out: Vec<Interaction> = Vec::new();
    let mut open: Option<usize> = None;
    let old = |t: Option<f64>| matches!((since, t), (Some(s), Some(t)) if t <= s);
    for (n, line) in text.split('\n').enumerate() {
        let err = |message: String| Error::Line {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        let raw = pystr::strip(line);
        if raw.is_empty() {
            continue;
        }
        let payload = match classify(raw, fixes).map_err(err)? {
            LineKind::Plain => {
                out.push(Interaction::query(raw));
                continue;
            }
            LineKind::Record(d) => d,
            LineKind::Ignore => continue,
        };
        let message = message_for(&payload, fixes).map_err(err)?;
        let Some(message) = message else {
            if fixes && matches!(payload.get("role"), Some(PyValue::Str(_))) {
                open = None;
            }
            continue;
        };
        let Some(role) = message.get("role").and_then(PyValue::as_str) else {
            continue;
        };
        let ts = record_timestamp(&payload).map_err(err)?;
        if role == "user" {
            let Some(query) = message_text(message.get("content")) else {
                open = None;
                continue;
            };
            if old(ts) {
                open = None;
                continue;
            }
            out.push(Interaction {
                query: Some(query),
                response: None,
                tool_calls: Vec::new(),
                ts,
            });
            open = Some(out.len() - 1);
            continue;
        }
        if role != "assistant" {
            open = None;
            continue;
        }
        let response = message_text(message.get("content"));
        let calls = tool_calls(message);
        if let Some(i) = open.take() {
            let rec = &mut out[i];
            if rec.query.is_some() && !old(ts) {
                rec.response = response;
                rec.tool_calls = calls;
                if ts.is_some() {
                    rec.ts = ts;
                }
            } else {
                rec.response = None;
                rec.tool_calls = Vec::new();
            }
            continue;
        }
        if old(ts) {
            continue;
        }
        out.push(Interaction {
            query: None,
            response,
            tool_calls: calls,
            ts,
        });
    }
    Ok(out)
}

/// Interactions of one session file (reference `extract_interactions`).
///
/// Cost: reads the file once; linear in its size.
pub fn extract_interactions(
    path: &Path,
    since: Option<f64>,
    profile: Profile,
) -> Result<Vec<Interaction>> {
    let text = read_lines(path)?;
    parse_interactions(&text, path, since, profile)
}

/// Queries of one session text as `init --sessions` reads them (reference
/// `extract_queries`): plain lines, and the text of user messages (OpenClaw format
/// first, then flat); no responses, no timestamps.
pub fn parse_queries(text: &str, path: &Path, profile: Profile) -> Result<Vec<String>> {
    let fixes = profile.fixes_bugs();
    let mut out = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    // a trailing newline ends the last line; it does not start an empty one
    let n_lines = if text.ends_with('\n') {
        lines.len() - 1
    } else {
        lines.len()
    };
    for (n, line) in lines.into_iter().take(n_lines).enumerate() {
        let err = |message: String| Error::Line {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        let raw = pystr::strip(line);
        let payload = match classify(raw, fixes).map_err(err)? {
            LineKind::Plain => {
                if !raw.is_empty() {
                    out.push(raw.to_string());
                }
                continue;
            }
            LineKind::Record(d) => d,
            LineKind::Ignore => continue,
        };
        let message = message_for(&payload, fixes).map_err(err)?;
        let mut query = match message {
            Some(m) if m.get("role").and_then(PyValue::as_str) == Some("user") => {
                message_text(m.get("content"))
            }
            _ => None,
        };
        if query.is_none() && payload.get("role").and_then(PyValue::as_str) == Some("user") {
            query = message_text(payload.get("content"));
        }
        // the reference evaluates the record's timestamp too (and fails where it fails)
        if !fixes {
            record_timestamp(&payload).map_err(err)?;
        }
        out.extend(query);
    }
    Ok(out)
}

/// Queries of one session file (reference `extract_queries`).
pub fn extract_queries(path: &Path, profile: Profile) -> Result<Vec<String>> {
    let text = read_lines(path)?;
    parse_queries(&text, path, profile)
}

/// Applies `extract` to every file of every `--sessions` argument, in order.
fn collect<T, P: AsRef<Path>>(
    args: &[P],
    profile: Profile,
    extract: impl Fn(&Path) -> Result<Vec<T>>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for arg in args {
        for f in session_files(arg)? {
            if profile.fixes_bugs() && !f.is_file() {
                continue;
            }
            out.extend(extract(&f)?);
        }
    }
    Ok(out)
}

/// Interactions of every `--sessions` argument in order (reference
/// `cli.py::_load_session_interactions`, used by `replay`). In the corrected profile,
/// directory entries matching `*.jsonl` that are not files are skipped (the reference
/// fails on them).
pub fn collect_interactions<P: AsRef<Path>>(
    args: &[P],
    since: Option<f64>,
    profile: Profile,
) -> Result<Vec<Interaction>> {
    collect(args, profile, |f| extract_interactions(f, since, profile))
}

/// Queries of every `--sessions` argument in order (reference
/// `cli.py::_load_session_queries`, used by `init --sessions`).
pub fn collect_queries<P: AsRef<Path>>(args: &[P], profile: Profile) -> Result<Vec<String>> {
    collect(args, profile, |f| extract_queries(f, profile))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("s.jsonl")
    }

    #[test]
    fn flat_and_openclaw_examples() {
        // the worked examples of the reference's session formats (replay.py docstrings)
        let flat = "{\"role\": \"user\", \"content\": \"how do I deploy\", \"ts\": 100}\n\
{\"role\": \"assistant\", \"content\": \"Run the checklist\"}\n\
{\"role\": \"user\", \"content\": [\"rollback\", {\"text\": \"procedure\"}, {\"content\": \"steps\"}], \"timestamp\": \"1970-01-01T00:03:20Z\"}\n";
        let v = parse_interactions(flat, p(), None, Profile::Paper).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].query.as_deref(), Some("how do I deploy"));
        assert_eq!(v[0].response.as_deref(), Some("Run the checklist"));
        assert_eq!(v[0].ts, Some(100.0));
        assert_eq!(v[1].query.as_deref(), Some("rollback procedure steps"));
        assert_eq!(v[1].ts, Some(200.0));
        let oc = "{\"type\": \"session\", \"id\": \"abc\"}\n\
{\"type\": \"message\", \"timestamp\": \"2026-02-01T10:00:00Z\", \"message\": {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"how do I deploy\"}]}}\n\
{\"type\": \"message\", \"timestamp\": \"2026-02-01T10:00:05Z\", \"message\": {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"Steps:\"}, {\"type\": \"tool_call\", \"name\": \"read\", \"arguments\": {\"path\": \"deploy.md\"}}]}}\n";
        let v = parse_interactions(oc, p(), None, Profile::Paper).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].ts, Some(1769940005.0));
        assert_eq!(v[0].response.as_deref(), Some("Steps:"));
        assert_eq!(v[0].tool_calls.len(), 1);
        assert_eq!(
            v[0].tool_calls[0].get("name"),
            Some(&PyValue::Str("read".into()))
        );
        // since drops the old user message, and the reply then stands alone
        let v = parse_interactions(oc, p(), Some(1769940000.0), Profile::Paper).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].query, None);
        assert_eq!(v[0].response.as_deref(), Some("Steps:"));
    }

    #[test]
    fn profile_fixes() {
        let text = "123\n{\"role\": \"user\", \"content\": \"q\"}\n{\"role\": \"system\", \"content\": \"s\"}\n{\"role\": \"assistant\", \"content\": \"a\"}\n";
        let paper = parse_interactions(text, p(), None, Profile::Paper).unwrap();
        assert_eq!(paper.len(), 1);
        assert_eq!(paper[0].response.as_deref(), Some("a"));
        let fixed = parse_interactions(text, p(), None, Profile::Corrected).unwrap();
        assert_eq!(fixed.len(), 3);
        assert_eq!(fixed[0].query.as_deref(), Some("123"));
        assert_eq!(fixed[1].response, None);
        assert_eq!(fixed[2].query, None);
        let bad = "ok\n{\"role\": [\"user\"]}\n";
        let e = parse_interactions(bad, p(), None, Profile::Paper).unwrap_err();
        assert_eq!(e.to_string(), "s.jsonl:2: unhashable type: 'list' (role)");
        assert_eq!(
            parse_interactions(bad, p(), None, Profile::Corrected)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn init_queries() {
        let text = "plain line\n\n{\"type\": \"message\", \"message\": {\"role\": \"user\", \"content\": \" q1 \"}}\n{\"role\": \"user\", \"content\": [\"q2\"]}\n{\"role\": \"assistant\", \"content\": \"r\"}\n7\n";
        assert_eq!(
            parse_queries(text, p(), Profile::Paper).unwrap(),
            ["plain line", "q1", "q2"]
        );
        assert_eq!(
            parse_queries(text, p(), Profile::Corrected).unwrap(),
            ["plain line", "q1", "q2", "7"]
        );
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bad.jsonl");
        std::fs::write(&f, b"ok\r\nfine\ncaf\xe9\n").unwrap();
        let e = extract_interactions(&f, None, Profile::Paper).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("bad.jsonl:3: 'utf-8' codec can't decode byte 0xe9 in position 12"),
            "{e}"
        );
        assert!(matches!(
            session_files(dir.path().join("nope")),
            Err(Error::SessionsPath(_))
        ));
        assert_eq!(session_files(dir.path()).unwrap(), [f]);
    }
}
