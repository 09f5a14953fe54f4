//! REINFORCE over a router's own softmax: the update is the gradient of the policy the
//! router follows ([`crate::router`]), with the temperature and baseline read from the
//! [`LearningConfig`] (the corrected profile's reading, [`crate::profile`] fix 4).
//!
//! At a node `s` with outgoing edges `j` (bucket order) the router's policy is
//! `π = softmax(ℓ_1/τ, …, ℓ_n/τ, 0)`, the last action being STOP (logit 0) as in the
//! reference's policy gradient (reference `crabpath/learn.py::apply_outcome_pg`, commit
//! 134c676; OpenClawBrain paper §3.3). With `∂ℓ_k/∂w_j = [k = j] + α·c_k·∂β/∂w_j` (the
//! second term only for `adaptive`, whose mixing weight β(s) depends on the weights of
//! `s`):
//!
//! ```text
//! ∂ log π(a | s) / ∂w_j = ( [a = j] − π_j + α·∂β/∂w_j·(c_a − Σ_k π_k c_k) ) / τ
//! ```
//!
//! where `c_a` is the chosen edge's cosine (0 for STOP or a target that is not an
//! outgoing edge: such an action has a constant logit). For `edge` and `edge+sim` this is
//! the reference's `(1[a = j] − π_j)/τ`; for `edge` the logits are the reference's too, so
//! [`apply_outcome_router_pg`] with an `edge` router is bit for bit
//! [`crate::learn::apply_outcome_pg`] under the corrected profile.
//!
//! Identities (tested): the edge deltas and the nominal STOP delta of a step sum to zero
//! before clipping (Σ_j ∂β/∂w_j = 0, entropy being shift invariant); the chosen edge of an
//! `edge`/`edge+sim` router gains and every other edge loses; a small step along the
//! update raises `log π(a | s)` after a positive advantage and lowers it after a negative
//! one.

use crate::error::Result;
use crate::graph::{Graph, NodeId};
use crate::learn::{
    apply_pg_delta, check_inputs, check_pg_params, hebbian_update, softmax_with_stop, Action,
    Episode, LearningConfig, PerNodeOutcomes, Updates,
};
use crate::router::{confidence_mix, QueryRouter, RouterKind};

/// The router's policy at one node.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutePolicy {
    /// (target, π) per outgoing edge, bucket order.
    pub edges: Vec<(NodeId, f64)>,
    /// π(STOP).
    pub stop: f64,
    /// Cosine of each edge's target (0 for `edge` routers).
    cosines: Vec<f64>,
    /// ∂β/∂w_j per edge (empty unless `adaptive`).
    dbeta: Vec<f64>,
}

/// `π(· | source)` of the router at temperature `temperature`: the softmax of the
/// router's logits over the outgoing edges plus STOP at 0 (see the module docs). Cost
/// O(out degree · dim).
pub fn route_policy(
    graph: &Graph,
    router: &QueryRouter<'_>,
    source: NodeId,
    temperature: f64,
) -> RoutePolicy {
    let cfg = router.config();
    let (beta, dbeta) = match cfg.kind {
        RouterKind::Adaptive => confidence_mix(graph, source, cfg.confidence_temperature),
        _ => (cfg.mixing(graph, source), Vec::new()),
    };
    let mut targets = Vec::new();
    let mut logits = Vec::new();
    let mut cosines = Vec::new();
    for (t, e) in graph.outgoing(source) {
        let cos = if cfg.kind.uses_vectors() {
            router.cosine(t)
        } else {
            0.0
        };
        targets.push(t);
        logits.push(cfg.logit(e, beta, cos) / temperature);
        cosines.push(cos);
    }
    let (probs, stop) = softmax_with_stop(&logits);
    RoutePolicy {
        edges: targets.into_iter().zip(probs).collect(),
        stop,
        cosines,
        dbeta,
    }
}

impl RoutePolicy {
    /// `π(action)`; `None` for a target that is not an outgoing edge.
    pub fn prob(&self, action: Action) -> Option<f64> {
        match action {
            Action::Stop => Some(self.stop),
            Action::Node(t) => self.edges.iter().find(|e| e.0 == t).map(|e| e.1),
        }
    }

