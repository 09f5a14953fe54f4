//! `crabpath merge` and `crabpath connect` (reference `crabpath/cli.py::cmd_merge`,
//! `cmd_connect`).

use crabpath_brain::service::command::merge::merge;
use crabpath_brain::{Location, Scope};
use pyformat::pyjson::PyValue;

use crate::args::{ConnectArgs, MergeArgs};
use crate::context::{choose_embedder, Ctx};
use crate::error::CliResult;
use crate::out;

pub fn run_merge(ctx: &Ctx, a: &MergeArgs) -> CliResult {
    ctx.check_llm(a.llm)?;
    let loc = ctx.location(&a.source, None)?;
    let has_vectors = !matches!(loc, Location::Graph { .. });
    let mut brain = ctx.open(loc, true)?;
    let embedder = if ctx.fixes() && has_vectors {
        let meta = brain.embedder_meta()?;
        Some(choose_embedder(ctx, None, &meta, brain.path())?.load()?)
    } else {
        None
    };
    let profile = ctx.profile;
    let report = brain.write(Scope::All, |w| {
        if has_vectors {
            merge(w.graph, Some(&mut *w.vectors), embedder.as_deref(), profile)
        } else {
            merge(w.graph, None, embedder.as_deref(), profile)
        }
    })?;
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
    let mut brain = ctx.open_source(&a.source, None, true)?;
    let (list, added) = brain.connect_chunks()?;
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
