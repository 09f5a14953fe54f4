//! Learning from outcomes: the heuristic rule, Hebbian co-firing and the "true" policy
//! gradient with STOP (paper §3; reference `crabpath/learn.py`). The reference's
//! module-global call counter with optional auto-decay is not reproduced: no caller of
//! the reference (sims, benchmarks, CLI) turns auto-decay on, and here decay is an
//! explicit [`crate::decay::apply_decay`] call.
//!
//! All rules consume an [`Episode`]. Which pairs of it are learned over is a switch of
//! [`LearningConfig`]: consecutive `fired` entries (the reference; REPRODUCE.md
//! discrepancy C1) or the traversed steps (corrected profile).

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::{finite, Error, Result};
use crate::graph::{Edge, EdgeKind, Graph, NodeId};
use crate::traverse::TraversalResult;

/// Which node pairs of an episode the outcome rules update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LearnOn {
    /// Consecutive entries of `fired` (reference; creates edges between nodes that
    /// were never traversed one after the other, e.g. two seeds).
    FiredPairs,
    /// The transitions actually traversed (`steps`), in order (corrected).
    TraversedSteps,
}

/// When Hebbian co-firing runs after an outcome rule (reference
/// `crabpath/learn.py::hebbian_update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hebbian {
    /// After every update, whatever the outcome sign (reference).
    Always,
    /// Only after a positive outcome.
    PositiveOnly,
    /// Never.
    Off,
}

impl Hebbian {
    pub(crate) fn runs(self, outcome: f64) -> bool {
        match self {
            Hebbian::Always => true,
            Hebbian::PositiveOnly => outcome > 0.0,
            Hebbian::Off => false,
        }
    }
}

/// Learning parameters (reference `crabpath/learn.py::LearningConfig`) plus the profile switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearningConfig {
    /// η, for the heuristic and PG.
    pub learning_rate: f64,
    /// γ: heuristic uses `γ^(idx+1)`, PG `γ^idx`.
    pub discount: f64,
    /// Added per kept co-firing pair.
    pub hebbian_increment: f64,
    /// Minimum co-firing count `j − i + 1` for a Hebbian pair.
    pub promotion_threshold: i64,
    /// Clipping bounds of learned weights.
    pub weight_bounds: (f64, f64),
    /// PG temperature τ (reference: used only when the call's argument is ≤ 0).
    pub temperature: f64,
    /// PG baseline b (reference: never read).
    pub baseline: f64,
    /// Maximum Hebbian pairs per episode.
    pub max_hebbian_pairs: usize,
    /// Pairs updated by the outcome rules.
    pub learn_on: LearnOn,
    /// Hebbian after the heuristic rule.
    pub hebbian_after_heuristic: Hebbian,
    /// Hebbian after PG.
    pub hebbian_after_pg: Hebbian,
    /// PG reads τ and b from this config instead of its call arguments.
    pub pg_params_from_config: bool,
    /// The outcome rules relabel edge kinds: the heuristic marks an edge `inhibitory` on a
    /// negative outcome, PG sets `inhibitory` iff `w < −0.01` else `sibling` (reference).
    /// Off in the corrected profile, where kind `inhibitory` is left to explicit
    /// corrections (it decides which edges inhibit; [`crate::profile`] fix 10).
    #[serde(default = "yes")]
    pub relabel_kinds: bool,
    /// Hebbian co-firing raises a weight only while it is below this value, and not
    /// past it (`None`: up to the upper clip bound, reference
    /// `crabpath/learn.py::hebbian_update`). Corrected: [`crate::profile::HEBBIAN_CEILING`],
    /// so that co-firing alone can propose an association inside the habitual tier but
    /// only the outcome rules, which credit and blame traversed transitions, raise an
    /// edge above it ([`crate::profile`] fix 11).
    #[serde(default)]
    pub hebbian_ceiling: Option<f64>,
}

fn yes() -> bool {
    true
}

impl Default for LearningConfig {
    fn default() -> Self {
        LearningConfig {
            learning_rate: 0.1,
            discount: 0.95,
            hebbian_increment: 0.06,
            promotion_threshold: 2,
            weight_bounds: (-1.0, 1.0),
            temperature: 1.0,
            baseline: 0.0,
            max_hebbian_pairs: 20,
            learn_on: LearnOn::FiredPairs,
            hebbian_after_heuristic: Hebbian::Always,
            hebbian_after_pg: Hebbian::Always,
            pg_params_from_config: false,
            relabel_kinds: true,
            hebbian_ceiling: None,
        }
    }
}

impl LearningConfig {
    /// `max(lo, min(hi, w))`.
    #[inline]
    pub fn clip(&self, w: f64) -> f64 {
        self.weight_bounds.0.max(self.weight_bounds.1.min(w))
    }
}

