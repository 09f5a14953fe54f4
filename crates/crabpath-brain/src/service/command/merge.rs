//! `crabpath merge` and `crabpath connect` (reference `crabpath/cli.py::cmd_merge`,
//! `cmd_connect`, `merge.py`, `connect.py`, commit 134c676).
//!
//! * merge — every [`suggest_merges`] pair (no judge) whose nodes both still exist is
//!   merged with [`apply_merge`], in suggestion order; no limit, no authority filter.
//! * connect — the [`MAX_CONNECTION_CANDIDATES`] best cross-file pairs by token
//!   overlap ([`suggest_connections`]), each applied as one directed `cross_file` edge
//!   ([`apply_connections`]).
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | G1 | merging does not touch the index: the merged node has no vector and the merged-away ids keep theirs, so later queries seed deleted ids (silently dropped) and never the merged node | the two vectors are removed and the merged node gets the embedding of its content | after merging `deploy.md::0/1`: 2 of 3 seeds survive, fired starts `onboarding.md::2` vs. 3 seeds, fired starts with the merged node |

use crate::error::Result;
use crabpath::embed::Embedder;
use crabpath::graph::{Graph, Metadata, NodeId};
use crabpath::index::VectorStore;
use crabpath::maintain::{
    apply_connections, apply_merge, suggest_connections, suggest_merges, MAX_CONNECTION_CANDIDATES,
};
use crabpath::profile::Profile;

/// What `merge` did: the suggested pairs, and for each applied one the merged id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeReport {
    /// Suggested pairs (source, target), in order.
    pub suggestions: Vec<(String, String)>,
    /// Applied merges: (source, target, merged id).
    pub applied: Vec<(String, String, String)>,
}

/// The metadata key of a merged node's parts ([`crabpath::maintain::MERGED_PARTS_KEY`]),
/// so that `forget` finds every merged node holding text of what it forgets (a file's
/// chunks, a node) however deep the merges.
pub use crabpath::maintain::MERGED_PARTS_KEY;

/// The parts a merge of node `id` (its `metadata`) joins: its [`MERGED_PARTS_KEY`],
/// else its `merged_from` (a merge of the paper profile or of an earlier release: a
/// merged id among them is not resolved), else its own id.
pub fn parts_of(id: &str, metadata: &Metadata) -> Vec<String> {
    let list = |key: &str| {
        metadata.get(key).and_then(|v| v.as_array()).map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
    };
    list(MERGED_PARTS_KEY)
        .or_else(|| list("merged_from"))
        .unwrap_or_else(|| vec![id.to_string()])
}

/// The SQL condition on `nodes` of the merged nodes (ids `merged:…`, the core's
/// `apply_merge`): an id range of the primary key, so found without a scan.
pub const MERGED_NODES_SQL: &str = "id >= 'merged:' AND id < 'merged;' AND node_seq IS NOT NULL";

/// The merged nodes of `graph` (a node with [`MERGED_PARTS_KEY`] or `merged_from`)
/// with the parts each holds ([`parts_of`]), in node order: what `sync` needs to
/// know which chunks a merge holds ([`crate::source::sync::SyncOptions::merged`]).
///
/// Cost: one pass over the nodes.
pub fn merged_nodes(graph: &Graph) -> Vec<(NodeId, Vec<String>)> {
    graph
        .nodes()
        .filter(|(_, n)| {
            n.metadata.contains_key(MERGED_PARTS_KEY) || n.metadata.contains_key("merged_from")
        })
        .map(|(ix, n)| (ix, parts_of(&n.id, &n.metadata)))
        .collect()
}

/// [`apply_merge`] of `a` and `b`; the corrected profile records the merged node's
/// parts ([`MERGED_PARTS_KEY`]). Returns the merged node. The one merge of `merge` and
/// of `maintain`.
pub fn merge_pair(graph: &mut Graph, a: NodeId, b: NodeId, profile: Profile) -> Result<NodeId> {
    let parts: Option<Vec<String>> = match (graph.node(a), graph.node(b)) {
        (Some(na), Some(nb)) if profile.fixes_bugs() => Some(
            parts_of(&na.id, &na.metadata)
                .into_iter()
                .chain(parts_of(&nb.id, &nb.metadata))
                .collect(),
        ),
        _ => None,
    };
    let m = apply_merge(graph, a, b)?;
    if let (Some(parts), true) = (parts, m != a && m != b) {
        if let Some(node) = graph.node_mut(m) {
            node.metadata
                .insert(MERGED_PARTS_KEY.into(), serde_json::json!(parts));
        }
    }
    Ok(m)
}

