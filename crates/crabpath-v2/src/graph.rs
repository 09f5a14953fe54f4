//! The v2 data model: nodes, edges and the graph container whose ordering rules decide
//! every tie-break downstream (reference `crabpath/graph.py`, commit a424df5 = e752b95).
//!
//! * Nodes keep **insertion order**; re-adding an id replaces the node in place.
//! * Edges are keyed by the pair (source, target). Re-adding a pair replaces the edge
//!   object (weight and every other field) but keeps its position, both in the global
//!   edge order and in the source's outgoing list.
//! * [`Graph::outgoing`] yields a source's edges in first-insertion order and skips
//!   edges whose target is not a node.
//!
//! Ids are interned: [`Id`] is an index into the graph's symbol table, so the
//! algorithms work on plain integers and resolve names only to break ties and to
//! print. Every id ever mentioned (a node or an edge endpoint) gets one; removing a
//! node does not recycle its id.

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde_json::{Map, Value};

/// Interned id of a node or edge endpoint (an index into the graph's symbol table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(u32);

impl Id {
    /// The index of this id in its graph's symbol table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Who created an edge (`created_by`; bookkeeping only, read by no algorithm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CreatedBy {
    /// `"auto"`.
    Auto,
    /// `"manual"` (the default; also what any unknown value is read as).
    #[default]
    Manual,
    /// `"llm"`.
    Llm,
}

impl CreatedBy {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CreatedBy::Auto => "auto",
            CreatedBy::Manual => "manual",
            CreatedBy::Llm => "llm",
        }
    }

    /// Parses the JSON spelling; unknown values are `manual`, as the reference reads them.
    pub fn parse(s: &str) -> CreatedBy {
        match s {
            "auto" => CreatedBy::Auto,
            "llm" => CreatedBy::Llm,
            _ => CreatedBy::Manual,
        }
    }
}

/// A node (document chunk). `threshold`, `potential` and `trace` are used only by the
/// legacy LIF engine ([`crate::lif`]); v2 traversal ignores them.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Unique id.
    pub id: String,
    /// The text loaded into the context.
    pub content: String,
    /// Short text; when non-empty it is what the keyword index embeds.
    pub summary: String,
    /// `type` (default `"fact"`; the builders use fact/procedure/action/tool_call/guardrail).
    pub kind: String,
    /// LIF firing threshold (default 1.0).
    pub threshold: f64,
    /// LIF potential (default 0.0).
    pub potential: f64,
    /// LIF trace (default 0.0).
    pub trace: f64,
    /// Free-form metadata (`error_class`, `protected`, neurogenesis bookkeeping, …).
    pub metadata: Map<String, Value>,
}

impl Node {
    /// A node with the given id and content and every other field at its default.
    pub fn new(id: impl Into<String>, content: impl Into<String>) -> Node {
        Node {
            id: id.into(),
            content: content.into(),
            summary: String::new(),
            kind: "fact".to_string(),
            threshold: 1.0,
            potential: 0.0,
            trace: 0.0,
            metadata: Map::new(),
        }
    }

    /// The same node with a summary.
    pub fn with_summary(mut self, summary: impl Into<String>) -> Node {
        self.summary = summary.into();
        self
    }
}

/// A directed, signed, weighted edge. `decay_rate` and `last_followed_ts` are carried
/// but read by no algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Source id.
    pub source: Id,
    /// Target id.
    pub target: Id,
    /// Weight (default 1.0); tiers: reflex > 0.8, habitual 0.3..=0.8, dormant < 0.3.
    pub weight: f64,
    /// Default 0.01, unused.
    pub decay_rate: f64,
    /// Never written by the engine.
    pub last_followed_ts: Option<f64>,
    /// Creator.
    pub created_by: CreatedBy,
    /// Incremented by learning (paper: for every candidate edge of an updated source).
    pub follow_count: i64,
    /// Incremented by learning (paper: never, in practice).
    pub skip_count: i64,
}

/// What [`Graph::consolidate`] removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Consolidation {
    /// Edges removed because |weight| < the threshold.
    pub pruned_edges: usize,
    /// Nodes removed because they had no edge left and were not `metadata.protected`.
    pub pruned_nodes: usize,
}

