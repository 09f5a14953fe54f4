//! Figure builders, one module per figure family. Each builder turns one result
//! document into a [`Figure`](crate::plot::Figure); [`render_all`] runs every builder
//! for which an input exists and turns failures (missing fields) into skip notes.
//!
//! Each simulation's card lists the figure stems drawn from its documents; [`builder`]
//! maps a stem to its builder. Simulations with a figure in the reference (reference
//! `sims/generate_figures.py`, commit 134c676):
//! deploy_pipeline, negation, context_reduction, forgetting, edge_damping,
//! domain_separation, brain_death, individuation — same plot type, series, axes and
//! titles. The other seven get figures of their headline quantities. Corrected-profile
//! documents are drawn by the same builders (title marked "corrected"), and multi-seed
//! aggregates additionally by [`seeds`].

pub mod bench;
pub mod brain_death;
pub mod common;
pub mod context_reduction;
pub mod deploy_pipeline;
pub mod domain_separation;
pub mod edge_damping;
pub mod forgetting;
pub mod heldout;
pub mod individuation;
pub mod locomo;
pub mod merge_compression;
pub mod negation;
pub mod noise_robustness;
pub mod peers;
pub mod pg_vs_heuristic;
pub mod prune_health;
pub mod repo;
pub mod scaling;
pub mod scaling_study;
pub mod seeds;
pub mod static_vs_learning;
pub mod structural;
pub mod v2;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use results::sims::Envelope;

use crate::artifact::Artifact;
use crate::data::{Notes, Profile, Results};
use common::{Builder, Ctx};

/// The simulation figure builders, by the stem a card lists
/// ([`sims::paper::Card::figures`]).
pub const BUILDERS: [(&str, Builder); 15] = [
    ("deploy_pipeline", deploy_pipeline::figure),
    ("negation", negation::figure),
    ("context_reduction", context_reduction::figure),
    ("forgetting", forgetting::figure),
    ("edge_damping", edge_damping::figure),
    ("domain_separation", domain_separation::figure),
    ("brain_death", brain_death::figure),
    ("individuation", individuation::figure),
    ("pg_vs_heuristic", pg_vs_heuristic::figure),
    ("merge_compression", merge_compression::figure),
    ("prune_health", prune_health::figure),
    ("structural_vs_edge_only", structural::figure),
    ("noise_robustness", noise_robustness::figure),
    ("static_vs_learning", static_vs_learning::figure),
    ("scaling_analysis", scaling::figure),
];

/// The builder of figure `stem`.
pub fn builder(stem: &str) -> Option<Builder> {
    BUILDERS.iter().find(|(s, _)| *s == stem).map(|(_, b)| *b)
}

/// Renders every figure the results allow, in a fixed order.
pub fn render_all(results: &Results, out: &Path, notes: &mut Notes) -> Result<Vec<Artifact>> {
    let mut arts = Vec::new();
    let sims: Vec<(&str, &[&str])> = sims::scenarios::registry()
        .iter()
        .map(|s| (s.name(), s.card().figures))
        .collect();
    for profile in Profile::ALL {
        for &(sim, stems) in &sims {
            let Some(doc) = results.sim(profile, sim) else {
                continue;
            };
            let ctx = Ctx { profile };
            for stem in stems {
                let built = match builder(stem) {
                    Some(build) => build(doc, ctx),
                    None => Err(anyhow!("no builder for figure `{stem}`")),
                };
                match built.and_then(|f| f.artifacts(out, profile.as_str())) {
                    Ok(a) => arts.extend(a),
                    Err(e) => {
                        notes.push(format!("figure {}/{stem} skipped: {e:#}", profile.as_str()))
                    }
                }
            }
            let aggregated = doc
                .parse::<Envelope>()
                .is_ok_and(|e| e.multi_seed.is_some());
            if aggregated {
                match seeds::figure(doc, sim).and_then(|f| f.artifacts(out, profile.as_str())) {
                    Ok(a) => arts.extend(a),
                    Err(e) => notes.push(format!(
                        "figure {}/{sim}_seeds skipped: {e:#}",
                        profile.as_str()
                    )),
                }
            }
        }
    }
    drop_csvs_equal_to_paper(&mut arts, out);
    for (name, doc) in results
        .bench
        .iter()
        .filter(|(_, d)| crate::heldout_view::drawn(&d.report))
    {
        match heldout::figure(doc, name).and_then(|f| f.artifacts(out, "bench")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!("figure bench/{name}-heldout skipped: {e:#}")),
        }
    }
    for (name, doc) in results.bench.iter().filter(|(_, d)| {
        d.report.heldout().is_none()
            && d.report.locomo().is_none()
            && !matches!(d.report.sections, results::bench::Sections::Product(_))
    }) {
        match bench::learning_curves(doc, name).and_then(|f| f.artifacts(out, "bench")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!(
                "figure bench/{name} learning curves skipped: {e:#}"
            )),
        }
    }
    for (name, report) in locomo::reports(results) {
        match locomo::figure(report, name).and_then(|f| f.artifacts(out, "bench")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!("figure bench/{name}-by-category skipped: {e:#}")),
        }
    }
    if let Some(doc) = &results.peers {
        match peers::figure(doc).and_then(|f| f.artifacts(out, "bench")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!("figure bench/{} skipped: {e:#}", peers::STEM)),
        }
    }
    for fig in bench::protocol_comparisons(&results.bench, notes) {
        arts.extend(fig.artifacts(out, "bench")?);
    }
    if let Some(doc) = results.repo.get(repo::GRAPH_DOC) {
        match repo::figure(doc).and_then(|f| f.artifacts(out, "repo")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!("figure repo/{} skipped: {e:#}", repo::STEM)),
        }
    }
    for (stem, fig) in v2::render(results) {
        match fig.and_then(|f| f.artifacts(out, "v2")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!("figure {stem} skipped: {e:#}")),
        }
    }
    for (name, doc) in &results.scaling {
        match scaling_study::figure(doc, name).and_then(|f| f.artifacts(out, "scaling")) {
            Ok(a) => arts.extend(a),
            Err(e) => notes.push(format!("figure scaling/{name} skipped: {e:#}")),
        }
    }
    Ok(arts)
}

/// Drops each corrected-profile CSV that is byte-identical to the paper profile's CSV
/// of the same name (a series the corrections do not change), so that no file is
/// stored twice; the corrected figure itself is kept (its title differs).
fn drop_csvs_equal_to_paper(arts: &mut Vec<Artifact>, out: &Path) {
    let (paper, corrected) = (out.join("csv/paper"), out.join("csv/corrected"));
    let paper_csvs: std::collections::BTreeMap<PathBuf, Vec<u8>> = arts
        .iter()
        .filter_map(|a| {
            let rel = a.path.strip_prefix(&paper).ok()?;
            Some((rel.to_path_buf(), a.bytes.clone()))
        })
        .collect();
    arts.retain(|a| match a.path.strip_prefix(&corrected) {
        Ok(rel) => paper_csvs.get(rel) != Some(&a.bytes),
        Err(_) => true,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure a card lists has a builder, and every builder is listed by a card.
    #[test]
    fn every_card_figure_has_a_builder() {
        let stems: Vec<&str> = sims::scenarios::registry()
            .iter()
            .flat_map(|s| s.card().figures.to_vec())
            .collect();
        for stem in &stems {
            assert!(builder(stem).is_some(), "no builder for {stem}");
        }
        for (stem, _) in BUILDERS {
            assert!(stems.contains(&stem), "builder {stem} is listed by no card");
        }
    }
}
