//! The legacy leaky integrate-and-fire engine, only as far as neurogenesis needs it: the
//! adapter's query orchestration (reference `crabpath/adapter.py::query`, commit
//! b028ad9) runs LIF activation and STDP learning (`crabpath/activation.py`), not v2
//! traversal. No seed-000 experiment uses this path.

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use serde_json::{json, Value};

use crate::graph::{Graph, Id, Node};
use crate::learning::neumaier_sum;
use crate::neurogenesis::{assess_novelty, auto_id, connect_new_node, Novelty, NoveltyConfig};

/// Energy given to memory-search ids and to a new auto node (0.25).
pub const MEMORY_SEARCH_ENERGY: f64 = 0.25;
/// Weight of the edges from the query's seeds to a new auto node (0.15).
pub const SEED_CONNECTION_WEIGHT: f64 = 0.15;
/// Outcome of the adapter's light auto-learning (0.1).
pub const AUTO_LEARN_OUTCOME: f64 = 0.1;

/// Result of one activation pass.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Firing {
    /// Fired nodes and their energy at firing, energy-descending (stable), top-k.
    pub fired: Vec<(Id, f64)>,
    /// Ids driven below 0, sorted by name.
    pub inhibited: Vec<String>,
    /// Rounds in which something fired.
    pub steps: usize,
    /// Round in which each (non-inhibited) fired node fired.
    pub fired_at: FxHashMap<Id, usize>,
}

/// LIF activation parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActivationConfig {
    /// Rounds (3).
    pub max_steps: usize,
    /// Leak of unfired positive potentials per round (0.1).
    pub leak: f64,
    /// Fired nodes returned (the adapter passes its top_k).
    pub top_k: usize,
    /// Zero all potentials first (the adapter does not).
    pub reset: bool,
    /// Trace decay per call (0.1).
    pub trace_decay: f64,
}

/// One activation pass (reference `activate`): decay traces, inject seed energy, then
/// fire nodes whose potential reaches their threshold, in graph node order, for up to
/// `max_steps` rounds.
pub fn activate(graph: &mut Graph, seeds: &[(Id, f64)], cfg: &ActivationConfig) -> Firing {
    for (_, n) in graph.nodes_mut() {
        n.trace *= 1.0 - cfg.trace_decay;
        if cfg.reset {
            n.potential = 0.0;
        }
    }
    for &(id, energy) in seeds {
        if let Some(n) = graph.node_mut(id) {
            n.potential += energy;
        }
    }
    let mut fired: IndexMap<Id, f64, FxBuildHasher> = IndexMap::default();
    let mut fired_at: FxHashMap<Id, usize> = FxHashMap::default();
    let mut inhibited: FxHashSet<Id> = FxHashSet::default();
    let mut steps = 0;
    for step in 0..cfg.max_steps {
        let to_fire: Vec<Id> = graph
            .nodes()
            .filter(|(id, n)| !fired.contains_key(id) && n.potential >= n.threshold)
            .map(|(id, _)| id)
            .collect();
        if to_fire.is_empty() {
            break;
        }
        steps = step + 1;
        for id in to_fire {
            let signal = graph.node_by_id(id).map_or(0.0, |n| n.potential);
            fired.insert(id, signal);
            fired_at.insert(id, step);
            let out: Vec<(Id, f64)> = graph.outgoing(id).map(|e| (e.target, e.weight)).collect();
            if let Some(n) = graph.node_mut(id) {
                n.trace = signal;
            }
            for (t, w) in out {
                if let Some(tn) = graph.node_mut(t) {
                    tn.potential += w * signal;
                    if tn.potential < 0.0 {
                        inhibited.insert(t);
                    }
                }
            }
            if let Some(n) = graph.node_mut(id) {
                n.potential = 0.0;
            }
        }
        for (id, n) in graph.nodes_mut() {
            if !fired.contains_key(&id) && n.potential > 0.0 {
                n.potential *= 1.0 - cfg.leak;
            }
        }
    }
    for id in &inhibited {
        fired.shift_remove(id);
        fired_at.remove(id);
    }
    let mut ranked: Vec<(Id, f64)> = fired.into_iter().collect();
    ranked.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    ranked.truncate(cfg.top_k);
    let mut inhibited: Vec<String> = inhibited
        .iter()
        .map(|&i| graph.name(i).to_string())
        .collect();
    inhibited.sort();
    Firing {
        fired: ranked,
        inhibited,
        steps,
        fired_at,
    }
}

