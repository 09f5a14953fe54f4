//! `structural_vs_edge_only` (reference `sims/structural_vs_edge_only.py`, discrepancy
//! S5): edge learning alone vs. plus pruning vs. full structural maintenance.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::Corrected;

/// The reference's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `structural_vs_edge_only`.
    pub simulation: String,
    /// 200.
    pub query_count: usize,
    /// The seed node.
    pub query_seed: String,
    /// Strategy → its run.
    pub strategies: IndexMap<String, Strategy>,
    /// Strategy → its learning curve (every 50 queries).
    pub learning_curves: IndexMap<String, Vec<CurvePoint>>,
    /// One row per strategy.
    pub comparison_table: Vec<TableRow>,
}

/// One strategy's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Strategy {
    /// Nodes fired per query.
    pub nodes_fired_series: Vec<usize>,
    /// Context characters per query.
    pub context_chars_series: Vec<usize>,
    /// Edges after each query.
    pub edge_count_series: Vec<usize>,
    /// Dormant share after each query.
    pub dormant_pct_series: Vec<f64>,
    /// Every 50 queries.
    pub learning_curve: Vec<CurvePoint>,
    /// Context characters over the run.
    pub total_cost: usize,
    /// At the last query.
    pub final_nodes_fired: Option<usize>,
    /// At the last query.
    pub final_context_chars: Option<usize>,
    /// At the last query.
    pub edge_count: Option<usize>,
    /// At the last query.
    pub dormant_pct: Option<f64>,
}

/// One point of a learning curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// 1-based query.
    pub query: usize,
    /// Nodes fired.
    pub nodes_fired: usize,
    /// Context characters.
    pub context_chars: usize,
    /// Edges.
    pub edge_count: usize,
    /// Dormant share.
    pub dormant_pct: f64,
}

/// One row of `comparison_table`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// The strategy.
    pub strategy: String,
    /// At the last query.
    pub final_nodes_fired: Option<usize>,
    /// At the last query.
    pub final_context_chars: Option<usize>,
    /// Over the run.
    pub total_cost: usize,
    /// At the last query.
    pub dormant_pct: Option<f64>,
    /// At the last query.
    pub edge_count: Option<usize>,
}

/// The reference's claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceClaim {
    /// Full maintenance has the lowest total context characters.
    pub full_maintenance_lowest_cost: bool,
}

/// The paper-profile document.
pub type Paper = super::Paper<Body, ReferenceClaim>;

/// The corrected profile's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// Strategy → nodes fired over the run.
    pub total_nodes_fired: IndexMap<String, usize>,
    /// Strategy → context characters over the run (reported, not claimed).
    pub total_context_chars_measured_not_claimed: IndexMap<String, usize>,
}

/// The corrected-profile document.
pub type Doc = Corrected<Body, Extra, ReferenceClaim>;
