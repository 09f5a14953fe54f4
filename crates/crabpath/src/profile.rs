//! Profiles: one implementation, two sets of configuration values and switches.
//!
//! * [`Profile::Paper`] — every behaviour of the reference v11.2.1, quirks and bugs
//!   included (REPRODUCE.md, discrepancies C1–C23), so that every published number is
//!   reproduced exactly.
//! * [`Profile::Corrected`] — the same system with the reference's bugs fixed:
//!
//! | # | reference behaviour (commit 134c676; REPRODUCE.md discrepancy) | corrected | why |
//! |---|---|---|---|
//! | 1 | outcomes update consecutive `fired` pairs (`learn.py::apply_outcome`; C1) | the traversed steps | pairs of `fired` that were never traversed (two seeds) get edges; REINFORCE is defined over the actions taken |
//! | 2 | Hebbian +0.06 after every heuristic update, whatever the sign (`learn.py::hebbian_update`; C2) | only after positive outcomes | a correction must not strengthen the edges it penalises (negation floor −0.94) |
//! | 3 | Hebbian also after PG (`learn.py::apply_outcome_pg`; C2) | off | PG is then a pure policy gradient, mass-conserving before clipping |
//! | 4 | PG ignores `config.temperature` (unless the argument ≤ 0) and `config.baseline` (`learn.py::apply_outcome_pg`; C4) | read from the config | a config field that is never read is a bug |
//! | 5 | correction edges end at weight 0.0 (`inject.py::inject_correction`; C9) | genuinely negative | the paper's corrections suppress their targets |
//! | 6 | autotune resets `min_weight`, promotion suggestions are no-ops, bounds [10, 500] (`autotune.py::apply_autotune`; C10) | fixed, paper bounds | |
//! | 7 | beam cut before de-duplicating targets (`traverse.py::traverse`; C5) | de-duplicate first | duplicate candidates waste beam slots |
//! | 8 | `fired_scores` overwritten by the latest hop (`traverse.py::traverse`; C5) | keeps the maximum | context order and inhibition use a node's best activation |
//! | 9 | `connect_learning_nodes` needs `file` metadata (`maintain.py::connect_learning_nodes`; C11) | not required | learning nodes have no file |
//! | 10 | every active edge with `w <= −0.01` vetoes its target (reference `traverse.py::traverse`); the outcome rules relabel kinds (`learn.py`) | only edges of kind `inhibitory` veto — the ones explicit corrections make (`inject.py::inject_correction`); outcome rules leave kinds alone | a learned weight `w(s,t)` is a logit of the choice at `s`: PG's update is the gradient of `log π(a \| s)` at `s` alone. As a veto the same weight also deletes `t` from every later decision, which the gradient never accounts for — pushing siblings down (what PG does on every success) then blocks a later node of the path it rewards. Without the veto a negative weight routes around `t` from `s` only (static_vs_learning: claim held in 49/200 seeds before, 200/200 after) |
//! | 11 | Hebbian co-firing raises every kept pair of `fired` up to the +1 clip (`learn.py::hebbian_update`) | only while the weight is below [`HEBBIAN_CEILING`] = 0.4, the middle of the habitual tier [0.2, 0.6) | co-firing credits pairs that were never traversed: such a pair gains +0.06 on every success and, never being traversed, can never be blamed, so unbounded it climbs to the +1 clip whatever its value, ties the credited path there, and the first failure on the path (which only weakens traversed edges) hands the route to the untested shortcut. Bounded inside the habitual tier, co-firing can still propose an association (make it a candidate the beam and routers consider, as context_reduction and domain_separation need) but never make it reflex; only outcome credit, which can also blame, moves an edge above. The bound's existence and its range follow from the rule and the tiers; the value within the range is a choice (0.2 breaks prune_health's traversal check, 0.6 leaves noise_robustness at 114/200) |
//! | 12 | autotune answers "many dormant edges" with half-life −10 although its reason reads "slow decay to preserve low-signal paths longer" (`autotune.py::autotune`) | +10 ([`AutotuneConfig::dormant_slows_decay`]) | a shorter half-life speeds decay: applied to a dead brain the reference's rule drives the half-life to its floor, and the round-30 dormant share falls by more than 0.01 against suggestions only in 122/200 seeds; with +10 in 200/200 (`sims autotune`, results/sims/autotune) |
//!
//! Each switch lives in the config struct it concerns; a profile only picks values.
//!
//! The fixes of the workspace bootstrap, session logs and journal (directory order,
//! `.gitignore` rules, unreadable files, decorators, JSON scalars in session logs, torn
//! journal lines, …) are tabled with their before/after values in the application crate
//! `crabpath-brain` (modules `workspace`, `chunk`, `session` and `journal`).

