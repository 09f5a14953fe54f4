//! `.gitignore` handling of the workspace bootstrap, in the two profiles.
//!
//! * [`ReferenceIgnore`] — the reference's own minimal matcher (reference
//!   `crabpath/split.py::_load_gitignore_patterns` and `_match_gitignore`, commit
//!   134c676), quirks included: only the workspace's root `.gitignore` is read;
//!   negations (`!x`) are ignored; every pattern loses all leading `.` and `/`
//!   characters (`lstrip("./")`); a pattern that started with `/` then loses one more
//!   character (`/ign.md` matches `gn.md`, not `ign.md`); patterns are Python `fnmatch`
//!   globs in which `*` also matches `/`.
//! * [`GitIgnore`] — git's rules (the `ignore` crate, the implementation ripgrep
//!   uses): anchoring by a leading or inner `/`, negation, directory-only patterns,
//!   `**`, `*` not crossing `/`, and `.gitignore` files in subdirectories, deeper files
//!   taking precedence.
//!
//! [`fnmatch`] is Python's `fnmatch.fnmatch` on POSIX (case-sensitive), also used by
//! the reference's default-exclude rules.

use std::path::{Path, PathBuf};

use crate::error::Result;
use pyformat::pystr;

// ===== Python fnmatch ==========================================================

/// One element of a translated glob.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// `*` (consecutive stars collapsed): any run of characters, `/` included.
    Star,
    /// `?` or the negated empty set `[!]`-equivalent: any one character.
    Any,
    /// A character class.
    Class {
        negate: bool,
        items: Vec<(char, char)>,
    },
    /// A class that can never match (an empty range such as `[z-a]`).
    Never,
    /// A literal character.
    Lit(char),
}

/// Python 3.11 `fnmatch.translate`, producing tokens instead of a regular expression
/// (same language: `*`, `?`, `[...]`, `[!...]`, ranges, `]` first in a set is literal,
/// an unclosed `[` is literal, reversed ranges are dropped).
fn translate(pat: &[char]) -> Vec<Tok> {
    let mut out = Vec::new();
    let n = pat.len();
    let mut i = 0;
    while i < n {
        let c = pat[i];
        i += 1;
        match c {
            '*' => {
                if out.last() != Some(&Tok::Star) {
                    out.push(Tok::Star);
                }
            }
            '?' => out.push(Tok::Any),
            '[' => {
                let mut j = i;
                if j < n && pat[j] == '!' {
                    j += 1;
                }
                if j < n && pat[j] == ']' {
                    j += 1;
                }
                while j < n && pat[j] != ']' {
                    j += 1;
                }
                if j >= n {
                    out.push(Tok::Lit('['));
                    continue;
                }
                out.push(class_token(pat, i, j));
                i = j + 1;
            }
            _ => out.push(Tok::Lit(c)),
        }
    }
    out
}

