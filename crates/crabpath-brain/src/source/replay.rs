//! Session replay: past queries warm up the graph's edges (reference
//! `crabpath/replay.py::replay_queries` and `_auto_score_query_outcome`, commit
//! 134c676; used by `crabpath replay` and `crabpath init --sessions`).
//!
//! Records without a non-blank query are dropped; with `since`, records whose
//! timestamp is ≤ `since` are dropped (no timestamp always passes). Then for each
//! remaining query, in order (`queries_replayed` counts them all):
//! 1. seeds = [`keyword_seeds`]; traversal with the profile's default
//!    [`TraversalConfig`] (max_hops 30, beam 8, no budget);
//! 2. nothing fired → only the progress report and timestamp bookkeeping;
//! 3. outcome = `outcome` (1.0 by default), auto-scored: if the record has a non-empty
//!    response and its lower-cased text contains the whole lower-cased content of a
//!    fired node, `min(2.0, outcome + 0.5)`;
//! 4. learn with the heuristic [`apply_outcome`] on [`replay_episode`] (paper: the
//!    learning path `[first step's source] + [each step's target]`);
//! 5. `edges_reinforced` += number of edges whose weight changed or that are new;
//!    `cross_file_edges_created` += number of new edges whose endpoints both exist and
//!    carry different `file` metadata;
//! 6. progress callback; `last_replayed_ts` = the largest timestamp seen (Python
//!    `max`, so a NaN never wins over an earlier value).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::Result;
use crate::source::session::Interaction;
use crabpath::graph::{Graph, NodeId};
use crabpath::keyword::{keyword_seeds, replay_episode};
use crabpath::learn::{apply_outcome, hebbian_pairs};
use crabpath::profile::Profile;
use crabpath::traverse::{TraversalConfig, Traverser};

/// One learning update of a replay, by node ids: what `forget`'s replay repeats
/// ([`ReplayedEpisode::apply`]) without the session logs. The corrected profile
/// journals them (`episodes` of a `replay` entry; `init --sessions` too).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayedEpisode {
    /// Fired nodes in fired order.
    pub fired: Vec<String>,
    /// Traversed (source, target) transitions in order.
    pub steps: Vec<(String, String)>,
    /// The outcome learned.
    pub outcome: f64,
}

impl ReplayedEpisode {
    /// As a journal value: `{"fired": [...], "steps": [[s, t], ...], "outcome": x}`.
    pub fn to_value(&self) -> pyformat::pyjson::PyValue {
        use pyformat::pyjson::{PyDict, PyValue};
        let s = |x: &String| PyValue::Str(x.clone());
        let mut d = PyDict::new();
        d.insert(
            "fired".into(),
            PyValue::List(self.fired.iter().map(s).collect()),
        );
        d.insert(
            "steps".into(),
            PyValue::List(
                self.steps
                    .iter()
                    .map(|(a, b)| PyValue::List(vec![s(a), s(b)]))
                    .collect(),
            ),
        );
        d.insert("outcome".into(), PyValue::Float(self.outcome));
        PyValue::Dict(d)
    }