/// What an outcome is learned from: the fired list and the traversed transitions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Episode {
    /// Fired nodes in fired order.
    pub fired: Vec<NodeId>,
    /// Traversed (source, target) transitions in order.
    pub steps: Vec<(NodeId, NodeId)>,
}

impl Episode {
    /// A hand-made path: `fired = path`, steps = its consecutive pairs.
    pub fn from_path(path: &[NodeId]) -> Self {
        Episode {
            fired: path.to_vec(),
            steps: path.windows(2).map(|w| (w[0], w[1])).collect(),
        }
    }

    /// The episode of a traversal.
    pub fn from_result(result: &TraversalResult) -> Self {
        Episode {
            fired: result.fired.clone(),
            steps: result.steps.iter().map(|s| (s.from, s.to)).collect(),
        }
    }

    /// The pairs the outcome rules update under `learn_on`.
    pub fn pairs(&self, learn_on: LearnOn) -> Vec<(NodeId, NodeId)> {
        match learn_on {
            LearnOn::FiredPairs => self.fired.windows(2).map(|w| (w[0], w[1])).collect(),
            LearnOn::TraversedSteps => self.steps.clone(),
        }
    }
}

impl From<&TraversalResult> for Episode {
    fn from(r: &TraversalResult) -> Self {
        Episode::from_result(r)
    }
}

/// The target of an update: an edge's target node, or the STOP action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Follow the edge to this node.
    Node(NodeId),
    /// Stop the traversal.
    Stop,
}

/// Reported deltas keyed by (source, action), in first-report order — the reference's
/// `{"s->t": delta}` map. Use [`Updates::key`] for the reference's string keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Updates(pub IndexMap<(NodeId, Action), f64>);

impl Updates {
    /// Sum of all reported deltas, in order.
    pub fn sum(&self) -> f64 {
        self.0.values().fold(0.0, |a, &v| a + v)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The delta reported for (source, action).
    pub fn get(&self, source: NodeId, action: Action) -> Option<f64> {
        self.0.get(&(source, action)).copied()
    }

    /// The reference's key `"s->t"` / `"s->__STOP__"`.
    pub fn key(graph: &Graph, source: NodeId, action: Action) -> String {
        match action {
            Action::Node(t) => format!("{}->{}", graph.name(source), graph.name(t)),
            Action::Stop => format!("{}->__STOP__", graph.name(source)),
        }
    }

    /// Entries with string keys, in order.
    pub fn named(&self, graph: &Graph) -> Vec<(String, f64)> {
        self.0
            .iter()
            .map(|(&(s, a), &v)| (Self::key(graph, s, a), v))
            .collect()
    }
}

/// Per-source outcomes overriding the episode outcome.
pub type PerNodeOutcomes = HashMap<NodeId, f64>;

pub(crate) fn check_inputs(
    graph: &Graph,
    episode: &Episode,
    outcome: f64,
    per_node: Option<&PerNodeOutcomes>,
) -> Result<()> {
    finite(|| "outcome".into(), outcome)?;
    if let Some(p) = per_node {
        for (&n, &o) in p {
            finite(|| format!("per-node outcome of `{}`", graph.name(n)), o)?;
        }
    }
    for &n in episode
        .fired
        .iter()
        .chain(episode.steps.iter().flat_map(|(a, b)| [a, b]))
    {
        if !graph.has_node(n) {
            return Err(Error::UnknownNode(if n.index() < graph.symbol_count() {
                graph.name(n).to_string()
            } else {
                format!("#{}", n.0)
            }));
        }
    }
    Ok(())
}

/// Heuristic update (reference `crabpath/learn.py::apply_outcome`): for pair `idx` (s, t),
/// `δ = η · γ^(idx+1) · o`; a missing edge is created with weight `clip(δ)` (kind
/// `inhibitory` if `o < 0`), an existing one becomes `clip(w + δ)` (kind set to
/// `inhibitory` when `o < 0`, never back). Then Hebbian co-firing per the config.
/// Returns the nominal (pre-clip) deltas; Hebbian changes are not reported.
///
/// Errors: a non-finite outcome (`Error::NonFinite`) or an episode node without a
/// graph node (`Error::UnknownNode`); nothing is changed then. The reference accepts
/// both; [`apply_outcome_unchecked`] reproduces that.
pub fn apply_outcome(
    graph: &mut Graph,
    episode: &Episode,
    outcome: f64,
    config: &LearningConfig,
    per_node: Option<&PerNodeOutcomes>,
) -> Result<Updates> {
    check_inputs(graph, episode, outcome, per_node)?;
    apply_outcome_unchecked(graph, episode, outcome, config, per_node)
}

/// [`apply_outcome`] without its input checks, as the reference's command-line `learn`
/// runs it (reference `crabpath/cli.py::cmd_learn`, commit 134c676): episode entries may
/// be symbols without a node ([`Graph::intern`]), and edges to or from them are created
/// as dangling edges; a non-finite outcome clips like Python's `max(lo, min(hi, w))`
/// (NaN and +∞ drive an edge to the upper bound, −∞ to the lower one) and is reported as
/// a NaN or infinite delta. Use it only to reproduce the reference.
pub fn apply_outcome_unchecked(
    graph: &mut Graph,
    episode: &Episode,
    outcome: f64,
    config: &LearningConfig,
    per_node: Option<&PerNodeOutcomes>,
) -> Result<Updates> {
    let mut updates = Updates::default();
    let pairs = episode.pairs(config.learn_on);
    for (idx, &(s, t)) in pairs.iter().enumerate() {
        let o = per_node.and_then(|p| p.get(&s).copied()).unwrap_or(outcome);
        let delta = config.learning_rate * config.discount.powf((idx + 1) as f64) * o;
        match graph.edge_mut(s, t) {
            None => {
                let kind = if o < 0.0 && config.relabel_kinds {
                    EdgeKind::Inhibitory
                } else {
                    EdgeKind::Sibling
                };
                graph.add_edge(s, t, Edge::new(config.clip(delta)).with_kind(kind))?;
            }
            Some(e) => {
                e.weight = config.clip(e.weight + delta);
                if o < 0.0 && config.relabel_kinds {
                    e.kind = EdgeKind::Inhibitory;
                }
            }
        }
        updates.0.insert((s, Action::Node(t)), delta);
    }
    if config.hebbian_after_heuristic.runs(outcome) {
        hebbian_update(graph, &episode.fired, config)?;
    }
    Ok(updates)
}

/// The Hebbian pairs of a fired list (reference `crabpath/learn.py::hebbian_update`): all
/// `i < j` if `n <= sqrt(2·max_pairs)`, else the first `max_pairs` by (distance, i).
pub fn hebbian_pairs(n: usize, max_pairs: usize) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            pairs.push((i, j));
        }
    }
    if (n as f64) <= (2.0 * max_pairs as f64).sqrt() {
        return pairs;
    }
    pairs.sort_by_key(|&(i, j)| (j - i, i));
    pairs.truncate(max_pairs);
    pairs
}

