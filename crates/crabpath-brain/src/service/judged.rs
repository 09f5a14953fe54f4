//! What an outcome without `used_ids` judges (issue 31 item 5, "outcome only (+1 / −1
//! for the turn): wrong answers move down, and right ones move up").
//!
//! An outcome-only feedback says whether the answer's first places held what the agent
//! needed: the rounds of `bench folder-rounds` and `bench locomo-rounds` give +1 when a
//! right page (an evidence turn) is among the first five, −1 otherwise. It says nothing
//! about what the answer ranked below them. So the question's node
//! (`super::neurogenesis`) credits the outcome only to the nodes the turn fired that
//! belong to the answer's first [`JUDGED_PLACES`] *documents*: a node's document is its
//! `file` (a folder's page, as an agent opens it and as the folder benchmarks score by
//! page), or the node itself when it has none (a conversation's turn).
//!
//! Why not every node the turn fired, as before: on LoCoMo (hash-v1, top 6, 841
//! questions asked in 5 rounds) a −1 to everything fired sent evidence the answer ranked
//! 6th to 10th to the end with the wrong first five, and outcome-only success@5 fell
//! after round 1 (0.630 → 0.587 … 0.602). With the −1 scoped alone, a +1 to everything
//! fired still promoted nodes the outcome did not judge, and 4 of the first 6
//! conversations fell at round 4 or 5 (scoping both, 1 of 6 fell once, at round 2); the
//! likely cause: the next answer orders promoted nodes by the seeding's list, and the
//! fifth place a conversation brain gives the traversal's best addition
//! ([`super::lead`]) is lost. Why documents, not the first five nodes: a folder's first five
//! pages span more than five chunks, and inhibiting five chunks left a wrong page's
//! other chunks to take the places again (tldr-pages outcome-only round 5 0.875 →
//! 0.852 with the first five nodes).
//!
//! Measured (`results/bench/learn/locomo-rounds-hash-v1.md`,
//! `results/bench/folder/rounds-tldr-08e345f.json`): LoCoMo outcome-only success@5
//! 0.642 / 0.694 / 0.712 / 0.747 / 0.765 by round (held-out questions lost at 5: 67 →
//! 49; agent-confirmed unchanged); tldr-pages 0.761 / 0.830 / 0.841 / 0.864 / 0.875
//! (round 3 was 0.852, one question; paraphrases after 0.930 → 0.907, one; unrelated 0
//! lost, as before).
//!
//! The documents are those the answer *showed*, in its ranked order
//! (`super::query`'s rule, lead and steering included): each query that grows or
//! refreshes its question node stores them in the node's `auto.judged`. A question
//! whose node is born by the feedback itself has none stored; its turn's fired order
//! stands in for the answer's (the seeds first, as the answer puts them, apart from a
//! conversation brain's fifth place).

use crabpath::graph::{Graph, Node};

/// The places of an answer an outcome judges: the first five, success@5 of the rounds'
/// outcome-only protocol (issue 31 item 5), the places an agent reads first.
pub const JUDGED_PLACES: usize = 5;

/// The document of node `id` in `graph`: its `file`, else its id.
pub fn document<'a>(graph: &'a Graph, id: &'a str) -> &'a str {
    graph.get_node(id).and_then(Node::file).unwrap_or(id)
}

/// The first [`JUDGED_PLACES`] documents of `ranked` (ids best first), each once, and
/// how many ids of `ranked` come before the first id of the next document (all of them
/// when there is none): the one walk of [`judged_documents`] and
/// [`after_judged_places`]. Cost: O(`JUDGED_PLACES` · places read).
fn first_documents<'a>(
    graph: &'a Graph,
    ranked: impl IntoIterator<Item = &'a str>,
) -> (Vec<&'a str>, usize) {
    let mut docs: Vec<&str> = Vec::with_capacity(JUDGED_PLACES);
    let mut read = 0;
    for id in ranked {
        let d = document(graph, id);
        if !docs.contains(&d) {
            if docs.len() == JUDGED_PLACES {
                break;
            }
            docs.push(d);
        }
        read += 1;
    }
    (docs, read)
}

/// The first [`JUDGED_PLACES`] documents of `ranked` (ids best first), each once. An
/// answer's ranking and a turn's fired list hold no auto node (a question takes no
/// place, `super::neurogenesis`), so none is looked for. Cost: O(`JUDGED_PLACES` ·
/// places read).
pub fn judged_documents<'a>(
    graph: &'a Graph,
    ranked: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let (docs, _) = first_documents(graph, ranked);
    docs.into_iter().map(str::to_string).collect()
}