/// The set `pat[i..j]` (between the brackets) as Python builds and `re` parses it.
fn class_token(pat: &[char], mut i: usize, j: usize) -> Tok {
    let stuff: Vec<char> = pat[i..j].to_vec();
    // `chunks` joined by range hyphens; the characters inside chunks are literals
    let chunks: Vec<Vec<char>> = if !stuff.contains(&'-') {
        vec![stuff]
    } else {
        let mut chunks: Vec<Vec<char>> = Vec::new();
        let mut k = if pat[i] == '!' { i + 2 } else { i + 1 };
        loop {
            let found = (k..j).find(|&x| pat[x] == '-');
            let Some(h) = found else { break };
            chunks.push(pat[i..h].to_vec());
            i = h + 1;
            k = h + 3;
        }
        let chunk = pat[i..j].to_vec();
        if chunk.is_empty() {
            if let Some(last) = chunks.last_mut() {
                last.push('-');
            }
        } else {
            chunks.push(chunk);
        }
        // remove empty ranges, from the end
        let mut k = chunks.len().saturating_sub(1);
        while k > 0 {
            let (prev_last, next_first) =
                (chunks[k - 1].last().copied(), chunks[k].first().copied());
            if let (Some(a), Some(b)) = (prev_last, next_first) {
                if a > b {
                    let mut merged = chunks[k - 1][..chunks[k - 1].len() - 1].to_vec();
                    merged.extend_from_slice(&chunks[k][1..]);
                    chunks[k - 1] = merged;
                    chunks.remove(k);
                }
            }
            k -= 1;
        }
        chunks
    };
    let flat: Vec<char> = chunks.concat();
    if flat.is_empty() {
        return Tok::Never;
    }
    if flat == ['!'] && chunks.len() == 1 {
        return Tok::Any;
    }
    // `[!...]` negates; a leading `^` or `[` is escaped (literal) by Python
    let negate = flat[0] == '!';
    let mut items = Vec::new();
    for (ci, chunk) in chunks.iter().enumerate() {
        for (pos, &c) in chunk.iter().enumerate() {
            if ci == 0 && pos == 0 && negate {
                continue;
            }
            let starts_range = pos + 1 == chunk.len() && ci + 1 < chunks.len();
            let ends_range = pos == 0 && ci > 0;
            if ends_range {
                continue; // consumed as the upper bound below
            }
            if starts_range {
                match chunks[ci + 1].first() {
                    Some(&hi) => items.push((c, hi)),
                    None => items.push((c, c)),
                }
            } else {
                items.push((c, c));
            }
        }
    }
    Tok::Class { negate, items }
}

fn tok_matches(t: &Tok, c: char) -> bool {
    match t {
        Tok::Any => true,
        Tok::Lit(l) => *l == c,
        Tok::Class { negate, items } => items.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negate,
        Tok::Never | Tok::Star => false,
    }
}

/// Python `fnmatch.fnmatch(name, pat)` on POSIX: case-sensitive, `*` matches any
/// run of characters including `/`, `?` any one character, `[...]` sets.
///
/// Cost: O(len(name) × len(pat)) in the worst case.
pub fn fnmatch(name: &str, pat: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let toks = translate(&p);
    let s: Vec<char> = name.chars().collect();
    // classic glob matching with one backtrack point (complete for fixed-width tokens)
    let (mut si, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if ti < toks.len() && toks[ti] == Tok::Star {
            star = Some((ti, si));
            ti += 1;
        } else if ti < toks.len() && tok_matches(&toks[ti], s[si]) {
            si += 1;
            ti += 1;
        } else if let Some((st, ss)) = star {
            ti = st + 1;
            si = ss + 1;
            star = Some((st, ss + 1));
        } else {
            return false;
        }
    }
    while ti < toks.len() && toks[ti] == Tok::Star {
        ti += 1;
    }
    ti == toks.len()
}

/// Python `pathlib.PurePosixPath(p).name`: the last non-empty, non-`.` component.
pub(crate) fn path_name(p: &str) -> &str {
    p.rsplit('/')
        .find(|c| !c.is_empty() && *c != ".")
        .unwrap_or("")
}

// ===== the reference's matcher =================================================

/// The reference's root-`.gitignore` rules (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReferenceIgnore {
    /// Kept lines: stripped, `\` replaced by `/`, in file order.
    pub patterns: Vec<String>,
}

impl ReferenceIgnore {
    /// Reads `<workspace>/.gitignore` if it exists (reference
    /// `_load_gitignore_patterns`): lines (Python `splitlines`) that are non-empty after
    /// `strip` and do not start with `#`, each stripped with `\` turned into `/`.
    ///
    /// Errors: the file exists but cannot be read or is not UTF-8 (the reference
    /// aborts there too).
    pub fn load(workspace: &Path) -> Result<Self> {
        let path = workspace.join(".gitignore");
        if !path.exists() {
            return Ok(Self::default());
        }
        let text = crate::source::text::read_text(&path)?;
        Ok(Self::parse(&text))
    }

