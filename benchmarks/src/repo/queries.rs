//! The query rows of a repository benchmark, read as the reference reads them
//! (reference `benchmarks/run_benchmark.py::main` and `_run_query_set`, commit 134c676).
//!
//! * The path is kept as given, normalised as Python's `pathlib` does ([`normalise`]:
//!   `./a//b/` → `a/b`); it is what the report's `query_source` shows.
//! * The file is read as UTF-8 text with universal newlines and parsed with Python's
//!   `json.loads` rules ([`pyformat::pyjson::loads`]); the top level must be an array.
//! * Each row must be an object. `query` = Python `str()` of its `query` value: missing →
//!   `""`, `null` → `"None"` (then searched as the word "none"), `true` → `"True"`,
//!   `1e16` → `"1e+16"`, a list or object → its Python `repr`.
//! * `relevant` = the row's `relevant` value if it is an array, else empty (a bare
//!   string gives no relevant file). The report repeats it as given, duplicates and
//!   non-string items included; scoring uses the *set* of its items: only strings can
//!   match a file, but every distinct item counts in `|R|` (Python set semantics:
//!   `1`, `1.0` and `true` are one item, each `NaN` is its own). An item Python cannot
//!   hash (an array or object) stops the reference with a `TypeError`; here it is a
//!   [`RepoError::BadRow`] reported before any work is done.

use std::path::Path;

use pyformat::pyjson::{self, PyValue};

use super::error::{RepoError, Result};

/// One query row.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRow {
    /// Python `str()` of the row's `query`.
    pub query: String,
    /// The row's `relevant` array as given (empty if it was not an array).
    pub relevant: Vec<PyValue>,
    /// The distinct string items of `relevant`, in first-occurrence order.
    pub relevant_files: Vec<String>,
    /// `len(set(relevant))`: the recall denominator.
    pub relevant_count: usize,
}

impl QueryRow {
    /// Whether `file` is one of the relevant files.
    pub fn is_relevant(&self, file: &str) -> bool {
        self.relevant_files.iter().any(|f| f == file)
    }
}

/// The query rows of a file and the path they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Queries {
    /// The path as given, `pathlib`-normalised.
    pub source: String,
    /// The rows in file order.
    pub rows: Vec<QueryRow>,
}

/// Python `str(pathlib.PurePosixPath(p))`: empty and `.` components dropped (`..`
/// kept), a trailing slash dropped, `//` kept only as a leading pair, `.` for nothing.
pub fn normalise(p: &str) -> String {
    let lead = if p.starts_with("//") && !p.starts_with("///") {
        "//"
    } else if p.starts_with('/') {
        "/"
    } else {
        ""
    };
    let parts: Vec<&str> = p
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    if parts.is_empty() {
        return if lead.is_empty() {
            ".".into()
        } else {
            lead.into()
        };
    }
    format!("{lead}{}", parts.join("/"))
}

/// A key under which Python's `set` would merge two items (see the module docs).
#[derive(Debug, Clone, PartialEq)]
enum SetKey {
    Str(String),
    None,
    /// An integral number: its exact decimal value.
    Integral(String),
    /// A non-integral finite float, or an infinity.
    Float(u64),
    /// A NaN: never equal to another item.
    Nan,
}

fn integral_decimal(digits: &str) -> String {
    let (neg, body) = match digits.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, digits),
    };
    let body = body.trim_start_matches('0');
    match (body.is_empty(), neg) {
        (true, _) => "0".into(),
        (false, true) => format!("-{body}"),
        (false, false) => body.into(),
    }
}

fn set_key(v: &PyValue) -> Option<SetKey> {
    Some(match v {
        PyValue::Str(s) => SetKey::Str(s.clone()),
        PyValue::Null => SetKey::None,
        PyValue::Bool(b) => SetKey::Integral(if *b { "1" } else { "0" }.into()),
        PyValue::Int(i) => SetKey::Integral(integral_decimal(i.as_str())),
        PyValue::Float(f) if f.is_nan() => SetKey::Nan,
        PyValue::Float(f) if f.is_finite() && f.fract() == 0.0 => {
            SetKey::Integral(integral_decimal(&format!("{f:.0}")))
        }
        PyValue::Float(f) => SetKey::Float(f.to_bits()),
        PyValue::List(_) | PyValue::Dict(_) => return None,
    })
}

fn describe(v: &PyValue) -> &'static str {
    match v {
        PyValue::Null => "null",
        PyValue::Bool(_) => "a boolean",
        PyValue::Int(_) | PyValue::Float(_) => "a number",
        PyValue::Str(_) => "a string",
        PyValue::List(_) => "an array",
        PyValue::Dict(_) => "an object",
    }
}

