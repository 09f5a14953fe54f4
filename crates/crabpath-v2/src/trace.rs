//! The record of one learning call, as the reference traces hold it (every steps,
//! candidates, reward, baseline before/after, updates and, when asked for, every edge
//! weight after the call).

use crate::graph::Graph;
use crate::learning::LearningOutcome;

/// Every edge as (source, target, weight, follow_count, skip_count), in edge order.
pub type WeightTable = Vec<(String, String, f64, i64, i64)>;

/// One learning call of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct LearningCall {
    /// The arm (`crabpath_corrected`, …) or run that learned.
    pub arm: String,
    /// 1-based episode number.
    pub episode: usize,
    /// The baseline key (the query).
    pub key: String,
    /// The reward learned from.
    pub reward: f64,
    /// What the call did.
    pub outcome: LearningOutcome,
    /// All edge weights after the call (empty unless tracing was asked for).
    pub weights_after: WeightTable,
}

impl LearningCall {
    /// Builds a record, snapshotting the weights when `trace` is set.
    pub fn new(
        arm: &str,
        episode: usize,
        key: &str,
        reward: f64,
        outcome: LearningOutcome,
        graph: &Graph,
        trace: bool,
    ) -> LearningCall {
        LearningCall {
            arm: arm.to_string(),
            episode,
            key: key.to_string(),
            reward,
            outcome,
            weights_after: if trace {
                graph.weight_table()
            } else {
                Vec::new()
            },
        }
    }
}
