//! Field-by-field comparison of two JSON documents with a path report, used by
//! `sims check` and by the tests that compare paper-profile outputs with the reference
//! files.
//!
//! Everything is compared exactly — numbers by their Python `repr` (so `1` ≠ `1.0` and
//! `0.0` ≠ `-0.0`, as the printed files would differ), object keys including their
//! order — except the **timing fields** a simulation declares
//! ([`crate::sim::Simulation::timing_fields`]): an exact list of key paths such as
//! `average_nodes_fired_by_size[*].avg_traversal_ms` (`[*]` = any array index). A timing
//! field only has to exist on both sides with the same JSON type (numbers: int or
//! float); everything else, however it is named, is compared exactly.

use std::fmt;

use serde_json::Value;

use crate::pyjson;

/// `path` with every array index written as `[*]`: `a[3].b[0]` → `a[*].b[*]`, the form
/// timing-field lists are written in.
pub fn generic_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[*]");
            }
            ']' if in_index => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

/// One difference: where, and the two values (compact, truncated text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `a.b[3].c`, or `(root)`.
    pub path: String,
    /// The stored / expected side (`<missing>` if absent).
    pub stored: String,
    /// The fresh / actual side (`<missing>` if absent).
    pub fresh: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} → {}", self.path, self.stored, self.fresh)
    }
}

/// Options of [`compare_with`].
#[derive(Debug, Clone, Copy)]
pub struct CompareOptions<'a> {
    /// Key paths compared by presence and type only (`a.b[*].c`; see [`generic_path`]).
    pub timing_fields: &'a [&'a str],
    /// Stop after this many differences (the report says how many more were cut).
    pub max_differences: usize,
}

impl Default for CompareOptions<'_> {
    fn default() -> Self {
        CompareOptions {
            timing_fields: &[],
            max_differences: 200,
        }
    }
}

/// [`compare_with`] with the given timing fields and the default difference limit.
pub fn compare(stored: &Value, fresh: &Value, timing_fields: &[&str]) -> Vec<Difference> {
    compare_with(
        stored,
        fresh,
        CompareOptions {
            timing_fields,
            ..Default::default()
        },
    )
}

/// All differences between `stored` and `fresh`, in document order.
pub fn compare_with(stored: &Value, fresh: &Value, opts: CompareOptions) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut cut = 0usize;
    walk(stored, fresh, "", false, opts, &mut out, &mut cut);
    if cut > 0 {
        out.push(Difference {
            path: "…".into(),
            stored: format!("{cut} more differences not listed"),
            fresh: String::new(),
        });
    }
    out
}

