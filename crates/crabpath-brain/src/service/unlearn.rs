//! Unlearning after `forget` (issue 30, item 3): the weights are rebuilt by replaying
//! the recorded learning events that remain, from the one checkpoint every folder or
//! conversation brain has — the graph `init` builds — so that a brain that forgot a file equals, edge for
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
//! **A folder that changed.** A chunk a replayed `sync` removed was made by `init`
//! when the first sync naming it removed it (chunk ids are `<file>::<place>`, so a
//! file's chunks at init are the first places): its text is gone, so a stand-in with
//! its id, `file` and `chunk` holds its place in the init graph until that sync
//! removes it again — all the replay reads of a node is its id, file and chunk
//! number (a `connect` reads texts: one that runs while a stand-in is in the graph
//! stops the replay). A chunk the first sync naming it added comes back at that sync,
//! as an injection does. After the replay the brain must hold exactly the nodes it
//! held before, or the weights are kept.
//!
//! **Merges.** A node a replayed maintenance merged (`merged_from` two parts,
//! `source` `llm-merge`) is set aside before the replay; each part gets a stand-in (a
//! chunk in the init graph, an injection in the stash until its event) with an empty
//! text, as short as the part was when it merged, so the replayed maintenance
//! proposes and applies the same merge, and the merged node it makes is then given
//! back its text and metadata. Merges taken in another order (the content's node order
//! differs) or not taken again keep the weights.
//!
//! **A conversation** (turns, `metadata.kind` [`CONVERSATION`]) is rebuilt the same
//! way: the turns `init --conversation` read (those no journaled `remember` added), in
//! their order, renumbered (`metadata.turn`) and linked as `init` links them
//! ([`link_turns`]: each turn chained to the previous turn of its session, then the
//! entity links of rare words); each remembered turn leaves the graph and comes back
//! at its `remember` entry, where `remember` put it ([`join`], [`apply_join`]: its
//! chain to the last turn of its session heard by then, and the entity links that
//! change). So a brain that forgot a turn equals one that never heard it, the same
//! events taught: chains close over the gap, a rare word's links are those of the
//! turns that remain, and the later turns' positions move up. Turns keep their ids (a
//! generated `turn:<session>:<k>` is not renumbered: the brain that never heard the
//! turn is the one given the same ids).
//!
//! **The events**, each journaled with the inputs its replay needs, and replayed in
//! journal order after every edge was removed (emptying every bucket, so the buckets
//! come back in the order a new brain makes them) and the init edges added in init's
//! order:
//!
//! | entry | written by | replay |
//! |---|---|---|
//! | `learn` (fired ids, outcome) | `learn`, feedback credit, a veto correction's credit | [`learn_ids_tuned`] with the tuning the brain had then |
//! | `inject` (id, neighbours with scores, inhibit; [`super::ops::inject_event`]) | `inject`, `teach`, a correction's node | the node, taken out of the graph before the replay so that no earlier event sees it, comes back; then [`link_neighbours`], and [`inhibit_neighbours`] for a correction |
//! | `correct` (mode, unlinked ids, path steps, shares; [`super::feedback::correct_event`]) | `correct` | the guardrail's [`unlink_outgoing`], or the veto rule ([`super::feedback::veto`]) |
//! | `maintain` (tasks, `max_merges`, `prune_below`, flavor; [`maintain::maintain_event`]) | `maintain` (command line and daemon) | [`maintain::run`] again: health and the autotuner, decay with the tuning of that moment, prune, merge, connect |
//! | `autotune` with `dry_run` false, not part of a `maintain` run | `autotune` | the autotuner again ([`apply`]), kept only when it moves a knob, as the command does |
//! | `rollback` (the snapshot's last journal position; [`super::admin::rollback_event`]) | `rollback` of a database | the events after that position and before it are left out: the rollback undid them |
//! | `sync` of the corrected profile (the chunk ids it added, in order, and removed; each re-split file's chunks after it; [`SyncChanges`]) | `sync` (command line, MCP) | the added chunks come back (taken out of the graph before the replay, when `init` did not make them), the removed ones leave, and each file's consecutive chunks are linked as the sync links them ([`link_consecutive`]: an edge already there keeps its weight) |
//! | `anchor` of the corrected profile (the node, its authority before and after; [`super::command::anchor::anchor_event`]) | `anchor` | each anchored node starts at its first entry's `before`, and takes each `after` at its entry (decay, prune and merge read authority) |
//! | `connect` of the corrected profile | `connect` | run again on the graph as it then stands (its word overlaps read the texts, which forget leaves as they were, less the forgotten nodes) |
//! | `replay` of the corrected profile (each learning update's fired ids, steps and outcome; [`ReplayedEpisode`]) | `replay`, `init --sessions` (its first entry) | each update learned again ([`ReplayedEpisode::apply`]) |
//! | `remember` (the turn's node id) | `remember` (daemon, MCP) | the turn comes back (taken out of the graph before the replay), joined to the conversation heard by then ([`join`], [`apply_join`]); a forgotten turn's entry adds nothing |
//! | `neurogenesis` (`born`, `refreshed`, `promoted`, `demoted`, `died`, `merged`; [`super::neurogenesis`]) | a served query, a feedback's credit, `maintain` | nothing: the question layer comes back whole (below) |
//! | `query`, `health` with `"check": true` (`crabpath health`), dry-run `autotune`, a dry `maintain` run and its entries | reports | nothing |
//!
//! **The question layer** (the `auto:` nodes neurogenesis grows, on by default) is an
//! overlay, set aside before the replay and put back after it as it is now (after
//! `forget` removed the forgotten content and the forgotten chat's question nodes):
//! its nodes with their vectors and metadata, and every edge from or to one (an edge
//! to a node no longer there left out). This is exact for the content because nothing
//! of the content's weights depends on that layer, event by event:
//! * an auto node's edges go only *from* it to content (its birth's links to the
//!   turn's seeds and the prior turn's fired nodes, a feedback's credit,
//!   [`super::neurogenesis`]; a merge of two moves the loser's outgoing edges), and
//!   neurogenesis writes no edge between two content nodes;
//! * a `learn` entry's fired list holds no auto node (answers leave them out,
//!   `strip_autos`), so a learn moves only content edges;
//! * an injection can find an auto node among its nearest vectors and link to it both
//!   ways ([`link_neighbours`]; [`inhibit_neighbours`] for a correction): each
//!   neighbour's edges are made alone, so the replay links the content neighbours and
//!   the two edges with the auto node come back with the layer;
//! * a veto's path steps can start at an auto node (the steps keep them): each step is
//!   one edge, and an edge of the layer is the layer's;
//! * maintenance: decay and prune treat each edge alone (decay scales it by its
//!   source's authority; prune compares it with `prune_below` and its endpoints'
//!   authority), so the content edges decay and prune as they did; the layer's edges
//!   had the same decays and prunes then, and come back as they are now, carrying
//!   them. A merge candidate needs edges both ways of at least 0.8: an auto node is
//!   one only with an injection linked to it that closely, and a merge of one is a
//!   limit (its part is neither a chunk nor an injection); `connect` pairs chunks
//!   only;
//! * the autotuner (a `maintain` with the health task, an `autotune`) measures the
//!   content alone, question nodes and their edges left out
//!   ([`crate::service::command::autotune::tune_content`]): what the replay's graph
//!   holds at that event.
//!
//! The auto nodes' metadata `born_seq` and `last_seq` are journal positions: a brain
//! that never had the forgotten chat holds the same nodes and edges at other
//! positions. The layer's nodes, their edge lists and an edge to an auto node come
//! back after the rest (last in node order, bucket order and their source's edge
//! list), not where a brain built without the forgotten content has them; weights,
//! kinds and metadata are the same.
//!
//! The tuning the replay starts from is the `before` of the journal's first `autotune`
//! entry (when the brain has one at all): the tuning the brain had before the
//! autotuner first ran, which the replayed runs move again as they moved it then.
//!
//! **Limits** (the replay is skipped, the weights are kept, and the report says why):
//! * a node that neither `init` of a folder or a conversation nor a journaled
//!   injection or `remember` makes, other than an auto question node (a `learning::`
//!   node, a node merged by `crabpath merge` or from a part that was itself merged or
//!   is a conversation turn, an injection of the `paper` profile or of a brain made
//!   before these entries);
//! * a `learn` entry naming an auto node (a `learn` given it by hand: answers never
//!   do);
//! * a node with an `authority` that no journaled `anchor` set (an anchor of the paper
//!   profile or made before anchors were journaled: the replay cannot tell since when);
//! * a `connect` followed by a `sync` that removed or rewrote chunks (the texts the
//!   run read are gone);
//! * a `sync` entry without its changes (the paper profile's, or one journaled
//!   before they were recorded), or one that set authorities (an authority map:
//!   decay and prune read a node's authority, which the replay does not move back);
//! * a `replay` entry without its episodes (the paper profile's, or written before
//!   they were recorded: the session logs it learned from are not in the journal);
//! * an entry of another type: a `compact_daily_notes` of the paper profile or of an
//!   earlier release (the corrected one journals each fact node it injects as an
//!   `inject` entry, [`COMPACT_NODES_JOURNALED`]), and a `maintenance` or
//!   `health` entry outside a recorded run: a maintenance journaled before `maintain`
//!   entries were written (its inputs are not recorded), or a health check of the
//!   `paper` profile, which cannot be told from it;
//! * a `learn` or `inject` entry of an event a rollback undid, when the rollback was
//!   made before rollbacks were journaled (or in the `paper` profile): its injected
//!   node is gone and stops the replay; its learns cannot be told apart and would be
//!   replayed, which is why the corrected profile journals every rollback;
//! * a replayed maintenance that merges other nodes than the brain did, or in another
//!   order, or that would prune a node the brain kept or keep one the brain pruned
//!   (the corrected prune removes only question nodes,
//!   [`crate::service::command::maintain::holds_user_content`], which are out of the
//!   graph during the replay; a brain whose maintenance ran under an earlier release's
//!   rule may have lost an injected node or a turn the replay keeps), and an event the
//!   rebuilt graph refuses (an injection or learn naming a node no longer there).
//!
//! A question node linked to a forgotten node (an edge of its birth to what the
//! conversation's previous turn fired: that turn is forgotten with the node, the
//! question asked after it stays) keeps its other edges, and a brain that never had
//! the node would have linked it to what that turn fired instead. An injection linked
//! to a forgotten node keeps its other links
//! (`forget` removes the forgotten neighbour from its entry, and a guardrail
//! correction's unlinked node from its own, [`super::forget`]); the search is not
//! redone, so a brain that never had the node may have linked the next nearest one
//! instead. The replay is its own write, after the content's removal
//! committed.
//!
//! Cost: O(N + E + Σ|event|) for N nodes (question nodes included), E edges and the
//! recorded inputs, plus each
//! replayed maintenance (a pass over the graph per task) and a write-back of every edge
//! (the whole graph is in scope).

