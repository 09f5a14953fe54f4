//! Python `str` semantics that leak into the reference's outputs (CPython 3.11):
//! `str.splitlines`, `str.strip`, `str.isspace`, text-mode reading with universal
//! newlines, `float(str)`.
//!
//! The reference splits, strips and reads text with these rules, and chunk boundaries,
//! node summaries and ids depend on them, so the workspace bootstrap and the session
//! parser use these functions rather than Rust's `lines` / `trim`:
//!
//! * `splitlines` breaks at `\n`, `\r\n`, `\r`, `\v`, `\f`, `\x1c`, `\x1d`, `\x1e`,
//!   `\x85`, `\u2028`, `\u2029` (Rust's `lines` only at `\n` and `\r\n`);
//! * `strip` removes Python whitespace, which includes `\x1c`..`\x1f` (Rust's `trim`
//!   does not).
//!
//! Every function is linear in the length of its input.

/// Python `str.isspace` for one character: Unicode White_Space plus the four
/// information separators `\x1c`..`\x1f`.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python `str.lstrip()`.
pub fn lstrip(s: &str) -> &str {
    s.trim_start_matches(is_space)
}

/// Whether `c` ends a line for `str.splitlines`.
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{b}'
            | '\u{c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Python `str.splitlines()` (no `keepends`): the lines without their terminators; no
/// trailing empty element; `""` gives no line.
pub fn splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if is_line_break(c) {
            out.push(&s[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(j, '\n')) = it.peek() {
                    it.next();
                    end = j + 1;
                }
            }
            start = end;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The first element of `splitlines(s)`, or `""` (the reference's node summaries).
pub fn first_line(s: &str) -> &str {
    match s.char_indices().find(|&(_, c)| is_line_break(c)) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Text-mode reading with universal newlines: `\r\n` and lone `\r` become `\n`
/// (Python's `open(path, encoding="utf-8")` / `Path.read_text`). Borrows when there is
/// nothing to translate.
pub fn universal_newlines(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\r') {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Python `float(s)` for a string: surrounding Python whitespace allowed, an optional
/// sign, decimal digits with an optional fraction and exponent, single underscores
/// between digits (PEP 515), or (case-insensitive) `nan`, `inf`, `infinity`.
/// `None` where Python raises `ValueError`.
pub fn parse_float(s: &str) -> Option<f64> {
    let t = strip(s);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let special = match lower.as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "infinity" => Some(f64::INFINITY),
        _ => None,
    };
    if let Some(v) = special {
        return Some(if neg { -v } else { v });
    }
    // digits [. digits] [e [sign] digits], with `_` only between two digits
    let b = body.as_bytes();
    let mut cleaned = String::with_capacity(b.len() + 1);
    if neg {
        cleaned.push('-');
    }
    let mut i = 0;
    let digits = |i: &mut usize, out: &mut String| -> usize {
        let start = *i;
        let mut n = 0;
        while *i < b.len() {
            if b[*i].is_ascii_digit() {
                out.push(b[*i] as char);
                n += 1;
                *i += 1;
            } else if b[*i] == b'_'
                && *i > start
                && b[*i - 1].is_ascii_digit()
                && b.get(*i + 1).is_some_and(u8::is_ascii_digit)
            {
                *i += 1;
            } else {
                break;
            }
        }
        n
    };
    let int_digits = digits(&mut i, &mut cleaned);
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        cleaned.push('.');
        i += 1;
        frac_digits = digits(&mut i, &mut cleaned);
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        cleaned.push('e');
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            cleaned.push(b[i] as char);
            i += 1;
        }
        if digits(&mut i, &mut cleaned) == 0 {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    cleaned.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitlines_matches_python() {
        // CPython 3.11: "a\r\nb\rc\nd\x0be\x0cf\x1cg\x85h\u2028i\n\n".splitlines()
        let s = "a\r\nb\rc\nd\u{b}e\u{c}f\u{1c}g\u{85}h\u{2028}i\n\n";
        assert_eq!(
            splitlines(s),
            ["a", "b", "c", "d", "e", "f", "g", "h", "i", ""]
        );
        assert!(splitlines("").is_empty());
        assert_eq!(splitlines("\n"), [""]);
        assert_eq!(splitlines("x"), ["x"]);
        assert_eq!(first_line("\u{feff}## T\nx"), "\u{feff}## T");
        assert_eq!(first_line(""), "");
    }

    #[test]
    fn strip_includes_information_separators() {
        // CPython 3.11: "\x1f\u3000 x \x1c\xa0".strip() == "x"; "\ufeffx".strip() keeps the BOM
        assert_eq!(strip("\u{1f}\u{3000} x \u{1c}\u{a0}"), "x");
        assert_eq!(strip("\u{feff}x"), "\u{feff}x");
        assert_eq!(strip("\u{200b}x"), "\u{200b}x");
    }

    #[test]
    fn universal_newlines_translate() {
        assert_eq!(universal_newlines("a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(universal_newlines("a\r\r\nb"), "a\n\nb");
    }

    #[test]
    fn float_parsing_matches_python() {
        // CPython 3.11 float() on each string
        let ok = [
            (" 1.5 ", 1.5),
            ("+3", 3.0),
            ("-2e3", -2000.0),
            ("1_000.5", 1000.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("1E-2", 0.01),
            ("\u{3000}7\n", 7.0),
        ];
        for (s, want) in ok {
            assert_eq!(parse_float(s), Some(want), "{s:?}");
        }
        assert!(parse_float("nan").unwrap().is_nan());
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("iNF"), Some(f64::INFINITY));
        for bad in [
            "", ".", "1__0", "_1", "1_", "1e", "1.5.2", "0x10", "1 2", "e5", "--1", "infinit",
        ] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }
}
