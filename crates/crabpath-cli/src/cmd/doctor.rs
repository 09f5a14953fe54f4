//! `crabpath doctor` (reference `crabpath/cli.py::cmd_doctor`).

use crabpath_brain::reference::reffiles::read_graph;
use crabpath_brain::service::command::doctor::{doctor, doctor_store};
use crabpath_brain::source::workspace::expanduser;

use crate::args::DoctorArgs;
use crate::context::{choose_embedder, version, Ctx};
use crate::error::{CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &DoctorArgs) -> CliResult {
    let path = expanduser(&a.state);
    let report = if let crabpath_brain::Location::Store(db) = crabpath_brain::locate(&path) {
        // the embedder a `crabpath query` of this brain would use, by the same rule,
        // with the check that it fits the brain (doctor_store is corrected-only)
        let strict = Ctx {
            profile: crabpath::profile::Profile::Corrected,
        };
        let resolve = |meta: &crabpath::graph::Metadata| {
            choose_embedder(&strict, None, meta, &db)
                .map(|w| (w.info(), w.loader()))
                .map_err(|e| {
                    let line = e.line();
                    line.strip_prefix("crabpath: error: ")
                        .unwrap_or(&line)
                        .to_string()
                })
        };
        doctor_store(&db, &version(), &resolve)
    } else {
        let journal = ctx.journal(Some(&a.state), None);
        let load = || read_graph(&path).map(|(g, _)| g).map_err(|e| e.to_string());
        doctor(&path, &a.state, &journal, &version(), ctx.profile, load)
            .map_err(|m| CliError::Other(anyhow::anyhow!(m)))?
    };
    let mut lines = Vec::new();
    for c in report.checks.iter().filter(|c| c.shown) {
        let status = if c.ok { "PASS" } else { "FAIL" };
        if c.detail.is_empty() {
            lines.push(format!("{}: {status}", c.label));
        } else {
            lines.push(format!("{}: {status} ({})", c.label, c.detail));
        }
        if let Some(h) = &c.hint {
            lines.push(format!("  what to do: {h}"));
        }
    }
    lines.push(format!(
        "Summary: {}/{} checks passed",
        report.passed, report.total
    ));
    out::println(&lines.join("\n"));
    Ok(u8::from(report.failed()))
}
