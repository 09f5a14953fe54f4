//! Text rules of the reference benchmark scripts (`benchmarks/external/run_hotpotqa.py` and
//! `run_multihop_rag.py`, commit 134c676), reproduced exactly so
//! that node ids and node contents (hence embeddings) are bit-identical to the reference.
//!
//! * [`slug`]: node id of a title (`_slugify`).
//! * [`py_strip`]: Python's `str.strip()` with no argument, applied by the reference to titles,
//!   sentences, facts, sources and categories before use.
//! * [`hotpot_paragraph_text`]: content of a HotPotQA paragraph node (`_build_graph`).

/// Maximum length of a slug in characters (the reference `_slugify` keeps `[:80]`).
pub const SLUG_MAX_CHARS: usize = 80;

/// Node id of a title (reference `_slugify`): lower-case the title (full Unicode lower-casing, as
/// Python's `str.lower()`), replace every maximal run of characters outside `[a-z0-9]` by one
/// `_`, strip leading and trailing `_`, keep the first 80 characters.
///
/// Truncation happens *after* stripping, so a slug may end in `_` when the cut falls on one.
/// A title made only of punctuation gives the empty slug `""`, which the reference accepts
/// as a node id.
///
/// Lower-casing matters only for characters whose lower case is ASCII: besides `A`–`Z` these
/// are `U+0130` (`İ` → `i` + combining dot, so it becomes `i_`) and the Kelvin sign
/// `U+212A` (→ `k`); Rust's `char::to_lowercase` agrees with Python on both.
pub fn slug(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    let mut in_run = false;
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('_');
            in_run = true;
        }
    }
    let trimmed = out.trim_matches('_');
    // Everything left is ASCII, so bytes == characters.
    trimmed[..trimmed.len().min(SLUG_MAX_CHARS)].to_string()
}

/// Python's `str.isspace()` for one character (what `str.strip()` removes): Unicode
/// `White_Space` plus the ASCII information separators `U+001C`–`U+001F`, which Python counts
/// as whitespace and Rust's [`char::is_whitespace`] does not.
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument: removes leading and trailing characters for which
/// [`py_isspace`] holds.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// Content of a HotPotQA paragraph node (reference `_build_graph`): each sentence stripped
/// ([`py_strip`]), empty ones dropped, the rest joined by one ASCII space.
///
/// HotPotQA sentences after the first usually start with a space (`" He lives in ..."`); the
/// stripping removes it, so the join does not double it.
pub fn hotpot_paragraph_text<S: AsRef<str>>(sentences: &[S]) -> String {
    let mut out = String::new();
    for s in sentences {
        let t = py_strip(s.as_ref());
        if t.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_follows_the_reference_slugify() {
        assert_eq!(slug("Ed Wood (film)"), "ed_wood_film");
        assert_eq!(slug("Scott Derrickson"), "scott_derrickson");
        assert_eq!(slug("  --Hello,   World!--  "), "hello_world");
        assert_eq!(slug("Woodson, Arkansas"), "woodson_arkansas");
        assert_eq!(slug("A\u{2013}B"), "a_b"); // en dash is outside [a-z0-9]
        assert_eq!(slug("Café Society"), "caf_society");
        assert_eq!(slug("!!!"), "");
        assert_eq!(slug(""), "");
        assert_eq!(slug("2014–15 UEFA"), "2014_15_uefa");
        // U+0130 lower-cases to "i" + U+0307; the combining dot becomes "_".
        assert_eq!(slug("\u{130}stanbul"), "i_stanbul");
        // Kelvin sign lower-cases to ASCII k.
        assert_eq!(slug("5 \u{212a}"), "5_k");
    }

    #[test]
    fn slug_truncates_after_stripping() {
        let title = format!("__{}", "ab ".repeat(40)); // 120 chars of payload
        let s = slug(&title);
        assert_eq!(s.chars().count(), SLUG_MAX_CHARS);
        assert!(s.starts_with("ab_ab"));
        // 80 = 26 * "ab_" + "ab": the cut lands after a full "ab".
        assert!(s.ends_with("_ab"));
        let t = slug(&"abc ".repeat(30));
        assert_eq!(t.len(), 80);
        assert!(
            t.ends_with('_'),
            "a cut on a separator keeps the trailing underscore"
        );
    }

    #[test]
    fn py_strip_matches_python_whitespace() {
        assert_eq!(py_strip(" \t\n x y \r\x0b\x0c"), "x y");
        assert_eq!(py_strip("\u{a0}\u{2009}x\u{3000}"), "x");
        assert_eq!(py_strip("\u{1c}\u{1d}x\u{1e}\u{1f}"), "x");
        assert_eq!(py_strip("\u{85}x\u{2028}"), "x");
        // Zero-width space is not whitespace for Python either.
        assert_eq!(py_strip("\u{200b}x"), "\u{200b}x");
    }

    #[test]
    fn hotpot_text_strips_drops_empty_and_joins_with_one_space() {
        let sentences = [
            "Ed Wood is a 1994 film.",
            " The film concerns Wood.",
            "   ",
            "",
            " Sarah Jessica Parker stars. ",
        ];
        assert_eq!(
            hotpot_paragraph_text(&sentences),
            "Ed Wood is a 1994 film. The film concerns Wood. Sarah Jessica Parker stars."
        );
        assert_eq!(hotpot_paragraph_text::<&str>(&[]), "");
        assert_eq!(hotpot_paragraph_text(&[" ", "\n"]), "");
    }
}
