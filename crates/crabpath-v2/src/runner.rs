//! The four-arm comparison behind seed 000 Tables 3 and 7 (reference
//! `experiments/run_comparison.py`, commit 73444b2; defaults top_k = 8, max_hops = 3).
//!
//! Arms, in order: **static** (every node), **rag** (keyword top-k), **crabpath_corrected**
//! and **crabpath_myopic** (traversal from the keyword top-1 with beam max(1, k/2), then
//! one learning step). Each arm starts from its own copy of the graph. "Tokens" are
//! characters of node content (Unicode scalar values), not model tokens.

use serde_json::Value;

use crate::embed::KeywordIndex;
use crate::graph::Graph;
use crate::io::Scenario;
use crate::learning::{learn, neumaier_sum, Baselines, Credit};
use crate::profile::{EngineConfig, RewardSource};
use crate::router::ArgmaxRouter;
use crate::trace::LearningCall;
use crate::traverse::{traverse, TraversalConfig};

/// One arm of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arm {
    /// Load every node.
    Static,
    /// Load the keyword top-k.
    Rag,
    /// Traverse, learn with every step.
    CrabpathCorrected,
    /// Traverse, learn with the last step only.
    CrabpathMyopic,
}

impl Arm {
    /// The arms in run order.
    pub const ALL: [Arm; 4] = [
        Arm::Static,
        Arm::Rag,
        Arm::CrabpathCorrected,
        Arm::CrabpathMyopic,
    ];

    /// The reference's key.
    pub fn as_str(self) -> &'static str {
        match self {
            Arm::Static => "static",
            Arm::Rag => "rag",
            Arm::CrabpathCorrected => "crabpath_corrected",
            Arm::CrabpathMyopic => "crabpath_myopic",
        }
    }

    fn credit(self) -> Option<Credit> {
        match self {
            Arm::CrabpathCorrected => Some(Credit::Corrected),
            Arm::CrabpathMyopic => Some(Credit::Myopic),
            _ => None,
        }
    }
}

/// Comparison settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareOptions {
    /// RAG k and the number of seeds (8).
    pub top_k: usize,
    /// Traversal hops (3).
    pub max_hops: usize,
    /// Profile switches.
    pub config: EngineConfig,
    /// Record every edge weight after every learning call.
    pub trace: bool,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            top_k: 8,
            max_hops: 3,
            config: EngineConfig::paper(),
            trace: false,
        }
    }
}

/// One episode of one arm (the reference's episode keys; `selected_nodes` only for
/// rag and crabpath, `visit_order` only for crabpath).
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeRecord {
    /// Query.
    pub query: String,
    /// Characters loaded.
    pub tokens_loaded: usize,
    /// Nodes loaded.
    pub nodes_loaded: usize,
    /// Ids loaded, in order.
    pub selected_nodes: Option<Vec<String>>,
    /// Traversal visit order.
    pub visit_order: Option<Vec<String>>,
    /// Loaded text.
    pub answer: String,
    /// Whether every expected fragment occurs in the text (case-insensitive).
    pub correct: bool,
    /// Correct so far / episodes so far.
    pub cumulative_correct: f64,
}

/// One arm's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmResult {
    /// Which arm.
    pub arm: Arm,
    /// Its episodes.
    pub episodes: Vec<EpisodeRecord>,
    /// Mean characters loaded.
    pub avg_tokens: f64,
    /// Share of correct episodes.
    pub accuracy: f64,
}

/// The comparison's result: the reference runner's JSON document.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonResult {
    /// Name (the scenario file stem in the reference).
    pub experiment: String,
    /// Arms in run order.
    pub arms: Vec<ArmResult>,
}

impl ComparisonResult {
    /// The arm `arm`.
    pub fn arm(&self, arm: Arm) -> Option<&ArmResult> {
        self.arms.iter().find(|a| a.arm == arm)
    }

    /// The reference's document (same keys in the same order; serialise it with a
    /// Python-compatible float writer to get the reference bytes).
    pub fn document(&self) -> results::v2::Comparison {
        results::v2::Comparison {
            experiment: self.experiment.clone(),
            arms: self
                .arms
                .iter()
                .map(|a| {
                    (
                        a.arm.as_str().to_string(),
                        results::v2::ArmResult {
                            episodes: a.episodes.iter().map(episode).collect(),
                            avg_tokens: a.avg_tokens,
                            accuracy: a.accuracy,
                        },
                    )
                })
                .collect(),
        }
    }

    /// [`ComparisonResult::document`] as a JSON value.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.document()).unwrap_or(Value::Null)
    }
}

fn episode(e: &EpisodeRecord) -> results::v2::Episode {
    results::v2::Episode {
        query: e.query.clone(),
        tokens_loaded: e.tokens_loaded,
        nodes_loaded: e.nodes_loaded,
        selected_nodes: e.selected_nodes.clone(),
        visit_order: e.visit_order.clone(),
        answer: e.answer.clone(),
        correct: e.correct,
        cumulative_correct: e.cumulative_correct,
    }
}

/// A comparison with its learning calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonRun {
    /// The result document.
    pub result: ComparisonResult,
    /// Every learning call of the two crabpath arms, in order.
    pub learning_calls: Vec<LearningCall>,
}

/// Whether every fragment (lower-cased) occurs in the lower-cased `text`.
pub fn contains_expected(text: &str, fragments: &[String]) -> bool {
    let hay = text.to_lowercase();
    fragments.iter().all(|f| hay.contains(&f.to_lowercase()))
}