/// Replaces the vectors of two merged nodes by one for the merged node (corrected fix
/// G1): the embedding of its content; without an embedder the two vectors are only
/// removed.
pub fn refresh_index_after_merge(
    graph: &Graph,
    index: &mut dyn VectorStore,
    merged_from: (&str, &str),
    merged: &str,
    embedder: Option<&dyn Embedder>,
) -> Result<()> {
    index.remove(merged_from.0);
    index.remove(merged_from.1);
    if let (Some(e), Some(node)) = (embedder, graph.get_node(merged)) {
        let v = e.embed(&crate::source::embedtext::embedded_text(node))?;
        index.upsert(merged, &v)?;
    }
    Ok(())
}

/// Runs `merge` on a graph (see the module docs); with `index`, the corrected profile
/// keeps it in step ([`refresh_index_after_merge`]).
pub fn merge(
    graph: &mut Graph,
    mut index: Option<&mut dyn VectorStore>,
    embedder: Option<&dyn Embedder>,
    profile: Profile,
) -> Result<MergeReport> {
    let pairs = suggest_merges(graph, None);
    let mut report = MergeReport {
        suggestions: pairs
            .iter()
            .map(|&(a, b)| (graph.name(a).to_string(), graph.name(b).to_string()))
            .collect(),
        applied: Vec::new(),
    };
    for (a, b) in pairs {
        if !graph.has_node(a) || !graph.has_node(b) {
            continue;
        }
        let (an, bn) = (graph.name(a).to_string(), graph.name(b).to_string());
        let m = merge_pair(graph, a, b, profile)?;
        let mn = graph.name(m).to_string();
        if profile.fixes_bugs() {
            if let Some(ix) = index.as_deref_mut() {
                refresh_index_after_merge(graph, ix, (&an, &bn), &mn, embedder)?;
            }
        }
        report.applied.push((an, bn, mn));
    }
    Ok(report)
}

/// One connection of `connect --json`: `{"source_id", "target_id", "weight",
/// "reason"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    /// Source id.
    pub source_id: String,
    /// Target id.
    pub target_id: String,
    /// Edge weight (the token overlap).
    pub weight: f64,
    /// `word overlap score: <overlap, 4 decimals>`.
    pub reason: String,
}

/// The journal entry type of a `connect` run (corrected profile): `forget`'s replay runs
/// it again at its place ([`crate::service::Brain::relearn`]), on the graph as it then
/// stands.
pub const CONNECT_EVENT: &str = "connect";

/// Runs `connect` on a graph: returns the suggestions and how many edges are new.
pub fn connect(graph: &mut Graph) -> Result<(Vec<Connection>, usize)> {
    let suggestions = suggest_connections(graph, None, MAX_CONNECTION_CANDIDATES);
    let list = suggestions
        .iter()
        .map(|s| Connection {
            source_id: graph.name(s.source).to_string(),
            target_id: graph.name(s.target).to_string(),
            weight: s.weight,
            reason: s.reason.clone(),
        })
        .collect();
    let added = apply_connections(graph, &suggestions)?;
    Ok((list, added))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath::embed::HashEmbedder;
    use crabpath::graph::{Edge, Node};
    use crabpath::index::VectorIndex;

    #[test]
    fn merge_keeps_the_index_in_step_when_corrected() {
        let build = || {
            let mut g = Graph::new();
            g.add_node(Node::new("a", "alpha"));
            g.add_node(Node::new("b", "beta"));
            g.add_edge_by_id("a", "b", Edge::new(0.9)).unwrap();
            g.add_edge_by_id("b", "a", Edge::new(0.85)).unwrap();
            let e = HashEmbedder::new();
            let mut ix = VectorIndex::new();
            ix.upsert("a", e.embed("alpha").unwrap()).unwrap();
            ix.upsert("b", e.embed("beta").unwrap()).unwrap();
            (g, ix)
        };
        let e = HashEmbedder::new();
        let (mut g, mut ix) = build();
        let r = merge(&mut g, Some(&mut ix), Some(&e), Profile::Paper).unwrap();
        assert_eq!(r.suggestions, [("a".to_string(), "b".to_string())]);
        let merged = r.applied[0].2.clone();
        assert!(merged.starts_with("merged:"));
        // G1 before: stale ids, no vector for the merged node
        assert_eq!(ix.ids().collect::<Vec<_>>(), ["a", "b"]);
        let (mut g, mut ix) = build();
        merge(&mut g, Some(&mut ix), Some(&e), Profile::Corrected).unwrap();
        assert_eq!(ix.ids().collect::<Vec<_>>(), [merged.as_str()]);
        assert_eq!(
            ix.get(&merged).unwrap(),
            &e.embed("alpha\n\nbeta").unwrap()[..]
        );
    }
}
