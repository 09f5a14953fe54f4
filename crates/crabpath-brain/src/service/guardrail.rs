//! Corrections that guide rather than erase (issue 31, item 4): the corrected profile's
//! way of applying a correction ([`CorrectionMode::Guardrail`]) and of returning one
//! ([`is_guardrail`], `Answer::guardrails`).
//!
//! The old rule ([`CorrectionMode::Veto`], still the `paper` profile's) gives the
//! CORRECTION node an inhibitory edge of −0.5 to every node the corrected turn fired
//! and to its three most similar nodes, whatever their similarity. Whenever the
//! correction seeds (it shares the question's words), it vetoes them all: the same
//! question then returns only the correction, and so does every later question on the
//! topic (the over-invalidation of getzep/graphiti#1728).
//!
//! The guardrail rule instead
//! * keeps the content: the correction node gets no inhibitory edge to any node;
//! * links the correction *beside* the content it concerns (seed 003 §1.3 "include top
//!   inhibitory nodes as structured guardrails"; seed 002 §5.7.2 "connect each
//!   correction to its top-3 most similar workspace nodes"): positive edges both ways
//!   to at most 3 most similar nodes, none below [`GUARDRAIL_MIN_SIM`], so that the
//!   correction is reached whenever its topic is, and never from unrelated nodes;
//! * cuts the wrong *path*, for the context it was taken in (seed 003 §3.3, the
//!   session's fired nodes): each edge `from → to` that the corrected turn traversed
//!   becomes dormant (weight 0, not followed) instead of inhibitory. A traversal no
//!   longer walks from that turn's seeds to what it wrongly reached, but the reached
//!   node is not vetoed: it still answers a question that seeds it, or that reaches
//!   it by another edge. An inhibitory weight (≤ −0.01) on `from → to` would veto
//!   `to` in every later query in which `from` fires, even as a seed of its own;
//! * keeps the outcome learning of the turns (seed 003 §3.3, weight
//!   `outcome · exp(−Δ/5)`), as `feedback` applies it.
//!
//! Answers mark a CORRECTION node as a guardrail: it is listed apart from the ranked
//! content (it never takes a content slot) and the command line, the daemon and the
//! MCP server return it under `guardrails`.

use crabpath::graph::{Graph, NodeId};
use crabpath::inject::CORRECTION_TYPE;
use crabpath::profile::Profile;

use crate::error::Result;

/// How a correction is applied (issue 31, item 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CorrectionMode {
    /// The old rule: inhibitory edges from the correction to every node the turn fired
    /// and to its most similar nodes, path edges inhibitory (the `paper` profile's).
    #[default]
    Veto,
    /// The guardrail rule (the corrected profile's): no inhibitory edge from the
    /// correction; positive links to its at most [`GUARDRAIL_TOP_K`] most similar
    /// nodes, none below [`GUARDRAIL_MIN_SIM`]; each edge the corrected turn traversed
    /// cut to dormant (weight 0) instead of inhibitory, so that the wrong path is not
    /// walked again from that turn's seeds while its nodes stay available to other
    /// questions; the outcome learning of the turns as `feedback` applies it.
    Guardrail,
}

impl CorrectionMode {
    /// Both modes, in the order `--help` lists them.
    pub const ALL: [CorrectionMode; 2] = [CorrectionMode::Veto, CorrectionMode::Guardrail];

    /// The profile's mode: `paper` keeps the old rule unchanged, `corrected` guides.
    pub fn default_for(profile: Profile) -> CorrectionMode {
        if profile.fixes_bugs() {
            CorrectionMode::Guardrail
        } else {
            CorrectionMode::Veto
        }
    }

    /// `veto` / `guardrail`.
    pub fn as_str(self) -> &'static str {
        match self {
            CorrectionMode::Veto => "veto",
            CorrectionMode::Guardrail => "guardrail",
        }
    }
}

impl std::str::FromStr for CorrectionMode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        CorrectionMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("unknown correction mode `{s}` (expected veto or guardrail)"))
    }
}

/// The similarity floor of a guardrail's links: no correction links to a node less
/// similar than this, whatever the embedder.
///
/// The number is upstream's minimum similarity of an injected node's neighbours
/// ([`crabpath::inject::DEFAULT_CONNECT_MIN_SIM`], `daemon.py::_handle_inject`), and the
/// lower edge of seed 000's novelty band (cosine 0.30–0.85: below 0.30 a text is not
/// related to a node). Under hash-v1 the old rule linked with no floor at all (0.0);
/// measured with hash-v1 (`bench guard`, `results/bench/guard/`), the example
/// correction "Never roll back by hand: always use the release tool." is at cosine
/// ≥ 0.3 to the rollback notes and below it to unrelated chunks.
pub const GUARDRAIL_MIN_SIM: f64 = crabpath::inject::DEFAULT_CONNECT_MIN_SIM;

/// The number of nodes a guardrail links to (seed 002 §5.7.2: "top-3 most similar").
pub const GUARDRAIL_TOP_K: usize = crabpath::inject::DEFAULT_CONNECT_TOP_K;

/// Whether node `n` of `graph` is a correction, returned as a guardrail: its metadata
/// `type` is `CORRECTION` (as `correct`, `inject --type CORRECTION` and the daemon's
/// `inject` mark it).
pub fn is_guardrail(graph: &Graph, n: NodeId) -> bool {
    graph.node(n).is_some_and(|node| {
        node.metadata
            .get("type")
            .and_then(|v| v.as_str())
            .is_some_and(|t| t == CORRECTION_TYPE)
    })
}

/// Cuts the edge `from → to` of a corrected path: its weight becomes 0 (dormant, not
/// followed; see the module docs for why not inhibitory), marked with the correction
/// that cut it. True if it changed; a missing edge or node is left alone (there is no
/// path to cut).
pub(crate) fn cut(graph: &mut Graph, from: &str, to: &str, correction: &str) -> Result<bool> {
    let (Some(a), Some(b)) = (graph.lookup(from), graph.lookup(to)) else {
        return Ok(false);
    };
    if !graph.has_node(a) || !graph.has_node(b) || a == b {
        return Ok(false);
    }
    let Some(e) = graph.edge_mut(a, b) else {
        return Ok(false);
    };
    if e.weight <= 0.0 {
        return Ok(false);
    }
    e.weight = 0.0;
    e.metadata.insert("source", "correction");
    e.metadata.insert("correction", correction);
    Ok(true)
}
