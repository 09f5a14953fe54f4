//! Graph maintenance: node authority, edge and orphan pruning, merging of tightly
//! coupled node pairs, cross-file connections, and the maintenance run that chains
//! them (paper §3 "maintenance"; reference `crabpath/maintain.py`, `merge.py`, `connect.py`).
//!
//! Every function keeps the reference's iteration orders (reference
//! `crabpath/graph.py::Graph`, built on Python's insertion-ordered dicts), because merge
//! ids, bucket positions and therefore later traversals depend on them.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha1::{Digest, Sha1};

use crate::decay::{apply_decay_with, DecayConfig};
use crate::embed::Embedder;
use crate::error::{finite, Error, Result};
use crate::graph::{Edge, EdgeKind, Graph, Metadata, Node, NodeId};
use crate::health::{measure_health, GraphHealth};
use crate::index::{cosine, VectorStore};
use crate::profile::Profile;
use crate::state::State;

// ----- authority (maintain.py) ---------------------------------------------------------

/// How strongly a node is protected from maintenance (reference
/// `crabpath/maintain.py::_node_authority`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Authority {
    /// Never decayed (as a source), pruned, orphan-removed or merged.
    Constitutional,
    /// Decays at half speed; its edges are pruned only when `|w| <= 0.1`; never
    /// orphan-removed; merged only with a judge.
    Canonical,
    /// No protection (the default).
    Overlay,
}

impl Authority {
    /// The metadata label.
    pub fn as_str(self) -> &'static str {
        match self {
            Authority::Constitutional => "constitutional",
            Authority::Canonical => "canonical",
            Authority::Overlay => "overlay",
        }
    }

    /// Parses one of the three labels (exact match).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "constitutional" => Some(Authority::Constitutional),
            "canonical" => Some(Authority::Canonical),
            "overlay" => Some(Authority::Overlay),
            _ => None,
        }
    }
}

/// The `authority` metadata of a node if it is one of the three labels, else overlay
/// (also for a symbol without a node) (reference `crabpath/maintain.py::_node_authority`).
pub fn authority(graph: &Graph, id: NodeId) -> Authority {
    graph
        .node(id)
        .and_then(|n| n.metadata.get("authority"))
        .and_then(Value::as_str)
        .and_then(Authority::parse)
        .unwrap_or(Authority::Overlay)
}

// ----- pruning (maintain.py) -----------------------------------------------------------

/// Removes edges with `|w| < below` (reference `crabpath/maintain.py::prune_edges`),
/// iterating over a snapshot in graph order. Edges touching a constitutional node are kept;
/// edges touching a canonical node are kept when `|w| > 0.1`. `below <= 0` (or NaN) removes
/// nothing. Returns the number of removed edges.
pub fn prune_edges(graph: &mut Graph, below: f64) -> usize {
    if below.is_nan() || below <= 0.0 {
        return 0;
    }
    let doomed: Vec<(NodeId, NodeId)> = graph
        .edges()
        .filter(|&(s, t, e)| {
            let (sa, ta) = (authority(graph, s), authority(graph, t));
            if sa == Authority::Constitutional || ta == Authority::Constitutional {
                return false;
            }
            let w = e.weight.abs();
            if (sa == Authority::Canonical || ta == Authority::Canonical) && w > 0.1 {
                return false;
            }
            w < below
        })
        .map(|(s, t, _)| (s, t))
        .collect();
    let mut removed = 0;
    for (s, t) in doomed {
        if graph.remove_edge(s, t).is_some() {
            removed += 1;
        }
    }
    removed
}

/// Whether a node has no outgoing edge to an existing node and no incoming edge from
/// an existing node (reference `crabpath/graph.py::Graph.outgoing`/`incoming`; a self-loop counts).
fn is_orphan(graph: &Graph, n: NodeId) -> bool {
    graph.outgoing(n).next().is_none()
        && !graph
            .sources_of(n)
            .iter()
            .any(|&s| graph.has_node(s) && graph.edge(s, n).is_some())
}

/// Removes overlay nodes (neither constitutional nor canonical) that have no incoming and
/// no outgoing edges, collected in node order first (reference
/// `crabpath/maintain.py::prune_orphan_nodes`). Returns the number of removed nodes.
pub fn prune_orphan_nodes(graph: &mut Graph) -> usize {
    prune_orphans(graph, |_| false).len()
}

/// [`prune_orphan_nodes`], returning the ids of the removed nodes in removal order,
/// keeping every node for which `keep` is true however few its edges: the corrected
/// profile keeps every node that holds something a user gave the brain (see
/// `crabpath-brain`'s maintenance), because an orphaned chunk is still text of a file
/// that exists (a single-chunk file's only node is an orphan from `init` on, and
/// `sync`, which re-splits only changed files, would never put it back), an orphaned
/// conversation turn is still what was said (the first turn of a new session has no
/// chain edge yet), and an orphaned teaching is still what the user taught.
///
/// Cost: O(N + E) where N is the number of nodes and E the number of edges.
pub fn prune_orphans(graph: &mut Graph, keep: impl Fn(&Node) -> bool) -> Vec<String> {
    let orphans: Vec<NodeId> = graph
        .node_ids()
        .filter(|&n| authority(graph, n) == Authority::Overlay && is_orphan(graph, n))
        .filter(|&n| graph.node(n).is_none_or(|node| !keep(node)))
        .collect();
    orphans
        .into_iter()
        .filter_map(|n| graph.remove_node(n).map(|node| node.id))
        .collect()
}

// ----- merging (merge.py) --------------------------------------------------------------

/// Default content limit of merge candidates (`max_content_chars`, reference
/// `crabpath/merge.py::_candidate_pairs`).
pub const MAX_MERGE_CONTENT_CHARS: usize = 1200;

/// Minimum weight, in both directions, of a merge candidate pair (reference
/// `crabpath/merge.py::suggest_merges`).
pub const MERGE_MIN_WEIGHT: f64 = 0.8;

