//! `crabpath autotune` (not in the reference, whose `autotune.py` only suggests; issue
//! 31 item 3): [`crabpath_brain::Brain::autotune`], printed.

use crabpath_brain::service::command::autotune::{autotune_event, changes_text};
use pyformat::pyjson::PyValue;

use crate::args::AutotuneArgs;
use crate::context::Ctx;
use crate::error::CliResult;
use crate::out;

pub fn run(ctx: &Ctx, a: &AutotuneArgs) -> CliResult {
    let path = ctx.state_path(&a.state, true);
    let mut brain = ctx.open(crabpath_brain::locate(&path), !a.dry_run)?;
    let outcome = brain.autotune(a.dry_run)?;
    let snapshot = outcome.snapshot.as_ref().map(|s| s.name.clone());
    if a.json {
        let mut d = autotune_event(&outcome.step, a.dry_run);
        d.shift_remove("type");
        d.insert(
            "snapshot".into(),
            snapshot.map_or(PyValue::Null, |s| out::s(&s)),
        );
        out::println(&out::pretty(&PyValue::Dict(d)));
    } else {
        let head = if a.dry_run {
            "Autotune (dry run, nothing written):"
        } else if outcome.applied {
            "Autotune applied:"
        } else {
            "Autotune: nothing to change"
        };
        let mut lines = vec![head.to_string()];
        lines.extend(
            changes_text(&outcome.step)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
        for s in &outcome.step.applied {
            lines.push(format!(
                "  suggestion: {} {} by {} ({})",
                s.suggested_adjustment, s.knob, s.value, s.reason
            ));
        }
        if let Some(s) = snapshot {
            lines.push(format!(
                "  snapshot: {s} (crabpath rollback --state {} undoes it)",
                a.state
            ));
        }
        out::println(&lines.join("\n"));
    }
    Ok(0)
}
