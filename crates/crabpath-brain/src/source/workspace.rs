//! Walking a workspace: which files become part of a brain, in which order (reference
//! `crabpath/split.py::split_workspace`, its walk and `_should_skip_path`, commit
//! 134c676).
//!
//! # Rules (both profiles)
//! * The workspace path is `~`-expanded ([`expanduser`]). A missing path is
//!   [`Error::WorkspaceNotFound`].
//! * Depth: a file is included only if its relative path has at most `max_depth`
//!   (default 3) directory components (`a/b/c/f.md` yes, `a/b/c/d/f.md` no).
//! * Within a directory, files come first, sorted by name (code-point order, `UP.MD` <
//!   `big.json`), then the subdirectories are walked depth-first, pre-order. Symbolic
//!   links to directories are never entered; symbolic links to files count as files.
//!   Unreadable directories are skipped, and listed in [`field@Walk::unreadable`] (both
//!   profiles) with the entries that exist but cannot be examined: a sync keeps their
//!   nodes instead of counting them as deleted ([`crate::source::sync`]).
//! * A path is skipped if any component starts with `.` (hidden files and directories,
//!   `.git`), or if its name is one of the default excludes ([`DEFAULT_EXCLUDES`]:
//!   `node_modules`, `.git`, `__pycache__`, `.venv`, `venv`, `env`, `dist`, `build`,
//!   `.next`, `.cache`, `.tox`, `.mypy_cache`, `.pytest_cache`, `.ruff_cache`, `vendor`,
//!   `target`) or of [`SplitOptions::exclude`], or if `.gitignore` rules ignore it
//!   ([`crate::source::gitignore`]). A skipped directory is not entered.
//! * A file is a candidate if it is a regular file whose last suffix, lower-cased, is
//!   one of `.md .txt .py .json .yaml .yml .toml .cfg .ini .rst .html`
//!   ([`DEFAULT_EXTENSIONS`]; `README` without suffix is ignored, `UP.MD` included; no
//!   size limit).
//! * Files are read as UTF-8 text with universal newlines (`\r\n` and `\r` become `\n`;
//!   a byte-order mark is kept as U+FEFF).
//!
//! # Profiles
//! [`Profile::Paper`] reproduces the reference; [`Profile::Corrected`] fixes what a user
//! would trip over. Each fix, with its before → after on the committed fixture
//! workspace (`crates/crabpath/tests/fixtures/workspace`, test `workspace_fixture`):
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | W1 | subdirectories in the order the operating system lists them (`readdir`), so node order depends on the filesystem | sorted by name | ext4 creation order `zz, aa, mm` → ids `aa/…, mm/…, zz/…` |
//! | W2 | `.gitignore`: leading `/` drops the pattern's first character, leading dots are stripped, negations ignored, `*` crosses `/`, only the root file is read | git's rules ([`crate::source::gitignore::GitIgnore`]), nested `.gitignore` files included | `/ign.md` + `.env.md`: `ign.md` kept and `gn.md`, `env.md` excluded → `ign.md` excluded, `gn.md`, `env.md` kept; `/*.json` keeps `benchmarks/queries.json` in both, but also ignores top-level `*.json` |
//! | W3 | a file that is not UTF-8 aborts the whole bootstrap | the file is skipped and listed in [`Walk::skipped`] | `latin1.txt` → error vs. skipped |
//! | W4 | a file containing NUL bytes (binary) is indexed as text | skipped and listed | `nul.txt` → 1 node vs. skipped |
//! | W5 | a workspace that is a regular file gives an empty brain | [`Error::NotADirectory`] | 0 nodes vs. error |
//! | W6 | a file or directory whose name is not UTF-8: the reference indexes it under an id it cannot hash later | skipped and listed (paper: [`Error::NonUtf8Path`]) | |
//! | W7 | a symbolic link to a file outside the workspace is read (`ln -s /etc/passwd notes/passwd.txt` puts `/etc/passwd` into the brain) | links are resolved; a file outside the workspace is not read, and is listed with its target ([`SkipReason::OutsideWorkspace`]) | `passwd.txt` → 1 node vs. skipped |
//!
//! Chunking fixes (decorators, raw single chunks, `kind` metadata) are listed in
//! [`crate::source::chunk`].

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::source::gitignore::{fnmatch, path_name, GitIgnore, ReferenceIgnore};
pub use crate::source::text::{decode_text, read_text};
use crabpath::profile::Profile;
use pyformat::pystr;

