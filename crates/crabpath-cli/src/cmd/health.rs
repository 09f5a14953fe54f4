//! `crabpath health` (reference `crabpath/cli.py::cmd_health`).

use crabpath_brain::command::HealthPayload;

use crate::args::HealthArgs;
use crate::context::Ctx;
use crate::error::CliResult;
use crate::out;

pub fn run(ctx: &Ctx, a: &HealthArgs) -> CliResult {
    let mut brain = ctx.open_source(&a.source, None, true)?;
    let h = brain.read(|g, _| HealthPayload::of(g))?;
    brain.journal(vec![h.event()])?;
    if a.json {
        out::println(&out::pretty(&h.to_dict()));
    } else {
        let x = &h.health;
        out::println(&format!(
            "Brain health:\n  Nodes: {}\n  Edges: {}\n  Reflex: {}  Habitual: {}  Dormant: {}\n  Orphans: {}\n  Cross-file edges: {}",
            h.nodes,
            h.edges,
            out::pct1(x.reflex_pct),
            out::pct1(x.habitual_pct),
            out::pct1(x.dormant_pct),
            x.orphan_nodes,
            out::pct1(x.cross_file_edge_pct)
        ));
    }
    Ok(0)
}
