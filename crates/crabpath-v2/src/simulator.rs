//! The simulator (reference `crabpath/simulator.py::run_batch`, commit a424df5): every
//! scenario step is traversed from the first node of the graph (all nodes are seeds with
//! score 1.0), learned from with the corrected rule, and every 5th step is followed by
//! decay with t = 5. Traversal: 3 hops, beam 3, the default arg-max router.

use indexmap::IndexMap;

use crate::decay::{apply_decay, DecayConfig};
use crate::graph::Graph;
use crate::io::Scenario;
use crate::learning::{learn, neumaier_sum, Baselines, Credit};
use crate::profile::EngineConfig;
use crate::router::ArgmaxRouter;
use crate::trace::{LearningCall, WeightTable};
use crate::traverse::{traverse, TraversalConfig};

/// Decay runs after every this many episodes (5), with this many turns elapsed.
pub const DECAY_INTERVAL: usize = 5;

/// Per-episode metrics (reference `EpisodeMetrics`).
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeMetrics {
    /// Query.
    pub query: String,
    /// Reward.
    pub reward: f64,
    /// Number of update records (zero-delta ones included).
    pub edges_updated: usize,
    /// Always 0 (the simulator never creates nodes).
    pub nodes_created: usize,
    /// `"src->tgt"` → applied delta, in update order.
    pub weight_changes: IndexMap<String, f64>,
    /// The visited path.
    pub path: Vec<String>,
}

/// The dashboard (reference `render_dashboard`).
#[derive(Debug, Clone, PartialEq)]
pub struct Dashboard {
    /// Episodes run.
    pub total_episodes: usize,
    /// Mean reward.
    pub avg_reward: f64,
    /// Sum of `edges_updated`.
    pub total_edges_updated: usize,
    /// Nodes at the end.
    pub graph_nodes: usize,
    /// Edges at the end.
    pub graph_edges: usize,
}

/// A simulator run.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// Per-episode metrics.
    pub episodes: Vec<EpisodeMetrics>,
    /// Every learning call (weights after each when traced).
    pub learning_calls: Vec<LearningCall>,
    /// Summary.
    pub dashboard: Dashboard,
    /// All weights at the end (after the last decay).
    pub final_weights: WeightTable,
}

/// Runs the simulator on `graph` (mutated in place). `baselines` is the learning
/// baseline table (the reference's is process-global).
pub fn simulate(
    graph: &mut Graph,
    scenarios: &[Scenario],
    config: &EngineConfig,
    baselines: &mut Baselines,
    trace: bool,
) -> Simulation {
    let tcfg = TraversalConfig {
        max_hops: 3,
        branch_beam: 3,
        ties: config.ties,
        ..TraversalConfig::default()
    };
    let mut router = ArgmaxRouter { ties: config.ties };
    let mut episodes = Vec::new();
    let mut calls = Vec::new();
    for (i, s) in scenarios.iter().enumerate() {
        let seeds: Vec<_> = graph.nodes().map(|(id, _)| (id, 1.0)).collect();
        let traj = traverse(graph, &s.query, &seeds, &mut router, &tcfg);
        let out = learn(
            graph,
            &traj.steps,
            s.reward,
            &s.query,
            Credit::Corrected,
            &config.learning,
            baselines,
        );
        let weight_changes = out
            .updates
            .iter()
            .map(|u| {
                (
                    format!("{}->{}", graph.name(u.source), graph.name(u.target)),
                    u.delta,
                )
            })
            .collect();
        episodes.push(EpisodeMetrics {
            query: s.query.clone(),
            reward: s.reward,
            edges_updated: out.updates.len(),
            nodes_created: 0,
            weight_changes,
            path: traj.visit_names(graph),
        });
        calls.push(LearningCall::new(
            "simulator",
            i + 1,
            &s.query,
            s.reward,
            out,
            graph,
            trace,
        ));
        if (i + 1) % DECAY_INTERVAL == 0 {
            apply_decay(graph, DECAY_INTERVAL as f64, &DecayConfig::default());
        }
    }
    let n = episodes.len();
    let dashboard = Dashboard {
        total_episodes: n,
        avg_reward: if n == 0 {
            0.0
        } else {
            neumaier_sum(episodes.iter().map(|e| e.reward)) / n as f64
        },
        total_edges_updated: episodes.iter().map(|e| e.edges_updated).sum(),
        graph_nodes: graph.node_count(),
        graph_edges: graph.edge_count(),
    };
    Simulation {
        episodes,
        learning_calls: calls,
        dashboard,
        final_weights: graph.weight_table(),
    }
}
