//! The four heuristic chunkers of the workspace bootstrap (reference
//! `crabpath/split.py::_chunk_markdown`, `_chunk_python`, `_chunk_json`,
//! `_chunk_config_like`, commit 134c676). The chunker is chosen by the file's last
//! suffix, lower-cased ([`Chunker::for_suffix`]):
//!
//! | suffix | chunker |
//! |---|---|
//! | `.md .txt .rst .html` (and any other) | [`chunk_markdown`] |
//! | `.py` | [`chunk_python`] |
//! | `.json` | [`chunk_json`] |
//! | `.yaml .yml .toml .cfg .ini` | [`chunk_config`] |
//!
//! Lines, stripping and lengths follow Python (`str.splitlines`, `str.strip`, code
//! points; see [`pyformat::pystr`]). A chunk that is empty after stripping produces no
//! node but still consumes its index ([`crate::source::bootstrap`]).
//!
//! # Profiles
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | C1 | a decorator line ends the previous chunk and is separated from its function | decorator lines directly above a `def`/`class` start its chunk | `"import os\n\n@dec"` + `"def f():\n    pass"` → `"import os"` + `"@dec\ndef f():\n    pass"` |
//! | C2 | a file kept whole by the JSON or config chunker keeps its raw text (trailing newline included) while every Markdown chunk is stripped | every chunk is stripped | `'{"a": 1}\n'` → `'{"a": 1}'` |
//! | C3 | node metadata `kind` is `"markdown"` whatever the file type | the chunker's name (`markdown`, `python`, `json`, `config`) | `code.py::1` kind `markdown` → `python` |
//!
//! Known divergence (both profiles): the Python chunker's `\w` is Python's Unicode
//! word class, approximated by Rust's `char::is_alphanumeric` (they differ only on
//! combining marks with the Other_Alphabetic property, which cannot start an
//! identifier).

use crabpath::profile::Profile;
use pyformat::pyjson::{self, LoadsError, LoadsErrorKind, PyValue, Style};
use pyformat::pystr;

/// Which heuristic splits a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chunker {
    /// `## ` sections, or blank-line paragraphs.
    Markdown,
    /// `def` / `class` blocks.
    Python,
    /// One chunk per top-level key of a large object.
    Json,
    /// Top-level keys and `[sections]` of large YAML / TOML / INI files.
    Config,
}

impl Chunker {
    /// The chunker of a lower-cased suffix such as `.py` (reference dispatch in
    /// `split_workspace`; unknown suffixes use Markdown).
    pub fn for_suffix(suffix: &str) -> Chunker {
        match suffix {
            ".py" => Chunker::Python,
            ".json" => Chunker::Json,
            ".yaml" | ".yml" | ".toml" | ".cfg" | ".ini" => Chunker::Config,
            _ => Chunker::Markdown,
        }
    }

    /// The chunker of a file name or relative path.
    pub fn for_path(rel: &str) -> Chunker {
        Chunker::for_suffix(&crate::source::workspace::suffix_lower(
            crate::source::gitignore::path_name(rel),
        ))
    }

    /// Lower-case name (`markdown`, `python`, `json`, `config`).
    pub fn name(self) -> &'static str {
        match self {
            Chunker::Markdown => "markdown",
            Chunker::Python => "python",
            Chunker::Json => "json",
            Chunker::Config => "config",
        }
    }

    /// Splits `text` (see the functions of this module). `Err` only for a JSON file
    /// the reference cannot parse either in the paper profile (see [`chunk_json`]).
    ///
    /// Cost: linear in the text (the JSON chunker re-serializes the document).
    pub fn chunk(self, text: &str, profile: Profile) -> Result<Vec<String>, LoadsError> {
        let fixes = profile.fixes_bugs();
        let mut chunks = match self {
            Chunker::Markdown => chunk_markdown(text),
            Chunker::Python => chunk_python(text, fixes),
            Chunker::Json => match chunk_json(text) {
                Ok(c) => c,
                Err(_) if fixes => vec![text.to_string()],
                Err(e) => return Err(e),
            },
            Chunker::Config => chunk_config(text),
        };
        if fixes {
            for c in &mut chunks {
                let s = pystr::strip(c);
                if s.len() != c.len() {
                    *c = s.to_string();
                }
            }
        }
        Ok(chunks)
    }
}

