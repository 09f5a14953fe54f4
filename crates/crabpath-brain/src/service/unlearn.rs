//! Unlearning after `forget` (issue 30, item 3): the weights are rebuilt by replaying
//! the recorded learning events that remain, from the one checkpoint every folder brain
//! has — the graph `init` builds — so that a brain that forgot a file equals, edge for
//! edge and weight for weight, a brain built without it and taught the same events
//! less those that touched it (`forget` has already dropped those journal entries,
//! [`super::forget`]).
//!
//! **Why the init graph is the checkpoint.** `init` of a folder
//! ([`crate::source::bootstrap`]) adds each file's chunks and links consecutive ones
//! both ways with [`sibling_weight`]`(file, k)`, a function of the file's own path and
//! the pair's index: no edge of `init` depends on another file. The init graph of the
//! remaining files is therefore rebuilt from the remaining nodes alone (grouped by
//! `file`, in node order), with no need for the folder.
//!
//! **The events.** A `learn` (the command, the daemon's and MCP's feedback credit) is
//! journaled with its inputs ([`crate::reference::journal::learn_event`]: the fired ids
//! in order and the outcome) and its effect is
//! [`crate::service::command::learn::learn_ids_tuned`] with the brain's tuning. Replay:
//! every edge is removed (emptying every bucket, so the buckets come back in the order
//! a new brain makes them), the init edges are added in init's order, then every
//! remaining `learn` entry is applied in journal order.
//!
//! **Limits** (the replay is skipped, the weights are kept, and the report says why):
//! a node that `init` of a folder does not make (an injected, corrected, auto-question
//! or conversation node), and a journal entry other than `query` and `learn`
//! (`maintain`, `inject`, `sync`, `autotune`, …, whose inputs the journal does not hold
//! completely: maintenance decays every edge by the time since its last use). The
//! replay is its own write, after the content's removal committed.
//!
//! Cost: O(N + E + Σ|fired|) for N nodes, E edges and the fired ids of the learn
//! entries, plus a write-back of every edge (the whole graph is in scope).

use crabpath::graph::Edge;
use pyformat::pyjson::PyValue;

use super::engine::{Brain, Scope};
use crate::error::Result;
use crate::source::bootstrap::sibling_weight;

/// What the replay did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relearned {
    /// The weights were rebuilt from the init graph and this many learn events.
    Replayed(usize),
    /// The weights were kept; the reason (see the module docs' limits).
    Kept(String),
}

impl Brain {
    /// Rebuilds the weights from the init graph of the brain's nodes and the journal's
    /// remaining `learn` entries (see the module docs). A learn entry the graph refuses
    /// (an id no longer there) leaves the weights as they were ([`Relearned::Kept`],
    /// naming it). Errors: SQLite or I/O.
    ///
    /// `gone`: the ids just forgotten. A folder chunk among them (`<file>::<chunk>`)
    /// keeps its place in its file's chain, so the init edges are those of the whole
    /// file less the pairs it was in (the chunks around it are not linked to each other
    /// as a file without it would link them).
    pub fn relearn(&mut self, gone: &[String]) -> Result<Relearned> {
        let journal = self.journal_entries()?;
        let mut events: Vec<(Vec<String>, f64)> = Vec::new();
        for e in &journal.entries {
            match e.get("type").and_then(PyValue::as_str) {
                Some("query") => {}
                Some("learn") => {
                    let fired: Vec<String> = e
                        .get("fired")
                        .and_then(PyValue::as_list)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect();
                    let outcome = e.get("outcome").and_then(PyValue::as_number);
                    match outcome {
                        Some(o) if !fired.is_empty() => events.push((fired, o)),
                        _ => return Ok(Relearned::Kept("a learn entry without its inputs".into())),
                    }
                }
                other => {
                    return Ok(Relearned::Kept(format!(
                        "the journal holds a `{}` entry, which replay cannot repeat",
                        other.unwrap_or("?")
                    )))
                }
            }
        }
        if !journal.malformed.is_empty() {
            return Ok(Relearned::Kept("the journal has malformed lines".into()));
        }
        let profile = self.profile;
        let tuning = self.tuning()?;
        self.write(Scope::All, |w| {
            // the init graph's edges: per file, consecutive chunks in chunk order (a
            // forgotten chunk, `None`, holding its place)
            type Chain = Vec<(u64, Option<crabpath::graph::NodeId>)>;
            let mut files: Vec<(String, Chain)> = Vec::new();
            let mut slot: std::collections::HashMap<String, usize> = Default::default();
            let mut foreign = None;
            for (n, node) in w.graph.nodes() {
                let file = node.metadata.get("file").and_then(|v| v.as_str());
                let chunk = node.metadata.get("chunk").and_then(|v| v.as_u64());
                let (Some(file), Some(chunk)) = (file, chunk) else {
                    foreign = Some(node.id.clone());
                    break;
                };
                match slot.get(file) {
                    Some(&i) => files[i].1.push((chunk, Some(n))),
                    None => {
                        slot.insert(file.to_string(), files.len());
                        files.push((file.to_string(), vec![(chunk, Some(n))]));
                    }
                }
            }
            for id in gone {
                let place = id
                    .rsplit_once("::")
                    .and_then(|(f, c)| Some((f, c.parse::<u64>().ok()?)));
                if let Some((file, chunk)) = place {
                    if let Some(&i) = slot.get(file) {
                        files[i].1.push((chunk, None));
                    }
                }
            }
            for (_, chain) in files.iter_mut() {
                chain.sort_by_key(|&(chunk, _)| chunk);
            }
            if let Some(id) = foreign {
                w.discard();
                return Ok(Relearned::Kept(format!(
                    "node `{id}` was not made by init of a folder"
                )));
            }
            let g = &mut *w.graph;
            // removed last first: each removal then takes the end of its bucket and of
            // the bucket list, not a shift of everything after it
            let edges: Vec<_> = g.edges().map(|(s, t, _)| (s, t)).collect();
            for &(s, t) in edges.iter().rev() {
                g.remove_edge(s, t);
            }
            for (file, chain) in &files {
                for (k, pair) in chain.windows(2).enumerate() {
                    let (Some(a), Some(b)) = (pair[0].1, pair[1].1) else {
                        continue;
                    };
                    let wgt = sibling_weight(file, k);
                    g.add_edge(a, b, Edge::new(wgt))?;
                    g.add_edge(b, a, Edge::new(wgt))?;
                }
            }
            for (i, (fired, outcome)) in events.iter().enumerate() {
                if let Err(e) =
                    super::command::learn::learn_ids_tuned(g, fired, *outcome, profile, &tuning)
                {
                    w.discard();
                    return Ok(Relearned::Kept(format!(
                        "learn event {} of {} cannot be replayed: {e}",
                        i + 1,
                        events.len()
                    )));
                }
            }
            Ok(Relearned::Replayed(events.len()))
        })
    }
}
