//! Keyword seeding: the tokeniser, the two keyword rankings of the reference, and the
//! "learning path" a replayed traversal is learned on.
//!
//! * Tokens of a text ([`tokenize`]; reference `crabpath/_util.py::_tokenize`, commit
//!   134c676): the set of maximal runs of ASCII letters, digits and the apostrophe
//!   (`[A-Za-z0-9']+`), each lower-cased. `"What's"` → `what's`; `crabpath's` ≠
//!   `crabpath`; every non-ASCII character separates tokens (lower-casing happens per
//!   token, so `K` (Kelvin sign) or `İ` never become ASCII letters).
//! * Overlap score of a node: `|Q ∩ T(node.content)| / |Q|` with `Q` the query's tokens.
//! * [`keyword_ranking`] — every node scored (zeros included), sorted by (score, id)
//!   descending, first `top_k`: the CLI's `--graph` query without an index (reference
//!   `cli.py::_keyword_seeds`) and the repository benchmark's `keyword_overlap` method
//!   (`benchmarks/run_benchmark.py::_keyword_overlap`).
//! * [`keyword_seeds`] — session replay's seeds (reference
//!   `replay.py::default_keyword_seed_fn`): nodes with overlap > 0, plus every
//!   in-neighbour of those at score 0.0, sorted by (score, id) descending, first 10. Zero
//!   scores never fire (traversal's fire threshold is 0.01). The two steps are
//!   [`keyword_matches`] (contents only) and [`keyword_seeds_from`] (edges now).
//! * [`learning_path`] — what replay learns on (reference `replay.py::replay_queries`
//!   step 4, `benchmarks/run_benchmark.py::_extract_fired_path`): `[first step's
//!   source] + [every step's target]`, or `fired` when there are no steps.
//!
//! Sorting by (score, id) descending is a total order (ids are unique), so results do
//! not depend on the order nodes were scored in.

use rustc_hash::FxHashMap;

use crate::graph::{Graph, NodeId};
use crate::learn::Episode;
use crate::profile::Profile;
use crate::traverse::TraversalResult;

/// Number of seeds [`keyword_seeds`] returns (fixed in the reference).
pub const REPLAY_SEEDS: usize = 10;

/// The maximal `[A-Za-z0-9']+` runs of `text`, in order, not lower-cased (repeats
/// included).
fn runs(text: &str) -> impl Iterator<Item = &str> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .filter(|r| !r.is_empty())
}

/// The token set of a text (see the module docs), as sorted distinct lower-case
/// strings.
///
/// Cost: O(length of `text` + t log t) for `t` tokens.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut v: Vec<String> = runs(text).map(|r| r.to_ascii_lowercase()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A query's token set, ready to score many texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryTokens {
    index: FxHashMap<String, usize>,
}

impl QueryTokens {
    /// Tokenizes `query`.
    pub fn new(query: &str) -> Self {
        let index = tokenize(query)
            .into_iter()
            .enumerate()
            .map(|(i, t)| (t, i))
            .collect();
        QueryTokens { index }
    }

    /// Number of distinct query tokens `|Q|`.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the query has no token (then nothing is seeded).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// `|Q ∩ T(text)|`: how many distinct query tokens occur in `text`.
    ///
    /// Cost: O(length of `text`), no allocation beyond one small buffer.
    pub fn overlap(&self, text: &str) -> usize {
        if self.index.is_empty() {
            return 0;
        }
        let mut seen = vec![false; self.index.len()];
        let mut count = 0;
        let mut buf = String::new();
        for r in runs(text) {
            buf.clear();
            buf.push_str(r);
            buf.make_ascii_lowercase();
            if let Some(&i) = self.index.get(buf.as_str()) {
                if !seen[i] {
                    seen[i] = true;
                    count += 1;
                    if count == seen.len() {
                        break;
                    }
                }
            }
        }
        count
    }

    /// `|Q ∩ T(text)| / |Q|` (0.0 for an empty query), Python's true division.
    pub fn score(&self, text: &str) -> f64 {
        if self.index.is_empty() {
            return 0.0;
        }
        self.overlap(text) as f64 / self.index.len() as f64
    }
}

/// Sorts by (score, id) descending and keeps `top_k`.
fn rank(graph: &Graph, mut scored: Vec<(NodeId, f64)>, top_k: usize) -> Vec<(NodeId, f64)> {
    scored.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| graph.name(b.0).cmp(graph.name(a.0)))
    });
    scored.truncate(top_k);
    scored
}

/// Every node scored by keyword overlap, zeros included, sorted by (score, id)
/// descending, first `top_k`; empty if the query has no token (see the module docs).
///
/// Cost: O(total content length + n log n).
pub fn keyword_ranking(graph: &Graph, query: &str, top_k: usize) -> Vec<(NodeId, f64)> {
    let q = QueryTokens::new(query);
    if q.is_empty() {
        return Vec::new();
    }
    let scored = graph
        .nodes()
        .map(|(ix, n)| (ix, q.score(&n.content)))
        .collect();
    rank(graph, scored, top_k)
}

/// Session replay's keyword seeds (see the module docs): nodes with overlap > 0 and
/// their in-neighbours at 0.0, best [`REPLAY_SEEDS`] by (score, id) descending.
///
/// Cost: O(total content length + in-degree of the matched nodes + n log n).
pub fn keyword_seeds(graph: &Graph, query: &str) -> Vec<(NodeId, f64)> {
    keyword_seeds_from(graph, &keyword_matches(graph, query))
}