/// Parses the rows of a queries file's text (see the module docs); `source` names the
/// file in errors.
pub fn parse(source: &str, text: &str) -> Result<Vec<QueryRow>> {
    let text = pyformat::pystr::universal_newlines(text);
    let doc = pyjson::loads(&text).map_err(|e| RepoError::QueriesUnreadable {
        path: source.to_string(),
        message: e.to_string(),
    })?;
    let PyValue::List(items) = doc else {
        return Err(RepoError::QueriesNotAList {
            path: source.to_string(),
            found: describe(&doc).to_string(),
        });
    };
    let mut rows = Vec::with_capacity(items.len());
    for (row, item) in items.into_iter().enumerate() {
        let PyValue::Dict(mut obj) = item else {
            return Err(RepoError::BadRow {
                path: source.to_string(),
                row,
                message: format!(
                    "expected an object with \"query\" and \"relevant\", found {}",
                    describe(&item)
                ),
            });
        };
        let query = obj
            .get("query")
            .map_or_else(String::new, pyformat::pyrepr::py_str);
        let relevant = match obj.swap_remove("relevant") {
            Some(PyValue::List(l)) => l,
            _ => Vec::new(),
        };
        let mut keys: Vec<SetKey> = Vec::new();
        let mut relevant_count = 0;
        let mut relevant_files: Vec<String> = Vec::new();
        for (i, v) in relevant.iter().enumerate() {
            let key = set_key(v).ok_or_else(|| RepoError::BadRow {
                path: source.to_string(),
                row,
                message: format!(
                    "relevant[{i}]: expected a file name (string), found {} (the reference \
                     stops here with \"TypeError: unhashable type\")",
                    describe(v)
                ),
            })?;
            if key == SetKey::Nan || !keys.contains(&key) {
                relevant_count += 1;
                if let SetKey::Str(s) = &key {
                    relevant_files.push(s.clone());
                }
                keys.push(key);
            }
        }
        rows.push(QueryRow {
            query,
            relevant,
            relevant_files,
            relevant_count,
        });
    }
    Ok(rows)
}

/// Reads the queries file at `path` (given as the user wrote it).
pub fn load(path: &str) -> Result<Queries> {
    let source = normalise(path);
    let p = Path::new(path);
    if !p.exists() {
        return Err(RepoError::QueriesMissing(source));
    }
    let bytes = std::fs::read(p).map_err(|e| RepoError::Io {
        path: p.to_path_buf(),
        source: e,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| RepoError::QueriesUnreadable {
        path: source.clone(),
        message: format!(
            "'utf-8' codec can't decode byte 0x{:02x} in position {}",
            e.as_bytes()[e.utf8_error().valid_up_to()],
            e.utf8_error().valid_up_to()
        ),
    })?;
    let rows = parse(&source, &text)?;
    Ok(Queries { source, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pathlib_normalisation() {
        // CPython 3.11: str(PurePosixPath(p))
        for (p, want) in [
            ("./a//b/", "a/b"),
            ("q.json", "q.json"),
            ("", "."),
            ("./", "."),
            ("/x/./y", "/x/y"),
            ("//x", "//x"),
            ("///x", "/x"),
            ("../q.json", "../q.json"),
        ] {
            assert_eq!(normalise(p), want, "{p:?}");
        }
    }

    #[test]
    fn rows_follow_python_semantics() {
        let text = r#"[
            {"query": null, "relevant": ["a.md", "a.md"]},
            {"relevant": "a.md"},
            {"query": 1e16, "relevant": ["a.md", 1, 1.0, true, 2.5, NaN, NaN, null]},
            {"query": ["x", 1], "relevant": [12345678901234567890, 1.2345678901234567e19]}
        ]"#;
        let rows = parse("q.json", text).unwrap();
        assert_eq!(rows[0].query, "None");
        assert_eq!(rows[0].relevant_count, 1);
        assert_eq!(rows[0].relevant.len(), 2, "kept as given");
        assert_eq!(rows[1].query, "");
        assert!(rows[1].relevant.is_empty());
        assert_eq!(rows[2].query, "1e+16");
        // {"a.md", 1 (= 1.0 = True), 2.5, nan, nan, None} -> 6 items
        assert_eq!(rows[2].relevant_count, 6);
        assert_eq!(rows[2].relevant_files, vec!["a.md".to_string()]);
        assert_eq!(rows[3].query, "['x', 1]");
        // the float is 12345678901234567168: a different number
        assert_eq!(rows[3].relevant_count, 2);
    }

    #[test]
    fn bad_inputs_are_named() {
        let e = parse("q.json", "{}").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("queries.json must contain a list"));
        let e = parse("q.json", "[{\"query\": \"a\"}, 3]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "q.json: row 1: expected an object with \"query\" and \"relevant\", found a number"
        );
        let e = parse("q.json", "[{\"relevant\": [[1]]}]").unwrap_err();
        assert!(e.to_string().contains("row 0: relevant[0]"), "{e}");
        let e = parse("q.json", "[").unwrap_err();
        assert!(e.to_string().starts_with("q.json: Expecting value"), "{e}");
    }
}
