//! `crabpath sync` (reference `crabpath/cli.py::cmd_sync`, `sync.py::sync_workspace`).

use crabpath_brain::source::sync::{SyncGuard, SyncReport};
use crabpath_brain::source::workspace::expanduser;
use pyformat::pyjson::{PyDict, PyValue};

use crate::args::SyncArgs;
use crate::context::{choose_embedder, pathlib_str, Ctx};
use crate::embedding::bar;
use crate::error::{reference, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &SyncArgs) -> CliResult {
    let map = crate::values::authority_map(ctx, a.authority_map.as_deref())?;
    let path = ctx.state_path(&a.state, false);
    let mut brain = ctx.open(crabpath_brain::locate(&path), true)?;
    let meta = brain.embedder_meta()?;
    let which = choose_embedder(ctx, a.embedder, &meta, brain.path())?;
    brain.set_embedder(which.loader());
    let workspace = expanduser(&a.workspace);
    let pb = bar(0, "embedding", ctx.progress());
    let mut on_embed = |n: usize| pb.set_length(n as u64);
    let state_display = pathlib_str(&expanduser(&a.state));
    let workspace_display = pathlib_str(&workspace);
    let event = |r: &SyncReport| {
        let mut event = PyDict::new();
        event.insert("type".into(), out::s("sync"));
        event.insert("state_path".into(), out::s(&state_display));
        event.insert("workspace_dir".into(), out::s(&workspace_display));
        event.extend(report_fields(r));
        event
    };
    let guard = SyncGuard {
        rebase: a.rebase,
        allow_mass_delete: a.allow_mass_delete,
    };
    let report = match brain.sync(
        &workspace,
        map,
        a.dry_run,
        Some(&mut on_embed),
        &event,
        guard,
    ) {
        Ok(r) => r,
        Err(e @ crabpath_brain::Error::WorkspaceNotFound(_)) if !ctx.fixes() => {
            return reference(format!("FileNotFoundError: {e}"));
        }
        Err(e) => return Err(e.into()),
    };
    pb.finish_and_clear();
    if let Some(name) = &report.snapshot {
        eprintln!(
            "crabpath: snapshot {name} taken before the sync (undo: crabpath rollback --to {name})"
        );
    }
    for s in &report.skipped {
        eprintln!("crabpath: skipped {}: {}", s.rel, s.reason);
    }
    if !ctx.fixes() {
        // the corrected profile lists them with the skipped files
        for s in &report.unreadable {
            eprintln!("crabpath: skipped {}: {}", display_rel(&s.rel), s.reason);
        }
    }
    let partial = !report.unreadable.is_empty();
    let mut fields = report_fields(&report);
    if ctx.fixes() {
        fields.insert("files_resplit".into(), out::count(report.files_resplit));
        fields.insert("files_unchanged".into(), out::count(report.files_unchanged));
        fields.insert("files_deleted".into(), out::count(report.files_deleted));
    }
    if ctx.fixes() || partial {
        // counted apart from the deleted files (paper: only when there are some)
        fields.insert(
            "paths_unreadable".into(),
            out::count(report.unreadable.len()),
        );
    }
    if a.json {
        out::println(&out::pretty(&fields));
    } else {
        let mut line = format!(
            "sync report: +{}/~{} -{} ={} unchanged | {} embeddings",
            report.nodes_added,
            report.nodes_updated,
            report.nodes_removed,
            report.nodes_unchanged,
            report.embeddings_computed
        );
        if ctx.fixes() {
            line.push_str(&format!(
                " | files: {} re-split, {} unchanged, {} deleted",
                report.files_resplit, report.files_unchanged, report.files_deleted
            ));
        }
        if partial {
            line.push_str(&format!(
                " | {} unreadable (nodes kept)",
                report.unreadable.len()
            ));
        }
        out::println(&line);
    }
    if partial {
        let names: Vec<String> = report
            .unreadable
            .iter()
            .map(|s| display_rel(&s.rel))
            .collect();
        eprintln!(
            "crabpath: partial sync: {} path{} could not be read ({}): the nodes of the files there were kept, none deleted",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        );
        return Ok(PARTIAL);
    }
    Ok(0)
}

/// The exit status of a sync that could not read every path (documented in `sync
/// --help`): the brain was updated with the rest, and the unread paths kept their nodes.
pub const PARTIAL: u8 = 3;

/// A relative path as printed: `.` for the workspace itself.
fn display_rel(rel: &str) -> String {
    if rel.is_empty() {
        ".".into()
    } else {
        rel.to_string()
    }
}

/// The report's fields, in the reference's order (`asdict(SyncReport)`).
fn report_fields(report: &SyncReport) -> PyDict {
    let authority: PyDict = report
        .authority_set
        .iter()
        .map(|(k, n)| (k.clone(), out::count(*n)))
        .collect();
    out::dict([
        ("nodes_added", out::count(report.nodes_added)),
        ("nodes_updated", out::count(report.nodes_updated)),
        ("nodes_removed", out::count(report.nodes_removed)),
        ("nodes_unchanged", out::count(report.nodes_unchanged)),
        (
            "embeddings_computed",
            out::count(report.embeddings_computed),
        ),
        ("authority_set", PyValue::Dict(authority)),
    ])
}
