//! Graph health metrics and autotune suggestions (paper §3 "health", Table 4;
//! reference `crabpath/autotune.py`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::decay::DecayConfig;
use crate::graph::{Graph, NodeId};
use crate::learn::LearningConfig;

/// Health of a graph (reference `crabpath/autotune.py::measure_health`). Fractions are in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GraphHealth {
    /// Share of edges with `w < 0.2` (negatives included).
    pub dormant_pct: f64,
    /// Share of edges with `0.2 <= w < 0.6`.
    pub habitual_pct: f64,
    /// Share of edges with `w >= 0.6`.
    pub reflex_pct: f64,
    /// Share of edges whose endpoints carry different `file` metadata.
    pub cross_file_edge_pct: f64,
    /// Nodes with no outgoing and no incoming edge to/from existing nodes.
    pub orphan_nodes: usize,
}

/// Health thresholds: fixed 0.6 / 0.2 in the reference, independent of the traversal
/// config (reference `crabpath/autotune.py::measure_health`, discrepancy C7).
pub const HEALTH_REFLEX: f64 = 0.6;
/// Lower bound of "habitual" in health metrics.
pub const HEALTH_HABITUAL: f64 = 0.2;

/// Measures health over all stored edges (reference `crabpath/autotune.py::measure_health`).
pub fn measure_health(graph: &Graph) -> GraphHealth {
    measure_health_of(graph, |_| true).0
}

/// [`measure_health`] of the part of `graph` whose nodes `keep` accepts: its nodes, and
/// the edges between two of them (a stored edge whose target is no node counts when
/// `keep` accepts its id, as [`measure_health`] counts every stored edge); also the
/// number of nodes kept, which the autotuner's rules read ([`autotune_for`]). With
/// every node kept it is [`measure_health`], bit for bit. The served brain's autotuner
/// leaves its question nodes out (`crabpath-brain`'s `service::command::autotune`), so
/// that how many questions were asked does not move the tuning of the content.
///
/// Cost: O(V + E) calls of `keep` and edge visits.
pub fn measure_health_of(graph: &Graph, keep: impl Fn(NodeId) -> bool) -> (GraphHealth, usize) {
    let nodes = graph.node_ids().filter(|&n| keep(n)).count();
    let orphan_nodes = graph
        .node_ids()
        .filter(|&n| {
            keep(n) && !graph.outgoing(n).any(|(t, _)| keep(t)) && !has_incoming(graph, n, &keep)
        })
        .count();
    // `file` metadata per symbol, looked up once (nodes only; dangling ids have none)
    let mut files: Vec<Option<&Value>> = vec![None; graph.symbol_count()];
    for (id, node) in graph.nodes() {
        files[id.index()] = node.metadata.get("file").filter(|v| !v.is_null());
    }
    let (mut reflex, mut habitual, mut dormant, mut cross) = (0usize, 0usize, 0usize, 0usize);
    let mut edges = 0usize;
    for (s, t, e) in graph.edges() {
        if !(keep(s) && keep(t)) {
            continue;
        }
        edges += 1;
        let w = e.weight;
        if w >= HEALTH_REFLEX {
            reflex += 1;
        } else if w >= HEALTH_HABITUAL {
            habitual += 1;
        } else {
            dormant += 1;
        }
        if let (Some(a), Some(b)) = (files[s.index()], files[t.index()]) {
            if a != b {
                cross += 1;
            }
        }
    }
    if edges == 0 {
        let none = GraphHealth {
            dormant_pct: 0.0,
            habitual_pct: 0.0,
            reflex_pct: 0.0,
            cross_file_edge_pct: 0.0,
            orphan_nodes: nodes,
        };
        return (none, nodes);
    }
    let n = edges as f64;
    let health = GraphHealth {
        dormant_pct: dormant as f64 / n,
        habitual_pct: habitual as f64 / n,
        reflex_pct: reflex as f64 / n,
        cross_file_edge_pct: cross as f64 / n,
        orphan_nodes,
    };
    (health, nodes)
}

fn has_incoming(graph: &Graph, n: NodeId, keep: &impl Fn(NodeId) -> bool) -> bool {
    graph
        .sources_of(n)
        .iter()
        .any(|&s| keep(s) && graph.has_node(s) && graph.edge(s, n).is_some())
}