/// Markdown chunker: if some line starts with `"## "` (exactly two `#` and a space),
/// one chunk per `## ` section (text before the first section is its own chunk,
/// `###` stays inside its section), each block's lines joined with `\n` and stripped,
/// empty blocks dropped; otherwise the text split on the literal `"\n\n"`, each part
/// stripped, empty parts dropped. If nothing remains, the whole text unchanged.
pub fn chunk_markdown(content: &str) -> Vec<String> {
    let lines = pystr::splitlines(content);
    if !lines.iter().any(|l| l.starts_with("## ")) {
        let parts: Vec<String> = content
            .split("\n\n")
            .map(pystr::strip)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        return if parts.is_empty() {
            vec![content.to_string()]
        } else {
            parts
        };
    }
    let mut chunks = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines {
        if line.starts_with("## ") && !current.is_empty() {
            push_block(&mut chunks, &current);
            current = vec![line];
        } else {
            current.push(line);
        }
    }
    push_block(&mut chunks, &current);
    if chunks.is_empty() {
        vec![content.to_string()]
    } else {
        chunks
    }
}

/// Appends `lines` joined with `\n` and stripped, if not empty; returns whether it did.
fn push_block(chunks: &mut Vec<String>, lines: &[&str]) -> bool {
    let joined = lines.join("\n");
    let s = pystr::strip(&joined);
    if s.is_empty() {
        return false;
    }
    chunks.push(s.to_string());
    true
}

