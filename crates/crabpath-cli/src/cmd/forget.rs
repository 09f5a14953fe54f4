//! `crabpath forget` (issue 30, item 3): removes a file's, a node's or a chat's content
//! from a brain database ([`crabpath_brain::Brain::forget`]) and prints what went.

use crabpath_brain::service::{ForgetTarget, Relearned};

use crate::args::ForgetArgs;
use crate::context::Ctx;
use crate::error::CliResult;
use crate::out;

pub fn run(ctx: &Ctx, a: &ForgetArgs) -> CliResult {
    let target = match (&a.file, &a.node, &a.chat) {
        (Some(f), _, _) => ForgetTarget::File(f.clone()),
        (_, Some(n), _) => ForgetTarget::Node(n.clone()),
        (_, _, Some(c)) => ForgetTarget::Chat(c.clone()),
        _ => unreachable!("clap requires one of --file, --node, --chat"),
    };
    let path = ctx.state_path(&a.state, true);
    let mut brain = ctx.open(crabpath_brain::locate(&path), true)?;
    let r = match brain.forget(&target) {
        Ok(r) => r,
        Err(e) => {
            if let Ok(Some(t)) = brain.pending_forget() {
                // the removal committed: say how to finish what did not run
                return Err(anyhow::anyhow!(
                    "{e}; the content of {} `{}` has left the brain, but the snapshots, the database file or the weights are not done: run the same forget again to finish",
                    t.kind(),
                    t.value()
                )
                .into());
            }
            return Err(e.into());
        }
    };
    if a.json {
        out::println(&out::compact(&r.to_json()));
    } else {
        let c = r.removed;
        if r.resumed {
            out::println(&format!(
                "Finished an interrupted forget of {} `{}` (its content had left the brain; the snapshots, the database file and the weights are done now)",
                r.target.kind(),
                r.target.value()
            ));
        }
        out::println(&format!(
            "Forgot {} `{}`: {} nodes, {} edges, {} vectors, {} turns, {} journal entries, {} ledger rows; {} snapshots rewritten; {}{}",
            r.target.kind(),
            r.target.value(),
            c.nodes,
            c.edges,
            c.vectors,
            c.turns,
            c.journal,
            c.ledger,
            r.snapshots.len(),
            match &r.relearned {
                Relearned::Replayed(n) => format!("weights rebuilt from init and {n} recorded events"),
                Relearned::Kept(why) => format!("weights kept ({why})"),
            },
            if r.wal_truncated {
                ""
            } else {
                " (the write-ahead log is held by another process: it is truncated at its next checkpoint)"
            }
        ));
    }
    Ok(0)
}
