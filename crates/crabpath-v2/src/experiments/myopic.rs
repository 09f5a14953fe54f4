//! Corrected versus myopic policy gradient where it can matter: the experiment the
//! paper never ran (seed 000 §4.2–4.3 claim that the Gu-corrected update learns routes
//! that the last-hop update cannot).
//!
//! In the reference runs both rules pick identical paths, because an arg-max router and
//! fixed tie-breaks decide every route whatever the weights. Here the corrected profile
//! routes stochastically: habitual choices are sampled from softmax(w/τ) with a seeded
//! ChaCha generator (reflex edges are still auto-followed, dormant ones never), and the
//! reward is a function of the path taken. Both arms use the corrected profile's
//! learning rule (τ = 0.2, softmax over the options chosen among, one baseline table per
//! run); they differ only in which steps receive credit.
//!
//! Designs (graphs of our own, built in code; every run starts at the design's root):
//!
//! * [`Design::DeployPipeline`]: the deploy graph of the paper's Table 6 (topology and
//!   weights of the reference builder); +1 when the walk goes through `check_tests` to
//!   `deploy_prod`, −1 otherwise. The decision that matters is the first hop; every later
//!   hop of the safe path has a single option.
//! * [`Design::Procedure`]: a binary tree of depth 4; +1 only for the one correct
//!   four-step procedure, −1 for any other leaf (delayed terminal reward).
//! * [`Design::GiraffeElephant`]: root → {giraffe 0.7, elephant 0.68} → guard (the
//!   reference's giraffe graph); the codeword is giraffe for the first third of the
//!   episodes and elephant afterwards; +1 when the walk visits the current codeword.
//! * [`Design::Control`]: root → {x, y} → {good, bad} each; +1 when the last node is a
//!   good one. The first hop is irrelevant, the last decides: myopic should suffice.
//!
//! Measures, per design and arm: the per-episode success rate over seeds with 95 %
//! Wilson bands; episodes to threshold (the first episode at which the success share of
//! the last [`MyopicOptions::window`] episodes reaches [`MyopicOptions::threshold`];
//! runs that never reach it count as `episodes + 1`); the final weights of the decisive
//! edges, with the number of seeds in which each ended dormant (< 0.3: no longer
//! followable) and the number of seeds stuck (no success in the last window); and,
//! paired by seed, corrected − myopic of the mean success over all episodes,
//! over the last window, and of episodes to threshold, each with a 95 % t interval, a
//! paired t-test and an exact sign test. Seeds run in parallel (rayon) and are gathered
//! in seed order, so the result is the same for any thread count.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::Value;

use crate::graph::{Graph, Node};
use crate::learning::{learn, Baselines, Credit};
use crate::profile::EngineConfig;
use crate::router::SoftmaxRouter;
use crate::stats::{paired, summarize, wilson, Paired, Summary};
use crate::tier::{Tier, TierThresholds};
use crate::traverse::{seeds_by_name, traverse, TraversalConfig};

/// One of the experiment's task designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Design {
    /// Reward decided by the first hop of a 4-hop pipeline.
    DeployPipeline,
    /// Reward only for the one correct 4-step procedure.
    Procedure,
    /// Codeword switch: the first hop decides, the second hop has a single option.
    GiraffeElephant,
    /// Reward decided by the last hop; the first hop is irrelevant.
    Control,
}

