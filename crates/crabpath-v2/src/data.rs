//! The seed-000 experiment inputs: where they are and that they are the published bytes.
//!
//! The eight graphs and scenario files (`crabpath-v2/<name>.graph.json`,
//! `crabpath-v2/<name>.scenario.jsonl`) are datasets: never committed, found in the data
//! directory, which is the first of
//!
//! 1. an explicit directory (a `--data-dir` flag),
//! 2. the environment variable `CRABPATH_DATA_DIR`,
//! 3. `datasets` (relative to the current directory) if it holds `crabpath-v2/`,
//! 4. `../shared/datasets`.
//!
//! Every file is verified against its SHA-256 in the repository's
//! `datasets/SHA256SUMS` (embedded at compile time, the one home of the checksums)
//! before it is parsed.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::io::{parse_graph, parse_scenarios, Scenario};

/// Environment variable naming the data directory.
pub const DATA_DIR_ENV: &str = "CRABPATH_DATA_DIR";

/// The repository's checksum list (`datasets/SHA256SUMS`).
const SHA256SUMS: &str = include_str!("../../../datasets/SHA256SUMS");

/// The eight seed-000 experiments, in the order of the paper's Tables 3 and 7 (the five
/// Table-3 rows, then giraffe_test, forbidden_door and deploy_pipeline).
pub const EXPERIMENTS: [&str; 8] = [
    "context_bloat",
    "gate_bloat",
    "stale_context",
    "negation",
    "procedure",
    "giraffe_test",
    "forbidden_door",
    "deploy_pipeline",
];

/// Resolves the data directory: `flag`, else `$CRABPATH_DATA_DIR` (if non-empty), else
/// `datasets` when it holds `crabpath-v2/`, else `../shared/datasets`.
pub fn resolve_data_dir(flag: Option<&Path>) -> PathBuf {
    let env = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty());
    resolve_with(flag, env.as_deref().map(Path::new), Path::new("."))
}

/// [`resolve_data_dir`] with the environment value and the working directory passed in.
pub fn resolve_with(flag: Option<&Path>, env: Option<&Path>, cwd: &Path) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    if let Some(p) = env {
        return p.to_path_buf();
    }
    if cwd.join("datasets").join("crabpath-v2").is_dir() {
        return PathBuf::from("datasets");
    }
    PathBuf::from("../shared/datasets")
}

/// The recorded SHA-256 (hex) of `rel` (a path relative to the data directory, e.g.
/// `crabpath-v2/negation.graph.json`), if any.
pub fn checksum(rel: &str) -> Option<&'static str> {
    SHA256SUMS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once("  "))
        .find(|(_, name)| name.trim() == rel)
        .map(|(hash, _)| hash.trim())
}

/// Reads `dir/rel` and checks it against its recorded SHA-256; a file with no recorded
/// checksum is an error too (only published inputs are read through here).
pub fn read_verified(dir: &Path, rel: &str) -> Result<String> {
    let path = dir.join(rel);
    let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::MissingData {
            path: path.clone(),
            hint: format!(
                "point --data-dir or {DATA_DIR_ENV} at a directory holding crabpath-v2/ \
                 (the staged copy is ../shared/datasets)"
            ),
        },
        _ => Error::io(&path, e),
    })?;
    let expected = checksum(rel).ok_or_else(|| {
        Error::Invalid(format!("{rel}: no SHA-256 recorded in datasets/SHA256SUMS"))
    })?;
    let got = hex::encode(Sha256::digest(&bytes));
    if got != expected {
        return Err(Error::Checksum {
            path,
            expected: expected.to_string(),
            got,
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))
}

/// One experiment's verified inputs.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// The experiment name (file stem, e.g. `negation`).
    pub name: String,
    /// Its graph.
    pub graph: Graph,
    /// Its scenario episodes.
    pub scenarios: Vec<Scenario>,
}

/// Loads experiment `name` (one of [`EXPERIMENTS`]) from the data directory `dir`.
pub fn load_experiment(dir: &Path, name: &str) -> Result<Experiment> {
    let g_rel = format!("crabpath-v2/{name}.graph.json");
    let s_rel = format!("crabpath-v2/{name}.scenario.jsonl");
    let graph = parse_graph(&read_verified(dir, &g_rel)?, &dir.join(&g_rel))?;
    let scenarios = parse_scenarios(&read_verified(dir, &s_rel)?, &dir.join(&s_rel))?;
    Ok(Experiment {
        name: name.to_string(),
        graph,
        scenarios,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_experiment_has_both_checksums() {
        for name in EXPERIMENTS {
            for ext in ["graph.json", "scenario.jsonl"] {
                let rel = format!("crabpath-v2/{name}.{ext}");
                let h = checksum(&rel).unwrap_or_else(|| panic!("{rel} missing"));
                assert_eq!(h.len(), 64, "{rel}");
            }
        }
    }

    #[test]
    fn precedence_flag_env_local_shared() {
        let tmp = tempfile::tempdir().unwrap();
        let (f, e) = (Path::new("/f"), Path::new("/e"));
        assert_eq!(resolve_with(Some(f), Some(e), tmp.path()), f);
        assert_eq!(resolve_with(None, Some(e), tmp.path()), e);
        assert_eq!(
            resolve_with(None, None, tmp.path()),
            Path::new("../shared/datasets")
        );
        std::fs::create_dir_all(tmp.path().join("datasets/crabpath-v2")).unwrap();
        assert_eq!(resolve_with(None, None, tmp.path()), Path::new("datasets"));
    }

    #[test]
    fn tampered_or_missing_file_is_a_typed_error() {
        let tmp = tempfile::tempdir().unwrap();
        let e = load_experiment(tmp.path(), "negation").unwrap_err();
        assert!(matches!(e, Error::MissingData { .. }), "{e}");
        std::fs::create_dir_all(tmp.path().join("crabpath-v2")).unwrap();
        std::fs::write(
            tmp.path().join("crabpath-v2/negation.graph.json"),
            "{\"nodes\": []}",
        )
        .unwrap();
        let e = load_experiment(tmp.path(), "negation").unwrap_err();
        assert!(matches!(e, Error::Checksum { .. }), "{e}");
    }
}