/// STDP learning over every ordered pair of fired nodes (reference `learn`): timing
/// 1/(1+Δ) for Δ > 0, −0.5/(1+|Δ|) for Δ < 0, 0.5 for Δ = 0; existing edges move by
/// rate·outcome·timing (clipped to ±10); a missing edge is created with half that when
/// its magnitude exceeds 0.05, at most 10, strongest first. Returns the edges created.
pub fn stdp_learn(graph: &mut Graph, firing: &Firing, outcome: f64, rate: f64) -> usize {
    let ids: Vec<Id> = firing.fired.iter().map(|f| f.0).collect();
    let fa = &firing.fired_at;
    let mut new_edges: Vec<(f64, Id, Id, f64)> = Vec::new();
    for &s in &ids {
        for &t in &ids {
            if s == t {
                continue;
            }
            let timing = match (fa.get(&s), fa.get(&t)) {
                (Some(&a), Some(&b)) if !fa.is_empty() => {
                    let dt = b as f64 - a as f64;
                    if dt > 0.0 {
                        1.0 / (1.0 + dt)
                    } else if dt < 0.0 {
                        -0.5 / (1.0 + dt.abs())
                    } else {
                        0.5
                    }
                }
                _ => 1.0,
            };
            if let Some(e) = graph.edge_mut(s, t) {
                e.weight = (e.weight + rate * outcome * timing).clamp(-10.0, 10.0);
            } else {
                let w = rate * outcome * timing * 0.5;
                if w.abs() > 0.05 {
                    new_edges.push((w.abs(), s, t, w));
                }
            }
        }
    }
    new_edges.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    new_edges.truncate(10);
    let n = new_edges.len();
    for (_, s, t, w) in new_edges {
        let (s, t) = (graph.name(s).to_string(), graph.name(t).to_string());
        graph.add_edge(&s, &t, w.clamp(-10.0, 10.0));
    }
    n
}

/// Cosine of dense vectors with Python 3.12 sums (reference `embeddings._cosine`).
pub fn dense_cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot = neumaier_sum(a.iter().zip(b).map(|(x, y)| x * y));
    let na = neumaier_sum(a.iter().map(|x| x * x)).sqrt();
    let nb = neumaier_sum(b.iter().map(|x| x * x)).sqrt();
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na * nb)
}

/// The adapter's embedding index: node id → vector, in insertion order.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    /// The vectors.
    pub vectors: IndexMap<String, Vec<f64>>,
}

impl VectorIndex {
    /// Embeds every node (summary or content, as [`crate::embed::embedded_text`]).
    pub fn build(graph: &Graph, embed: &dyn Fn(&str) -> Vec<f64>) -> VectorIndex {
        VectorIndex {
            vectors: graph
                .nodes()
                .map(|(_, n)| (n.id.clone(), embed(&crate::embed::embedded_text(n))))
                .collect(),
        }
    }

    /// Every node's cosine with the query, stable-sorted descending, top `k`.
    pub fn raw_scores(&self, query: &[f64], k: usize) -> Vec<(String, f64)> {
        let mut s: Vec<(String, f64)> = self
            .vectors
            .iter()
            .map(|(id, v)| (id.clone(), dense_cosine(query, v)))
            .collect();
        s.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        s.truncate(k);
        s
    }

    /// Seed energies (reference `EmbeddingIndex.seed`): nodes with cosine ≥ 0.25, top
    /// `k`, scaled so that the best gets 2.0.
    pub fn seed(&self, query: &[f64], k: usize) -> Vec<(String, f64)> {
        let mut s: Vec<(String, f64)> = self
            .raw_scores(query, usize::MAX)
            .into_iter()
            .filter(|x| x.1 >= 0.25)
            .collect();
        s.truncate(k);
        let Some(top) = s.first().map(|x| x.1) else {
            return Vec::new();
        };
        s.into_iter().map(|(id, v)| (id, (v / top) * 2.0)).collect()
    }
}

