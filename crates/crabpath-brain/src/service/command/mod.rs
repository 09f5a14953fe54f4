//! What each subcommand of the reference's command-line program does to a brain, minus
//! argument parsing and printing (reference `crabpath/cli.py` and the modules its
//! commands drive, commit 134c676). The `crabpath` binary (crate `crabpath-cli`) parses
//! arguments, loads files, calls these functions and prints their reports.
//!
//! | command | module | reference |
//! |---|---|---|
//! | `learn` | [`learn`] | `cli.py::cmd_learn`, `learn.py::apply_outcome` |
//! | `maintain` (and the daemon's) | [`maintain`] | `maintain.py::run_maintenance`, `daemon.py::_handle_maintain` |
//! | `merge`, `connect` | [`merge`] | `cli.py::cmd_merge`, `cmd_connect`, `merge.py`, `connect.py` |
//! | `anchor` | [`anchor`] | `cli.py::cmd_anchor` |
//! | `doctor` | [`doctor`] | `cli.py::cmd_doctor` |
//! | `info` | [`info`] | `cli.py::cmd_info` |
//! | `journal` | [`journal`] | `journal.py::read_journal`, `journal_stats` |
//! | `query` | [`query`] | `cli.py::cmd_query`, `_keyword_seeds` |
//! | `autotune` (and in `maintain`) | [`autotune`] | none: `autotune.py` only suggests (issue 31 item 3) |
//! | `reembed` | [`reembed`] | none: changing a brain's embedder in place, resumably (seed 003 §6.3) |
//!
//! `init` and `replay` are [`crate::source::bootstrap`], [`crate::source::replay`] and
//! [`crate::reference::reffiles::write_init`]; `inject` is [`crabpath::inject`]; `sync` is
//! [`crate::source::sync`]; `compact` is [`crate::source::compact`].
//!
//! Each function takes the [`Profile`](crabpath::Profile): `paper` reproduces the
//! reference (quirks included), `corrected` fixes what a user would trip over; each
//! module lists its fixes.

pub mod anchor;
pub mod autotune;
pub mod doctor;
pub mod info;
pub mod journal;
pub mod learn;
pub mod maintain;
pub mod merge;
pub mod query;
pub mod reembed;

use crabpath::graph::Graph;
use crabpath::health::{measure_health, GraphHealth};
use pyformat::pyjson::{PyDict, PyInt, PyValue};

/// The health payload the reference reports and journals (reference
/// `crabpath/maintain.py::_health_payload`, `cli.py::cmd_health`): the
/// [`GraphHealth`] fractions, then the node and edge counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HealthPayload {
    /// Tier shares, cross-file share, orphans.
    pub health: GraphHealth,
    /// Node count.
    pub nodes: usize,
    /// Stored edge count (dangling edges included).
    pub edges: usize,
}

impl HealthPayload {
    /// Measures a graph.
    pub fn of(graph: &Graph) -> Self {
        HealthPayload {
            health: measure_health(graph),
            nodes: graph.node_count(),
            edges: graph.edge_count(),
        }
    }

    /// `{dormant_pct, habitual_pct, reflex_pct, cross_file_edge_pct, orphan_nodes,
    /// nodes, edges}` in that order.
    pub fn to_dict(&self) -> PyDict {
        let int = |n: usize| PyValue::Int(PyInt::from(n as i64));
        let h = &self.health;
        let mut d = PyDict::new();
        d.insert("dormant_pct".into(), PyValue::Float(h.dormant_pct));
        d.insert("habitual_pct".into(), PyValue::Float(h.habitual_pct));
        d.insert("reflex_pct".into(), PyValue::Float(h.reflex_pct));
        d.insert(
            "cross_file_edge_pct".into(),
            PyValue::Float(h.cross_file_edge_pct),
        );
        d.insert("orphan_nodes".into(), int(h.orphan_nodes));
        d.insert("nodes".into(), int(self.nodes));
        d.insert("edges".into(), int(self.edges));
        d
    }

    /// The journal's `health` event: `{"type": "health", ...}` + [`Self::to_dict`].
    pub fn event(&self) -> PyDict {
        let mut e = PyDict::new();
        e.insert("type".into(), PyValue::Str("health".into()));
        e.extend(self.to_dict());
        e
    }

    /// The `health` event of a health check on its own (`crabpath health`, corrected
    /// profile): [`Self::event`] with `"check": true`, which tells the unlearning
    /// replay it is a report (issue 30 item 3, [`crate::service::Relearned`]): the
    /// same event without it is a maintenance run's, which a journal written before
    /// `maintain` entries holds without the run's inputs.
    pub fn check_event(&self) -> PyDict {
        let mut e = self.event();
        e.insert("check".into(), PyValue::Bool(true));
        e
    }
}