use std::collections::{HashMap, HashSet};

use crabpath::graph::{Edge, Graph, Node, NodeId};
use crabpath::inject::{inhibit_neighbours, link_neighbours, CorrectionOptions, InjectConfig};
use crabpath::tuning::{Tuning, TUNING_META_KEY};
use pyformat::pyjson::{PyDict, PyValue};

use super::admin::ROLLBACK_EVENT;
use super::command::anchor::ANCHOR_EVENT;
use super::command::merge::{connect, CONNECT_EVENT};
use super::engine::{Brain, Scope};
use super::feedback::{veto, CORRECT_EVENT};
use super::guardrail::{unlink_outgoing, CorrectionMode};
use super::neurogenesis::{is_auto, NEUROGENESIS_EVENT};
use super::ops::INJECT_EVENT;
use crate::error::Result;
use crate::reference::journal::REPLAY_EVENT;
use crate::service::command::autotune::{apply, tuning_of};
use crate::service::command::learn::learn_ids_tuned;
use crate::service::command::maintain::{self, Flavor, MaintainOptions};
use crate::source::bootstrap::{chain_of, link_consecutive};
use crate::source::compact::COMPACT_NODES_JOURNALED;
use crate::source::conversation::entities::WordIndex;
use crate::source::conversation::{apply_join, join, link_turns, turn_of_node, Turn, CONVERSATION};
use crate::source::replay::{ReplayedEpisode, EPISODES_KEY};
use crate::source::sync::{split_node_id, SyncChanges, SYNC_EVENT};
use crate::store::working::Working;

