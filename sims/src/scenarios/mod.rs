//! The simulations, one file each, and the registry that lists them in the reference
//! runner's order (reference `sims/run_all.py`).

pub mod common;
pub mod forced_graph;

mod brain_death;
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

/// Every implemented simulation, in [`RUN_ALL_ORDER`].
pub fn registry() -> Vec<&'static dyn Simulation> {
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

/// The implemented simulation with this name (file stem).
pub fn find(name: &str) -> Option<&'static dyn Simulation> {
    registry().into_iter().find(|s| s.name() == name)
}

/// The reference simulations not implemented yet.
pub fn missing() -> Vec<&'static str> {
    let have: Vec<&str> = registry().iter().map(|s| s.name()).collect();
    RUN_ALL_ORDER
        .iter()
        .copied()
        .filter(|n| !have.contains(n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_follows_run_all_order_without_duplicates() {
        let names: Vec<&str> = registry().iter().map(|s| s.name()).collect();
        let positions: Vec<usize> = names
            .iter()
            .map(|n| {
                RUN_ALL_ORDER
                    .iter()
                    .position(|r| r == n)
                    .unwrap_or_else(|| panic!("{n} is not a reference simulation"))
            })
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "registry must follow RUN_ALL_ORDER without duplicates: {names:?}"
        );
    }
}
