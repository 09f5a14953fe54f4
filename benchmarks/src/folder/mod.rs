//! `bench folder`: a question set on a real folder (issue 28, "A question set on a real
//! folder"). Brains are built from `--workspace` with the product's own code (the
//! corrected split of [`crabpath_brain::source::bootstrap::split_workspace`], then
//! [`crabpath_brain::service::init_store`], as `crabpath init`), every question is asked
//! through [`crabpath_brain::Brain::query`] in each arm of [`run::ARMS`] (today's default,
//! BM25 alone, hybrid seeds alone, the new default), and answers are scored by page
//! ([`score`]): success@1, success@5, success@10 and MRR. Plain page-level BM25
//! ([`crate::retrieval::Bm25`], one document per file) is the outside reference.
//!
//! The question set is data ([`questions`]): `benchmarks/data/folder-questions/`, with
//! the folder's repository and commit in its header. The result is a small JSON file and
//! a Markdown table, by default in `results/bench/folder/`.

pub mod questions;
pub mod replay;
pub mod rounds;
pub mod run;
pub mod score;

use std::path::PathBuf;

use clap::Args;

use crate::embed::{EmbedderArg, ModelOpts};
use crate::error::{Error, Result};

/// The folder and its question set (`bench folder`, `bench folder-rounds`).
#[derive(Debug, Args)]
pub struct FolderSet {
    /// The folder to build brains from (tldr-pages/tldr's `pages/` at 08e345f for the
    /// committed question set).
    #[arg(long, value_name = "DIR")]
    pub workspace: PathBuf,

    /// The question set (JSON: an `about` header and `questions`, each with the
    /// `acceptable` files, relative to the folder).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "benchmarks/data/folder-questions/tldr-08e345f.json"
    )]
    pub questions: PathBuf,
}

/// `bench folder`'s options.
#[derive(Debug, Args)]
pub struct FolderArgs {
    /// The folder and its questions.
    #[command(flatten)]
    pub set: FolderSet,

    /// An embedder to build a brain with (repeat for several) [default: hash-v1, and
    /// minilm when its model is present (`bench fetch-model` gets it)].
    #[arg(long = "embedder", value_enum, value_name = "NAME")]
    pub embedders: Vec<EmbedderArg>,

    /// Where the all-MiniLM-L6-v2 model and its embedding cache are.
    #[command(flatten)]
    pub model: ModelOpts,

    /// Seeds per query (as `crabpath query --top`).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,

    /// Node ids asked for per answer (as `crabpath query --limit`); pages are read from
    /// them in rank order.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,

    /// Scratch directory the brains are built in (one subdirectory per embedder,
    /// replaced) [default: a temporary directory, removed at the end].
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,

    /// Where to write the JSON result (default:
    /// `results/bench/folder/<question set name>.json`).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Where to write the Markdown table [default: the JSON result's path with `.md`].
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Do not draw progress bars.
    #[arg(long)]
    pub no_progress: bool,
}

/// The scratch directory brains are built in: `work` when given, else a new temporary
/// directory (returned too: it is removed when dropped).
pub(crate) fn scratch(
    work: Option<&std::path::Path>,
) -> Result<(PathBuf, Option<tempfile::TempDir>)> {
    match work {
        Some(w) => Ok((w.to_path_buf(), None)),
        None => {
            let t = tempfile::tempdir().map_err(|e| Error::io(&std::env::temp_dir(), e))?;
            Ok((t.path().to_path_buf(), Some(t)))
        }
    }
}

/// Runs `bench folder`: resolves the options, runs ([`run::run`]), writes the JSON
/// result and the Markdown table, and returns the table.
pub fn cmd_folder(a: &FolderArgs) -> Result<String> {
    if a.top == 0 || a.limit == 0 {
        return Err(Error::Usage(
            "--top and --limit: expected an integer >= 1, found 0".into(),
        ));
    }
    if !a.set.workspace.is_dir() {
        let found = if a.set.workspace.exists() {
            "something else"
        } else {
            "nothing"
        };
        return Err(Error::Usage(format!(
            "--workspace: expected a folder, found {found} at {}",
            a.set.workspace.display()
        )));
    }
    let embedders = if a.embedders.is_empty() {
        let dir = a.model.model_dir();
        match crabpath_embed::model::check_model_dir(&dir) {
            Ok(()) => vec![EmbedderArg::HashV1, EmbedderArg::Minilm],
            Err(_) => {
                eprintln!(
                    "bench folder: minilm left out: no model in {} (`bench fetch-model` gets it)",
                    dir.display()
                );
                vec![EmbedderArg::HashV1]
            }
        }
    } else {
        let mut v = a.embedders.clone();
        v.dedup();
        v
    };
    let stem = a
        .set
        .questions
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("folder")
        .to_string();
    let output = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("results/bench/folder").join(format!("{stem}.json")));
    let markdown = a
        .markdown
        .clone()
        .unwrap_or_else(|| output.with_extension("md"));
    for (opt, p) in [("--output", &output), ("--markdown", &markdown)] {
        pyformat::io::check_output(opt, p).map_err(|e| Error::Usage(e.to_string()))?;
    }
    let (work, _tmp) = scratch(a.work.as_deref())?;
    let plan = run::FolderPlan {
        workspace: a.set.workspace.clone(),
        questions: a.set.questions.clone(),
        embedders,
        model: a.model.clone(),
        top: a.top,
        limit: a.limit,
        work,
        progress: !a.no_progress,
    };
    let command = std::iter::once("bench".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let report = run::run(&plan, command)?;
    let table = run::markdown(&report);
    let json = serde_json::to_string_pretty(&report)
        .map_err(|e| Error::Internal(format!("the folder result as JSON: {e}")))?;
    for (p, bytes) in [(&output, json + "\n"), (&markdown, table.clone())] {
        if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
        }
        pyformat::io::write_atomic(p, bytes.as_bytes())
            .map_err(|e| Error::io(p, std::io::Error::other(e.to_string())))?;
    }
    Ok(table)
}
