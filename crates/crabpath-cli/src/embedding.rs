//! Progress bars for long work (embedding, replaying), shown when a person is watching,
//! and the embedding step `init` shares between folders and conversations.

use crabpath::graph::Graph;
use crabpath_brain::service::InitOptions;
use indicatif::{ProgressBar, ProgressStyle};

use crate::context::{Ctx, Which};
use crate::error::CliResult;

/// A progress bar on stderr (hidden unless `show`).
pub fn bar(len: usize, what: &str, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// Embeds the node texts of `graph` with `which` for `write` (`init_store` or
/// `init_reference`): says `Embedding <n> <noun> (<embedder>, dim=<d>)` on stderr and
/// shows a progress bar past 256 texts on a terminal.
pub fn with_embedding<T>(
    ctx: &Ctx,
    which: Which,
    graph: &Graph,
    noun: &str,
    write: impl FnOnce(&InitOptions<'_>) -> crabpath_brain::Result<T>,
) -> CliResult<T> {
    let n = graph.node_count();
    let info = which.info();
    eprintln!("Embedding {n} {noun} ({}, dim={})", info.name, info.dim);
    let embedder = which.load()?;
    let pb = bar(n, "embedding", ctx.progress() && n > 256);
    let progress = |k: usize| pb.set_position(k as u64);
    let options = InitOptions {
        embedder: embedder.as_ref(),
        info,
        parallel: which == Which::Hash,
        progress: Some(&progress),
    };
    let r = write(&options)?;
    pb.finish_and_clear();
    Ok(r)
}

/// Says on stderr what a new brain of the corrected profile answers with (issue 28, item
/// 7): its embedder, the seeding its queries default to
/// ([`crabpath_brain::service::Seeding::default_for`]) and, for hash-v1 (the one that
/// needs nothing downloaded), that a retrieval-trained model answers natural questions
/// better, and the two commands that switch the brain to it, keeping what it learned.
pub fn say_defaults(which: Which, dir: &std::path::Path) {
    let info = which.info();
    let seeding = crabpath_brain::service::Seeding::default_for(
        crabpath::profile::Profile::Corrected,
        true,
        which == Which::Hash,
    );
    eprintln!(
        "crabpath: embedder {} (dim={}); queries are seeded by {seeding} search, then traverse the graph (`query --seeding` to choose)",
        info.name, info.dim
    );
    if which == Which::Hash {
        eprintln!(
            "crabpath: hash-v1 needs nothing downloaded; a retrieval-trained model finds more for questions in your own words (README, \"What a query returns\"): crabpath fetch-model --model minilm && crabpath reembed --state {} --embedder minilm",
            dir.display()
        );
    }
}
