//! `crabpath compact` (reference `crabpath/cli.py::cmd_compact`,
//! `compact.py::compact_daily_notes`).

use crabpath_brain::service::inject_event;
use crabpath_brain::source::compact::{
    compact_daily_notes, rewrite_note, CompactOptions, CompactReport, COMPACT_NODES_JOURNALED,
};
use crabpath_brain::source::workspace::expanduser;
use crabpath_brain::Scope;
use pyformat::pyjson::{PyDict, PyValue};

use crate::args::CompactArgs;
use crate::context::{choose_embedder, pathlib_str, Ctx};
use crate::error::CliResult;
use crate::out;

pub fn run(ctx: &Ctx, a: &CompactArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let loc = crabpath_brain::locate(&ctx.state_path(&a.state, false));
    let mut brain = ctx.open(loc, true)?;
    let meta = brain.embedder_meta()?;
    let which = choose_embedder(ctx, None, &meta, brain.path())?;
    let embedder = which.load()?;
    let dir = expanduser(&a.memory_dir);
    let display = pathlib_str(&dir);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let options = CompactOptions {
        profile: ctx.profile,
        max_age_days: a.max_age_days,
        target_lines: a.target_lines,
        dry_run: a.dry_run,
        today: (now.div_euclid(86_400), now.rem_euclid(86_400)),
        dir_display: &display,
        embedder: embedder.as_ref(),
    };
    let (report, rewrites) = brain.write(Scope::All, |w| {
        let (mut rewrites, mut injected) = (Vec::new(), Vec::new());
        let report = compact_daily_notes(w, &dir, &options, &mut rewrites, &mut injected)?;
        if a.dry_run || report.files_compacted == 0 {
            w.discard();
        }
        let mut event = PyDict::new();
        event.insert("type".into(), out::s("compact_daily_notes"));
        event.extend(report_fields(&report));
        event.insert("dry_run".into(), PyValue::Bool(a.dry_run));
        let journal_nodes = ctx.fixes() && !a.dry_run;
        if journal_nodes {
            // each fact node as an injection of its own, which forget's replay repeats
            event.insert(COMPACT_NODES_JOURNALED.into(), PyValue::Bool(true));
        }
        w.journal(event);
        if journal_nodes {
            for r in &injected {
                w.journal(inject_event(r, false));
            }
        }
        Ok((report, rewrites))
    })?;
    // corrected: each note is rewritten only once its facts are saved, and kept as it
    // was first
    for (path, note) in rewrites {
        let kept = rewrite_note(&path, &note)?;
        eprintln!(
            "crabpath: {} compacted; as it was, it is kept in {}",
            path.display(),
            kept.display()
        );
    }
    let fields = report_fields(&report);
    if a.json {
        out::println(&out::pretty(&fields));
    } else {
        out::println(&format!(
            "Compaction report for {}\n  scanned: {}\n  compacted: {}\n  skipped: {}\n  nodes_injected: {}\n  lines: {} -> {}",
            a.state,
            report.files_scanned,
            report.files_compacted,
            report.files_skipped,
            report.nodes_injected,
            report.lines_before,
            report.lines_after
        ));
    }
    Ok(0)
}

/// The report's fields, in the reference's order.
fn report_fields(report: &CompactReport) -> PyDict {
    let c = |n: usize| out::count(n);
    out::dict([
        ("files_scanned", c(report.files_scanned)),
        ("files_compacted", c(report.files_compacted)),
        ("files_skipped", c(report.files_skipped)),
        ("nodes_injected", c(report.nodes_injected)),
        ("lines_before", c(report.lines_before)),
        ("lines_after", c(report.lines_after)),
    ])
}
