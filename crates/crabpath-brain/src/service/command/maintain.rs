//! `crabpath maintain` and the daemon's `maintain` method: health, decay, prune, merge
//! and connect on a loaded state, with the reference's journal entries and report
//! (reference `crabpath/maintain.py::run_maintenance` and
//! `crabpath/daemon.py::_handle_maintain`, commit 134c676).
//!
//! Tasks run in the fixed order health, decay, prune, merge, connect, whatever the
//! request order; unknown names are noted (`Unknown tasks skipped: a, b`).
//!
//! * **health** — journal a `health` entry with the health before; corrected profile:
//!   then the autotuner ([`super::autotune`], issue 31 item 3: health → autotune →
//!   guardrails → apply to the brain's `meta`, an `autotune` entry journaled);
//! * **decay** — one [`apply_decay_with`] step (default half-life 80, minimum 0.01;
//!   corrected: the brain's tuned half-life, [`super::autotune::tuning_of`]),
//!   constitutional sources skipped, canonical sources at half speed;
//! * **prune** — [`prune_edges`] below `prune_below`, then [`prune_orphan_nodes`]
//!   (corrected: [`prune_orphans_keeping`] workspace nodes and conversation turns,
//!   and the removed nodes' vectors deleted with them);
//! * **merge** — [`suggest_merges`] without a judge; pairs touching a constitutional
//!   node dropped, and (command line only) pairs touching a canonical node; the first
//!   `max_merges` of the rest applied (Python slice: a negative value applies all but
//!   the last `|n|`);
//! * **connect** — [`connect_learning_nodes`] when `learning::` nodes exist.
//!
//! Command line ([`Flavor::Cli`]): a `maintenance` journal entry per task after
//! health, and a `health` entry with the health after — also in a dry run. Daemon
//! ([`Flavor::Daemon`]): no `maintenance` entries, the after-health only when not a dry
//! run, merges in a dry run counted without merging.
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | M2 | merges leave the index stale (as `merge`, fix G1 of [`super::merge`]) | the index follows the merges | 2 stale vectors and 1 node without one → none (`maintain_merges_keep_the_index_fresh` in `crabpath-cli`'s tests) |
//! | M3 | prune removes every orphaned overlay node, workspace chunks included: a single-chunk file's only node has no edge from `init` on, so the first default `maintain` drops the file from the brain, and `sync` (which re-splits changed files only) never puts it back | nodes with `file` metadata are never pruned: a chunk leaves the brain when its file does (`sync`); only nodes of no file (injected, learning, merged) are pruned when orphaned | a folder of 9 single-chunk files and 2 three-section files, 17 nodes: default `maintain` 17 → 8 nodes, `query` of a single-chunk file's word finds nothing vs. 17 → 17, found (`maintain_keeps_single_chunk_files` in `crabpath-cli`'s tests) |
//! | M4 | pruned nodes leave their vectors behind (the reference's index keeps them): the brain has vectors without a node, and `doctor` fails advising a `sync` that changes nothing | a pruned node's vector is deleted in the same write transaction as its rows | 3 nodes injected into the 17-node brain of M3, `maintain --tasks decay,prune --prune-below 0.45`: 20 → 8 nodes, 12 vectors without a node, `doctor` fails → 20 → 17 (the injected nodes, M3), their 3 vectors gone too, `doctor` passes (`pruned_nodes_take_their_vectors`); `kill -9` at any moment leaves the rows before or after (`kill_9_mid_maintain_leaves_before_or_after`) |
//! | M5 | (this port, before) a conversation turn with no edge was pruned as an orphan: a turn `remember` added to a folder brain, or the first turn of a new session that shares no rare word with another, was gone after the first default `maintain` | a turn (`kind` `conversation`) is never pruned either: it is what was said, and leaves only by `forget` | `remember` in a new session, then `maintain`: the turn gone vs. kept (`maintain_safety::maintain_keeps_a_remembered_turn_without_links` in `crabpath-cli`'s tests) |
//! | M1 | `connect` with `learning::` nodes and vectors crashes: `maintain.py` calls `apply_connections` without importing it (`NameError`) | the learning nodes are connected to their nearest workspace nodes (no `file` metadata needed, profile table item 9) | exit 1 / error −1 vs. `connected: 6` |

use crate::service::neurogenesis::NeurogenesisMaintain;
use crate::store::working::Working;
use crabpath::decay::{apply_decay_with, DecayConfig};
use crabpath::embed::Embedder;
use crabpath::graph::NodeId;
use crabpath::maintain::{
    apply_merge, authority, connect_learning_nodes, prune_edges, prune_orphan_nodes,
    prune_orphans_keeping, suggest_merges, Authority, ConnectOptions, LEARNING_PREFIX,
};
use crabpath::profile::Profile;
use pyformat::pyjson::{PyDict, PyInt, PyValue};
use pyformat::pystr;

use super::merge::refresh_index_after_merge;

use super::HealthPayload;
use crate::error::{Error, Result};

/// Whether a node is text of the brain's sources, which maintenance never prunes
/// (corrected profile, M3 and M5): a chunk of a file (`file` metadata) or a turn of a
/// conversation (`kind` [`crate::source::conversation::CONVERSATION`]).
fn is_source_text(node: &crabpath::graph::Node) -> bool {
    node.file().is_some()
        || node
            .metadata
            .get("kind")
            .and_then(serde_json::Value::as_str)
            == Some(crate::source::conversation::CONVERSATION)
}

/// The fixed execution order of the tasks.
pub const TASK_ORDER: [&str; 5] = ["health", "decay", "prune", "merge", "connect"];
/// The tasks run when none are given.
pub const DEFAULT_TASKS: &str = "health,decay,merge,prune";
/// The note a dry run adds.
pub const DRY_RUN_NOTE: &str = "dry_run=True; no state write performed";

/// Which caller's semantics (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `crabpath maintain`.
    Cli,
    /// The daemon's `maintain` method.
    Daemon,
}

