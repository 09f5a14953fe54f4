//! `crabpath maintain` (reference `crabpath/cli.py::cmd_maintain`,
//! `maintain.py::run_maintenance`).

use crabpath_brain::service::command::autotune::changes_text;
use crabpath_brain::service::command::maintain::{
    parse_tasks, Flavor, MaintainOptions, MaintainReport,
};
use pyformat::pyjson::{PyDict, PyInt, PyValue};

use crate::args::MaintainArgs;
use crate::context::{choose_embedder, Ctx};
use crate::error::CliResult;
use crate::out;

pub fn run(ctx: &Ctx, a: &MaintainArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let loc = crabpath_brain::locate(&ctx.state_path(&a.state, false));
    let mut brain = ctx.open(loc, true)?;
    let meta = brain.embedder_meta()?;
    let requested = parse_tasks(&a.tasks, true);
    // corrected: the connect task embeds nodes without a vector, and a saved merge
    // embeds the merged node, with the state's embedder
    let needs_embedder = requested
        .iter()
        .any(|t| t == "connect" || (t == "merge" && !a.dry_run));
    let embedder = if ctx.fixes() && needs_embedder {
        Some(choose_embedder(ctx, None, &meta, brain.path())?.load()?)
    } else {
        None
    };
    let report = brain.maintain(&MaintainOptions {
        requested,
        dry_run: a.dry_run,
        max_merges: a.max_merges,
        prune_below: a.prune_below,
        flavor: Flavor::Cli,
        journal: true,
        embedder: embedder.as_deref(),
    })?;
    if a.json {
        out::println(&out::pretty(&cli_report(&report)));
    } else {
        let tasks = if report.tasks_run.is_empty() {
            "(none)".to_string()
        } else {
            report.tasks_run.join(", ")
        };
        let mut text = format!(
            "Maintenance report:\n  tasks: {tasks}\n  nodes: {} -> {}\n  edges: {} -> {}\n  merges: {}/{}\n  pruned: edges={} nodes={}\n  decay_applied: {}\n  dry_run: {}",
            report.health_before.nodes,
            report.health_after.nodes,
            report.edges_before,
            report.edges_after,
            report.merges_applied,
            report.merges_proposed,
            report.pruned_edges,
            report.pruned_nodes,
            out::py_bool(report.decay_applied),
            out::py_bool(a.dry_run),
        );
        if !report.notes.is_empty() {
            text.push_str(&format!("\n  notes: {}", report.notes.join(", ")));
        }
        if let Some(step) = &report.autotune {
            text.push_str(&format!("\n  autotune: {}", changes_text(step).join("; ")));
            if let Some(name) = &report.autotune_snapshot {
                text.push_str(&format!(" (snapshot {name} first: `rollback` undoes it)"));
            }
        }
        if let Some(auto) = &report.neurogenesis {
            text.push_str(&format!("\n  auto nodes: {}", auto.counts_text()));
        }
        out::println(&text);
    }
    Ok(0)
}

/// The command line's report (`asdict(MaintenanceReport)` key order).
fn cli_report(r: &MaintainReport) -> PyDict {
    let c = |n: usize| PyValue::Int(PyInt::from(n as i64));
    let mut d = out::dict([
        ("health_before", PyValue::Dict(r.health_before.to_dict())),
        ("health_after", PyValue::Dict(r.health_after.to_dict())),
        ("tasks_run", out::strs(r.tasks_run.iter().copied())),
        ("decay_applied", PyValue::Bool(r.decay_applied)),
        ("edges_before", c(r.edges_before)),
        ("edges_after", c(r.edges_after)),
        ("merges_proposed", c(r.merges_proposed)),
        ("merges_applied", c(r.merges_applied)),
        ("pruned_edges", c(r.pruned_edges)),
        ("pruned_nodes", c(r.pruned_nodes)),
        ("notes", out::strs(r.notes.iter().map(String::as_str))),
    ]);
    if let Some(step) = r.autotune_dict() {
        d.insert("autotune".into(), PyValue::Dict(step));
    }
    if let Some(auto) = &r.neurogenesis {
        d.insert("neurogenesis".into(), PyValue::Dict(auto.to_dict()));
    }
    d
}