/// What the replay did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relearned {
    /// The weights were rebuilt from the init graph and this many recorded learning
    /// events (learns, injections, corrections, maintenance and autotuner runs).
    Replayed(usize),
    /// The weights were kept; the reason (see the module docs' limits).
    Kept(String),
}

/// One recorded learning event, as read from its journal entry.
#[derive(Debug, Clone)]
enum Event {
    Learn(Vec<String>, f64),
    Inject {
        id: String,
        inhibit: bool,
        neighbours: Vec<(String, f64)>,
    },
    Correct {
        id: String,
        mode: CorrectionMode,
        unlinked: Vec<String>,
        steps: Vec<(String, String, f64)>,
        shares: Vec<(f64, Vec<String>)>,
    },
    Maintain {
        tasks: Vec<String>,
        max_merges: i64,
        prune_below: f64,
        flavor: Flavor,
    },
    Autotune,
    /// A dry maintenance run: nothing to replay, its entries skipped.
    DryMaintain,
    /// A conversation turn an agent added (`remember`; its node's id).
    Remember(String),
    /// A folder sync (corrected profile): its chunks added, its nodes removed, its
    /// files' chunks linked.
    Sync(SyncChanges),
    /// A `connect` run (corrected profile), run again on the graph as it then stands.
    Connect,
    /// A replay of session logs (`replay`, `init --sessions`; corrected profile): its
    /// learning updates, by node ids.
    Replay(Vec<ReplayedEpisode>),
    /// An authority change (`anchor`, corrected profile): the node, its authority
    /// before and after (`None`: none, i.e. `overlay`).
    Anchor {
        id: String,
        before: Option<serde_json::Value>,
        after: Option<serde_json::Value>,
    },
}

impl Event {
    fn name(&self) -> &'static str {
        match self {
            Event::Learn(..) => "learn",
            Event::Inject { .. } => INJECT_EVENT,
            Event::Correct { .. } => CORRECT_EVENT,
            Event::Maintain { .. } | Event::DryMaintain => maintain::MAINTAIN_EVENT,
            Event::Autotune => "autotune",
            Event::Remember(_) => "remember",
            Event::Sync(_) => SYNC_EVENT,
            Event::Anchor { .. } => ANCHOR_EVENT,
            Event::Connect => CONNECT_EVENT,
            Event::Replay(_) => REPLAY_EVENT,
        }
    }
}

