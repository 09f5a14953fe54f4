//! The one report writer of `bench`: every protocol ([`crate::protocol::Protocol`]) hands
//! its document — a type of the `results` crate — and the files beside it to [`write()`],
//! which writes them atomically in the protocol's [`Format`], the files first and the
//! document last (so that a report never names a file that is not there).
//!
//! The parts every `bench run` report shares are built here once ([`Frame`]): the head
//! (what was run on what and the graph it built), the configuration, the method notes,
//! the manifest's hashes, the provenance and the timings; a protocol fills in its own
//! sections and the optional fields it records.
//!
//! [`ENVIRONMENT_FIELDS`] lists, exactly, the key paths of a `bench run` report that
//! describe the machine and the moment rather than the result; every other field is
//! deterministic.

use std::path::{Path, PathBuf};
use std::process::Command;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use results::bench::{
    Configuration, DatasetFile, EmbedderId, Evaluation, EvaluationScope, Manifest, Provenance,
    Report, Seeds,
};
use results::Slot;

use crate::catalog::Dataset;
use crate::engine::{GraphStats, Inputs, Timings};
use crate::error::{Error, Result};
use crate::methods::Method;
use crate::plan::Plan;

/// Key paths of a report that describe the machine and the moment, not the result; `bench
/// check` compares every other field exactly.
///
/// * `timings_s`, `embedding_stats`: wall-clock times, and how many vectors came from the
///   embedding cache;
/// * `provenance.program`, `provenance.git_commit`, `provenance.git_dirty`: the code that
///   wrote the file (a later commit must reproduce the same numbers);
/// * `provenance.dataset.file`, `provenance.dataset.file_sha256`: the dataset file's name
///   and bytes, which differ between a plain and a gzip copy of the same content (its
///   content checksum, `provenance.dataset.content_sha256`, is compared).
pub const ENVIRONMENT_FIELDS: [&str; 7] = [
    "timings_s",
    "embedding_stats",
    "provenance.program",
    "provenance.git_commit",
    "provenance.git_dirty",
    "provenance.dataset.file",
    "provenance.dataset.file_sha256",
];

/// How a document is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Indented JSON (`serde_json`'s pretty printer) and a final newline.
    Pretty,
    /// One line and a final newline, every non-integer number rounded to `decimals`
    /// decimals: for documents read by programs whose many small arrays would double in
    /// size indented (the held-out reports; every number there is a mean of at most a few
    /// thousand values in [0, 1] or a p-value).
    CompactRounded {
        /// Decimals kept.
        decimals: i32,
    },
    /// Python's `json.dumps(indent=2)` ([`pyformat::pyjson`]), no final newline: the
    /// reference program's own format (`bench repo`).
    Python,
}

/// A file written beside a document (a run file, the qrels, a graph).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sidecar {
    /// Where (absolute, or relative to the current directory).
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A document ready to be written: what [`crate::protocol::Protocol::report`] returns.
#[derive(Debug, Clone)]
pub struct Written<D> {
    /// The document.
    pub document: D,
    /// Where it goes.
    pub path: PathBuf,
    /// How it is written.
    pub format: Format,
    /// Files written before it.
    pub files: Vec<Sidecar>,
}

/// Writes `w`: its files, then its document (each atomically, directories created); returns
/// the document as written (rounded, for [`Format::CompactRounded`]).
pub fn write<D: Serialize>(w: &Written<D>) -> Result<Value> {
    for f in &w.files {
        save(&f.path, &f.bytes)?;
    }
    let internal =
        |e: &dyn std::fmt::Display| Error::Internal(format!("serialising the report: {e}"));
    let mut value = serde_json::to_value(&w.document).map_err(|e| internal(&e))?;
    let text = match w.format {
        Format::Pretty => {
            let mut t = serde_json::to_string_pretty(&value).map_err(|e| internal(&e))?;
            t.push('\n');
            t
        }
        Format::CompactRounded { decimals } => {
            round_floats(&mut value, 10f64.powi(decimals));
            let mut t = serde_json::to_string(&value).map_err(|e| internal(&e))?;
            t.push('\n');
            t
        }
        Format::Python => {
            pyformat::pyjson::to_string_with(&w.document, pyformat::pyjson::Style::PRETTY)
                .map_err(|e| internal(&e))?
        }
    };
    save(&w.path, text.as_bytes())?;
    Ok(value)
}