/// Merge candidates (reference `crabpath/merge.py::_candidate_pairs`): for each node in
/// node order whose content has at most `max_content_chars` code points, for each edge of
/// its bucket in bucket order whose target node exists, is also short enough and has an id
/// lexicographically greater than the source's, emit (source, target) if the reverse edge
/// exists and `min(w, w_reverse) >= 0.8`.
pub fn candidate_pairs(graph: &Graph, max_content_chars: usize) -> Vec<(NodeId, NodeId)> {
    let mut short = vec![false; graph.symbol_count()];
    for (ix, node) in graph.nodes() {
        short[ix.index()] = node.content.chars().nth(max_content_chars).is_none();
    }
    let is_short = |n: NodeId| short.get(n.index()).copied().unwrap_or(false);
    let mut out = Vec::new();
    for s in graph.node_ids() {
        if !is_short(s) {
            continue;
        }
        let Some(bucket) = graph.bucket(s) else {
            continue;
        };
        for (&t, e) in bucket {
            if !graph.has_node(t) || !is_short(t) || graph.name(t) <= graph.name(s) {
                continue;
            }
            let Some(rev) = graph.weight(t, s) else {
                continue;
            };
            // Python `min(w, w_rev)`: the first argument unless the second is smaller.
            let m = if rev < e.weight { rev } else { e.weight };
            if m >= MERGE_MIN_WEIGHT {
                out.push((s, t));
            }
        }
    }
    out
}

/// A merge judge: the reference's LLM callback, answering "should these two nodes be
/// merged?" for each candidate pair (reference `crabpath/merge.py::suggest_merges`).
pub type MergeJudge<'a> = &'a mut dyn FnMut(&Node, &Node) -> bool;

/// Merge suggestions (reference `crabpath/merge.py::suggest_merges`): the
/// [`candidate_pairs`] (limit 1200 code points); with a judge, only the pairs it confirms,
/// in candidate order.
pub fn suggest_merges(graph: &Graph, judge: Option<MergeJudge<'_>>) -> Vec<(NodeId, NodeId)> {
    let pairs = candidate_pairs(graph, MAX_MERGE_CONTENT_CHARS);
    let Some(judge) = judge else {
        return pairs;
    };
    pairs
        .into_iter()
        .filter(|&(a, b)| match (graph.node(a), graph.node(b)) {
            (Some(na), Some(nb)) => judge(na, nb),
            _ => false,
        })
        .collect()
}

/// The id of the node merging `a` and `b` (reference
/// `crabpath/merge.py::_unique_merge_id`): `"merged:"` + the first 12 hex digits of
/// `sha1("a|b")`, with `:1`, `:2`, ... appended while a node of that id exists.
pub fn merged_id(graph: &Graph, a: &str, b: &str) -> String {
    let digest = Sha1::digest(format!("{a}|{b}").as_bytes());
    let hex = hex::encode(digest);
    let base = format!("merged:{}", &hex[..12]);
    if graph.get_node(&base).is_none() {
        return base;
    }
    let mut i = 1u64;
    loop {
        let candidate = format!("{base}:{i}");
        if graph.get_node(&candidate).is_none() {
            return candidate;
        }
        i += 1;
    }
}

/// First line of a text: everything before the first `'\n'` (summary rule of merged
/// and injected nodes: reference `crabpath/merge.py::apply_merge`, `crabpath/inject.py`).
pub fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or("")
}

/// What [`apply_merge`] puts between the texts it joins (reference `merge.py`): a blank
/// line.
pub const MERGE_JOIN: &str = "\n\n";

/// The metadata key of a merged node's parts (corrected profile; the reference records
/// only `merged_from`, the two ids of the last merge): the id of every node the merges
/// that made it joined, a merged part given by its own parts, in the order of their texts
/// in its content. Written by the brain's merge (`crabpath-brain`,
/// `service::command::merge::merge_pair`); read by `forget` and `sync`.
pub const MERGED_PARTS_KEY: &str = "merged_parts";

/// Merges nodes `a` and `b` into one new node (reference `crabpath/merge.py::apply_merge`)
/// and returns its id.
///
/// * Both missing → `a`; one missing → the other; the graph is unchanged.
/// * Id per [`merged_id`]; content `a + "\n\n" + b`; summary = its first line;
///   metadata `{merged_from: [a, b], source: "llm-merge"}` (`file` is lost).
/// * Rewire from a snapshot of all edges in graph order: a and b map to the merged id;
///   edges that become self-loops (a↔b, and self-loops on a or b) are dropped; other
///   self-loops are skipped (and stay untouched); duplicates collapse to the strictly
///   larger weight at the first-seen position. Then a and b are removed, the merged
///   node appended, and every rewired edge re-added with [`Graph::add_edge`] in rewired
///   order — untouched edges stay in place, edges to the merged node are appended to
///   their source's bucket, the merged node's bucket and buckets that only pointed to
///   a/b are (re-)created at the end.
///
/// Errors (graph unchanged) if an edge to re-add has a non-finite weight.
pub fn apply_merge(graph: &mut Graph, a: NodeId, b: NodeId) -> Result<NodeId> {
    match (graph.has_node(a), graph.has_node(b)) {
        (false, false) => return Ok(a),
        (true, false) => return Ok(a),
        (false, true) => return Ok(b),
        (true, true) => {}
    }
    let (Some(na), Some(nb)) = (graph.node(a), graph.node(b)) else {
        return Ok(a);
    };
    let (a_name, b_name) = (na.id.clone(), nb.id.clone());
    let content = format!("{}{MERGE_JOIN}{}", na.content, nb.content);
    let id = merged_id(graph, &a_name, &b_name);
    let mut metadata = Metadata::new();
    metadata.insert("merged_from".into(), json!([a_name, b_name]));
    metadata.insert("source".into(), json!("llm-merge"));
    let merged = Node {
        id: id.clone(),
        summary: first_line(&content).to_string(),
        content,
        metadata,
    };
    let m = graph.intern(&id);
    let map = |x: NodeId| if x == a || x == b { m } else { x };

    let mut rewired: IndexMap<(NodeId, NodeId), Edge, FxBuildHasher> = IndexMap::default();
    for (s, t, e) in graph.edges() {
        if s == t {
            // Self-loops on a/b would stay self-loops on the merged node: dropped.
            // Other self-loops are not re-added; they stay in the graph untouched.
            continue;
        }
        let key = (map(s), map(t));
        if key.0 == key.1 {
            continue;
        }
        match rewired.get_mut(&key) {
            Some(kept) => {
                if e.weight > kept.weight {
                    *kept = e.clone();
                }
            }
            None => {
                rewired.insert(key, e.clone());
            }
        }
    }
    for (&(s, t), e) in &rewired {
        finite(
            || format!("edge weight {}->{}", graph.name(s), graph.name(t)),
            e.weight,
        )?;
    }

    graph.remove_node(a);
    graph.remove_node(b);
    graph.add_node(merged);
    for ((s, t), e) in rewired {
        graph.add_edge(s, t, e)?;
    }
    Ok(m)
}