    /// `τ · ∂ log π(action)/∂w_j` per outgoing edge (bucket order), the bracket of the
    /// module docs; `alpha` is the router's α.
    fn unit_gradient(&self, action: Action, alpha: f64) -> Vec<f64> {
        let chosen = match action {
            Action::Node(t) => self.edges.iter().position(|e| e.0 == t),
            Action::Stop => None,
        };
        let extra = if self.dbeta.is_empty() {
            None
        } else {
            let mean = self
                .edges
                .iter()
                .zip(&self.cosines)
                .fold(0.0, |acc, (e, c)| acc + e.1 * c);
            let c_a = chosen.map_or(0.0, |i| self.cosines[i]);
            Some(alpha * (c_a - mean))
        };
        self.edges
            .iter()
            .enumerate()
            .map(|(j, &(_, p))| {
                let base = if Some(j) == chosen { 1.0 - p } else { -p };
                match extra {
                    Some(x) => base + x * self.dbeta[j],
                    None => base,
                }
            })
            .collect()
    }
}

/// `log π(action | source)` under the router at `temperature`; `None` if `action` is a
/// target without an edge from `source`.
pub fn route_log_prob(
    graph: &Graph,
    router: &QueryRouter<'_>,
    source: NodeId,
    action: Action,
    temperature: f64,
) -> Option<f64> {
    route_policy(graph, router, source, temperature)
        .prob(action)
        .map(f64::ln)
}

/// `∂ log π(action | source) / ∂w_j` for every outgoing edge `j` of `source` (bucket
/// order), as (target, derivative) — the formula of the module docs.
pub fn route_log_prob_gradient(
    graph: &Graph,
    router: &QueryRouter<'_>,
    source: NodeId,
    action: Action,
    temperature: f64,
) -> Vec<(NodeId, f64)> {
    let pol = route_policy(graph, router, source, temperature);
    let unit = pol.unit_gradient(action, router.config().alpha);
    pol.edges
        .iter()
        .zip(unit)
        .map(|(&(t, _), u)| (t, u / temperature))
        .collect()
}

/// REINFORCE over the router's softmax: for step `idx` (s, chosen c) of
/// `episode.pairs(config.learn_on)` with outgoing edges, `scalar = η·(o − b)·γ^idx/τ`
/// (τ = `config.temperature`, b = `config.baseline`) and every outgoing edge `j` of `s`
/// moves by `scalar · τ · ∂ log π(c | s)/∂w_j`, clipped to the weight bounds; STOP
/// reports `−scalar·π_STOP`. Steps are applied in order, each from the current weights
/// (as the reference's PG does). Kinds are relabelled only if `config.relabel_kinds`;
/// Hebbian co-firing runs per `config.hebbian_after_pg`. Returns the actual (clipped)
/// edge deltas and the nominal STOP deltas, summed per (source, action).
///
/// `router` supplies the logit rule and the query; it must be the router the episode
/// was traversed with for the update to be the gradient of the policy used.
pub fn apply_outcome_router_pg(
    graph: &mut Graph,
    episode: &Episode,
    outcome: f64,
    config: &LearningConfig,
    router: &QueryRouter<'_>,
    per_node: Option<&PerNodeOutcomes>,
) -> Result<Updates> {
    check_inputs(graph, episode, outcome, per_node)?;
    let (temperature, baseline) = (config.temperature, config.baseline);
    check_pg_params(temperature, baseline)?;
    let alpha = router.config().alpha;
    let mut updates = Updates::default();
    for (idx, &(s, c)) in episode.pairs(config.learn_on).iter().enumerate() {
        let pol = route_policy(graph, router, s, temperature);
        if pol.edges.is_empty() {
            continue;
        }
        let o = per_node.and_then(|p| p.get(&s).copied()).unwrap_or(outcome);
        let scalar =
            config.learning_rate * (o - baseline) * config.discount.powf(idx as f64) / temperature;
        let unit = pol.unit_gradient(Action::Node(c), alpha);
        for (&(t, p), u) in pol.edges.iter().zip(unit) {
            // written as the reference writes it, so that `edge` is bit-identical
            let delta = if pol.dbeta.is_empty() {
                if t == c {
                    scalar * (1.0 - p)
                } else {
                    -scalar * p
                }
            } else {
                scalar * u
            };
            apply_pg_delta(graph, config, (s, t), delta, &mut updates);
        }
        *updates.0.entry((s, Action::Stop)).or_insert(0.0) += -scalar * pol.stop;
    }
    if config.hebbian_after_pg.runs(outcome) {
        hebbian_update(graph, &episode.fired, config)?;
    }
    Ok(updates)
}
