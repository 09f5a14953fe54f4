//! Edge tiers: reflex, habitual, dormant, inhibitory (paper §2, Table 1; reference
//! `crabpath/traverse.py::_tier`).

use serde::{Deserialize, Serialize};

/// The behavioural class of an edge, computed from its raw weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// `w >= reflex_threshold`: followed without the router.
    Reflex,
    /// `habitual_range.0 <= w < habitual_range.1`: offered to the router.
    Habitual,
    /// Everything else: never a candidate.
    Dormant,
    /// `w <= inhibitory_threshold`: vetoes its target through inhibition.
    Inhibitory,
}

impl Tier {
    /// The label the reference uses in steps (`"reflex"`, `"habitual"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Reflex => "reflex",
            Tier::Habitual => "habitual",
            Tier::Dormant => "dormant",
            Tier::Inhibitory => "inhibitory",
        }
    }
}

/// Tier thresholds. Defaults are OpenClawBrain's (0.6 / [0.2, 0.6) / −0.01);
/// [`TierThresholds::crabpath_v2`] gives the older CrabPath paper's (0.8 / [0.3, 0.8)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TierThresholds {
    /// Reflex if `w >= reflex`.
    pub reflex: f64,
    /// Habitual if `lo <= w < hi` (half-open).
    pub habitual: (f64, f64),
    /// Inhibitory if `w <= inhibitory`.
    pub inhibitory: f64,
}

impl Default for TierThresholds {
    fn default() -> Self {
        TierThresholds {
            reflex: 0.6,
            habitual: (0.2, 0.6),
            inhibitory: -0.01,
        }
    }
}

impl TierThresholds {
    /// The CrabPath v2 paper's tiers: reflex > 0.8 (here `>= 0.8`), habitual [0.3, 0.8).
    pub fn crabpath_v2() -> Self {
        TierThresholds {
            reflex: 0.8,
            habitual: (0.3, 0.8),
            inhibitory: -0.01,
        }
    }

    /// Classifies a raw weight with the reference's precedence: inhibitory, reflex,
    /// habitual, dormant (reference `crabpath/traverse.py::_tier`). A habitual upper bound
    /// above the reflex threshold therefore changes nothing.
    #[inline]
    pub fn classify(&self, w: f64) -> Tier {
        if w <= self.inhibitory {
            Tier::Inhibitory
        } else if w >= self.reflex {
            Tier::Reflex
        } else if self.habitual.0 <= w && w < self.habitual.1 {
            Tier::Habitual
        } else {
            Tier::Dormant
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_boundaries() {
        let t = TierThresholds::default();
        assert_eq!(t.classify(-0.01), Tier::Inhibitory);
        assert_eq!(t.classify(-0.0099), Tier::Dormant);
        assert_eq!(t.classify(0.2), Tier::Habitual);
        assert_eq!(t.classify(0.5999), Tier::Habitual);
        assert_eq!(t.classify(0.6), Tier::Reflex);
        assert_eq!(t.classify(0.19), Tier::Dormant);
        // habitual upper bound above reflex: [0.6, 0.8) is still reflex (reference
        // `crabpath/traverse.py::_tier`)
        let wide = TierThresholds {
            habitual: (0.2, 0.8),
            ..t
        };
        assert_eq!(wide.classify(0.7), Tier::Reflex);
        // negative lower bound: small positives and small negatives become habitual
        let neg = TierThresholds {
            habitual: (-1.0, 0.8),
            ..t
        };
        assert_eq!(neg.classify(0.05), Tier::Habitual);
        assert_eq!(neg.classify(-0.005), Tier::Habitual);
        assert_eq!(neg.classify(-0.5), Tier::Inhibitory);
        let v2 = TierThresholds::crabpath_v2();
        assert_eq!(v2.classify(0.7), Tier::Habitual);
        assert_eq!(v2.classify(0.25), Tier::Dormant);
    }
}
