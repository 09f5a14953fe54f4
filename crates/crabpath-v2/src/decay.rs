//! Exponential weight decay (reference `crabpath/decay.py::apply_decay`, commit
//! 799419b). Only the simulator decays (every 5 episodes, t = 5).

use crate::graph::Graph;

/// Decay parameters (reference defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecayConfig {
    /// Half-life H in turns (120).
    pub half_life_turns: f64,
    /// Lower clip (−5).
    pub min_weight: f64,
    /// Upper clip (+5).
    pub max_weight: f64,
}

impl Default for DecayConfig {
    fn default() -> Self {
        DecayConfig {
            half_life_turns: 120.0,
            min_weight: -5.0,
            max_weight: 5.0,
        }
    }
}

/// f(t) = 2^(−t/H) (`powf`); 0 if H ≤ 0, 1 if t ≤ 0.
pub fn decay_factor(half_life_turns: f64, elapsed_turns: f64) -> f64 {
    if half_life_turns <= 0.0 {
        return 0.0;
    }
    if elapsed_turns <= 0.0 {
        return 1.0;
    }
    2f64.powf(-elapsed_turns / half_life_turns)
}

/// Multiplies every edge weight by f(t), clipped; returns the changed edges as
/// (`"src->tgt"`, new weight) in edge order (nothing when f = 1).
pub fn apply_decay(
    graph: &mut Graph,
    elapsed_turns: f64,
    config: &DecayConfig,
) -> Vec<(String, f64)> {
    let f = decay_factor(config.half_life_turns, elapsed_turns);
    if f == 1.0 {
        return Vec::new();
    }
    let mut changed = Vec::new();
    let mut new_weights = Vec::with_capacity(graph.edge_count());
    for e in graph.edges() {
        let w = (e.weight * f).clamp(config.min_weight, config.max_weight);
        new_weights.push(w);
    }
    let mut labels = Vec::new();
    for (e, &w) in graph.edges().zip(&new_weights) {
        if w != e.weight {
            labels.push(Some(format!(
                "{}->{}",
                graph.name(e.source),
                graph.name(e.target)
            )));
        } else {
            labels.push(None);
        }
    }
    for ((e, w), label) in graph.edges_mut().zip(new_weights).zip(labels) {
        if let Some(l) = label {
            e.weight = w;
            changed.push((l, w));
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;

    #[test]
    fn two_decays_of_an_untouched_edge() {
        // Reference simulator run on giraffe_test (commit a424df5, committed trace
        // results/reference/v2/a424df5/simulator_giraffe_test.trace.json.gz): the untouched
        // elephant->guard ends at 0.55 * (2^(-5/120))^2 = 0.5191308719749315.
        let mut g = Graph::new();
        g.add_node(Node::new("a", "a"));
        g.add_node(Node::new("b", "b"));
        g.add_edge("a", "b", 0.55);
        let cfg = DecayConfig::default();
        apply_decay(&mut g, 5.0, &cfg);
        let changed = apply_decay(&mut g, 5.0, &cfg);
        assert_eq!(changed, [("a->b".to_string(), 0.5191308719749315)]);
        assert!(apply_decay(&mut g, 0.0, &cfg).is_empty());
    }
}
