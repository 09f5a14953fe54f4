//! Query-aware routers for habitual edges: `edge`, `edge+sim` and a confidence-adaptive
//! mix of the two ([`RouterKind`]), and the one logit rule they share.
//!
//! The reference v11.2.1 takes an arbitrary `route_fn` and ships none (reference
//! `crabpath/traverse.py::traverse`, commit 134c676). Its successor added a deterministic,
//! LLM-free runtime router scoring each habitual candidate by edge weight, `relevance`
//! metadata and `α · cosine(query, target)`, keeping the best `route_top_k` per source
//! (reference `openclawbrain/daemon.py::_build_query_route_fn`, commit 3902ac6, defaults
//! α = 0.5, top-k 5), and then a learned router whose graph prior and query term are
//! mixed by an entropy-based confidence (reference `openclawbrain/policy.py`, commit
//! bfd1cec). This module implements the same ideas as one logit rule over this core's
//! graph, with a mixing weight that is a function of the graph alone, so that the policy
//! the router follows is a differentiable function of the edge weights and
//! [`crate::router_pg`] can learn it by its exact policy gradient.
//!
//! # The logit rule
//! For an edge `s → t` with weight `w`, `relevance` metadata `r` (default 0) and cosine
//! `c = q̂ · t̂` of the unit query and target vectors (0 if either is missing):
//!
//! ```text
//! ℓ(s, t) = (r + w) + β(s) · α · c
//! ```
//!
//! * `edge`: β = 0 — the weight-only rule (the same logits as the policy-gradient softmax
//!   of [`crate::learn::apply_outcome_pg`]).
//! * `edge+sim`: β = 1.
//! * `adaptive`: β(s) = H(p) / ln n, the normalised entropy of `p = softmax((r + w)/τ_c)`
//!   over the n outgoing edges of `s` (β = 1 when n ≤ 1). Where the learned weights single
//!   out one edge (low entropy, "confident") the graph prior decides; where they do not
//!   (uniform weights, e.g. before any learning) the query similarity does. β depends on
//!   the whole bucket of `s`, not on which candidates happen to be offered, so the router
//!   and its learning rule see the same policy.
//!
//! A router keeps, per source, the `top_k` offers of highest logit (ties: the earlier
//! offer, i.e. bucket order); the traversal then orders everything it kept exactly as
//! without a router ([`Router::lexicographic_sources`] is `false`), so an `edge` router
//! keeping every offer traverses exactly as no router. Its stochastic counterpart — what [`crate::router_pg`] differentiates
//! — is the softmax of `ℓ/τ` over the source's outgoing edges plus STOP (logit 0), whose
//! most probable edges are the ones the router keeps.
//!
//! # Cost
//! [`Router::route`] costs O(offers · dim) for the cosines plus, for `adaptive`, O(out
//! degree) once per source and query (memoised). Nothing is allocated once the scratch
//! buffers have grown.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{finite, Error, Result};
use crate::graph::{Edge, Graph, NodeId};
use crate::traverse::{Offer, Router};
use crate::vectors::{normalize_into, NodeVectors};

/// How a router scores a habitual candidate (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RouterKind {
    /// `ℓ = r + w`.
    #[serde(rename = "edge")]
    Edge,
    /// `ℓ = r + w + α·cos(q, t)`.
    #[serde(rename = "edge+sim")]
    EdgeSim,
    /// `ℓ = r + w + β(s)·α·cos(q, t)`, β(s) the normalised entropy of the source's
    /// weights.
    #[serde(rename = "adaptive")]
    Adaptive,
}

impl RouterKind {
    /// All kinds, in the order above.
    pub const ALL: [RouterKind; 3] = [RouterKind::Edge, RouterKind::EdgeSim, RouterKind::Adaptive];