/// Splits a `--tasks` value: at `,`, each stripped, empties dropped; with `dedup`,
/// later repeats dropped (the command line; the daemon keeps them in its note).
pub fn parse_tasks(list: &str, dedup: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in list.split(',').map(pystr::strip).filter(|t| !t.is_empty()) {
        if dedup && out.iter().any(|o| o == t) {
            continue;
        }
        out.push(t.to_string());
    }
    out
}

/// Checks requested task names against [`TASK_ORDER`] (the corrected profile's command
/// line and daemon; the reference only notes `Unknown tasks skipped`, so `--tasks bogus`
/// ran nothing and exited 0). `Err`: `unknown task "bogus" (the tasks are health, decay,
/// prune, merge, connect)`.
pub fn check_task_names(requested: &[String]) -> std::result::Result<(), String> {
    match requested.iter().find(|t| !TASK_ORDER.contains(&t.as_str())) {
        Some(t) => Err(format!(
            "unknown task {t:?} (the tasks are {})",
            TASK_ORDER.join(", ")
        )),
        None => Ok(()),
    }
}

/// Options of [`run`].
pub struct MaintainOptions<'a> {
    /// Requested task names (already split; see [`parse_tasks`]).
    pub requested: Vec<String>,
    /// Report only: the caller does not save (and the daemon works on a copy).
    pub dry_run: bool,
    /// Merges applied at most (Python slice semantics for negative values).
    pub max_merges: i64,
    /// Edges with `|w|` below this are pruned.
    pub prune_below: f64,
    /// Command line or daemon.
    pub flavor: Flavor,
    /// Whether to journal the run's entries.
    pub journal: bool,
    /// Embedder for nodes without an index vector (connect task).
    pub embedder: Option<&'a dyn Embedder>,
}