/// What [`adapter_query`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryOutcome {
    /// The gate's verdict.
    pub novelty: Novelty,
    /// The auto node's id when the gate said novel.
    pub auto_node: Option<String>,
    /// Whether the auto node was created by this call.
    pub created: bool,
    /// The activation.
    pub firing: Firing,
    /// Edges created by the auto-learning (0 with the reference's outcome 0.1).
    pub learned_edges: usize,
}

/// The adapter's query with automatic neurogenesis (V2 engine commit b028ad9): seeds from
/// the index and memory-search ids, the novelty gate on the raw top-1, an auto node
/// (threshold 0.8, probationary metadata, `now` as timestamp) connected from every seed
/// with weight 0.15 and seeded with 0.25, LIF activation (3 rounds, leak 0.1, no reset)
/// and STDP with outcome 0.1 if the auto node fired.
#[allow(clippy::too_many_arguments)]
pub fn adapter_query(
    graph: &mut Graph,
    index: &mut VectorIndex,
    embed: &dyn Fn(&str) -> Vec<f64>,
    query: &str,
    memory_search_ids: &[&str],
    top_k: usize,
    config: &NoveltyConfig,
    now: f64,
) -> QueryOutcome {
    let q = embed(query);
    let mut seeds: IndexMap<String, f64> = IndexMap::new();
    if !index.vectors.is_empty() {
        seeds.extend(index.seed(&q, top_k));
    }
    for id in memory_search_ids {
        if graph.node(id).is_some() {
            let e = seeds.entry(id.to_string()).or_insert(0.0);
            *e = e.max(MEMORY_SEARCH_ENERGY);
        }
    }
    let raw = if index.vectors.is_empty() {
        Vec::new()
    } else {
        index.raw_scores(&q, top_k)
    };
    let novelty = assess_novelty(query, raw.first().map(|r| r.1), config);
    let (mut auto_node, mut created) = (None, false);
    if novelty.should_create {
        let id = auto_id(query);
        let node_id = match graph.id(&id).filter(|&i| graph.contains(i)) {
            Some(i) => {
                let n = graph.node_mut(i).expect("present");
                let count = n
                    .metadata
                    .get("auto_seed_count")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                n.metadata.insert("auto_probationary".into(), json!(true));
                n.metadata
                    .insert("auto_seed_count".into(), json!(count + 1));
                i
            }
            None => {
                created = true;
                let mut n = Node::new(id.clone(), query.trim());
                n.threshold = 0.8;
                for (k, v) in [
                    ("source", json!("auto")),
                    ("created_ts", json!(now)),
                    ("auto_probationary", json!(true)),
                    ("auto_seed_count", json!(1)),
                ] {
                    n.metadata.insert(k.into(), v);
                }
                graph.add_node(n)
            }
        };
        let n = graph.node_mut(node_id).expect("present");
        n.metadata.insert("last_seen_ts".into(), json!(now));
        let content = n.content.clone();
        index.vectors.insert(id.clone(), embed(&content));
        let seed_ids: Vec<String> = seeds.keys().cloned().collect();
        connect_new_node(graph, &id, &seed_ids, SEED_CONNECTION_WEIGHT);
        let e = seeds.entry(id.clone()).or_insert(0.0);
        *e = e.max(MEMORY_SEARCH_ENERGY);
        auto_node = Some(id);
    }
    let seed_ids: Vec<(Id, f64)> = seeds
        .iter()
        .filter_map(|(k, &v)| graph.id(k).map(|i| (i, v)))
        .collect();
    let firing = activate(
        graph,
        &seed_ids,
        &ActivationConfig {
            max_steps: 3,
            leak: 0.1,
            top_k,
            reset: false,
            trace_decay: 0.1,
        },
    );
    let mut learned_edges = 0;
    if let Some(id) = &auto_node {
        if firing.fired.iter().any(|f| graph.name(f.0) == id) {
            learned_edges = stdp_learn(graph, &firing, AUTO_LEARN_OUTCOME, 0.1);
        }
    }
    QueryOutcome {
        novelty,
        auto_node,
        created,
        firing,
        learned_edges,
    }
}
