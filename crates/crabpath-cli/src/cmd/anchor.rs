//! `crabpath anchor` (reference `crabpath/cli.py::cmd_anchor`).

use crabpath_brain::service::command::anchor::{anchored, AnchorAction};
use pyformat::pyjson::PyValue;

use crate::args::{AnchorArgs, AuthorityChoice};
use crate::context::Ctx;
use crate::error::{reference, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &AnchorArgs) -> CliResult {
    let loc = crabpath_brain::locate(&ctx.state_path(&a.state, false));
    let mut brain = ctx.open(loc, true)?;
    if !brain.is_store() {
        // the reference reads the state before looking at the arguments
        brain.embedder_meta()?;
    }
    if a.list {
        let nodes = brain.read(|g, _| anchored(g))?;
        if a.json {
            let list: Vec<PyValue> = nodes
                .iter()
                .map(|(id, au)| {
                    PyValue::Dict(out::dict([
                        ("node_id", out::s(id)),
                        ("authority", out::s(au)),
                    ]))
                })
                .collect();
            let payload = out::dict([
                ("nodes", PyValue::List(list)),
                ("count", out::count(nodes.len())),
            ]);
            out::println(&out::pretty(&payload));
        } else if nodes.is_empty() {
            out::println("No anchored nodes.");
        } else {
            let lines: Vec<String> = nodes.iter().map(|(id, au)| format!("{id}: {au}")).collect();
            out::println(&lines.join("\n"));
        }
        return Ok(0);
    }
    let Some(id) = a.node_id.as_deref().filter(|s| !s.is_empty()) else {
        return reference("--node-id required unless --list is set");
    };
    let action = if a.remove {
        AnchorAction::Remove
    } else {
        match a.authority {
            Some(AuthorityChoice::Constitutional) => AnchorAction::Set("constitutional"),
            Some(AuthorityChoice::Canonical) => AnchorAction::Set("canonical"),
            None => AnchorAction::Show,
        }
    };
    let authority = brain.anchor(id, action)?;
    if a.json {
        let payload = out::dict([("node_id", out::s(id)), ("authority", out::s(&authority))]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!("{id} authority: {authority}"));
    }
    Ok(0)
}
