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
//! * weakens the wrong *path* for the context it was taken in, and only there: the
//!   corrected turn learns `outcome · exp(−Δ/5)` (−1 for a correction) along the nodes
//!   it fired (seed 003 §3.3, "mapped to the session's fired nodes", as `feedback`
//!   applies it). No edge becomes a veto: an inhibitory weight (≤ −0.01) on a path
//!   edge `from → to` vetoes `to` in every later query in which `from` fires, even as a
//!   seed of its own (the old rule: the issue's 6 chunks fell to at most 1).
//!
//! Cutting the path's edges outright (weight 0, [`CorrectionMode::GuardrailCut`]) was
//! tried and measured (`bench guard`, `results/bench/guard/GUARD.md`): a cut edge is cut
//! for every question, and the questions related to a corrected one (sharing its
//! evidence, or its LoCoMo conversation) lost recall@10 as under the veto (LoCoMo: 165
//! of 1,093 against the veto's 164); without the cut 22 lose (issue 31's target, none,
//! is not met yet). The cut is kept as a mode for that comparison only.
//!
//! A correction does not take a seed's place either: a seeding's ranked results that
//! are corrections seed beside the `top` content results (`seed_prefix`), since a
//! correction quotes the words of its topic and would otherwise push a content seed out
//! of every question on it.
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
    /// and to its most similar nodes (no similarity floor under hash-v1), path edges
    /// inhibitory (the `paper` profile's).
    #[default]
    Veto,
    /// [`CorrectionMode::Guardrail`], and each edge the corrected turn traversed cut to
    /// dormant (weight 0): measured against the guardrail, not a profile's default.
    GuardrailCut,
    /// The guardrail rule (the corrected profile's): no inhibitory edge from the
    /// correction; positive links to its at most [`GUARDRAIL_TOP_K`] most similar
    /// nodes, none below [`GUARDRAIL_MIN_SIM`]; the corrected turn's path weakened by
    /// its outcome learning only, so that its nodes stay available to other questions.
    Guardrail,
}

impl CorrectionMode {
    /// Every mode, in the order reports list them.
    pub const ALL: [CorrectionMode; 3] = [
        CorrectionMode::Veto,
        CorrectionMode::GuardrailCut,
        CorrectionMode::Guardrail,
    ];

    /// The profile's mode: `paper` keeps the old rule unchanged, `corrected` guides.
    pub fn default_for(profile: Profile) -> CorrectionMode {
        if profile.fixes_bugs() {
            CorrectionMode::Guardrail
        } else {
            CorrectionMode::Veto
        }
    }

    /// `veto` / `guardrail-cut` / `guardrail`.
    pub fn as_str(self) -> &'static str {
        match self {
            CorrectionMode::Veto => "veto",
            CorrectionMode::GuardrailCut => "guardrail-cut",
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
            .ok_or_else(|| {
                format!("unknown correction mode `{s}` (expected veto, guardrail-cut or guardrail)")
            })
    }
}

/// The similarity floor of a guardrail's links: no correction links to a node less
/// similar than this, whatever the embedder.
///
/// The number is upstream's minimum similarity of an injected node's neighbours
/// ([`crabpath::inject::DEFAULT_CONNECT_MIN_SIM`], `daemon.py::_handle_inject`), and the
/// lower edge of seed 000's novelty band (cosine 0.30–0.85: below 0.30 a text is not
/// related to a node). Under hash-v1 the old rule linked with no floor at all (0.0):
/// the issue's correction reached `matmul.rst` and `http-client.md`. With the floor, in
/// `tests/guardrail.rs` the rollback correction links only to rollback notes and an
/// unrelated text to nothing; in `bench guard` (hash-v1, `results/bench/guard/`) it
/// removes 73 of MultiHop-RAG's 375 correction links and 21 of HotPotQA's 393, of which
/// 1 and 2 reached the corrected question's evidence.
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

/// Cuts the edge `from → to` of a corrected path ([`CorrectionMode::GuardrailCut`]):
/// its weight becomes 0 (dormant, not followed), marked with the correction that cut
/// it. True if it changed; a missing edge or node is left alone (there is no
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

/// How many of a seeding's ranked results seed the traversal when corrections do not
/// count against `top`: the shortest prefix of the `len` results holding `top` that are
/// not guardrails (`guard(i)`: result `i` is one), or all of them. A correction
/// matches the words of the questions on its topic (it quotes the content it concerns),
/// so counted as a seed it would push a content seed out of every such question; it
/// seeds beside them instead (issue 31 item 4: "together with the content that remains
/// relevant").
pub(crate) fn seed_prefix(len: usize, top: usize, mut guard: impl FnMut(usize) -> bool) -> usize {
    let mut content = 0;
    for i in 0..len {
        if content == top {
            return i;
        }
        if !guard(i) {
            content += 1;
        }
    }
    len
}

/// Whether a node's metadata JSON (the `nodes.metadata` column) marks a correction.
pub(crate) fn metadata_is_guardrail(metadata: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(metadata)
        .ok()
        .and_then(|m| {
            m.get("type")
                .and_then(|t| t.as_str())
                .map(|t| t == CORRECTION_TYPE)
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_seed_beside_the_top_content_results() {
        // results 0..6, results 1 and 2 corrections: top 3 content = 0, 3, 4 → prefix 5
        let guard = |i: usize| i == 1 || i == 2;
        assert_eq!(seed_prefix(6, 3, guard), 5);
        assert_eq!(seed_prefix(6, 3, |_| false), 3);
        assert_eq!(seed_prefix(2, 3, |_| false), 2);
        // a correction ranked after the top content results does not seed
        assert_eq!(seed_prefix(6, 1, |i| i == 1), 1);
        assert!(metadata_is_guardrail(
            r#"{"type": "CORRECTION", "source": "mcp"}"#
        ));
        assert!(!metadata_is_guardrail(r#"{"type": "TEACHING"}"#));
        assert!(!metadata_is_guardrail("not json"));
    }
}