/// The graph container.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    names: Vec<String>,
    lookup: FxHashMap<String, Id>,
    nodes: IndexMap<Id, Node, FxBuildHasher>,
    edges: IndexMap<(Id, Id), Edge, FxBuildHasher>,
    out: Vec<Vec<Id>>,
    inc: Vec<Vec<Id>>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// The id of `name`, creating it if new. O(1).
    pub fn intern(&mut self, name: &str) -> Id {
        if let Some(&id) = self.lookup.get(name) {
            return id;
        }
        let id = Id(u32::try_from(self.names.len()).expect("fewer than 2^32 ids"));
        self.names.push(name.to_string());
        self.lookup.insert(name.to_string(), id);
        self.out.push(Vec::new());
        self.inc.push(Vec::new());
        id
    }

    /// The id of `name` if it was ever mentioned. O(1).
    pub fn id(&self, name: &str) -> Option<Id> {
        self.lookup.get(name).copied()
    }

    /// The name of `id`. O(1).
    pub fn name(&self, id: Id) -> &str {
        &self.names[id.index()]
    }

    /// Adds `node`, or replaces the node of the same id in place. O(1).
    pub fn add_node(&mut self, node: Node) -> Id {
        let id = self.intern(&node.id);
        self.nodes.insert(id, node);
        id
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<&Node> {
        self.id(name).and_then(|id| self.nodes.get(&id))
    }

    /// The node of `id`.
    pub fn node_by_id(&self, id: Id) -> Option<&Node> {
        self.nodes.get(&id)
    }

    /// The node of `id`, mutably.
    pub fn node_mut(&mut self, id: Id) -> Option<&mut Node> {
        self.nodes.get_mut(&id)
    }

    /// Whether `id` is a node of the graph. O(1).
    pub fn contains(&self, id: Id) -> bool {
        self.nodes.contains_key(&id)
    }

    /// Nodes in graph node order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = (Id, &Node)> + '_ {
        self.nodes.iter().map(|(&id, n)| (id, n))
    }

    /// Mutable nodes in graph node order.
    pub fn nodes_mut(&mut self) -> impl Iterator<Item = (Id, &mut Node)> + '_ {
        self.nodes.iter_mut().map(|(&id, n)| (id, n))
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Adds an edge `source -> target` with `weight` and default bookkeeping, replacing
    /// an existing edge of that pair in place. Endpoints need not be nodes (yet).
    pub fn add_edge(&mut self, source: &str, target: &str, weight: f64) -> (Id, Id) {
        let s = self.intern(source);
        let t = self.intern(target);
        self.insert_edge(Edge {
            source: s,
            target: t,
            weight,
            decay_rate: 0.01,
            last_followed_ts: None,
            created_by: CreatedBy::Manual,
            follow_count: 0,
            skip_count: 0,
        });
        (s, t)
    }

    /// Inserts `edge` (whose ids come from this graph), replacing an existing edge of the
    /// same pair in place. O(1).
    pub fn insert_edge(&mut self, edge: Edge) {
        let key = (edge.source, edge.target);
        if self.edges.insert(key, edge).is_none() {
            self.out[key.0.index()].push(key.1);
            self.inc[key.1.index()].push(key.0);
        }
    }

    /// The edge `source -> target`. O(1).
    pub fn edge(&self, source: Id, target: Id) -> Option<&Edge> {
        self.edges.get(&(source, target))
    }

    /// The edge `source -> target` by names.
    pub fn edge_by_name(&self, source: &str, target: &str) -> Option<&Edge> {
        self.edge(self.id(source)?, self.id(target)?)
    }

    /// The edge `source -> target`, mutably. O(1).
    pub fn edge_mut(&mut self, source: Id, target: Id) -> Option<&mut Edge> {
        self.edges.get_mut(&(source, target))
    }

    /// All edges in global (first-insertion) order.
    pub fn edges(&self) -> impl ExactSizeIterator<Item = &Edge> + '_ {
        self.edges.values()
    }

    /// All edges, mutably, in global order.
    pub fn edges_mut(&mut self) -> impl Iterator<Item = &mut Edge> + '_ {
        self.edges.values_mut()
    }

    /// Number of edges (including edges whose endpoints are not nodes).
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Outgoing edges of `source` whose target is a node, in first-insertion order.
    /// O(out-degree).
    pub fn outgoing(&self, source: Id) -> impl Iterator<Item = &Edge> + '_ {
        self.out
            .get(source.index())
            .into_iter()
            .flatten()
            .filter(move |t| self.nodes.contains_key(*t))
            .filter_map(move |&t| self.edges.get(&(source, t)))
    }

    /// Incoming edges of `target` whose source is a node, in first-insertion order.
    pub fn incoming(&self, target: Id) -> impl Iterator<Item = &Edge> + '_ {
        self.inc
            .get(target.index())
            .into_iter()
            .flatten()
            .filter(move |s| self.nodes.contains_key(*s))
            .filter_map(move |&s| self.edges.get(&(s, target)))
    }

    /// Removes the edge `source -> target`; whether it existed. O(edges).
    pub fn remove_edge(&mut self, source: Id, target: Id) -> bool {
        if self.edges.shift_remove(&(source, target)).is_none() {
            return false;
        }
        self.out[source.index()].retain(|&t| t != target);
        self.inc[target.index()].retain(|&s| s != source);
        true
    }

    /// Removes a node and every edge into or out of it. O(edges).
    pub fn remove_node(&mut self, id: Id) {
        for t in std::mem::take(&mut self.out[id.index()]) {
            self.edges.shift_remove(&(id, t));
            self.inc[t.index()].retain(|&s| s != id);
        }
        for s in std::mem::take(&mut self.inc[id.index()]) {
            self.edges.shift_remove(&(s, id));
            self.out[s.index()].retain(|&t| t != id);
        }
        self.nodes.shift_remove(&id);
    }

    /// Death (reference `Graph.consolidate`): removes every edge with |weight| <
    /// `min_weight` (0.05 in the reference), then every node with no incoming and no
    /// outgoing edge left unless `metadata.protected` is `true`. Orders are kept.
    pub fn consolidate(&mut self, min_weight: f64) -> Consolidation {
        let weak: Vec<(Id, Id)> = self
            .edges
            .iter()
            .filter(|(_, e)| e.weight.abs() < min_weight)
            .map(|(&k, _)| k)
            .collect();
        let mut done = Consolidation::default();
        for (s, t) in weak {
            if self.remove_edge(s, t) {
                done.pruned_edges += 1;
            }
        }
        let lonely: Vec<Id> = self
            .nodes
            .iter()
            .filter(|(id, n)| {
                self.out[id.index()].is_empty()
                    && self.inc[id.index()].is_empty()
                    && n.metadata.get("protected") != Some(&Value::Bool(true))
            })
            .map(|(&id, _)| id)
            .collect();
        for id in lonely {
            self.remove_node(id);
            done.pruned_nodes += 1;
        }
        done
    }

    /// Every edge as `(source, target, weight, follow_count, skip_count)` in global
    /// order: the shape of the reference traces' `weights_after`.
    pub fn weight_table(&self) -> Vec<(String, String, f64, i64, i64)> {
        self.edges()
            .map(|e| {
                (
                    self.name(e.source).to_string(),
                    self.name(e.target).to_string(),
                    e.weight,
                    e.follow_count,
                    e.skip_count,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(g: &Graph, v: impl Iterator<Item = Id>) -> Vec<String> {
        v.map(|i| g.name(i).to_string()).collect()
    }

    #[test]
    fn re_adding_an_edge_replaces_it_in_place() {
        // Reference `Graph.add_edge` (crabpath/graph.py, a424df5) as the negation builder uses
        // it (quirks log Q-NEG-BUILDER, results/reference/v2/quirks/quirks_e752b95.log):
        // 0.85 edges re-added with 0.15 keep their position.
        let mut g = Graph::new();
        for n in ["q", "a", "b"] {
            g.add_node(Node::new(n, n));
        }
        g.add_edge("q", "a", 0.85);
        g.add_edge("q", "b", 0.85);
        g.add_edge("a", "b", 0.5);
        g.add_edge("q", "a", 0.15);
        g.add_edge("q", "b", 0.15);
        let q = g.id("q").unwrap();
        let out: Vec<(String, f64)> = g
            .outgoing(q)
            .map(|e| (g.name(e.target).to_string(), e.weight))
            .collect();
        assert_eq!(out, [("a".into(), 0.15), ("b".into(), 0.15)]);
        let order: Vec<String> = g.edges().map(|e| g.name(e.target).to_string()).collect();
        assert_eq!(order, ["a", "b", "b"]);
    }

    #[test]
    fn outgoing_skips_missing_targets_and_node_replacement_keeps_order() {
        let mut g = Graph::new();
        g.add_node(Node::new("a", "1"));
        g.add_node(Node::new("b", "2"));
        g.add_edge("a", "ghost", 0.9);
        g.add_edge("a", "b", 0.5);
        g.add_node(Node::new("a", "replaced"));
        let a = g.id("a").unwrap();
        assert_eq!(names(&g, g.outgoing(a).map(|e| e.target)), ["b"]);
        assert_eq!(names(&g, g.nodes().map(|(i, _)| i)), ["a", "b"]);
        assert_eq!(g.node("a").unwrap().content, "replaced");
        assert_eq!(g.edge_count(), 2);
    }

    #[test]
    fn consolidate_prunes_weak_edges_then_lonely_unprotected_nodes() {
        let mut g = Graph::new();
        for n in ["a", "b", "c", "keep"] {
            g.add_node(Node::new(n, n));
        }
        g.node_mut(g.id("keep").unwrap())
            .unwrap()
            .metadata
            .insert("protected".into(), Value::Bool(true));
        g.add_edge("a", "b", 0.04);
        g.add_edge("a", "c", -0.05);
        let done = g.consolidate(0.05);
        assert_eq!(
            done,
            Consolidation {
                pruned_edges: 1,
                pruned_nodes: 1
            }
        );
        assert_eq!(names(&g, g.nodes().map(|(i, _)| i)), ["a", "c", "keep"]);
    }
}