/// Hebbian co-firing (reference `crabpath/learn.py::hebbian_update`): each kept pair
/// `fired[i]→fired[j]` whose co-firing count `j − i + 1` reaches `promotion_threshold`
/// gains `hebbian_increment` (created with that weight if missing, kind `sibling`); with
/// `hebbian_ceiling` c, only a weight below c is raised, to at most c (a new edge starts
/// at `min(increment, c)`).
pub fn hebbian_update(graph: &mut Graph, fired: &[NodeId], config: &LearningConfig) -> Result<()> {
    if fired.len() < 2 || config.max_hebbian_pairs == 0 {
        return Ok(());
    }
    for (i, j) in hebbian_pairs(fired.len(), config.max_hebbian_pairs) {
        if ((j - i + 1) as i64) < config.promotion_threshold {
            continue;
        }
        let (s, t) = (fired[i], fired[j]);
        match (graph.edge_mut(s, t), config.hebbian_ceiling) {
            (None, None) => graph.add_edge(s, t, Edge::new(config.hebbian_increment))?,
            (Some(e), None) => e.weight = config.clip(e.weight + config.hebbian_increment),
            (None, Some(c)) => graph.add_edge(s, t, Edge::new(config.hebbian_increment.min(c)))?,
            (Some(e), Some(c)) => {
                if e.weight < c {
                    e.weight = config.clip(e.weight + config.hebbian_increment).min(c);
                }
            }
        }
    }
    Ok(())
}

/// Call arguments of [`apply_outcome_pg`] that the reference takes separately from
/// its config (reference `crabpath/learn.py::apply_outcome_pg`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PgArgs {
    /// Baseline b.
    pub baseline: f64,
    /// Temperature τ; ≤ 0 means "use the config's".
    pub temperature: f64,
}

impl Default for PgArgs {
    fn default() -> Self {
        PgArgs {
            baseline: 0.0,
            temperature: 1.0,
        }
    }
}

/// The softmax-with-STOP policy at one node (reference
/// `crabpath/learn.py::_softmax_with_stop`): logits `(relevance_j + w_j)/τ` over outgoing
/// edges in bucket order plus STOP at 0. Returns (targets, π per target, π_STOP).
pub fn stop_softmax(graph: &Graph, source: NodeId, temperature: f64) -> (Vec<(NodeId, f64)>, f64) {
    let (targets, logits): (Vec<NodeId>, Vec<f64>) = graph
        .outgoing(source)
        .map(|(t, e)| (t, (e.relevance() + e.weight) / temperature))
        .unzip();
    let (probs, stop) = softmax_with_stop(&logits);
    (targets.into_iter().zip(probs).collect(), stop)
}

