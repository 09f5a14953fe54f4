//! Entry points for callers (the `sims` binary, `report`): each takes a graph and its
//! scenarios and returns plain data, so a caller never needs the engine's internals.
//!
//! * [`compare`]: the four-arm comparison on ANY graph + scenario pair (Tables 3, 7);
//! * [`deploy_sim`]: the deploy simulation (Table 6);
//! * [`simulate`]: the simulator (giraffe_test, forbidden_door);
//! * [`corrected_vs_myopic`]: the multi-seed experiment the paper never ran.

pub mod myopic;

pub use myopic::{corrected_vs_myopic, Design, MyopicOptions, MyopicStudy};

use crabpath::Profile;

use crate::deploy::DeploySimulation;
use crate::graph::Graph;
use crate::io::Scenario;
use crate::learning::{Baselines, Credit};
use crate::profile::EngineConfig;
use crate::runner::{CompareOptions, ComparisonRun};
use crate::simulator::Simulation;

/// The four-arm comparison of `scenarios` on `graph` (left unchanged; every arm learns
/// on its own copy). `experiment` names the result (the reference uses the scenario
/// file's stem). Serialise `result.to_json()` for the reference runner's document.
pub fn compare(
    graph: &Graph,
    experiment: &str,
    scenarios: &[Scenario],
    opts: &CompareOptions,
) -> ComparisonRun {
    crate::runner::compare(graph, experiment, scenarios, opts)
}

/// The deploy simulation with the corrected (all-steps) rule in `profile`, on a copy of
/// `graph`.
pub fn deploy_sim(graph: &Graph, scenarios: &[Scenario], profile: Profile) -> DeploySimulation {
    let mut g = graph.clone();
    crate::deploy::deploy_sim(
        &mut g,
        scenarios,
        &EngineConfig::for_profile(profile),
        Credit::Corrected,
        true,
    )
}

/// The simulator on a copy of `graph` in `profile`, in a fresh process (empty baseline
/// table), with every weight recorded after every episode.
pub fn simulate(graph: &Graph, scenarios: &[Scenario], profile: Profile) -> Simulation {
    let mut g = graph.clone();
    crate::simulator::simulate(
        &mut g,
        scenarios,
        &EngineConfig::for_profile(profile),
        &mut Baselines::new(),
        true,
    )
}