/// What a maintenance run did (the reference's `MaintenanceReport`).
#[derive(Debug, Clone, PartialEq)]
pub struct MaintainReport {
    /// Health before.
    pub health_before: HealthPayload,
    /// Health after.
    pub health_after: HealthPayload,
    /// Tasks run, in execution order.
    pub tasks_run: Vec<&'static str>,
    /// Decay ran and is not a dry run.
    pub decay_applied: bool,
    /// Edge count before.
    pub edges_before: usize,
    /// Edge count after.
    pub edges_after: usize,
    /// Merge pairs left after the authority filter.
    pub merges_proposed: usize,
    /// Merges applied (counted only, in a daemon dry run).
    pub merges_applied: usize,
    /// Edges pruned.
    pub pruned_edges: usize,
    /// Orphan nodes pruned.
    pub pruned_nodes: usize,
    /// Notes (unknown tasks, skipped connect, dry run).
    pub notes: Vec<String>,
    /// What the autotuner did after the health task (corrected profile).
    pub autotune: Option<crabpath::autotuner::TuneStep>,
    /// The auto nodes that died and merged after the tasks (seed 001 §2.8, issue 31
    /// item 1; corrected profile, set by [`Brain::maintain`](crate::Brain::maintain);
    /// `None` in the `paper` profile, which has no neurogenesis).
    pub neurogenesis: Option<NeurogenesisMaintain>,
    /// The snapshot taken before the autotuner moved a parameter (`rollback` to it
    /// undoes the tuning; issue 31 item 3); `None` when nothing moved or in a dry run.
    pub autotune_snapshot: Option<String>,
    /// Whether the state changed in a way that must be saved (not a dry run, and a
    /// mutating task ran).
    pub should_save: bool,
}

impl MaintainReport {
    /// The autotuner's step as the command line's `--json` and the daemon report it
    /// ([`super::autotune::step_dict`]), with `snapshot` when one was taken first.
    pub fn autotune_dict(&self) -> Option<PyDict> {
        let mut d = super::autotune::step_dict(self.autotune.as_ref()?);
        if let Some(name) = &self.autotune_snapshot {
            d.insert("snapshot".into(), PyValue::Str(name.clone()));
        }
        Some(d)
    }
}

fn int(n: usize) -> PyValue {
    PyValue::Int(PyInt::from(n as i64))
}

fn maintenance_event(task: &str, fields: &[(&str, PyValue)], dry_run: bool) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str("maintenance".into()));
    e.insert("task".into(), PyValue::Str(task.into()));
    for (k, v) in fields {
        e.insert((*k).into(), v.clone());
    }
    e.insert("dry_run".into(), PyValue::Bool(dry_run));
    e
}

/// Python `seq[:n]` length for a sequence of length `len`.
fn slice_len(len: usize, n: i64) -> usize {
    if n >= 0 {
        len.min(n as usize)
    } else {
        len.saturating_sub(n.unsigned_abs() as usize)
    }
}

/// Runs the requested tasks on `state` in place (see the module docs). A daemon dry
/// run must be given a copy (merges are counted, not applied, but decay and prune do
/// run); the command line always works on a copy and saves it when
/// [`MaintainReport::should_save`].
///
/// Errors: a journal that cannot be appended to; in the paper profile the reference's
/// `NameError` when the connect task finds learning nodes and workspace vectors.
pub fn run(
    w: &mut Working<'_>,
    options: &MaintainOptions<'_>,
    profile: Profile,
) -> Result<MaintainReport> {
    run_after_snapshot(w, options, profile, None)
}