fn strings(v: Option<&PyValue>) -> Option<Vec<String>> {
    v?.as_list()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// A `[string, number]` pair.
fn pair(v: &PyValue) -> Option<(String, f64)> {
    match v.as_list()? {
        [a, b] => Some((a.as_str()?.to_string(), b.as_number()?)),
        _ => None,
    }
}

/// The event of one entry: `Ok(None)` for a report (nothing to replay), `Err(why)`
/// for an entry the replay cannot repeat.
fn event_of(e: &PyDict) -> std::result::Result<Option<Event>, String> {
    let ty = e.get("type").and_then(PyValue::as_str).unwrap_or("?");
    let incomplete = || format!("a `{ty}` entry without its inputs");
    let ev = match ty {
        "query" => return Ok(None),
        "health" => {
            return match e.get("check") {
                Some(PyValue::Bool(true)) => Ok(None),
                _ => Err(
                    "a `health` entry of a maintenance run journaled without its inputs (before `maintain` entries were written), or of the paper profile's health check"
                        .into(),
                ),
            }
        }
        "learn" => {
            let fired = strings(e.get("fired")).unwrap_or_default();
            match e.get("outcome").and_then(PyValue::as_number) {
                Some(o) if !fired.is_empty() => Event::Learn(fired, o),
                _ => return Err(incomplete()),
            }
        }
        INJECT_EVENT => {
            let id = e.get("id").and_then(PyValue::as_str).ok_or_else(incomplete)?;
            let inhibit = matches!(e.get("inhibit"), Some(PyValue::Bool(true)));
            let neighbours: Option<Vec<(String, f64)>> = e
                .get("neighbours")
                .and_then(PyValue::as_list)
                .and_then(|l| l.iter().map(pair).collect());
            Event::Inject {
                id: id.to_string(),
                inhibit,
                neighbours: neighbours.ok_or_else(incomplete)?,
            }
        }
        CORRECT_EVENT => {
            let id = e.get("id").and_then(PyValue::as_str).ok_or_else(incomplete)?;
            let mode: CorrectionMode = e
                .get("mode")
                .and_then(PyValue::as_str)
                .and_then(|m| m.parse().ok())
                .ok_or_else(incomplete)?;
            let steps: Option<Vec<(String, String, f64)>> = e
                .get("steps")
                .and_then(PyValue::as_list)
                .and_then(|l| {
                    l.iter()
                        .map(|s| match s.as_list()? {
                            [f, t, w] => Some((
                                f.as_str()?.to_string(),
                                t.as_str()?.to_string(),
                                w.as_number()?,
                            )),
                            _ => None,
                        })
                        .collect()
                });
            let shares: Option<Vec<(f64, Vec<String>)>> = e
                .get("shares")
                .and_then(PyValue::as_list)
                .and_then(|l| {
                    l.iter()
                        .map(|s| match s.as_list()? {
                            [w, fired] => Some((w.as_number()?, strings(Some(fired))?)),
                            _ => None,
                        })
                        .collect()
                });
            Event::Correct {
                id: id.to_string(),
                mode,
                unlinked: strings(e.get("unlinked")).ok_or_else(incomplete)?,
                steps: steps.ok_or_else(incomplete)?,
                shares: shares.ok_or_else(incomplete)?,
            }
        }
        maintain::MAINTAIN_EVENT => {
            let flavor = match e.get("flavor").and_then(PyValue::as_str) {
                Some("cli") => Flavor::Cli,
                Some("daemon") => Flavor::Daemon,
                _ => return Err(incomplete()),
            };
            let max_merges = e
                .get("max_merges")
                .and_then(PyValue::as_number)
                .filter(|n| n.fract() == 0.0)
                .ok_or_else(incomplete)?;
            if matches!(e.get("dry_run"), Some(PyValue::Bool(true))) {
                // changed nothing: its entries are skipped with it (`events_of`)
                return Ok(Some(Event::DryMaintain));
            }
            Event::Maintain {
                tasks: strings(e.get("tasks")).ok_or_else(incomplete)?,
                max_merges: max_merges as i64,
                prune_below: e
                    .get("prune_below")
                    .and_then(PyValue::as_number)
                    .ok_or_else(incomplete)?,
                flavor,
            }
        }
        "autotune" => match e.get("dry_run") {
            Some(PyValue::Bool(false)) => Event::Autotune,
            Some(PyValue::Bool(true)) => return Ok(None),
            _ => return Err(incomplete()),
        },
        // born, refreshed, promoted, demoted, died, merged: the question layer only,
        // which comes back whole after the replay
        NEUROGENESIS_EVENT => return Ok(None),
        "remember" => Event::Remember(
            e.get("node_id")
                .and_then(PyValue::as_str)
                .ok_or_else(incomplete)?
                .to_string(),
        ),
        CONNECT_EVENT => Event::Connect,
        REPLAY_EVENT => {
            let episodes: Option<Vec<ReplayedEpisode>> = e
                .get(EPISODES_KEY)
                .and_then(PyValue::as_list)
                .and_then(|l| l.iter().map(ReplayedEpisode::from_value).collect());
            Event::Replay(episodes.ok_or(
                "a `replay` entry without its episodes (of the paper profile, or journaled before they were recorded)",
            )?)
        }
        // its fact nodes are journaled as injections of their own, after it
        "compact_daily_notes"
            if matches!(e.get(COMPACT_NODES_JOURNALED), Some(PyValue::Bool(true))) =>
        {
            return Ok(None)
        }
        ANCHOR_EVENT => {
            let value = |k: &str| match e.get(k) {
                Some(PyValue::Null) => Ok(None),
                Some(v) => v.to_json().map(Some).ok_or_else(incomplete),
                None => Err(incomplete()),
            };
            Event::Anchor {
                id: e
                    .get("id")
                    .and_then(PyValue::as_str)
                    .ok_or_else(incomplete)?
                    .to_string(),
                before: value("before")?,
                after: value("after")?,
            }
        }
        SYNC_EVENT => {
            if matches!(e.get("authority_set"), Some(PyValue::Dict(d)) if !d.is_empty()) {
                return Err(
                    "a `sync` that set authorities (its authority map), which the replay does not repeat"
                        .into(),
                );
            }
            Event::Sync(SyncChanges::read(e).ok_or(
                "a `sync` entry without its changes (of the paper profile, or journaled before they were recorded)",
            )?)
        }
        "maintenance" => {
            return Err(
                "a `maintenance` entry of a run journaled without its inputs (before `maintain` entries were written)"
                    .into(),
            )
        }
        other => {
            return Err(format!(
                "the journal holds a `{other}` entry, which replay cannot repeat"
            ))
        }
    };
    Ok(Some(ev))
}

/// The journal's learning events in order (see the module docs), less those a
/// `rollback` undid, and the tuning before the first autotuner run (its first
/// `autotune` entry's `before`); `Err(why)` when one cannot be replayed. `positions`:
/// each entry's journal position ([`crate::reference::journal::Journal::positions`]).
///
/// The history is a tree: each event points to the one before it, and a rollback to
/// position `to` takes the history back to where it stood after the last entry at or
/// before `to` (whatever rollbacks came in between). Cost: O(n log n) in the entries.
fn events_of(
    entries: &[PyDict],
    positions: &[i64],
) -> std::result::Result<(Vec<Event>, Option<serde_json::Value>), String> {
    // (event, the event before it)
    let mut tree: Vec<(Event, Option<usize>)> = Vec::new();
    let mut head: Option<usize> = None;
    // the history's head after each entry, by position
    let mut after: Vec<(i64, Option<usize>)> = Vec::with_capacity(entries.len());
    let mut first_tuning = None;
    let mut skip = 0usize;
    for (e, &pos) in entries.iter().zip(positions) {
        let ty = e.get("type").and_then(PyValue::as_str);
        if first_tuning.is_none() && ty == Some("autotune") {
            first_tuning = e.get("before").and_then(PyValue::to_json);
        }
        if skip > 0 {
            // an entry of the maintenance run just read: the run replays it
            skip -= 1;
        } else if ty == Some(ROLLBACK_EVENT) {
            let to = e
                .get("to")
                .and_then(PyValue::as_number)
                .ok_or("a `rollback` entry without its position")?;
            let k = after.partition_point(|&(p, _)| (p as f64) <= to);
            head = match k {
                0 => None,
                k => after[k - 1].1,
            };
        } else if let Some(ev) = event_of(e)? {
            if let Event::Maintain { .. } | Event::DryMaintain = ev {
                skip = e
                    .get("entries")
                    .and_then(PyValue::as_number)
                    .map_or(0, |n| n as usize);
            }
            if !matches!(ev, Event::DryMaintain) {
                tree.push((ev, head));
                head = Some(tree.len() - 1);
            }
        }
        after.push((pos, head));
    }
    let mut order = Vec::new();
    while let Some(i) = head {
        order.push(i);
        head = tree[i].1;
    }
    let mut slots: Vec<Option<Event>> = tree.into_iter().map(|(e, _)| Some(e)).collect();
    let events = order
        .into_iter()
        .rev()
        .filter_map(|i| slots[i].take())
        .collect();
    Ok((events, first_tuning))
}

/// The ids the journal's `inject` and `remember` entries made, and the chunks a
/// `sync` added that `init` did not make: nodes that leave the graph until their event
/// is replayed.
fn returning_ids<'a>(events: &'a [Event], at_init: &HashMap<&str, bool>) -> HashSet<&'a str> {
    let mut ids = injected_ids(events);
    ids.extend(events.iter().filter_map(|e| match e {
        Event::Remember(id) => Some(id.as_str()),
        _ => None,
    }));
    for e in events {
        if let Event::Sync(c) = e {
            ids.extend(
                c.added
                    .iter()
                    .filter(|id| at_init.get(id.as_str()) == Some(&false))
                    .map(String::as_str),
            );
        }
    }
    ids
}

