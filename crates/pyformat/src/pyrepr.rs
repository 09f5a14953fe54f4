//! Python's `repr()` of the values `json.loads` returns (CPython 3.11), for outputs the
//! reference prints with `str(dict)` — the text form of `crabpath journal` (reference
//! `crabpath/cli.py::cmd_journal`, commit 134c676).
//!
//! * `None`, `True`, `False`; integers verbatim; floats as `repr(float)` (`1.0`,
//!   `1e-05`, `nan`, `inf`, `-inf` — not the JSON spellings);
//! * strings in single quotes, or double quotes if the string contains `'` and no `"`;
//!   `\\`, `\n`, `\r`, `\t` and the chosen quote escaped; other non-printable
//!   characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`; printable non-ASCII kept;
//! * lists `[a, b]`, dicts `{'k': v, 'k2': v2}` in key order.
//!
//! "Printable" follows `str.isprintable`: everything except the Unicode categories
//! Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs (the ASCII space excepted). Without a Unicode
//! category table, this module knows the control, format, separator and private-use
//! characters by range, and of Cn only the noncharacters; other unassigned code points
//! count as printable. This is the one implementation of Python's `repr` in the
//! workspace.

use crate::pyjson::{PyDict, PyValue};

/// `repr(value)`.
pub fn repr(value: &PyValue) -> String {
    let mut out = String::new();
    push_repr(&mut out, value);
    out
}

/// `repr(dict)`.
pub fn repr_dict(dict: &PyDict) -> String {
    let mut out = String::new();
    push_dict(&mut out, dict);
    out
}

/// `str(value)`: a string as is, everything else as [`repr`] (Python's f-string
/// rendering of a value, e.g. `name={v}`).
pub fn py_str(value: &PyValue) -> String {
    match value {
        PyValue::Str(s) => s.clone(),
        other => repr(other),
    }
}

/// Appends `repr(value)` to `out`.
pub fn push_repr(out: &mut String, value: &PyValue) {
    match value {
        PyValue::Null => out.push_str("None"),
        PyValue::Bool(true) => out.push_str("True"),
        PyValue::Bool(false) => out.push_str("False"),
        PyValue::Int(i) => out.push_str(i.as_str()),
        PyValue::Float(f) => out.push_str(&float_repr(*f)),
        PyValue::Str(s) => push_str_repr(out, s),
        PyValue::List(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_repr(out, v);
            }
            out.push(']');
        }
        PyValue::Dict(d) => push_dict(out, d),
    }
}

fn push_dict(out: &mut String, d: &PyDict) {
    out.push('{');
    for (i, (k, v)) in d.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_str_repr(out, k);
        out.push_str(": ");
        push_repr(out, v);
    }
    out.push('}');
}

/// `repr(float)`: the JSON spelling except for the non-finite values.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        crate::pyjson::py_float_repr(f)
    }
}

/// Appends `repr(str)` to `out`.
pub fn push_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c => {
                let v = c as u32;
                if v < 0x100 {
                    out.push_str(&format!("\\x{v:02x}"));
                } else if v < 0x10000 {
                    out.push_str(&format!("\\u{v:04x}"));
                } else {
                    out.push_str(&format!("\\U{v:08x}"));
                }
            }
        }
    }
    out.push(quote);
}

/// `str.isprintable` for one character (see the module docs for the approximation).
pub fn is_printable(c: char) -> bool {
    let v = c as u32;
    if c == ' ' {
        return true;
    }
    if c.is_control() {
        return false; // Cc
    }
    let ranges: &[(u32, u32)] = &[
        // Zs (other than the ASCII space), Zl, Zp
        (0x00A0, 0x00A0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        // Cf
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
        // Co
        (0xE000, 0xF8FF),
        (0xF0000, 0xFFFFD),
        (0x100000, 0x10FFFD),
        // Cn: the noncharacters U+FDD0..U+FDEF (U+nFFFE and U+nFFFF of every plane below)
        (0xFDD0, 0xFDEF),
    ];
    v & 0xFFFE != 0xFFFE && !ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyjson::loads;

    #[test]
    fn journal_entry_like_the_reference() {
        // a learn line of the reference's journal and its text form (`crabpath journal`
        // on the reference's sample workspace, Python 3.11.7)
        let line = r#"{"type": "learn", "fired": ["deploy.md::0", "deploy.md::1"], "outcome": 1.0, "metadata": null, "ts": 1795348831.5523171, "iso": "2026-11-22T12:00:31+0000"}"#;
        assert_eq!(
            repr(&loads(line).unwrap()),
            "{'type': 'learn', 'fired': ['deploy.md::0', 'deploy.md::1'], 'outcome': 1.0, \
             'metadata': None, 'ts': 1795348831.5523171, 'iso': '2026-11-22T12:00:31+0000'}"
        );
    }

    #[test]
    fn strings_floats_and_escapes() {
        let v = loads(r#"["it's", "say \"x\"", "both ' \"", "a\\b\n\t\u0001\u00e9\u00a0\u2028😀", true, 1e-05, NaN, -Infinity, [], {}]"#).unwrap();
        assert_eq!(
            repr(&v),
            r#"["it's", 'say "x"', 'both \' "', 'a\\b\n\t\x01é\xa0\u2028😀', True, 1e-05, nan, -inf, [], {}]"#
        );
    }

    #[test]
    fn noncharacters_of_every_plane_are_escaped() {
        // CPython 3.11.7: repr('\ufdd0\ufffe\U0001fffe\U0010ffff\U0001f600')
        let v = PyValue::Str("\u{fdd0}\u{fffe}\u{1fffe}\u{10ffff}\u{1f600}".into());
        assert_eq!(repr(&v), r"'\ufdd0\ufffe\U0001fffe\U0010ffff😀'");
    }

    #[test]
    fn py_str_matches_python() {
        // (JSON text, CPython 3.11.7 `str(json.loads(text))`)
        let cases: [(&str, &str); 15] = [
            (r#"null"#, r#"None"#),
            (r#"true"#, r#"True"#),
            (r#"42"#, r#"42"#),
            (r#"1e16"#, r#"1e+16"#),
            (r#"1.5"#, r#"1.5"#),
            (r#"-0.0"#, r#"-0.0"#),
            (r#"Infinity"#, r#"inf"#),
            (r#"NaN"#, r#"nan"#),
            (r#""it\u0027s""#, r#"it's"#),
            (
                r#"["it\u0027s", "a\u0027b\"c", "back\\slash"]"#,
                r#"["it's", 'a\'b"c', 'back\\slash']"#,
            ),
            (
                r#"["x", 1, null, {"k": [true, false]}, 2.5e-7]"#,
                r#"['x', 1, None, {'k': [True, False]}, 2.5e-07]"#,
            ),
            (
                r#"["tab\tnl\ncr\r\u0001\u007f\u00a0\u00ad\u00e9\u2028\ud83d\ude00\ue000 \u200b"]"#,
                r#"['tab\tnl\ncr\r\x01\x7f\xa0\xadé\u2028😀\ue000 \u200b']"#,
            ),
            (r#"12345678901234567890"#, r#"12345678901234567890"#),
            (r#"{}"#, r#"{}"#),
            (r#"[]"#, r#"[]"#),
        ];
        for (text, expected) in cases {
            let v = loads(text).unwrap();
            assert_eq!(py_str(&v), expected, "str() of {text}");
        }
    }
}
