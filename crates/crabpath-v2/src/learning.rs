//! Corrected ("Gu") and myopic policy gradient (seed 000 §4.2–4.3, Algorithm 1;
//! reference `crabpath/learning.py::make_learning_step`, commit 799419b).
//!
//! For a list of steps S, reward z and episode key k, with b = baseline\[k\] (0.0 if
//! unseen):
//!
//! 1. A_ℓ = (z − b) · γ^ℓ for each position ℓ in S (`powf`, not `powi`);
//! 2. per step: p = softmax of the candidate weights (max-subtracted, the denominator
//!    summed as Python ≥ 3.12's `sum` does, see [`neumaier_sum`]); for each candidate
//!    d = (η · A_ℓ) · (1\[chosen\] − p), clipped to [−5, 5], accumulated per edge;
//! 3. each accumulated edge: w ← clip(w + d, −5, 5), bookkeeping counters;
//! 4. baseline\[k\] ← β · b + (1 − β) · z.
//!
//! **Corrected** uses every step of the trajectory; **myopic** (Williams) only the last,
//! at position 0. The baseline table is a value owned by the caller: the reference keeps
//! one per process, which couples the arms of a comparison (the paper profile shares one
//! table across arms to reproduce that; the corrected profile gives each arm its own).

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::graph::{Graph, Id};
use crate::numeric::softmax_with;
pub use crate::numeric::{neumaier_sum, softmax};
use crate::router::Candidate;
use crate::traverse::Step;

/// Which steps of a trajectory receive credit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Credit {
    /// Every step (the Gu-corrected estimator, seed 000 §4.3).
    Corrected,
    /// Only the last step (the myopic Williams update, seed 000 §4.2).
    Myopic,
}

impl Credit {
    /// `corrected` / `myopic`.
    pub fn as_str(self) -> &'static str {
        match self {
            Credit::Corrected => "corrected",
            Credit::Myopic => "myopic",
        }
    }
}

/// Which options a step's softmax is taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoftmaxOver {
    /// Every outgoing edge, dormant, negative and visited targets included (reference).
    AllCandidates,
    /// The options the policy chose among ([`Step::choice_set`]; corrected).
    ChoiceSet,
}

/// How the bookkeeping counters move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// `follow_count` +1 on every updated edge, `skip_count` on outgoing edges without an
    /// update (never, in practice) — the reference.
    EveryUpdatedEdge,
    /// `follow_count` +1 on each followed edge, `skip_count` +1 on each other option of
    /// the step's choice set (corrected).
    Decisions,
}

/// Learning parameters (defaults = the reference's `LearningConfig`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LearningConfig {
    /// η (0.05).
    pub learning_rate: f64,
    /// γ (0.99).
    pub discount: f64,
    /// β of the baseline EMA (0.95).
    pub baseline_decay: f64,
    /// Lower clip of deltas and weights (−5).
    pub clip_min: f64,
    /// Upper clip of deltas and weights (+5).
    pub clip_max: f64,
    /// Softmax temperature τ: the policy is softmax(w / τ) and its log-gradient is
    /// divided by τ (Algorithm 1). The reference has none (τ = 1).
    pub temperature: f64,
    /// Softmax support.
    pub softmax_over: SoftmaxOver,
    /// Counter rule.
    pub counting: Counting,
    /// Whether a call with no step still updates the baseline (reference: yes).
    pub baseline_on_empty: bool,
    /// Whether softmax denominators use compensated summation (Python ≥ 3.12, which the
    /// reference outputs came from) or plain left-to-right (Python 3.11).
    pub compensated_sum: bool,
}

impl Default for LearningConfig {
    fn default() -> Self {
        LearningConfig {
            learning_rate: 0.05,
            discount: 0.99,
            baseline_decay: 0.95,
            clip_min: -5.0,
            clip_max: 5.0,
            temperature: 1.0,
            softmax_over: SoftmaxOver::AllCandidates,
            counting: Counting::EveryUpdatedEdge,
            baseline_on_empty: true,
            compensated_sum: true,
        }
    }
}

/// The baseline table: episode key (the query string) → EMA of rewards.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baselines(FxHashMap<String, f64>);

