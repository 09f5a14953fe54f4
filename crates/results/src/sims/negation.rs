//! `negation` (reference `sims/negation.py`): ten positive outcomes on the "run tests"
//! edge, then ten negative ones on the "skip tests" edge.

use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `negation`.
    pub simulation: String,
    /// 20.
    pub query_count: usize,
    /// What the two halves ask.
    pub query_plan: QueryPlan,
    /// The two weights after each query.
    pub weight_history: Vec<WeightPoint>,
    /// The two weights at the end.
    pub final_weights: FinalWeights,
}

/// `query_plan`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryPlan {
    /// The first ten queries.
    pub first_10: String,
    /// The last ten.
    pub last_10: String,
}

/// One entry of `weight_history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightPoint {
    /// 1-based query.
    pub query: usize,
    /// Its text.
    pub query_text: String,
    /// The "run tests" edge's weight after it.
    pub good_weight: f64,
    /// The "skip tests" edge's weight after it.
    pub bad_weight: f64,
}

/// `final_weights`, by target node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalWeights {
    /// The endorsed edge.
    pub run_tests_before_deploy: f64,
    /// The deprecated edge.
    pub skip_tests_for_hotfix: f64,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// The bad edge is below 0.
    pub bad_edge_inhibitory: Threshold,
    /// The good edge is above 0.75.
    pub good_edge_strengthened: bool,
}

/// `{threshold, value, met}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// The threshold.
    pub threshold: f64,
    /// The value.
    pub value: f64,
    /// Whether it is met.
    pub met: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected-profile document.
pub type Doc = Corrected<Body, super::NoExtra, ReferenceClaim>;