    /// The patterns of a `.gitignore` text (see [`ReferenceIgnore::load`]).
    pub fn parse(text: &str) -> Self {
        let patterns = pystr::splitlines(text)
            .into_iter()
            .map(pystr::strip)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.replace('\\', "/"))
            .collect();
        ReferenceIgnore { patterns }
    }

    /// Whether the POSIX relative path `path` is ignored (reference
    /// `_match_gitignore`, bugs included).
    ///
    /// Cost: O(number of patterns × fnmatch cost).
    pub fn matches(&self, path: &str) -> bool {
        self.patterns.iter().any(|p| reference_match(p, path))
    }
}

fn reference_match(pattern: &str, path: &str) -> bool {
    if pattern.starts_with('!') {
        return false;
    }
    let normalized = pattern.trim_start_matches(['.', '/']).replace('\\', "/");
    if let Some(dir) = normalized.strip_suffix('/') {
        return path == dir || path.starts_with(&format!("{dir}/"));
    }
    if pattern.starts_with('/') {
        // the leading `/` is already gone: this drops the first real character
        let rest: String = normalized.chars().skip(1).collect();
        return fnmatch(path, &rest);
    }
    if normalized.contains('/') {
        return fnmatch(path, &normalized);
    }
    fnmatch(path_name(path), &normalized) || fnmatch(path, &format!("*/{normalized}"))
}

// ===== git's rules =============================================================

/// Git's ignore rules over a workspace: the root `.gitignore` and those of
/// subdirectories entered so far (the walker pushes one per directory).
#[derive(Debug, Default)]
pub struct GitIgnore {
    /// (relative directory, its matcher), shallowest first.
    stack: Vec<(String, ignore::gitignore::Gitignore)>,
    root: PathBuf,
}

impl GitIgnore {
    /// Rules for a workspace rooted at `root` (nothing loaded yet).
    pub fn new(root: &Path) -> Self {
        GitIgnore {
            stack: Vec::new(),
            root: root.to_path_buf(),
        }
    }

