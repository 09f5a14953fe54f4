//! The simulations' documents (`results/sims/<profile>/<name>.json`, written by `sims`
//! in Python's `json.dumps(indent=2)` format).
//!
//! A paper-profile document is the reference program's result file (reference
//! `sims/*.py`, commit 134c676): the scenario's body, its claim where the reference puts
//! it. A corrected-profile document is [`Corrected`]: the same body (with the corrected
//! run's extra measurements), then `profile`, `seed`, `rng`, the reference's claim it
//! restates, the scenario's own fields, the machine-checked [`Claim`] and, for a
//! multi-seed run, the [`MultiSeed`] aggregate. Each scenario's module holds its body, its
//! reference claim and its corrected fields; [`scenario docs`](self) are read by `report`
//! by field name.

mod claim;
mod multi_seed;

pub mod brain_death;
pub mod context_reduction;
pub mod deploy_pipeline;
pub mod domain_separation;
pub mod edge_damping;
pub mod forgetting;
pub mod individuation;
pub mod merge_compression;
pub mod negation;
pub mod noise_robustness;
pub mod pg_vs_heuristic;
pub mod prune_health;
pub mod scaling_analysis;
pub mod static_vs_learning;
pub mod structural_vs_edge_only;

pub use claim::{verdict_word, AllOf, Claim, Cmp, Predicate};
pub use multi_seed::{MultiSeed, SeedMetric, SeriesBand};

use serde::{Deserialize, Serialize};

/// No fields: the corrected fields of a scenario that adds none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoExtra {}

/// A paper-profile document of the usual shape: the scenario's body `B`, then the
/// reference's claim `C` (each scenario's `Paper` names its own; `deploy_pipeline` adds
/// the reference's note and has a type of its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paper<B, C> {
    /// The scenario's body.
    #[serde(flatten)]
    pub body: B,
    /// The reference's claim.
    pub claim: C,
}

/// A corrected-profile document: the body `B`, the header, the reference claim `R` it
/// restates (when the scenario keeps it), the scenario's fields `X`, the claim, and the
/// multi-seed aggregate (added by the runner over several seeds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Corrected<B, X = NoExtra, R = serde_json::Value> {
    /// The scenario's body.
    #[serde(flatten)]
    pub body: B,
    /// `corrected`.
    pub profile: String,
    /// The seed the document was run with.
    pub seed: u64,
    /// How the seed drives the scenario's random draws.
    pub rng: String,
    /// The reference's claim, as its own profile states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_claim: Option<R>,
    /// The scenario's own corrected-profile fields.
    #[serde(flatten)]
    pub extra: X,
    /// The machine-checked claim.
    pub claim: Claim,
    /// Over several seeds: the aggregate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_seed: Option<MultiSeed>,
}

impl<B, X, R> Corrected<B, X, R> {
    /// A corrected document of `body` run with `seed`.
    pub fn new(
        body: B,
        seed: u64,
        rng: impl Into<String>,
        reference_claim: Option<R>,
        extra: X,
        claim: Claim,
    ) -> Self {
        Corrected {
            body,
            profile: "corrected".into(),
            seed,
            rng: rng.into(),
            reference_claim,
            extra,
            claim,
            multi_seed: None,
        }
    }
}

/// What any simulation document has for a reader of claims and aggregates: the
/// machine-checked claim (a corrected-profile document's; `None` for the reference's
/// claims of the paper profile) and the multi-seed aggregate.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Envelope {
    /// The machine-checked claim.
    #[serde(default, deserialize_with = "claim_if_checked")]
    pub claim: Option<Claim>,
    /// The aggregate over several seeds.
    #[serde(default)]
    pub multi_seed: Option<MultiSeed>,
}

/// A `claim` that is a [`Claim`], or `None` for a reference-shaped claim.
fn claim_if_checked<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Claim>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}