/// The ids the journal's `inject` entries made.
fn injected_ids(events: &[Event]) -> HashSet<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Inject { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect()
}

/// For each chunk id a replayed `sync` names, whether `init` made it: a chunk the
/// first sync naming it removed was there; one it added was not.
fn present_at_init(events: &[Event]) -> HashMap<&str, bool> {
    let mut first: HashMap<&str, bool> = HashMap::new();
    for e in events {
        if let Event::Sync(c) = e {
            for id in &c.removed {
                first.entry(id.as_str()).or_insert(true);
            }
            for id in &c.added {
                first.entry(id.as_str()).or_insert(false);
            }
        }
    }
    first
}

/// The metadata key marking a stand-in ([`placeholder`], [`standin`]): a node whose
/// text is gone, which never outlives the replay.
const STANDIN_KEY: &str = "replay_standin";

/// Whether `n` is a stand-in.
fn is_standin(n: &Node) -> bool {
    n.metadata.contains_key(STANDIN_KEY)
}

/// A stand-in for an injected node a merge joined (its text is in the merged node):
/// its id alone, which is all the replay reads of it.
fn standin(id: &str) -> Node {
    let mut metadata = crabpath::graph::Metadata::new();
    metadata.insert(STANDIN_KEY.into(), serde_json::Value::Bool(true));
    Node {
        id: id.to_string(),
        content: String::new(),
        summary: String::new(),
        metadata,
    }
}

/// The parts of a node a maintenance merge made (`merged_from`, [`crabpath::maintain::apply_merge`]).
fn merged_parts(n: &Node) -> Option<[String; 2]> {
    if n.metadata.get("source").and_then(|v| v.as_str()) != Some("llm-merge") {
        return None;
    }
    match n.metadata.get("merged_from")?.as_array()?.as_slice() {
        [a, b] => Some([a.as_str()?.to_string(), b.as_str()?.to_string()]),
        _ => None,
    }
}

/// A stand-in for a chunk a sync removed or a merge joined (its text is gone with it):
/// its id, file and chunk number, which are all the replay reads of it (`init`'s
/// links, health's cross-file share; an empty text is as short as the chunk was when
/// it merged); it is removed again at that sync or merge. `None`: not a chunk id.
fn placeholder(id: &str) -> Option<Node> {
    let (file, chunk) = split_node_id(id)?;
    let mut n = standin(id);
    n.metadata.insert("file".into(), serde_json::json!(file));
    n.metadata.insert("chunk".into(), serde_json::json!(chunk));
    Some(n)
}

/// A node of `graph` by id (`None` if it is not a node).
fn node(graph: &Graph, id: &str) -> Option<NodeId> {
    graph.lookup(id).filter(|&n| graph.has_node(n))
}

