//! The simulation trait. Each of the 15 simulation scripts of the reference (`sims/*.py`,
//! commit 134c676) is one file under
//! `src/scenarios/` implementing [`Simulation`], listed once in
//! [`crate::scenarios::registry`].

use serde_json::Value;

pub use crabpath::Profile;

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
}

/// One simulation script of the reference (`sims/<name>.py`, commit 134c676).
///
/// To add a simulation: create `src/scenarios/<name>.rs` with a unit struct that
/// implements this trait, add `mod <name>;` and the struct to
/// [`crate::scenarios::registry`] (which keeps the order of reference `sims/run_all.py`), and run
/// `cargo test -p sims` — the reference test compares its paper-profile output with
/// `<name>_results.json` field by field.
pub trait Simulation: Send + Sync {
    /// File stem of the reference result file (`<name>_results.json`), e.g.
    /// `"deploy_pipeline"`; our output file is `<profile>/<name>.json`.
    fn name(&self) -> &'static str;

    /// Paper section / table the simulation backs.
    fn paper_ref(&self) -> &'static str;

    /// One-line description of the scenario.
    fn description(&self) -> &'static str;

    /// Whether the scenario draws from Python's `random` (`random.seed(42)` in the
    /// reference script); only these
    /// are run over several seeds.
    fn uses_rng(&self) -> bool;

    /// The paper's headline number(s) for the claims table.
    fn paper_value(&self) -> &'static str;

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

    /// The measured value shown next to the paper's number: by default the reference
    /// runner's summary column (reference `sims/run_all.py::_summary_value`).
    fn measured(&self, doc: &Value) -> String {
        crate::claims::summary(self.name(), doc)
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