// ----- connections (maintain.py, connect.py) -------------------------------------------

/// Default number of connection suggestions kept (`max_candidates`, reference
/// `crabpath/connect.py::suggest_connections`/`apply_connections`).
pub const MAX_CONNECTION_CANDIDATES: usize = 20;

/// One proposed cross-file edge (reference
/// `crabpath/connect.py::suggest_connections`/`apply_connections`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionSuggestion {
    /// Source node.
    pub source: NodeId,
    /// Target node.
    pub target: NodeId,
    /// Proposed weight (clamped to [-1, 1] by `add_edge`).
    pub weight: f64,
    /// Free-text reason stored in the edge's metadata.
    pub reason: String,
}

/// A connection judge: the reference's LLM callback. Given two nodes and their token
/// overlap it returns `None` to reject the pair, or `Some(weight)` to confirm it
/// (returning the overlap keeps the default weight). The weight is clamped to [0, 1]
/// (a NaN answer counts as the overlap).
pub type ConnectJudge<'a> = &'a mut dyn FnMut(&Node, &Node, f64) -> Option<f64>;

/// The token set of a text ([`crate::keyword::tokenize`]: maximal runs of
/// `[A-Za-z0-9']`, each lower-cased), as reference `crabpath/_util.py::_tokenize`
/// computes it for `crabpath/connect.py::suggest_connections` (it lower-cases each run,
/// so `K` (Kelvin sign) and `İ` separate tokens).
pub fn token_set(text: &str) -> BTreeSet<String> {
    crate::keyword::tokenize(text).into_iter().collect()
}

/// Jaccard overlap `|A ∩ B| / |A ∪ B|` (0.0 for two empty sets).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// The `file` metadata of a node if present and not null.
fn file_of(node: &Node) -> Option<&Value> {
    node.metadata.get("file").filter(|v| !v.is_null())
}

/// Whether two nodes carry different, present `file` metadata.
fn different_files(a: &Node, b: &Node) -> bool {
    matches!((file_of(a), file_of(b)), (Some(fa), Some(fb)) if fa != fb)
}

/// Overlap thresholds [`best_overlaps`] tries in turn before it scores every pair.
const OVERLAP_THRESHOLDS: [f64; 4] = [0.5, 0.25, 0.125, 0.0625];