    /// Reads [`ReplayedEpisode::to_value`]'s form; `None` when malformed.
    pub fn from_value(v: &pyformat::pyjson::PyValue) -> Option<ReplayedEpisode> {
        let d = v.as_dict()?;
        let strs = |v: &pyformat::pyjson::PyValue| -> Option<Vec<String>> {
            v.as_list()?
                .iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect()
        };
        let steps = d
            .get("steps")?
            .as_list()?
            .iter()
            .map(|p| match strs(p)?.as_slice() {
                [a, b] => Some((a.clone(), b.clone())),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(ReplayedEpisode {
            fired: strs(d.get("fired")?)?,
            steps,
            outcome: d.get("outcome")?.as_number()?,
        })
    }

    /// Learns it on `graph` as the replay did ([`apply_outcome`] with the profile's
    /// learning). Errors: a node id not in the graph ([`crate::error::Error::Invalid`]).
    pub fn apply(&self, graph: &mut Graph, profile: Profile) -> Result<()> {
        let id = |x: &String| {
            graph
                .lookup(x)
                .filter(|&n| graph.has_node(n))
                .ok_or_else(|| {
                    crate::error::Error::Invalid(format!("node `{x}` is not in the brain"))
                })
        };
        let episode = crabpath::learn::Episode {
            fired: self.fired.iter().map(id).collect::<Result<_>>()?,
            steps: self
                .steps
                .iter()
                .map(|(a, b)| Ok((id(a)?, id(b)?)))
                .collect::<Result<_>>()?,
        };
        apply_outcome(graph, &episode, self.outcome, &profile.learning(), None)?;
        Ok(())
    }
}

/// The key of a `replay` journal entry (corrected profile) holding its episodes
/// (each learning update as [`ReplayedEpisode::to_value`] writes it).
pub const EPISODES_KEY: &str = "episodes";

/// `episodes` as the journal holds them under [`EPISODES_KEY`].
fn episodes_value(episodes: &[ReplayedEpisode]) -> pyformat::pyjson::PyValue {
    pyformat::pyjson::PyValue::List(episodes.iter().map(ReplayedEpisode::to_value).collect())
}

/// The journal entry of a replay with `stats`
/// ([`crate::reference::journal::replay_event`]); with `episodes` (corrected profile),
/// its learning updates under [`EPISODES_KEY`], which `forget`'s replay repeats
/// without the session logs.
pub fn replay_journal_event(
    stats: &ReplayStats,
    episodes: Option<&[ReplayedEpisode]>,
) -> pyformat::pyjson::PyDict {
    let mut e = crate::reference::journal::replay_event(
        stats.queries_replayed,
        stats.edges_reinforced,
        stats.cross_file_edges_created,
    );
    if let Some(episodes) = episodes {
        e.insert(EPISODES_KEY.into(), episodes_value(episodes));
    }
    e
}

/// Replay statistics (reference keys `queries_replayed`, `edges_reinforced`,
/// `cross_file_edges_created`, `last_replayed_ts`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayStats {
    /// Queries replayed (including those that fired nothing).
    pub queries_replayed: usize,
    /// Edges whose weight changed or that were created, summed over queries.
    pub edges_reinforced: usize,
    /// New edges between nodes of different files.
    pub cross_file_edges_created: usize,
    /// The largest timestamp of a replayed record, if any had one.
    pub last_replayed_ts: Option<f64>,
}

/// Replay parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayOptions {
    /// Semantics (traversal and learning switches, the learning episode).
    pub profile: Profile,
    /// Traversal parameters (default: the profile's default config).
    pub traversal: TraversalConfig,
    /// Base outcome of every replayed query (reference default 1.0).
    pub outcome: f64,
    /// Records with a timestamp ≤ this are skipped (the state's `last_replayed_ts`).
    pub since: Option<f64>,
}

impl ReplayOptions {
    /// The reference CLI's replay under a profile.
    pub fn new(profile: Profile) -> Self {
        ReplayOptions {
            profile,
            traversal: profile.traversal(),
            outcome: 1.0,
            since: None,
        }
    }
}

/// Reference `_auto_score_query_outcome`.
fn auto_score(outcome: f64, response: Option<&str>, fired: &[NodeId], graph: &Graph) -> f64 {
    let Some(response) = response else {
        return outcome;
    };
    let text = crabpath::embed::python_lower(response);
    if text.is_empty() {
        return outcome;
    }
    for &n in fired {
        if let Some(node) = graph.node(n) {
            if !node.content.is_empty()
                && text.contains(&crabpath::embed::python_lower(&node.content))
            {
                return 2.0f64.min(outcome + 0.5);
            }
        }
    }
    outcome
}

fn is_cross_file(graph: &Graph, s: NodeId, t: NodeId) -> bool {
    match (graph.node(s), graph.node(t)) {
        (Some(a), Some(b)) => match (a.metadata.get("file"), b.metadata.get("file")) {
            (Some(fa), Some(fb)) => !fa.is_null() && !fb.is_null() && fa != fb,
            _ => false,
        },
        _ => false,
    }
}