/// Names pruned everywhere (reference `DEFAULT_EXCLUDES`).
pub const DEFAULT_EXCLUDES: [&str; 16] = [
    "node_modules",
    ".git",
    "__pycache__",
    ".venv",
    "venv",
    "env",
    "dist",
    "build",
    ".next",
    ".cache",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "vendor",
    "target",
];

/// Suffixes indexed by default (reference `SUPPORTED_FILE_EXTENSIONS`).
pub const DEFAULT_EXTENSIONS: [&str; 11] = [
    ".md", ".txt", ".py", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".rst", ".html",
];

/// Why a file was left out although it passed the walking rules (corrected profile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// Not valid UTF-8 (first undecodable byte offset).
    InvalidUtf8 {
        /// Byte offset.
        offset: usize,
    },
    /// Contains NUL bytes.
    Binary,
    /// The path is not valid UTF-8.
    NonUtf8Path,
    /// A JSON file that cannot be chunked (see [`Error::Json`]).
    Json(String),
    /// A directory that could not be listed.
    Unreadable(String),
    /// A file that could not be read (its nodes are kept by a sync).
    UnreadableFile(String),
    /// A symbolic link whose target is outside the workspace (corrected profile: not
    /// read).
    OutsideWorkspace(PathBuf),
    /// A file one of whose chunk ids (`<file>::<n>`) names a node that is not a chunk
    /// of it — a remembered turn or an injected node given that id — which a sync
    /// would overwrite (corrected profile: not synced, its nodes kept, like an
    /// unreadable file's).
    IdTaken(String),
}

impl std::fmt::Display for SkipReason {
    /// What the user reads after `skipped <file>: `.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::InvalidUtf8 { offset } => {
                write!(
                    f,
                    "not UTF-8 text (the byte at offset {offset} is not valid UTF-8)"
                )
            }
            SkipReason::Binary => f.write_str("a binary file (it contains NUL bytes)"),
            SkipReason::NonUtf8Path => f.write_str("its path is not valid UTF-8"),
            SkipReason::Json(m) => write!(f, "JSON that cannot be split: {m}"),
            SkipReason::Unreadable(m) => write!(f, "cannot be listed: {m}"),
            SkipReason::UnreadableFile(m) => write!(f, "cannot be read: {m}"),
            SkipReason::IdTaken(id) => write!(
                f,
                "not synced: its chunk id `{id}` names a node that is not part of it (a remembered turn or an injected node), which a sync never overwrites; its nodes were kept (rename the file, or forget that node)"
            ),
            SkipReason::OutsideWorkspace(t) => write!(
                f,
                "a symbolic link to {}, outside the workspace (not read)",
                t.display()
            ),
        }
    }
}

/// A file or directory left out, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Path relative to the workspace (lossy for non-UTF-8 names).
    pub rel: String,
    /// Why.
    pub reason: SkipReason,
}

/// Options of the walk and bootstrap (reference `split_workspace` keyword arguments;
/// the CLI uses the defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct SplitOptions {
    /// Semantics ([`Profile::Paper`] = the reference).
    pub profile: Profile,
    /// Maximum directory depth of an included file (default 3).
    pub max_depth: usize,
    /// Extra exclude patterns (reference `exclude`): a name, a `dir/` prefix, or a glob.
    pub exclude: Vec<String>,
    /// Suffixes to index (reference `file_extensions`; `None` = [`DEFAULT_EXTENSIONS`]).
    /// Each is lower-cased and given a leading `.` if missing.
    pub extensions: Option<Vec<String>>,
}

impl SplitOptions {
    /// The defaults of the reference CLI under a profile.
    pub fn new(profile: Profile) -> Self {
        SplitOptions {
            profile,
            max_depth: 3,
            exclude: Vec::new(),
            extensions: None,
        }
    }

    fn extension_set(&self) -> Vec<String> {
        let given: Vec<String> = self
            .extensions
            .iter()
            .flatten()
            .filter(|e| !e.is_empty())
            .map(|e| {
                let e = crabpath::embed::python_lower(e);
                if e.starts_with('.') {
                    e
                } else {
                    format!(".{e}")
                }
            })
            .collect();
        if given.is_empty() {
            DEFAULT_EXTENSIONS.iter().map(|s| s.to_string()).collect()
        } else {
            given
        }
    }

    fn exclude_set(&self) -> Vec<String> {
        let mut v: Vec<String> = DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect();
        for e in &self.exclude {
            let e = pystr::strip(e);
            if !e.is_empty() && !v.iter().any(|x| x == e) {
                v.push(e.to_string());
            }
        }
        v
    }
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions::new(Profile::Paper)
    }
}