/// The number of values two ascending lists share. Cost: O(|a| + |b|).
fn merged_count(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The `max_candidates` best cross-file pairs of `nodes` (indices in `nodes`, earlier
/// first, as (source, target, overlap)), in [`suggest_connections`]'s order: exactly
/// the first `max_candidates` of scoring every pair, as the reference does.
///
/// It first collects the pairs whose overlap reaches a threshold ([`pairs_at_least`],
/// 0.5, then 0.25, 0.125, 0.0625): once there are `max_candidates` of them, every pair
/// left out scores below every pair found, so the first `max_candidates` are the same.
/// Only when fewer reach 0.0625 does it score every pair that shares a token.
///
/// Cost: O(N · w + C · w) per threshold tried, where N is the number of nodes, w the
/// tokens of a node and C the pairs that share a token of their prefixes (few when the
/// best overlaps are high, as between pages that repeat each other); then, if it falls
/// back, O(Σ df²) integer increments ([`pairs_at_least`] with `t = 0`). The reference
/// scores every pair, O(N² · w) string comparisons: 68 s for 5,500 nodes of 40 words in
/// a debug build.
fn best_overlaps(
    graph: &Graph,
    nodes: &[(NodeId, &Node, BTreeSet<String>)],
    max_candidates: usize,
) -> Vec<(NodeId, NodeId, f64)> {
    let (sets, vocabulary) = ranked_sets(nodes);
    let mut scored = OVERLAP_THRESHOLDS
        .iter()
        .map(|&t| pairs_at_least(nodes, &sets, vocabulary, t))
        .find(|found| found.len() >= max_candidates)
        .unwrap_or_else(|| pairs_at_least(nodes, &sets, vocabulary, 0.0));
    keep_best(graph, &mut scored, max_candidates);
    scored
}

/// Sorts scored pairs as the reference does — overlap, then source id, then target id,
/// all descending — and keeps the first `max_candidates`. Cost: O(P log P) for P pairs.
fn keep_best(graph: &Graph, scored: &mut Vec<(NodeId, NodeId, f64)>, max_candidates: usize) {
    scored.sort_by(|x, y| {
        y.2.total_cmp(&x.2)
            .then_with(|| graph.name(y.0).cmp(graph.name(x.0)))
            .then_with(|| graph.name(y.1).cmp(graph.name(x.1)))
    });
    scored.truncate(max_candidates);
}

/// The nodes [`suggest_connections`] considers — those with `file` metadata, in node
/// order — with their token sets ([`token_set`]). Cost: O(N · c) for c characters a node.
fn connect_nodes(graph: &Graph) -> Vec<(NodeId, &Node, BTreeSet<String>)> {
    graph
        .nodes()
        .filter(|(_, n)| file_of(n).is_some())
        .map(|(ix, n)| (ix, n, token_set(&n.content)))
        .collect()
}

/// Every node's tokens as ascending ranks in one global order (document frequency,
/// then the token: rarest first), and the number of distinct tokens. Intersections of
/// two nodes' sets are then merges of integers. Cost: O(N · w log w) for w tokens a node.
fn ranked_sets(nodes: &[(NodeId, &Node, BTreeSet<String>)]) -> (Vec<Vec<u32>>, usize) {
    let mut df: FxHashMap<&str, u32> = FxHashMap::default();
    for (_, _, set) in nodes {
        for tok in set {
            *df.entry(tok.as_str()).or_insert(0) += 1;
        }
    }
    let mut order: Vec<(&str, u32)> = df.into_iter().collect();
    order.sort_unstable_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    let rank: FxHashMap<&str, u32> = order
        .iter()
        .enumerate()
        .map(|(r, (tok, _))| (*tok, r as u32))
        .collect();
    let sets = nodes
        .iter()
        .map(|(_, _, set)| {
            let mut ranks: Vec<u32> = set.iter().map(|tok| rank[tok.as_str()]).collect();
            ranks.sort_unstable();
            ranks
        })
        .collect();
    (sets, order.len())
}

/// Every cross-file pair of `nodes` (i < j in node order) whose Jaccard overlap is
/// positive and at least `t`; `sets` are the nodes' [`ranked_sets`] (`vocabulary`
/// distinct tokens).
///
/// Candidates come from an inverted index over each node's ranked tokens (rarest
/// first). For `t > 0` only a prefix of each token set is
/// indexed (prefix filtering): two sets of overlap ≥ t share at least `t · |x|` tokens,
/// so the first `|x| − ⌈t · |x|⌉ + 1` tokens of `x` and the first `|y| − ⌈t · |y|⌉ + 1`
/// of `y` meet, and each candidate's intersection is counted exactly by merging the two
/// rank lists. For `t = 0` the whole sets are indexed and the shared-token counts are
/// the intersections. Either way the overlap is `|A ∩ B| / (|A| + |B| − |A ∩ B|)` from
/// the same integers, so the same `f64`, as [`jaccard`].
///
/// Cost: O(N · w) to index the prefixes, plus, for `t > 0`, O(w) integer comparisons
/// per candidate pair; for `t = 0`, O(Σ df²) integer increments over the tokens' document frequencies df
/// (at most O(N²) when a token is in every node, against the reference's O(N² · w)
/// string comparisons).
fn pairs_at_least(
    nodes: &[(NodeId, &Node, BTreeSet<String>)],
    sets: &[Vec<u32>],
    vocabulary: usize,
    t: f64,
) -> Vec<(NodeId, NodeId, f64)> {
    let full = t <= 0.0;
    let mut found = Vec::new();
    // postings of the (prefixes of the) nodes before the current one
    let mut postings: Vec<Vec<u32>> = vec![Vec::new(); vocabulary];
    // shared indexed tokens with the current node, per earlier node
    let mut hits: Vec<u32> = vec![0; nodes.len()];
    let mut touched: Vec<usize> = Vec::new();
    for (i, (si, ni, _)) in nodes.iter().enumerate() {
        let ranks = &sets[i];
        let prefix = if full || ranks.is_empty() {
            ranks.len()
        } else {
            // ⌈t·|x|⌉, a hair low so that rounding never shortens the prefix
            let need = ((t * ranks.len() as f64) - 1e-9).ceil().max(1.0) as usize;
            ranks.len().saturating_sub(need) + 1
        };
        for &r in &ranks[..prefix] {
            for &j in &postings[r as usize] {
                let j = j as usize;
                if hits[j] == 0 {
                    touched.push(j);
                }
                hits[j] += 1;
            }
        }
        for &j in &touched {
            let (sj, nj, _) = &nodes[j];
            if different_files(nj, ni) {
                let inter = if full {
                    hits[j] as usize
                } else {
                    merged_count(&sets[j], ranks)
                };
                // `jaccard`'s integers, so its `f64`
                let overlap = inter as f64 / (sets[j].len() + ranks.len() - inter) as f64;
                if overlap > 0.0 && overlap >= t {
                    found.push((*sj, *si, overlap));
                }
            }
            hits[j] = 0;
        }
        touched.clear();
        for &r in &ranks[..prefix] {
            postings[r as usize].push(i as u32);
        }
    }
    found
}

/// Cross-file connection suggestions (reference
/// `crabpath/connect.py::suggest_connections`/`apply_connections`): node pairs (i < j in
/// node order) whose `file` metadata is present and different, scored by the Jaccard
/// overlap of their token sets ([`token_set`]); pairs with overlap > 0 are sorted by
/// (overlap, source id, target id) descending and the first `max_candidates` kept. Without
/// a judge the weight is the overlap; with one, only confirmed pairs are kept, with the
/// judge's weight. The judge is asked about the kept candidates only.
///
/// The `reason` is the reference's `"word overlap score: <overlap, 4 decimals>"`.
pub fn suggest_connections(
    graph: &Graph,
    judge: Option<ConnectJudge<'_>>,
    max_candidates: usize,
) -> Vec<ConnectionSuggestion> {
    let nodes = connect_nodes(graph);
    let scored = best_overlaps(graph, &nodes, max_candidates);
    let mut judge = judge;
    scored
        .into_iter()
        .filter_map(|(s, t, overlap)| {
            let weight = match judge.as_mut() {
                None => overlap,
                Some(j) => {
                    let (ns, nt) = (graph.node(s)?, graph.node(t)?);
                    let w = j(ns, nt, overlap)?;
                    if w.is_nan() {
                        overlap
                    } else {
                        w.clamp(0.0, 1.0)
                    }
                }
            };
            Some(ConnectionSuggestion {
                source: s,
                target: t,
                weight,
                reason: format!("word overlap score: {overlap:.4}"),
            })
        })
        .collect()
}

/// Applies connection suggestions with the reference's rule (reference
/// `crabpath/connect.py::suggest_connections`/`apply_connections`); see
/// [`apply_connections_with`].
pub fn apply_connections(graph: &mut Graph, suggestions: &[ConnectionSuggestion]) -> Result<usize> {
    apply_connections_with(graph, suggestions, true)
}

/// Adds each suggestion as an edge of kind `cross_file` with metadata `{reason, kind:
/// "cross_file", source: "connect"}`, skipping self pairs, repeated (source, target) pairs
/// and pairs with a missing node (reference
/// `crabpath/connect.py::suggest_connections`/`apply_connections`). With
/// `require_file_metadata` (the reference) pairs whose nodes do not both carry different
/// `file` metadata are skipped too — which silently drops every pair made by
/// [`connect_learning_nodes`] for nodes without `file` (REPRODUCE.md discrepancy C11).
/// Returns the number of edges that did not exist before.
pub fn apply_connections_with(
    graph: &mut Graph,
    suggestions: &[ConnectionSuggestion],
    require_file_metadata: bool,
) -> Result<usize> {
    let mut seen: FxHashSet<(NodeId, NodeId)> = FxHashSet::default();
    let mut created = 0;
    for sg in suggestions {
        let (s, t) = (sg.source, sg.target);
        if s == t || !seen.insert((s, t)) {
            continue;
        }
        let (Some(ns), Some(nt)) = (graph.node(s), graph.node(t)) else {
            continue;
        };
        if require_file_metadata && !different_files(ns, nt) {
            continue;
        }
        let existed = graph.edge(s, t).is_some();
        let mut metadata = Metadata::new();
        metadata.insert("reason".into(), json!(sg.reason));
        metadata.insert("kind".into(), json!("cross_file"));
        metadata.insert("source".into(), json!("connect"));
        graph.add_edge(
            s,
            t,
            Edge::new(sg.weight)
                .with_kind(EdgeKind::CrossFile)
                .with_metadata(metadata),
        )?;
        if !existed {
            created += 1;
        }
    }
    Ok(created)
}

/// Prefix of the ids of learning nodes (reference `crabpath/maintain.py::run_maintenance`,
/// `connect_learning_nodes`).
pub const LEARNING_PREFIX: &str = "learning::";

/// Options of [`connect_learning_nodes`] (reference
/// `crabpath/maintain.py::connect_learning_nodes`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConnectOptions {
    /// Neighbours considered per learning node (3).
    pub top_k: usize,
    /// Minimum cosine similarity (0.3).
    pub min_sim: f64,
    /// `true` = reference: pairs without different `file` metadata are dropped by
    /// [`apply_connections_with`] (REPRODUCE.md discrepancy C11); `false` = corrected.
    pub require_file_metadata: bool,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            top_k: 3,
            min_sim: 0.3,
            require_file_metadata: true,
        }
    }
}