/// One autotune suggestion, serialized as the reference writes it
/// (`{knob, suggested_adjustment, value, reason}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Knob name: `half_life`, `promotion_threshold`, `hebbian_increment`.
    pub knob: String,
    /// `increase` or `decrease`.
    pub suggested_adjustment: String,
    /// Amount (integer for half-life, fraction otherwise).
    pub value: Value,
    /// Human-readable rationale (the text of reference `crabpath/autotune.py::autotune`).
    pub reason: String,
}

fn suggestion(knob: &str, adj: &str, value: Value, reason: &str) -> Suggestion {
    Suggestion {
        knob: knob.into(),
        suggested_adjustment: adj.into(),
        value,
        reason: reason.into(),
    }
}

/// Autotune rules in the reference's order (reference `crabpath/autotune.py::autotune`);
/// several may fire. `config` only picks the direction of the first rule
/// ([`AutotuneConfig::dormant_slows_decay`]).
pub fn autotune(graph: &Graph, health: &GraphHealth, config: &AutotuneConfig) -> Vec<Suggestion> {
    autotune_for(graph.node_count(), health, config)
}

/// [`autotune`] for a graph of `nodes` nodes (the only thing its rules read of the
/// graph): the part [`measure_health_of`] measured.
pub fn autotune_for(
    nodes: usize,
    health: &GraphHealth,
    config: &AutotuneConfig,
) -> Vec<Suggestion> {
    let mut out = Vec::new();
    if health.dormant_pct > 0.65 {
        out.push(suggestion(
            "half_life",
            if config.dormant_slows_decay {
                "increase"
            } else {
                "decrease"
            },
            Value::from(10),
            "Many dormant edges; slow decay to preserve low-signal paths longer.",
        ));
        out.push(suggestion(
            "promotion_threshold",
            "decrease",
            Value::from(0.05),
            "Promote more edges from dormant into habitual processing.",
        ));
    }
    if health.habitual_pct < 0.2 {
        out.push(suggestion(
            "hebbian_increment",
            "increase",
            Value::from(0.02),
            "Few habitual pathways; strengthen co-firing structure faster.",
        ));
    }
    if health.reflex_pct > 0.8 {
        out.push(suggestion(
            "half_life",
            "increase",
            Value::from(15),
            "Predominantly reflex traffic; relax decay to avoid over-pruning.",
        ));
    }
    if (health.orphan_nodes as f64) > 0.2 * nodes as f64 {
        out.push(suggestion(
            "promotion_threshold",
            "decrease",
            Value::from(0.02),
            "Many orphan nodes; lower threshold to reconnect exploration.",
        ));
    }
    if health.cross_file_edge_pct < 0.1 && nodes > 1 {
        out.push(suggestion(
            "promotion_threshold",
            "decrease",
            Value::from(0.05),
            "Promote more dormant edges and increase cross-file exploration.",
        ));
    }
    out
}

/// How suggestions are applied (reference `crabpath/autotune.py::apply_autotune`). The
/// reference's bounds and bugs are the default; [`AutotuneConfig::corrected`] uses the
/// paper's bounds and fixes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AutotuneConfig {
    /// Half-life clamp (reference [10, 500]; paper [20, 200]).
    pub half_life_bounds: (f64, f64),
    /// Upper bound of `hebbian_increment` (reference none; paper 0.12).
    pub hebbian_cap: Option<f64>,
    /// Lower bound of `promotion_threshold` (reference 1; paper 2).
    pub promotion_floor: i64,
    /// Move the integer threshold by at least one step in the suggested direction
    /// (reference: round-half-even of `p ± 0.05`, which never changes it).
    pub promotion_whole_steps: bool,
    /// Keep the decay `min_weight` (reference resets it to 0.01, a bug).
    pub keep_min_weight: bool,
    /// "Many dormant edges" lengthens the half-life by 10, as the rule's own reason says
    /// ("slow decay to preserve low-signal paths longer"); the reference shortens it,
    /// which speeds decay and drives a dead brain's half-life to its floor
    /// (`sims::autotune_study`: the round-30 dormant share falls by more than 0.01 in
    /// 122/200 seeds with the reference's direction, 200/200 with this one).
    pub dormant_slows_decay: bool,
}