/// Python `re.match(r"^\s*(def|class)\s+\w+", line)` (Unicode classes).
fn is_block_start(line: &str) -> bool {
    let rest = line.trim_start_matches(pystr::is_space);
    let Some(after) = rest
        .strip_prefix("def")
        .or_else(|| rest.strip_prefix("class"))
    else {
        return false;
    };
    let name = after.trim_start_matches(pystr::is_space);
    name.len() < after.len()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Python chunker: a line matching `^\s*(def|class)\s+\w+` (indentation allowed, so
/// methods start blocks too) closes the current block (joined, stripped, kept if not
/// empty) and starts a new one. No block start at all → [`chunk_markdown`].
/// `attach_decorators` (corrected profile, fix C1): `@` lines directly above a block
/// start move into the new block instead of ending the previous one.
pub fn chunk_python(content: &str, attach_decorators: bool) -> Vec<String> {
    let lines = pystr::splitlines(content);
    let mut chunks = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut saw_blocks = false;
    for line in lines {
        if is_block_start(line) {
            let mut decorators = Vec::new();
            if attach_decorators {
                while current
                    .last()
                    .is_some_and(|l| pystr::lstrip(l).starts_with('@'))
                {
                    decorators.push(current.pop().unwrap_or_default());
                }
                decorators.reverse();
            }
            push_block(&mut chunks, &current);
            current = decorators;
            current.push(line);
            saw_blocks = true;
            continue;
        }
        current.push(line);
    }
    push_block(&mut chunks, &current);
    if saw_blocks {
        chunks
    } else {
        chunk_markdown(content)
    }
}

/// Minimum length (code points) of a JSON or config file that gets split.
pub const MIN_SPLIT_CHARS: usize = 3200;

/// JSON chunker: the text parsed with Python's `json.loads`; if it is not valid JSON,
/// not an object, has at most one key, or is shorter than 3200 characters, the whole
/// text unchanged (not stripped). Otherwise one chunk per top-level key in document
/// order: `"<key>:\n" + json.dumps(value, indent=2, ensure_ascii=False)` (duplicate
/// keys keep the last value at the first position; floats re-printed as Python does,
/// e.g. `1e+20`).
///
/// Errors where the reference fails too (its parser raises something other than a
/// decode error: an integer of more than 4300 digits, nesting beyond the recursion
/// limit) and for lone surrogate escapes, which Rust strings cannot hold.
pub fn chunk_json(content: &str) -> Result<Vec<String>, LoadsError> {
    let payload = match pyjson::loads(content) {
        Ok(v) => v,
        Err(e) if e.kind == LoadsErrorKind::Decode => return Ok(vec![content.to_string()]),
        Err(e) => return Err(e),
    };
    let PyValue::Dict(d) = payload else {
        return Ok(vec![content.to_string()]);
    };
    if d.len() <= 1 || content.chars().count() < MIN_SPLIT_CHARS {
        return Ok(vec![content.to_string()]);
    }
    let style = Style::PRETTY.ensure_ascii(false);
    Ok(d.iter()
        .map(|(k, v)| {
            let body = pyjson::to_string_with(v, style).unwrap_or_default();
            format!("{k}:\n{body}")
        })
        .collect())
}

/// Whether a config line starts a chunk: `^\w[\w-]*\s*:` (and no leading space), or
/// the stripped line matches `^\[.+\]`.
fn is_config_boundary(line: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let is_key = {
        let mut chars = line.chars();
        match chars.next() {
            Some(c) if word(c) => {
                let rest = chars
                    .as_str()
                    .trim_start_matches(|c: char| word(c) || c == '-');
                rest.trim_start_matches(pystr::is_space).starts_with(':')
            }
            _ => false,
        }
    } && !line.starts_with(' ');
    let stripped = pystr::strip(line);
    let is_section = stripped.starts_with('[') && stripped.chars().skip(2).any(|c| c == ']');
    is_key || is_section
}

/// Config chunker (YAML, TOML, INI, CFG): shorter than 3200 characters or fewer than
/// 12 lines → the whole text unchanged. Otherwise a line that is a top-level key
/// (`^\w[\w-]*\s*:`) or a `[section]` closes the current block (joined, stripped, kept
/// if not empty — which records that a split happened) and starts the next; the tail
/// is flushed. No split at all → the whole text. TOML `key = value` lines do not split.
pub fn chunk_config(content: &str) -> Vec<String> {
    let lines = pystr::splitlines(content);
    if lines.len() < 12 || content.chars().count() < MIN_SPLIT_CHARS {
        return vec![content.to_string()];
    }
    let mut chunks = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut has_split = false;
    for line in lines {
        if is_config_boundary(line) && !current.is_empty() {
            if push_block(&mut chunks, &current) {
                has_split = true;
            }
            current.clear();
        }
        current.push(line);
    }
    push_block(&mut chunks, &current);
    if has_split {
        chunks
    } else {
        vec![content.to_string()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_sections_and_paragraphs() {
        let text = "# Title\nintro\n\n## A\na1\n### sub\na2\n\n## B\nb\n";
        assert_eq!(
            chunk_markdown(text),
            ["# Title\nintro", "## A\na1\n### sub\na2", "## B\nb"]
        );
        assert_eq!(chunk_markdown("p1\n\n\n\np2\n"), ["p1", "p2"]);
        assert_eq!(chunk_markdown("  \n"), ["  \n"]);
        assert_eq!(chunk_markdown(""), [""]);
        // a form feed is a line break in header mode only
        assert_eq!(chunk_markdown("## A\u{c}x"), ["## A\nx"]);
        assert_eq!(chunk_markdown("a\u{c}b"), ["a\u{c}b"]);
        assert_eq!(chunk_markdown("\u{feff}## BOM\nx"), ["\u{feff}## BOM\nx"]);
    }

    #[test]
    fn python_blocks_and_decorators() {
        let text = "import os\n\n@dec\ndef f():\n    pass\n\nclass C:\n    def m(self):\n        return 1\n";
        assert_eq!(
            chunk_python(text, false),
            [
                "import os\n\n@dec",
                "def f():\n    pass",
                "class C:",
                "def m(self):\n        return 1"
            ]
        );
        assert_eq!(
            chunk_python(text, true),
            [
                "import os",
                "@dec\ndef f():\n    pass",
                "class C:",
                "def m(self):\n        return 1"
            ]
        );
        assert_eq!(chunk_python("x = 1\n\ny = 2", false), ["x = 1", "y = 2"]);
        assert!(!is_block_start("define x"));
        assert!(!is_block_start("def (x)"));
        assert!(is_block_start("\tclass  Über:"));
    }

    #[test]
    fn json_small_or_split() {
        assert_eq!(chunk_json("{\"a\": 1}\n").unwrap(), ["{\"a\": 1}\n"]);
        assert_eq!(chunk_json("not json").unwrap(), ["not json"]);
        let big = format!(
            "{{\"k\": {{\"x\": 1e20, \"é\": [true, null]}}, \"pad\": \"{}\", \"k\": 2.50}}",
            "p".repeat(3200)
        );
        let chunks = chunk_json(&big).unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0], "k:\n2.5");
        assert!(chunks[1].starts_with("pad:\n\"ppp"));
        let nested = format!(
            "{{\"a\": {{\"x\": 1e20, \"é\": [true, null]}}, \"b\": \"{}\"}}",
            "q".repeat(3200)
        );
        assert_eq!(
            chunk_json(&nested).unwrap()[0],
            "a:\n{\n  \"x\": 1e+20,\n  \"é\": [\n    true,\n    null\n  ]\n}"
        );
    }

    #[test]
    fn config_boundaries() {
        assert!(is_config_boundary("name: x"));
        assert!(is_config_boundary("my-key  : x"));
        assert!(!is_config_boundary(" name: x"));
        assert!(!is_config_boundary("key = 1"));
        assert!(is_config_boundary("  [tool.x]  "));
        assert!(!is_config_boundary("[]"));
        assert!(is_config_boundary("[]]"));
        let mut text = String::from("# comment\n");
        for i in 0..12 {
            text.push_str(&format!("key{i}:\n  value: {}\n", "v".repeat(300)));
        }
        let chunks = chunk_config(&text);
        assert_eq!(chunks.len(), 13);
        assert_eq!(chunks[0], "# comment");
        assert!(chunks[1].starts_with("key0:\n  value: vvv"));
    }
}
