//! Why a query returned what it returned (`crabpath query --explain`; not in the
//! reference): for each fired node its seed score or the path of edges that reached it
//! from a seed (each edge's tier, raw and damped weight), the inhibitory edges of fired
//! nodes that vetoed other nodes (paper §2: inhibitory edges suppress their targets),
//! and for each seed that did not fire, why.
//!
//! The explanation is computed from the traversal's own record ([`TraversalResult`]:
//! fired order, steps, final scores), so it describes the run that produced the answer.
//! A node's path follows, back to a seed, the step by which each node on it first
//! fired.

use rustc_hash::FxHashMap;

use crate::graph::{Graph, NodeId};
use crate::traverse::{Step, TraversalConfig, TraversalResult};

/// Why one node fired.
#[derive(Debug, Clone, PartialEq)]
pub struct FiredWhy {
    /// The node.
    pub node: NodeId,
    /// Its final activation score.
    pub score: f64,
    /// Its seed score, if it was a seed that fired.
    pub seed_score: Option<f64>,
    /// The steps from a seed to it (empty for a seed).
    pub path: Vec<Step>,
}

/// An inhibitory edge out of a fired node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Veto {
    /// The fired node.
    pub source: NodeId,
    /// The suppressed node.
    pub target: NodeId,
    /// The edge's weight (≤ the inhibitory threshold).
    pub weight: f64,
    /// Whether the target fired anyway (e.g. as a seed, or before the source fired).
    pub target_fired: bool,
}

/// A seed that did not fire, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unfired {
    /// The seed.
    pub node: NodeId,
    /// Its seed score.
    pub score: f64,
    /// Why it did not fire.
    pub reason: String,
}

/// The explanation of one traversal.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Fired nodes in fired order.
    pub fired: Vec<FiredWhy>,
    /// Inhibitory edges of fired nodes, in fired order then bucket order.
    pub vetoes: Vec<Veto>,
    /// Seeds that did not fire.
    pub unfired_seeds: Vec<Unfired>,
}

/// Explains `result`, the traversal of `graph` from `seeds` with `config`.
///
/// Cost: linear in the steps plus the out-degree of the fired nodes.
pub fn explain(
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    result: &TraversalResult,
    config: &TraversalConfig,
) -> Explanation {
    let scores: FxHashMap<NodeId, f64> = result.fired_scores.iter().copied().collect();
    let mut seed_score: FxHashMap<NodeId, f64> = FxHashMap::default();
    for &(n, s) in seeds {
        seed_score.insert(n, s);
    }
    // the step by which each node first fired
    let mut first_step: FxHashMap<NodeId, usize> = FxHashMap::default();
    for (i, s) in result.steps.iter().enumerate() {
        first_step.entry(s.to).or_insert(i);
    }
    let seeded = seed_block(result, &seed_score);
    let mut fired = Vec::with_capacity(result.fired.len());
    for &n in &result.fired {
        let mut path = Vec::new();
        if !seeded.contains(&n) {
            let mut cur = n;
            let mut visited = vec![n];
            while let Some(&i) = first_step.get(&cur) {
                let st = result.steps[i];
                path.push(st);
                if seeded.contains(&st.from) || visited.contains(&st.from) {
                    break;
                }
                visited.push(st.from);
                cur = st.from;
            }
            path.reverse();
        }
        fired.push(FiredWhy {
            node: n,
            score: scores.get(&n).copied().unwrap_or(0.0),
            seed_score: if seeded.contains(&n) {
                seed_score.get(&n).copied()
            } else {
                None
            },
            path,
        });
    }
    let thr = config.tiers.inhibitory;
    let is_fired = |n: NodeId| scores.contains_key(&n);
    let mut vetoes = Vec::new();
    for &f in &result.fired {
        for (t, e) in graph.outgoing(f) {
            if e.weight < 0.0 && e.weight <= thr {
                vetoes.push(Veto {
                    source: f,
                    target: t,
                    weight: e.weight,
                    target_fired: is_fired(t),
                });
            }
        }
    }
    let mut unfired_seeds = Vec::new();
    let mut done: Vec<NodeId> = Vec::new();
    for &(n, s) in seeds {
        if is_fired(n) || done.contains(&n) {
            continue;
        }
        done.push(n);
        let vetoed_by: Vec<&str> = seeds
            .iter()
            .filter(|(o, _)| *o != n)
            .filter(|(o, _)| graph.weight(*o, n).is_some_and(|w| w < 0.0 && w <= thr))
            .map(|(o, _)| graph.name(*o))
            .collect();
        let reason = if !graph.has_node(n) {
            "not a node of the graph (a stale index entry)".to_string()
        } else if !vetoed_by.is_empty() {
            format!("vetoed by inhibitory edges from {}", vetoed_by.join(", "))
        } else if s < config.fire_threshold {
            format!("score below the fire threshold {}", config.fire_threshold)
        } else {
            format!("cut by the beam width ({}) or a budget", config.beam_width)
        };
        unfired_seeds.push(Unfired {
            node: n,
            score: s,
            reason,
        });
    }
    Explanation {
        fired,
        vetoes,
        unfired_seeds,
    }
}

