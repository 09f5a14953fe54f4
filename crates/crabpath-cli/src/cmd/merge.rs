//! `crabpath merge` and `crabpath connect` (reference `crabpath/cli.py::cmd_merge`,
//! `cmd_connect`).

use crabpath_brain::command::merge::{connect, merge};
use crabpath_brain::reffiles::{write_graph, GraphShape};
use crabpath_brain::workspace::expanduser;
use pyformat::pyjson::PyValue;

use crate::args::{ConnectArgs, MergeArgs, Source};
use crate::cmd::learn::graph_target;
use crate::context::{choose_embedder, Ctx, Loaded};
use crate::error::CliResult;
use crate::out;

/// Locks the file a `--state`/`--graph` command rewrites.
fn lock(ctx: &Ctx, source: &Source) -> CliResult<Option<crabpath_brain::lock::StateLock>> {
    Ok(match (&source.state, &source.graph) {
        (Some(s), _) => Some(ctx.lock(&ctx.state_path(s, false))?),
        (None, Some(g)) => Some(ctx.lock(&graph_target(g))?),
        _ => None,
    })
}

/// Writes the result back: the state (meta kept), or a bare graph file.
pub fn persist(ctx: &Ctx, source: &Source, loaded: Loaded) -> CliResult<()> {
    if let Some(path) = loaded.state_path.clone() {
        ctx.save(&path, &loaded.into_state())?;
    } else if let Some(g) = &source.graph {
        write_graph(&expanduser(g), &loaded.graph, GraphShape::Bare)?;
    }
    Ok(())
}

pub fn run_merge(ctx: &Ctx, a: &MergeArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let _lock = lock(ctx, &a.source)?;
    let mut loaded = ctx.load(&a.source, None)?;
    let embedder = if ctx.fixes() && loaded.state_path.is_some() {
        Some(choose_embedder(ctx, None, &loaded.meta)?.load()?)
    } else {
        None
    };
    let report = merge(
        &mut loaded.graph,
        loaded.index.as_mut(),
        embedder.as_deref(),
        ctx.profile,
    )?;
    persist(ctx, &a.source, loaded)?;
    if a.json {
        let suggestions: Vec<PyValue> = report
            .suggestions
            .iter()
            .map(|(x, y)| PyValue::Dict(out::dict([("from", out::strs([x.as_str(), y.as_str()]))])))
            .collect();
        let applied: Vec<PyValue> = report
            .applied
            .iter()
            .map(|(x, y, m)| {
                PyValue::Dict(out::dict([
                    ("from", out::strs([x.as_str(), y.as_str()])),
                    ("to", out::strs([m.as_str()])),
                ]))
            })
            .collect();
        let payload = out::dict([
            ("suggestions", PyValue::List(suggestions)),
            ("applied", PyValue::List(applied)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!("Applied merges: {}", report.applied.len()));
    }
    Ok(0)
}

pub fn run_connect(ctx: &Ctx, a: &ConnectArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let _lock = lock(ctx, &a.source)?;
    let mut loaded = ctx.load(&a.source, None)?;
    let (list, added) = connect(&mut loaded.graph)?;
    persist(ctx, &a.source, loaded)?;
    if a.json {
        let suggestions: Vec<PyValue> = list
            .iter()
            .map(|c| {
                PyValue::Dict(out::dict([
                    ("source_id", out::s(&c.source_id)),
                    ("target_id", out::s(&c.target_id)),
                    ("weight", PyValue::Float(c.weight)),
                    ("reason", out::s(&c.reason)),
                ]))
            })
            .collect();
        let payload = out::dict([
            ("suggestions", PyValue::List(suggestions)),
            ("added", out::count(added)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!("Added edges: {added}"));
    }
    Ok(0)
}