    /// `edge`, `edge+sim`, `adaptive`.
    pub fn as_str(self) -> &'static str {
        match self {
            RouterKind::Edge => "edge",
            RouterKind::EdgeSim => "edge+sim",
            RouterKind::Adaptive => "adaptive",
        }
    }

    /// Whether the kind reads the query and target vectors.
    pub fn uses_vectors(self) -> bool {
        self != RouterKind::Edge
    }
}

impl std::fmt::Display for RouterKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RouterKind {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        RouterKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown router `{s}` (expected edge, edge+sim or adaptive)"))
    }
}

/// Router parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RouterConfig {
    /// The logit rule.
    pub kind: RouterKind,
    /// α, the weight of the cosine term (upstream default 0.5).
    pub alpha: f64,
    /// Offers kept per source (upstream default 5; `usize::MAX` keeps all).
    pub top_k: usize,
    /// τ_c, the temperature of the confidence softmax of `adaptive` (default 0.1: on the
    /// [-1, 1] weight scale a margin of 0.5 over the other edges already reads as
    /// confident).
    pub confidence_temperature: f64,
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            kind: RouterKind::EdgeSim,
            alpha: 0.5,
            top_k: 5,
            confidence_temperature: 0.1,
        }
    }
}

impl RouterConfig {
    /// A config of this kind with the default parameters.
    pub fn of(kind: RouterKind) -> Self {
        RouterConfig {
            kind,
            ..RouterConfig::default()
        }
    }

    fn validate(&self) -> Result<()> {
        finite(|| "router alpha".into(), self.alpha)?;
        if self.top_k == 0 {
            return Err(Error::InvalidConfig(
                "router top_k must be at least 1".into(),
            ));
        }
        let t = self.confidence_temperature;
        if !(t.is_finite() && t > 0.0) {
            return Err(Error::InvalidConfig(format!(
                "router confidence_temperature must be finite and > 0, got {t}"
            )));
        }
        Ok(())
    }

    /// The logit rule: `(r + w) + β·α·c` (`r + w` exactly for `edge`).
    #[inline]
    pub fn logit(&self, edge: &Edge, beta: f64, cosine: f64) -> f64 {
        let prior = edge.relevance() + edge.weight;
        match self.kind {
            RouterKind::Edge => prior,
            RouterKind::EdgeSim | RouterKind::Adaptive => prior + beta * self.alpha * cosine,
        }
    }

    /// β(s) of the kind at `source` (0 for `edge`, 1 for `edge+sim`, the normalised
    /// entropy for `adaptive`). Cost O(out degree).
    pub fn mixing(&self, graph: &Graph, source: NodeId) -> f64 {
        match self.kind {
            RouterKind::Edge => 0.0,
            RouterKind::EdgeSim => 1.0,
            RouterKind::Adaptive => confidence_beta(graph, source, self.confidence_temperature),
        }
    }
}

/// β(s) = H(p)/ln n with `p = softmax((r + w)/τ_c)` over the outgoing edges of `source`
/// (bucket order), and its gradient `∂β/∂w_j = −p_j (ln p_j + H) / (τ_c ln n)` per edge.
/// β = 1 and a zero gradient when n ≤ 1. Cost O(out degree).
pub fn confidence_mix(graph: &Graph, source: NodeId, temperature: f64) -> (f64, Vec<f64>) {
    let t = MixTerms::of(graph, source, temperature);
    let grad = match t.ln_n {
        Some(ln_n) => priors(graph, source, temperature)
            .map(|u| {
                let l = (u - t.max) - t.ln_z;
                -l.exp() * (l + t.entropy) / (temperature * ln_n)
            })
            .collect(),
        None => vec![0.0; t.n],
    };
    (t.beta(), grad)
}

/// β(s) alone, allocation-free (the same bits as [`confidence_mix`]).
pub fn confidence_beta(graph: &Graph, source: NodeId, temperature: f64) -> f64 {
    MixTerms::of(graph, source, temperature).beta()
}

