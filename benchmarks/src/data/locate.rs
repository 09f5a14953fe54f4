//! Where dataset files are looked for.
//!
//! The data directory is, in order of precedence: the `--data-dir` flag, the environment
//! variable [`DATA_DIR_ENV`] (`CRABPATH_DATA_DIR`), or [`DEFAULT_DATA_DIR`] (`datasets`,
//! relative to the current directory). Inside it, files use the layout of the staged copy:
//! `hotpotqa/...` and `multihop_rag/...` (see [`crate::catalog`]). For a known file, the
//! candidates tried, in order, are `DIR/<rel_path>`, `DIR/<rel_path>.gz`, `DIR/<file name>`,
//! `DIR/<file name>.gz` (the last two allow a flat directory).
//!
//! `--input FILE` bypasses all this and names one file directly.

use std::path::{Path, PathBuf};

use crate::catalog::{self, KnownFile};
use crate::error::{Error, Result};

/// Environment variable naming the data directory.
pub const DATA_DIR_ENV: &str = "CRABPATH_DATA_DIR";
/// Data directory used when neither the flag nor the environment variable is set.
pub const DEFAULT_DATA_DIR: &str = "datasets";

/// Where the data directory setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataDirSource {
    /// `--data-dir`.
    Flag,
    /// `CRABPATH_DATA_DIR`.
    Env,
    /// The default `datasets`.
    Default,
}

/// A resolved data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    /// The directory.
    pub path: PathBuf,
    /// How it was chosen.
    pub source: DataDirSource,
}

impl DataDir {
    /// Resolves the data directory from the flag value, else the environment, else the
    /// default. An empty environment variable counts as unset.
    pub fn resolve(flag: Option<&Path>) -> DataDir {
        let env = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty());
        Self::resolve_with(flag, env.as_deref().map(Path::new))
    }

    /// [`DataDir::resolve`] with the environment value passed in (for tests).
    pub fn resolve_with(flag: Option<&Path>, env: Option<&Path>) -> DataDir {
        if let Some(p) = flag {
            DataDir {
                path: p.to_path_buf(),
                source: DataDirSource::Flag,
            }
        } else if let Some(p) = env {
            DataDir {
                path: p.to_path_buf(),
                source: DataDirSource::Env,
            }
        } else {
            DataDir {
                path: PathBuf::from(DEFAULT_DATA_DIR),
                source: DataDirSource::Default,
            }
        }
    }

    /// Human description, e.g. `datasets (default)`.
    pub fn describe(&self) -> String {
        let how = match self.source {
            DataDirSource::Flag => "from --data-dir",
            DataDirSource::Env => "from CRABPATH_DATA_DIR",
            DataDirSource::Default => "default",
        };
        format!("{} ({how})", self.path.display())
    }

    /// Canonical location of `file` (where `bench fetch` writes it).
    pub fn target(&self, file: &KnownFile) -> PathBuf {
        self.path.join(file.rel_path)
    }

    /// Every path tried for `file`, in order.
    pub fn candidates(&self, file: &KnownFile) -> Vec<PathBuf> {
        let rel = Path::new(file.rel_path);
        let name = rel.file_name().unwrap_or(rel.as_os_str());
        let mut out = vec![self.path.join(rel), self.path.join(with_gz(rel))];
        let flat = self.path.join(name);
        if flat != out[0] {
            out.push(flat.clone());
            out.push(with_gz(&flat));
        }
        out
    }

    /// First existing candidate for `file`, or [`Error::NotFound`] listing every path tried
    /// and how to obtain the file.
    pub fn locate(&self, file: &KnownFile) -> Result<PathBuf> {
        let tried = self.candidates(file);
        if let Some(p) = tried.iter().find(|p| p.is_file()) {
            return Ok(p.clone());
        }
        Err(Error::NotFound {
            what: format!("{} [{}]", file.description, file.key),
            tried,
            hint: self.hint_for(file),
        })
    }

    fn hint_for(&self, file: &KnownFile) -> String {
        let dir = self.path.display();
        let mut hint = if file.is_fetchable() {
            let ds = file.dataset.slug();
            format!(
                "Download it with `bench fetch --dataset {ds} --data-dir {dir}` \
                 (or datasets/fetch.sh), or name the file with --input FILE"
            )
        } else {
            "Staged subsets cannot be downloaded; point --data-dir or CRABPATH_DATA_DIR at the \
             staged copy (e.g. ../shared/datasets), or name the file with --input FILE"
                .to_string()
        };
        let others: Vec<&str> = catalog::ALL
            .iter()
            .filter(|f| f.dataset == file.dataset && f.key != file.key)
            .filter(|f| self.candidates(f).iter().any(|p| p.is_file()))
            .map(|f| f.key)
            .collect();
        if !others.is_empty() {
            hint.push_str(&format!(
                "; present in {dir}: {} (select with --variant)",
                others.join(", ")
            ));
        }
        hint.push('.');
        hint
    }
}

/// Resolves the file to read: `input` if given (it must exist), else `file` located in
/// `data_dir`.
pub fn resolve_input(
    input: Option<&Path>,
    data_dir: &DataDir,
    file: &KnownFile,
) -> Result<PathBuf> {
    match input {
        Some(p) if p.is_file() => Ok(p.to_path_buf()),
        Some(p) => Err(Error::NotFound {
            what: format!("input file for {}", file.dataset),
            tried: vec![p.to_path_buf()],
            hint: "Check the --input path.".to_string(),
        }),
        None => data_dir.locate(file),
    }
}

fn with_gz(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".gz");
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_flag_env_default() {
        let f = Path::new("/f");
        let e = Path::new("/e");
        assert_eq!(DataDir::resolve_with(Some(f), Some(e)).path, f);
        assert_eq!(
            DataDir::resolve_with(Some(f), Some(e)).source,
            DataDirSource::Flag
        );
        assert_eq!(
            DataDir::resolve_with(None, Some(e)).source,
            DataDirSource::Env
        );
        let d = DataDir::resolve_with(None, None);
        assert_eq!(d.path, Path::new("datasets"));
        assert_eq!(d.source, DataDirSource::Default);
    }

    #[test]
    fn candidates_cover_layout_gz_and_flat() {
        let d = DataDir::resolve_with(Some(Path::new("/d")), None);
        let c = d.candidates(&catalog::HOTPOTQA_FIRST103);
        let s: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            s,
            [
                "/d/hotpotqa/hotpot_dev_distractor_v1.first103.json",
                "/d/hotpotqa/hotpot_dev_distractor_v1.first103.json.gz",
                "/d/hotpot_dev_distractor_v1.first103.json",
                "/d/hotpot_dev_distractor_v1.first103.json.gz",
            ]
        );
    }
}