/// The seeds that fired as seeds: the leading block of `fired` before the first node
/// fired by a step. The traversal appends step-fired nodes in the order their first
/// step was accepted, so the block is the shortest prefix after which `fired` lists
/// exactly the step targets not in the prefix, in first-step order.
fn seed_block(result: &TraversalResult, seeds: &FxHashMap<NodeId, f64>) -> Vec<NodeId> {
    let mut targets: Vec<NodeId> = Vec::new();
    for s in &result.steps {
        if !targets.contains(&s.to) {
            targets.push(s.to);
        }
    }
    for k in 0..=result.fired.len() {
        let head = &result.fired[..k];
        if !head.iter().all(|n| seeds.contains_key(n)) {
            break;
        }
        let tail: Vec<NodeId> = targets
            .iter()
            .copied()
            .filter(|t| !head.contains(t))
            .collect();
        if tail == result.fired[k..] {
            return head.to_vec();
        }
    }
    result
        .fired
        .iter()
        .copied()
        .take_while(|n| seeds.contains_key(n))
        .collect()
}

impl Explanation {
    /// A human-readable rendering, one line per fired node, then the vetoes and the
    /// seeds that did not fire.
    pub fn render(&self, graph: &Graph) -> String {
        let mut out = Vec::new();
        if self.fired.is_empty() {
            out.push("(No matches.)".to_string());
        }
        for (i, f) in self.fired.iter().enumerate() {
            let name = graph.name(f.node);
            let why = match f.seed_score {
                Some(s) => format!("seed (similarity {s:.4})"),
                None => {
                    let mut p = String::from("via ");
                    for (k, st) in f.path.iter().enumerate() {
                        if k == 0 {
                            p.push_str(graph.name(st.from));
                        }
                        let damped = if st.effective != st.weight {
                            format!(", damped to {:.4}", st.effective)
                        } else {
                            String::new()
                        };
                        p.push_str(&format!(
                            " -[{} {:.4}{damped}]-> {}",
                            st.tier.as_str(),
                            st.weight,
                            graph.name(st.to)
                        ));
                    }
                    p
                }
            };
            out.push(format!("{:>3}. {name}  score {:.4}  {why}", i + 1, f.score));
        }
        if !self.vetoes.is_empty() {
            out.push("inhibitory edges of fired nodes:".into());
            for v in &self.vetoes {
                out.push(format!(
                    "     {} -[inhibitory {:.4}]-> {} ({})",
                    graph.name(v.source),
                    v.weight,
                    graph.name(v.target),
                    if v.target_fired {
                        "fired anyway"
                    } else {
                        "vetoed"
                    }
                ));
            }
        }
        if !self.unfired_seeds.is_empty() {
            out.push("seeds that did not fire:".into());
            for u in &self.unfired_seeds {
                out.push(format!(
                    "     {} (score {:.4}): {}",
                    graph.name(u.node),
                    u.score,
                    u.reason
                ));
            }
        }
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, Node};
    use crate::traverse::traverse;

    #[test]
    fn paths_vetoes_and_unfired_seeds() {
        let mut g = Graph::new();
        for id in ["a", "b", "c", "x", "fix"] {
            g.add_node(Node::new(id, id));
        }
        g.add_edge_by_id("a", "b", Edge::new(0.7)).unwrap();
        g.add_edge_by_id("b", "c", Edge::new(0.5)).unwrap();
        g.add_edge_by_id("a", "x", Edge::new(0.5)).unwrap();
        g.add_edge_by_id("fix", "x", Edge::new(-0.2)).unwrap();
        let id = |s: &str| g.lookup(s).unwrap();
        let seeds = vec![(id("a"), 0.9), (id("fix"), 0.5), (id("c"), 0.001)];
        let config = TraversalConfig::default();
        let r = traverse(&g, &seeds, &config).unwrap();
        let e = explain(&g, &seeds, &r, &config);
        let names: Vec<&str> = e.fired.iter().map(|f| g.name(f.node)).collect();
        assert!(!names.contains(&"x"), "{names:?}");
        let c = e.fired.iter().find(|f| g.name(f.node) == "c").unwrap();
        assert_eq!(c.path.len(), 2);
        assert_eq!(g.name(c.path[0].from), "a");
        assert_eq!(e.vetoes.len(), 1);
        assert!(!e.vetoes[0].target_fired);
        // `c` fired through `b` although its own seed score was too low
        assert!(e.unfired_seeds.is_empty());
        let text = e.render(&g);
        assert!(
            text.contains("via a -[reflex 0.7000]-> b -[habitual 0.5000]-> c"),
            "{text}"
        );
        assert!(
            text.contains("fix -[inhibitory -0.2000]-> x (vetoed)"),
            "{text}"
        );
    }
}
