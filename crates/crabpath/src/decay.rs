//! Exponential weight decay with snapping of small weights to zero (paper §3 "decay";
//! reference `crabpath/decay.py::apply_decay`).

use serde::{Deserialize, Serialize};

use crate::graph::{Graph, NodeId};

/// Decay parameters (reference `crabpath/decay.py::apply_decay`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DecayConfig {
    /// Half-life in decay calls (the reference stores an integer).
    pub half_life: f64,
    /// Weights whose magnitude falls below this after decay snap to 0.0.
    pub min_weight: f64,
}

impl Default for DecayConfig {
    fn default() -> Self {
        DecayConfig {
            half_life: 80.0,
            min_weight: 0.01,
        }
    }
}

impl DecayConfig {
    /// The per-call factor `0.5^(1/half_life)`.
    pub fn factor(&self) -> f64 {
        0.5f64.powf(1.0 / self.half_life)
    }
}

/// Decays every edge once (reference `crabpath/decay.py::apply_decay`): `new = old ·
/// 0.5^(1/h)`, `|new| < min_weight` → 0.0. Returns the number of edges whose weight
/// changed.
pub fn apply_decay(graph: &mut Graph, config: &DecayConfig) -> usize {
    apply_decay_with(graph, config, |_| false, |_| 1.0)
}

/// [`apply_decay`] with per-source control (maintenance, reference
/// `crabpath/maintain.py::run_maintenance`): buckets whose source is `skip`ped are left
/// alone; a source's half-life is multiplied by `scale(source)` (buckets with scale ≤ 0 are
/// skipped; non-finite scale counts as 1).
pub fn apply_decay_with(
    graph: &mut Graph,
    config: &DecayConfig,
    skip: impl Fn(NodeId) -> bool,
    scale: impl Fn(NodeId) -> f64,
) -> usize {
    if config.half_life.is_nan() || config.half_life <= 0.0 {
        return 0;
    }
    let base = config.factor();
    let sources: Vec<NodeId> = graph.sources().collect();
    let mut changed = 0;
    for s in sources {
        if skip(s) {
            continue;
        }
        let mut sc = scale(s);
        if !sc.is_finite() {
            sc = 1.0;
        }
        if sc <= 0.0 {
            continue;
        }
        let factor = if sc == 1.0 {
            base
        } else {
            0.5f64.powf(1.0 / (config.half_life * sc))
        };
        if let Some(edges) = graph.bucket_mut(s) {
            for (_, e) in edges {
                let old = e.weight;
                let mut new = old * factor;
                if new.abs() < config.min_weight {
                    new = 0.0;
                }
                if new != old {
                    e.weight = new;
                    changed += 1;
                }
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, Node};

    /// Decay factors `0.5^(1/h)` of reference `crabpath/decay.py::apply_decay`.
    #[test]
    fn factors_match_spec() {
        let f = |h: f64| {
            DecayConfig {
                half_life: h,
                min_weight: 0.01,
            }
            .factor()
        };
        assert_eq!(f(4.0), 0.8408964152537145);
        assert_eq!(f(10.0), 0.9330329915368074);
        assert_eq!(f(12.0), 0.9438743126816935);
        assert_eq!(f(20.0), 0.9659363289248456);
        assert_eq!(f(80.0), 0.9913730874626621);
        assert_eq!(f(100.0), 0.9930924954370359);
        assert_eq!(0.01 * f(80.0), 0.00991373087462662);
    }

    /// 0.36 decayed 50 times with h = 20, iterated as reference `crabpath/decay.py::apply_decay`
    /// does (never the closed form).
    #[test]
    fn iterated_decay_individuation_identity() {
        let mut g = Graph::new();
        let a = g.add_node(Node::new("a", "A"));
        let b = g.add_node(Node::new("b", "B"));
        g.add_edge(a, b, Edge::new(0.36)).unwrap();
        let cfg = DecayConfig {
            half_life: 20.0,
            min_weight: 0.01,
        };
        for _ in 0..50 {
            apply_decay(&mut g, &cfg);
        }
        assert_eq!(g.weight(a, b), Some(0.06363961030678943));
    }

    #[test]
    fn snaps_min_weight_and_skips() {
        let mut g = Graph::new();
        let a = g.add_node(Node::new("a", "A"));
        let b = g.add_node(Node::new("b", "B"));
        g.add_edge(a, b, Edge::new(0.01)).unwrap();
        g.add_edge(b, a, Edge::new(-0.5)).unwrap();
        let n = apply_decay_with(&mut g, &DecayConfig::default(), |s| s == b, |_| 1.0);
        assert_eq!(n, 1);
        assert_eq!(g.weight(a, b), Some(0.0));
        assert_eq!(g.weight(b, a), Some(-0.5));
        assert_eq!(
            apply_decay(
                &mut g,
                &DecayConfig {
                    half_life: 0.0,
                    min_weight: 0.01
                }
            ),
            0
        );
    }
}
