//! `crabpath init` (reference `crabpath/cli.py::cmd_init`): split the folder, replay
//! session logs, embed; then [`crabpath_brain::service::init_store`] (a brain
//! database, corrected profile) or [`crabpath_brain::service::init_reference`] (the
//! reference's four files, paper profile).

use crabpath::graph::Metadata;
use crabpath_brain::service::{init_reference, init_store};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::replay::{replay_journal_event, replay_queries, ReplayOptions};
use crabpath_brain::source::session::{collect_queries, Interaction};
use crabpath_brain::source::sync::{file_records, SYNC_FILES_KEY, WORKSPACE_KEY};
use crabpath_brain::source::workspace::{expanduser, SplitOptions};
use crabpath_brain::Error;

use crate::args::InitArgs;
use crate::context::{choose_embedder, pathlib_str, Ctx};
use crate::embedding::with_embedding;
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
    if let Some(file) = &a.conversation {
        return super::conversation::init(ctx, a, &expanduser(file), &dir);
    }
    let workspace = expanduser(a.workspace.as_deref().unwrap_or_default());
    // corrected: check the inputs before anything is written
    if ctx.fixes() && !workspace.is_dir() {
        let e = if workspace.exists() {
            Error::NotADirectory(workspace)
        } else {
            Error::WorkspaceNotFound(workspace)
        };
        return Err(CliError::Other(e.into()));
    }
    let which = choose_embedder(ctx, a.embedder, &Metadata::new(), &dir)?;
    std::fs::create_dir_all(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let boot = match split_workspace(&workspace, &SplitOptions::new(ctx.profile)) {
        Ok(b) => b,
        Err(e @ Error::WorkspaceNotFound(_)) if !ctx.fixes() => {
            return reference(format!("FileNotFoundError: {e}"));
        }
        Err(e) => return Err(e.into()),
    };
    for s in &boot.skipped {
        eprintln!("crabpath: skipped {}: {}", s.rel, s.reason);
    }
    let mut graph = boot.graph;
    let (mut episodes, mut journal) = (Vec::new(), Vec::new());
    if let Some(sessions) = &a.sessions {
        let queries = match collect_queries(&[sessions], ctx.profile) {
            Ok(q) => q,
            Err(e @ Error::SessionsPath(_)) => return reference(e.to_string()),
            Err(e) => return Err(CliError::Other(e.into())),
        };
        let records: Vec<Interaction> = queries.into_iter().map(Interaction::query).collect();
        let stats = replay_queries(
            &mut graph,
            &records,
            &ReplayOptions::new(ctx.profile),
            &mut |_, _| {},
            ctx.fixes().then_some(&mut episodes),
        )?;
        if ctx.fixes() {
            // the learning on top of the init graph, as a `replay` entry forget's replay
            // repeats (before, nothing was journaled and a forget rebuilt the weights
            // without it)
            journal.push(crabpath_brain::reference::journal::stamp(
                replay_journal_event(&stats, Some(&episodes)),
                pyformat::pytime::time_time(),
            ));
        }
    }
    if !ctx.fixes() {
        let report = with_embedding(ctx, which, &graph, "texts", |o| {
            init_reference(&dir, &graph, o)
        })?;
        if a.json {
            let files = report.files.expect("the reference's files");
            let payload = out::dict([
                ("graph", out::s(&pathlib_str(&files.graph))),
                ("texts", out::s(&pathlib_str(&files.texts))),
            ]);
            out::println(&out::compact(&payload));
        }
        return Ok(0);
    }
    let mut extra = Metadata::new();
    extra.insert(
        SYNC_FILES_KEY.into(),
        file_records(&workspace, boot.files.iter().map(|f| f.rel.as_str())),
    );
    // the folder `sync` keeps to (another needs --rebase)
    let built_from = std::fs::canonicalize(&workspace).unwrap_or(workspace);
    extra.insert(
        WORKSPACE_KEY.into(),
        built_from.to_string_lossy().into_owned().into(),
    );
    let report = with_embedding(ctx, which, &graph, "texts", |o| {
        init_store(&dir, &graph, o, extra, std::mem::take(&mut journal))
    })?;
    if let Some(on) = a.neurogenesis {
        let mut brain = ctx.open(crabpath_brain::locate(&report.path), true)?;
        brain.set_neurogenesis(on)?;
    }
    super::exchange::say_kept(&report, "init", &dir);
    crate::embedding::say_defaults(which, &dir);
    if a.json {
        let payload = out::dict([
            ("brain", out::s(&pathlib_str(&report.path))),
            ("nodes", out::count(report.nodes)),
            ("edges", out::count(report.edges)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        eprintln!(
            "crabpath: brain {} written: {} nodes, {} edges",
            pathlib_str(&report.path),
            report.nodes,
            report.edges
        );
    }
    Ok(0)
}
