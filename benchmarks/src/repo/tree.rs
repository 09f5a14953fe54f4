//! The git tree hash of a workspace directory, and the repository commits the paper's
//! repository benchmark was run on.
//!
//! The reference benchmark's corpus is the reference repository itself at some commit,
//! so "which data" is "which tree". [`tree_hash`] computes git's object id of a
//! directory's content the way `git write-tree` would for the same files (blobs hashed as
//! `blob <len>\0<bytes>`, modes `100644` / `100755` / `120000` / `40000`, entries sorted
//! by name with directories compared as `name/`, empty directories absent), skipping
//! every entry named `.git`. For a clean checkout of a commit it equals
//! `git rev-parse <commit>^{tree}`; any extra, missing or edited file changes it. It needs
//! no git installation and works on `git archive` copies too.

use std::fs;
use std::path::Path;

use sha1::{Digest, Sha1};

use super::error::{RepoError, Result};

/// A commit of the reference repository (`jonathangu/crabpath`) used as a benchmark
/// workspace, with what a paper-profile split of its tree gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownWorkspace {
    /// Full commit id.
    pub commit: &'static str,
    /// `git rev-parse <commit>^{tree}`.
    pub tree: &'static str,
    /// Nodes, edges and files of the paper-profile split of the tree.
    pub split: (usize, usize, usize),
    /// Why it matters.
    pub role: &'static str,
}

/// Upstream repository of the reference program.
pub const REPOSITORY: &str = "https://github.com/jonathangu/crabpath";

/// `datasets/crabpath-repo/trees.tsv`: the one list of the commits the repository
/// benchmark runs on (also read by `datasets/crabpath-repo/fetch.sh`).
const TREES_TSV: &str = include_str!("../../../datasets/crabpath-repo/trees.tsv");

/// The commits of `datasets/crabpath-repo/trees.tsv` (seed 002 Tables 24/25 were
/// measured at 70f0065; 134c676 is v11.2.1). Malformed lines are skipped (a test checks
/// there are none).
pub fn known_workspaces() -> Vec<KnownWorkspace> {
    TREES_TSV
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let f: Vec<&'static str> = l.split('\t').collect();
            let n = |i: usize| f.get(i).and_then(|x| x.parse().ok());
            Some(KnownWorkspace {
                commit: f.first()?,
                tree: f.get(1)?,
                split: (n(2)?, n(3)?, n(4)?),
                role: f.get(5)?,
            })
        })
        .collect()
}

/// The known workspace whose commit starts with `prefix` (at least 7 hex digits) or
/// whose tree is `prefix`.
pub fn known(prefix: &str) -> Option<KnownWorkspace> {
    let p = prefix.to_ascii_lowercase();
    known_workspaces()
        .into_iter()
        .find(|k| (p.len() >= 7 && k.commit.starts_with(&p)) || k.tree == p)
}

fn io(path: &Path, e: std::io::Error) -> RepoError {
    RepoError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn object_id(kind: &str, body: &[u8]) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(format!("{kind} {}\0", body.len()).as_bytes());
    h.update(body);
    h.finalize().into()
}

/// `Some((mode, id))` of a directory's tree, `None` for a directory without files.
fn hash_dir(dir: &Path) -> Result<Option<[u8; 20]>> {
    let mut entries: Vec<(Vec<u8>, &'static str, [u8; 20])> = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let e = e.map_err(|e| io(dir, e))?;
        let name = e.file_name();
        if name == ".git" {
            continue;
        }
        let path = e.path();
        let meta = fs::symlink_metadata(&path).map_err(|e| io(&path, e))?;
        let name = name.as_encoded_bytes().to_vec();
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&path).map_err(|e| io(&path, e))?;
            let id = object_id("blob", target.as_os_str().as_encoded_bytes());
            entries.push((name, "120000", id));
        } else if meta.is_dir() {
            if let Some(id) = hash_dir(&path)? {
                entries.push((name, "40000", id));
            }
        } else if meta.is_file() {
            let bytes = fs::read(&path).map_err(|e| io(&path, e))?;
            #[cfg(unix)]
            let exec = {
                use std::os::unix::fs::PermissionsExt;
                meta.permissions().mode() & 0o100 != 0
            };
            #[cfg(not(unix))]
            let exec = false;
            let mode = if exec { "100755" } else { "100644" };
            entries.push((name, mode, object_id("blob", &bytes)));
        }
    }
    if entries.is_empty() {
        return Ok(None);
    }
    let sort_key = |(name, mode, _): &(Vec<u8>, &str, [u8; 20])| {
        let mut k = name.clone();
        if *mode == "40000" {
            k.push(b'/');
        }
        k
    };
    entries.sort_by_key(sort_key);
    let mut body = Vec::new();
    for (name, mode, id) in &entries {
        body.extend_from_slice(mode.as_bytes());
        body.push(b' ');
        body.extend_from_slice(name);
        body.push(0);
        body.extend_from_slice(id);
    }
    Ok(Some(object_id("tree", &body)))
}

/// The git tree hash of `dir` (see the module docs), as 40 hex digits.
///
/// Cost: reads every file under `dir` once.
pub fn tree_hash(dir: &Path) -> Result<String> {
    Ok(hex::encode(
        hash_dir(dir)?.unwrap_or_else(|| object_id("tree", b"")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_git_objects() {
        let t = tempfile::tempdir().unwrap();
        // the empty tree of git
        assert_eq!(
            tree_hash(t.path()).unwrap(),
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        );
        fs::write(t.path().join("hello.txt"), "hello\n").unwrap();
        fs::create_dir_all(t.path().join("a/.git")).unwrap();
        fs::write(t.path().join("a/.git/HEAD"), "x").unwrap();
        fs::write(t.path().join("a/b.md"), "b").unwrap();
        fs::write(t.path().join("a.md"), "").unwrap();
        fs::create_dir(t.path().join("empty")).unwrap();
        // `git add -A && git write-tree` on the same files without `a/.git` (git 2.47): "a.md" sorts
        // before "a/" because '.' < '/'.
        assert_eq!(
            tree_hash(t.path()).unwrap(),
            "10b8ecaeb050f349b123906ff504fc060d2f2506"
        );
    }

    #[test]
    fn known_commits_by_prefix() {
        let lines = TREES_TSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(
            known_workspaces().len(),
            lines,
            "every line of trees.tsv parses"
        );
        assert_eq!(known("70f0065").map(|k| k.split), Some((806, 1436, 88)));
        assert_eq!(known("134C676").map(|k| k.split), Some((1067, 1912, 111)));
        assert!(known("134c6").is_none());
        assert!(known("ce15ad457fb4d24969567147f8ba92a4d78d7566").is_some());
    }
}
