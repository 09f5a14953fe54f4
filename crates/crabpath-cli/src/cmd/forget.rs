//! `crabpath forget` (issue 30, item 3): removes a file's, a node's or a chat's content
//! from a brain database ([`crabpath_brain::Brain::forget`]) and prints what went.

use clap::{ArgGroup, Args};
use crabpath_brain::service::{ForgetTarget, Relearned};

use crate::context::Ctx;
use crate::error::CliResult;
use crate::out;

/// `forget`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["file", "node", "chat"])))]
pub struct ForgetArgs {
    /// The brain: its directory (made by `init`), or its brain.db. A state file is
    /// refused (import it first).
    #[arg(long)]
    pub state: String,
    /// Forget every node of this file: its path as the brain records it (relative to
    /// the brain's folder), or a path to it inside that folder.
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Forget this node (by id).
    #[arg(long, value_name = "ID")]
    pub node: Option<String>,
    /// Forget this conversation: every turn logged under the chat id and the nodes it
    /// created (its corrections, teachings and directives, and the question nodes of
    /// its queries).
    #[arg(long, value_name = "ID")]
    pub chat: Option<String>,
    /// Print JSON: kind, target, nodes, edges, vectors, turns, journal, ledger, ids,
    /// snapshots (the files rewritten), wal_truncated, replayed (learn events replayed,
    /// or null), weights_kept (why the weights were kept, or null).
    #[arg(long)]
    pub json: bool,
}

/// The long help of `forget`: what is removed and where.
pub const ABOUT: &str = "Forget a file, a node or a chat: remove its nodes, their vectors, lexical postings and edges, the conversation turns and journal entries that fired them (and the question nodes those queries grew), and the ledger rows naming them, in one transaction (an unknown file, node or chat changes nothing). Then no copy stays readable: freed pages are zeroed (secure_delete), the database is rebuilt (VACUUM), the write-ahead log truncated and search.idx rebuilt. Snapshots are rewritten without the content, not deleted, so rollback keeps working and never brings it back. Then the weights are unlearned: every edge is rebuilt from the graph init made of the remaining files and the remaining learn events (learn, feedback credit) are replayed in order, so the brain equals one that never had the content. This needs a history replay can repeat: a journal of queries and learns only, and only folder chunks as nodes; otherwise the weights are kept and the report says why.";

pub fn run(ctx: &Ctx, a: &ForgetArgs) -> CliResult {
    let target = match (&a.file, &a.node, &a.chat) {
        (Some(f), _, _) => ForgetTarget::File(f.clone()),
        (_, Some(n), _) => ForgetTarget::Node(n.clone()),
        (_, _, Some(c)) => ForgetTarget::Chat(c.clone()),
        _ => unreachable!("clap requires one of --file, --node, --chat"),
    };
    let path = ctx.state_path(&a.state, true);
    let mut brain = ctx.open(crabpath_brain::locate(&path), true)?;
    let r = brain.forget(&target)?;
    if a.json {
        out::println(&out::compact(&r.to_json()));
    } else {
        let c = r.removed;
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
                Relearned::Replayed(n) => format!("weights rebuilt from init and {n} learn events"),
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