impl Design {
    /// All designs in report order.
    pub const ALL: [Design; 4] = [
        Design::DeployPipeline,
        Design::Procedure,
        Design::GiraffeElephant,
        Design::Control,
    ];

    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            Design::DeployPipeline => "deploy_pipeline",
            Design::Procedure => "procedure",
            Design::GiraffeElephant => "giraffe_elephant",
            Design::Control => "control_last_hop",
        }
    }

    /// One-line description for reports.
    pub fn description(self) -> &'static str {
        match self {
            Design::DeployPipeline => "Table 6 deploy graph; +1 via check_tests to deploy_prod, -1 otherwise; the first hop decides",
            Design::Procedure => "binary tree of depth 4; +1 only for the one correct 4-step procedure",
            Design::GiraffeElephant => "giraffe 0.7 / elephant 0.68 -> guard; codeword giraffe for the first third of the episodes, then elephant",
            Design::Control => "root -> {x, y} -> {good, bad}; +1 when the last node is good; the last hop decides",
        }
    }

    fn tag(self) -> u64 {
        match self {
            Design::DeployPipeline => 1,
            Design::Procedure => 2,
            Design::GiraffeElephant => 3,
            Design::Control => 4,
        }
    }

    /// The design's graph, root, hop limit and the edges whose final weights are
    /// reported.
    pub fn task(self) -> Task {
        let mut g = Graph::new();
        let edge = |g: &mut Graph, s: &str, t: &str, w: f64| {
            for n in [s, t] {
                if g.node(n).is_none() {
                    g.add_node(Node::new(n, n));
                }
            }
            g.add_edge(s, t, w);
        };
        match self {
            Design::DeployPipeline => {
                // Edge order and weights of the reference builder
                // (`experiments/build_deploy_pipeline.py`, commit cc70b59).
                for (s, t, w) in [
                    ("deploy_root", "check_tests", 0.5),
                    ("deploy_root", "skip_tests", 0.5),
                    ("deploy_root", "rollback", 0.3),
                    ("check_tests", "check_ci", 0.6),
                    ("check_ci", "deploy_staging", 0.6),
                    ("deploy_staging", "deploy_prod", 0.7),
                    ("skip_tests", "deploy_prod", 0.7),
                    ("deploy_prod", "rollback", 0.3),
                    ("deploy_root", "hotfix", 0.3),
                ] {
                    edge(&mut g, s, t, w);
                }
                Task {
                    graph: g,
                    root: "deploy_root",
                    max_hops: 4,
                    tracked: vec![
                        ("deploy_root", "check_tests"),
                        ("deploy_root", "skip_tests"),
                        ("deploy_root", "rollback"),
                        ("deploy_root", "hotfix"),
                    ],
                }
            }
            Design::Procedure => {
                let right = ["check_logs", "read_config", "fix_code", "run_tests"];
                let wrong = ["restart_service", "open_ticket", "fix_style", "deploy_now"];
                // Node "<prefix>" has children "<prefix>/<step>"; only the path of `right`
                // names is rewarded. The correct child is added first at every level.
                let mut frontier = vec![String::from("start")];
                for level in 0..4 {
                    let mut next = Vec::new();
                    for parent in &frontier {
                        for name in [right[level], wrong[level]] {
                            let child = if parent == "start" {
                                name.to_string()
                            } else {
                                format!("{parent}/{name}")
                            };
                            edge(&mut g, parent, &child, 0.5);
                            next.push(child);
                        }
                    }
                    frontier = next;
                }
                Task {
                    graph: g,
                    root: "start",
                    max_hops: 4,
                    tracked: vec![
                        ("start", "check_logs"),
                        ("check_logs", "check_logs/read_config"),
                        ("check_logs/read_config", "check_logs/read_config/fix_code"),
                        (
                            "check_logs/read_config/fix_code",
                            "check_logs/read_config/fix_code/run_tests",
                        ),
                    ],
                }
            }
            Design::GiraffeElephant => {
                for (s, t, w) in [
                    ("query-root", "giraffe", 0.7),
                    ("query-root", "elephant", 0.68),
                    ("giraffe", "guard", 0.55),
                    ("elephant", "guard", 0.55),
                ] {
                    edge(&mut g, s, t, w);
                }
                Task {
                    graph: g,
                    root: "query-root",
                    max_hops: 3,
                    tracked: vec![("query-root", "giraffe"), ("query-root", "elephant")],
                }
            }
            Design::Control => {
                for (s, t) in [
                    ("root", "x"),
                    ("root", "y"),
                    ("x", "x_good"),
                    ("x", "x_bad"),
                    ("y", "y_good"),
                    ("y", "y_bad"),
                ] {
                    edge(&mut g, s, t, 0.5);
                }
                Task {
                    graph: g,
                    root: "root",
                    max_hops: 3,
                    tracked: vec![
                        ("root", "x"),
                        ("root", "y"),
                        ("x", "x_good"),
                        ("y", "y_good"),
                    ],
                }
            }
        }
    }

    /// The reward of a walk (visit order by name) at 1-based `episode` of `episodes`.
    pub fn reward(self, path: &[String], episode: usize, episodes: usize) -> f64 {
        let has = |n: &str| path.iter().any(|p| p == n);
        let ok = match self {
            Design::DeployPipeline => has("check_tests") && has("deploy_prod"),
            Design::Procedure => {
                path.last().map(String::as_str) == Some("check_logs/read_config/fix_code/run_tests")
            }
            Design::GiraffeElephant => {
                let word = if episode <= episodes / 3 {
                    "giraffe"
                } else {
                    "elephant"
                };
                has(word)
            }
            Design::Control => path.last().is_some_and(|n| n.ends_with("_good")),
        };
        if ok {
            1.0
        } else {
            -1.0
        }
    }
}

