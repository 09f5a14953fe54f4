//! Synthetic random graphs for benchmarks and property tests (not part of the paper).
//!
//! Deterministic for a given seed: uses a small SplitMix64 generator so that the core
//! crate needs no RNG dependency.

use crate::graph::{Edge, Graph, Node};

/// SplitMix64: a tiny, well-known 64-bit generator (Steele, Lea & Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// Pareto scale per unit of requested mean for [`Degree::PowerLaw`] (shape 1.1, cap
/// 1000, floored): E[min(max(⌊0.1845·m·U^(−1/1.1)⌋, 1), 1000)] ≈ m for m = 8.
const POWER_LAW_SCALE: f64 = 0.1845;

/// Out-degree distribution of [`random_graph`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Degree {
    /// Every node has exactly this many out-edges.
    Uniform(usize),
    /// Power-law (Pareto tail, density exponent 2.1, floored, at least 1, capped at
    /// 1000) with this mean: the scale is calibrated so that the capped, floored draw
    /// has the requested mean (8.0 ± 0.1 for 8, over 4·10^5 draws). Before that
    /// calibration the "mean 8" graphs had ~22 out-edges per node.
    PowerLaw(usize),
}

/// A random graph of `n` nodes (`n0`, `n1`, ...) with the given out-degree
/// distribution, targets uniform over nodes, weights uniform in [−0.2, 1.0)
/// (so about 1/6 of the edges are dormant or inhibitory).
pub fn random_graph(n: usize, degree: Degree, seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let mut g = Graph::new();
    let ids: Vec<_> = (0..n)
        .map(|i| g.add_node(Node::new(format!("n{i}"), format!("chunk {i}"))))
        .collect();
    if n == 0 {
        return g;
    }
    for &s in &ids {
        let d = match degree {
            Degree::Uniform(d) => d,
            Degree::PowerLaw(mean) => {
                let u = rng.next_f64().max(1e-12);
                let xm = mean as f64 * POWER_LAW_SCALE;
                ((xm * u.powf(-1.0 / 1.1)) as usize).clamp(1, 1000)
            }
        };
        for _ in 0..d.min(n) {
            let t = ids[rng.below(n)];
            let w = -0.2 + 1.2 * rng.next_f64();
            // add_edge replaces duplicates in place; the degree is then slightly lower
            let _ = g.add_edge(s, t, Edge::new(w));
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_means_are_as_named() {
        let n = 200_000;
        let u = random_graph(n, Degree::Uniform(8), 1);
        // duplicate targets are merged, so slightly below 8
        let mean = u.edge_count() as f64 / n as f64;
        assert!((7.99..=8.0).contains(&mean), "uniform mean {mean}");
        let p = random_graph(n, Degree::PowerLaw(8), 1);
        let mean = p.edge_count() as f64 / n as f64;
        assert!((7.5..=8.5).contains(&mean), "power-law mean {mean}");
        let max = p
            .node_ids()
            .map(|i| p.outgoing(i).count())
            .max()
            .unwrap_or(0);
        assert!(
            max > 100,
            "power-law graphs have hubs (max out-degree {max})"
        );
    }
}