/// [`run`] after [`Brain::maintain`](crate::Brain::maintain) took `snapshot` because
/// the autotuner is about to move a parameter: its `autotune` journal entry names the
/// snapshot, which `rollback` restores (issue 31 item 3).
pub fn run_after_snapshot(
    w: &mut Working<'_>,
    options: &MaintainOptions<'_>,
    profile: Profile,
    snapshot: Option<&str>,
) -> Result<MaintainReport> {
    let cli = options.flavor == Flavor::Cli;
    let dry = options.dry_run;
    let selected: Vec<&'static str> = TASK_ORDER
        .iter()
        .copied()
        .filter(|t| options.requested.iter().any(|r| r == t))
        .collect();
    let unknown: Vec<&str> = options
        .requested
        .iter()
        .map(String::as_str)
        .filter(|r| !TASK_ORDER.contains(r))
        .collect();
    let mut entries: Vec<PyDict> = Vec::new();
    let mut log = |event: PyDict| -> Result<()> {
        if options.journal {
            entries.push(event);
        }
        Ok(())
    };
    let health_before = HealthPayload::of(w.graph);
    let mut report = MaintainReport {
        health_before,
        health_after: health_before,
        tasks_run: Vec::new(),
        decay_applied: false,
        edges_before: w.graph.edge_count(),
        edges_after: 0,
        merges_proposed: 0,
        merges_applied: 0,
        pruned_edges: 0,
        pruned_nodes: 0,
        notes: Vec::new(),
        autotune: None,
        neurogenesis: None,
        autotune_snapshot: snapshot.map(str::to_string),
        should_save: false,
    };
    if !unknown.is_empty() {
        report
            .notes
            .push(format!("Unknown tasks skipped: {}", unknown.join(", ")));
    }
    for &task in &selected {
        report.tasks_run.push(task);
        let graph = &mut *w.graph;
        match task {
            "health" => {
                log(health_before.event())?;
                report.autotune = super::autotune::apply(w, profile)?;
                if let Some(step) = &report.autotune {
                    log(if dry {
                        super::autotune::autotune_event(step, dry)
                    } else {
                        super::autotune::autotune_event_after(step, snapshot)
                    })?;
                }
            }
            "decay" => {
                let by = |a: Authority| -> Vec<bool> {
                    let mut v = vec![false; graph.symbol_count()];
                    for n in graph.node_ids() {
                        v[n.index()] = authority(graph, n) == a;
                    }
                    v
                };
                let (constitutional, canonical) =
                    (by(Authority::Constitutional), by(Authority::Canonical));
                let has = |v: &Vec<bool>, s: NodeId| v.get(s.index()).copied().unwrap_or(false);
                let changed = apply_decay_with(
                    graph,
                    &super::autotune::tuning_of(w.meta, profile)?.decay(&DecayConfig::default()),
                    |s| has(&constitutional, s),
                    |s| if has(&canonical, s) { 2.0 } else { 1.0 },
                );
                report.decay_applied = !dry;
                if cli {
                    log(maintenance_event(
                        "decay",
                        &[("edges_decayed", int(changed))],
                        dry,
                    ))?;
                }
            }
            "prune" => {
                let edges = prune_edges(graph, options.prune_below);
                let nodes = if profile.fixes_bugs() {
                    // M3, M4, M5: workspace nodes and conversation turns stay; a
                    // removed node takes its vector with it (in the operation's one
                    // write)
                    let removed = prune_orphans_keeping(graph, is_source_text);
                    for id in &removed {
                        w.vectors.remove(id);
                    }
                    removed.len()
                } else {
                    prune_orphan_nodes(graph)
                };
                report.pruned_edges += edges;
                report.pruned_nodes += nodes;
                if cli {
                    log(maintenance_event(
                        "prune",
                        &[("edges_removed", int(edges)), ("nodes_removed", int(nodes))],
                        dry,
                    ))?;
                }
            }
            "merge" => {
                let kept: Vec<(NodeId, NodeId)> = suggest_merges(graph, None)
                    .into_iter()
                    .filter(|&(a, b)| {
                        let (x, y) = (authority(graph, a), authority(graph, b));
                        let blocked = |z: Authority| {
                            z == Authority::Constitutional || (cli && z == Authority::Canonical)
                        };
                        !blocked(x) && !blocked(y)
                    })
                    .collect();
                report.merges_proposed = kept.len();
                let n = slice_len(kept.len(), options.max_merges);
                for &(a, b) in &kept[..n] {
                    if !w.graph.has_node(a) || !w.graph.has_node(b) {
                        continue;
                    }
                    if !dry || cli {
                        let names = (w.graph.name(a).to_string(), w.graph.name(b).to_string());
                        let m = apply_merge(w.graph, a, b)?;
                        if profile.fixes_bugs() {
                            // fix G1 of `merge`: the index follows the merge
                            let merged = w.graph.name(m).to_string();
                            refresh_index_after_merge(
                                w.graph,
                                w.vectors,
                                (&names.0, &names.1),
                                &merged,
                                options.embedder,
                            )?;
                        }
                    }
                    report.merges_applied += 1;
                }
                if cli {
                    log(maintenance_event(
                        "merge",
                        &[
                            ("suggested", int(report.merges_proposed)),
                            ("applied", int(report.merges_applied)),
                            ("max_merges", PyValue::Int(PyInt::from(options.max_merges))),
                        ],
                        dry,
                    ))?;
                }
            }
            "connect" => connect_task(w, options, profile, &mut report, &mut log)?,
            _ => {}
        }
    }
    // the autotuner's new parameters are a change to save too
    let mutating = selected.iter().any(|t| *t != "health")
        || report.autotune.as_ref().is_some_and(|s| s.changes());
    if dry {
        report.notes.push(DRY_RUN_NOTE.into());
    }
    report.should_save = !dry && mutating;
    report.health_after = HealthPayload::of(w.graph);
    report.edges_after = w.graph.edge_count();
    if cli || !dry {
        log(report.health_after.event())?;
    }
    if options.journal && profile.fixes_bugs() {
        // the inputs the unlearning replay needs, before the run's own entries
        w.journal(maintain_event(options, &selected, entries.len()));
    }
    for e in entries {
        w.journal(e);
    }
    Ok(report)
}

