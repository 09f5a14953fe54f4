//! Text embedders (reference `crabpath/hasher.py`, `index.py`): the [`Embedder`] seam and
//! the deterministic `hash-v1` embedder of the reference.

use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Turns texts into fixed-dimension vectors. Implemented here by [`HashEmbedder`]
/// (`hash-v1`) and, in the `crabpath-embed` crate, by all-MiniLM-L6-v2.
pub trait Embedder: Send + Sync {
    /// Stable name recorded in state files and results (e.g. `hash-v1`).
    fn name(&self) -> &str;
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// Embeds a batch of texts, one vector per text, in order.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f64>>>;
    /// Embeds one text.
    fn embed(&self, text: &str) -> Result<Vec<f64>> {
        let mut v = self.embed_batch(&[text])?;
        Ok(v.pop().unwrap_or_default())
    }
}

// ----- hash-v1 --------------------------------------------------------------------------

/// The deterministic `hash-v1` embedder of reference `crabpath/hasher.py::HashEmbedder`:
/// word tokens and character n-grams, hashed with
/// SHA-256 into signed buckets, L2-normalised. No model, no network; identical vectors to
/// the reference for every input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashEmbedder {
    dim: usize,
    ngram_min: usize,
    ngram_max: usize,
}

impl Default for HashEmbedder {
    fn default() -> Self {
        HashEmbedder {
            dim: HashEmbedder::DEFAULT_DIM,
            ngram_min: 3,
            ngram_max: 5,
        }
    }
}

impl HashEmbedder {
    /// Name recorded in state files.
    pub const NAME: &'static str = "hash-v1";
    /// Default dimension (1024).
    pub const DEFAULT_DIM: usize = 1024;

    /// The reference's default instance: `dim = 1024`, n-grams 3..=5.
    pub fn new() -> Self {
        Self::default()
    }

    /// An instance of another dimension and n-gram range (both bounds inclusive).
    /// `dim` must be positive and `1 <= ngram_min <= ngram_max` (the reference divides by
    /// `dim` and would emit empty-string features for `n = 0`).
    pub fn with_params(dim: usize, ngram_min: usize, ngram_max: usize) -> Result<Self> {
        if dim == 0 || ngram_min == 0 || ngram_min > ngram_max {
            return Err(Error::InvalidConfig(format!(
                "hash embedder needs dim > 0 and 1 <= ngram_min <= ngram_max, got dim={dim}, \
                 ngram_range=({ngram_min}, {ngram_max})"
            )));
        }
        Ok(HashEmbedder {
            dim,
            ngram_min,
            ngram_max,
        })
    }

    /// The n-gram range (inclusive).
    pub fn ngram_range(&self) -> (usize, usize) {
        (self.ngram_min, self.ngram_max)
    }

    /// Bucket and sign of one feature (reference `crabpath/hasher.py::HashEmbedder.embed`):
    /// SHA-256 of its UTF-8 bytes; bucket = first 4 digest bytes as a big-endian `u32`, mod
    /// `dim`; sign = +1 if digest byte 4 is even, else −1.
    pub fn feature_slot(&self, feature: &str) -> (usize, f64) {
        let d = Sha256::digest(feature.as_bytes());
        let h = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
        let bucket = (u64::from(h) % self.dim as u64) as usize;
        let sign = if d[4] % 2 == 0 { 1.0 } else { -1.0 };
        (bucket, sign)
    }

    /// Word tokens of a text (reference `crabpath/hasher.py::HashEmbedder._tokenize`).
    pub fn tokenize(text: &str) -> Vec<String> {
        let mut buf = String::new();
        tokenize_into(text, &mut buf);
        tokens_of(&buf).map(str::to_string).collect()
    }

    /// The un-normalised vector (signed feature counts, integer-valued), before
    /// normalisation.
    pub fn raw_vector(&self, text: &str) -> Vec<f64> {
        let mut scratch = Scratch::default();
        let mut v = vec![0.0; self.dim];
        self.accumulate(text, &mut scratch, &mut v);
        v
    }

