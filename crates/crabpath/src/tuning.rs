//! The five knobs the autotuner may move and their safety bounds, as data (seed 002
//! §5.2–5.3; issue 31 item 3).
//!
//! The bounds live here and nowhere else: [`SAFETY_BOUNDS`] is the one table, read by
//! the guardrail step [`clip`] and by [`crate::health::AutotuneConfig::corrected`].
//!
//! | knob | bound (seed 002 §5.3) |
//! |---|---|
//! | `half_life` | [20, 200] |
//! | `promotion_threshold` | ≥ 2 |
//! | `hebbian_increment` | ≤ 0.12 |
//! | `reflex_threshold` | [0.6, 0.95] |
//! | `damping` | [0.1, 1.0] |

use serde::{Deserialize, Serialize};

use crate::decay::DecayConfig;
use crate::learn::LearningConfig;
use crate::traverse::TraversalConfig;

/// One tunable parameter of a brain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// Decay half-life in maintenance cycles ([`DecayConfig::half_life`]).
    HalfLife,
    /// Minimum co-firing count of a Hebbian pair ([`LearningConfig::promotion_threshold`]).
    PromotionThreshold,
    /// Added per kept co-firing pair ([`LearningConfig::hebbian_increment`]).
    HebbianIncrement,
    /// Lower weight of the reflex tier (`TraversalConfig::tiers.reflex`).
    ReflexThreshold,
    /// Edge damping λ ([`TraversalConfig::edge_damping`]).
    Damping,
}

impl Knob {
    /// The knob's name in journal entries, JSON and the reference's suggestions.
    pub fn as_str(self) -> &'static str {
        match self {
            Knob::HalfLife => "half_life",
            Knob::PromotionThreshold => "promotion_threshold",
            Knob::HebbianIncrement => "hebbian_increment",
            Knob::ReflexThreshold => "reflex_threshold",
            Knob::Damping => "damping",
        }
    }
}

/// A knob's safety bound: `min ≤ value ≤ max`, either side open when `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The knob bounded.
    pub knob: Knob,
    /// Lowest allowed value.
    pub min: Option<f64>,
    /// Highest allowed value.
    pub max: Option<f64>,
}

impl Bound {
    /// `value` moved into the bound (NaN goes to the lower bound, or the upper one
    /// when there is no lower bound).
    pub fn apply(&self, value: f64) -> f64 {
        let mut v = value;
        if v.is_nan() {
            v = self.min.or(self.max).unwrap_or(0.0);
        }
        if let Some(lo) = self.min {
            v = v.max(lo);
        }
        if let Some(hi) = self.max {
            v = v.min(hi);
        }
        v
    }

    /// Whether `value` lies inside the bound.
    pub fn contains(&self, value: f64) -> bool {
        !value.is_nan()
            && self.min.is_none_or(|lo| value >= lo)
            && self.max.is_none_or(|hi| value <= hi)
    }
}

/// The safety bounds of seed 002 §5.3, one row per knob (see the module docs).
pub const SAFETY_BOUNDS: [Bound; 5] = [
    Bound {
        knob: Knob::HalfLife,
        min: Some(20.0),
        max: Some(200.0),
    },
    Bound {
        knob: Knob::PromotionThreshold,
        min: Some(2.0),
        max: None,
    },
    Bound {
        knob: Knob::HebbianIncrement,
        min: None,
        max: Some(0.12),
    },
    Bound {
        knob: Knob::ReflexThreshold,
        min: Some(0.6),
        max: Some(0.95),
    },
    Bound {
        knob: Knob::Damping,
        min: Some(0.1),
        max: Some(1.0),
    },
];

/// The bound of `knob` in [`SAFETY_BOUNDS`].
pub fn bound(knob: Knob) -> Bound {
    SAFETY_BOUNDS
        .iter()
        .copied()
        .find(|b| b.knob == knob)
        .unwrap_or(Bound {
            knob,
            min: None,
            max: None,
        })
}

/// A brain's tunable parameters (issue 31 item 3): what the autotuner reads and
/// writes, persisted in a brain's `meta` under [`TUNING_META_KEY`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// Decay half-life (cycles).
    pub half_life: f64,
    /// Hebbian promotion threshold (co-firing count).
    pub promotion_threshold: i64,
    /// Hebbian increment per co-firing pair.
    pub hebbian_increment: f64,
    /// Reflex tier threshold.
    pub reflex_threshold: f64,
    /// Edge damping λ.
    pub damping: f64,
}

