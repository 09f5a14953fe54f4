//! The seeding's depth counted in content (issue 31 item 4, corrected profile): the
//! ranked list a query seeds from and fills its answer with holds `depth` *content*
//! results, besides the question nodes and corrections the search found among them.
//!
//! A correction is returned beside the content as a guardrail and takes no place of
//! it (seed 003 §1.3; [`super::guardrail`]); a question (`auto:`) node is the
//! question, never part of an answer ([`super::neurogenesis`]; seed 001 §2.7 maps it
//! to what the session fired, seed 003 §3.3). Both are still found by the search,
//! though: a correction quotes its topic's words (seed 002 §5.7.2 connects it to the
//! nodes most similar to it), and a question node holds a question's words. Cut at a
//! fixed depth *before* they were set aside, the list kept fewer content results the
//! more corrections and questions a topic had gathered.
//!
//! Measured, `bench guard` (MultiHop-RAG test pool, hash-v1 lexical seeding, depth
//! 50; `results/bench/guard/GUARD.md`): of the 19 related questions that lost
//! recall@10 under the guardrail rule but not with nothing corrected, 17 had fewer
//! content seeds than with nothing corrected, or an answer shorter than 10, because
//! corrections and question nodes (each corrected question gets one) filled the 50
//! places; the other 2 kept their seeds and lost a place to a changed order. The
//! corrected questions' auto nodes and corrections are exactly what the guardrail
//! rule adds, which is why those losses came "only under the new rule". With the
//! depth counted in content the guardrail rule loses 3 related questions of 80, each
//! lost with nothing corrected too, against 24 of 77; its corrected questions' recall@10
//! goes 0.473 → 0.772 (0.667 before). HotPotQA is unchanged; on LoCoMo only the
//! corrected questions' recall@5 moves (0.7989 → 0.7995).
//!
//! The rule ([`deepen`]): search `depth`; when fewer than `depth` of the results are
//! content and the search was not exhausted, search again deeper (at least twice as
//! deep), up to [`MAX_DEPTH_FACTOR`] × `depth`; then cut the list just after its
//! `depth`-th content result. A brain with no question node and no correction among
//! the results gets the very list it got before (one search, the same cut), and each
//! search's order is total (score, then row), so deepening keeps the first results.

use rusqlite::Result;

/// How much deeper than asked the search may go to find `depth` content results: a
/// bound on the work of a query whose words only corrections and questions share.
pub const MAX_DEPTH_FACTOR: usize = 16;

/// How much deeper than `depth` the first search goes when the seeding's first `d`
/// results never depend on `d` ([`first_depth`]).
pub const FIRST_DEPTH_FACTOR: usize = 2;

/// The depth of [`deepen`]'s first search: `depth`, or [`FIRST_DEPTH_FACTOR`] ×
/// `depth` when `prefix_stable` (the seeding's first `d` results are the same whatever
/// depth it is asked: a folder brain's lexical or dense search, not a fusion of two
/// lists nor a conversation's speaker preference, whose order depends on the depth).
///
/// Why: a question asked again finds its own question node among its results, so
/// searching `depth` first and again deeper read the index twice for most repeated
/// questions. The search's cost is mostly scoring every match, not the depth kept, so
/// one deeper search costs about one search. The list returned is the same.
pub(super) fn first_depth(depth: usize, prefix_stable: bool) -> usize {
    match prefix_stable {
        true => depth.saturating_mul(FIRST_DEPTH_FACTOR),
        false => depth,
    }
}

/// The seeding's list holding `depth` content results (module docs): `search(d)`
/// gives the first `d` results, best first; `no_place(sym)` tells a question node or a
/// correction. The first search asks `first` (at least `depth`; [`first_depth`]).
pub(super) fn deepen(
    depth: usize,
    first: usize,
    mut search: impl FnMut(usize) -> Result<Vec<(i64, f64)>>,
    mut no_place: impl FnMut(i64) -> Result<bool>,
) -> Result<Vec<(i64, f64)>> {
    let limit = depth.saturating_mul(MAX_DEPTH_FACTOR);
    let mut d = first.max(depth).min(limit.max(depth));
    loop {
        let mut found = search(d)?;
        let mut content = 0;
        let mut cut = found.len();
        for (i, &(sym, _)) in found.iter().enumerate() {
            if content == depth {
                cut = i;
                break;
            }
            if !no_place(sym)? {
                content += 1;
            }
        }
        if content >= depth || found.len() < d || d >= limit {
            found.truncate(cut);
            return Ok(found);
        }
        d = d.saturating_mul(2).max(d + (depth - content)).min(limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search over syms 0..n with scores falling, and the depths it was asked.
    fn run(n: i64, depth: usize, free: &[i64]) -> (Vec<i64>, Vec<usize>) {
        run_from(n, depth, depth, free)
    }

    /// [`run`] with the first search at `first`.
    fn run_from(n: i64, depth: usize, first: usize, free: &[i64]) -> (Vec<i64>, Vec<usize>) {
        let mut asked = Vec::new();
        let out = deepen(
            depth,
            first,
            |d| {
                asked.push(d);
                Ok((0..n.min(d as i64)).map(|s| (s, -(s as f64))).collect())
            },
            |s| Ok(free.contains(&s)),
        )
        .unwrap();
        (out.into_iter().map(|x| x.0).collect(), asked)
    }

    #[test]
    fn content_results_fill_the_depth() {
        // nothing takes no place: one search, its list as it was
        assert_eq!(run(100, 3, &[]), (vec![0, 1, 2], vec![3]));
        // syms 1 and 2 take no place: searched again at 6 (twice 3), cut after the
        // third content result (sym 4)
        assert_eq!(run(100, 3, &[1, 2]), (vec![0, 1, 2, 3, 4], vec![3, 6]));
        // an exhausted search is returned whole
        assert_eq!(run(4, 3, &[1, 2]), (vec![0, 1, 2, 3], vec![3, 6]));
        // the bound: depth 1, every result a question: 1, 2, 4, 8, 16 and stop
        let (out, asked) = run(100, 1, &(0..100).collect::<Vec<_>>());
        assert_eq!(asked, vec![1, 2, 4, 8, 16]);
        assert_eq!(out.len(), 16);
    }

    #[test]
    fn a_deeper_first_search_returns_the_same_list_in_one_search() {
        // depth 3, syms 1 and 2 take no place: the first search at 6 finds the three
        // content results (0, 3, 4) at once, and the list is the one two searches gave
        assert_eq!(run_from(100, 3, 6, &[1, 2]), (vec![0, 1, 2, 3, 4], vec![6]));
        // nothing takes no place: cut at the depth, as a search of 3 gives
        assert_eq!(run_from(100, 3, 6, &[]), (vec![0, 1, 2], vec![6]));
        assert_eq!(first_depth(50, true), 100);
        assert_eq!(first_depth(50, false), 50);
    }
}