/// Replays one event on `w` (see the module docs); `Err(why)` when the graph refuses
/// it.
/// `tuning` is the brain's tuning at that point of the replay; a maintenance or
/// autotuner run sets it anew. `stash`: the injected nodes and remembered turns not
/// yet made again (taken out of the graph before the replay, so that no event before
/// their own sees them). `conversation`: the conversation's turns heard so far, in
/// order, which a replayed `remember` joins, and `words`, the link words of their
/// texts, split once for the whole replay.
fn replay(
    w: &mut Working<'_>,
    ev: &Event,
    profile: crabpath::profile::Profile,
    tuning: &mut Tuning,
    stash: &mut HashMap<String, Node>,
    conversation: &mut Vec<Turn>,
    words: &mut WordIndex,
) -> Result<std::result::Result<(), String>> {
    match ev {
        Event::Remember(id) => {
            // a turn forgotten since has no node to bring back: a brain that never
            // heard it never added it
            let Some(mut n) = stash.remove(id.as_str()) else {
                return Ok(Ok(()));
            };
            let Some(turn) = turn_of_node(&n.id, &n.content, &n.metadata) else {
                return Ok(Err(format!("node `{id}` is not a conversation turn")));
            };
            // where `remember` put it then: its place among the turns heard by then
            let joined = join(conversation, turn, words);
            n.metadata
                .insert("turn".into(), serde_json::Value::from(joined.position));
            let g = &mut *w.graph;
            let me = g.add_node(n);
            apply_join(g, me, id, &joined)?;
        }
        Event::Learn(fired, outcome) => {
            if let Some(q) = fired.iter().find(|f| is_auto(f)) {
                // answers leave question nodes out of what fired: a `learn` given by hand
                return Ok(Err(format!(
                    "it names the question node `{q}`, which the replay leaves out"
                )));
            }
            if let Err(e) = learn_ids_tuned(w.graph, fired, *outcome, profile, tuning) {
                return Ok(Err(e.to_string()));
            }
        }
        Event::Inject {
            id,
            inhibit,
            neighbours,
        } => {
            let g = &mut *w.graph;
            // the node comes back where its injection made it
            let Some(n) = stash.remove(id.as_str()) else {
                return Ok(Err(format!("node `{id}` is no longer in the brain")));
            };
            let me = g.add_node(n);
            let mut linked = Vec::with_capacity(neighbours.len());
            for (n, score) in neighbours {
                if is_auto(n) {
                    // a question node: out of the graph during the replay; the edges
                    // between it and the injected node come back with the question
                    // layer (each neighbour's edges are its own, `link_neighbours`)
                    continue;
                }
                match node(g, n) {
                    Some(other) => linked.push((other, *score)),
                    None => return Ok(Err(format!("neighbour `{n}` is no longer in the brain"))),
                }
            }
            link_neighbours(g, me, &linked)?;
            if *inhibit {
                inhibit_neighbours(
                    g,
                    me,
                    &linked,
                    &CorrectionOptions::default(),
                    &InjectConfig::for_profile(profile),
                )?;
            }
        }
        Event::Correct {
            id,
            mode,
            unlinked,
            steps,
            shares,
        } => match mode {
            CorrectionMode::Guardrail => unlink_outgoing(w.graph, id, unlinked),
            CorrectionMode::Veto => {
                veto(w.graph, id, steps, shares)?;
            }
            CorrectionMode::GuardrailShared => {}
        },
        Event::Maintain {
            tasks,
            max_merges,
            prune_below,
            flavor,
        } => {
            let tuning_before = w.meta.get(TUNING_META_KEY).cloned();
            let options = MaintainOptions {
                requested: tasks.clone(),
                dry_run: false,
                max_merges: *max_merges,
                prune_below: *prune_below,
                flavor: *flavor,
                journal: false,
                embedder: None,
            };
            // a merge makes its node again from stand-ins of the parts (their texts are
            // given back after the replay, `Brain::relearn`)
            let r = maintain::run(w, &options, profile)?;
            if !r.should_save {
                // the run was not saved then (`Brain::maintain`): nothing of it stays
                restore(w, tuning_before);
            }
            *tuning = tuning_of(w.meta, profile)?;
        }
        Event::Sync(c) => {
            let g = &mut *w.graph;
            for id in &c.added {
                // the chunk as the brain has it now, or a stand-in for one a later
                // sync removes again
                let Some(n) = stash.remove(id.as_str()).or_else(|| placeholder(id)) else {
                    return Ok(Err(format!("`{id}` is not a chunk id")));
                };
                g.add_node(n);
            }
            for id in &c.removed {
                let Some(n) = node(g, id) else {
                    return Ok(Err(format!(
                        "node `{id}`, which it removed, is not in the brain"
                    )));
                };
                if let Some(gone) = g.remove_node(n) {
                    // a later sync may add it again
                    stash.insert(id.clone(), gone);
                }
            }
            for (file, chunks) in &c.linked {
                let ids: Vec<Option<&str>> = chunks.iter().map(Option::as_deref).collect();
                let chain = chain_of(g, &ids);
                link_consecutive(g, file, &chain, true)?;
            }
        }
        Event::Replay(episodes) => {
            for ep in episodes {
                if let Err(e) = ep.apply(w.graph, profile) {
                    return Ok(Err(e.to_string()));
                }
            }
        }
        Event::Connect => {
            if let Some((_, n)) = w.graph.nodes().find(|(_, n)| is_standin(n)) {
                return Ok(Err(format!(
                    "it read the text of `{}`, which is gone (a sync removed it, or a merge joined it)",
                    n.id
                )));
            }
            connect(w.graph)?;
        }
        Event::Anchor { id, after, .. } => {
            let Some(n) = node(w.graph, id).and_then(|n| w.graph.node_mut(n)) else {
                return Ok(Err(format!("node `{id}` is not in the brain")));
            };
            set_authority(n, after.clone());
        }
        Event::DryMaintain => {}
        Event::Autotune => {
            let tuning_before = w.meta.get(TUNING_META_KEY).cloned();
            let moved = apply(w, profile)?.is_some_and(|s| s.changes());
            if !moved {
                // `Brain::autotune` saves only a run that moves a knob
                restore(w, tuning_before);
            }
            *tuning = tuning_of(w.meta, profile)?;
        }
    }
    Ok(Ok(()))
}

/// The question layer ([`super::neurogenesis`]): the auto nodes, and every edge from
/// or to one, in graph order, as they are before the replay. An auto node's own
/// edges go from it to content (birth, credit, merge); an edge *to* one is made only
/// by an injection that found it among its nearest vectors.
struct QuestionLayer {
    /// The auto nodes' ids, in node order.
    ids: Vec<String>,
    nodes: Vec<Node>,
    /// (source id, target id, edge).
    edges: Vec<(String, String, Edge)>,
}

impl QuestionLayer {
    /// The question layer of `g` (left in place).
    fn take(g: &Graph) -> QuestionLayer {
        let nodes: Vec<Node> = g
            .nodes()
            .filter(|(_, n)| is_auto(&n.id))
            .map(|(_, n)| n.clone())
            .collect();
        let edges = g
            .edges()
            .filter(|&(s, t, _)| is_auto(g.name(s)) || is_auto(g.name(t)))
            .map(|(s, t, e)| (g.name(s).to_string(), g.name(t).to_string(), e.clone()))
            .collect();
        QuestionLayer {
            ids: nodes.iter().map(|n| n.id.clone()).collect(),
            nodes,
            edges,
        }
    }

    /// Puts the layer back into `g`: its nodes, then its edges (an edge to a node no
    /// longer there is left out).
    fn restore(self, g: &mut Graph) -> Result<()> {
        for n in self.nodes {
            g.add_node(n);
        }
        for (s, t, e) in self.edges {
            if let (Some(a), Some(b)) = (node(g, &s), node(g, &t)) {
                g.add_edge(a, b, e)?;
            }
        }
        Ok(())
    }
}

/// Sets node `n`'s `authority` metadata (`None`: removed, as `anchor --remove` does).
fn set_authority(n: &mut Node, a: Option<serde_json::Value>) {
    match a {
        Some(v) => {
            n.metadata.insert("authority".into(), v);
        }
        None => {
            n.metadata.shift_remove("authority");
        }
    }
}

/// Each anchored node's authority before the journal's first `anchor` entry of it:
/// where the replay starts it.
fn authority_at_start(events: &[Event]) -> HashMap<&str, Option<serde_json::Value>> {
    let mut first = HashMap::new();
    for e in events {
        if let Event::Anchor { id, before, .. } = e {
            first.entry(id.as_str()).or_insert_with(|| before.clone());
        }
    }
    first
}

/// Puts the tuning entry of `meta` back as it was.
fn restore(w: &mut Working<'_>, tuning: Option<serde_json::Value>) {
    match tuning {
        Some(v) => {
            w.meta.insert(TUNING_META_KEY.into(), v);
        }
        None => {
            w.meta.shift_remove(TUNING_META_KEY);
        }
    }
}

