//! `crabpath init --conversation FILE` (issue 28, item 1): a brain database whose
//! nodes are the turns of a conversation ([`crabpath_brain::source::conversation`]), written by
//! the folder `init`'s path ([`crabpath_brain::service::init_store`]). The file is
//! read and checked whole before anything is created or replaced.

use std::path::Path;

use crabpath::graph::Metadata;
use crabpath_brain::service::init_store;
use crabpath_brain::source::conversation::{build_graph, read_jsonl, CONVERSATION, SOURCE_KEY};

use crate::args::InitArgs;
use crate::context::{choose_embedder, pathlib_str, Ctx};
use crate::error::{CliError, CliResult};
use crate::out;

/// Builds the brain of conversation `file` in `dir` (see the module docs).
pub fn init(ctx: &Ctx, a: &InitArgs, file: &Path, dir: &Path) -> CliResult {
    if !ctx.fixes() {
        return Err(CliError::Other(anyhow::anyhow!(
            "--conversation builds a brain database: it needs the corrected profile (the paper profile's init reads folders only)"
        )));
    }
    // every line checked before anything is created or replaced
    let turns = read_jsonl(file)?;
    let built = build_graph(&turns)?;
    let graph = built.graph;
    let which = choose_embedder(ctx, a.embedder, &Metadata::new(), dir)?;
    let info = which.info();
    let mut extra = Metadata::new();
    extra.insert(SOURCE_KEY.into(), CONVERSATION.into());
    let report = crate::embedding::with_embedding(ctx, which, &graph, "turns", |o| {
        init_store(dir, &graph, o, extra, Vec::new())
    })?;
    super::exchange::say_kept(&report, "init", dir);
    crate::embedding::say_defaults(which, dir);
    if a.json {
        let payload = out::dict([
            ("brain", out::s(&pathlib_str(&report.path))),
            ("nodes", out::count(report.nodes)),
            ("edges", out::count(report.edges)),
            ("sessions", out::count(built.sessions)),
            ("embedder", out::s(&info.name)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        eprintln!(
            "crabpath: conversation brain {} written: {} turns in {} sessions, {} edges (session chains and links between turns of different sessions that share rare words), embedder {} (dim={})",
            pathlib_str(&report.path),
            report.nodes,
            built.sessions,
            report.edges,
            info.name,
            info.dim
        );
    }
    Ok(0)
}