/// The first step of [`keyword_seeds`]: every node whose content shares a token with
/// the query, with its overlap score, in node order. It depends on node contents only,
/// so a caller that asks the same query of a graph whose edges change (learning) can
/// compute it once and pass it to [`keyword_seeds_from`].
///
/// Cost: O(total content length).
pub fn keyword_matches(graph: &Graph, query: &str) -> Vec<(NodeId, f64)> {
    let q = QueryTokens::new(query);
    if q.is_empty() {
        return Vec::new();
    }
    graph
        .nodes()
        .filter_map(|(ix, n)| {
            let o = q.overlap(&n.content);
            (o > 0).then(|| (ix, o as f64 / q.len() as f64))
        })
        .collect()
}

/// The second step of [`keyword_seeds`]: the matches of [`keyword_matches`] plus the
/// in-neighbours of the matched nodes at 0.0 (looked up in `graph` now), best
/// [`REPLAY_SEEDS`] by (score, id) descending.
///
/// Cost: O(in-degree of the matched nodes + m log m).
pub fn keyword_seeds_from(graph: &Graph, matches: &[(NodeId, f64)]) -> Vec<(NodeId, f64)> {
    if matches.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(NodeId, f64)> = matches.to_vec();
    let mut has: FxHashMap<NodeId, ()> = scored.iter().map(|s| (s.0, ())).collect();
    for &(t, _) in matches {
        for (src, _) in graph.incoming(t) {
            if has.insert(src, ()).is_none() {
                scored.push((src, 0.0));
            }
        }
    }
    rank(graph, scored, REPLAY_SEEDS)
}

/// The path a replayed query is learned on (see the module docs): `[steps[0].from] +
/// [s.to for s in steps]` (revisits and repeats included, consecutive entries need not
/// be joined by an edge), or `fired` when no step was taken.
pub fn learning_path(result: &TraversalResult) -> Vec<NodeId> {
    match result.steps.first() {
        Some(first) => std::iter::once(first.from)
            .chain(result.steps.iter().map(|s| s.to))
            .collect(),
        None => result.fired.clone(),
    }
}

/// The episode a replayed query updates the graph with, per profile:
/// [`Profile::Paper`] — [`learning_path`] as a hand-made path (its consecutive pairs
/// are updated, creating edges between entries that were not adjacent in the
/// traversal); [`Profile::Corrected`] — the traversal itself (fired list and the
/// transitions actually taken), so only traversed edges change.
pub fn replay_episode(result: &TraversalResult, profile: Profile) -> Episode {
    match profile {
        Profile::Paper => Episode::from_path(&learning_path(result)),
        Profile::Corrected => Episode::from_result(result),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, Node};

    #[test]
    fn tokenizer_matches_the_reference() {
        // CPython 3.11 on the reference's _tokenize: sorted(_tokenize(...))
        assert_eq!(
            tokenize("What's new? CrabPath's K-means; café ÉTÉ x_y 42 don't\u{212a}x İi"),
            [
                "42",
                "caf",
                "crabpath's",
                "don't",
                "i",
                "k",
                "means",
                "new",
                "t",
                "what's",
                "x",
                "y"
            ]
        );
        assert!(tokenize("").is_empty());
        assert!(tokenize("— … 😀").is_empty());
    }

    #[test]
    fn overlap_counts_distinct_tokens() {
        let q = QueryTokens::new("deploy the deploy guide");
        assert_eq!(q.len(), 3);
        assert_eq!(q.overlap("DEPLOY deploy Guide"), 2);
        assert_eq!(q.score("the guide"), 2.0 / 3.0);
        assert_eq!(QueryTokens::new("!!").score("x"), 0.0);
    }

    fn graph() -> Graph {
        let mut g = Graph::new();
        for (id, text) in [
            ("a", "deploy guide"),
            ("b", "rollback"),
            ("c", "deploy"),
            ("d", "misc"),
        ] {
            g.add_node(Node::new(id, text));
        }
        g.add_edge_by_id("b", "a", Edge::new(0.5)).unwrap();
        g.add_edge_by_id("d", "c", Edge::new(0.5)).unwrap();
        g.add_edge_by_id("ghost", "c", Edge::new(0.5)).unwrap();
        g
    }

    #[test]
    fn rankings() {
        let g = graph();
        let names = |v: Vec<(NodeId, f64)>| {
            v.into_iter()
                .map(|(n, s)| (g.name(n).to_string(), s))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(keyword_ranking(&g, "deploy guide", 3)),
            [("a".into(), 1.0), ("c".into(), 0.5), ("d".into(), 0.0)]
        );
        // in-neighbours of matched nodes join at 0.0 (the dangling `ghost` does not)
        assert_eq!(
            names(keyword_seeds(&g, "deploy guide")),
            [
                ("a".into(), 1.0),
                ("c".into(), 0.5),
                ("d".into(), 0.0),
                ("b".into(), 0.0)
            ]
        );
        assert!(keyword_seeds(&g, "nothing here").is_empty());
        assert!(keyword_ranking(&g, "...", 3).is_empty());
    }
}