/// Runs the four arms on `graph` and `scenarios`. With the paper profile the arms share
/// `baselines` (the reference's process-global table: pass one table to several
/// comparisons to model one `run_all.py` process); the corrected profile gives every
/// arm a fresh table and leaves `baselines` untouched.
pub fn compare_with(
    graph: &Graph,
    experiment: &str,
    scenarios: &[Scenario],
    opts: &CompareOptions,
    baselines: &mut Baselines,
) -> ComparisonRun {
    let cfg = &opts.config;
    let mut arms = Vec::new();
    let mut calls = Vec::new();
    for arm in Arm::ALL {
        let mut g = graph.clone();
        // The reference rebuilds the keyword index for every episode; node texts never
        // change during a comparison, so one build per arm gives the same vectors.
        let index = (arm != Arm::Static).then(|| KeywordIndex::build(&g, cfg.vocabulary));
        let mut own = Baselines::new();
        let table = if cfg.shared_baselines {
            &mut *baselines
        } else {
            &mut own
        };
        let mut episodes = Vec::with_capacity(scenarios.len());
        let mut correct_count = 0usize;
        for (i, s) in scenarios.iter().enumerate() {
            let mut rec = match (arm, &index) {
                (Arm::Static, _) | (_, None) => {
                    let contents: Vec<&str> = g.nodes().map(|(_, n)| n.content.as_str()).collect();
                    let answer = contents.join("\n\n");
                    EpisodeRecord {
                        query: s.query.clone(),
                        tokens_loaded: contents.iter().map(|c| c.chars().count()).sum(),
                        nodes_loaded: contents.len(),
                        selected_nodes: None,
                        visit_order: None,
                        correct: contains_expected(&answer, &s.expected_answer_fragments),
                        answer,
                        cumulative_correct: 0.0,
                    }
                }
                (Arm::Rag, Some(index)) => {
                    let hits = index.raw_scores(&s.query, opts.top_k);
                    let nodes: Vec<_> = hits
                        .iter()
                        .filter_map(|(id, _)| g.node_by_id(*id))
                        .collect();
                    let answer = nodes
                        .iter()
                        .map(|n| n.content.as_str())
                        .collect::<Vec<_>>()
                        .join("\n\n");
                    EpisodeRecord {
                        query: s.query.clone(),
                        tokens_loaded: nodes.iter().map(|n| n.content.chars().count()).sum(),
                        nodes_loaded: nodes.len(),
                        selected_nodes: Some(nodes.iter().map(|n| n.id.clone()).collect()),
                        visit_order: None,
                        correct: contains_expected(&answer, &s.expected_answer_fragments),
                        answer,
                        cumulative_correct: 0.0,
                    }
                }
                (_, Some(index)) => {
                    let seeds = index.raw_scores(&s.query, opts.top_k);
                    let tcfg = TraversalConfig {
                        max_hops: opts.max_hops,
                        branch_beam: (opts.top_k / 2).max(1),
                        ties: cfg.ties,
                        ..TraversalConfig::default()
                    };
                    let mut router = ArgmaxRouter { ties: cfg.ties };
                    let traj = traverse(&g, &s.query, &seeds, &mut router, &tcfg);
                    let answer = traj.context(&g);
                    let names = traj.visit_names(&g);
                    let correct = contains_expected(&answer, &s.expected_answer_fragments);
                    let rec = EpisodeRecord {
                        query: s.query.clone(),
                        tokens_loaded: traj
                            .visit_order
                            .iter()
                            .filter_map(|&id| g.node_by_id(id))
                            .map(|n| n.content.chars().count())
                            .sum(),
                        nodes_loaded: names.len(),
                        selected_nodes: Some(names.clone()),
                        visit_order: Some(names),
                        answer,
                        correct,
                        cumulative_correct: 0.0,
                    };
                    let reward = match cfg.reward {
                        RewardSource::Scripted => s.reward,
                        RewardSource::Outcome => {
                            if correct {
                                1.0
                            } else {
                                -1.0
                            }
                        }
                    };
                    let credit = arm.credit().expect("crabpath arm");
                    let out = learn(
                        &mut g,
                        &traj.steps,
                        reward,
                        &s.query,
                        credit,
                        &cfg.learning,
                        table,
                    );
                    calls.push(LearningCall::new(
                        arm.as_str(),
                        i + 1,
                        &s.query,
                        reward,
                        out,
                        &g,
                        opts.trace,
                    ));
                    rec
                }
            };
            if rec.correct {
                correct_count += 1;
            }
            rec.cumulative_correct = correct_count as f64 / (i + 1) as f64;
            episodes.push(rec);
        }
        let n = episodes.len();
        let (avg_tokens, accuracy) = if n == 0 {
            (0.0, 0.0)
        } else {
            (
                neumaier_sum(episodes.iter().map(|e| e.tokens_loaded as f64)) / n as f64,
                correct_count as f64 / n as f64,
            )
        };
        arms.push(ArmResult {
            arm,
            episodes,
            avg_tokens,
            accuracy,
        });
    }
    ComparisonRun {
        result: ComparisonResult {
            experiment: experiment.to_string(),
            arms,
        },
        learning_calls: calls,
    }
}

/// [`compare_with`] in a fresh process (an empty baseline table).
pub fn compare(
    graph: &Graph,
    experiment: &str,
    scenarios: &[Scenario],
    opts: &CompareOptions,
) -> ComparisonRun {
    compare_with(graph, experiment, scenarios, opts, &mut Baselines::new())
}
