//! The CrabPath paper's (seed 000) experiments on the v2 engine (`results/v2/`, written
//! by `crabpath-v2` through `sims v2 run` in Python's `json.dumps(indent=2)` format):
//! the four-arm comparison of each experiment ([`Comparison`], reference
//! `experiments/run_comparison.py`, commit 73444b2), the deploy simulation
//! ([`DeploySimulation`], `experiments/run_deploy_sim.py`, commit cc70b59) and the
//! corrected-vs-myopic study ([`Study`]).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// A four-arm comparison: the reference runner's document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The experiment (scenario file stem).
    pub experiment: String,
    /// Arm (`static`, `rag`, `crabpath_corrected`, `crabpath_myopic`) → its result, in
    /// run order.
    pub arms: IndexMap<String, ArmResult>,
}

/// One arm of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmResult {
    /// Every episode.
    pub episodes: Vec<Episode>,
    /// Mean characters loaded per episode ("tokens" in the paper).
    pub avg_tokens: f64,
    /// Share of correct episodes.
    pub accuracy: f64,
}

/// One episode of an arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    /// The query.
    pub query: String,
    /// Characters loaded.
    pub tokens_loaded: usize,
    /// Nodes loaded.
    pub nodes_loaded: usize,
    /// Ids loaded, in order (rag and crabpath).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_nodes: Option<Vec<String>>,
    /// Traversal visit order (crabpath).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visit_order: Option<Vec<String>>,
    /// The loaded text.
    pub answer: String,
    /// Whether every expected fragment occurs in it.
    pub correct: bool,
    /// Correct so far / episodes so far.
    pub cumulative_correct: f64,
}

/// The deploy simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeploySimulation {
    /// `deploy_simulation`.
    pub experiment: String,
    /// The profile.
    pub profile: String,
    /// Every episode.
    pub episodes: Vec<DeployEpisode>,
    /// Every edge at the end: `[source, target, weight]`.
    pub final_weights: Vec<(String, String, f64)>,
    /// `deploy_root → check_tests` ended above 0.8.
    pub safe_path_learned: bool,
    /// `deploy_root → skip_tests` ended below 0.3.
    pub dangerous_path_suppressed: bool,
}

/// One episode of the deploy simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeployEpisode {
    /// 1-based episode.
    pub episode: usize,
    /// The query.
    pub query: String,
    /// Its reward.
    pub reward: f64,
    /// The path taken.
    pub path: Vec<String>,
    /// The reward baseline before the update.
    pub baseline_before: f64,
    /// After.
    pub baseline_after: f64,
    /// `deploy_root → check_tests` after the update.
    pub w_check_tests: f64,
    /// `deploy_root → skip_tests` after the update.
    pub w_skip_tests: f64,
    /// Every edge out of `deploy_root` after the update, by target.
    pub root_weights: IndexMap<String, f64>,
}

/// The corrected-vs-myopic study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// `corrected_vs_myopic`.
    pub experiment: String,
    /// The profile.
    pub profile: String,
    /// Seeds per design and arm.
    pub seeds: usize,
    /// Episodes per seed.
    pub episodes: usize,
    /// Success threshold.
    pub threshold: f64,
    /// Episodes in the moving success window.
    pub window: usize,
    /// Routing temperature.
    pub temperature: f64,
    /// Learning rate.
    pub learning_rate: f64,
    /// Discount.
    pub discount: f64,
    /// One entry per design.
    pub designs: Vec<Design>,
}

/// One design of the study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// Its name.
    pub design: String,
    /// What it is.
    pub description: String,
    /// `corrected`, `myopic` → the arm over the seeds.
    pub arms: IndexMap<String, StudyArm>,
    /// Corrected minus myopic, paired by seed.
    pub corrected_minus_myopic: PairedDiffs,
}

/// One credit rule's arm over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyArm {
    /// Success rate per episode (mean over seeds).
    pub success_rate: Vec<f64>,
    /// Its 95 % interval, lower ends.
    pub success_ci95_low: Vec<f64>,
    /// Upper ends.
    pub success_ci95_high: Vec<f64>,
    /// Mean success over the episodes.
    pub mean_success: SeedSummary,
    /// Success of the last window.
    pub final_success: SeedSummary,
    /// Episodes until the threshold.
    pub episodes_to_threshold: SeedSummary,
    /// Seeds that reached it.
    pub reached_threshold: usize,
    /// Tracked edge → its final weight over the seeds.
    pub final_weights: IndexMap<String, SeedSummary>,
    /// Tracked edge → seeds where it ended dormant.
    pub seeds_dormant: IndexMap<String, usize>,
    /// Seeds that never reached the threshold.
    pub seeds_stuck: usize,
}

/// A value over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedSummary {
    /// Seeds.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// 95 % t interval (10 significant digits).
    pub ci95: (f64, f64),
}

/// `corrected_minus_myopic`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedDiffs {
    /// Of the mean success.
    pub mean_success: PairedDiff,
    /// Of the final success.
    pub final_success: PairedDiff,
    /// Of the episodes to the threshold.
    pub episodes_to_threshold: PairedDiff,
}

/// A paired comparison over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedDiff {
    /// Mean difference.
    pub mean_diff: f64,
    /// Its 95 % t interval.
    pub ci95: (f64, f64),
    /// Standard deviation of the differences.
    pub sd: f64,
    /// The t statistic.
    pub t: f64,
    /// Two-sided paired t p-value.
    pub p_paired_t: f64,
    /// Seeds where corrected did better.
    pub wins: usize,
    /// Worse.
    pub losses: usize,
    /// Equal.
    pub ties: usize,
    /// Two-sided sign-test p-value.
    pub p_sign_test: f64,
}
