//! The sections of a LoCoMo report (`bench run --dataset locomo`,
//! `results/bench/locomo-*.json`; protocol `benchmarks/src/locomo/`), flattened into
//! [`crate::bench::Report`] like every other protocol's.
//!
//! Key order: the design ([`Design`]: the conversations and what the loader repaired, the
//! outcome rule, the splits, the tuning and what it chose, the transfer folds, every arm's
//! knobs), then the means over the eight test conversations (all questions, by category, by
//! conversation), then every traversal against the best baseline ([`Family`]).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The LoCoMo sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Locomo {
    /// The design.
    pub locomo: Design,
    /// Arm → metric → mean over every scored question of the test conversations (the
    /// shape of every bench report's `method_metrics`, `bench::MethodMeans`).
    pub method_metrics: IndexMap<String, IndexMap<String, f64>>,
    /// Every arm's means by category.
    pub by_category: ByCategory,
    /// Every arm's mean recall@10 by test conversation (how much one conversation
    /// carries).
    pub by_conversation: ByConversation,
    /// Every traversal against the best baseline, per metric and slice.
    pub against_best_baseline: Vec<Family>,
}

/// `by_category`: a table per category, one row per arm, one column per metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ByCategory {
    /// Row names (arms, report order).
    pub arms: Vec<String>,
    /// Column names (metrics).
    pub metrics: Vec<String>,
    /// Category → questions in it (test conversations).
    pub questions: IndexMap<String, usize>,
    /// Category → `[arm][metric]` means.
    pub means: IndexMap<String, Vec<Vec<f64>>>,
}

impl ByCategory {
    /// The mean of `arm` and `metric` in `category`, if the table has it.
    pub fn get(&self, category: &str, arm: &str, metric: &str) -> Option<f64> {
        let a = self.arms.iter().position(|x| x == arm)?;
        let m = self.metrics.iter().position(|x| x == metric)?;
        self.means.get(category)?.get(a)?.get(m).copied()
    }
}

/// `by_conversation`: the mean recall@10 of every arm in each test conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ByConversation {
    /// The metric.
    pub metric: String,
    /// Column names (arms, report order).
    pub arms: Vec<String>,
    /// Conversation → one mean per arm.
    pub means: IndexMap<String, Vec<f64>>,
}

/// `locomo`: the design of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// How to read the report.
    pub about: String,
    /// Every conversation of the file.
    pub conversations: Vec<ConversationRow>,
    /// Every evidence string the loader repaired or dropped, and what it did.
    pub evidence_repairs: Vec<String>,
    /// Everything else the loader tolerated.
    pub load_notes: Vec<String>,
    /// The learning outcome.
    pub outcome_rule: String,
    /// The within-conversation splits.
    pub within: Within,
    /// How every knob was chosen, and what.
    pub tuning: Tuning,
    /// Router parameters learned across conversations.
    pub transfer: Transfer,
    /// Arm → its knobs, in report order.
    pub arms: IndexMap<String, ArmKnobs>,
}

/// One conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationRow {
    /// `sample_id`.
    pub sample_id: String,
    /// `tuning` or `test`.
    pub role: String,
    /// Sessions.
    pub sessions: usize,
    /// Turns (nodes of its brain).
    pub turns: usize,
    /// Edges of its brain with the chosen structure.
    pub edges: usize,
    /// Questions in the file.
    pub questions: usize,
    /// Questions scored (with an evidence turn).
    pub scored: usize,
}

/// `locomo.within`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Within {
    /// How the splits are made and scored.
    pub about: String,
    /// Splits per conversation.
    pub splits: usize,
    /// Their seed.
    pub split_seed: u64,
    /// Share of a conversation's questions learned from.
    pub learn_fraction: f64,
    /// Test questions no split scored (their learned values are missing).
    pub questions_never_tested: usize,
}

