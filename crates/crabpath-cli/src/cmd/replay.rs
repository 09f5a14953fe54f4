//! `crabpath replay` (reference `crabpath/cli.py::cmd_replay`,
//! `replay.py::replay_queries`).

use crabpath_brain::journal::{append, replay_event};
use crabpath_brain::replay::{replay_queries, ReplayOptions};
use crabpath_brain::session::collect_interactions;
use crabpath_brain::Error;
use pyformat::pyjson::PyValue;
use serde_json::Value;

use crate::args::ReplayArgs;
use crate::cmd::learn::graph_target;
use crate::cmd::merge::persist;
use crate::context::Ctx;
use crate::embedding::bar;
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &ReplayArgs) -> CliResult {
    let _lock = match (&a.source.state, &a.source.graph) {
        (Some(s), _) => Some(ctx.lock(&ctx.state_path(s, false))?),
        (None, Some(g)) => Some(ctx.lock(&graph_target(g))?),
        _ => None,
    };
    let mut loaded = ctx.load(&a.source, None)?;
    let since = match loaded.meta.get("last_replayed_ts") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    let records = match collect_interactions(&a.sessions, since, ctx.profile) {
        Ok(r) => r,
        Err(e @ Error::SessionsPath(_)) => return reference(e.to_string()),
        Err(e) => return Err(CliError::Other(e.into())),
    };
    let mut options = ReplayOptions::new(ctx.profile);
    options.since = since;
    let lines = !a.json && !ctx.fixes();
    let pb = bar(
        records.len(),
        "replaying",
        !a.json && ctx.fixes() && ctx.progress(),
    );
    let stats = replay_queries(&mut loaded.graph, &records, &options, &mut |s, total| {
        if lines {
            out::println(&format!(
                "Replayed {}/{total} queries, {} cross-file edges created",
                s.queries_replayed, s.cross_file_edges_created
            ));
        }
        pb.set_length(total as u64);
        pb.set_position(s.queries_replayed as u64);
    })?;
    pb.finish_and_clear();
    let journal = ctx.journal(a.source.state.as_deref(), a.source.graph.as_deref());
    append(
        &journal,
        replay_event(
            stats.queries_replayed,
            stats.edges_reinforced,
            stats.cross_file_edges_created,
        ),
    )
    .map_err(|e| CliError::Other(e.into()))?;
    if let Some(ts) = stats.last_replayed_ts {
        if let Some(n) = serde_json::Number::from_f64(ts) {
            loaded
                .meta
                .insert("last_replayed_ts".into(), Value::Number(n));
        }
    }
    persist(ctx, &a.source, loaded)?;
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
            stats.queries_replayed,
            records.len(),
            stats.cross_file_edges_created
        ));
    }
    Ok(0)
}