impl Default for AutotuneConfig {
    fn default() -> Self {
        AutotuneConfig {
            half_life_bounds: (10.0, 500.0),
            hebbian_cap: None,
            promotion_floor: 1,
            promotion_whole_steps: false,
            keep_min_weight: false,
            dormant_slows_decay: false,
        }
    }
}

impl AutotuneConfig {
    /// Paper bounds ([`crate::tuning::SAFETY_BOUNDS`], seed 002 §5.3), bugs fixed.
    pub fn corrected() -> Self {
        use crate::tuning::{bound, Knob};
        let half_life = bound(Knob::HalfLife);
        AutotuneConfig {
            half_life_bounds: (
                half_life.min.unwrap_or(f64::NEG_INFINITY),
                half_life.max.unwrap_or(f64::INFINITY),
            ),
            hebbian_cap: bound(Knob::HebbianIncrement).max,
            promotion_floor: bound(Knob::PromotionThreshold)
                .min
                .map_or(i64::MIN, |m| m as i64),
            promotion_whole_steps: true,
            keep_min_weight: true,
            dormant_slows_decay: true,
        }
    }
}

/// Python's `round()` for the values that occur: round half to even.
pub fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    }
}

/// Applies well-formed suggestions to copies of the configs (reference
/// `crabpath/autotune.py::apply_autotune`).
pub fn apply_autotune(
    suggestions: &[Suggestion],
    decay: &DecayConfig,
    learning: &LearningConfig,
    config: &AutotuneConfig,
) -> (DecayConfig, LearningConfig) {
    let (mut d, mut l) = (*decay, learning.clone());
    for s in suggestions {
        let sign = match s.suggested_adjustment.as_str() {
            "increase" => 1.0,
            "decrease" => -1.0,
            _ => continue,
        };
        let Some(v) = s.value.as_f64().filter(|v| v.is_finite()) else {
            continue;
        };
        let delta = sign * v;
        match s.knob.as_str() {
            "half_life" => {
                let (lo, hi) = config.half_life_bounds;
                d = DecayConfig {
                    half_life: round_half_even(d.half_life + delta).clamp(lo, hi),
                    min_weight: if config.keep_min_weight {
                        d.min_weight
                    } else {
                        0.01
                    },
                };
            }
            "hebbian_increment" => {
                let h = l.hebbian_increment + delta;
                l.hebbian_increment = config.hebbian_cap.map_or(h, |c| h.min(c));
            }
            "promotion_threshold" => {
                let p = l.promotion_threshold as f64;
                let new = if config.promotion_whole_steps {
                    p + sign
                } else {
                    round_half_even(p + delta)
                };
                l.promotion_threshold = (new as i64).max(config.promotion_floor);
            }
            _ => {}
        }
    }
    (d, l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, Node};

    #[test]
    fn health_counts_and_orphans() {
        let mut g = Graph::new();
        let a = g.add_node(Node::new("a", "A").with_meta("file", "x.md"));
        let b = g.add_node(Node::new("b", "B").with_meta("file", "y.md"));
        let c = g.add_node(Node::new("c", "C"));
        let _d = g.add_node(Node::new("d", "D"));
        g.add_edge(a, b, Edge::new(0.7)).unwrap();
        g.add_edge(b, a, Edge::new(0.3)).unwrap();
        g.add_edge(c, c, Edge::new(-0.5)).unwrap();
        g.add_edge_by_id("a", "ghost", Edge::new(0.1)).unwrap();
        let h = measure_health(&g);
        assert_eq!(h.reflex_pct, 0.25);
        assert_eq!(h.habitual_pct, 0.25);
        assert_eq!(h.dormant_pct, 0.5);
        assert_eq!(h.cross_file_edge_pct, 0.5);
        assert_eq!(h.orphan_nodes, 1); // d only: a self-loop makes c non-orphan
    }

    #[test]
    fn health_of_a_part_leaves_out_its_nodes_and_their_edges() {
        // the graph of `health_counts_and_orphans`, plus a question-like node `q` with
        // two dormant edges to content; measured without it, as the test above
        let mut g = Graph::new();
        let a = g.add_node(Node::new("a", "A").with_meta("file", "x.md"));
        let b = g.add_node(Node::new("b", "B").with_meta("file", "y.md"));
        let c = g.add_node(Node::new("c", "C"));
        let _d = g.add_node(Node::new("d", "D"));
        let q = g.add_node(Node::new("q", "Q"));
        g.add_edge(a, b, Edge::new(0.7)).unwrap();
        g.add_edge(b, a, Edge::new(0.3)).unwrap();
        g.add_edge(c, c, Edge::new(-0.5)).unwrap();
        g.add_edge_by_id("a", "ghost", Edge::new(0.1)).unwrap();
        g.add_edge(q, a, Edge::new(0.15)).unwrap();
        g.add_edge(q, _d, Edge::new(0.09)).unwrap();
        let all = measure_health(&g);
        // with q: 6 edges, 4 dormant of them; d has an incoming edge, so no orphan
        assert_eq!((all.dormant_pct, all.orphan_nodes), (4.0 / 6.0, 0));
        assert_eq!(all.reflex_pct, 1.0 / 6.0);
        let (part, nodes) = measure_health_of(&g, |n| n != q);
        assert_eq!(nodes, 4);
        assert_eq!(part.reflex_pct, 0.25);
        assert_eq!(part.habitual_pct, 0.25);
        assert_eq!(part.dormant_pct, 0.5);
        assert_eq!(part.cross_file_edge_pct, 0.5);
        assert_eq!(part.orphan_nodes, 1, "d again: its only edge was q's");
        // every node kept: measure_health, bit for bit
        assert_eq!(measure_health_of(&g, |_| true), (all, 5));
        // the rules read the part's node count: 1 orphan of 4 is over 20 %
        let rules = autotune_for(nodes, &part, &AutotuneConfig::corrected());
        assert!(rules
            .iter()
            .any(|s| s.reason.starts_with("Many orphan nodes")));
    }

    #[test]
    fn autotune_reference_rules_and_bugs() {
        let mut g = Graph::new();
        for i in 0..3 {
            g.add_node(Node::new(format!("n{i}"), "x"));
        }
        g.add_edge_by_id("n0", "n1", Edge::new(0.0)).unwrap();
        let h = measure_health(&g);
        let s = autotune(&g, &h, &AutotuneConfig::default());
        let knobs: Vec<_> = s.iter().map(|x| x.knob.as_str()).collect();
        assert_eq!(
            knobs,
            [
                "half_life",
                "promotion_threshold",
                "hebbian_increment",
                "promotion_threshold",
                "promotion_threshold"
            ]
        );
        let decay = DecayConfig {
            half_life: 80.0,
            min_weight: 0.05,
        };
        let (d, l) = apply_autotune(
            &s,
            &decay,
            &LearningConfig::default(),
            &AutotuneConfig::default(),
        );
        assert_eq!(d.half_life, 70.0);
        assert_eq!(d.min_weight, 0.01, "reference bug: min_weight reset");
        assert_eq!(
            l.promotion_threshold, 2,
            "reference: promotion suggestions are no-ops"
        );
        assert!((l.hebbian_increment - 0.08).abs() < 1e-12);
        let (d, l) = apply_autotune(
            &s,
            &decay,
            &LearningConfig::default(),
            &AutotuneConfig::corrected(),
        );
        assert_eq!(d.min_weight, 0.05);
        assert_eq!(l.promotion_threshold, 2, "paper floor");
        // Corrected: the dormant rule slows decay, as its reason says (80 + 10).
        let corrected = autotune(&g, &h, &AutotuneConfig::corrected());
        assert_eq!(corrected[0].suggested_adjustment, "increase");
        let (d, _) = apply_autotune(
            &corrected,
            &decay,
            &LearningConfig::default(),
            &AutotuneConfig::corrected(),
        );
        assert_eq!(d.half_life, 90.0);
    }

    #[test]
    fn python_rounding() {
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        assert_eq!(round_half_even(1.95), 2.0);
        assert_eq!(round_half_even(-0.5), -0.0);
    }
}
