//! `crabpath sync` (reference `crabpath/cli.py::cmd_sync`, `sync.py::sync_workspace`).

use crabpath_brain::sync::SyncReport;
use crabpath_brain::workspace::expanduser;
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
    let report = match brain.sync(&workspace, map, a.dry_run, Some(&mut on_embed), &event) {
        Ok(r) => r,
        Err(e @ crabpath_brain::Error::WorkspaceNotFound(_)) if !ctx.fixes() => {
            return reference(format!("FileNotFoundError: {e}"));
        }
        Err(e) => return Err(e.into()),
    };
    pb.finish_and_clear();
    for s in &report.skipped {
        eprintln!("crabpath: skipped {}: {}", s.rel, s.reason);
    }
    let mut fields = report_fields(&report);
    if ctx.fixes() {
        fields.insert("files_resplit".into(), out::count(report.files_resplit));
        fields.insert("files_unchanged".into(), out::count(report.files_unchanged));
        fields.insert("files_deleted".into(), out::count(report.files_deleted));
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
        out::println(&line);
    }
    Ok(0)
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
