//! `crabpath learn`: teach an outcome for a list of fired node ids (reference
//! `crabpath/cli.py::cmd_learn`, commit 134c676).
//!
//! The ids are the comma-separated `--fired-ids` list (each stripped, empties
//! dropped); the heuristic rule with the profile's default [`LearningConfig`] updates
//! their consecutive pairs ([`crabpath::learn::apply_outcome`]).
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | L1 | an unknown id gets dangling edges (`--fired-ids deploy.md::2,zzz` creates `deploy.md::2→zzz`, counted by `health` and `info`) | error naming the id, nothing written | edges 28 → 30 vs. `unknown node id `zzz`` |
//! | L2 | a NaN or ±∞ outcome drives the pair's edge to ±1.0 (`max_weight_delta: NaN`) | error, nothing written | `0.49642 → 1.0` vs. error |
//! | L3 | Hebbian +0.06 also after a negative outcome (profile table item 2) | only after positive ones | |

use crabpath::graph::Graph;
use crabpath::learn::{apply_outcome, apply_outcome_unchecked, Episode, LearningConfig, Updates};
use crabpath::profile::Profile;
use pyformat::pystr;

use crate::error::{Error, Result};

/// The JSON summary of `learn --json`: `{"edges_updated", "max_weight_delta"}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LearnSummary {
    /// Distinct (source, target) pairs updated.
    pub edges_updated: usize,
    /// Largest `|nominal delta|` (Python `max`, so a NaN first stays), 0.0 if none.
    pub max_weight_delta: f64,
}

