//! `crabpath compact` (reference `crabpath/cli.py::cmd_compact`,
//! `compact.py::compact_daily_notes`).

use crabpath_brain::compact::{compact_daily_notes, CompactOptions};
use crabpath_brain::journal::append;
use crabpath_brain::workspace::expanduser;
use pyformat::pyjson::{PyDict, PyValue};

use crate::args::CompactArgs;
use crate::context::{choose_embedder, load_state_file, pathlib_str, Ctx};
use crate::error::{CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &CompactArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let path = ctx.state_path(&a.state, false);
    let _lock = ctx.lock(&path)?;
    let mut state = load_state_file(&path)?;
    let which = choose_embedder(ctx, None, &state.meta)?;
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
    let mut save = |st: &crabpath::State| -> crabpath_brain::Result<()> {
        ctx.save(&path, st)
            .map_err(|e| crabpath_brain::Error::Serialize(e.line()))
    };
    let report = compact_daily_notes(&mut state, &dir, &options, &mut save)?;
    let c = |n: usize| out::count(n);
    let fields: PyDict = out::dict([
        ("files_scanned", c(report.files_scanned)),
        ("files_compacted", c(report.files_compacted)),
        ("files_skipped", c(report.files_skipped)),
        ("nodes_injected", c(report.nodes_injected)),
        ("lines_before", c(report.lines_before)),
        ("lines_after", c(report.lines_after)),
    ]);
    let mut event = PyDict::new();
    event.insert("type".into(), out::s("compact_daily_notes"));
    event.extend(fields.clone());
    event.insert("dry_run".into(), PyValue::Bool(a.dry_run));
    let journal = ctx.journal(Some(&a.state), None);
    append(&journal, event).map_err(|e| CliError::Other(e.into()))?;
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