/// The `type` of [`maintain_event`].
pub const MAINTAIN_EVENT: &str = "maintain";

/// The journal entry a maintenance run (corrected profile) writes before its own
/// entries, with what the unlearning replay needs to run it again (issue 30 item 3,
/// [`crate::service::Relearned`]): `{"type": "maintain", "tasks": [the tasks run, in
/// order], "max_merges", "prune_below", "flavor": "cli" | "daemon", "dry_run",
/// "entries": n}`, `n` being the number of entries of the run that follow it (its
/// `health`, `maintenance` and `autotune` entries, which the replay does not repeat
/// on their own; a dry run's are skipped with it). The decay's half-life is the
/// brain's tuning at that moment, which the replay follows (the autotuner runs again
/// in the health task).
pub fn maintain_event(options: &MaintainOptions<'_>, tasks: &[&str], entries: usize) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str(MAINTAIN_EVENT.into()));
    e.insert(
        "tasks".into(),
        PyValue::List(tasks.iter().map(|t| PyValue::Str((*t).into())).collect()),
    );
    e.insert(
        "max_merges".into(),
        PyValue::Int(PyInt::from(options.max_merges)),
    );
    e.insert("prune_below".into(), PyValue::Float(options.prune_below));
    let flavor = match options.flavor {
        Flavor::Cli => "cli",
        Flavor::Daemon => "daemon",
    };
    e.insert("flavor".into(), PyValue::Str(flavor.into()));
    e.insert("dry_run".into(), PyValue::Bool(options.dry_run));
    e.insert("entries".into(), int(entries));
    e
}