/// The ids of a `--fired-ids` list: split at `,`, each stripped (Python `strip`),
/// empties dropped.
pub fn parse_fired_ids(list: &str) -> Vec<String> {
    list.split(',')
        .map(pystr::strip)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Python `max(abs(d) for d in deltas)`: the first element unless a later one is
/// greater (a NaN never replaces, and once first is never replaced).
fn python_max_abs(updates: &Updates) -> f64 {
    let mut it = updates.0.values().map(|d| d.abs());
    let Some(mut best) = it.next() else {
        return 0.0;
    };
    for x in it {
        if x > best {
            best = x;
        }
    }
    best
}

/// The outcomes a user or an agent may teach, from −1 (the path was wrong) to 1 (it
/// helped): the one range of the command line's `learn`, the daemon's methods and the
/// MCP tools (the reference's `learn` takes any float; the paper profile still does).
pub const OUTCOME_RANGE: (f64, f64) = (-1.0, 1.0);

/// Checks a taught outcome against [`OUTCOME_RANGE`]; `name` is how the caller spells
/// it (`--outcome`, `outcome`). `Err` is the one-line message, e.g. `--outcome must be a
/// finite number from -1 to 1, got 2`.
pub fn check_outcome(name: &str, outcome: f64) -> std::result::Result<(), String> {
    let (lo, hi) = OUTCOME_RANGE;
    if outcome.is_finite() && (lo..=hi).contains(&outcome) {
        Ok(())
    } else {
        Err(format!(
            "{name} must be a finite number from {lo} to {hi}, got {outcome}"
        ))
    }
}

/// Applies `outcome` to the path `ids` (see the module docs): `paper` accepts unknown
/// ids and any outcome like the reference, `corrected` refuses them (the graph is
/// unchanged then).
///
/// Errors: no id (`provide at least one fired id`, the reference's message); in the
/// corrected profile an unknown id or an outcome out of [`OUTCOME_RANGE`].
pub fn learn_ids(
    graph: &mut Graph,
    ids: &[String],
    outcome: f64,
    profile: Profile,
) -> Result<LearnSummary> {
    let defaults = super::autotune::default_tuning(profile);
    learn_ids_tuned(graph, ids, outcome, profile, &defaults)
}

/// [`learn_ids`] with a brain's tuned Hebbian increment and promotion threshold
/// ([`crate::service::command::autotune`], issue 31 item 3; the defaults give [`learn_ids`]).
pub fn learn_ids_tuned(
    graph: &mut Graph,
    ids: &[String],
    outcome: f64,
    profile: Profile,
    tuning: &crabpath::tuning::Tuning,
) -> Result<LearnSummary> {
    if ids.is_empty() {
        return Err(Error::Reference("provide at least one fired id".into()));
    }
    let config: LearningConfig = tuning.learning(&profile.learning());
    let updates = if profile.fixes_bugs() {
        check_outcome("outcome", outcome).map_err(Error::Invalid)?;
        let path = ids
            .iter()
            .map(|id| graph.require(id))
            .collect::<crabpath::Result<Vec<_>>>()?;
        apply_outcome(graph, &Episode::from_path(&path), outcome, &config, None)?
    } else {
        let path: Vec<_> = ids.iter().map(|id| graph.intern(id)).collect();
        apply_outcome_unchecked(graph, &Episode::from_path(&path), outcome, &config, None)?
    };
    Ok(LearnSummary {
        edges_updated: updates.len(),
        max_weight_delta: python_max_abs(&updates),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath::graph::{Edge, Node};

    fn graph() -> Graph {
        let mut g = Graph::new();
        for i in 0..3 {
            g.add_node(Node::new(format!("deploy.md::{i}"), format!("c{i}")));
        }
        g.add_edge_by_id("deploy.md::0", "deploy.md::1", Edge::new(0.49642))
            .unwrap();
        g.add_edge_by_id("deploy.md::1", "deploy.md::0", Edge::new(0.49642))
            .unwrap();
        g
    }

    #[test]
    fn the_reference_example() {
        // reference CLI on its sample workspace: learn --outcome 1.0 --fired-ids
        // "deploy.md::0,deploy.md::1" → 0.49642 + 0.095 + 0.06, summary
        // {"edges_updated": 1, "max_weight_delta": 0.095}
        let mut g = graph();
        let ids = parse_fired_ids(" deploy.md::0 , deploy.md::1,, ");
        let s = learn_ids(&mut g, &ids, 1.0, Profile::Paper).unwrap();
        assert_eq!(s.edges_updated, 1);
        assert_eq!(s.max_weight_delta, 0.095);
        let (a, b) = (
            g.lookup("deploy.md::0").unwrap(),
            g.lookup("deploy.md::1").unwrap(),
        );
        assert_eq!(g.weight(a, b), Some(0.6514199999999999));
        assert!(matches!(
            learn_ids(&mut g, &[], 1.0, Profile::Paper),
            Err(Error::Reference(m)) if m == "provide at least one fired id"
        ));
    }

    #[test]
    fn unknown_ids_and_non_finite_outcomes() {
        // L1: paper makes a dangling edge, corrected refuses
        let mut g = graph();
        let ids = parse_fired_ids("deploy.md::2,zzz");
        learn_ids(&mut g, &ids, 1.0, Profile::Paper).unwrap();
        assert_eq!(g.edge_count(), 3);
        let mut g = graph();
        let e = learn_ids(&mut g, &ids, 1.0, Profile::Corrected).unwrap_err();
        assert!(e.to_string().contains("zzz"), "{e}");
        assert_eq!(g.edge_count(), 2);
        // L2: NaN drives the edge to 1.0 in paper, is refused in corrected
        let ids = parse_fired_ids("deploy.md::0,deploy.md::1");
        let mut g = graph();
        let s = learn_ids(&mut g, &ids, f64::NAN, Profile::Paper).unwrap();
        assert!(s.max_weight_delta.is_nan());
        let (a, b) = (
            g.lookup("deploy.md::0").unwrap(),
            g.lookup("deploy.md::1").unwrap(),
        );
        assert_eq!(g.weight(a, b), Some(1.0));
        let mut g = graph();
        let s = learn_ids(&mut g, &ids, f64::NEG_INFINITY, Profile::Paper).unwrap();
        assert_eq!(s.max_weight_delta, f64::INFINITY);
        assert_eq!(g.weight(a, b), Some(-0.94));
        let mut g = graph();
        assert!(learn_ids(&mut g, &ids, f64::INFINITY, Profile::Corrected).is_err());
        assert_eq!(g.weight(a, b), Some(0.49642));
    }
}
