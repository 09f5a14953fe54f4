//! The simulations, one file each, and the registry that lists them in the reference
//! runner's order (reference `sims/run_all.py`).

pub mod common;
pub mod forced_graph;

pub(crate) mod brain_death;
mod context_reduction;
mod deploy_pipeline;
mod domain_separation;
mod edge_damping;
mod forgetting;
mod individuation;
mod merge_compression;
mod negation;
mod noise_robustness;
mod pg_vs_heuristic;
mod prune_health;
pub mod scaling_analysis;
mod static_vs_learning;
mod structural_vs_edge_only;

use crate::sim::Simulation;

/// The order in which reference `sims/run_all.py` runs the 15 scripts, by file
/// stem of their result files.
pub const RUN_ALL_ORDER: [&str; 15] = [
    "deploy_pipeline",
    "negation",
    "context_reduction",
    "pg_vs_heuristic",
    "merge_compression",
    "prune_health",
    "structural_vs_edge_only",
    "noise_robustness",
    "static_vs_learning",
    "scaling_analysis",
    "forgetting",
    "edge_damping",
    "domain_separation",
    "brain_death",
    "individuation",
];

/// The reference program's 15 simulations (they back the OpenClawBrain paper), in
/// [`RUN_ALL_ORDER`].
pub fn reference_group() -> Vec<&'static dyn Simulation> {
    vec![
        &deploy_pipeline::DeployPipeline,
        &negation::Negation,
        &context_reduction::ContextReduction,
        &pg_vs_heuristic::PgVsHeuristic,
        &merge_compression::MergeCompression,
        &prune_health::PruneHealth,
        &structural_vs_edge_only::StructuralVsEdgeOnly,
        &noise_robustness::NoiseRobustness,
        &static_vs_learning::StaticVsLearning,
        &scaling_analysis::ScalingAnalysis,
        &forgetting::Forgetting,
        &edge_damping::EdgeDamping,
        &domain_separation::DomainSeparation,
        &brain_death::BrainDeath,
        &individuation::Individuation,
    ]
}

/// Every simulation, group after group: the [`reference_group`], then any further
/// group (e.g. the CrabPath paper's own experiments), each simulation's card naming
/// the paper it backs. `run`, `check`, `claims` and `report` take this list.
pub fn registry() -> Vec<&'static dyn Simulation> {
    reference_group()
}

/// Every simulation's card, with its name, in registry order.
pub fn cards() -> Vec<(&'static str, crate::paper::Card)> {
    registry().iter().map(|s| (s.name(), s.card())).collect()
}

/// What does not match between the simulations' cards and their expected values
/// (`results/sims/expected.json`): rows without values, values without a row, entries
/// for no simulation. `sims check` fails on any.
pub fn expected_problems() -> Vec<String> {
    use crate::paper::expected;
    let all = registry();
    let mut out = Vec::new();
    for s in &all {
        let card = s.definition();
        let defined = expected::defined(&card.tables, Some(&card.summary));
        out.extend(expected::coverage(
            &format!("{} ({})", s.name(), expected::SIMS_PATH),
            expected::sim_tables(s.name()),
            &defined,
        ));
    }
    for name in expected::sims().sims.keys() {
        if !all.iter().any(|s| s.name() == name) {
            out.push(format!(
                "{}: expected values for `{name}`, which is no simulation",
                expected::SIMS_PATH
            ));
        }
    }
    out
}

/// The simulation with this name (file stem).
pub fn find(name: &str) -> Option<&'static dyn Simulation> {
    registry().into_iter().find(|s| s.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::Paper;

    #[test]
    fn the_reference_group_is_exactly_the_15_simulations_in_run_all_order() {
        let names: Vec<&str> = reference_group().iter().map(|s| s.name()).collect();
        assert_eq!(names, RUN_ALL_ORDER);
        for s in reference_group() {
            assert_eq!(s.card().paper, Paper::OpenClawBrain, "{}", s.name());
        }
    }

    #[test]
    fn every_card_row_has_expected_values_and_every_value_a_row() {
        let problems = expected_problems();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn names_are_unique_and_found() {
        let all = registry();
        for (i, s) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|o| o.name() != s.name()),
                "{} twice",
                s.name()
            );
            assert_eq!(find(s.name()).map(|f| f.name()), Some(s.name()));
        }
        assert!(find("no_such_sim").is_none());
    }
}