/// Replays `records` on `graph` (see the module docs); `progress(stats, total)` is
/// called after each query (the CLI prints `Replayed <i>/<total> queries, <n>
/// cross-file edges created`).
///
/// Cost per query: one keyword scan of all node contents, one traversal, one learning
/// update; the weight bookkeeping only looks at the edges the update can touch.
pub fn replay_queries(
    graph: &mut Graph,
    records: &[Interaction],
    options: &ReplayOptions,
    progress: &mut dyn FnMut(&ReplayStats, usize),
    mut episodes: Option<&mut Vec<ReplayedEpisode>>,
) -> Result<ReplayStats> {
    let kept: Vec<&Interaction> = records
        .iter()
        .filter(|r| {
            r.query
                .as_deref()
                .is_some_and(|q| !pyformat::pystr::strip(q).is_empty())
        })
        .filter(|r| match (options.since, r.ts) {
            (Some(s), Some(t)) => t > s,
            _ => true,
        })
        .collect();
    let mut stats = ReplayStats::default();
    if kept.is_empty() {
        return Ok(stats);
    }
    let learning = options.profile.learning();
    let mut traverser = Traverser::new();
    let total = kept.len();
    let mut latest: Option<f64> = None;
    for r in kept {
        stats.queries_replayed += 1;
        let query = r.query.as_deref().unwrap_or_default();
        let seeds = keyword_seeds(graph, query);
        let result = traverser.traverse(graph, &seeds, &options.traversal)?;
        if !result.fired.is_empty() {
            let outcome = auto_score(options.outcome, r.response.as_deref(), &result.fired, graph);
            let episode = replay_episode(&result, options.profile);
            // the edges the update can touch: the learned pairs and the Hebbian pairs
            let mut touched: Vec<(NodeId, NodeId)> = episode.pairs(learning.learn_on);
            for (i, j) in hebbian_pairs(episode.fired.len(), learning.max_hebbian_pairs) {
                touched.push((episode.fired[i], episode.fired[j]));
            }
            let mut seen = FxHashSet::default();
            touched.retain(|p| seen.insert(*p));
            let before: FxHashMap<(NodeId, NodeId), Option<f64>> = touched
                .iter()
                .map(|&(s, t)| ((s, t), graph.weight(s, t)))
                .collect();
            apply_outcome(graph, &episode, outcome, &learning, None)?;
            if let Some(out) = episodes.as_deref_mut() {
                let name = |n: &NodeId| graph.name(*n).to_string();
                out.push(ReplayedEpisode {
                    fired: episode.fired.iter().map(name).collect(),
                    steps: episode
                        .steps
                        .iter()
                        .map(|(a, b)| (name(a), name(b)))
                        .collect(),
                    outcome,
                });
            }
            for &(s, t) in &touched {
                let old = before.get(&(s, t)).copied().flatten();
                let new = graph.weight(s, t);
                if new.is_some() && old != new {
                    stats.edges_reinforced += 1;
                }
                if old.is_none() && new.is_some() && is_cross_file(graph, s, t) {
                    stats.cross_file_edges_created += 1;
                }
            }
        }
        progress(&stats, total);
        if let Some(t) = r.ts {
            // Python `max(latest, t)`: `t` replaces `latest` only if `t > latest`
            latest = Some(match latest {
                Some(l) if t.partial_cmp(&l) != Some(std::cmp::Ordering::Greater) => l,
                _ => t,
            });
        }
    }
    stats.last_replayed_ts = latest;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath::graph::{Edge, Node};

    fn graph() -> Graph {
        let mut g = Graph::new();
        g.add_node(Node::new("d::0", "# Deploy Guide").with_meta("file", "d"));
        g.add_node(Node::new("d::1", "## Steps").with_meta("file", "d"));
        g.add_node(Node::new("e::0", "other").with_meta("file", "e"));
        g.add_edge_by_id("d::0", "d::1", Edge::new(0.49642))
            .unwrap();
        g.add_edge_by_id("d::1", "d::0", Edge::new(0.49642))
            .unwrap();
        g
    }

    #[test]
    fn auto_scoring() {
        // the reference's worked example: response "See # DEPLOY GUIDE first" for the
        // query "deploy guide" scores 1.5
        let g = graph();
        let fired = [g.lookup("d::0").unwrap()];
        assert_eq!(
            auto_score(1.0, Some("See # DEPLOY GUIDE first"), &fired, &g),
            1.5
        );
        assert_eq!(auto_score(1.0, Some("unrelated"), &fired, &g), 1.0);
        assert_eq!(auto_score(1.0, Some(""), &fired, &g), 1.0);
        assert_eq!(auto_score(1.8, Some("# deploy guide"), &fired, &g), 2.0);
    }

    #[test]
    fn replay_learns_more_from_confirmed_answers() {
        let run = |response: Option<&str>| {
            let mut g = graph();
            let mut rec = Interaction::query("deploy guide");
            rec.response = response.map(str::to_string);
            rec.ts = Some(5.0);
            let mut calls = 0;
            let stats = replay_queries(
                &mut g,
                &[rec, Interaction::query("  ")],
                &ReplayOptions::new(Profile::Paper),
                &mut |_, total| {
                    calls += 1;
                    assert_eq!(total, 1);
                },
                None,
            )
            .unwrap();
            assert_eq!(calls, 1);
            let (a, b) = (g.lookup("d::0").unwrap(), g.lookup("d::1").unwrap());
            (stats, g.weight(a, b).unwrap())
        };
        let (plain, w_plain) = run(None);
        let (confirmed, w_confirmed) = run(Some("See # DEPLOY GUIDE first"));
        assert_eq!(plain.queries_replayed, 1);
        assert_eq!(plain.last_replayed_ts, Some(5.0));
        assert!(plain.edges_reinforced >= 1);
        assert_eq!(plain.cross_file_edges_created, 0);
        assert_eq!(confirmed.edges_reinforced, plain.edges_reinforced);
        assert!(w_confirmed > w_plain, "{w_confirmed} vs {w_plain}");
        // `since` drops the record
        let mut g = graph();
        let mut rec = Interaction::query("deploy guide");
        rec.ts = Some(5.0);
        let mut opts = ReplayOptions::new(Profile::Paper);
        opts.since = Some(5.0);
        let s = replay_queries(&mut g, &[rec], &opts, &mut |_, _| {}, None).unwrap();
        assert_eq!(s, ReplayStats::default());
    }
}
