//! Rendered files held in memory: writing them, and checking committed copies
//! byte for byte.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// One output file: its path and its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// Where the file belongs.
    pub path: PathBuf,
    /// Its contents.
    pub bytes: Vec<u8>,
}

impl Artifact {
    /// A new artefact.
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// A directory whose files of the given extensions are all produced by this crate:
/// a file there that the current inputs do not produce is stale.
#[derive(Debug, Clone)]
pub struct Managed {
    /// The directory (searched recursively).
    pub dir: PathBuf,
    /// File extensions owned by the report (e.g. `png`, `svg`, `csv`).
    pub extensions: &'static [&'static str],
}

/// Why a committed file does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// Expected but absent.
    Missing(PathBuf),
    /// Present with different bytes.
    Differs(PathBuf),
    /// Present in a managed directory but no longer produced.
    Orphan(PathBuf),
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stale::Missing(p) => write!(f, "missing: {}", p.display()),
            Stale::Differs(p) => write!(f, "stale (differs from a fresh render): {}", p.display()),
            Stale::Orphan(p) => write!(
                f,
                "orphan (not produced from the current results): {}",
                p.display()
            ),
        }
    }
}

/// Files under the managed directories with a managed extension, sorted.
fn managed_files(managed: &[Managed]) -> BTreeSet<PathBuf> {
    fn walk(dir: &Path, exts: &[&str], out: &mut BTreeSet<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, exts, out);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x))
            {
                out.insert(p);
            }
        }
    }
    let mut out = BTreeSet::new();
    for m in managed {
        walk(&m.dir, m.extensions, &mut out);
    }
    out
}

/// Writes every artefact whose bytes changed and removes orphans in the managed
/// directories. Returns (written, unchanged, removed) counts.
pub fn write_all(arts: &[Artifact], managed: &[Managed]) -> Result<(usize, usize, usize)> {
    let (mut written, mut same) = (0, 0);
    for a in arts {
        if fs::read(&a.path).is_ok_and(|old| old == a.bytes) {
            same += 1;
            continue;
        }
        if let Some(dir) = a.path.parent() {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        pyformat::io::write_atomic(&a.path, &a.bytes)
            .with_context(|| format!("writing {}", a.path.display()))?;
        written += 1;
    }
    let produced: BTreeSet<&Path> = arts.iter().map(|a| a.path.as_path()).collect();
    let mut removed = 0;
    for p in managed_files(managed) {
        if !produced.contains(p.as_path()) {
            fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            removed += 1;
        }
    }
    Ok((written, same, removed))
}

/// Compares every artefact with the file on disk, and lists managed files that are
/// not produced. Empty when everything is up to date.
pub fn check(arts: &[Artifact], managed: &[Managed]) -> Vec<Stale> {
    let mut out = Vec::new();
    for a in arts {
        match fs::read(&a.path) {
            Ok(old) if old == a.bytes => {}
            Ok(_) => out.push(Stale::Differs(a.path.clone())),
            Err(_) => out.push(Stale::Missing(a.path.clone())),
        }
    }
    let produced: BTreeSet<&Path> = arts.iter().map(|a| a.path.as_path()).collect();
    for p in managed_files(managed) {
        if !produced.contains(p.as_path()) {
            out.push(Stale::Orphan(p));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_check_then_detect_changes() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("figs");
        let managed = [Managed {
            dir: d.clone(),
            extensions: &["png"],
        }];
        let arts = vec![Artifact::new(d.join("a/x.png"), b"one".to_vec())];
        assert_eq!(
            check(&arts, &managed),
            vec![Stale::Missing(d.join("a/x.png"))]
        );
        assert_eq!(write_all(&arts, &managed).unwrap(), (1, 0, 0));
        assert!(check(&arts, &managed).is_empty());
        assert_eq!(write_all(&arts, &managed).unwrap(), (0, 1, 0));
        fs::write(d.join("a/x.png"), b"two").unwrap();
        fs::write(d.join("old.png"), b"").unwrap();
        fs::write(d.join("keep.txt"), b"").unwrap();
        assert_eq!(
            check(&arts, &managed),
            vec![
                Stale::Differs(d.join("a/x.png")),
                Stale::Orphan(d.join("old.png"))
            ]
        );
        assert_eq!(write_all(&arts, &managed).unwrap(), (1, 0, 1));
        assert!(d.join("keep.txt").exists());
        assert!(check(&arts, &managed).is_empty());
    }
}
