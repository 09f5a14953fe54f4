//! `crabpath init` (reference `crabpath/cli.py::cmd_init`).

use crabpath::graph::Metadata;
use crabpath::VectorIndex;
use crabpath_brain::bootstrap::split_workspace;
use crabpath_brain::reffiles::write_init;
use crabpath_brain::replay::{replay_queries, ReplayOptions};
use crabpath_brain::session::{collect_queries, Interaction};
use crabpath_brain::workspace::{expanduser, SplitOptions};
use crabpath_brain::Error;

use crate::args::InitArgs;
use crate::context::{choose_embedder, pathlib_str, Ctx};
use crate::embedding::embed_all;
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &InitArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let output = expanduser(&a.output);
    let dir = if output.extension().is_some_and(|e| e == "json") && !output.is_dir() {
        match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        }
    } else {
        output
    };
    let workspace = expanduser(&a.workspace);
    // corrected: check the inputs before anything is written
    if ctx.fixes() && !workspace.is_dir() {
        let e = if workspace.exists() {
            Error::NotADirectory(workspace)
        } else {
            Error::WorkspaceNotFound(workspace)
        };
        return Err(CliError::Other(e.into()));
    }
    let which = choose_embedder(ctx, a.embedder, &Metadata::new())?;
    std::fs::create_dir_all(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let boot = match split_workspace(&workspace, &SplitOptions::new(ctx.profile)) {
        Ok(b) => b,
        Err(e @ Error::WorkspaceNotFound(_)) if !ctx.fixes() => {
            return reference(format!("FileNotFoundError: {e}"));
        }
        Err(e) => return Err(e.into()),
    };
    for s in &boot.skipped {
        eprintln!("crabpath: skipped {}: {:?}", s.rel, s.reason);
    }
    let mut graph = boot.graph;
    if let Some(sessions) = &a.sessions {
        let queries = match collect_queries(&[sessions], ctx.profile) {
            Ok(q) => q,
            Err(e @ Error::SessionsPath(_)) => return reference(e.to_string()),
            Err(e) => return Err(CliError::Other(e.into())),
        };
        let records: Vec<Interaction> = queries.into_iter().map(Interaction::query).collect();
        replay_queries(
            &mut graph,
            &records,
            &ReplayOptions::new(ctx.profile),
            &mut |_, _| {},
        )?;
    }
    let info = which.info();
    let texts: Vec<(String, String)> = graph
        .nodes()
        .map(|(_, n)| (n.id.clone(), n.content.clone()))
        .collect();
    eprintln!(
        "Embedding {} texts ({}, dim={})",
        texts.len(),
        info.name,
        info.dim
    );
    let embedder = which.load()?;
    let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
    let vectors = embed_all(embedder.as_ref(), which, &refs, ctx.progress())?;
    let mut index = VectorIndex::new();
    for ((id, _), v) in texts.iter().zip(vectors) {
        index.upsert(id, v)?;
    }
    let state_path = dir.join("state.json");
    let _lock = ctx.lock(&state_path)?;
    pyformat::io::keep_backup(&state_path)?;
    let files = write_init(&dir, &graph, &index, &info)?;
    if a.json {
        let payload = out::dict([
            ("graph", out::s(&pathlib_str(&files.graph))),
            ("texts", out::s(&pathlib_str(&files.texts))),
        ]);
        out::println(&out::compact(&payload));
    }
    Ok(0)
}
