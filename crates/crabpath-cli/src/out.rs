//! Printing: Python-exact JSON (`json.dumps`, compact or `indent=2`), Python's `{:.1%}`,
//! and the query's text rendering.

use std::io::Write;

use crabpath::{Graph, NodeId};
use pyformat::pyjson::{self, PyDict, PyInt, PyValue, Style};
use serde::Serialize;

/// Prints one line on stdout (a closed pipe is not an error).
pub fn println(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// `json.dumps(value)`.
pub fn compact<T: Serialize + ?Sized>(value: &T) -> String {
    pyjson::to_string_with(value, Style::COMPACT).unwrap_or_default()
}

/// `json.dumps(value, indent=2)`.
pub fn pretty<T: Serialize + ?Sized>(value: &T) -> String {
    pyjson::to_string_with(value, Style::PRETTY).unwrap_or_default()
}

/// A Python `str` value.
pub fn s(v: &str) -> PyValue {
    PyValue::Str(v.to_string())
}

/// A Python `int` value.
pub fn int(n: impl Into<i64>) -> PyValue {
    PyValue::Int(PyInt::from(n.into()))
}

/// A Python `int` from a count.
pub fn count(n: usize) -> PyValue {
    int(n as i64)
}

/// A list of strings.
pub fn strs<'a>(items: impl IntoIterator<Item = &'a str>) -> PyValue {
    PyValue::List(items.into_iter().map(s).collect())
}

/// A dict from pairs, in order.
pub fn dict<const N: usize>(pairs: [(&str, PyValue); N]) -> PyDict {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Python `f"{x:.1%}"`.
pub fn pct1(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Python `str(bool)`.
pub fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The query's text output (reference `cli.py::_query_text_output`): one block per
/// distinct id of `ids` (the fired ids; with `--limit`, the ranked ones) in order, `id + "\n" + "~" × len(id) + "\n" + content`,
/// joined by a blank line; with a budget, cut to at most `max_chars` code points (an
/// elided block ends in `...`).
pub fn query_text(ids: &[NodeId], graph: &Graph, max_chars: Option<i64>) -> String {
    if ids.is_empty() {
        return "(No matches.)".into();
    }
    let mut seen = std::collections::HashSet::new();
    let mut rendered: Vec<String> = Vec::new();
    let mut used = 0i64;
    let cut = |text: &str, n: i64| -> String { text.chars().take(n.max(0) as usize).collect() };
    for &id in ids {
        if !seen.insert(id) {
            continue;
        }
        let Some(node) = graph.node(id) else {
            continue;
        };
        let name = graph.name(id);
        let block = format!(
            "{name}\n{}\n{}",
            "~".repeat(name.chars().count()),
            node.content
        );
        let Some(max) = max_chars else {
            rendered.push(block);
            continue;
        };
        if max <= 0 {
            break;
        }
        let len = block.chars().count() as i64;
        if rendered.is_empty() {
            if len > max {
                rendered.push(if max > 3 {
                    cut(&block, max - 3) + "..."
                } else {
                    cut(&block, max)
                });
                break;
            }
            rendered.push(block);
            used = len;
            continue;
        }
        if used + 2 >= max {
            break;
        }
        let available = max - used - 2;
        if len <= available {
            rendered.push(block);
            used += 2 + len;
        } else {
            rendered.push(if available > 3 {
                cut(&block, available - 3) + "..."
            } else {
                cut(&block, available)
            });
            break;
        }
    }
    rendered.join("\n\n")
}

/// The query's text output of its guardrails, before the content: one block per
/// guardrail, `GUARDRAIL (correction) ` + id, a line of `!`, the correction's text, and a
/// blank line; empty when the answer has none (issue 31 item 4).
pub fn guardrails_text(answer: &crabpath_brain::Answer<'_>) -> String {
    let mut out = String::new();
    for (id, text) in answer.guardrail_texts() {
        let head = format!("GUARDRAIL (correction) {id}");
        let rule = "!".repeat(head.chars().count());
        out.push_str(&format!("{head}\n{rule}\n{text}\n\n"));
    }
    out
}
