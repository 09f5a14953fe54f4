//! `deploy_pipeline` (reference `sims/deploy_pipeline.py`): a 4-edge procedure chain
//! compiled to reflex by 50 identical positive queries.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::Corrected;

/// Chain edge (`source->target`) → weight, in chain order.
pub type ChainWeights = IndexMap<String, f64>;

/// The reference's keys before its claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `deploy_pipeline`.
    pub simulation: String,
    /// 50.
    pub query_count: usize,
    /// The query's text.
    pub query_text: String,
    /// The queries snapshotted.
    pub tracked_queries: Vec<usize>,
    /// The chain's weights at those queries.
    pub tracked_edge_snapshots: Vec<Snapshot>,
    /// The chain's weights after every query.
    pub edge_weights_over_time: Vec<WeightsAt>,
    /// The chain's weights at the end.
    pub final_edge_weights: ChainWeights,
}

/// One entry of `tracked_edge_snapshots`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// 1-based query.
    pub query: usize,
    /// The chain's weights after it.
    #[serde(flatten)]
    pub weights: ChainWeights,
}

/// One entry of `edge_weights_over_time`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightsAt {
    /// 1-based query.
    pub query: usize,
    /// Its text.
    pub query_text: String,
    /// The chain's weights after it.
    pub edge_weights: ChainWeights,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// The last chain edge's growth.
    pub edge_growth_to_reflex: Growth,
}

/// `edge_growth_to_reflex`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Growth {
    /// The initial weight.
    pub from: f64,
    /// The last edge's weight after query 50.
    pub to_query_50: f64,
    /// The reflex threshold.
    pub reflex_threshold: f64,
    /// Whether every chain edge passed it.
    pub met: bool,
}

/// The paper-profile document: the body, the claim, then the reference's note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paper {
    /// The body.
    #[serde(flatten)]
    pub body: Body,
    /// The reference's claim.
    pub claim: ReferenceClaim,
    /// The reference's note.
    pub notes: String,
}

/// The corrected profile's body: the reference's keys with its note, without its claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Noted {
    /// The body.
    #[serde(flatten)]
    pub body: Body,
    /// The reference's note.
    pub notes: String,
}

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// The first query after which every chain edge is reflex (`null`: never).
    pub queries_until_all_reflex: Option<usize>,
}

/// The corrected-profile document.
pub type Doc = Corrected<Noted, Extra, ReferenceClaim>;