use serde::{Deserialize, Serialize};

use crate::decay::DecayConfig;
use crate::health::AutotuneConfig;
use crate::learn::{Hebbian, LearnOn, LearningConfig};
use crate::traverse::TraversalConfig;

/// The corrected profile's [`LearningConfig::hebbian_ceiling`]: the middle of the
/// default habitual tier [0.2, 0.6) (fix 11 in the module table).
pub const HEBBIAN_CEILING: f64 = 0.4;

/// Which semantics to run (ordered paper first, as results are listed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Bit-for-bit the reference.
    Paper,
    /// Bugs fixed (see the module table).
    Corrected,
}

impl Profile {
    /// Both profiles, paper first.
    pub const ALL: [Profile; 2] = [Profile::Paper, Profile::Corrected];

    /// `paper` / `corrected`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Paper => "paper",
            Profile::Corrected => "corrected",
        }
    }

    /// Default traversal config of this profile.
    pub fn traversal(self) -> TraversalConfig {
        self.adjust_traversal(TraversalConfig::default())
    }

    /// Applies this profile's traversal switches to a config built for a scenario.
    pub fn adjust_traversal(self, mut c: TraversalConfig) -> TraversalConfig {
        let fix = self == Profile::Corrected;
        c.dedup_before_beam = fix;
        c.keep_max_fired_score = fix;
        c.explicit_inhibition_only = fix;
        c
    }

    /// Default learning config of this profile.
    pub fn learning(self) -> LearningConfig {
        self.adjust_learning(LearningConfig::default())
    }

    /// Applies this profile's learning switches to a config built for a scenario.
    pub fn adjust_learning(self, mut c: LearningConfig) -> LearningConfig {
        match self {
            Profile::Paper => {
                c.learn_on = LearnOn::FiredPairs;
                c.hebbian_after_heuristic = Hebbian::Always;
                c.hebbian_after_pg = Hebbian::Always;
                c.pg_params_from_config = false;
                c.relabel_kinds = true;
                c.hebbian_ceiling = None;
            }
            Profile::Corrected => {
                c.learn_on = LearnOn::TraversedSteps;
                c.hebbian_after_heuristic = Hebbian::PositiveOnly;
                c.hebbian_after_pg = Hebbian::Off;
                c.pg_params_from_config = true;
                c.relabel_kinds = false;
                c.hebbian_ceiling = Some(HEBBIAN_CEILING);
            }
        }
        c
    }

    /// Default decay config (identical in both profiles).
    pub fn decay(self) -> DecayConfig {
        DecayConfig::default()
    }

    /// Autotune application rules.
    pub fn autotune(self) -> AutotuneConfig {
        match self {
            Profile::Paper => AutotuneConfig::default(),
            Profile::Corrected => AutotuneConfig::corrected(),
        }
    }

    /// Whether bug fixes are on (for switches held outside the config structs, e.g.
    /// injection and maintenance options).
    pub fn fixes_bugs(self) -> bool {
        self == Profile::Corrected
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "paper" => Ok(Profile::Paper),
            "corrected" => Ok(Profile::Corrected),
            other => Err(format!(
                "unknown profile `{other}` (expected paper or corrected)"
            )),
        }
    }
}