impl ConnectOptions {
    /// Defaults with the switch of a profile: the paper profile requires `file`
    /// metadata like the reference, the corrected one does not (profile table item 9).
    pub fn for_profile(profile: Profile) -> Self {
        ConnectOptions {
            require_file_metadata: !profile.fixes_bugs(),
            ..ConnectOptions::default()
        }
    }
}

/// The vector of a node: its index vector, else the embedding of its content.
fn vector_of(
    index: &dyn VectorStore,
    embed: Option<&dyn Embedder>,
    node: &Node,
) -> Result<Option<Vec<f64>>> {
    if let Some(v) = index.get(&node.id) {
        return Ok(Some(v));
    }
    match embed {
        Some(e) => Ok(Some(e.embed(&node.content)?)),
        None => Ok(None),
    }
}

/// Connects `learning::` nodes to the rest of the graph (reference
/// `crabpath/maintain.py::connect_learning_nodes`). For each learning node (node order):
/// cosine against every non-learning node's vector (index vector, else `embed(content)`; a
/// node with neither is an error), stable sort descending, first `top_k`, keep `sim >=
/// min_sim`, weight `min(0.7, max(0.35, sim))` in both directions (learning→other, then
/// other→learning); applied with [`apply_connections_with`]. Returns the number of newly
/// created edges — 0 for learning nodes without `file` metadata when
/// `require_file_metadata` is set (the reference's bug).
///
/// The neighbours are found with the store's own search ([`VectorStore::search`]) and
/// re-scored with [`cosine`], widening the search until the kept neighbours provably
/// beat every vector it left out ([`VectorStore::search_tolerance`]); the result is
/// that of scoring every pair (with `min_sim <= 0`, or NaN, every pair is scored).
///
/// Cost: O(N + L · (S + k · d)) where N is the number of nodes, L the number of
/// learning nodes, S the cost of one search of `index` (with a brain's posting lists:
/// the lists of the query's non-zero components), k the neighbours re-scored
/// (`top_k` plus a few, more only when the search's scores tie at the border) and d
/// the dimension; no vector is read without a learning node. Scoring every pair was
/// O(N · d + L · N · (d + log N)), and held every vector in memory as `f64`.
pub fn connect_learning_nodes(
    graph: &mut Graph,
    index: &dyn VectorStore,
    options: &ConnectOptions,
    embed: Option<&dyn Embedder>,
) -> Result<usize> {
    let learning: Vec<NodeId> = graph
        .nodes()
        .filter(|(_, n)| n.id.starts_with(LEARNING_PREFIX))
        .map(|(ix, _)| ix)
        .collect();
    if learning.is_empty() {
        return Ok(0);
    }
    // every non-learning node in node order, with its vector if the index lacks one
    let mut others = Others::default();
    for (ix, n) in graph.nodes() {
        if n.id.starts_with(LEARNING_PREFIX) {
            continue;
        }
        let own = if index.contains(&n.id) {
            None
        } else {
            let v = vector_of(index, embed, n)?
                .ok_or_else(|| Error::MissingVector(format!("node `{}`", n.id)))?;
            others.unindexed.push(others.nodes.len());
            Some(v)
        };
        others.position.insert(ix, others.nodes.len());
        others.nodes.push((ix, own));
    }
    let mut suggestions = Vec::new();
    for l in learning {
        let Some(node) = graph.node(l) else {
            continue;
        };
        let v = vector_of(index, embed, node)?
            .ok_or_else(|| Error::MissingVector(format!("node `{}`", node.id)))?;
        let best = nearest_others(graph, index, &others, &v, options);
        for (o, sim) in best {
            let weight = sim.clamp(0.35, 0.7);
            let reason = format!("learning node similarity {sim}");
            suggestions.push(ConnectionSuggestion {
                source: l,
                target: o,
                weight,
                reason: reason.clone(),
            });
            suggestions.push(ConnectionSuggestion {
                source: o,
                target: l,
                weight,
                reason,
            });
        }
    }
    apply_connections_with(graph, &suggestions, options.require_file_metadata)
}