/// A design's graph and settings.
#[derive(Debug, Clone)]
pub struct Task {
    /// The starting graph.
    pub graph: Graph,
    /// Start node of every walk.
    pub root: &'static str,
    /// Hop limit.
    pub max_hops: usize,
    /// Edges whose final weights are reported.
    pub tracked: Vec<(&'static str, &'static str)>,
}

/// Experiment settings.
#[derive(Debug, Clone, PartialEq)]
pub struct MyopicOptions {
    /// Designs to run.
    pub designs: Vec<Design>,
    /// Seeds per arm (paired: seed s drives both arms' generators identically).
    pub seeds: usize,
    /// Episodes per run.
    pub episodes: usize,
    /// Success share of the last `window` episodes that counts as learned.
    pub threshold: f64,
    /// Window of the threshold and of the final success rate.
    pub window: usize,
    /// Engine configuration (the corrected profile; its temperature drives routing).
    pub config: EngineConfig,
}

impl Default for MyopicOptions {
    fn default() -> Self {
        MyopicOptions {
            designs: Design::ALL.to_vec(),
            seeds: 200,
            episodes: 90,
            threshold: 0.8,
            window: 10,
            config: EngineConfig::corrected(),
        }
    }
}

/// One run (design, seed, arm).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Reward > 0 per episode.
    pub success: Vec<bool>,
    /// Final weights of the tracked edges.
    pub final_weights: Vec<f64>,
}

impl Run {
    /// Mean success over episodes `from..`.
    pub fn rate_from(&self, from: usize) -> f64 {
        let s = &self.success[from.min(self.success.len())..];
        if s.is_empty() {
            return 0.0;
        }
        s.iter().filter(|&&x| x).count() as f64 / s.len() as f64
    }

    /// First 1-based episode whose trailing window reaches the threshold, else
    /// `episodes + 1`.
    pub fn episodes_to_threshold(&self, window: usize, threshold: f64) -> usize {
        let w = window.max(1);
        for e in w..=self.success.len() {
            let hits = self.success[e - w..e].iter().filter(|&&x| x).count();
            if hits as f64 / w as f64 >= threshold {
                return e;
            }
        }
        self.success.len() + 1
    }
}

/// Runs one arm of one design with one seed.
pub fn run_one(design: Design, seed: u64, credit: Credit, opts: &MyopicOptions) -> Run {
    let task = design.task();
    let mut g = task.graph.clone();
    let cfg = &opts.config;
    let tcfg = TraversalConfig {
        max_hops: task.max_hops,
        branch_beam: 3,
        ties: cfg.ties,
        ..TraversalConfig::default()
    };
    let mut router = SoftmaxRouter {
        rng: ChaCha8Rng::seed_from_u64(seed ^ (design.tag() << 48)),
        temperature: cfg.learning.temperature,
    };
    let mut baselines = Baselines::new();
    let seeds = seeds_by_name(&g, &[task.root]);
    let query = design.as_str();
    let mut success = Vec::with_capacity(opts.episodes);
    for ep in 1..=opts.episodes {
        let traj = traverse(&g, query, &seeds, &mut router, &tcfg);
        let reward = design.reward(&traj.visit_names(&g), ep, opts.episodes);
        success.push(reward > 0.0);
        learn(
            &mut g,
            &traj.steps,
            reward,
            query,
            credit,
            &cfg.learning,
            &mut baselines,
        );
    }
    let final_weights = task
        .tracked
        .iter()
        .map(|(s, t)| g.edge_by_name(s, t).map_or(f64::NAN, |e| e.weight))
        .collect();
    Run {
        success,
        final_weights,
    }
}

/// Per-arm aggregates of one design.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmSummary {
    /// `corrected` or `myopic`.
    pub credit: Credit,
    /// Per episode: (success rate over seeds, Wilson 95 % low, high).
    pub curve: Vec<(f64, f64, f64)>,
    /// Mean success over all episodes.
    pub mean_success: Summary,
    /// Success over the last window.
    pub final_success: Summary,
    /// Episodes to threshold (censored at episodes + 1).
    pub episodes_to_threshold: Summary,
    /// Seeds that reached the threshold.
    pub reached: usize,
    /// Final weight of each tracked edge.
    pub final_weights: Vec<Summary>,
    /// Per tracked edge: seeds whose final weight is dormant (below the habitual tier's
    /// 0.3, so the walk can no longer take it).
    pub dormant: Vec<usize>,
    /// Seeds without a single success in the last window (stuck on a wrong route).
    pub stuck: usize,
}