/// `locomo.tuning`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// The rule, declared before any test conversation ran.
    pub rule: String,
    /// The tuning conversations.
    pub conversations: Vec<String>,
    /// The context budget in characters, and how it was set.
    pub budget_chars: usize,
    /// How the budget was set.
    pub budget_rule: String,
    /// The values tried.
    pub grid: Grid,
    /// Cells tried.
    pub cells: usize,
    /// Stage 1's best cells, best first (at most three).
    pub stage1_best: Vec<Cell>,
    /// Each stage-2 and stage-3 winner: arm → its tuning score (its knobs: `arms`).
    pub chosen: IndexMap<String, f64>,
}

/// `locomo.tuning.grid`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// Embedders.
    pub embedders: Vec<String>,
    /// Seed sources.
    pub seed_sources: Vec<String>,
    /// Brain structures.
    pub structures: Vec<String>,
    /// Hops.
    pub max_hops: Vec<usize>,
    /// Beam widths.
    pub beam_width: Vec<usize>,
    /// Seeds.
    pub seed_top_k: Vec<usize>,
    /// Router top-k.
    pub router_top_k: Vec<usize>,
    /// Router α.
    pub router_alpha: Vec<f64>,
    /// Learning rates.
    pub lr: Vec<f64>,
}

/// One tuning cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Mean recall@10 on the tuning conversations.
    pub score: f64,
    /// The knobs.
    pub knobs: ArmKnobs,
}

/// `locomo.transfer`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    /// How the router is learned and scored.
    pub about: String,
    /// Candidate routers.
    pub candidates: usize,
    /// One fold per test conversation.
    pub folds: Vec<TransferFold>,
}

/// One transfer fold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransferFold {
    /// The conversation scored.
    pub conversation: String,
    /// The router chosen on the others.
    pub chosen: String,
    /// Its top-k.
    pub router_top_k: usize,
    /// Its α.
    pub router_alpha: f64,
    /// Its outcome rate on the other test conversations.
    pub learn_outcome_rate: f64,
}

/// An arm's knobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmKnobs {
    /// `baseline`, `cold`, `learned`, `transfer`, `ablation`.
    pub group: String,
    /// The `bench` method it runs.
    pub method: String,
    /// Embedder of its search (and of its seeds, routers and kNN edges).
    pub embedder: String,
    /// Brain structure (`null` for a baseline).
    pub structure: Option<String>,
    /// Seed source, seeds, hops, beam (`null` for a baseline).
    pub walk: Option<Walk>,
    /// Router top-k and α (`null` without a router).
    pub router: Option<RouterKnobs>,
    /// Learning rate (`null` for an arm that does not learn).
    pub lr: Option<f64>,
}

/// How a traversal walks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Walk {
    /// `dense` or `rrf`.
    pub seed_source: String,
    /// Seeds.
    pub seed_top_k: usize,
    /// Hops.
    pub max_hops: usize,
    /// Beam width.
    pub beam_width: usize,
}

/// A router's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RouterKnobs {
    /// Offers kept per source.
    pub top_k: usize,
    /// α.
    pub alpha: f64,
}

/// Every traversal against the best baseline on one metric and slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Family {
    /// The metric.
    pub metric: String,
    /// `all` or a category.
    pub slice: String,
    /// Questions in the slice.
    pub questions: usize,
    /// The baseline with the highest mean on it.
    pub best_baseline: String,
    /// Its mean.
    pub baseline_mean: f64,
    /// One row per traversal arm (Holm across them).
    pub rows: Vec<Row>,
}

/// One traversal arm against the best baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The arm.
    pub arm: String,
    /// Its mean on the questions compared.
    pub mean: f64,
    /// Questions compared.
    pub n: usize,
    /// Mean difference (arm − baseline).
    pub diff: f64,
    /// Bootstrap 2.5th percentile.
    pub ci95_low: f64,
    /// Bootstrap 97.5th percentile.
    pub ci95_high: f64,
    /// Randomization-test p-value.
    pub p_value: f64,
    /// Holm-adjusted across the family (significant below 0.05).
    pub p_holm: f64,
    /// Cohen's d_z (`null` when the differences do not vary).
    pub effect_size_dz: Option<f64>,
    /// Minimum detectable difference at 80 % power (`null` below two questions).
    pub mdd80: Option<f64>,
}