/// The candidates of [`connect_learning_nodes`]: the non-learning nodes.
#[derive(Default)]
struct Others {
    /// In node order, each with its own vector when the index has none.
    nodes: Vec<(NodeId, Option<Vec<f64>>)>,
    /// Position of each in `nodes`.
    position: FxHashMap<NodeId, usize>,
    /// Positions of those with their own vector.
    unindexed: Vec<usize>,
}

/// The neighbours of [`connect_learning_nodes`] for the vector `v`: of the `others`,
/// the first `top_k` by [`cosine`] descending (ties in node order) whose similarity is
/// at least `min_sim`.
fn nearest_others(
    graph: &Graph,
    index: &dyn VectorStore,
    others: &Others,
    v: &[f64],
    options: &ConnectOptions,
) -> Vec<(NodeId, f64)> {
    let (top_k, min_sim) = (options.top_k, options.min_sim);
    // the similarity of the other at position `p`
    let score = |p: usize| -> (NodeId, f64) {
        let (o, own) = &others.nodes[p];
        let sim = match own {
            Some(ov) => cosine(v, ov),
            None => index.get(graph.name(*o)).map_or(0.0, |ov| cosine(v, &ov)),
        };
        (*o, sim)
    };
    // positions → the kept neighbours, ranked as scoring every pair ranks them
    let rank = |mut positions: Vec<usize>| -> Vec<(NodeId, f64)> {
        positions.sort_unstable();
        positions.dedup();
        let mut scored: Vec<(NodeId, f64)> = positions.into_iter().map(score).collect();
        scored.sort_by(|x, y| y.1.partial_cmp(&x.1).unwrap_or(Ordering::Equal));
        scored.truncate(top_k);
        scored.retain(|(_, sim)| sim.partial_cmp(&min_sim).is_some_and(Ordering::is_ge));
        scored
    };
    let indexed = others.nodes.len() - others.unindexed.len();
    let mut ask = top_k.saturating_add(8);
    // with a positive `min_sim` only the best-ranked vectors can count: the search's
    while top_k > 0 && min_sim > 0.0 && ask < indexed {
        let hits = index.search(v, ask);
        let exhausted = hits.len() < ask;
        // every vector the search left out scores at most this
        let bound = hits
            .last()
            .map_or(f64::NEG_INFINITY, |(_, s)| s + index.search_tolerance());
        let mut positions: Vec<usize> = hits
            .iter()
            .filter_map(|(id, _)| graph.lookup(id))
            .filter_map(|o| others.position.get(&o).copied())
            .collect();
        positions.extend_from_slice(&others.unindexed);
        let kept = rank(positions);
        let settled = exhausted
            || bound < min_sim
            || (kept.len() == top_k && kept.last().is_some_and(|(_, s)| *s > bound));
        if settled {
            return kept;
        }
        ask = ask.saturating_mul(4);
    }
    rank((0..others.nodes.len()).collect())
}

// ----- the maintenance run (run_maintenance) -------------------------------------------

/// One maintenance task (reference `crabpath/maintain.py::run_maintenance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaintenanceTask {
    /// Measure and journal health.
    Health,
    /// Decay edges (constitutional sources skipped, canonical at half speed).
    Decay,
    /// Prune weak edges, then orphan nodes.
    Prune,
    /// Merge tightly coupled pairs.
    Merge,
    /// Connect `learning::` nodes.
    Connect,
}

impl MaintenanceTask {
    /// The task name.
    pub fn as_str(self) -> &'static str {
        match self {
            MaintenanceTask::Health => "health",
            MaintenanceTask::Decay => "decay",
            MaintenanceTask::Prune => "prune",
            MaintenanceTask::Merge => "merge",
            MaintenanceTask::Connect => "connect",
        }
    }

    /// Parses a task name (exact match).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "health" => Some(MaintenanceTask::Health),
            "decay" => Some(MaintenanceTask::Decay),
            "prune" => Some(MaintenanceTask::Prune),
            "merge" => Some(MaintenanceTask::Merge),
            "connect" => Some(MaintenanceTask::Connect),
            _ => None,
        }
    }

    /// Whether the task can change the state (and so triggers a save).
    pub fn mutates(self) -> bool {
        self != MaintenanceTask::Health
    }
}

/// Order in which requested tasks run (reference `crabpath/maintain.py::run_maintenance`,
/// discrepancy C8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaintenanceOrder {
    /// The code: health, decay, prune, merge, connect.
    #[default]
    Reference,
    /// The paper: health, decay, merge, prune, connect (no `compact` task exists).
    Paper,
}

impl MaintenanceOrder {
    /// The fixed execution sequence.
    pub fn sequence(self) -> [MaintenanceTask; 5] {
        use MaintenanceTask::*;
        match self {
            MaintenanceOrder::Reference => [Health, Decay, Prune, Merge, Connect],
            MaintenanceOrder::Paper => [Health, Decay, Merge, Prune, Connect],
        }
    }
}

/// Default task request: health, decay, merge, prune (reference
/// `crabpath/maintain.py::run_maintenance`).
pub const DEFAULT_TASKS: [&str; 4] = ["health", "decay", "merge", "prune"];