impl Baselines {
    /// An empty table.
    pub fn new() -> Baselines {
        Baselines::default()
    }

    /// The baseline of `key` (0.0 if never seen).
    pub fn get(&self, key: &str) -> f64 {
        self.0.get(key).copied().unwrap_or(0.0)
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no key was ever updated.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One applied weight change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Update {
    /// Edge source.
    pub source: Id,
    /// Edge target.
    pub target: Id,
    /// `new − old` (after clipping).
    pub delta: f64,
    /// The new weight.
    pub new_weight: f64,
}

/// What one learning call did.
#[derive(Debug, Clone, PartialEq)]
pub struct LearningOutcome {
    /// The steps credited (all, or the last).
    pub steps_applied: Vec<Step>,
    /// Per-step advantages A_ℓ.
    pub advantages: Vec<f64>,
    /// Accumulated per-edge deltas before they are applied (clipped per term, not yet
    /// per weight), in order of first accumulation: the reference's `weight_delta`.
    pub deltas: Vec<(Id, Id, f64)>,
    /// Applied updates (`new − old` after the weight clip), in the same order.
    pub updates: Vec<Update>,
    /// Baseline used.
    pub baseline_before: f64,
    /// Baseline after the call.
    pub baseline_after: f64,
}

/// One learning step on `graph` for the trajectory `steps`.
pub fn learn(
    graph: &mut Graph,
    steps: &[Step],
    reward: f64,
    key: &str,
    credit: Credit,
    config: &LearningConfig,
    baselines: &mut Baselines,
) -> LearningOutcome {
    let applied: &[Step] = match credit {
        Credit::Corrected => steps,
        Credit::Myopic => match steps.last() {
            Some(_) => &steps[steps.len() - 1..],
            None => &[],
        },
    };
    let b = baselines.get(key);
    let advantages: Vec<f64> = (0..applied.len())
        .map(|l| (reward - b) * config.discount.powf(l as f64))
        .collect();
    let tau = config.temperature;
    let mut acc: IndexMap<(Id, Id), f64, FxBuildHasher> = IndexMap::default();
    for (step, &a) in applied.iter().zip(&advantages) {
        let options: &[Candidate] = match config.softmax_over {
            SoftmaxOver::AllCandidates => &step.candidates,
            SoftmaxOver::ChoiceSet => &step.choice_set,
        };
        if options.is_empty() {
            continue;
        }
        let w: Vec<f64> = options.iter().map(|c| c.weight).collect();
        let p = softmax_with(&w, tau, config.compensated_sum);
        for (c, pc) in options.iter().zip(p) {
            let g = (if c.target == step.to { 1.0 } else { 0.0 }) - pc;
            let mut d = config.learning_rate * a * g;
            if tau != 1.0 {
                d /= tau;
            }
            let d = d.clamp(config.clip_min, config.clip_max);
            *acc.entry((step.from, c.target)).or_insert(0.0) += d;
        }
    }
    let mut updates = Vec::with_capacity(acc.len());
    for (&(s, t), &d) in &acc {
        let Some(edge) = graph.edge_mut(s, t) else {
            continue;
        };
        let old = edge.weight;
        let new = (old + d).clamp(config.clip_min, config.clip_max);
        edge.weight = new;
        if config.counting == Counting::EveryUpdatedEdge {
            edge.follow_count += 1;
        }
        updates.push(Update {
            source: s,
            target: t,
            delta: new - old,
            new_weight: new,
        });
    }
    match config.counting {
        Counting::EveryUpdatedEdge => {
            let mut sources: IndexMap<Id, Vec<Id>, FxBuildHasher> = IndexMap::default();
            for &(s, t) in acc.keys() {
                sources.entry(s).or_default().push(t);
            }
            for (s, updated) in sources {
                let skipped: Vec<Id> = graph
                    .outgoing(s)
                    .map(|e| e.target)
                    .filter(|t| !updated.contains(t))
                    .collect();
                for t in skipped {
                    if let Some(e) = graph.edge_mut(s, t) {
                        e.skip_count += 1;
                    }
                }
            }
        }
        Counting::Decisions => {
            for step in applied {
                for c in &step.choice_set {
                    if let Some(e) = graph.edge_mut(step.from, c.target) {
                        if c.target == step.to {
                            e.follow_count += 1;
                        } else {
                            e.skip_count += 1;
                        }
                    }
                }
            }
        }
    }
    let after = if applied.is_empty() && !config.baseline_on_empty {
        b
    } else {
        let beta = config.baseline_decay;
        let after = beta * b + (1.0 - beta) * reward;
        baselines.0.insert(key.to_string(), after);
        after
    };
    LearningOutcome {
        steps_applied: applied.to_vec(),
        advantages,
        deltas: acc.iter().map(|(&(s, t), &d)| (s, t, d)).collect(),
        updates,
        baseline_before: b,
        baseline_after: after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;
    use crate::tier::Tier;

    #[test]
    fn neumaier_matches_python_312_sum() {
        // sum([1e100, 1.0, -1e100]) is 1.0 under Python 3.12 (0.0 left to right).
        assert_eq!(neumaier_sum([1e100, 1.0, -1e100]), 1.0);
        assert_eq!(neumaier_sum([0.1, 0.2, 0.3]), 0.6);
        assert_eq!([0.1, 0.2, 0.3].iter().sum::<f64>(), 0.6000000000000001);
    }

    fn chain() -> (Graph, Vec<Step>) {
        // Quirks log Q-SINGLE: chain a->b->c; both steps have one candidate.
        let mut g = Graph::new();
        for n in ["a", "b", "c"] {
            g.add_node(Node::new(n, n));
        }
        g.add_edge("a", "b", 0.5);
        g.add_edge("b", "c", 0.5);
        let id = |n| g.id(n).unwrap();
        let step = |f, t| Step {
            from: id(f),
            to: id(t),
            edge_weight: 0.5,
            tier: Tier::Habitual,
            candidates: vec![Candidate {
                target: id(t),
                weight: 0.5,
            }],
            choice_set: vec![Candidate {
                target: id(t),
                weight: 0.5,
            }],
        };
        let steps = vec![step("a", "b"), step("b", "c")];
        (g, steps)
    }

    #[test]
    fn single_candidate_steps_get_zero_gradient_but_count() {
        let (mut g, steps) = chain();
        let mut b = Baselines::new();
        let out = learn(
            &mut g,
            &steps,
            1.0,
            "q",
            Credit::Corrected,
            &LearningConfig::default(),
            &mut b,
        );
        assert_eq!(out.updates.len(), 2);
        assert!(out.updates.iter().all(|u| u.delta == 0.0));
        assert_eq!(g.edge_by_name("a", "b").unwrap().follow_count, 1);
    }

    #[test]
    fn baseline_is_updated_even_without_steps() {
        // Quirks log Q-BASELINE: 3 empty calls -> 0.050000000000000044,
        // 0.09750000000000009, 0.1426250000000001.
        let (mut g, _) = chain();
        let mut b = Baselines::new();
        let cfg = LearningConfig::default();
        let got: Vec<f64> = (0..3)
            .map(|_| {
                learn(
                    &mut g,
                    &[],
                    1.0,
                    "same query",
                    Credit::Corrected,
                    &cfg,
                    &mut b,
                )
                .baseline_after
            })
            .collect();
        assert_eq!(
            got,
            [
                0.050000000000000044,
                0.09750000000000009,
                0.1426250000000001
            ]
        );
        let fixed = LearningConfig {
            baseline_on_empty: false,
            ..cfg
        };
        let mut b2 = Baselines::new();
        let out = learn(
            &mut g,
            &[],
            1.0,
            "same query",
            Credit::Corrected,
            &fixed,
            &mut b2,
        );
        assert_eq!(out.baseline_after, 0.0);
        assert!(b2.is_empty());
    }

    #[test]
    fn myopic_credits_only_the_last_step() {
        let (mut g, steps) = chain();
        let out = learn(
            &mut g,
            &steps,
            1.0,
            "q",
            Credit::Myopic,
            &LearningConfig::default(),
            &mut Baselines::new(),
        );
        assert_eq!(out.steps_applied.len(), 1);
        assert_eq!(g.name(out.updates[0].source), "b");
        assert_eq!(out.advantages, [1.0]);
    }
}
