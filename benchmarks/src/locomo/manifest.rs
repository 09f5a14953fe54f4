//! What a LoCoMo report records of the file it read and of the ids it scored: its
//! `manifest` and its `provenance`, the same for the ablation protocol
//! ([`super::protocol`]) and the product's headline row ([`super::headline`]), so both
//! name the release file, hash the query and document ids and record the program and
//! its seeds one way (`duplicates` found the two filled by hand alike).

use std::path::{Path, PathBuf};
use std::time::Instant;

use results::bench::{DatasetFile, EmbedderId, Manifest, Provenance, Seeds};
use results::Slot;

use super::data::{load, Locomo};
use crate::catalog::{self, KnownFile};
use crate::data::locate::resolve_input;
use crate::engine::file_and_content_sha256;
use crate::error::Result;
use crate::protocol::Env;
use crate::report::{self, lines_sha256};

/// The LoCoMo file a run read, as both protocols' inputs hold it.
#[derive(Debug, Clone)]
pub struct ReadFile {
    /// The known release file it is (by content), if any.
    pub recognised: Option<&'static KnownFile>,
    /// The file read.
    pub path: PathBuf,
    /// SHA-256 of its bytes.
    pub file_sha: String,
    /// SHA-256 of its content.
    pub content_sha: String,
}

impl ReadFile {
    /// Reads the LoCoMo file of a run (`--input`, or `file` in the data directory):
    /// its hashes, the release file it is, its conversations; timed as `load`.
    pub fn read(
        input: Option<&Path>,
        file: &KnownFile,
        env: &mut Env,
    ) -> Result<(ReadFile, Locomo)> {
        let t = Instant::now();
        let path = resolve_input(input, env.data_dir, file)?;
        let (file_sha, content_sha) = file_and_content_sha256(&path)?;
        let data = load(&path)?;
        env.timings.tick("load", t);
        let read = ReadFile {
            recognised: catalog::by_sha256(&content_sha),
            path,
            file_sha,
            content_sha,
        };
        Ok((read, data))
    }
}

/// The ids a report scored: every query, those scored (when not all), every document.
#[derive(Debug, Clone, Copy)]
pub struct ScoredIds<'a, Q: AsRef<str>> {
    /// How to read the ids.
    pub about: &'a str,
    /// Every query id, in order.
    pub queries: &'a [Q],
    /// The scored query ids, when they are not all of them.
    pub scored: Option<&'a [Q]>,
    /// Every document (turn) id.
    pub documents: &'a [String],
}

/// The report's `manifest`: the release file as `datasets/SHA256SUMS` names it, and
/// the SHA-256 of the query, scored and document ids ([`lines_sha256`]).
pub fn manifest<Q: AsRef<str>>(file: &ReadFile, ids: ScoredIds<'_, Q>) -> Manifest {
    let sha = |q: &[Q]| lines_sha256(q.iter().map(AsRef::as_ref));
    Manifest {
        about: Some(ids.about.to_string()),
        dataset_file: Slot::written(file.recognised.map(|f| f.rel_path.to_string())),
        dataset_sha256: Slot::written(file.recognised.and_then(|f| f.sha256()).map(str::to_string)),
        queries: ids.queries.len(),
        query_ids_file: None,
        query_ids_sha256: sha(ids.queries),
        scored_query_ids_sha256: ids.scored.map(sha),
        tested_query_ids_sha256: None,
        documents: ids.documents.len(),
        document_ids_sha256: lines_sha256(ids.documents.iter().map(String::as_str)),
    }
}

/// The report's `provenance`: this program and its commit, the file read, the
/// embedder, the seeds.
pub fn provenance(file: &ReadFile, embedder: EmbedderId, seeds: Seeds) -> Provenance {
    let (program, git_commit, git_dirty) = report::program_provenance();
    Provenance {
        program,
        git_commit,
        git_dirty,
        dataset: DatasetFile {
            known_file: file.recognised.map(|f| f.key.to_string()),
            file: file_name(&file.path),
            file_sha256: file.file_sha.clone(),
            content_sha256: file.content_sha.clone(),
        },
        embedder,
        seeds: Some(seeds),
    }
}

/// The last component of `path` (empty if none).
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}