fn connect_task(
    w: &mut Working<'_>,
    options: &MaintainOptions<'_>,
    profile: Profile,
    report: &mut MaintainReport,
    log: &mut dyn FnMut(PyDict) -> Result<()>,
) -> Result<()> {
    let cli = options.flavor == Flavor::Cli;
    let dry = options.dry_run;
    let graph = &*w.graph;
    let has_learning = graph
        .nodes()
        .any(|(_, n)| n.id.starts_with(LEARNING_PREFIX));
    if !has_learning {
        report
            .notes
            .push("connect skipped: no learning nodes found".into());
        if cli {
            log(maintenance_event(
                "connect",
                &[
                    ("connected", int(0)),
                    ("reason", PyValue::Str("no learning nodes".into())),
                ],
                dry,
            ))?;
        }
        return Ok(());
    }
    // the reference's `ValueError`s of `connect_learning_nodes` become notes
    let has_vector = |id: &str| w.vectors.contains(id) || options.embedder.is_some();
    let workspace: Vec<&str> = graph
        .nodes()
        .filter(|(_, n)| !n.id.starts_with(LEARNING_PREFIX))
        .map(|(_, n)| n.id.as_str())
        .collect();
    if workspace.is_empty() {
        if cli {
            log(maintenance_event("connect", &[("connected", int(0))], dry))?;
        }
        return Ok(());
    }
    if !workspace.iter().any(|id| has_vector(id)) {
        report
            .notes
            .push("connect skipped: no workspace vectors found for connect task".into());
        return Ok(());
    }
    if !profile.fixes_bugs() {
        return Err(Error::Exception {
            kind: "NameError",
            message: "name 'apply_connections' is not defined".into(),
        });
    }
    let added = connect_learning_nodes(
        w.graph,
        w.vectors,
        &ConnectOptions::for_profile(profile),
        options.embedder,
    )?;
    if cli {
        log(maintenance_event(
            "connect",
            &[("connected", int(added))],
            dry,
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath::graph::{Edge, Graph, Node};
    use crabpath::index::VectorIndex;
    use crabpath::state::State;

    #[test]
    fn task_lists_and_slices() {
        assert_eq!(
            parse_tasks(" prune, decay,,prune ,bogus", true),
            ["prune", "decay", "bogus"]
        );
        assert_eq!(parse_tasks("a,a", false), ["a", "a"]);
        assert!(parse_tasks("", true).is_empty());
        assert_eq!(slice_len(2, -1), 1);
        assert_eq!(slice_len(2, 0), 0);
        assert_eq!(slice_len(2, 5), 2);
        assert_eq!(slice_len(2, -5), 0);
    }

    fn state() -> State {
        let mut g = Graph::new();
        g.add_node(Node::new("a.md::0", "alpha beta").with_meta("file", "a.md"));
        g.add_node(Node::new("b.md::0", "beta gamma").with_meta("file", "b.md"));
        g.add_node(Node::new("learning::x", "alpha"));
        g.add_edge_by_id("a.md::0", "b.md::0", Edge::new(0.5))
            .unwrap();
        g.add_edge_by_id("b.md::0", "a.md::0", Edge::new(0.005))
            .unwrap();
        let mut ix = VectorIndex::new();
        ix.upsert("a.md::0", [1.0, 0.0]).unwrap();
        ix.upsert("b.md::0", [0.0, 1.0]).unwrap();
        ix.upsert("learning::x", [1.0, 0.1]).unwrap();
        State::new(g, ix)
    }

    fn opts(tasks: &str, dry: bool, flavor: Flavor) -> MaintainOptions<'static> {
        MaintainOptions {
            requested: parse_tasks(tasks, flavor == Flavor::Cli),
            dry_run: dry,
            max_merges: 5,
            prune_below: 0.01,
            flavor,
            journal: false,
            embedder: None,
        }
    }

    #[test]
    fn order_notes_and_connect_fix() {
        let mut st = state();
        let r = run(
            &mut Working::of_state(&mut st, &mut Vec::new()),
            &opts("prune,bogus,health,decay", true, Flavor::Cli),
            Profile::Paper,
        )
        .unwrap();
        assert_eq!(r.tasks_run, ["health", "decay", "prune"]);
        assert_eq!(
            r.notes,
            [
                "Unknown tasks skipped: bogus",
                "dry_run=True; no state write performed"
            ]
        );
        assert_eq!((r.edges_before, r.edges_after, r.pruned_edges), (2, 1, 1));
        assert!(!r.decay_applied && !r.should_save);
        // M1: the connect task crashes in the reference, works when corrected
        let mut st = state();
        let e = run(
            &mut Working::of_state(&mut st, &mut Vec::new()),
            &opts("connect", false, Flavor::Cli),
            Profile::Paper,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "NameError: name 'apply_connections' is not defined"
        );
        let mut st = state();
        let r = run(
            &mut Working::of_state(&mut st, &mut Vec::new()),
            &opts("connect", false, Flavor::Cli),
            Profile::Corrected,
        )
        .unwrap();
        assert!(r.should_save);
        assert!(r.edges_after > r.edges_before, "{r:?}");
    }
}
