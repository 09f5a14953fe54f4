//! `crabpath replay` (reference `crabpath/cli.py::cmd_replay`,
//! `replay.py::replay_queries`).

use crabpath_brain::source::replay::{replay_journal_event, replay_queries, ReplayOptions};
use crabpath_brain::source::session::collect_interactions;
use crabpath_brain::{Error, Scope};
use pyformat::pyjson::PyValue;
use serde_json::Value;

use crate::args::ReplayArgs;
use crate::context::Ctx;
use crate::embedding::bar;
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &ReplayArgs) -> CliResult {
    let mut brain = ctx.open_source(&a.source, None, true)?;
    let profile = ctx.profile;
    let lines = !a.json && !ctx.fixes();
    let show_bar = !a.json && ctx.fixes() && ctx.progress();
    let outcome = brain.write(Scope::All, |w| {
        let since = match w.meta.get("last_replayed_ts") {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
            _ => None,
        };
        let records = match collect_interactions(&a.sessions, since, profile) {
            Ok(r) => r,
            Err(e @ Error::SessionsPath(_)) => return Err(Error::Reference(e.to_string())),
            Err(e) => return Err(e),
        };
        let mut options = ReplayOptions::new(profile);
        options.since = since;
        let pb = bar(records.len(), "replaying", show_bar);
        let mut episodes = Vec::new();
        let journaled = profile.fixes_bugs().then_some(&mut episodes);
        let stats = replay_queries(
            w.graph,
            &records,
            &options,
            &mut |s, total| {
                if lines {
                    out::println(&format!(
                        "Replayed {}/{total} queries, {} cross-file edges created",
                        s.queries_replayed, s.cross_file_edges_created
                    ));
                }
                pb.set_length(total as u64);
                pb.set_position(s.queries_replayed as u64);
            },
            journaled,
        )?;
        pb.finish_and_clear();
        // corrected: with what forget's replay repeats without the session logs
        let event = replay_journal_event(&stats, profile.fixes_bugs().then_some(&episodes[..]));
        w.journal(event);
        if let Some(ts) = stats.last_replayed_ts {
            if let Some(n) = serde_json::Number::from_f64(ts) {
                w.meta.insert("last_replayed_ts".into(), Value::Number(n));
            }
        }
        Ok((stats, records.len()))
    });
    let (stats, total) = match outcome {
        Ok(x) => x,
        Err(Error::Reference(m)) => return reference(m),
        Err(e) => return Err(CliError::Other(e.into())),
    };
    if a.json {
        let payload = out::dict([
            ("queries_replayed", out::count(stats.queries_replayed)),
            ("edges_reinforced", out::count(stats.edges_reinforced)),
            (
                "cross_file_edges_created",
                out::count(stats.cross_file_edges_created),
            ),
            (
                "last_replayed_ts",
                stats.last_replayed_ts.map_or(PyValue::Null, PyValue::Float),
            ),
        ]);
        out::println(&out::pretty(&payload));
    } else {
        out::println(&format!(
            "Replayed {}/{} queries, {} cross-file edges created",
            stats.queries_replayed, total, stats.cross_file_edges_created
        ));
    }
    Ok(0)
}
