//! `crabpath learn` (reference `crabpath/cli.py::cmd_learn`).

use crabpath_brain::command::learn::{learn_ids, parse_fired_ids};
use crabpath_brain::journal::{append, learn_event};
use crabpath_brain::reffiles::{write_graph, GraphShape};
use crabpath_brain::workspace::expanduser;
use pyformat::pyjson::PyValue;

use crate::args::LearnArgs;
use crate::context::Ctx;
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &LearnArgs) -> CliResult {
    let _lock = match (&a.source.state, &a.source.graph) {
        (Some(s), _) => Some(ctx.lock(&ctx.state_path(s, false))?),
        (None, Some(g)) => Some(ctx.lock(&graph_target(g))?),
        _ => None,
    };
    let mut loaded = ctx.load(&a.source, None)?;
    let ids = parse_fired_ids(&a.fired_ids);
    let summary = learn_ids(&mut loaded.graph, &ids, a.outcome, ctx.profile)?;
    if let Some(path) = loaded.state_path.clone() {
        ctx.save(&path, &loaded.into_state())?;
    } else if let Some(g) = &a.source.graph {
        let p = expanduser(g);
        if p.is_dir() && !ctx.fixes() {
            return reference(format!(
                "IsADirectoryError: [Errno 21] Is a directory: '{}'",
                p.display()
            ));
        }
        write_graph(&p, &loaded.graph, GraphShape::Wrapped)?;
    }
    let journal = ctx.journal(a.source.state.as_deref(), a.source.graph.as_deref());
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    append(&journal, learn_event(&refs, a.outcome)).map_err(|e| CliError::Other(e.into()))?;
    if a.json {
        let payload = out::dict([
            ("edges_updated", out::count(summary.edges_updated)),
            ("max_weight_delta", PyValue::Float(summary.max_weight_delta)),
        ]);
        out::println(&out::pretty(&payload));
    } else {
        let given = a
            .source
            .state
            .as_deref()
            .or(a.source.graph.as_deref())
            .unwrap_or("");
        out::println(&format!("updated {given}"));
    }
    Ok(0)
}

/// The file a `--graph` write goes to (a directory means its graph.json).
pub fn graph_target(arg: &str) -> std::path::PathBuf {
    let p = expanduser(arg);
    if p.is_dir() {
        p.join("graph.json")
    } else {
        p
    }
}