    /// Embeds one text reusing `scratch` buffers (reference
    /// `crabpath/hasher.py::HashEmbedder.embed`).
    fn embed_with(&self, text: &str, scratch: &mut Scratch) -> Vec<f64> {
        let mut v = vec![0.0; self.dim];
        self.accumulate(text, scratch, &mut v);
        // Normalisation: sum of squares in index order, then divide.
        let norm = v.iter().fold(0.0, |acc, x| acc + x * x).sqrt();
        if norm > 0.0 {
            for x in &mut v {
                *x /= norm;
            }
        }
        v
    }

    /// Steps 1–4: every feature occurrence adds its sign to its bucket.
    ///
    /// The reference counts the distinct features (a `Counter`, first-occurrence
    /// order) and adds `sign * count` per feature; every partial sum is an integer
    /// far below 2^53, so adding the signs one occurrence at a time gives the same
    /// `f64` bits in any order. That needs no table of every distinct feature: a
    /// 4 MB text has some 13 million n-grams, and the counting table sized for them
    /// made `init` of one such file peak near 400 MB. Bucket and sign of the first
    /// [`SLOT_MEMO`] distinct features are remembered (SHA-256 once each); later new
    /// features are hashed each time they occur. Memory: the lowered text, the
    /// tokens (each about the size of the text) plus the bounded memo.
    fn accumulate(&self, text: &str, scratch: &mut Scratch, v: &mut [f64]) {
        let Scratch { tokens, lower } = scratch;
        tokenize_into(text, tokens);
        python_lower_into(text, lower);
        let tokens: &str = tokens;
        let lower: &str = lower;
        // grown as features come (a text has far fewer distinct features than
        // n-grams; a table sized for the n-grams is touched all over as it fills)
        let mut memo: FxHashMap<&str, (usize, f64)> = FxHashMap::with_capacity_and_hasher(
            MEMO_START.min(tokens.len() + lower.len()),
            Default::default(),
        );
        let mut add = |feature| {
            let (bucket, sign) = if memo.len() < SLOT_MEMO {
                *memo
                    .entry(feature)
                    .or_insert_with(|| self.feature_slot(feature))
            } else {
                match memo.get(feature) {
                    Some(&slot) => slot,
                    None => self.feature_slot(feature),
                }
            };
            v[bucket] += sign;
        };
        for token in tokens_of(tokens) {
            add(token);
        }
        // n-grams of `n` code points: from each code point's offset to the offset `n`
        // code points later (the end of the text counting as one)
        let offsets = || {
            lower
                .char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(lower.len()))
        };
        for n in self.ngram_min..=self.ngram_max {
            for (start, end) in offsets().zip(offsets().skip(n)) {
                add(&lower[start..end]);
            }
        }
    }
}

/// How many distinct features' buckets and signs one embedding call remembers: a
/// table of 2^18 slots of 32 bytes (8 MB) at most; a chunk of ordinary size has a few
/// thousand.
const SLOT_MEMO: usize = 1 << 17;

/// The memo's first capacity (a chunk of some 1,000 characters has fewer features).
const MEMO_START: usize = 4096;

/// Reusable buffers of one embedding call.
#[derive(Default)]
struct Scratch {
    /// The lower-cased tokens, each followed by a space ([`tokenize_into`]).
    tokens: String,
    /// The Python-lowercased text.
    lower: String,
}

impl Embedder for HashEmbedder {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f64>>> {
        let mut scratch = Scratch::default();
        Ok(texts
            .iter()
            .map(|t| self.embed_with(t, &mut scratch))
            .collect())
    }

    fn embed(&self, text: &str) -> Result<Vec<f64>> {
        Ok(self.embed_with(text, &mut Scratch::default()))
    }
}