/// Rounds every non-integer number of `v` to `1 / scale`.
fn round_floats(v: &mut Value, scale: f64) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64() {
                *v = Value::from((x * scale).round() / scale);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| round_floats(x, scale)),
        Value::Object(o) => o.values_mut().for_each(|x| round_floats(x, scale)),
        _ => {}
    }
}

/// Writes `bytes` to `path` with the workspace's atomic write
/// (`pyformat::io::write_atomic`: temporary file, fsync, rename), creating the directory
/// first.
pub fn save(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    pyformat::io::write_atomic(path, bytes).map_err(|e| match e {
        pyformat::Error::Io { path, source } => Error::Io { path, source },
        other => Error::Internal(format!("writing {}: {other}", path.display())),
    })
}

/// SHA-256 of the items, each followed by a newline (`printf '%s\n' ... | sha256sum`).
pub fn lines_sha256<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for s in items {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// Output of `git <args>` run in the workspace this program was built from; `None` when
/// git or the repository is not there.
fn git(args: &[&str]) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The program that writes a report, the commit it was built from and whether that work
/// tree had changes (`provenance.program`, `git_commit`, `git_dirty`).
pub fn program_provenance() -> (String, Option<String>, Option<bool>) {
    (
        concat!("bench ", env!("CARGO_PKG_VERSION")).to_string(),
        git(&["rev-parse", "HEAD"]),
        git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
    )
}

/// Each method's one-line description, in run order (`method_notes`).
pub fn method_notes<'a>(methods: impl Iterator<Item = &'a Method>) -> IndexMap<String, String> {
    methods
        .map(|m| (m.name.to_string(), m.about.to_string()))
        .collect()
}

/// The `evaluation` block of a stream (`paper`, `clean`, the official protocol): the
/// schedule's name, how many steps learned, how many were scored, and `scope`.
pub fn evaluation(
    plan: &Plan,
    learned: usize,
    scored: usize,
    scope: EvaluationScope,
) -> Evaluation {
    Evaluation {
        mode: plan.schedule.name().to_string(),
        learned_from_queries: learned,
        scored_queries: scored,
        scope,
    }
}

/// What every `bench run` report records besides its protocol's sections (see the module
/// docs): the plan, the rows, the embedder and the graph a run used.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// The embedder and the rows.
    pub inputs: &'a Inputs,
    /// Name, dimension and weights of the embedder.
    pub embedder: &'a EmbedderId,
    /// The graph's size.
    pub graph: crate::engine::GraphStats,
}

