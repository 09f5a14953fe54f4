//! A conversation file: JSON Lines, one turn a line, in order (issue 28, item 1).
//! Every line is checked before anything is built or written; the first bad one is
//! reported as one line naming the file, the line number, what was wrong and what
//! is expected ([`crate::error::Error::Line`]). Blank lines are skipped.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::turn::Turn;
use crate::error::{io_error, Error, Result};

/// An example line, for messages.
const EXAMPLE: &str = r#"{"id": "D1:3", "session": "1", "time": "1:56 pm on 8 May, 2023", "speaker": "Caroline", "text": "..."}"#;

/// Reads the turns of `text` (the contents of `source`, named in errors), in order.
///
/// Errors ([`Error::Line`] with the 1-based line number): a line that is not JSON, not
/// a JSON object, or not a turn ([`Turn::from_object`]); an id given on an earlier line
/// (naming that line). A file without any turn (empty, or blank lines only) gives no
/// turns: the start of a conversation brain that agents fill with `remember`.
pub fn parse_jsonl(text: &str, source: &Path) -> Result<Vec<Turn>> {
    let mut turns = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    let bad = |line: usize, message: String| Error::Line {
        path: source.to_path_buf(),
        line,
        message,
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.strip_prefix('\u{feff}').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(raw).map_err(|e| {
            bad(
                line,
                format!("not JSON ({e}): expected one JSON object per line, like {EXAMPLE}"),
            )
        })?;
        let Value::Object(obj) = value else {
            return Err(bad(
                line,
                format!("not a JSON object: expected one JSON object per line, like {EXAMPLE}"),
            ));
        };
        let turn = Turn::from_object(&obj).map_err(|m| bad(line, m))?;
        if let Some(id) = &turn.id {
            if let Some(earlier) = first_line.get(id) {
                return Err(bad(
                    line,
                    format!(
                        "duplicate id `{id}` (line {earlier} has it already): ids must be unique"
                    ),
                ));
            }
            first_line.insert(id.clone(), line);
        }
        turns.push(turn);
    }
    Ok(turns)
}

/// Reads the conversation file `path` ([`parse_jsonl`]). A file that is not UTF-8 is
/// an error naming the line of the first bad byte.
pub fn read_jsonl(path: &Path) -> Result<Vec<Turn>> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            return Err(Error::Line {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "not UTF-8 (byte {at} of the file): a conversation file is UTF-8 text"
                ),
            });
        }
    };
    parse_jsonl(&text, path)
}