/// The tokenizer of reference `crabpath/hasher.py::HashEmbedder._tokenize`: maximal runs of
/// ASCII `[A-Za-z0-9_]`, split between an ASCII lowercase letter and a following ASCII
/// uppercase letter and on `_`, empty parts dropped, ASCII-lowercased. Every other
/// character (non-ASCII letters included) separates runs. Tokens are written to `out`,
/// each followed by a space (no token holds one; [`tokens_of`] reads them back), which
/// costs a byte per token where a list of ranges would cost sixteen.
fn tokenize_into(text: &str, out: &mut String) {
    out.clear();
    let mut start = 0;
    let mut prev: u8 = 0;
    for &b in text.as_bytes() {
        let word = b.is_ascii_alphanumeric() || b == b'_';
        let boundary = !word || b == b'_' || (prev.is_ascii_lowercase() && b.is_ascii_uppercase());
        if boundary && out.len() > start {
            out.push(' ');
            start = out.len();
        }
        if word && b != b'_' {
            out.push(char::from(b.to_ascii_lowercase()));
        }
        prev = if word { b } else { 0 };
    }
    if out.len() > start {
        out.push(' ');
    }
}

/// The tokens [`tokenize_into`] wrote, in order.
fn tokens_of(tokens: &str) -> impl Iterator<Item = &str> {
    tokens.split_terminator(' ')
}

// ----- Python `str.lower` ---------------------------------------------------------------

/// How CPython 3.11 (Unicode 14.0, the reference's interpreter) sees a code point on
/// which the Rust toolchain's newer Unicode tables disagree with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Py311Case {
    /// Unassigned in Unicode 14: lower-cases to itself, neither cased nor case-ignorable.
    Uncased,
    /// Cased (U+0295 was `Ll` in Unicode 14), lower-cases to itself.
    Cased,
    /// Case-ignorable (U+1171E was `Mn` in Unicode 14), lower-cases to itself.
    Ignorable,
}

/// Every code point where Rust's `str::to_lowercase` (Unicode 17.0, Rust 1.95) and
/// CPython 3.11's `str.lower` (Unicode 14.0) differ, found by comparing, for all
/// 1,112,064 scalar values `c`, `c.lower()`, `("AΣ" + c).lower()` and
/// `("A" + c + "Σ").lower()` in both (the last two expose the final-sigma properties
/// "cased" and "case-ignorable"). Everything else, `İ` → `i̇` and the final-sigma rule
/// included, agrees. Regenerate when `char::UNICODE_VERSION` changes (a test checks).
const PY311_EXCEPTIONS: &[(u32, u32, Py311Case)] = {
    use Py311Case::{Cased, Ignorable, Uncased as U};
    &[
        (0x295, 0x295, Cased),
        (0x897, 0x897, U),
        (0xECE, 0xECE, U),
        (0x1ACF, 0x1ADD, U),
        (0x1AE0, 0x1AEB, U),
        (0x1C89, 0x1C8A, U),
        (0xA7CB, 0xA7CF, U),
        (0xA7D2, 0xA7D2, U),
        (0xA7D4, 0xA7D4, U),
        (0xA7DA, 0xA7DC, U),
        (0xA7F1, 0xA7F1, U),
        (0x10D4E, 0x10D4E, U),
        (0x10D50, 0x10D65, U),
        (0x10D69, 0x10D6D, U),
        (0x10D6F, 0x10D85, U),
        (0x10EC5, 0x10EC5, U),
        (0x10EFA, 0x10EFF, U),
        (0x11241, 0x11241, U),
        (0x113BB, 0x113C0, U),
        (0x113CE, 0x113CE, U),
        (0x113D0, 0x113D0, U),
        (0x113D2, 0x113D2, U),
        (0x113E1, 0x113E2, U),
        (0x1171E, 0x1171E, Ignorable),
        (0x11B60, 0x11B60, U),
        (0x11B62, 0x11B64, U),
        (0x11B66, 0x11B66, U),
        (0x11DD9, 0x11DD9, U),
        (0x11F00, 0x11F01, U),
        (0x11F36, 0x11F3A, U),
        (0x11F40, 0x11F40, U),
        (0x11F42, 0x11F42, U),
        (0x11F5A, 0x11F5A, U),
        (0x13439, 0x13440, U),
        (0x13447, 0x13455, U),
        (0x1611E, 0x16129, U),
        (0x1612D, 0x1612F, U),
        (0x16D40, 0x16D42, U),
        (0x16D6B, 0x16D6C, U),
        (0x16EA0, 0x16EB8, U),
        (0x16EBB, 0x16ED3, U),
        (0x16FF2, 0x16FF3, U),
        (0x1DF25, 0x1DF2A, U),
        (0x1E030, 0x1E06D, U),
        (0x1E08F, 0x1E08F, U),
        (0x1E4EB, 0x1E4EF, U),
        (0x1E5EE, 0x1E5EF, U),
        (0x1E6E3, 0x1E6E3, U),
        (0x1E6E6, 0x1E6E6, U),
        (0x1E6EE, 0x1E6EF, U),
        (0x1E6F5, 0x1E6F5, U),
        (0x1E6FF, 0x1E6FF, U),
    ]
};

