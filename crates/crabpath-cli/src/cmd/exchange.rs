//! `crabpath export` and `crabpath import`: the reference's `state.json` as the
//! interchange format ([`crabpath_brain::service::export_state`],
//! [`crabpath_brain::service::import_state`]).

use std::path::Path;

use crabpath_brain::service::{brain_dir, export_state, import_state, InitReport};
use crabpath_brain::source::workspace::expanduser;

use crate::args::{ExportArgs, ImportArgs};
use crate::context::{pathlib_str, Ctx, Which};
use crate::error::CliResult;
use crate::out;

pub fn run_export(ctx: &Ctx, a: &ExportArgs) -> CliResult {
    let out_path = expanduser(&a.output);
    // before anything is read: a new path or a regular file, outside every brain
    pyformat::io::check_output("--output", &out_path)?;
    let mut brain = ctx.open(crabpath_brain::locate(&expanduser(&a.state)), false)?;
    export_state(&mut brain, &out_path)?;
    eprintln!("crabpath: exported to {}", pathlib_str(&out_path));
    Ok(0)
}

pub fn run_import(_ctx: &Ctx, a: &ImportArgs) -> CliResult {
    let dir = brain_dir(&expanduser(&a.output));
    let known = [
        Which::Hash.info(),
        Which::Minilm.info(),
        Which::Mpnet.info(),
    ];
    let report = import_state(&expanduser(&a.state), &dir, &known)?;
    say_kept(&report, "import", &dir);
    if a.json {
        let payload = out::dict([
            ("brain", out::s(&pathlib_str(&report.path))),
            ("nodes", out::count(report.nodes)),
            ("edges", out::count(report.edges)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!(
            "Imported {} nodes and {} edges into {}",
            report.nodes,
            report.edges,
            pathlib_str(&report.path)
        ));
    }
    Ok(0)
}

/// Says on stderr which snapshot kept the brain that `init` or `import` (`what`)
/// replaced in `dir`, and the `rollback` that brings it back.
pub fn say_kept(report: &InitReport, what: &str, dir: &Path) {
    if let Some(s) = &report.snapshot {
        let (name, dir) = (&s.name, pathlib_str(dir));
        eprintln!(
            "crabpath: snapshot {name} of the brain in {dir} taken before the {what} replaced it (undo: crabpath rollback --state {dir} --to {name})"
        );
    }
}