/// `(r + w)/τ_c` per outgoing edge, bucket order.
fn priors(graph: &Graph, source: NodeId, temperature: f64) -> impl Iterator<Item = f64> + '_ {
    graph
        .outgoing(source)
        .map(move |(_, e)| (e.relevance() + e.weight) / temperature)
}

/// The pieces of β(s): edge count, max prior, ln Z, entropy, ln n (None if n ≤ 1).
struct MixTerms {
    n: usize,
    max: f64,
    ln_z: f64,
    entropy: f64,
    ln_n: Option<f64>,
}

impl MixTerms {
    fn of(graph: &Graph, source: NodeId, temperature: f64) -> Self {
        let (n, max) = priors(graph, source, temperature)
            .fold((0usize, f64::NEG_INFINITY), |(n, m), u| (n + 1, m.max(u)));
        if n <= 1 {
            return MixTerms {
                n,
                max,
                ln_z: 0.0,
                entropy: 0.0,
                ln_n: None,
            };
        }
        let ln_z = priors(graph, source, temperature)
            .fold(0.0, |acc, u| acc + (u - max).exp())
            .ln();
        let entropy = -priors(graph, source, temperature).fold(0.0, |acc, u| {
            let l = (u - max) - ln_z;
            acc + l.exp() * l
        });
        MixTerms {
            n,
            max,
            ln_z,
            entropy,
            ln_n: Some((n as f64).ln()),
        }
    }

    fn beta(&self) -> f64 {
        self.ln_n.map_or(1.0, |ln_n| self.entropy / ln_n)
    }
}

/// One query's router: a [`RouterConfig`], the node vectors and the current query's unit
/// vector. Implements [`Router`]; reuse it across queries with
/// [`QueryRouter::set_query`] so that its buffers are kept.
pub struct QueryRouter<'v> {
    config: RouterConfig,
    vectors: Option<&'v dyn NodeVectors>,
    /// Unit query (empty: no query vector; every cosine is 0).
    query: Vec<f32>,
    /// (logit, offer index) of the offers being ranked.
    ranked: Vec<(f64, u32)>,
    /// β per source for the current query (`adaptive`).
    betas: FxHashMap<NodeId, f64>,
}

impl std::fmt::Debug for QueryRouter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryRouter")
            .field("config", &self.config)
            .field("has_vectors", &self.vectors.is_some())
            .field("query_dim", &self.query.len())
            .finish()
    }
}

impl<'v> QueryRouter<'v> {
    /// A router without a query yet. Kinds that read vectors need `vectors`
    /// (`Error::MissingVector` otherwise); parameters are checked
    /// (`Error::InvalidConfig`, `Error::NonFinite`).
    pub fn new(config: RouterConfig, vectors: Option<&'v dyn NodeVectors>) -> Result<Self> {
        config.validate()?;
        if config.kind.uses_vectors() && vectors.is_none() {
            return Err(Error::MissingVector(format!(
                "router `{}` needs node vectors",
                config.kind
            )));
        }
        Ok(QueryRouter {
            config,
            vectors,
            query: Vec::new(),
            ranked: Vec::new(),
            betas: FxHashMap::default(),
        })
    }

    /// The `edge` router (no vectors).
    pub fn edge(top_k: usize) -> Result<Self> {
        QueryRouter::new(
            RouterConfig {
                kind: RouterKind::Edge,
                top_k,
                ..RouterConfig::default()
            },
            None,
        )
    }

    /// The parameters.
    pub fn config(&self) -> &RouterConfig {
        &self.config
    }

    /// Sets the query embedding (normalised here; a zero vector means "no query", every
    /// cosine 0). Its dimension must be the vectors' (`Error::DimensionMismatch`);
    /// components must be finite. Allocates nothing once the buffer has the dimension.
    /// The `edge` kind ignores the query.
    pub fn set_query(&mut self, query: &[f64]) -> Result<()> {
        self.betas.clear();
        self.query.clear();
        let Some(v) = self.vectors.filter(|_| self.config.kind.uses_vectors()) else {
            return Ok(());
        };
        if query.len() != v.dim() {
            return Err(Error::DimensionMismatch {
                expected: v.dim(),
                got: query.len(),
            });
        }
        for &x in query {
            finite(|| "query vector component".into(), x)?;
        }
        self.query.resize(query.len(), 0.0);
        if !normalize_into(query, &mut self.query) {
            self.query.clear();
        }
        Ok(())
    }