/// The `meta` key under which a brain keeps its [`Tuning`] (absent: the defaults).
pub const TUNING_META_KEY: &str = "tuning";

impl Tuning {
    /// The parameters the configs hold.
    pub fn of(decay: &DecayConfig, learning: &LearningConfig, traversal: &TraversalConfig) -> Self {
        Tuning {
            half_life: decay.half_life,
            promotion_threshold: learning.promotion_threshold,
            hebbian_increment: learning.hebbian_increment,
            reflex_threshold: traversal.tiers.reflex,
            damping: traversal.edge_damping,
        }
    }

    /// A knob's value.
    pub fn get(&self, knob: Knob) -> f64 {
        match knob {
            Knob::HalfLife => self.half_life,
            Knob::PromotionThreshold => self.promotion_threshold as f64,
            Knob::HebbianIncrement => self.hebbian_increment,
            Knob::ReflexThreshold => self.reflex_threshold,
            Knob::Damping => self.damping,
        }
    }

    /// Sets a knob (the promotion threshold rounds up to a whole count).
    pub fn set(&mut self, knob: Knob, value: f64) {
        match knob {
            Knob::HalfLife => self.half_life = value,
            Knob::PromotionThreshold => self.promotion_threshold = value.ceil() as i64,
            Knob::HebbianIncrement => self.hebbian_increment = value,
            Knob::ReflexThreshold => self.reflex_threshold = value,
            Knob::Damping => self.damping = value,
        }
    }

    /// `decay` with this half-life.
    pub fn decay(&self, decay: &DecayConfig) -> DecayConfig {
        DecayConfig {
            half_life: self.half_life,
            ..*decay
        }
    }

    /// `learning` with this increment and threshold.
    pub fn learning(&self, learning: &LearningConfig) -> LearningConfig {
        LearningConfig {
            hebbian_increment: self.hebbian_increment,
            promotion_threshold: self.promotion_threshold,
            ..learning.clone()
        }
    }

    /// `traversal` with this reflex threshold and damping.
    pub fn traversal(&self, traversal: &TraversalConfig) -> TraversalConfig {
        let mut t = traversal.clone();
        t.tiers.reflex = self.reflex_threshold;
        t.edge_damping = self.damping;
        t
    }

    /// Whether every knob lies inside [`SAFETY_BOUNDS`].
    pub fn within_bounds(&self) -> bool {
        SAFETY_BOUNDS.iter().all(|b| b.contains(self.get(b.knob)))
    }
}

/// A knob the guardrail step moved back into its bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clipped {
    /// The knob.
    pub knob: Knob,
    /// The value proposed.
    pub proposed: f64,
    /// The value kept (the bound).
    pub kept: f64,
}

/// The guardrail step (seed 002 §5.2 "guardrails"): `proposed` with every knob moved
/// into [`SAFETY_BOUNDS`], and the knobs that had to move, in table order.
pub fn clip(proposed: &Tuning) -> (Tuning, Vec<Clipped>) {
    let mut out = *proposed;
    let mut clipped = Vec::new();
    for b in &SAFETY_BOUNDS {
        let v = proposed.get(b.knob);
        if !b.contains(v) {
            out.set(b.knob, b.apply(v));
            clipped.push(Clipped {
                knob: b.knob,
                proposed: v,
                kept: out.get(b.knob),
            });
        }
    }
    (out, clipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_reports_each_moved_knob() {
        let t = Tuning {
            half_life: 10.0,
            promotion_threshold: 1,
            hebbian_increment: 0.14,
            reflex_threshold: 0.7,
            damping: f64::NAN,
        };
        let (c, moved) = clip(&t);
        // seed 002 §5.3: 10 → 20, 1 → 2, 0.14 → 0.12; 0.7 inside [0.6, 0.95]; NaN → 0.1
        assert_eq!(c.half_life, 20.0);
        assert_eq!(c.promotion_threshold, 2);
        assert_eq!(c.hebbian_increment, 0.12);
        assert_eq!(c.reflex_threshold, 0.7);
        assert_eq!(c.damping, 0.1);
        let knobs: Vec<Knob> = moved.iter().map(|m| m.knob).collect();
        assert_eq!(
            knobs,
            [
                Knob::HalfLife,
                Knob::PromotionThreshold,
                Knob::HebbianIncrement,
                Knob::Damping
            ]
        );
        assert!(c.within_bounds());
    }
}
