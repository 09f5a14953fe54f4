//! Checked option values: the one home of the command line's value checks.
//!
//! * Nonsense in both profiles (the reference gives it no meaning anyone relies on):
//!   NaN and ±∞ for `--prune-below` and `--connect-min-sim` (clap value parser
//!   [`crate::args::finite_f64`]: usage error, exit 2, naming the option); an empty `inject --id`
//!   or `--content`.
//! * Out of range in the corrected profile ([`check`], one line naming the option, exit
//!   1): the paper profile keeps the reference's readings (`--max-merges -1` is Python's
//!   slice `[:-1]`, `--outcome nan` drives an edge to 1.0, `--tasks bogus` is noted and
//!   skipped, `--last -3` slices, `--authority-map` passes any string).
//!
//! | option | corrected range |
//! |---|---|
//! | `learn --outcome` | finite, −1 to 1 ([`crabpath_brain::service::command::learn::OUTCOME_RANGE`], as the daemon and MCP) |
//! | `query --max-context-chars` | ≥ 0 |
//! | `maintain --max-merges` | ≥ 0 |
//! | `maintain --prune-below` | 0 to 1 (weights are in [−1, 1]) |
//! | `maintain --tasks` | names among health, decay, prune, merge, connect |
//! | `inject --connect-min-sim` | −1 to 1 (a cosine similarity) |
//! | `journal --last` | ≥ 0 |
//! | `sync --authority-map` | a JSON object of constitutional, canonical or overlay |

use crabpath::maintain::Authority;
use crabpath_brain::service::command::learn::check_outcome;
use crabpath_brain::service::command::maintain::{check_task_names, parse_tasks};

use crate::args::Command;
use crate::context::Ctx;
use crate::error::{reference, CliError, CliResult};

/// An error naming an option (printed as `crabpath: error: <message>`, exit 1).
fn invalid(message: String) -> CliError {
    CliError::Other(anyhow::anyhow!(message))
}

/// `value` within `[lo, hi]` (either end open when `None`), or an error naming `name`.
fn in_range<T: PartialOrd + std::fmt::Display>(
    name: &str,
    value: T,
    lo: Option<T>,
    hi: Option<T>,
) -> CliResult<()> {
    let ok = lo.as_ref().is_none_or(|l| &value >= l) && hi.as_ref().is_none_or(|h| &value <= h);
    if ok {
        return Ok(());
    }
    let want = match (lo, hi) {
        (Some(l), Some(h)) => format!("from {l} to {h}"),
        (Some(l), None) => format!(">= {l}"),
        (None, Some(h)) => format!("<= {h}"),
        (None, None) => "a number".to_string(),
    };
    Err(invalid(format!("{name} must be {want}, got {value}")))
}

/// A text option that must not be empty (or only whitespace).
fn non_empty(name: &str, value: &str) -> CliResult<()> {
    if value.trim().is_empty() {
        return Err(invalid(format!("{name} must not be empty")));
    }
    Ok(())
}

/// Checks a parsed command's values before it runs (see the module docs).
pub fn check(ctx: &Ctx, command: &Command) -> CliResult<()> {
    let fixes = ctx.fixes();
    match command {
        Command::Inject(a) => {
            non_empty("--id", &a.id)?;
            non_empty("--content", &a.content)?;
            if let (true, Some(s)) = (fixes, a.connect_min_sim) {
                in_range("--connect-min-sim", s, Some(-1.0), Some(1.0))?;
            }
        }
        _ if !fixes => {}
        Command::Learn(a) => check_outcome("--outcome", a.outcome).map_err(invalid)?,
        Command::Query(a) => {
            if let Some(m) = a.max_context_chars {
                in_range("--max-context-chars", m, Some(0), None)?;
            }
        }
        Command::Maintain(a) => {
            check_task_names(&parse_tasks(&a.tasks, true))
                .map_err(|m| invalid(format!("--tasks: {m}")))?;
            in_range("--max-merges", a.max_merges, Some(0), None)?;
            in_range("--prune-below", a.prune_below, Some(0.0), Some(1.0))?;
        }
        Command::Journal(a) => in_range("--last", a.last, Some(0), None)?,
        _ => {}
    }
    Ok(())
}

/// The `--authority-map` of `sync` ([`crabpath_brain::source::sync::parse_authority_map`]; the
/// reference's default without it). The paper profile answers the reference's messages
/// (a parse error is Python's `json.decoder.JSONDecodeError` line); the corrected profile
/// names the option in every error and refuses an authority other than
/// constitutional, canonical or overlay (the reference stored `"godlike"` as given).
pub fn authority_map(ctx: &Ctx, raw: Option<&str>) -> CliResult<Vec<(String, String)>> {
    if let (true, Some(text)) = (ctx.fixes(), raw) {
        if let Err(e) = pyformat::pyjson::loads(text) {
            return Err(invalid(format!("--authority-map is not valid JSON: {e}")));
        }
    }
    let map = match crabpath_brain::source::sync::parse_authority_map(raw) {
        Ok(m) => m,
        Err(msg) => return reference(msg),
    };
    if ctx.fixes() {
        if let Some((k, v)) = map.iter().find(|(_, v)| Authority::parse(v).is_none()) {
            return Err(invalid(format!(
                "--authority-map: {k:?} maps to {v:?}, which is not an authority (constitutional, canonical or overlay)"
            )));
        }
    }
    Ok(map)
}