    /// Forgets the query (every cosine 0 until the next [`QueryRouter::set_query`]).
    pub fn clear_query(&mut self) {
        self.betas.clear();
        self.query.clear();
    }

    /// `q̂ · t̂` in `f32` ([`NodeVectors::cosine`], by default
    /// [`crate::vectors::dot`]), as `f64`; 0 without a
    /// query or a target vector.
    #[inline]
    pub fn cosine(&self, target: NodeId) -> f64 {
        if self.query.is_empty() {
            return 0.0;
        }
        self.vectors
            .and_then(|v| v.cosine(&self.query, target))
            .map_or(0.0, f64::from)
    }

    /// The logit of the edge `source → target` (see the module docs) with a given β.
    pub fn logit(&self, edge: &Edge, target: NodeId, beta: f64) -> f64 {
        let cos = if self.config.kind.uses_vectors() {
            self.cosine(target)
        } else {
            0.0
        };
        self.config.logit(edge, beta, cos)
    }

    fn beta(&mut self, graph: &Graph, source: NodeId) -> f64 {
        match self.config.kind {
            RouterKind::Adaptive => *self
                .betas
                .entry(source)
                .or_insert_with(|| self.config.mixing(graph, source)),
            _ => self.config.mixing(graph, source),
        }
    }
}

