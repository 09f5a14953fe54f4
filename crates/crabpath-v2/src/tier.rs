//! The three weight tiers of v2 traversal (seed 000 §3, Table 1; reference
//! `crabpath/traversal.py::_classify_tier`, commit a424df5).
//!
//! reflex: weight > 0.8 (auto-followed); habitual: 0.3 ≤ weight ≤ 0.8 (handed to the
//! router); dormant: weight < 0.3, every negative weight included (never followed).
//! The boundaries belong to the habitual tier: 0.8 and 0.3 are habitual, 0.2999 dormant.

/// A weight tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Auto-followed.
    Reflex,
    /// Chosen by the router.
    Habitual,
    /// Never followed.
    Dormant,
}

impl Tier {
    /// `reflex` / `habitual` / `dormant`, as the reference prints it.
    pub fn as_str(self) -> &'static str {
        // In declaration order.
        ["reflex", "habitual", "dormant"][self as usize]
    }
}

/// Tier boundaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TierThresholds {
    /// Reflex strictly above this (0.8).
    pub reflex_above: f64,
    /// Habitual from this up (0.3).
    pub habitual_from: f64,
}

impl Default for TierThresholds {
    fn default() -> Self {
        TierThresholds {
            reflex_above: 0.8,
            habitual_from: 0.3,
        }
    }
}

impl TierThresholds {
    /// The tier of `weight`.
    pub fn classify(&self, weight: f64) -> Tier {
        match weight {
            w if w > self.reflex_above => Tier::Reflex,
            w if w >= self.habitual_from => Tier::Habitual,
            _ => Tier::Dormant,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_reference_names() {
        assert_eq!(Tier::Reflex.as_str(), "reflex");
        assert_eq!(Tier::Habitual.as_str(), "habitual");
        assert_eq!(Tier::Dormant.as_str(), "dormant");
    }

    #[test]
    fn boundaries_are_habitual() {
        // Reference `crabpath/traversal.py` (3ef70df) tier rules; quirks log Q-BOUNDARY
        // (results/reference/v2/quirks/quirks_e752b95.log).
        let t = TierThresholds::default();
        assert_eq!(t.classify(0.8), Tier::Habitual);
        assert_eq!(t.classify(0.8000000000000002), Tier::Reflex);
        assert_eq!(t.classify(0.3), Tier::Habitual);
        assert_eq!(t.classify(0.2999), Tier::Dormant);
        assert_eq!(t.classify(-0.5), Tier::Dormant);
    }
}