impl Frame<'_> {
    /// The report of `sections`: the head, the configuration (the command line and the
    /// core's traversal and learning configurations), the methods' notes, the manifest's
    /// row and document hashes and the provenance (no seeds); every optional field unset
    /// for the protocol to fill in.
    pub fn report<S>(&self, sections: S, methods: &[&Method]) -> Report<S> {
        let (plan, data) = (self.plan, &self.inputs.data);
        let corpus = &data.corpus;
        let GraphStats {
            nodes,
            edges,
            set_by_labels,
        } = self.graph;
        let ds: Dataset = data.ds;
        let (program, git_commit, git_dirty) = program_provenance();
        Report {
            dataset: ds.reference_name().to_string(),
            dataset_queries: corpus.queries.len(),
            protocol: plan.args.protocol.as_str().to_string(),
            graph_builder: plan.builder.name().to_string(),
            embedder: self.embedder.id.clone(),
            core_profile: plan.profile.as_str().to_string(),
            graph_nodes: nodes,
            graph_edges: edges,
            graph_edges_set_by_labels: set_by_labels,
            protocol_note: None,
            parameters: None,
            configuration: Configuration {
                command: plan.command_line(data.recognised, &data.file_name()),
                dense_search: None,
                traversal: plan.traversal.clone(),
                learning: plan.learning.clone(),
                pg_call: None,
                router: None,
            },
            sections,
            metric_notes: None,
            method_notes: method_notes(methods.iter().copied()),
            files: Slot::Absent,
            manifest: Manifest {
                about: None,
                dataset_file: Slot::Absent,
                dataset_sha256: Slot::Absent,
                queries: corpus.queries.len(),
                query_ids_file: None,
                query_ids_sha256: lines_sha256(corpus.queries.iter().map(|q| q.qid.as_str())),
                scored_query_ids_sha256: None,
                tested_query_ids_sha256: None,
                documents: corpus.nodes.len(),
                document_ids_sha256: lines_sha256(corpus.node_ids()),
            },
            provenance: Provenance {
                program,
                git_commit,
                git_dirty,
                dataset: DatasetFile {
                    known_file: data.recognised.map(|f| f.key.to_string()),
                    file: data.file_name(),
                    file_sha256: data.file_sha.clone(),
                    content_sha256: data.content_sha.clone(),
                },
                embedder: self.embedder.clone(),
                seeds: None,
            },
            timings_s: None,
            embedding_stats: None,
        }
    }

    /// The dataset file and its checksum as `datasets/SHA256SUMS` records them, for the
    /// manifest (`null` for a file it does not list).
    pub fn dataset_file(&self) -> (Slot<String>, Slot<String>) {
        let known = self.inputs.data.recognised;
        (
            Slot::written(known.map(|f| f.rel_path.to_string())),
            Slot::written(known.and_then(|f| f.sha256()).map(str::to_string)),
        )
    }

    /// The report's seeds: the bootstrap's, and the held-out designs'.
    pub fn seeds(&self, splits: Option<u64>, dev: Option<u64>) -> Option<Seeds> {
        Some(Seeds {
            bootstrap: self.plan.args.stats.bootstrap_seed,
            splits,
            dev,
        })
    }
}

/// The timings of a run, `total` ticked now: `None` with `--no-timings`.
pub fn timings(
    mut timings: Timings,
    started: std::time::Instant,
    no_timings: bool,
) -> Option<IndexMap<String, f64>> {
    timings.tick("total", started);
    (!no_timings).then(|| timings.to_map())
}

/// A table of methods' values: a header of `first` and the `cols`, then a row per method,
/// values to 4 decimals in columns `width` wide (`NaN` for a missing value).
pub fn method_table<'a>(
    first: &str,
    rows: impl Iterator<Item = (&'a str, Vec<Option<f64>>)>,
    cols: &[&str],
    width: usize,
) -> String {
    let mut s = format!("{first:<22}");
    for c in cols {
        s.push_str(&format!("{c:>width$}"));
    }
    s.push('\n');
    for (m, vals) in rows {
        s.push_str(&format!("{m:<22}"));
        for x in vals {
            let x = x.unwrap_or(f64::NAN);
            s.push_str(&format!("{x:>width$.4}"));
        }
        s.push('\n');
    }
    s
}

/// A one-screen table of methods' means (printed by `bench run`).
pub fn means_table(method_metrics: &IndexMap<String, results::bench::Means>) -> String {
    let cols = [
        "recall_at_5",
        "recall_at_10",
        "full_support_at_10",
        "mrr",
        "ndcg_at_10",
        "nodes_fired",
    ];
    method_table(
        "method",
        method_metrics.iter().map(|(m, v)| {
            (
                m.as_str(),
                cols.iter().map(|c| v.get(*c).copied()).collect(),
            )
        }),
        &cols,
        20,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_integers_and_rounds_floats() {
        let mut v = serde_json::json!({"a": 1, "b": 0.123_456_789, "c": [2.0, 1e-9], "d": null});
        round_floats(&mut v, 1e6);
        assert_eq!(
            v.to_string(),
            r#"{"a":1,"b":0.123457,"c":[2.0,0.0],"d":null}"#
        );
    }

    #[test]
    fn line_hashes_match_sha256sum() {
        // printf 'a\nb\n' | sha256sum
        assert_eq!(
            lines_sha256(["a", "b"].into_iter()),
            "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2"
        );
    }
}
