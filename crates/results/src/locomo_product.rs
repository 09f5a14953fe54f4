//! The sections of the LoCoMo product-path report (`bench run --dataset locomo --protocol
//! product`, `results/bench/locomo-product-*.json`; protocol
//! `benchmarks/src/locomo/headline.rs`), flattened into [`crate::bench::Report`] like every
//! other protocol's (issue 28, "Measured, side by side in one run").
//!
//! Key order: the design ([`ProductDesign`]: the conversations, the arms, what tuning
//! chose), the paper's definition on all ten conversations ([`PaperTable`]), the means on
//! the eight test conversations and their paired tests.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The product-path sections; `T` is the paired-tests block (`crate::bench::PairedTests`,
/// named by the reader's union, `crate::bench::Sections::Product`, so that this module
/// does not import the one that imports it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Product<T> {
    /// The design.
    pub locomo_product: ProductDesign,
    /// Every product arm by the LoCoMo paper's definition, all ten conversations.
    pub paper_definition: PaperTable,
    /// Arm → metric → mean over the questions of the eight test conversations (product
    /// arms and baselines; the paper's definition of recall).
    pub method_metrics: IndexMap<String, IndexMap<String, f64>>,
    /// Every pair of arms on the test conversations' questions, on recall@10.
    pub test_paired: T,
    /// Minimum detectable difference (80 % power, two-sided 0.05) of the headline arm
    /// against each other arm, on recall@10 of the test questions.
    pub test_mdd80: IndexMap<String, f64>,
}

/// `locomo_product`: how the run was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProductDesign {
    /// How to read the report.
    pub about: String,
    /// Conversation → (turns, questions), file order.
    pub conversations: IndexMap<String, [usize; 2]>,
    /// The test conversations (the paired tests' questions).
    pub test_conversations: Vec<String>,
    /// The headline arm (the product's default).
    pub headline: String,
    /// The knob tuned on the tuning conversations, its grid, each value's mean recall@10
    /// there, and the value chosen.
    pub tuning: ProductTuning,
}

/// What tuning tried and chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProductTuning {
    /// The conversations tuned on.
    pub conversations: Vec<String>,
    /// The knob.
    pub knob: String,
    /// The rule.
    pub rule: String,
    /// Value → mean recall@10 of the headline arm on the tuning conversations.
    pub scores: IndexMap<String, f64>,
    /// The value chosen.
    pub chosen: String,
}

/// `paper_definition`: recall@k by category as the LoCoMo paper's Table 3 reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperTable {
    /// The definition, in words.
    pub definition: String,
    /// The cut-offs (5, 10, 25, 50).
    pub ks: Vec<usize>,
    /// Slice (`all`, then the categories) → questions in it.
    pub questions: IndexMap<String, usize>,
    /// Arm → slice → one recall per cut-off.
    pub recall: IndexMap<String, IndexMap<String, Vec<f64>>>,
    /// Arm → mean characters of its first 10 nodes (over every question).
    pub mean_chars_first10: IndexMap<String, f64>,
}

/// DRAGON's published row (Maharana et al., "Evaluating Very Long-Term Conversational
/// Memory of LLM Agents", ACL 2024, Table 3, as quoted by issue 28): slice → recall at
/// 5/10/25/50, `None` where the issue does not give the cell.
pub const DRAGON: [(&str, [Option<f64>; 4]); 6] = [
    ("all", [Some(0.567), Some(0.662), Some(0.767), Some(0.827)]),
    (
        "multi-hop",
        [Some(0.354), Some(0.466), Some(0.625), Some(0.730)],
    ),
    ("temporal", [None, Some(0.773), None, None]),
    ("open-domain", [None, Some(0.408), None, None]),
    ("single-hop", [None, Some(0.777), None, None]),
    ("adversarial", [None, Some(0.547), None, None]),
];