impl Router for QueryRouter<'_> {
    /// Each call depends only on its own source's offers.
    fn lexicographic_sources(&self) -> bool {
        false
    }

    fn route(
        &mut self,
        graph: &Graph,
        source: NodeId,
        offers: &[Offer],
        _query: &str,
        keep: &mut [bool],
    ) {
        if offers.len() <= self.config.top_k {
            keep.iter_mut().for_each(|k| *k = true);
            return;
        }
        let beta = self.beta(graph, source);
        let mut ranked = std::mem::take(&mut self.ranked);
        ranked.clear();
        for (i, o) in offers.iter().enumerate() {
            let l = match graph.edge(source, o.target) {
                Some(e) => self.logit(e, o.target, beta),
                None => f64::NEG_INFINITY,
            };
            ranked.push((l, i as u32));
        }
        // logit descending, then offer order: a strict total order
        ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, i) in &ranked[..self.config.top_k] {
            keep[i as usize] = true;
        }
        self.ranked = ranked;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;
    use crate::vectors::UnitVectors;

    fn star(weights: &[f64]) -> Graph {
        let mut g = Graph::new();
        let s = g.add_node(Node::new("s", "S"));
        for (i, &w) in weights.iter().enumerate() {
            let t = g.add_node(Node::new(format!("t{i}"), "T"));
            g.add_edge(s, t, Edge::new(w)).unwrap();
        }
        g
    }

    #[test]
    fn kinds_parse_and_print() {
        for k in RouterKind::ALL {
            assert_eq!(k.as_str().parse::<RouterKind>(), Ok(k));
        }
        assert!("sim".parse::<RouterKind>().is_err());
        assert_eq!(
            serde_json::to_string(&RouterKind::EdgeSim).unwrap(),
            "\"edge+sim\""
        );
    }

    #[test]
    fn confidence_is_one_for_uniform_weights_and_falls_with_a_margin() {
        let g = star(&[0.4, 0.4, 0.4, 0.4]);
        let s = g.lookup("s").unwrap();
        let (b, grad) = confidence_mix(&g, s, 0.1);
        assert!((b - 1.0).abs() < 1e-12, "{b}");
        assert!(grad.iter().all(|d| d.abs() < 1e-12));
        let g = star(&[1.0, 0.4, 0.4, 0.4]);
        let (b2, grad) = confidence_mix(&g, s, 0.1);
        assert!(
            b2 < 0.05,
            "one edge 0.6 ahead at τ_c = 0.1 is confident: {b2}"
        );
        // raising the leader lowers the entropy further; shift invariance: Σ ∂β/∂w = 0
        assert!(grad[0] < 0.0);
        assert!(grad.iter().sum::<f64>().abs() < 1e-12);
        let g = star(&[0.3]);
        assert_eq!(confidence_mix(&g, s, 0.1), (1.0, vec![0.0]));
    }

    #[test]
    fn router_keeps_the_top_k_by_logit() {
        let g = star(&[0.5, 0.3, 0.3, 0.25]);
        let s = g.lookup("s").unwrap();
        let ids: Vec<NodeId> = (0..4)
            .map(|i| g.lookup(&format!("t{i}")).unwrap())
            .collect();
        // vectors: t3 points along the query, the others across it
        let mut rows = vec![vec![0.0, 0.0]; g.symbol_count()];
        rows[ids[0].index()] = vec![0.0, 1.0];
        rows[ids[1].index()] = vec![0.0, 1.0];
        rows[ids[2].index()] = vec![1.0, 1.0];
        rows[ids[3].index()] = vec![1.0, 0.0];
        let vectors = UnitVectors::from_rows(&rows).unwrap();
        let offers: Vec<Offer> = ids
            .iter()
            .map(|&t| Offer {
                target: t,
                weight: g.weight(s, t).unwrap(),
                score: 0.0,
            })
            .collect();
        let kept = |r: &mut QueryRouter| {
            let mut keep = vec![false; offers.len()];
            r.route(&g, s, &offers, "", &mut keep);
            keep
        };
        let mut edge = QueryRouter::edge(2).unwrap();
        // 0.5, then the tie 0.3 / 0.3 goes to the earlier offer
        assert_eq!(kept(&mut edge), [true, true, false, false]);
        let cfg = RouterConfig {
            kind: RouterKind::EdgeSim,
            alpha: 0.5,
            top_k: 2,
            ..RouterConfig::default()
        };
        let mut sim = QueryRouter::new(cfg, Some(&vectors)).unwrap();
        sim.set_query(&[1.0, 0.0]).unwrap();
        // logits 0.5, 0.3, 0.3 + 0.5·0.7071, 0.25 + 0.5
        assert_eq!(kept(&mut sim), [false, false, true, true]);
        // without a query only the weights count
        sim.clear_query();
        assert_eq!(kept(&mut sim), [true, true, false, false]);
        // top_k at least the offers: everything is kept
        let mut all = QueryRouter::edge(4).unwrap();
        assert_eq!(kept(&mut all), [true; 4]);
    }

    #[test]
    fn construction_is_checked() {
        assert!(matches!(
            QueryRouter::new(RouterConfig::of(RouterKind::EdgeSim), None),
            Err(Error::MissingVector(_))
        ));
        assert!(QueryRouter::edge(0).is_err());
        let bad = RouterConfig {
            confidence_temperature: 0.0,
            ..RouterConfig::of(RouterKind::Edge)
        };
        assert!(QueryRouter::new(bad, None).is_err());
        let v = UnitVectors::from_rows(&[vec![1.0, 0.0]]).unwrap();
        let mut r = QueryRouter::new(RouterConfig::default(), Some(&v)).unwrap();
        assert!(matches!(
            r.set_query(&[1.0]),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(r.set_query(&[f64::NAN, 0.0]).is_err());
        r.set_query(&[0.0, 0.0]).unwrap();
        assert_eq!(r.cosine(NodeId(0)), 0.0);
        r.set_query(&[2.0, 0.0]).unwrap();
        assert_eq!(r.cosine(NodeId(0)), 1.0);
    }
}