impl Brain {
    /// Rebuilds the weights from the init graph of the brain's nodes and the journal's
    /// remaining learning events (see the module docs). An event the graph refuses
    /// leaves the weights as they were ([`Relearned::Kept`], naming it). Errors: SQLite
    /// or I/O.
    ///
    /// `gone`: the ids just forgotten. A folder chunk among them (`<file>::<chunk>`)
    /// keeps its place in its file's chain, so the init edges are those of the whole
    /// file less the pairs it was in (the chunks around it are not linked to each other
    /// as a file without it would link them).
    pub fn relearn(&mut self, gone: &[String]) -> Result<Relearned> {
        let journal = self.journal_entries()?;
        if !journal.malformed.is_empty() {
            return Ok(Relearned::Kept("the journal has malformed lines".into()));
        }
        let (events, first_tuning) = match events_of(&journal.entries, &journal.positions) {
            Ok(x) => x,
            Err(why) => return Ok(Relearned::Kept(why)),
        };
        // a `connect` reads the texts of the chunks; a later sync that removed or rewrote
        // one leaves the replay other texts than the run read
        let mut connected = false;
        for ev in &events {
            match ev {
                Event::Connect => connected = true,
                Event::Sync(c) if connected && !(c.removed.is_empty() && c.updated.is_empty()) => {
                    return Ok(Relearned::Kept(
                        "a `connect` ran before a `sync` that removed or rewrote chunks: the texts it read are gone".into(),
                    ));
                }
                _ => {}
            }
        }
        let profile = self.profile;
        self.write(Scope::All, |w| {
            let at_init = present_at_init(&events);
            let returning = returning_ids(&events, &at_init);
            // every node here stays: a replay that removes one is not this brain's
            let present: Vec<String> = w.graph.nodes().map(|(_, n)| n.id.clone()).collect();
            // the chunks `init` made that a sync removed since: stand-ins until then
            let gone_ids: HashSet<&str> = gone.iter().map(String::as_str).collect();
            let mut missing: Vec<&str> = at_init
                .iter()
                .filter(|&(id, &init)| init && !gone_ids.contains(id) && node(w.graph, id).is_none())
                .map(|(&id, _)| id)
                .collect();
            missing.sort_unstable();
            for id in missing {
                let Some(n) = placeholder(id) else {
                    w.discard();
                    return Ok(Relearned::Kept(format!("a `sync` removed `{id}`, which is not a chunk id")));
                };
                w.graph.add_node(n);
            }
            // the question layer, as it is now: its nodes and every edge from or to one
            // (come back whole after the replay). Taken before anything is set aside:
            // a merged node leaves the graph below with its edges, and a question
            // node's edge to it (its birth or credit edge to a part, moved by the
            // merge) was lost from the layer, so the replay gave a brain unlike one
            // that never had the forgotten content, with nothing said
            let questions = QuestionLayer::take(w.graph);
            // the nodes maintenance merged: set aside, made again by the replayed merge
            // from stand-ins of their parts, then given back their text and metadata
            let injected = injected_ids(&events);
            let made: Vec<(NodeId, [String; 2])> = w
                .graph
                .nodes()
                .filter_map(|(n, node)| Some((n, merged_parts(node)?)))
                .collect();
            let mut merged: Vec<Node> = Vec::with_capacity(made.len());
            let mut injected_parts: Vec<String> = Vec::new();
            for (n, parts) in made {
                let name = w.graph.name(n).to_string();
                for p in parts {
                    let why = if node(w.graph, &p).is_some() || p.starts_with("merged:") {
                        Some("which is in the brain again, or was itself merged")
                    } else if injected.contains(p.as_str()) {
                        injected_parts.push(p.clone());
                        None
                    } else if at_init.get(p.as_str()) == Some(&false) {
                        None // a sync adds it: a stand-in then
                    } else if let Some(s) = placeholder(&p) {
                        w.graph.add_node(s);
                        None
                    } else {
                        Some("which neither init of a folder nor an injection made")
                    };
                    if let Some(why) = why {
                        w.discard();
                        return Ok(Relearned::Kept(format!(
                            "node `{name}` merged `{p}`, {why}"
                        )));
                    }
                }
                if let Some(node) = w.graph.remove_node(n) {
                    merged.push(node);
                }
            }
            // the init graph's edges: per file, consecutive chunks in chunk order (a
            // forgotten chunk, `None`, holding its place)
            type Chain = Vec<(u64, Option<NodeId>)>;
            let mut files: Vec<(String, Chain)> = Vec::new();
            let mut slot: HashMap<String, usize> = HashMap::new();
            let mut foreign = None;
            // the turns of a conversation heard before the journal's first `remember`
            // (`init --conversation`'s): their `metadata.turn`, node order, node
            let mut heard: Vec<(u64, usize, NodeId)> = Vec::new();
            for (i, (n, node)) in w.graph.nodes().enumerate() {
                let file = node.metadata.get("file").and_then(|v| v.as_str());
                let chunk = node.metadata.get("chunk").and_then(|v| v.as_u64());
                if returning.contains(node.id.as_str()) {
                    // an injection, a remembered turn or a chunk a sync added: comes
                    // back at its event
                    continue;
                }
                let (Some(file), Some(chunk)) = (file, chunk) else {
                    let turn = node.metadata.get("turn").and_then(|v| v.as_u64());
                    let kind = node.metadata.get("kind").and_then(|v| v.as_str());
                    if is_auto(&node.id) {
                        // a question node is of the layer set aside below
                        continue;
                    }
                    match (kind, turn) {
                        (Some(CONVERSATION), Some(turn)) => heard.push((turn, i, n)),
                        _ => {
                            foreign = Some(node.id.clone());
                            break;
                        }
                    }
                    continue;
                };
                match slot.get(file) {
                    Some(&i) => files[i].1.push((chunk, Some(n))),
                    None => {
                        slot.insert(file.to_string(), files.len());
                        files.push((file.to_string(), vec![(chunk, Some(n))]));
                    }
                }
            }
            if let Some(id) = foreign {
                w.discard();
                return Ok(Relearned::Kept(format!(
                    "node `{id}` was made neither by init of a folder or a conversation nor by a journaled injection or remember"
                )));
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
            let g = &mut *w.graph;
            // removed last first: each removal then takes the end of its bucket and of
            // the bucket list, not a shift of everything after it
            let edges: Vec<_> = g.edges().map(|(s, t, _)| (s, t)).collect();
            for &(s, t) in edges.iter().rev() {
                g.remove_edge(s, t);
            }
            for (file, chain) in &files {
                let chain: Vec<Option<NodeId>> = chain.iter().map(|c| c.1).collect();
                link_consecutive(g, file, &chain, false)?;
            }
            // the conversation heard first: its turns in their order, renumbered as a
            // brain that never heard a forgotten one numbers them, and linked as
            // `init --conversation` links them
            heard.sort_unstable();
            let mut conversation: Vec<Turn> = Vec::with_capacity(heard.len());
            let mut words = WordIndex::default();
            let mut turn_nodes = Vec::with_capacity(heard.len());
            for (position, &(_, _, n)) in heard.iter().enumerate() {
                if let Some(node) = g.node_mut(n) {
                    node.metadata
                        .insert("turn".into(), serde_json::Value::from(position));
                    conversation.extend(turn_of_node(&node.id, &node.content, &node.metadata));
                    turn_nodes.push(n);
                }
            }
            link_turns(g, &conversation, &turn_nodes)?;
            // the injected nodes and remembered turns leave until their event is replayed
            let mut stash: HashMap<String, Node> = HashMap::new();
            for ev in &events {
                let ids: Vec<&String> = match ev {
                    Event::Inject { id, .. } | Event::Remember(id) => vec![id],
                    Event::Sync(c) => c
                        .added
                        .iter()
                        .filter(|id| returning.contains(id.as_str()))
                        .collect(),
                    _ => Vec::new(),
                };
                for id in ids {
                    if let Some(n) = node(g, id) {
                        if let Some(removed) = g.remove_node(n) {
                            stash.insert(id.clone(), removed);
                        }
                    }
                }
            }
            for id in &questions.ids {
                if let Some(n) = node(g, id) {
                    g.remove_node(n);
                }
            }
            for id in injected_parts {
                stash.insert(id.clone(), standin(&id));
            }
            // authorities as they were before the journaled anchors; one no anchor set
            // (an anchor of the paper profile, or before anchors were journaled) would
            // be replayed from the start: the weights are kept
            let start = authority_at_start(&events);
            let unexplained = g
                .nodes()
                .map(|(_, n)| n)
                .chain(stash.values())
                .find(|n| {
                    // `overlay` is the authority of a node without one (a compacted
                    // fact is injected with it)
                    n.metadata.get("authority").is_some_and(|a| a != "overlay")
                        && !start.contains_key(n.id.as_str())
                })
                .map(|n| n.id.clone());
            if let Some(id) = unexplained {
                w.discard();
                return Ok(Relearned::Kept(format!(
                    "node `{id}` has an authority no journaled `anchor` set (an anchor made before they were journaled, or of the paper profile)"
                )));
            }
            for (id, a) in &start {
                if let Some(n) = stash.get_mut(*id) {
                    set_authority(n, a.clone());
                } else if let Some(n) = node(g, id).and_then(|n| g.node_mut(n)) {
                    set_authority(n, a.clone());
                }
            }
            // the tuning before the autotuner first ran (a brain whose tuning was
            // never saved keeps none)
            if let (Some(t), true) = (first_tuning, w.meta.contains_key(TUNING_META_KEY)) {
                w.meta.insert(TUNING_META_KEY.into(), t);
            }
            let mut tuning = tuning_of(w.meta, profile)?;
            let total = events.len();
            for (i, ev) in events.iter().enumerate() {
                let i = i + 1;
                // an autotuner run reads the content alone (question nodes left out,
                // `tune_content`): the graph the replay rebuilds
                let done = replay(
                    w,
                    ev,
                    profile,
                    &mut tuning,
                    &mut stash,
                    &mut conversation,
                    &mut words,
                )?;
                if let Err(why) = done {
                    w.discard();
                    return Ok(Relearned::Kept(format!(
                        "{} event {i} of {total} cannot be replayed: {why}",
                        ev.name(),
                    )));
                }
            }
            let any_merged = !merged.is_empty();
            for m in merged {
                match node(w.graph, &m.id).and_then(|n| w.graph.node_mut(n)) {
                    Some(n) => {
                        n.content = m.content;
                        n.summary = m.summary;
                        n.metadata = m.metadata;
                    }
                    None => {
                        w.discard();
                        return Ok(Relearned::Kept(format!(
                            "the replay does not merge `{}` again",
                            m.id
                        )));
                    }
                }
            }
            if any_merged {
                // merges taken in another order would leave the same nodes elsewhere
                let content = |ids: &mut dyn Iterator<Item = String>| -> Vec<String> {
                    ids.filter(|id| !is_auto(id)).collect()
                };
                let now = content(&mut w.graph.nodes().map(|(_, n)| n.id.clone()));
                if now != content(&mut present.iter().cloned()) {
                    w.discard();
                    return Ok(Relearned::Kept(
                        "the replay merges nodes in another order than the brain did".into(),
                    ));
                }
            }
            questions.restore(w.graph)?;
            if let Some(id) = present.iter().find(|id| node(w.graph, id).is_none()) {
                w.discard();
                return Ok(Relearned::Kept(format!(
                    "the replay would remove node `{id}`, which the brain kept (pruned once the links to the forgotten nodes were gone)"
                )));
            }
            let kept: HashSet<&str> = present.iter().map(String::as_str).collect();
            let extra = w
                .graph
                .nodes()
                .map(|(_, n)| n.id.clone())
                .find(|id| !kept.contains(id.as_str()));
            if let Some(id) = extra {
                w.discard();
                return Ok(Relearned::Kept(format!(
                    "the replay would keep node `{id}`, which the brain no longer has"
                )));
            }
            Ok(Relearned::Replayed(total))
        })
    }
}
