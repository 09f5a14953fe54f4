//! Speaker feature of a conversation brain's seeding (issue 28, item 5: "speaker and
//! time features"): a question that names a speaker prefers that speaker's turns.
//!
//! Most LoCoMo questions name one of the two speakers ("What did Caroline research?").
//! The name is in every one of that speaker's turns (the content is `speaker (time):
//! text`), so BM25 gives it almost no weight, and a turn of the other speaker that
//! shares the question's other words ranks as high. Two places prefer the named
//! speaker's turns, each multiplying a positive score by 1 + [`SPEAKER_BOOST`] and
//! re-sorting stably:
//!
//! * the lexical search of a conversation brain ([`prefer_named`]; [`is_conversation`]:
//!   `meta.source` = [`crate::source::conversation::CONVERSATION`]), read to [`CANDIDATES`]
//!   times its usual depth first, so that a named speaker's turn ranked just below the
//!   cut can rise into it; the dense search is left as it is (with MiniLM's cosines
//!   boosted as well the default's recall@10 on the tuning conversations was 0.625,
//!   with the lexical list alone 0.665, before the feature 0.655);
//! * the order of the nodes the traversal added ([`added_in_order`]): the boosted seeds
//!   are mostly the named speaker's turns, and their chain neighbours the other
//!   speaker's; without this the default (seeds, then one addition per seed) lost on
//!   the tuning conversations what its seeds gained (recall@10 0.717 against 0.720 before
//!   the feature; with it 0.727).
//!
//! A speaker is named when the first word of its name is a word of the question
//! (words: maximal runs of letters and digits, lowercased; "Caroline's" names
//! Caroline). A folder brain's seeding is unchanged, and so is the order of its
//! additions: its chunks have no `speaker`.
//!
//! Measured through the product (LoCoMo, hash-v1, tuning conversations conv-26 and
//! conv-30, `benchmarks/README.md`, "Conversation features"): BM25 seeds alone,
//! recall@10 0.627 → 0.659, multi-hop 0.303 → 0.390; the default query (seeds, then
//! traversal; `top` re-tuned) 0.720 → 0.727. Boost 0.2 instead: 0.720 (seeds and
//! additions).

use crabpath::graph::{Graph, NodeId};
use crabpath::traverse::TraversalResult;
use rusqlite::{Connection, OptionalExtension};

/// How much a named speaker's turn is preferred: its score × (1 + this).
pub const SPEAKER_BOOST: f64 = 0.5;

/// A conversation brain's searches read this many times their depth before the boost
/// (on the tuning conversations, 2 reaches every gain of 4).
pub const CANDIDATES: usize = 2;

/// Whether the brain was built from a conversation (`meta.source`).
pub fn is_conversation(conn: &Connection) -> rusqlite::Result<bool> {
    let v: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([crate::source::conversation::SOURCE_KEY], |r| r.get(0))
        .optional()?;
    let want = serde_json::Value::from(crate::source::conversation::CONVERSATION).to_string();
    Ok(v.as_deref() == Some(want.as_str()))
}

/// `score` × (1 + [`SPEAKER_BOOST`]) for a named speaker's turn with a positive score,
/// else `score`.
fn boosted(score: f64, named: bool) -> f64 {
    if named && score > 0.0 {
        score * (1.0 + SPEAKER_BOOST)
    } else {
        score
    }
}

/// The lowercased words of `text` (maximal runs of letters and digits).
fn words(text: &str) -> Vec<String> {
    super::lexical::alnum_runs(text)
        .map(str::to_lowercase)
        .collect()
}

/// Whether `question` (its [`words`]) names `speaker`: the speaker's first word is one
/// of them.
fn names(question: &[String], speaker: &str) -> bool {
    words(speaker)
        .first()
        .is_some_and(|first| question.contains(first))
}

/// `ranked` (`(sym, score)`, best first, scores positive) with the turns of a speaker
/// named in `question` boosted and re-sorted (see the module docs); unchanged when the
/// question names no speaker of the ranked nodes. `speaker_of(sym)` is the speaker of
/// node `sym` (its `metadata.speaker`): [`speaker_column`] reads it from the database,
/// a resident brain from its graph.
///
/// Cost: one `speaker_of` call per ranked node.
pub fn prefer_named(
    question: &str,
    ranked: Vec<(i64, f64)>,
    mut speaker_of: impl FnMut(i64) -> rusqlite::Result<Option<String>>,
) -> rusqlite::Result<Vec<(i64, f64)>> {
    let q = words(question);
    if q.is_empty() || ranked.is_empty() {
        return Ok(ranked);
    }
    let mut out = Vec::with_capacity(ranked.len());
    let mut any = false;
    for (sym, score) in ranked {
        let named = speaker_of(sym)?.is_some_and(|s| names(&q, &s));
        any |= named;
        out.push((sym, boosted(score, named)));
    }
    if any {
        // stable: equal scores keep the search's order
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    Ok(out)
}

/// The speaker of node `sym` as the database records it (`metadata.speaker` of its
/// `nodes` row; none for a node without one or a `sym` without a node), for
/// [`prefer_named`].
///
/// Cost: one primary-key lookup per call (the statement is prepared once, from the
/// connection's statement cache).
pub fn speaker_column(
    conn: &Connection,
) -> rusqlite::Result<impl FnMut(i64) -> rusqlite::Result<Option<String>> + '_> {
    let mut stmt = conn
        .prepare_cached("SELECT json_extract(metadata, '$.speaker') FROM nodes WHERE sym = ?1")?;
    Ok(move |sym: i64| {
        Ok(stmt
            .query_row([sym], |r| r.get::<_, Option<String>>(0))
            .optional()?
            .flatten())
    })
}

/// The speaker of node `n` of `graph` (its `metadata.speaker`), as [`speaker_column`]
/// reads it from the database.
pub fn speaker_in(graph: &Graph, n: NodeId) -> Option<&str> {
    graph.node(n)?.metadata.get("speaker")?.as_str()
}

/// The nodes a traversal added (`result`'s fired nodes that are not `seeds`) in
/// context order (best activation first, [`TraversalResult::context_order`]), with the
/// activation of a turn whose speaker `question` names multiplied by
/// 1 + [`SPEAKER_BOOST`] (stable). A node without `speaker` metadata (every folder
/// chunk) is never boosted, so without a named speaker the order is the context
/// order exactly.
///
/// Cost: one sort of the fired nodes.
pub fn added_in_order(
    graph: &Graph,
    question: &str,
    seeds: &[(NodeId, f64)],
    result: &TraversalResult,
) -> Vec<NodeId> {
    let q = words(question);
    let score: rustc_hash::FxHashMap<NodeId, f64> = result.fired_scores.iter().copied().collect();
    let mut order: Vec<(NodeId, f64)> = result
        .context_order()
        .into_iter()
        .filter(|n| !seeds.iter().any(|s| s.0 == *n))
        .map(|n| {
            let s = score.get(&n).copied().unwrap_or(0.0);
            let named = speaker_in(graph, n).is_some_and(|sp| names(&q, sp));
            (n, boosted(s, named))
        })
        .collect();
    // stable: equal activations keep the context order
    order.sort_by(|a, b| b.1.total_cmp(&a.1));
    order.into_iter().map(|x| x.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speaker_is_named_by_the_first_word_of_the_name() {
        let q = words("What did Caroline's friend research?");
        assert!(names(&q, "Caroline"));
        assert!(names(&q, "Caroline Smith"));
        assert!(!names(&q, "Melanie"));
        assert!(!names(&q, ""));
    }
}