    /// Loads `<root>/<rel_dir>/.gitignore` if it exists (invalid patterns are skipped,
    /// as git does). Call with `""` for the root, then for each directory entered.
    pub fn enter(&mut self, rel_dir: &str) {
        let dir = if rel_dir.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel_dir)
        };
        let file = dir.join(".gitignore");
        if !file.is_file() {
            return;
        }
        let mut builder = ignore::gitignore::GitignoreBuilder::new(&dir);
        let _partial_errors = builder.add(&file);
        if let Ok(gi) = builder.build() {
            if !gi.is_empty() {
                self.stack.push((rel_dir.to_string(), gi));
            }
        }
    }

    /// Number of `.gitignore` files in effect.
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    /// Whether no `.gitignore` is in effect.
    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    /// Forgets the files loaded after the first `len` (when the walk leaves their
    /// directories).
    pub fn truncate(&mut self, len: usize) {
        self.stack.truncate(len);
    }

    /// Whether `rel` (POSIX, relative to the root) is ignored: the deepest `.gitignore`
    /// whose directory contains `rel` and that has a matching pattern decides (its last
    /// matching pattern; `!` re-includes).
    pub fn matches(&self, rel: &str, is_dir: bool) -> bool {
        let abs = self.root.join(rel);
        for (dir, gi) in self.stack.iter().rev() {
            let inside = dir.is_empty() || rel.starts_with(&format!("{dir}/"));
            if !inside {
                continue;
            }
            match gi.matched(&abs, is_dir) {
                ignore::Match::Ignore(_) => return true,
                ignore::Match::Whitelist(_) => return false,
                ignore::Match::None => {}
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, pattern, Python 3.11 `fnmatch.fnmatch(name, pattern)`), generated with
    /// CPython 3.11.7.
    const FNMATCH_CASES: &[(&str, &str, bool)] = &[
        ("a.md", "*.md", true),
        ("dir/a.md", "*.md", true),
        ("a.MD", "*.md", false),
        ("abc", "a?c", true),
        ("a/c", "a?c", true),
        ("abc", "a[bx]c", true),
        ("abc", "a[!b]c", false),
        ("adc", "a[!b]c", true),
        ("a]c", "a[]]c", true),
        ("a-c", "a[a-]c", true),
        ("abc", "a[a-c]c", true),
        ("abc", "a[c-a]c", false),
        ("a[c", "a[c", true),
        ("a!c", "a[!]c", false),
        ("a[!]c", "a[!]c", true),
        ("a-c", "a[!a-b]c", true),
        ("abc", "a[!a-b]c", false),
        ("a\\c", "a[\\]c", true),
        ("a^c", "a[^]c", true),
        ("xyz", "*", true),
        ("", "*", true),
        ("", "?", false),
        ("aXbXc", "a*b*c", true),
        ("aXbX", "a*b*c", false),
        ("gn.md", "gn.md", true),
        ("ign.md", "gn.md", false),
        ("b-c", "[a-b-c]-c", true),
        ("--c", "[a-b-c]-c", true),
        ("c-c", "[a-b-c]-c", true),
        ("d-c", "[a-b-c]-c", false),
        ("x.json", "*.json", true),
        ("benchmarks/queries.json", "*.json", true),
        ("queries.json", ".json", false),
        ("é", "?", true),
        ("résumé.md", "r[é]sum?.md", true),
        ("a&c", "a[&]c", true),
    ];

    #[test]
    fn fnmatch_matches_python() {
        for &(name, pat, want) in FNMATCH_CASES {
            assert_eq!(fnmatch(name, pat), want, "fnmatch({name:?}, {pat:?})");
        }
    }

    #[test]
    fn reference_gitignore_quirks() {
        // the reference's own .gitignore line `/*.json` only matches a file named `.json`
        // minus its first character: it keeps benchmarks/queries.json in the corpus
        let gi = ReferenceIgnore::parse(
            "/*.json\n!keep.md\n# c\n  \n/ign.md\n.env.md\nbuild/\nsub/*.txt\nlog\n",
        );
        assert_eq!(
            gi.patterns,
            [
                "/*.json",
                "!keep.md",
                "/ign.md",
                ".env.md",
                "build/",
                "sub/*.txt",
                "log"
            ]
        );
        assert!(!gi.matches("benchmarks/queries.json"));
        assert!(!gi.matches("x.json"));
        assert!(gi.matches(".json") && !gi.matches("json"));
        assert!(!gi.matches("ign.md"));
        assert!(gi.matches("gn.md"));
        assert!(gi.matches("env.md"));
        assert!(gi.matches("build"));
        assert!(gi.matches("build/x.md"));
        assert!(!gi.matches("a/build"));
        assert!(gi.matches("sub/a.txt"));
        assert!(gi.matches("sub/deep/a.txt"));
        assert!(gi.matches("log"));
        assert!(gi.matches("a/b/log"));
    }

    #[test]
    fn git_rules_anchor_negate_and_nest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".gitignore"),
            "/*.json\n!keep.json\n/ign.md\n.env.md\nbuild/\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/.gitignore"), "*.txt\n!x.json\n").unwrap();
        let mut gi = GitIgnore::new(dir.path());
        gi.enter("");
        gi.enter("sub");
        assert!(gi.matches("queries.json", false));
        assert!(!gi.matches("benchmarks/queries.json", false));
        assert!(!gi.matches("keep.json", false));
        assert!(gi.matches("ign.md", false));
        assert!(!gi.matches("gn.md", false));
        assert!(gi.matches(".env.md", false));
        assert!(!gi.matches("env.md", false));
        assert!(gi.matches("build", true));
        assert!(!gi.matches("build", false));
        assert!(gi.matches("sub/a.txt", false));
        assert!(!gi.matches("a.txt", false));
    }
}
