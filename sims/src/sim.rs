//! The simulation trait. Each simulation is one file under `src/scenarios/` implementing
//! [`Simulation`] — its scenario and its [`Card`] (what the paper says about it) — and
//! is listed once in [`crate::scenarios::registry`]. The reference program's 15
//! simulation scripts (`sims/*.py`, commit 134c676) form the first group.

use serde::Serialize;
use serde_json::Value;

pub use crabpath::Profile;

use crate::paper::Card;

/// The seed of the reference: every RNG-built scenario uses `random.seed(42)` /
/// `random.Random(42)` (reference `sims/*.py`). The paper profile always runs with it; the
/// corrected profile's multi-seed runs start from it (seeds 42, 43, …).
pub const PAPER_SEED: u64 = 42;

/// A headline metric of a simulation: aggregated over seeds in multi-seed runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// Name used in the aggregate (`multi_seed.metrics.<name>`).
    pub name: &'static str,
    /// JSON pointer (RFC 6901) into the sim's document; the value must be a number or
    /// a boolean (counted as 1 / 0).
    pub pointer: &'static str,
    /// What the metric measures, with its unit (booleans: "… (1 = yes)"): the value
    /// axis of the multi-seed figure (`report`, `<sim>_seeds`). Metrics that the
    /// figure groups on one axis share it.
    pub label: &'static str,
    /// What tells this metric apart from the others of its group — the condition
    /// after `_at_` in its name (e.g. "noise rate (share of outcomes flipped)") or
    /// the arm before the first `_` (e.g. "learning rule"): the category axis of the
    /// multi-seed figure. Empty for a metric compared with nothing.
    pub condition: &'static str,
}

/// One simulation: a scenario run under a profile, and what the paper says about it.
///
/// To add a simulation: create `src/scenarios/<name>.rs` with a unit struct that
/// implements this trait — the scenario ([`Simulation::run`]) and its [`Card`] (paper
/// tables, summary rows, claims, figures, the reference's verdict;
/// [`Simulation::definition`]) — put its rows' numbers into `results/sims/expected.json`
/// ([`crate::paper::expected`]), and add it to its group in [`crate::scenarios::registry`];
/// for each figure stem the card lists, `report` needs a builder. `cargo test
/// --workspace` then checks that the expected values cover the card's rows exactly, the
/// paper profile against the committed reference output (when the group has one), the
/// card's reference values against the same files, and that every figure has a builder.
pub trait Simulation: Send + Sync {
    /// File stem of the reference result file (`<name>_results.json`), e.g.
    /// `"deploy_pipeline"`; our output file is `<profile>/<name>.json`.
    fn name(&self) -> &'static str;

    /// Whether the scenario draws from Python's `random` (`random.seed(42)` in the
    /// reference script); only these are run over several seeds.
    fn uses_rng(&self) -> bool;

    /// What the paper says about the simulation and how to read our numbers for it,
    /// without the numbers: its tables' rows (labels and how to read our value), claims,
    /// figures, the reference's verdict. [`Simulation::card`] adds the numbers.
    fn definition(&self) -> Card;

    /// [`Simulation::definition`] with each row's paper and reference values (and
    /// agreement, note) from `results/sims/expected.json` ([`crate::paper::expected`]).
    fn card(&self) -> Card {
        crate::paper::expected::fill_card(self.name(), self.definition())
    }

    /// The key paths of this simulation's document under `profile` that hold wall-clock
    /// measurements (`a.b[*].c`, see [`crate::compare::generic_path`]): compared by
    /// presence and type only. Empty by default; everything else is compared exactly.
    fn timing_fields(&self, profile: Profile) -> &'static [&'static str] {
        let _ = profile;
        &[]
    }

    /// Metrics aggregated over seeds (RNG-dependent sims); empty by default.
    fn headline(&self) -> &'static [Metric] {
        &[]
    }

    /// The measured value `sims claims` shows beside the paper's numbers for a document
    /// without a machine-checked predicate: by default the reference runner's summary
    /// column ([`crate::claims::summary`]).
    fn measured(&self, doc: &Value) -> String {
        crate::claims::summary(doc)
    }

    /// Runs the scenario and returns its JSON document, keys in construction order.
    /// `seed` only matters when [`Simulation::uses_rng`]; the paper profile is run
    /// with [`PAPER_SEED`].
    fn run(&self, profile: Profile, seed: u64) -> anyhow::Result<Value>;
}

impl std::fmt::Debug for dyn Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A scenario's typed document (a type of `results::sims`) as the runner handles it: a
/// JSON value whose keys are in field order.
pub fn document<T: Serialize>(doc: &T) -> anyhow::Result<Value> {
    Ok(serde_json::to_value(doc)?)
}

/// `v`'s compact JSON text (`5.0`, `[["a->b",-0.4]]`), as a note quotes a value.
pub fn json_text<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
