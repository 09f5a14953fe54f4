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
//! The guardrail rule ([`CorrectionMode::Guardrail`]) scopes the correction to the
//! question it corrects ("the wrong *path* is inhibited for that context"):
//! * it keeps the content: the correction node gets no inhibitory edge to any node, and
//!   no content edge learns the turn's −1;
//! * its most similar nodes (seed 002 §5.7.2 "connect each correction to its top-3 most
//!   similar workspace nodes"; at most [`GUARDRAIL_TOP_K`], none below
//!   [`GUARDRAIL_MIN_SIM`]) keep an edge *to* the correction, so that a question that
//!   fires them meets it as a guardrail (seed 003 §1.3 "include top inhibitory nodes as
//!   structured guardrails"); the correction has no edge to them, so it pulls nothing
//!   into another question's answer;
//! * the corrected turn's question node (`auto:`, [`super::neurogenesis`], born now if
//!   the question had none) gets one positive credit on an edge to the correction and
//!   to each of those similar nodes ([`question_steps`]): that question, and its
//!   paraphrases (the only questions its node seeds), get the corrected content first,
//!   ahead of the answer that was wrong, and the correction beside it. The correction
//!   is mapped to the fired nodes of that conversation (seed 003 §3.3) through that node
//!   only.
//!
//! Why, measured (`bench guard`, `results/bench/guard/GUARD.md`; the rule was chosen on
//! the dev pools of HotPotQA and MultiHop-RAG and LoCoMo's tuning conversations): the
//! first guardrail rule ([`CorrectionMode::GuardrailShared`]) linked the correction both
//! ways and learned the turn's −1 along the content edges it traversed. Related
//! questions (sharing evidence with a corrected one, or its LoCoMo conversation) walk
//! those same edges and meet the same correction: 12 of 77 lost recall@10 on
//! MultiHop-RAG, 28 of 1,104 on LoCoMo, mostly to a correction that seeded them or that
//! their traversal reached, which pulled the corrected question's evidence into their
//! answer. Scoped, LoCoMo loses 10 and the corrected questions gain far more (recall@10
//! 0.133 → 0.842 against 0.179). MultiHop-RAG lost 24 until the seeding's list counted
//! its depth in content ([`super::content_depth`]): the corrections and the corrected
//! questions' nodes filled the lexical search's 50 places before they were set aside,
//! so 17 of the 19 losses not seen with nothing corrected had fewer content seeds or a
//! short answer. It now loses 3, each lost with nothing corrected too (drift), and its
//! corrected questions go 0.473 → 0.772 (`results/bench/README.md`). Inhibiting
//! the wrong answer's nodes from the question node was tried too: it also demotes the
//! evidence the wrong answer did find (HotPotQA dev: corrected recall@10 0.500 → 0.515,
//! against 0.956 without it).
//! Without a question node (no turn attributed, `--neurogenesis off`, a question the
//! gate's quality rules refuse) the correction is reached by its own words and by the
//! content that links to it, and changes no answer's content.
//!
//! A correction does not take a seed's place either: a seeding's ranked results that
//! are corrections seed beside the `top` content results (`seed_prefix`), since a
//! correction quotes the words of its topic and would otherwise push a content seed out
//! of every question on it.
//!
//! **Set aside** (schema 5, the corrected profile). A correction is not content, and
//! two more ways it still moved other questions' content are closed:
//! * it is not in the content's lexical index but in the aside index
//!   ([`crate::store::schema::SCHEMA_V5_ASIDE_LEXICAL`]): a correction quotes the content
//!   it corrects, so its words lowered the idf of exactly the words that find that
//!   content. A question finds a correction there when the correction holds at least
//!   half of the question's words ([`speaks_to`], [`found_by_words`]), and the answer
//!   lists it as a guardrail without seeding from it;
//! * a walk that reaches a correction records it (a guardrail) but sets it aside
//!   (`crabpath::traverse::Traverser::set_aside`): it takes no place of the beam and is
//!   not walked from, so the walk among the content goes on as without it.
//!
//! `bench guard` (`results/bench/README.md`): related questions that lost recall@10,
//! LoCoMo 23 → 3 of 1,153 (the 3 lose to the rule as a whole: the question node and
//! the learning together), MultiHop-RAG 5 → 0 of 77, HotPotQA 0 of 9; the corrected
//! questions keep their gain.
//!
//! Answers mark a CORRECTION node as a guardrail: it is listed apart from the ranked
//! content (it never takes a content slot) and the command line, the daemon and the
//! MCP server return it under `guardrails`.

use crabpath::graph::{Graph, NodeId};
use crabpath::inject::CORRECTION_TYPE;
use crabpath::profile::Profile;

use super::neurogenesis::CREDIT_STEP;
#[cfg(doc)]
use crabpath::neurogenesis::SEED_EDGE_WEIGHT;