/// Compact one-line rendering of a value (Python number repr, truncated).
pub fn render(v: &Value) -> String {
    let s = match v {
        Value::Number(n) => pyjson::number(n),
        other => serde_json::to_string(other).unwrap_or_else(|_| "<unprintable>".into()),
    };
    const MAX: usize = 120;
    if s.chars().count() > MAX {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}…")
    } else {
        s
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn join_key(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn show(path: &str) -> String {
    if path.is_empty() {
        "(root)".into()
    } else {
        path.to_string()
    }
}

#[allow(clippy::too_many_arguments)]
fn push(
    out: &mut Vec<Difference>,
    cut: &mut usize,
    opts: CompareOptions,
    path: &str,
    stored: String,
    fresh: String,
) {
    if out.len() >= opts.max_differences {
        *cut += 1;
    } else {
        out.push(Difference {
            path: show(path),
            stored,
            fresh,
        });
    }
}

fn walk(
    a: &Value,
    b: &Value,
    path: &str,
    timing: bool,
    opts: CompareOptions,
    out: &mut Vec<Difference>,
    cut: &mut usize,
) {
    if timing {
        // Timing field: same JSON type is enough (recursing into containers keeps the
        // structure checked).
        let (ta, tb) = (type_name(a), type_name(b));
        let numeric = |t: &str| t == "int" || t == "float";
        if ta != tb && !(numeric(ta) && numeric(tb)) {
            push(out, cut, opts, path, render(a), render(b));
            return;
        }
    }
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            for (k, va) in ma {
                let p = join_key(path, k);
                let t = timing || opts.timing_fields.contains(&generic_path(&p).as_str());
                match mb.get(k) {
                    Some(vb) => walk(va, vb, &p, t, opts, out, cut),
                    None => push(out, cut, opts, &p, render(va), "<missing>".into()),
                }
            }
            for (k, vb) in mb {
                if !ma.contains_key(k) {
                    push(
                        out,
                        cut,
                        opts,
                        &join_key(path, k),
                        "<missing>".into(),
                        render(vb),
                    );
                }
            }
            let ka: Vec<&String> = ma.keys().filter(|k| mb.contains_key(*k)).collect();
            let kb: Vec<&String> = mb.keys().filter(|k| ma.contains_key(*k)).collect();
            if ka != kb {
                push(
                    out,
                    cut,
                    opts,
                    &format!("{} (key order)", show(path)),
                    format!("{ka:?}"),
                    format!("{kb:?}"),
                );
            }
        }
        (Value::Array(xa), Value::Array(xb)) => {
            for (i, (va, vb)) in xa.iter().zip(xb).enumerate() {
                walk(va, vb, &format!("{path}[{i}]"), timing, opts, out, cut);
            }
            if xa.len() != xb.len() {
                push(
                    out,
                    cut,
                    opts,
                    &format!("{} (length)", show(path)),
                    xa.len().to_string(),
                    xb.len().to_string(),
                );
            }
        }
        (Value::Number(na), Value::Number(nb)) => {
            if !timing && pyjson::number(na) != pyjson::number(nb) {
                push(out, cut, opts, path, render(a), render(b));
            }
        }
        _ => {
            if !timing && a != b {
                push(out, cut, opts, path, render(a), render(b));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_documents() {
        let v = json!({"a": [1, 2.5, {"b": null}], "c": "x"});
        assert!(compare(&v, &v, &[]).is_empty());
    }

    #[test]
    fn reports_paths() {
        let a = json!({"a": [1, 2.5, {"b": null}], "c": "x", "gone": 1});
        let b = json!({"a": [1, 2.6, {"b": true}], "c": "x", "new": 2});
        let d: Vec<String> = compare(&a, &b, &[]).iter().map(|d| d.to_string()).collect();
        assert_eq!(
            d,
            [
                "a[1]: 2.5 → 2.6",
                "a[2].b: null → true",
                "gone: 1 → <missing>",
                "new: <missing> → 2",
            ]
        );
    }

    #[test]
    fn int_vs_float_and_length_and_order() {
        let a = json!({"x": 1, "l": [1, 2], "o": {"p": 1, "q": 2}});
        let b = json!({"x": 1.0, "l": [1], "o": {"q": 2, "p": 1}});
        let d: Vec<String> = compare(&a, &b, &[]).iter().map(|d| d.to_string()).collect();
        assert_eq!(
            d,
            [
                "x: 1 → 1.0",
                "l (length): 2 → 1",
                "o (key order): [\"p\", \"q\"] → [\"q\", \"p\"]",
            ]
        );
    }

    #[test]
    fn timing_fields_are_exact_paths() {
        const TIMING: &[&str] = &[
            "sizes[*].avg_traversal_ms",
            "summary.is_sublinear_time_growth",
            "time_ratio",
        ];
        let a = json!({"sizes": [{"avg_traversal_ms": 0.14, "n": 5}], "summary": {"is_sublinear_time_growth": false}, "time_ratio": 1});
        let b = json!({"sizes": [{"avg_traversal_ms": 0.02, "n": 5}], "summary": {"is_sublinear_time_growth": true}, "time_ratio": 1.7});
        assert!(compare(&a, &b, TIMING).is_empty());
        assert_eq!(compare(&a, &b, &[]).len(), 3);
        // A type change in a timing field is still reported.
        let c = json!({"sizes": [{"avg_traversal_ms": "fast", "n": 5}], "summary": {"is_sublinear_time_growth": true}, "time_ratio": 1.7});
        assert_eq!(compare(&a, &c, TIMING).len(), 1);
        // A key that merely looks like timing is compared exactly.
        let a = json!({"edge_weights_over_time": [{"w": 0.5}], "elapsed_ms": 1});
        let b = json!({"edge_weights_over_time": [{"w": 0.6}], "elapsed_ms": 2});
        let d: Vec<String> = compare(&a, &b, TIMING)
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(
            d,
            [
                "edge_weights_over_time[0].w: 0.5 → 0.6",
                "elapsed_ms: 1 → 2"
            ]
        );
    }

    #[test]
    fn generic_paths() {
        assert_eq!(generic_path("a[3].b[10].c"), "a[*].b[*].c");
        assert_eq!(generic_path("time_ratio"), "time_ratio");
    }
}
