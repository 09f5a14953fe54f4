//! The papers' numbers, as data: what each table row of the papers says and what the
//! reference program measured, kept beside the results they describe
//! (`results/sims/expected.json`, `results/v2/expected.json`).
//!
//! `sims` fills them into its cards by (table, row label); `sims check`, `sims v2 check`,
//! `sims claims` and `report` read them from there.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What is expected of one table row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// The paper's value, as printed.
    pub paper: String,
    /// The reference program's value, formatted as our value is.
    pub reference: String,
    /// Whether the paper's value agrees with the reference program's (after the paper's
    /// rounding); `false` marks a paper/code discrepancy.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub agrees: bool,
    /// Short note (discrepancy reference, caveat).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Row label → expected values, in the table's row order.
pub type Rows = IndexMap<String, Expected>;

/// Table number (as a string: JSON keys) → its rows.
pub type Tables = IndexMap<String, Rows>;

/// The expected values of one simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Numbers the paper states in its prose (a threshold, a node count, the timings of
    /// a table drawn as a figure), by name; read by the simulation itself.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub facts: IndexMap<String, Value>,
    /// Its rows of the paper's tables (the summary table included).
    pub tables: Tables,
}

/// `results/sims/expected.json`: the OpenClawBrain paper's numbers per simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimsFile {
    /// What the file is.
    pub about: String,
    /// Simulation name → its expected values.
    pub sims: IndexMap<String, Simulation>,
}

/// `results/v2/expected.json`: the CrabPath paper's tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablesFile {
    /// What the file is.
    pub about: String,
    /// Its tables.
    pub tables: Tables,
}
