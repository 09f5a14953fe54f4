//! The random "forced-target" graphs of pg_vs_heuristic, noise_robustness,
//! static_vs_learning and scaling_analysis (reference
//! `sims/pg_vs_heuristic.py`, `noise_robustness.py`, `static_vs_learning.py`,
//! `scaling_analysis.py`; fixtures in `tests/it/learning_sims.rs`),
//! and the one random source they draw from.
//!
//! For each node in order, its target list starts with the next node of the correct
//! path (the last path node points back to the first; other nodes get none), then is
//! filled by `choice(all ids)`, skipping self and duplicates, up to `k` targets; the
//! edges are added at 0.4 in list order.

use anyhow::Result;
use crabpath::{Edge, Graph, Node, NodeId, Profile, TraversalConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sim::PAPER_SEED;

/// A random source: CPython's MT19937 for the paper profile, ChaCha8 for corrected runs.
pub enum SimRng {
    /// `random.Random(seed)`, bit-exact.
    Python(Box<pyrand::Random>),
    /// `ChaCha8Rng::seed_from_u64(seed)` on a given stream.
    ChaCha(Box<ChaCha8Rng>),
}

impl SimRng {
    /// The paper profile's generator (always seeded as the reference does).
    pub fn python() -> Self {
        SimRng::Python(Box::new(pyrand::Random::new(PAPER_SEED)))
    }

    /// A ChaCha8 generator; distinct `stream`s give independent sequences for one seed.
    pub fn chacha(seed: u64, stream: u64) -> Self {
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        r.set_stream(stream);
        SimRng::ChaCha(Box::new(r))
    }

    /// The profile's generator: MT19937(42) for `paper`, ChaCha8(`seed`, `stream`) else.
    pub fn for_profile(profile: Profile, seed: u64, stream: u64) -> Self {
        match profile {
            Profile::Paper => Self::python(),
            Profile::Corrected => Self::chacha(seed, stream),
        }
    }

    /// `choice` over a sequence of length `len`: the picked index.
    pub fn choice_index(&mut self, len: usize) -> usize {
        match self {
            SimRng::Python(r) => r.choice_index(len),
            SimRng::ChaCha(r) => r.gen_range(0..len),
        }
    }

    /// A uniform float in [0, 1).
    pub fn random(&mut self) -> f64 {
        match self {
            SimRng::Python(r) => r.random(),
            SimRng::ChaCha(r) => r.gen::<f64>(),
        }
    }
}

/// The target lists (by index into `ids`) of the forced-target construction.
pub fn target_lists(n_ids: usize, path_len: usize, k: usize, rng: &mut SimRng) -> Vec<Vec<usize>> {
    (0..n_ids)
        .map(|i| {
            let mut targets = Vec::with_capacity(k);
            if i < path_len {
                targets.push((i + 1) % path_len);
            }
            while targets.len() < k {
                let t = rng.choice_index(n_ids);
                if t != i && !targets.contains(&t) {
                    targets.push(t);
                }
            }
            targets
        })
        .collect()
}

/// Builds the graph: nodes in order with the given contents, edges at 0.4. The first
/// `path_len` ids are the correct path.
pub fn build(
    ids: &[String],
    content: impl Fn(&str) -> String,
    path_len: usize,
    k: usize,
    rng: &mut SimRng,
) -> Result<Graph> {
    let mut g = Graph::new();
    let nodes: Vec<_> = ids
        .iter()
        .map(|id| g.add_node(Node::new(id.clone(), content(id))))
        .collect();
    for (i, targets) in target_lists(ids.len(), path_len, k, rng)
        .into_iter()
        .enumerate()
    {
        for t in targets {
            g.add_edge(nodes[i], nodes[t], Edge::new(0.4))?;
        }
    }
    Ok(g)
}

/// A scenario's node ids: its correct path, then `extra` filler nodes `<prefix>_00`,
/// `<prefix>_01`, … (the reference's insertion order).
pub fn node_ids(path: &[&str], prefix: &str, extra: usize) -> Vec<String> {
    let mut v: Vec<String> = path.iter().map(|s| s.to_string()).collect();
    v.extend((0..extra).map(|i| format!("{prefix}_{i:02}")));
    v
}

/// A scenario's graph: [`build`] over `ids` with the default node content and the
/// profile's generator for `seed` (stream 0), as the reference builds it after seeding.
pub fn build_scenario(
    ids: &[String],
    path_len: usize,
    targets: usize,
    profile: Profile,
    seed: u64,
) -> Result<Graph> {
    build(
        ids,
        super::common::default_content,
        path_len,
        targets,
        &mut SimRng::for_profile(profile, seed, 0),
    )
}

/// The query settings every forced-target sim uses (reference
/// `sims/pg_vs_heuristic.py`, `noise_robustness.py`, `static_vs_learning.py`,
/// `scaling_analysis.py`): 4 hops,
/// beam 1, habitual 0.2–0.8, with the profile's switches.
pub fn query_config(profile: Profile) -> TraversalConfig {
    super::common::query_config(profile, 4, 1)
}

/// The correct path's edges as `"a->b"` keys with their endpoints resolved in `g`.
pub fn path_edges(
    g: &Graph,
    ids: &[String],
    path_len: usize,
) -> Result<Vec<(String, NodeId, NodeId)>> {
    path_keys(ids, path_len)
        .into_iter()
        .map(|(k, a, b)| Ok((k, g.require(&a)?, g.require(&b)?)))
        .collect()
}

/// The correct path's edges as `"a->b"` keys with their node pairs.
pub fn path_keys(ids: &[String], path_len: usize) -> Vec<(String, String, String)> {
    (0..path_len - 1)
        .map(|i| {
            let (a, b) = (&ids[i], &ids[i + 1]);
            (format!("{a}->{b}"), a.clone(), b.clone())
        })
        .collect()
}

/// Edges between two of `nodes` whose weight is at or below `threshold` (inhibitory),
/// as `["a->b", w]` pairs — evidence for a path vetoed by its own learned siblings.
pub fn inhibitory_among(g: &Graph, nodes: &[NodeId], threshold: f64) -> Vec<(String, f64)> {
    g.edges()
        .filter(|&(s, t, e)| nodes.contains(&s) && nodes.contains(&t) && e.weight <= threshold)
        .map(|(s, t, e)| (format!("{}->{}", g.name(s), g.name(t)), e.weight))
        .collect()
}
