//! The memory graph: document-chunk nodes and signed, weighted directed edges
//! (paper §2 "The Graph"; reference `crabpath/graph.py`).
//!
//! Ids are interned to dense [`NodeId`] indices. Every ordering the reference relies on is
//! kept exactly (reference `crabpath/graph.py::Graph`, built on Python's insertion-ordered
//! dicts): nodes in insertion order, each source's edges ("bucket") in insertion order,
//! buckets in order of their first edge, replacement in place, order-preserving deletes.
//! Unlike the reference, incoming edges are found through a reverse index (cost
//! O(in-degree), not a scan of every bucket), and summed in the same outer-bucket order, so
//! results are unchanged.

use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

pub use crate::edge::{Edge, EdgeKind, EdgeMeta};
use crate::error::{finite, Error, Result};
pub use crate::node::{Metadata, Node, NodeId};

/// One source's outgoing edges in insertion order (contiguous; see [`crate::bucket`]).
pub use crate::bucket::Bucket;

/// The graph. See the module docs for the ordering guarantees.
///
/// Storage: per-symbol arrays (node presence, outgoing bucket, reverse index) so that
/// the traversal hot path reaches a source's edges with one indexed load; the outer
/// bucket order of the reference is kept in `order`.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    names: Vec<String>,
    ids: FxHashMap<String, NodeId>,
    /// `present[i]`: symbol `i` has a node.
    present: Vec<bool>,
    nodes: IndexMap<NodeId, Node, FxBuildHasher>,
    /// Outgoing edges per symbol (empty for symbols without edges).
    buckets: Vec<Bucket>,
    /// Sources with a non-empty bucket, in the reference's outer bucket order.
    order: IndexSet<NodeId, FxBuildHasher>,
    /// Reverse index: for each symbol, the sources that have an edge to it (unordered).
    sources_of: Vec<SmallVec<[NodeId; 4]>>,
    edge_count: usize,
    /// Stored edges whose target has no node; while 0, `outgoing` skips the check.
    dangling: usize,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    // ----- ids -------------------------------------------------------------------------

    /// Interns an id (creating a symbol without a node if it is new).
    pub fn intern(&mut self, id: &str) -> NodeId {
        if let Some(&ix) = self.ids.get(id) {
            return ix;
        }
        let ix = NodeId(self.names.len() as u32);
        self.names.push(id.to_string());
        self.ids.insert(id.to_string(), ix);
        self.present.push(false);
        self.buckets.push(Bucket::default());
        self.sources_of.push(SmallVec::new());
        ix
    }

    /// The symbol of an id, if it was ever interned (node or edge endpoint).
    pub fn lookup(&self, id: &str) -> Option<NodeId> {
        self.ids.get(id).copied()
    }

    /// The symbol of an existing node, or `Error::UnknownNode`.
    pub fn require(&self, id: &str) -> Result<NodeId> {
        match self.lookup(id) {
            Some(ix) if self.has_node(ix) => Ok(ix),
            _ => Err(Error::UnknownNode(id.to_string())),
        }
    }

    /// The external id of a symbol.
    ///
    /// # Panics
    /// If `ix` was not produced by this graph.
    pub fn name(&self, ix: NodeId) -> &str {
        &self.names[ix.index()]
    }

    /// Number of interned symbols (upper bound of every `NodeId` index).
    pub fn symbol_count(&self) -> usize {
        self.names.len()
    }

    // ----- nodes -----------------------------------------------------------------------

    /// Inserts or replaces a node by id (replacement keeps its position; reference
    /// `crabpath/graph.py::Graph`).
    pub fn add_node(&mut self, node: Node) -> NodeId {
        let ix = self.intern(&node.id);
        if !self.present[ix.index()] {
            self.present[ix.index()] = true;
            self.dangling -= self.sources_of[ix.index()].len();
        }
        self.nodes.insert(ix, node);
        ix
    }

    /// Whether a node exists for this symbol.
    #[inline]
    pub fn has_node(&self, ix: NodeId) -> bool {
        self.present.get(ix.index()).copied().unwrap_or(false)
    }

    /// The node of a symbol.
    pub fn node(&self, ix: NodeId) -> Option<&Node> {
        self.nodes.get(&ix)
    }

    /// Mutable access to a node (its id must not be changed).
    pub fn node_mut(&mut self, ix: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(&ix)
    }

    /// The node with this external id.
    pub fn get_node(&self, id: &str) -> Option<&Node> {
        self.lookup(id).and_then(|ix| self.node(ix))
    }

    /// Nodes in insertion order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = (NodeId, &Node)> + '_ {
        self.nodes.iter().map(|(&ix, n)| (ix, n))
    }

    /// Node symbols in insertion order.
    pub fn node_ids(&self) -> impl ExactSizeIterator<Item = NodeId> + '_ {
        self.nodes.keys().copied()
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Removes a node, its outgoing bucket and every edge pointing to it, keeping all
    /// other orders (reference `crabpath/graph.py::Graph.remove_node`).
    pub fn remove_node(&mut self, ix: NodeId) -> Option<Node> {
        let node = self.nodes.shift_remove(&ix)?;
        self.present[ix.index()] = false;
        // edges to it are deleted below, so it leaves no dangling edges behind
        let own = self.drop_bucket(ix);
        self.edge_count -= own.len();
        for t in own.keys() {
            if !self.has_node(*t) && *t != ix {
                self.dangling -= 1;
            }
            self.unlink_source(*t, ix);
        }
        let sources = std::mem::take(&mut self.sources_of[ix.index()]);
        for s in sources {
            if self.buckets[s.index()].shift_remove(&ix).is_some() {
                self.edge_count -= 1;
            }
            if self.buckets[s.index()].is_empty() {
                self.order.shift_remove(&s);
            }
        }
        Some(node)
    }

    // ----- edges -----------------------------------------------------------------------

    /// Stores an edge with its weight clamped to [-1, 1]. An existing (source, target)
    /// entry is replaced in place; a new one is appended to the source's bucket, which is
    /// created at the end of the bucket list if missing (reference
    /// `crabpath/graph.py::Graph.add_edge`). Endpoints need not have nodes. A non-finite
    /// weight is an error.
    pub fn add_edge(&mut self, source: NodeId, target: NodeId, mut edge: Edge) -> Result<()> {
        self.check_symbol(source)?;
        self.check_symbol(target)?;
        let w = finite(
            || format!("edge weight {}->{}", self.name(source), self.name(target)),
            edge.weight,
        )?;
        edge.weight = w.clamp(-1.0, 1.0);
        let bucket = &mut self.buckets[source.index()];
        if bucket.is_empty() {
            self.order.insert(source);
        }
        if bucket.insert(target, edge).is_none() {
            self.edge_count += 1;
            self.sources_of[target.index()].push(source);
            if !self.present[target.index()] {
                self.dangling += 1;
            }
        }
        Ok(())
    }

    /// [`Graph::add_edge`] by external ids (interning them).
    pub fn add_edge_by_id(&mut self, source: &str, target: &str, edge: Edge) -> Result<()> {
        let s = self.intern(source);
        let t = self.intern(target);
        self.add_edge(s, t, edge)
    }

    fn check_symbol(&self, ix: NodeId) -> Result<()> {
        if ix.index() < self.names.len() {
            Ok(())
        } else {
            Err(Error::UnknownNode(format!("#{}", ix.0)))
        }
    }

    /// The edge source→target, if stored.
    #[inline]
    pub fn edge(&self, source: NodeId, target: NodeId) -> Option<&Edge> {
        self.buckets
            .get(source.index())
            .and_then(|b| b.get(&target))
    }

    /// Mutable access to a stored edge. Weights written here are not clamped; callers
    /// clip with their own bounds (learning uses `weight_bounds`).
    #[inline]
    pub fn edge_mut(&mut self, source: NodeId, target: NodeId) -> Option<&mut Edge> {
        self.buckets
            .get_mut(source.index())
            .and_then(|b| b.get_mut(&target))
    }

    /// The weight of source→target, if stored.
    #[inline]
    pub fn weight(&self, source: NodeId, target: NodeId) -> Option<f64> {
        self.edge(source, target).map(|e| e.weight)
    }

    /// Removes source→target keeping orders; deletes the bucket if it becomes empty.
    pub fn remove_edge(&mut self, source: NodeId, target: NodeId) -> Option<Edge> {
        let bucket = self.buckets.get_mut(source.index())?;
        let edge = bucket.shift_remove(&target)?;
        if bucket.is_empty() {
            self.order.shift_remove(&source);
        }
        self.edge_count -= 1;
        if !self.has_node(target) {
            self.dangling -= 1;
        }
        self.unlink_source(target, source);
        Some(edge)
    }

    /// Deletes a whole bucket, keeping the order of the others.
    fn drop_bucket(&mut self, source: NodeId) -> Bucket {
        self.order.shift_remove(&source);
        std::mem::take(&mut self.buckets[source.index()])
    }

    fn unlink_source(&mut self, target: NodeId, source: NodeId) {
        let list = &mut self.sources_of[target.index()];
        if let Some(p) = list.iter().position(|&s| s == source) {
            list.swap_remove(p);
        }
    }

    /// Total stored edges, dangling ones and self-loops included.
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }

    /// Outgoing edges of `source` in bucket order, skipping edges whose target has no
    /// node (reference `crabpath/graph.py::Graph.outgoing`).
    #[inline]
    pub fn outgoing(&self, source: NodeId) -> impl Iterator<Item = (NodeId, &Edge)> + '_ {
        let check = self.dangling > 0;
        self.buckets
            .get(source.index())
            .into_iter()
            .flat_map(|b| b.iter())
            .filter(move |(t, _)| !check || self.has_node(**t))
            .map(|(t, e)| (*t, e))
    }

    /// The whole bucket of `source` (dangling edges included), if it has edges.
    pub fn bucket(&self, source: NodeId) -> Option<&Bucket> {
        self.buckets.get(source.index()).filter(|b| !b.is_empty())
    }

    /// Incoming edges of `target` from existing source nodes, in outer bucket order
    /// (reference `crabpath/graph.py::Graph.incoming`), found through the reverse index.
    pub fn incoming(&self, target: NodeId) -> Vec<(NodeId, &Edge)> {
        let mut out: Vec<(usize, NodeId, &Edge)> = self
            .sources_of(target)
            .iter()
            .filter(|s| self.has_node(**s))
            .filter_map(|&s| {
                let pos = self.bucket_position(s)?;
                self.edge(s, target).map(|e| (pos, s, e))
            })
            .collect();
        out.sort_by_key(|x| x.0);
        out.into_iter().map(|(_, s, e)| (s, e)).collect()
    }

    /// Sources that have a stored edge to `target` (unordered; nodes or not).
    #[inline]
    pub fn sources_of(&self, target: NodeId) -> &[NodeId] {
        self.sources_of
            .get(target.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Position of `source`'s bucket in the outer bucket order.
    #[inline]
    pub fn bucket_position(&self, source: NodeId) -> Option<usize> {
        self.order.get_index_of(&source)
    }

    /// Every stored edge as (source, target, edge), bucket by bucket.
    pub fn edges(&self) -> impl Iterator<Item = (NodeId, NodeId, &Edge)> + '_ {
        self.order
            .iter()
            .flat_map(move |&s| self.buckets[s.index()].iter().map(move |(&t, e)| (s, t, e)))
    }

    /// Sources with a bucket, in outer order.
    pub fn sources(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.order.iter().copied()
    }

    /// Mutable visit of every stored edge in bucket order (weights only change; the
    /// structure cannot). Used by decay.
    pub fn for_each_edge_mut(&mut self, mut f: impl FnMut(NodeId, NodeId, &mut Edge)) {
        for &s in self.order.iter() {
            for (&t, e) in self.buckets[s.index()].iter_mut() {
                f(s, t, e);
            }
        }
    }

    /// Mutable visit of the edges of one bucket.
    pub fn bucket_mut(
        &mut self,
        source: NodeId,
    ) -> Option<impl Iterator<Item = (NodeId, &mut Edge)>> {
        self.buckets
            .get_mut(source.index())
            .filter(|b| !b.is_empty())
            .map(|b| b.iter_mut().map(|(&t, e)| (t, e)))
    }

    // ----- persistence -----------------------------------------------------------------

    /// The graph as the reference's JSON document `{"nodes": [...], "edges": [...]}`
    /// (reference `crabpath/graph.py::Graph.save`), orders preserved.
    pub fn to_file(&self) -> GraphFile {
        GraphFile {
            nodes: self.nodes.values().cloned().collect(),
            edges: self
                .edges()
                .map(|(s, t, e)| EdgeRecord {
                    source: self.name(s).to_string(),
                    target: self.name(t).to_string(),
                    weight: e.weight,
                    kind: e.kind.clone(),
                    metadata: e.metadata.to_map(),
                })
                .collect(),
        }
    }

    /// Rebuilds a graph: nodes in listed order, then `add_edge` per listed edge, so a
    /// save/load round trip keeps every order (reference `crabpath/graph.py::Graph.load`).
    pub fn from_file(file: GraphFile) -> Result<Self> {
        let mut g = Graph::new();
        for n in file.nodes {
            g.add_node(n);
        }
        for e in file.edges {
            g.add_edge_by_id(
                &e.source,
                &e.target,
                Edge {
                    weight: e.weight,
                    kind: e.kind,
                    metadata: e.metadata.into(),
                },
            )?;
        }
        Ok(g)
    }
}