/// Options of [`run_maintenance`] (reference `crabpath/maintain.py::run_maintenance`
/// arguments plus switches).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MaintenanceOptions {
    /// Requested task names; `None` = [`DEFAULT_TASKS`]. Unknown names are noted and
    /// skipped; the request is filtered into [`MaintenanceOptions::order`].
    pub tasks: Option<Vec<String>>,
    /// Do not save (the caller's concern: [`run_maintenance`] always changes the state
    /// it is given).
    pub dry_run: bool,
    /// Merges applied at most (5).
    pub max_merges: usize,
    /// Edge prune threshold (0.01).
    pub prune_below: f64,
    /// Decay parameters (defaults: half-life 80, min weight 0.01).
    pub decay: DecayConfig,
    /// Reference (decay → prune → merge) or paper (decay → merge → prune) order.
    pub order: MaintenanceOrder,
    /// Options of the connect task.
    pub connect: ConnectOptions,
}

impl Default for MaintenanceOptions {
    fn default() -> Self {
        MaintenanceOptions {
            tasks: None,
            dry_run: false,
            max_merges: 5,
            prune_below: 0.01,
            decay: DecayConfig::default(),
            order: MaintenanceOrder::Reference,
            connect: ConnectOptions::default(),
        }
    }
}

/// Receives a maintenance run's journal events ([`MaintenanceHooks::journal`]).
pub type JournalHook<'a> = &'a mut dyn FnMut(&Value) -> Result<()>;

/// Callbacks of a maintenance run (the reference's `llm_fn` and `embed_fn`).
#[derive(Default)]
pub struct MaintenanceHooks<'a> {
    /// Merge judge; without one, pairs involving canonical nodes are not merged.
    pub judge: Option<MergeJudge<'a>>,
    /// Embedder for nodes without an index vector (connect task).
    pub embedder: Option<&'a dyn Embedder>,
    /// Receives the run's journal events (the reference's JSONL lines: one `health`
    /// event per health task, one `maintenance` event at the end); without it nothing
    /// is journaled (the reference writes to `~/.crabpath/journal.jsonl` then). Writing
    /// them anywhere is the caller's.
    pub journal: Option<JournalHook<'a>>,
}

/// What a maintenance run did (reference `crabpath/maintain.py::run_maintenance`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaintenanceReport {
    /// Health at the start.
    pub health_before: GraphHealth,
    /// Health at the end.
    pub health_after: GraphHealth,
    /// Tasks executed, in execution order.
    pub tasks_run: Vec<MaintenanceTask>,
    /// Whether decay ran.
    pub decay_applied: bool,
    /// Edges whose weight decay changed.
    pub decayed_edges: usize,
    /// Edge count at the start.
    pub edges_before: usize,
    /// Edge count at the end.
    pub edges_after: usize,
    /// Node count at the start.
    pub nodes_before: usize,
    /// Node count at the end.
    pub nodes_after: usize,
    /// Merge pairs suggested (before the authority filter).
    pub merges_proposed: usize,
    /// Merges applied.
    pub merges_applied: usize,
    /// Ids of the merged nodes created.
    pub merged_ids: Vec<String>,
    /// Edges removed by pruning.
    pub pruned_edges: usize,
    /// Orphan nodes removed by pruning.
    pub pruned_nodes: usize,
    /// Edges created by the connect task.
    pub connections_added: usize,
    /// Free-text notes (unknown tasks, filtered pairs, ...).
    pub notes: Vec<String>,
}

fn health_payload(graph: &Graph, health: &GraphHealth) -> Value {
    json!({
        "dormant_pct": health.dormant_pct,
        "habitual_pct": health.habitual_pct,
        "reflex_pct": health.reflex_pct,
        "cross_file_edge_pct": health.cross_file_edge_pct,
        "orphan_nodes": health.orphan_nodes,
        "nodes": graph.node_count(),
        "edges": graph.edge_count(),
    })
}

/// [`run_maintenance_with`] without callbacks.
pub fn run_maintenance(
    state: &mut State,
    options: &MaintenanceOptions,
) -> Result<MaintenanceReport> {
    run_maintenance_with(state, options, MaintenanceHooks::default())
}

