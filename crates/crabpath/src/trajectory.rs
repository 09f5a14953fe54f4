//! The CrabPath paper's trajectory policy-gradient update with explicit per-step
//! candidate sets (seed 000 §4.1–4.6, Algorithm 1 "Gu-corrected weight update").
//!
//! Unlike [`crate::learn::apply_outcome_pg`] (the reference package's rule, which always
//! offers STOP and every outgoing edge), each step here names its own candidate set
//! `C_t`, which may or may not contain STOP. STOP weights are learnable parameters kept
//! in [`StopWeights`]. Two modes:
//! * [`TrajectoryMode::Myopic`] — Williams (1992): only the last step's
//!   `∇ log π(a_T | s_T)` (paper §4.2);
//! * [`TrajectoryMode::Corrected`] — Gu (2016): `η (z − b) Σ_ℓ γ^ℓ ∇ log π(a_ℓ | s_ℓ)`
//!   over the whole trajectory (paper §4.3).
//!
//! All probabilities are computed from the weights before the update; the summed
//! gradient is then applied at once (Algorithm 1).

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use crate::error::{finite, Error, Result};
use crate::graph::{Edge, Graph, NodeId};
use crate::learn::{Action, Updates};

/// Learnable STOP weights `w_{s,STOP}` (absent = 0.0).
pub type StopWeights = IndexMap<NodeId, f64, FxBuildHasher>;

/// One decision: at `source`, choose `chosen` among `candidates`.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryStep {
    /// State s_t (current node).
    pub source: NodeId,
    /// Candidate set C_t, in order.
    pub candidates: Vec<Action>,
    /// Action a_t (must be in `candidates`).
    pub chosen: Action,
}

/// Which estimator to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrajectoryMode {
    /// Last step only.
    Myopic,
    /// Whole trajectory with baseline and discount.
    Corrected,
}

/// Parameters of Algorithm 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryConfig {
    /// η.
    pub learning_rate: f64,
    /// τ.
    pub temperature: f64,
    /// b.
    pub baseline: f64,
    /// γ (step ℓ is weighted by γ^ℓ).
    pub discount: f64,
    /// Estimator.
    pub mode: TrajectoryMode,
    /// Clipping bounds applied to the stored weights (the returned deltas are nominal).
    pub weight_bounds: (f64, f64),
}

impl Default for TrajectoryConfig {
    fn default() -> Self {
        TrajectoryConfig {
            learning_rate: 0.1,
            temperature: 1.0,
            baseline: 0.0,
            discount: 1.0,
            mode: TrajectoryMode::Corrected,
            weight_bounds: (-1.0, 1.0),
        }
    }
}

/// `π(· | s)` over a candidate set: softmax of `(relevance + w)/τ`, with `w` the edge
/// weight (0.0 for a missing edge) or the STOP weight (paper §4.1).
pub fn candidate_policy(
    graph: &Graph,
    stops: &StopWeights,
    source: NodeId,
    candidates: &[Action],
    temperature: f64,
) -> Vec<f64> {
    let logits: Vec<f64> = candidates
        .iter()
        .map(|a| match a {
            Action::Node(t) => graph
                .edge(source, *t)
                .map_or(0.0, |e| e.relevance() + e.weight),
            Action::Stop => stops.get(&source).copied().unwrap_or(0.0),
        })
        .map(|l| l / temperature)
        .collect();
    let m = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = logits.iter().map(|l| (l - m).exp()).collect();
    let z: f64 = exps.iter().sum();
    exps.into_iter().map(|e| e / z).collect()
}

/// Algorithm 1: accumulates `G[(s,c)] += γ^ℓ (1[c = a] − p_c)` over the selected steps,
/// then applies `ΔW = η (z − b) G / τ` (1/τ is the chain-rule factor of softmax(l/τ);
/// τ = 1 in the paper's example; the myopic mode uses `η z`). Returns the nominal
/// deltas; stored weights are clipped to `weight_bounds` (missing edges are created).
pub fn trajectory_update(
    graph: &mut Graph,
    stops: &mut StopWeights,
    trajectory: &[TrajectoryStep],
    z: f64,
    config: &TrajectoryConfig,
) -> Result<Updates> {
    finite(|| "feedback z".into(), z)?;
    if !(config.temperature.is_finite() && config.temperature > 0.0) {
        return Err(Error::InvalidConfig(format!(
            "temperature must be finite and > 0, got {}",
            config.temperature
        )));
    }
    for st in trajectory {
        for n in std::iter::once(Action::Node(st.source)).chain(st.candidates.iter().copied()) {
            if let Action::Node(id) = n {
                if !graph.has_node(id) {
                    return Err(Error::UnknownNode(format!("#{}", id.0)));
                }
            }
        }
        if !st.candidates.contains(&st.chosen) {
            return Err(Error::InvalidConfig(format!(
                "chosen action of step at `{}` is not among its candidates",
                graph.name(st.source)
            )));
        }
    }
    let first = match config.mode {
        TrajectoryMode::Myopic => trajectory.len().saturating_sub(1),
        TrajectoryMode::Corrected => 0,
    };
    let mut grad: IndexMap<(NodeId, Action), f64, FxBuildHasher> = IndexMap::default();
    for (l, st) in trajectory.iter().enumerate().skip(first) {
        let p = candidate_policy(graph, stops, st.source, &st.candidates, config.temperature);
        let g = match config.mode {
            TrajectoryMode::Myopic => 1.0,
            TrajectoryMode::Corrected => config.discount.powf(l as f64),
        };
        for (c, pc) in st.candidates.iter().zip(p) {
            let ind = if *c == st.chosen { 1.0 } else { 0.0 };
            *grad.entry((st.source, *c)).or_insert(0.0) += g * (ind - pc);
        }
    }
    let scale = match config.mode {
        TrajectoryMode::Myopic => config.learning_rate * z,
        TrajectoryMode::Corrected => config.learning_rate * (z - config.baseline),
    } / config.temperature;
    let clip = |w: f64| config.weight_bounds.0.max(config.weight_bounds.1.min(w));
    let mut updates = Updates::default();
    for ((s, a), g) in grad {
        let delta = scale * g;
        match a {
            Action::Node(t) => match graph.edge_mut(s, t) {
                Some(e) => e.weight = clip(e.weight + delta),
                None => graph.add_edge(s, t, Edge::new(clip(delta)))?,
            },
            Action::Stop => {
                let w = stops.entry(s).or_insert(0.0);
                *w = clip(*w + delta);
            }
        }
        updates.0.insert((s, a), delta);
    }
    Ok(updates)
}