/// Serialized graph (reference `crabpath/graph.py::Graph.save`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphFile {
    /// Nodes in insertion order.
    #[serde(default)]
    pub nodes: Vec<Node>,
    /// Edges bucket by bucket.
    #[serde(default)]
    pub edges: Vec<EdgeRecord>,
}

/// One serialized edge; missing weight → 0.5, missing kind → `sibling`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeRecord {
    /// Source id.
    pub source: String,
    /// Target id.
    pub target: String,
    /// Weight.
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Kind label.
    #[serde(default)]
    pub kind: EdgeKind,
    /// Metadata.
    #[serde(default)]
    pub metadata: Metadata,
}

fn default_weight() -> f64 {
    0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g3() -> (Graph, NodeId, NodeId, NodeId) {
        let mut g = Graph::new();
        let a = g.add_node(Node::new("a", "A"));
        let b = g.add_node(Node::new("b", "B"));
        let c = g.add_node(Node::new("c", "C"));
        (g, a, b, c)
    }

    #[test]
    fn add_edge_clamps_and_replaces_in_place() {
        let (mut g, a, b, c) = g3();
        g.add_edge(a, b, Edge::new(2.0)).unwrap();
        g.add_edge(a, c, Edge::new(0.3)).unwrap();
        g.add_edge(a, b, Edge::new(-0.4)).unwrap();
        let order: Vec<_> = g.outgoing(a).map(|(t, e)| (t, e.weight)).collect();
        assert_eq!(order, vec![(b, -0.4), (c, 0.3)]);
        assert_eq!(g.edge_count(), 2);
        g.add_edge(b, a, Edge::new(1.5)).unwrap();
        assert_eq!(g.weight(b, a), Some(1.0));
        assert!(g.add_edge(a, c, Edge::new(f64::NAN)).is_err());
    }

    #[test]
    fn dangling_edges_are_stored_but_skipped() {
        let (mut g, a, _, _) = g3();
        g.add_edge_by_id("a", "ghost", Edge::new(0.5)).unwrap();
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.outgoing(a).count(), 0);
    }

    #[test]
    fn incoming_follows_outer_bucket_order() {
        let (mut g, a, b, c) = g3();
        g.add_edge(c, a, Edge::new(0.1)).unwrap();
        g.add_edge(b, a, Edge::new(0.2)).unwrap();
        let inc: Vec<_> = g.incoming(a).into_iter().map(|(s, _)| s).collect();
        assert_eq!(inc, vec![c, b]);
        // deleting c's only edge deletes its bucket; re-adding appends it at the end
        g.remove_edge(c, a).unwrap();
        g.add_edge(c, a, Edge::new(0.1)).unwrap();
        let inc: Vec<_> = g.incoming(a).into_iter().map(|(s, _)| s).collect();
        assert_eq!(inc, vec![b, c]);
    }

    #[test]
    fn remove_node_cascades_and_keeps_order() {
        let (mut g, a, b, c) = g3();
        g.add_edge(a, b, Edge::new(0.1)).unwrap();
        g.add_edge(a, c, Edge::new(0.2)).unwrap();
        g.add_edge(b, c, Edge::new(0.3)).unwrap();
        g.add_edge(c, b, Edge::new(0.4)).unwrap();
        g.remove_node(b).unwrap();
        assert_eq!(g.edge_count(), 1);
        assert_eq!(
            g.edges().map(|(s, t, _)| (s, t)).collect::<Vec<_>>(),
            vec![(a, c)]
        );
        assert!(g.get_node("b").is_none());
        assert_eq!(g.node_ids().collect::<Vec<_>>(), vec![a, c]);
    }

    #[test]
    fn bucket_positions_follow_deletes() {
        let (mut g, a, b, c) = g3();
        g.add_edge(a, b, Edge::new(0.1)).unwrap();
        g.add_edge(b, c, Edge::new(0.2)).unwrap();
        g.add_edge(c, a, Edge::new(0.3)).unwrap();
        g.remove_edge(a, b).unwrap();
        assert_eq!(g.bucket_position(a), None);
        assert_eq!(g.bucket_position(b), Some(0));
        assert_eq!(g.bucket_position(c), Some(1));
        assert_eq!(g.weight(c, a), Some(0.3));
        g.add_edge(a, c, Edge::new(0.4)).unwrap();
        assert_eq!(g.bucket_position(a), Some(2));
        assert_eq!(g.sources().collect::<Vec<_>>(), vec![b, c, a]);
        assert!(std::mem::size_of::<Edge>() <= 40, "edges stay compact");
    }

    #[test]
    fn file_round_trip_keeps_orders() {
        let (mut g, a, b, c) = g3();
        g.add_edge(c, a, Edge::new(0.9)).unwrap();
        g.add_edge(a, c, Edge::new(-0.5).with_kind(EdgeKind::Inhibitory))
            .unwrap();
        g.add_edge(a, b, Edge::new(0.5)).unwrap();
        let f = g.to_file();
        let json = serde_json::to_string(&f).unwrap();
        let back = Graph::from_file(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back.to_file(), f);
    }
}
