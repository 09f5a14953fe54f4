//! `bench guard`'s arms and what one question's answers were under one (issue 31
//! item 4; the protocol is [`crate::guard`]'s, the diagnosis [`crate::guard_causes`]'s).

use crabpath_brain::service::CorrectionMode;

/// What an arm does to each wrong answer: the product's correction under a rule, or
/// one part of the old guardrail rule alone (the diagnosis of what made related
/// questions lose, [`crate::guard_causes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arm {
    /// `Brain::correct_with` with this rule.
    Rule(CorrectionMode),
    /// Nothing is corrected; every question is asked again (what moves without a
    /// correction: question nodes born between the two askings).
    Nothing,
    /// The correction's node alone, linked as [`CorrectionMode::GuardrailShared`] links
    /// it, attributed to no turn (so nothing learns).
    NodeOnly,
    /// The corrected turn's outcome −1 alone, learned along its fired nodes as the
    /// shared rule learns it (`Brain::learn`), without a correction node.
    LearnOnly,
}

impl Arm {
    /// The arm's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Arm::Rule(m) => m.as_str(),
            Arm::Nothing => "cause:nothing",
            Arm::NodeOnly => "cause:node-only",
            Arm::LearnOnly => "cause:learn-only",
        }
    }
}

/// What happened to one question under one arm.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub before: Vec<String>,
    pub after: Vec<String>,
    /// The answer after: a correction seeded it / it came with a guardrail.
    pub after_guard_seeded: bool,
    pub after_guarded: bool,
    pub corrected: bool,
    /// Links of its correction, and how many reach its evidence.
    pub links: usize,
    pub links_to_evidence: usize,
}

/// Recall of `relevant` in the first `k` of `ranked`.
pub(crate) fn recall(relevant: &[String], ranked: &[String], k: usize) -> f64 {
    if relevant.is_empty() {
        return 0.0;
    }
    let top = &ranked[..ranked.len().min(k)];
    relevant.iter().filter(|r| top.contains(r)).count() as f64 / relevant.len() as f64
}