/// One design's result.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignResult {
    /// The design.
    pub design: Design,
    /// Tracked edges (source, target).
    pub tracked: Vec<(String, String)>,
    /// Corrected arm, then myopic.
    pub arms: [ArmSummary; 2],
    /// Corrected − myopic of the mean success over all episodes.
    pub diff_mean_success: Paired,
    /// Corrected − myopic of the success over the last window.
    pub diff_final_success: Paired,
    /// Corrected − myopic of episodes to threshold (negative = corrected faster).
    pub diff_episodes_to_threshold: Paired,
}

/// The whole study.
#[derive(Debug, Clone, PartialEq)]
pub struct MyopicStudy {
    /// Settings used.
    pub options: MyopicOptions,
    /// One result per design.
    pub designs: Vec<DesignResult>,
}

fn summarize_arm(credit: Credit, runs: &[Run], opts: &MyopicOptions, tracked: usize) -> ArmSummary {
    let n = runs.len();
    let tiers = TierThresholds::default();
    let curve = (0..opts.episodes)
        .map(|e| {
            let k = runs.iter().filter(|r| r.success[e]).count();
            let (lo, hi) = wilson(k, n);
            (if n == 0 { 0.0 } else { k as f64 / n as f64 }, lo, hi)
        })
        .collect();
    let last = opts.episodes.saturating_sub(opts.window);
    let ett: Vec<f64> = runs
        .iter()
        .map(|r| r.episodes_to_threshold(opts.window, opts.threshold) as f64)
        .collect();
    ArmSummary {
        credit,
        curve,
        mean_success: summarize(&runs.iter().map(|r| r.rate_from(0)).collect::<Vec<_>>()),
        final_success: summarize(&runs.iter().map(|r| r.rate_from(last)).collect::<Vec<_>>()),
        reached: ett.iter().filter(|&&e| e <= opts.episodes as f64).count(),
        episodes_to_threshold: summarize(&ett),
        final_weights: (0..tracked)
            .map(|i| summarize(&runs.iter().map(|r| r.final_weights[i]).collect::<Vec<_>>()))
            .collect(),
        dormant: (0..tracked)
            .map(|i| {
                runs.iter()
                    .filter(|r| tiers.classify(r.final_weights[i]) == Tier::Dormant)
                    .count()
            })
            .collect(),
        stuck: runs.iter().filter(|r| r.rate_from(last) == 0.0).count(),
    }
}

/// Runs the study: every design, `opts.seeds` seeds, both arms paired by seed.
pub fn corrected_vs_myopic(opts: &MyopicOptions) -> crate::Result<MyopicStudy> {
    if opts.seeds < 2 || opts.episodes == 0 || opts.window == 0 || opts.window > opts.episodes {
        return Err(crate::Error::Invalid(format!(
            "need seeds >= 2, episodes >= 1 and 1 <= window <= episodes (got seeds {}, episodes {}, window {})",
            opts.seeds, opts.episodes, opts.window
        )));
    }
    let mut designs = Vec::new();
    for &design in &opts.designs {
        let pairs: Vec<(Run, Run)> = (0..opts.seeds as u64)
            .into_par_iter()
            .map(|s| {
                (
                    run_one(design, s, Credit::Corrected, opts),
                    run_one(design, s, Credit::Myopic, opts),
                )
            })
            .collect();
        let (cor, myo): (Vec<Run>, Vec<Run>) = pairs.into_iter().unzip();
        let task = design.task();
        let last = opts.episodes - opts.window;
        let metric =
            |runs: &[Run], f: &dyn Fn(&Run) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
        let ett = |r: &Run| r.episodes_to_threshold(opts.window, opts.threshold) as f64;
        designs.push(DesignResult {
            design,
            tracked: task
                .tracked
                .iter()
                .map(|(s, t)| (s.to_string(), t.to_string()))
                .collect(),
            diff_mean_success: paired(
                &metric(&cor, &|r| r.rate_from(0)),
                &metric(&myo, &|r| r.rate_from(0)),
            ),
            diff_final_success: paired(
                &metric(&cor, &|r| r.rate_from(last)),
                &metric(&myo, &|r| r.rate_from(last)),
            ),
            diff_episodes_to_threshold: paired(&metric(&cor, &ett), &metric(&myo, &ett)),
            arms: [
                summarize_arm(Credit::Corrected, &cor, opts, task.tracked.len()),
                summarize_arm(Credit::Myopic, &myo, opts, task.tracked.len()),
            ],
        });
    }
    Ok(MyopicStudy {
        options: opts.clone(),
        designs,
    })
}

/// `x` to 10 significant digits: for the values that come from `statrs`'s special
/// functions (t quantiles, t and binomial tail probabilities), whose last bits differ
/// between builds of the same source (which dependency features cargo unifies), so the
/// document is the same bytes whatever is built alongside.
fn sig10(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.9e}").parse().unwrap_or(x)
}

