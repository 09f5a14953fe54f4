//! The `paper` and `corrected` configurations of the one v2 engine.
//!
//! A profile is configuration ([`EngineConfig`]) over one implementation; the profile
//! type itself is the workspace's one `crabpath::Profile`. The fixes of the corrected
//! profile, their reasons and before/after numbers are listed in the crate docs
//! ([`crate`]), each with a test in `tests/it/corrected.rs`.

use crabpath::Profile;

use crate::embed::VocabularySource;
use crate::learning::{Counting, LearningConfig, SoftmaxOver};
use crate::neurogenesis::NoveltyConfig;
use crate::router::TieBreak;

/// Where the four-arm runner's learning reward comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewardSource {
    /// The scenario file's `feedback.reward`, whatever was retrieved (reference).
    Scripted,
    /// +1 when the loaded text holds every expected fragment, −1 otherwise.
    Outcome,
}

/// Every switch that differs between the profiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineConfig {
    /// Which profile this is.
    pub profile: Profile,
    /// Weight-tie rule of the reflex choice and the arg-max router.
    pub ties: TieBreak,
    /// Vocabulary of the keyword index.
    pub vocabulary: VocabularySource,
    /// Learning rule parameters and switches.
    pub learning: LearningConfig,
    /// Whether the arms of one comparison share one baseline table.
    pub shared_baselines: bool,
    /// The four-arm runner's reward.
    pub reward: RewardSource,
    /// Neurogenesis novelty gate.
    pub novelty: NoveltyConfig,
}

impl EngineConfig {
    /// Bit-for-bit the reference (quirks included).
    pub fn paper() -> EngineConfig {
        EngineConfig {
            profile: Profile::Paper,
            ties: TieBreak::LargestId,
            vocabulary: VocabularySource::Contents,
            learning: LearningConfig::default(),
            shared_baselines: true,
            reward: RewardSource::Scripted,
            novelty: NoveltyConfig::paper(),
        }
    }

    /// The reference with the bugs fixed.
    pub fn corrected() -> EngineConfig {
        EngineConfig {
            profile: Profile::Corrected,
            ties: TieBreak::FirstListed,
            vocabulary: VocabularySource::EmbeddedTexts,
            learning: LearningConfig {
                temperature: CORRECTED_TEMPERATURE,
                softmax_over: SoftmaxOver::ChoiceSet,
                counting: Counting::Decisions,
                baseline_on_empty: false,
                ..LearningConfig::default()
            },
            shared_baselines: false,
            reward: RewardSource::Outcome,
            novelty: NoveltyConfig::corrected(),
        }
    }

    /// The configuration of `profile`.
    pub fn for_profile(profile: Profile) -> EngineConfig {
        match profile {
            Profile::Paper => EngineConfig::paper(),
            Profile::Corrected => EngineConfig::corrected(),
        }
    }
}

/// The corrected profile's policy temperature: the reference's configured (and unused)
/// traversal and router temperature, 0.2.
pub const CORRECTED_TEMPERATURE: f64 = 0.2;