/// Runs the requested maintenance tasks on `state` in place (reference
/// `crabpath/maintain.py::run_maintenance`), in the
/// fixed order of `options.order`:
/// * health: journal the health payload (health fields, node and edge counts);
/// * decay: [`apply_decay_with`], constitutional sources skipped, canonical sources at
///   half-life scale 2.0;
/// * prune: [`prune_edges`]`(prune_below)` then [`prune_orphan_nodes`];
/// * merge: [`suggest_merges`] with the judge; pairs with a constitutional node are
///   dropped, and pairs with a canonical node when there is no judge; of the first
///   `max_merges` remaining pairs, those whose nodes both still exist are merged;
/// * connect: [`connect_learning_nodes`] if some node id starts with `learning::`.
///
/// A journal event is handed to `hooks.journal` per health task and one at the end.
/// `dry_run` is the caller's concern (the application runs a copy); here the state is
/// always modified.
pub fn run_maintenance_with(
    state: &mut State,
    options: &MaintenanceOptions,
    mut hooks: MaintenanceHooks<'_>,
) -> Result<MaintenanceReport> {
    let mut notes = Vec::new();
    let requested: Vec<String> = match &options.tasks {
        Some(t) => t.clone(),
        None => DEFAULT_TASKS.iter().map(|s| s.to_string()).collect(),
    };
    let mut wanted = FxHashSet::default();
    for name in &requested {
        match MaintenanceTask::parse(name) {
            Some(t) => {
                wanted.insert(t);
            }
            None => notes.push(format!("unknown task `{name}` skipped")),
        }
    }
    let graph = &mut state.graph;
    let health_before = measure_health(graph);
    let mut report = MaintenanceReport {
        health_before,
        health_after: health_before,
        tasks_run: Vec::new(),
        decay_applied: false,
        decayed_edges: 0,
        edges_before: graph.edge_count(),
        edges_after: graph.edge_count(),
        nodes_before: graph.node_count(),
        nodes_after: graph.node_count(),
        merges_proposed: 0,
        merges_applied: 0,
        merged_ids: Vec::new(),
        pruned_edges: 0,
        pruned_nodes: 0,
        connections_added: 0,
        notes,
    };
    for task in options.order.sequence() {
        if !wanted.contains(&task) {
            continue;
        }
        report.tasks_run.push(task);
        match task {
            MaintenanceTask::Health => {
                if let Some(journal) = hooks.journal.as_mut() {
                    let h = measure_health(graph);
                    let mut line = json!({"type": "health"});
                    if let (Some(obj), Value::Object(p)) =
                        (line.as_object_mut(), health_payload(graph, &h))
                    {
                        obj.extend(p);
                    }
                    journal(&line)?;
                }
            }
            MaintenanceTask::Decay => {
                let constitutional: FxHashSet<NodeId> = graph
                    .node_ids()
                    .filter(|&n| authority(graph, n) == Authority::Constitutional)
                    .collect();
                let canonical: FxHashSet<NodeId> = graph
                    .node_ids()
                    .filter(|&n| authority(graph, n) == Authority::Canonical)
                    .collect();
                report.decayed_edges = apply_decay_with(
                    graph,
                    &options.decay,
                    |s| constitutional.contains(&s),
                    |s| if canonical.contains(&s) { 2.0 } else { 1.0 },
                );
                report.decay_applied = true;
            }
            MaintenanceTask::Prune => {
                report.pruned_edges += prune_edges(graph, options.prune_below);
                report.pruned_nodes += prune_orphan_nodes(graph);
            }
            MaintenanceTask::Merge => {
                let has_judge = hooks.judge.is_some();
                let judge = hooks
                    .judge
                    .as_mut()
                    .map(|j| &mut **j as &mut dyn FnMut(&Node, &Node) -> bool);
                let pairs = suggest_merges(graph, judge);
                report.merges_proposed = pairs.len();
                let kept: Vec<(NodeId, NodeId)> = pairs
                    .into_iter()
                    .filter(|&(a, b)| {
                        let (aa, ab) = (authority(graph, a), authority(graph, b));
                        let blocked = |x: Authority| {
                            x == Authority::Constitutional
                                || (x == Authority::Canonical && !has_judge)
                        };
                        !blocked(aa) && !blocked(ab)
                    })
                    .collect();
                if kept.len() < report.merges_proposed {
                    report.notes.push(format!(
                        "{} merge pair(s) dropped for authority",
                        report.merges_proposed - kept.len()
                    ));
                }
                for (a, b) in kept.into_iter().take(options.max_merges) {
                    if !graph.has_node(a) || !graph.has_node(b) {
                        continue;
                    }
                    let m = apply_merge(graph, a, b)?;
                    report.merged_ids.push(graph.name(m).to_string());
                    report.merges_applied += 1;
                }
            }
            MaintenanceTask::Connect => {
                if graph
                    .nodes()
                    .any(|(_, n)| n.id.starts_with(LEARNING_PREFIX))
                {
                    report.connections_added = connect_learning_nodes(
                        graph,
                        &state.index,
                        &options.connect,
                        hooks.embedder,
                    )?;
                } else {
                    report.notes.push("connect: no learning:: nodes".into());
                }
            }
        }
    }
    report.health_after = measure_health(graph);
    report.edges_after = graph.edge_count();
    report.nodes_after = graph.node_count();
    if let Some(journal) = hooks.journal.as_mut() {
        let line = json!({"type": "maintenance", "report": &report});
        journal(&line)?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// What [`best_overlaps`] must equal: every pair scored (the reference's loop),
    /// sorted and truncated the same way.
    fn every_pair(graph: &Graph, max_candidates: usize) -> Vec<(NodeId, NodeId, f64)> {
        let nodes = connect_nodes(graph);
        let mut scored = Vec::new();
        for (i, (si, ni, ti)) in nodes.iter().enumerate() {
            for (sj, nj, tj) in &nodes[i + 1..] {
                if different_files(ni, nj) {
                    let overlap = jaccard(ti, tj);
                    if overlap > 0.0 {
                        scored.push((*si, *sj, overlap));
                    }
                }
            }
        }
        keep_best(graph, &mut scored, max_candidates);
        scored
    }

    /// Random graphs whose texts draw on small vocabularies (so overlaps from 0 to 1,
    /// ties and exact repeats all occur), some nodes without a file, some sharing one:
    /// the thresholded search returns exactly what scoring every pair returns, for
    /// candidate counts that stop at each threshold and that fall back to every pair.
    #[test]
    fn best_overlaps_equal_scoring_every_pair() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(33);
        let mut thresholds_hit = [0usize; 5];
        for case in 0..300 {
            let mut g = Graph::new();
            let nodes = rng.gen_range(0..40);
            let vocabulary = rng.gen_range(2..30);
            let files = rng.gen_range(1..8);
            for i in 0..nodes {
                let words = rng.gen_range(0..12);
                let text: Vec<String> = (0..words)
                    .map(|_| format!("w{}", rng.gen_range(0..vocabulary)))
                    .collect();
                let mut n = Node::new(
                    format!("n{}", rng.gen_range(0..1000) * 100 + i),
                    text.join(" "),
                );
                if rng.gen_bool(0.9) {
                    n = n.with_meta("file", format!("f{}.md", rng.gen_range(0..files)));
                }
                g.add_node(n);
            }
            for max in [0, 1, 3, 20, 200, usize::MAX] {
                let want = every_pair(&g, max);
                let nodes = connect_nodes(&g);
                let got = best_overlaps(&g, &nodes, max);
                assert_eq!(got, want, "case {case}, max_candidates {max}");
                let (sets, vocabulary) = ranked_sets(&nodes);
                let at = OVERLAP_THRESHOLDS
                    .iter()
                    .position(|&t| pairs_at_least(&nodes, &sets, vocabulary, t).len() >= max)
                    .unwrap_or(4);
                thresholds_hit[at] += 1;
            }
        }
        // every way out was taken (each threshold, and scoring every pair)
        assert!(thresholds_hit.iter().all(|&n| n > 0), "{thresholds_hit:?}");
    }
}
