//! `crabpath learn` (reference `crabpath/cli.py::cmd_learn`):
//! [`crabpath_brain::Brain::learn`].

use crabpath_brain::service::command::learn::parse_fired_ids;
use crabpath_brain::source::workspace::expanduser;
use pyformat::pyjson::PyValue;

use crate::args::LearnArgs;
use crate::context::Ctx;
use crate::error::{reference, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &LearnArgs) -> CliResult {
    if let Some(chat) = &a.chat_id {
        return super::learn_chat::run(ctx, a, chat);
    }
    let loc = ctx.location(&a.source, None)?;
    let ids = parse_fired_ids(a.fired_ids.as_deref().unwrap_or_default());
    if ids.is_empty() {
        return reference("provide at least one fired id");
    }
    if let (None, Some(g)) = (&a.source.state, &a.source.graph) {
        // the reference opens the directory for writing and crashes
        let p = expanduser(g);
        if p.is_dir() && !ctx.fixes() {
            return reference(format!(
                "IsADirectoryError: [Errno 21] Is a directory: '{}'",
                p.display()
            ));
        }
    }
    let mut brain = ctx.open_with_shape(
        loc,
        crabpath_brain::reference::reffiles::GraphShape::Wrapped,
    )?;
    let summary = brain.learn(&ids, a.outcome)?;
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
