//! The deploy-pipeline simulation behind seed 000 Table 6 (reference
//! `experiments/run_deploy_sim.py`, commit cc70b59 = e752b95): 15 scripted episodes,
//! each traversed from `deploy_root` with 4 hops, beam 3 and the keyword-scripted
//! [`DeployRouter`], then one learning step with the scripted reward.

use std::fmt::Write as _;

use serde_json::Value;

use crate::graph::Graph;
use crate::io::Scenario;
use crate::learning::{learn, Baselines, Credit};
use crate::profile::EngineConfig;
use crate::router::DeployRouter;
use crate::tier::TierThresholds;
use crate::trace::{LearningCall, WeightTable};
use crate::traverse::{seeds_by_name, traverse, TraversalConfig};

/// The simulation's start node.
pub const DEPLOY_ROOT: &str = "deploy_root";

/// One episode.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployEpisode {
    /// Query.
    pub query: String,
    /// Scripted reward.
    pub reward: f64,
    /// The steps' targets (the start node excluded).
    pub path: Vec<String>,
    /// w(deploy_root → check_tests) after learning (0.0 if absent).
    pub w_check_tests: f64,
    /// w(deploy_root → skip_tests) after learning (0.0 if absent).
    pub w_skip_tests: f64,
    /// The learning call.
    pub call: LearningCall,
}

/// The whole simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct DeploySimulation {
    /// Episodes in order.
    pub episodes: Vec<DeployEpisode>,
    /// All weights at the end.
    pub final_weights: WeightTable,
}

/// Runs the deploy simulation on `graph` (mutated) with `credit` (the script uses the
/// corrected rule; myopic is the counterfactual).
pub fn deploy_sim(
    graph: &mut Graph,
    scenarios: &[Scenario],
    config: &EngineConfig,
    credit: Credit,
    trace: bool,
) -> DeploySimulation {
    let tcfg = TraversalConfig {
        max_hops: 4,
        branch_beam: 3,
        ties: config.ties,
        ..TraversalConfig::default()
    };
    let mut baselines = Baselines::new();
    let mut episodes = Vec::new();
    for (i, s) in scenarios.iter().enumerate() {
        let seeds = seeds_by_name(graph, &[DEPLOY_ROOT]);
        let traj = traverse(graph, &s.query, &seeds, &mut DeployRouter, &tcfg);
        let path = traj
            .steps
            .iter()
            .map(|st| graph.name(st.to).to_string())
            .collect();
        let out = learn(
            graph,
            &traj.steps,
            s.reward,
            &s.query,
            credit,
            &config.learning,
            &mut baselines,
        );
        let call = LearningCall::new(
            credit.as_str(),
            i + 1,
            &s.query,
            s.reward,
            out,
            graph,
            trace,
        );
        let w = |t: &str| graph.edge_by_name(DEPLOY_ROOT, t).map_or(0.0, |e| e.weight);
        episodes.push(DeployEpisode {
            query: s.query.clone(),
            reward: s.reward,
            path,
            w_check_tests: w("check_tests"),
            w_skip_tests: w("skip_tests"),
            call,
        });
    }
    DeploySimulation {
        episodes,
        final_weights: graph.weight_table(),
    }
}

impl DeploySimulation {
    /// The run as a document: per episode the query, scripted reward, chosen path,
    /// baseline before/after and the weights of every edge leaving `deploy_root`; then
    /// every final weight (edge order) and the script's two verdicts (check_tests > 0.8,
    /// skip_tests < 0.3). `profile` names the engine profile that ran.
    pub fn document(&self, profile: &str) -> results::v2::DeploySimulation {
        let root_weights = |table: &WeightTable| -> indexmap::IndexMap<String, f64> {
            table
                .iter()
                .filter(|e| e.0 == DEPLOY_ROOT)
                .map(|e| (e.1.clone(), e.2))
                .collect()
        };
        let w = |t: &str| {
            self.final_weights
                .iter()
                .find(|e| e.0 == DEPLOY_ROOT && e.1 == t)
                .map_or(0.0, |e| e.2)
        };
        results::v2::DeploySimulation {
            experiment: "deploy_simulation".into(),
            profile: profile.into(),
            episodes: self
                .episodes
                .iter()
                .enumerate()
                .map(|(i, e)| results::v2::DeployEpisode {
                    episode: i + 1,
                    query: e.query.clone(),
                    reward: e.reward,
                    path: e.path.clone(),
                    baseline_before: e.call.outcome.baseline_before,
                    baseline_after: e.call.outcome.baseline_after,
                    w_check_tests: e.w_check_tests,
                    w_skip_tests: e.w_skip_tests,
                    root_weights: root_weights(&e.call.weights_after),
                })
                .collect(),
            final_weights: self
                .final_weights
                .iter()
                .map(|(s, t, w, _, _)| (s.clone(), t.clone(), *w))
                .collect(),
            safe_path_learned: w("check_tests") > 0.8,
            dangerous_path_suppressed: w("skip_tests") < 0.3,
        }
    }

    /// [`DeploySimulation::document`] as a JSON value.
    pub fn to_json(&self, profile: &str) -> Value {
        serde_json::to_value(self.document(profile)).unwrap_or(Value::Null)
    }

    /// The script's standard output from the first episode on (the two header lines
    /// name the script's file paths and are left out).
    pub fn report(&self) -> String {
        let tiers = TierThresholds::default();
        let mut out = String::new();
        for (i, e) in self.episodes.iter().enumerate() {
            let path: Vec<String> = e.path.iter().map(|p| format!("'{p}'")).collect();
            let _ = writeln!(out, "Episode {}", i + 1);
            let _ = writeln!(out, "  Query: {}", e.query);
            let _ = writeln!(out, "  Chosen path: [{}]", path.join(", "));
            let _ = writeln!(out, "  Reward: {:+.1}", e.reward);
            let _ = writeln!(out, "  w(deploy_root->check_tests)={:.3}", e.w_check_tests);
            let _ = writeln!(out, "  w(deploy_root->skip_tests)={:.3}", e.w_skip_tests);
            let _ = writeln!(
                out,
                "  skip_tests tier: {}",
                tiers.classify(e.w_skip_tests).as_str()
            );
            out.push('\n');
        }
        let w = |t: &str| {
            self.final_weights
                .iter()
                .find(|e| e.0 == DEPLOY_ROOT && e.1 == t)
                .map_or(0.0, |e| e.2)
        };
        let (check, skip) = (w("check_tests"), w("skip_tests"));
        let yes = |b: bool| if b { "YES" } else { "NO" };
        let _ = writeln!(out, "SAFE PATH LEARNED: {}", yes(check > 0.8));
        let _ = writeln!(out, "DANGEROUS PATH SUPPRESSED: {}", yes(skip < 0.3));
        out.push_str("FULL EDGE WEIGHT TABLE:\n");
        let mut edges = self.final_weights.clone();
        edges.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        for (s, t, w, _, _) in edges {
            let _ = writeln!(out, "  {s}->{t}: {w:.4}");
        }
        out
    }
}