fn summary_doc(s: &Summary) -> results::v2::SeedSummary {
    results::v2::SeedSummary {
        n: s.n,
        mean: s.mean,
        sd: s.sd,
        ci95: (sig10(s.ci_low), sig10(s.ci_high)),
    }
}

fn paired_doc(p: &Paired) -> results::v2::PairedDiff {
    results::v2::PairedDiff {
        mean_diff: p.diff.mean,
        ci95: (sig10(p.diff.ci_low), sig10(p.diff.ci_high)),
        sd: p.diff.sd,
        t: p.t,
        p_paired_t: sig10(p.p_t),
        wins: p.wins,
        losses: p.losses,
        ties: p.ties,
        p_sign_test: sig10(p.p_sign),
    }
}

impl MyopicStudy {
    /// The study as a document (keys in a fixed order; floats as computed).
    pub fn document(&self) -> results::v2::Study {
        let o = &self.options;
        let edge = |(s, t): &(String, String)| format!("{s}->{t}");
        let designs = self
            .designs
            .iter()
            .map(|d| results::v2::Design {
                design: d.design.as_str().into(),
                description: d.design.description().into(),
                arms: d
                    .arms
                    .iter()
                    .map(|a| {
                        (
                            a.credit.as_str().to_string(),
                            results::v2::StudyArm {
                                success_rate: a.curve.iter().map(|c| c.0).collect(),
                                success_ci95_low: a.curve.iter().map(|c| c.1).collect(),
                                success_ci95_high: a.curve.iter().map(|c| c.2).collect(),
                                mean_success: summary_doc(&a.mean_success),
                                final_success: summary_doc(&a.final_success),
                                episodes_to_threshold: summary_doc(&a.episodes_to_threshold),
                                reached_threshold: a.reached,
                                final_weights: d
                                    .tracked
                                    .iter()
                                    .zip(&a.final_weights)
                                    .map(|(e, w)| (edge(e), summary_doc(w)))
                                    .collect(),
                                seeds_dormant: d
                                    .tracked
                                    .iter()
                                    .zip(&a.dormant)
                                    .map(|(e, &k)| (edge(e), k))
                                    .collect(),
                                seeds_stuck: a.stuck,
                            },
                        )
                    })
                    .collect(),
                corrected_minus_myopic: results::v2::PairedDiffs {
                    mean_success: paired_doc(&d.diff_mean_success),
                    final_success: paired_doc(&d.diff_final_success),
                    episodes_to_threshold: paired_doc(&d.diff_episodes_to_threshold),
                },
            })
            .collect();
        results::v2::Study {
            experiment: "corrected_vs_myopic".into(),
            profile: o.config.profile.as_str().into(),
            seeds: o.seeds,
            episodes: o.episodes,
            threshold: o.threshold,
            window: o.window,
            temperature: o.config.learning.temperature,
            learning_rate: o.config.learning.learning_rate,
            discount: o.config.learning.discount,
            designs,
        }
    }

    /// [`MyopicStudy::document`] as a JSON value.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.document()).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_follow_the_designs() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let d = Design::DeployPipeline;
        assert_eq!(
            d.reward(
                &p(&[
                    "deploy_root",
                    "check_tests",
                    "check_ci",
                    "deploy_staging",
                    "deploy_prod"
                ]),
                1,
                9
            ),
            1.0
        );
        assert_eq!(
            d.reward(
                &p(&["deploy_root", "skip_tests", "deploy_prod", "rollback"]),
                1,
                9
            ),
            -1.0
        );
        let g = Design::GiraffeElephant;
        assert_eq!(g.reward(&p(&["query-root", "giraffe", "guard"]), 3, 9), 1.0);
        assert_eq!(
            g.reward(&p(&["query-root", "giraffe", "guard"]), 4, 9),
            -1.0
        );
        assert_eq!(
            Design::Control.reward(&p(&["root", "y", "y_good"]), 1, 9),
            1.0
        );
        let t = Design::Procedure.task();
        assert_eq!(t.graph.node_count(), 31);
    }

    #[test]
    fn episodes_to_threshold_uses_the_trailing_window() {
        let r = Run {
            success: vec![false, true, true, true, false, true],
            final_weights: vec![],
        };
        assert_eq!(r.episodes_to_threshold(3, 1.0), 4);
        assert_eq!(r.episodes_to_threshold(2, 1.0), 3);
        assert_eq!(r.episodes_to_threshold(6, 1.0), 7);
    }
}
