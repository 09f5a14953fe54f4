//! `crabpath journal` (reference `crabpath/cli.py::cmd_journal`).

use crabpath_brain::reference::journal::read_journal;
use crabpath_brain::service::command::journal::{last, stats};
use pyformat::pyjson::PyValue;
use pyformat::pyrepr::{py_str, repr_dict};

use crate::args::JournalArgs;
use crate::context::Ctx;
use crate::error::{CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &JournalArgs) -> CliResult {
    let path = ctx.journal(a.state.as_deref(), None);
    let store = a
        .state
        .as_deref()
        .map(|s| crabpath_brain::locate(&ctx.state_path(s, false)))
        .filter(|l| matches!(l, crabpath_brain::Location::Store(_)));
    let (journal, path) = match store {
        Some(loc) => {
            let mut brain = ctx.open(loc, false)?;
            let p = brain.path().to_path_buf();
            (brain.journal_entries()?, p)
        }
        None => (
            read_journal(&path, ctx.profile).map_err(|e| CliError::Other(e.into()))?,
            path,
        ),
    };
    if !journal.malformed.is_empty() {
        let lines: Vec<String> = journal.malformed.iter().map(|n| n.to_string()).collect();
        eprintln!(
            "crabpath: {}: skipped the line(s) that are not JSON objects: {}",
            path.display(),
            lines.join(", ")
        );
    }
    if a.stats {
        let s = stats(&journal.entries);
        if a.json {
            let payload = out::dict([
                ("total_entries", out::count(s.total_entries)),
                ("queries", out::count(s.queries)),
                ("learns", out::count(s.learns)),
                ("positive_outcomes", out::count(s.positive_outcomes)),
                ("negative_outcomes", out::count(s.negative_outcomes)),
                ("avg_fired_per_query", PyValue::Float(s.avg_fired_per_query)),
            ]);
            out::println(&out::pretty(&payload));
        } else {
            out::println(&format!(
                "total_entries: {}\nqueries: {}\nlearns: {}\npositive_outcomes: {}\nnegative_outcomes: {}",
                s.total_entries, s.queries, s.learns, s.positive_outcomes, s.negative_outcomes
            ));
        }
        return Ok(0);
    }
    let entries = last(&journal.entries, a.last);
    if a.json {
        let list: Vec<PyValue> = entries.iter().cloned().map(PyValue::Dict).collect();
        out::println(&out::pretty(&PyValue::List(list)));
        return Ok(0);
    }
    if entries.is_empty() {
        out::println("No entries.");
        return Ok(0);
    }
    let lines: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let t = e.get("type").map(py_str).unwrap_or_else(|| "None".into());
            let when = e
                .get("iso")
                .or_else(|| e.get("ts"))
                .map(py_str)
                .unwrap_or_default();
            format!("{:>2}. {t} @ {when}: {}", i + 1, repr_dict(e))
        })
        .collect();
    out::println(&lines.join("\n"));
    Ok(0)
}