/// The Unicode version [`PY311_EXCEPTIONS`] was derived against.
#[cfg(test)]
const EXCEPTIONS_UNICODE_VERSION: (u8, u8, u8) = (17, 0, 0);

fn py311_exception(c: char) -> Option<Py311Case> {
    let c = c as u32;
    if c < 0x295 {
        return None;
    }
    let i = PY311_EXCEPTIONS.partition_point(|&(_, hi, _)| hi < c);
    match PY311_EXCEPTIONS.get(i) {
        Some(&(lo, _, kind)) if lo <= c => Some(kind),
        _ => None,
    }
}

/// Python 3.11 `str.lower` (full Unicode lowercasing, `İ` → `i̇`, context-sensitive
/// final sigma), as used for the n-grams of reference
/// `crabpath/hasher.py::HashEmbedder._ngrams`.
pub fn python_lower(text: &str) -> String {
    let mut out = String::new();
    python_lower_into(text, &mut out);
    out
}

/// [`python_lower`] into a reusable buffer (cleared first).
///
/// Rust's `str::to_lowercase` implements the same algorithm (SpecialCasing's
/// unconditional mappings plus the Final_Sigma rule: `Σ` becomes `ς` when preceded by
/// a cased letter and not followed by one, case-ignorable characters skipped) and
/// agrees everywhere except on the code points of `PY311_EXCEPTIONS`; texts with
/// such a code point take a slower path that applies the rule with Python's view of it.
pub fn python_lower_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    if !text.chars().any(|c| py311_exception(c).is_some()) {
        out.push_str(&text.to_lowercase());
        return;
    }
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == 'Σ' {
            out.push(if final_sigma(&chars, i) { 'ς' } else { 'σ' });
        } else if py311_exception(c).is_some() {
            out.push(c);
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// Final_Sigma: the closest non-case-ignorable character before `i` is cased, and
/// the closest one after `i` (if any) is not.
fn final_sigma(chars: &[char], i: usize) -> bool {
    let before = chars[..i]
        .iter()
        .rev()
        .map(|&c| sigma_props(c))
        .find(|p| !p.1);
    if before.is_none_or(|(cased, _)| !cased) {
        return false;
    }
    let after = chars[i + 1..]
        .iter()
        .map(|&c| sigma_props(c))
        .find(|p| !p.1);
    after.is_none_or(|(cased, _)| !cased)
}

/// (cased, case-ignorable) of a character as CPython 3.11 sees it: from the exception
/// table, else read off Rust's own final-sigma behaviour ("AΣc" keeps a final `ς`
/// unless `c` is cased and not ignorable; "AcΣ" gets one iff `c` is cased or
/// ignorable). Only used for texts that contain an exception code point.
fn sigma_props(c: char) -> (bool, bool) {
    match py311_exception(c) {
        Some(Py311Case::Uncased) => (false, false),
        Some(Py311Case::Cased) => (true, false),
        Some(Py311Case::Ignorable) => (false, true),
        None => {
            let mut s = String::with_capacity(12);
            s.push('A');
            s.push('Σ');
            s.push(c);
            let b1 = s.to_lowercase().chars().nth(1) == Some('ς');
            s.clear();
            s.push('A');
            s.push(c);
            s.push('Σ');
            let b2 = s.to_lowercase().ends_with('ς');
            let ignorable = b1 && b2;
            (!b1, ignorable)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embed(text: &str) -> Vec<f64> {
        HashEmbedder::new().embed(text).unwrap()
    }

    fn cos(a: &[f64], b: &[f64]) -> f64 {
        crate::index::cosine(a, b)
    }

    #[test]
    fn feature_slots_match_spec() {
        let e = HashEmbedder::new();
        assert_eq!(e.feature_slot("deploy"), (449, -1.0));
        assert_eq!(e.feature_slot("dep"), (798, 1.0));
        assert_eq!(e.feature_slot("hello"), (442, -1.0));
    }

    #[test]
    fn spec_vector_and_cosines() {
        let a = embed("deploy to production");
        assert_eq!(a.len(), 1024);
        let nz: Vec<(usize, f64)> = a
            .iter()
            .copied()
            .enumerate()
            .filter(|x| x.1 != 0.0)
            .collect();
        assert_eq!(nz.len(), 51);
        let expected = [
            (5, 0.136083),
            (9, 0.136083),
            (17, 0.272166),
            (52, -0.136083),
        ];
        for ((i, x), (j, y)) in nz.iter().zip(expected) {
            assert_eq!(*i, j);
            assert!((x - y).abs() < 5e-7, "{x} vs {y}");
        }
        let b = embed("deploy the release to production");
        assert_eq!(cos(&a, &b), 0.7315635209502911);
        assert_eq!(
            cos(&a, &embed("skip tests for hotfix")),
            -0.05360562674188977
        );
    }

    #[test]
    fn tokenizer_cases() {
        assert_eq!(
            HashEmbedder::tokenize("getHTTPResponse"),
            ["get", "httpresponse"]
        );
        assert_eq!(HashEmbedder::tokenize("ÉCOLE café"), ["cole", "caf"]);
        assert_eq!(
            HashEmbedder::tokenize("getHTTPResponse_value x__y v2Beta __init__ ABCdef"),
            [
                "get",
                "httpresponse",
                "value",
                "x",
                "y",
                "v2beta",
                "init",
                "abcdef"
            ]
        );
        assert!(HashEmbedder::tokenize("— “” 日本").is_empty());
    }

    #[test]
    fn python_lower_special_cases() {
        // Python 3.11: 'İ'.lower() is two code points; final sigma is context-sensitive.
        assert_eq!(python_lower("İ"), "i\u{307}");
        assert_eq!(python_lower("ΟΔΟΣ Σ aΣ. ΣA"), "οδος σ aς. σa");
        // U+0295 is cased in Unicode 14 (so the sigma after it is final); U+A7CB is
        // unassigned there (kept, and the sigma after it is not final); U+1171E is
        // case-ignorable there.
        assert_eq!(python_lower("AʕΣ b \u{a7cb}Σ x"), "aʕς b \u{a7cb}σ x");
        assert_eq!(python_lower("A\u{1171e}Σ z"), "a\u{1171e}ς z");
        assert_eq!(python_lower("ﬁle ß ǅ Ω"), "ﬁle ß ǆ ω");
    }

    #[test]
    fn exception_table_matches_toolchain() {
        assert_eq!(
            char::UNICODE_VERSION,
            EXCEPTIONS_UNICODE_VERSION,
            "Rust's Unicode tables changed: regenerate PY311_EXCEPTIONS against CPython 3.11"
        );
        assert!(PY311_EXCEPTIONS.windows(2).all(|w| w[0].1 < w[1].0));
    }

    /// Expected values generated by a throwaway Python 3.11.7 script implementing reference
    /// `crabpath/hasher.py::HashEmbedder` (the script is not part of the repository):
    /// number of non-zero components, SHA-256 of the raw integer vector written as
    /// `"{index}:{count};"` for each non-zero component, and the first normalised
    /// component.
    #[test]
    fn unicode_texts_match_python() {
        let cases: &[(&str, usize, &str, (usize, f64))] = &[
            (
                "ΟΔΟΣ Σ aΣ. İstanbul café ÉCOLE",
                82,
                "7383b4ea51e33c652170cdc47e6c9941c79185edb2547846aeb0b609a6bee348",
                (21, -0.10314212462587934),
            ),
            (
                "getHTTPResponse_value x__y v2Beta __init__ ABCdef",
                130,
                "eeae34ae0283a99fd119c79e6cef1c2d343065ab0c8b168cfda03f25e5a97914",
                (16, 0.08164965809277261),
            ),
            (
                "deploy 🚀 now\n\ttab — “quotes”",
                76,
                "11323f8b8c1e50ed963b7c77fbf2b0ef86bc931a98a76bab975ac2c21ce023f0",
                (7, -0.10846522890932808),
            ),
            (
                "AʕΣ b \u{a7cb}Σ x",
                22,
                "94814e5244794d98838e68e8a2fde7037a86efd95b14a394ca8566598cba8c00",
                (16, 0.21320071635561041),
            ),
            (
                "A\u{1171e}Σ z",
                8,
                "0584820c2d10a381e285671b15b4af64a9f80225438e9f0e0a1d4a32833998ec",
                (274, 0.35355339059327373),
            ),
            (
                "ab",
                1,
                "2ba2ed704107c4c8e214c1f113e7d710d1a504d7599c6698bc695effe9117774",
                (252, 1.0),
            ),
            (
                "日本語のテキスト mixed with ASCII_words",
                81,
                "14c176d4bf4c4a3cc7aa820d984be0cb4e1b85b34d48be04d63b4b6259efb291",
                (20, -0.10206207261596577),
            ),
            (
                "ﬁle ß ǅ Ω",
                19,
                "f7439b59185bd1653c75bc4071c82a05bfd5d77b09582a4888767f25e024f28c",
                (109, 0.22941573387056174),
            ),
        ];
        let e = HashEmbedder::new();
        for &(text, nnz, fingerprint, first) in cases {
            let raw = e.raw_vector(text);
            let mut fp = String::new();
            for (i, x) in raw.iter().enumerate().filter(|x| *x.1 != 0.0) {
                fp.push_str(&format!("{i}:{};", *x as i64));
            }
            assert_eq!(
                hex::encode(Sha256::digest(fp.as_bytes())),
                fingerprint,
                "{text:?}"
            );
            let v = embed(text);
            let nz: Vec<(usize, f64)> = v
                .iter()
                .copied()
                .enumerate()
                .filter(|x| x.1 != 0.0)
                .collect();
            assert_eq!(nz.len(), nnz, "{text:?}");
            assert_eq!(nz[0], first, "{text:?}");
        }
        let a = embed("ΟΔΟΣ Σ aΣ. İstanbul café ÉCOLE");
        let b = embed("日本語のテキスト mixed with ASCII_words");
        assert_eq!(cos(&a, &b), -0.031580697039994506);
    }

    #[test]
    fn empty_text_is_zero_vector_and_batch_matches_single() {
        assert!(embed("").iter().all(|&x| x == 0.0));
        let e = HashEmbedder::new();
        let texts = ["deploy to production", "", "ΟΔΟΣ", "deploy to production"];
        let batch = e.embed_batch(&texts).unwrap();
        for (t, v) in texts.iter().zip(&batch) {
            assert_eq!(v, &embed(t));
        }
        assert_eq!(e.name(), "hash-v1");
        assert_eq!(e.dim(), 1024);
    }

    #[test]
    fn params_are_validated() {
        assert!(HashEmbedder::with_params(0, 3, 5).is_err());
        assert!(HashEmbedder::with_params(64, 0, 5).is_err());
        assert!(HashEmbedder::with_params(64, 4, 3).is_err());
        let e = HashEmbedder::with_params(64, 3, 3).unwrap();
        let v = e.embed("hello world").unwrap();
        assert_eq!(v.len(), 64);
        let norm: f64 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-12);
    }
}