/// Softmax over `logits` plus a STOP action of logit 0, as the reference computes it
/// (reference `crabpath/learn.py::apply_outcome_pg`, commit 134c676): `m = max(0, l_j)`,
/// `Z = e^(−m)` plus `e^(l_j − m)` in order, `π_j = e^(l_j − m)/Z`. Returns (π per logit,
/// π_STOP).
pub fn softmax_with_stop(logits: &[f64]) -> (Vec<f64>, f64) {
    let m = logits
        .iter()
        .fold(0.0f64, |m, &l| if l > m { l } else { m });
    let e_stop = (0.0 - m).exp();
    let mut z = e_stop;
    for &l in logits {
        z += (l - m).exp();
    }
    let probs = logits.iter().map(|&l| (l - m).exp() / z).collect();
    (probs, e_stop / z)
}

/// REINFORCE with STOP (reference `crabpath/learn.py::apply_outcome_pg`): for pair `idx`
/// (s, chosen c) with outgoing edges, `scalar = η·(o − b)·γ^idx/τ`; the chosen edge gets
/// `scalar·(1 − π_c)`, every other `−scalar·π_j`, each clipped; STOP reports
/// `−scalar·π_STOP`. Kinds are rewritten (`inhibitory` iff `w < −0.01`). Then Hebbian per
/// the config. Returns the actual (clipped) edge deltas and the nominal STOP deltas.
pub fn apply_outcome_pg(
    graph: &mut Graph,
    episode: &Episode,
    outcome: f64,
    config: &LearningConfig,
    per_node: Option<&PerNodeOutcomes>,
    args: PgArgs,
) -> Result<Updates> {
    check_inputs(graph, episode, outcome, per_node)?;
    let (temperature, baseline) = if config.pg_params_from_config {
        (config.temperature, config.baseline)
    } else if args.temperature > 0.0 {
        (args.temperature, args.baseline)
    } else {
        (config.temperature, args.baseline)
    };
    check_pg_params(temperature, baseline)?;
    let mut updates = Updates::default();
    let pairs = episode.pairs(config.learn_on);
    for (idx, &(s, c)) in pairs.iter().enumerate() {
        let (probs, p_stop) = stop_softmax(graph, s, temperature);
        if probs.is_empty() {
            continue;
        }
        let o = per_node.and_then(|p| p.get(&s).copied()).unwrap_or(outcome);
        let scalar =
            config.learning_rate * (o - baseline) * config.discount.powf(idx as f64) / temperature;
        for (t, p) in probs {
            let delta = if t == c {
                scalar * (1.0 - p)
            } else {
                -scalar * p
            };
            apply_pg_delta(graph, config, (s, t), delta, &mut updates);
        }
        // The reference assigns the STOP entry; a source occurs in several pairs only
        // with duplicated seeds (paper) or several traversed steps (corrected), where
        // accumulating keeps the report a true sum of the episode's gradient.
        *updates.0.entry((s, Action::Stop)).or_insert(0.0) += -scalar * p_stop;
    }
    if config.hebbian_after_pg.runs(outcome) {
        hebbian_update(graph, &episode.fired, config)?;
    }
    Ok(updates)
}

/// PG's temperature must be finite and > 0, its baseline finite.
pub(crate) fn check_pg_params(temperature: f64, baseline: f64) -> Result<()> {
    finite(|| "PG baseline".into(), baseline)?;
    if !(temperature.is_finite() && temperature > 0.0) {
        return Err(Error::InvalidConfig(format!(
            "PG temperature must be finite and > 0, got {temperature}"
        )));
    }
    Ok(())
}

/// One PG step on an existing edge: `w ← clip(w + delta)`, kind relabelled
/// (`inhibitory` iff `w < −0.01`) if `config.relabel_kinds`, the actual change added to
/// the report. A missing edge is left alone.
pub(crate) fn apply_pg_delta(
    graph: &mut Graph,
    config: &LearningConfig,
    (s, t): (NodeId, NodeId),
    delta: f64,
    updates: &mut Updates,
) {
    if let Some(e) = graph.edge_mut(s, t) {
        let old = e.weight;
        let new = config.clip(old + delta);
        e.weight = new;
        if config.relabel_kinds {
            e.kind = if new < -0.01 {
                EdgeKind::Inhibitory
            } else {
                EdgeKind::Sibling
            };
        }
        *updates.0.entry((s, Action::Node(t))).or_insert(0.0) += new - old;
    }
}