/// `ranking` (an answer's ids, best first, without the inhibited nodes it reached) with
/// `held` (those nodes, which the question's node inhibits, `super::neurogenesis::Steer`)
/// put back behind its first [`JUDGED_PLACES`] documents, then cut to `limit`.
///
/// A −1 without `used_ids` judged the earlier answer's first five documents as a set
/// ("not among them"), not each of them: most partial answers of a multi-evidence
/// question get it. So the next answer shows five other documents first, where the
/// outcome looks, and the judged ones right behind them, not after everything: a right
/// node among them stays in the first ten. Behind everything, as before, a re-asked
/// MultiHop-RAG question lost recall@10 with neurogenesis on (`bench neurogenesis`,
/// `repeat`: −0.024 against it off, Holm p 0.001; now +0.002, n.s.); LoCoMo's
/// outcome-only rounds keep success@5 (the first five places do not change) and reach
/// recall@10 0.728 at round 5 instead of 0.712 (`bench locomo-rounds`). Cost: O(places
/// read · `JUDGED_PLACES`).
pub fn after_judged_places(
    graph: &Graph,
    ranking: Vec<String>,
    held: Vec<String>,
    limit: Option<usize>,
) -> Vec<String> {
    if held.is_empty() {
        return ranking;
    }
    let (_, at) = first_documents(graph, ranking.iter().map(String::as_str));
    let mut out = ranking;
    let rest = out.split_off(at);
    out.extend(held);
    out.extend(rest);
    out.truncate(limit.unwrap_or(usize::MAX));
    out
}

/// Whether node `id` belongs to one of the `judged` documents.
pub fn is_judged(graph: &Graph, judged: &[String], id: &str) -> bool {
    let d = document(graph, id);
    judged.iter().any(|x| x == d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> Graph {
        let mut g = Graph::new();
        for (id, file) in [
            ("a.md::0", Some("a.md")),
            ("a.md::1", Some("a.md")),
            ("b.md::0", Some("b.md")),
            ("t1", None),
            ("t2", None),
            ("t3", None),
            ("t4", None),
        ] {
            let n = Node::new(id, "x");
            g.add_node(match file {
                Some(f) => n.with_meta("file", f),
                None => n,
            });
        }
        g
    }

    #[test]
    fn documents_are_files_or_the_nodes_themselves() {
        let g = graph();
        assert_eq!(document(&g, "a.md::1"), "a.md");
        assert_eq!(document(&g, "t1"), "t1");
        // not a node: itself
        assert_eq!(document(&g, "nowhere"), "nowhere");
    }

    #[test]
    fn the_first_five_documents_may_span_more_nodes() {
        let g = graph();
        // a.md's two chunks are one document: t4 is the sixth
        let ranked = ["a.md::0", "a.md::1", "b.md::0", "t1", "t2", "t3", "t4"];
        let j = judged_documents(&g, ranked);
        assert_eq!(j, ["a.md", "b.md", "t1", "t2", "t3"]);
        assert!(is_judged(&g, &j, "a.md::1"));
        assert!(!is_judged(&g, &j, "t4"));
    }

    #[test]
    fn held_nodes_go_behind_the_first_five_documents_inside_the_limit() {
        let g = graph();
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // a.md's two chunks are one document, so the sixth document starts at t4; a.md's
        // second chunk, though later than t3, is within the first five documents
        let ranking = ids(&["a.md::0", "b.md::0", "t1", "t2", "a.md::1", "t3", "t4"]);
        let held = ids(&["x", "y"]);
        assert_eq!(
            after_judged_places(&g, ranking.clone(), held.clone(), None),
            ["a.md::0", "b.md::0", "t1", "t2", "a.md::1", "t3", "x", "y", "t4"]
        );
        // the limit cuts after the held nodes are placed: they keep their places
        assert_eq!(
            after_judged_places(&g, ranking.clone(), held.clone(), Some(7)),
            ["a.md::0", "b.md::0", "t1", "t2", "a.md::1", "t3", "x"]
        );
        // fewer than five documents: behind all of them; nothing held: unchanged
        assert_eq!(
            after_judged_places(&g, ids(&["t1", "t2"]), held, Some(3)),
            ["t1", "t2", "x"]
        );
        assert_eq!(
            after_judged_places(&g, ranking.clone(), Vec::new(), None),
            ranking
        );
    }
}