/// One file to index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Absolute (or workspace-joined) path.
    pub path: PathBuf,
    /// POSIX path relative to the workspace: the prefix of the node ids.
    pub rel: String,
}

/// The outcome of [`walk`]: the files in bootstrap order, and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    /// Candidate files in the order their nodes are created.
    pub files: Vec<Candidate>,
    /// Files and directories left out for a reason a user should hear about (never
    /// filled in the paper profile, which errors or ignores as the reference does).
    pub skipped: Vec<Skipped>,
    /// Paths that exist but could not be read, in both profiles: a directory that
    /// cannot be listed (or was listed only in part; `""` is the workspace itself) and
    /// an entry whose type cannot be examined. What they hold is unknown, not gone.
    pub unreadable: Vec<Skipped>,
}

impl Walk {
    fn unreadable(&mut self, rel: &str, e: &std::io::Error, list_in_skipped: bool) {
        let s = Skipped {
            rel: rel.to_string(),
            reason: SkipReason::Unreadable(e.to_string()),
        };
        if list_in_skipped && !rel.is_empty() {
            self.skipped.push(s.clone());
        }
        self.unreadable.push(s);
    }
}

/// Whether the file `rel` (relative to the workspace) is under the unreadable path
/// `under` (the path itself, a file below it, or anything when `under` is `""`).
pub fn is_under(rel: &str, under: &str) -> bool {
    under.is_empty()
        || rel == under
        || rel
            .strip_prefix(under)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Python `os.path.expanduser` for the forms `~` and `~/...` (`$HOME`); other paths
/// are returned unchanged.
pub fn expanduser(path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    let Some(s) = path.to_str() else {
        return path.to_path_buf();
    };
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    if s == "~" {
        return home().unwrap_or_else(|| path.to_path_buf());
    }
    if let Some(rest) = s.strip_prefix("~/") {
        if let Some(h) = home() {
            return h.join(rest.trim_start_matches('/'));
        }
    }
    path.to_path_buf()
}

/// Lists the files of a workspace in bootstrap order (see the module docs).
///
/// Cost: one directory listing per directory within `max_depth`, one `stat` per entry;
/// no file is read (except `.gitignore` files).
pub fn walk(workspace: impl AsRef<Path>, options: &SplitOptions) -> Result<Walk> {
    let root = expanduser(workspace);
    if !root.exists() {
        return Err(Error::WorkspaceNotFound(root));
    }
    let fixes = options.profile.fixes_bugs();
    let mut out = Walk::default();
    if !root.is_dir() {
        if fixes {
            return Err(Error::NotADirectory(root));
        }
        return Ok(out);
    }
    let mut w = Walker {
        root_real: if fixes {
            Some(fs::canonicalize(&root).unwrap_or_else(|_| root.clone()))
        } else {
            None
        },
        fixes,
        max_depth: options.max_depth,
        excludes: options.exclude_set(),
        extensions: options.extension_set(),
        reference: if fixes {
            ReferenceIgnore::default()
        } else {
            ReferenceIgnore::load(&root)?
        },
        git: GitIgnore::new(&root),
    };
    w.visit(&root, "", false, 0, &mut out)?;
    Ok(out)
}

struct Walker {
    /// The workspace with its links resolved (corrected: files must resolve inside it).
    root_real: Option<PathBuf>,
    fixes: bool,
    max_depth: usize,
    excludes: Vec<String>,
    extensions: Vec<String>,
    reference: ReferenceIgnore,
    git: GitIgnore,
}

/// One directory entry: its name (lossy) and whether the name was valid UTF-8.
struct Entry {
    name: String,
    os_name: std::ffi::OsString,
    utf8: bool,
}

impl Walker {
    /// Reference `_should_skip_path` for a relative path (dirs and files).
    fn skip(&self, rel: &str, is_dir: bool) -> bool {
        if rel.is_empty() {
            return false;
        }
        if rel.split('/').any(|part| part.starts_with('.')) {
            return true;
        }
        let normalized_owned = rel.replace('\\', "/");
        let normalized = normalized_owned.trim_start_matches(['.', '/']);
        let name = path_name(rel);
        for pattern in &self.excludes {
            if name == pattern {
                return true;
            }
            if let Some(prefix) = pattern.strip_suffix('/') {
                if normalized == prefix || normalized.starts_with(pattern.as_str()) {
                    return true;
                }
                continue;
            }
            if pattern.contains('*') || pattern.contains('/') {
                if fnmatch(normalized, pattern) || fnmatch(name, pattern) {
                    return true;
                }
                continue;
            }
            if fnmatch(name, pattern) || normalized == pattern {
                return true;
            }
        }
        if self.fixes {
            self.git.matches(rel, is_dir)
        } else {
            self.reference.matches(normalized)
        }
    }

    fn visit(
        &mut self,
        dir: &Path,
        rel_dir: &str,
        rel_non_utf8: bool,
        depth: usize,
        out: &mut Walk,
    ) -> Result<()> {
        let listing = match fs::read_dir(dir) {
            Ok(l) => l,
            Err(e) => {
                out.unreadable(rel_dir, &e, self.fixes);
                return Ok(());
            }
        };
        let git_depth = self.git.len();
        if self.fixes {
            self.git.enter(rel_dir);
        }
        let mut dirs: Vec<Entry> = Vec::new();
        let mut files: Vec<Entry> = Vec::new();
        let join = |name: &str| {
            if rel_dir.is_empty() {
                name.to_string()
            } else {
                format!("{rel_dir}/{name}")
            }
        };
        for entry in listing {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    // listed in part: what the rest holds is unknown
                    out.unreadable(rel_dir, &e, self.fixes);
                    continue;
                }
            };
            let os_name = entry.file_name();
            let (name, utf8) = match os_name.to_str() {
                Some(s) => (s.to_string(), true),
                None => (os_name.to_string_lossy().into_owned(), false),
            };
            // os.walk: `entry.is_dir()` follows symbolic links; errors count as "not a
            // dir". An error other than a dangling link (a directory without search
            // permission) leaves the entry unknown, not gone.
            let is_dir = match fs::metadata(entry.path()) {
                Ok(m) => m.is_dir(),
                Err(e) => {
                    let rel = join(&name);
                    if e.kind() != std::io::ErrorKind::NotFound && !self.skip(&rel, false) {
                        out.unreadable(&rel, &e, self.fixes);
                    }
                    false
                }
            };
            let e = Entry {
                name,
                os_name,
                utf8,
            };
            if is_dir {
                dirs.push(e);
            } else {
                files.push(e);
            }
        }
        if depth > self.max_depth {
            self.git.truncate(git_depth);
            return Ok(());
        }
        if depth == self.max_depth {
            dirs.clear();
        }
        dirs.retain(|d| !self.skip(&join(&d.name), true));
        if self.fixes {
            dirs.sort_by(|a, b| a.name.cmp(&b.name));
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        for f in &files {
            let rel = join(&f.name);
            let path = dir.join(&f.os_name);
            if !path.is_file() || !self.extensions.contains(&suffix_lower(&f.name)) {
                continue;
            }
            if self.skip(&rel, false) {
                continue;
            }
            if let Some(root) = &self.root_real {
                // W7: what a link resolves to must be inside the workspace
                let real = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if !real.starts_with(root) {
                    out.skipped.push(Skipped {
                        rel,
                        reason: SkipReason::OutsideWorkspace(real),
                    });
                    continue;
                }
            }
            if !f.utf8 || rel_non_utf8 {
                if self.fixes {
                    out.skipped.push(Skipped {
                        rel,
                        reason: SkipReason::NonUtf8Path,
                    });
                    continue;
                }
                return Err(Error::NonUtf8Path(path));
            }
            out.files.push(Candidate { path, rel });
        }
        for d in &dirs {
            let path = dir.join(&d.os_name);
            // os.walk never enters a symbolic link to a directory
            if fs::symlink_metadata(&path)
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(true)
            {
                continue;
            }
            let rel = join(&d.name);
            self.visit(&path, &rel, rel_non_utf8 || !d.utf8, depth + 1, out)?;
        }
        self.git.truncate(git_depth);
        Ok(())
    }
}

/// Python `PurePath(name).suffix.lower()`: the last suffix (`""` for `README`, `.md`,
/// or a name ending in `.`), lower-cased.
pub fn suffix_lower(name: &str) -> String {
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() => crabpath::embed::python_lower(&name[i..]),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_rules_follow_pathlib() {
        assert_eq!(suffix_lower("a.MD"), ".md");
        assert_eq!(suffix_lower("a.tar.Json"), ".json");
        assert_eq!(suffix_lower("README"), "");
        assert_eq!(suffix_lower(".md"), "");
        assert_eq!(suffix_lower("x."), "");
    }

    #[test]
    fn expanduser_expands_home_only() {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if let Some(h) = home {
            assert_eq!(expanduser("~/x/y"), h.join("x/y"));
            assert_eq!(expanduser("~"), h);
        }
        assert_eq!(expanduser("a/~"), PathBuf::from("a/~"));
        assert_eq!(expanduser("~other/x"), PathBuf::from("~other/x"));
    }
}