/// How a correction is applied (issue 31, item 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CorrectionMode {
    /// The old rule: inhibitory edges from the correction to every node the turn fired
    /// and to its most similar nodes (no similarity floor under hash-v1), path edges
    /// inhibitory (the `paper` profile's).
    #[default]
    Veto,
    /// The first guardrail rule, measured before the fix: links both ways to the
    /// correction's most similar nodes, and the corrected turn's −1 learned along the
    /// content edges it traversed, which every question walks.
    GuardrailShared,
    /// The guardrail rule (the corrected profile's), scoped to the corrected question
    /// (module docs): no inhibitory edge and no −1 on content edges; the correction's
    /// at most [`GUARDRAIL_TOP_K`] most similar nodes (none below
    /// [`GUARDRAIL_MIN_SIM`]) link to it, and the corrected question's node links to
    /// it and to them.
    Guardrail,
}

impl CorrectionMode {
    /// Every mode, in the order reports list them.
    pub const ALL: [CorrectionMode; 3] = [
        CorrectionMode::Veto,
        CorrectionMode::GuardrailShared,
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

    /// `veto` / `guardrail-shared` / `guardrail`.
    pub fn as_str(self) -> &'static str {
        match self {
            CorrectionMode::Veto => "veto",
            CorrectionMode::GuardrailShared => "guardrail-shared",
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
                format!(
                    "unknown correction mode `{s}` (expected veto, guardrail-shared or guardrail)"
                )
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
/// `tests/it/guardrail.rs` the rollback correction links only to rollback notes and an
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

/// Removes the edges from the correction `me` to each of its `similar` nodes, and keeps
/// theirs to it ([`CorrectionMode::Guardrail`]): a question that fires one of them
/// still reaches the correction, as a guardrail that takes no place, but the
/// correction pulls no content into its answer; its question carries those links
/// instead ([`question_steps`]).
pub(crate) fn unlink_outgoing(graph: &mut Graph, me: &str, similar: &[String]) {
    let Some(m) = graph.lookup(me) else {
        return;
    };
    for id in similar {
        if let Some(n) = graph.lookup(id) {
            graph.remove_edge(m, n);
        }
    }
}

/// The edges a corrected turn's question node gets ([`CorrectionMode::Guardrail`]): to
/// the correction and to each of its `similar` nodes, one positive credit
/// ([`CREDIT_STEP`]) scaled by the turn's attribution `weight`, which takes a new edge
/// from the provisional [`SEED_EDGE_WEIGHT`] (0.15) to 0.40: above every provisional
/// edge, so the question ranks them first ([`super::neurogenesis`]'s steering).
pub(crate) fn question_steps(
    correction: &str,
    similar: &[String],
    weight: f64,
) -> Vec<(String, f64)> {
    std::iter::once(correction)
        .chain(similar.iter().map(String::as_str))
        .map(|id| (id.to_string(), CREDIT_STEP * weight))
        .collect()
}

/// Least share of a question's words ([`crate::store::lexical::query_terms`]) that a
/// correction's text must hold for the question to find it by its words: half, as a
/// question node speaks for a paraphrase sharing half of its words
/// ([`super::neurogenesis::MATCH_MIN`]).
pub const GUARDRAIL_MATCH_MIN: f64 = 0.5;

/// Most corrections a question finds by its words ([`found_by_words`]).
pub const MAX_FOUND_GUARDRAILS: usize = 3;

/// Whether `correction` holds at least [`GUARDRAIL_MATCH_MIN`] of `question`'s words.
pub fn speaks_to(question: &str, correction: &str) -> bool {
    let q = crate::store::lexical::query_terms(question);
    if q.is_empty() {
        return false;
    }
    let words: rustc_hash::FxHashSet<String> = crate::store::lexical::query_words(correction);
    let held = q.iter().filter(|t| words.contains(*t)).count();
    held as f64 >= GUARDRAIL_MATCH_MIN * q.len() as f64
}

/// The corrections a question finds by its words (schema 5: corrections are in the
/// index of the nodes set aside, [`crate::store::schema::SCHEMA_V5_ASIDE_LEXICAL`], not
/// among the content): of the nodes that index ranks for `text` (`aside`, the
/// question's one search of it), the corrections that [`speaks_to`] it, at most
/// [`MAX_FOUND_GUARDRAILS`], best first, as `(id, content)`. They are listed as
/// guardrails beside the answer and change nothing of its content.
///
/// Cost: one pass over `aside`.
pub(crate) fn found_by_words(
    text: &str,
    aside: &[crate::store::lexical::AsideHit],
) -> Vec<(String, String)> {
    aside
        .iter()
        .filter_map(|h| match (&h.content, &h.metadata) {
            (Some(content), Some(metadata))
                if metadata_is_guardrail(metadata) && speaks_to(text, content) =>
            {
                Some((h.id.clone(), content.clone()))
            }
            _ => None,
        })
        .take(MAX_FOUND_GUARDRAILS)
        .collect()
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
    fn a_correction_speaks_to_a_question_half_of_whose_words_it_holds() {
        let c = "Never roll back by hand: always use the release tool.";
        // {release, tool}: both; {roll, back, failed, deploy}: 2 of 4
        assert!(speaks_to("what does the release tool do", c));
        assert!(speaks_to("how do I roll back a failed deploy", c));
        // {rotate, tls, certificates, release}: 1 of 4
        assert!(!speaks_to("rotate the tls certificates of the release", c));
        // brackets are joiners, case is ignored; a question of stop words finds nothing
        assert!(speaks_to("Release T[o]ol", c));
        assert!(!speaks_to("what is it", c));
    }

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
