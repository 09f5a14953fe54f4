//! The CrabPath paper's (seed 000) figures from the v2 engine's results
//! (`results/v2/`, [`sims::v2`]), written under `figures/v2/`:
//!
//! * `four_arms[_corrected]`: per experiment, characters loaded per turn and accuracy of
//!   the four arms (seed 000 Tables 3 and 7; accuracy is measured but not printed there);
//! * `deploy_simulation[_corrected]`: the weights of the edges leaving `deploy_root`
//!   after each of the 15 episodes (seed 000 Table 6), with the 0.8 / 0.3 tier lines;
//! * `corrected_vs_myopic`: success rate per episode of the two credit rules, with 95 %
//!   Wilson bands over the seeds, one panel per task design.

use anyhow::{anyhow, Result};
use results::v2::{Comparison, DeploySimulation, Study};

use crate::data::{Doc, Profile, Results};
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// The four arms: result key and label.
const ARMS: [(&str, &str); 4] = [
    ("static", "static"),
    ("rag", "RAG top-8"),
    ("crabpath_corrected", "CrabPath corrected"),
    ("crabpath_myopic", "CrabPath myopic"),
];

fn suffix(profile: Profile) -> &'static str {
    match profile {
        Profile::Paper => "",
        Profile::Corrected => "_corrected",
    }
}

fn marked(title: &str, profile: Profile) -> String {
    match profile {
        Profile::Paper => title.to_string(),
        Profile::Corrected => format!("{title} [corrected]"),
    }
}

/// Characters per turn and accuracy of the four arms on the eight experiments.
pub fn four_arms(results: &Results, profile: Profile) -> Result<Figure> {
    let names: Vec<&str> = sims::v2::EXPERIMENTS.to_vec();
    let docs: Vec<(String, Comparison)> = names
        .iter()
        .map(|n| {
            let d = results
                .v2(profile, n)
                .ok_or_else(|| anyhow!("no v2/{}/{n} result", profile.as_str()))?;
            Ok((d.name.clone(), d.parse()?))
        })
        .collect::<Result<_>>()?;
    let categories: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let mut chars = BarChart::new(
        &marked("Characters loaded per turn (paper Tables 3, 7)", profile),
        "experiment",
        "mean characters per turn",
        categories.clone(),
    );
    chars.x_col = "experiment".into();
    chars.y_col = "avg_chars".into();
    chars.value_labels = false;
    let mut acc = BarChart::new(
        &marked("Accuracy (expected fragments loaded)", profile),
        "experiment",
        "share of episodes correct",
        categories,
    );
    acc.x_col = "experiment".into();
    acc.y_col = "accuracy".into();
    acc.value_labels = false;
    acc.y_range = Some((0.0, 1.1));
    acc.legend = Legend::UpperLeft;
    for (i, (key, label)) in ARMS.iter().enumerate() {
        let read = |field: fn(&results::v2::ArmResult) -> f64| -> Result<Vec<Option<f64>>> {
            docs.iter()
                .map(|(name, d)| {
                    d.arms
                        .get(*key)
                        .map(|a| Some(field(a)))
                        .ok_or_else(|| anyhow!("{name}: no arm {key}"))
                })
                .collect()
        };
        // Corrected and myopic load the same characters in every paper-profile run;
        // the character panel shows three arms as the paper does.
        if *key != "crabpath_myopic" {
            chars
                .series
                .push(BarSeries::new(*label, color(i), read(|a| a.avg_tokens)?));
        }
        acc.series
            .push(BarSeries::new(*label, color(i), read(|a| a.accuracy)?));
    }
    Ok(Figure {
        stem: format!("four_arms{}", suffix(profile)),
        size: (1400, 1000),
        title: None,
        grid: (2, 1),
        panels: vec![Panel::Bar(chars), Panel::Bar(acc)],
    })
}

/// The deploy simulation's root-edge weights per episode (Table 6).
pub fn deploy_simulation(doc: &Doc, profile: Profile) -> Result<Figure> {
    let d: DeploySimulation = doc.parse()?;
    let eps = &d.episodes;
    let first = eps
        .first()
        .map(|e| &e.root_weights)
        .ok_or_else(|| anyhow!("{}: no episodes", doc.name))?;
    let mut chart = LineChart::new(
        &marked(
            "Deploy simulation: w(deploy_root -> x) after each episode (paper Table 6)",
            profile,
        ),
        "episode",
        "edge weight",
        "episode",
        "weight",
    );
    chart.legend = Legend::MiddleRight;
    let n = eps.len() as f64;
    for (i, key) in first.keys().enumerate() {
        let pts = eps
            .iter()
            .enumerate()
            .map(|(j, e)| {
                e.root_weights
                    .get(key)
                    .map(|&w| ((j + 1) as f64, w))
                    .ok_or_else(|| anyhow!("{}: episode {} lacks {key}", doc.name, j + 1))
            })
            .collect::<Result<Vec<_>>>()?;
        chart
            .series
            .push(Series::new(format!("-> {key}"), color(i), pts));
    }
    let grey = plotters::style::RGBColor(0x88, 0x88, 0x88);
    chart
        .series
        .push(Series::hline("reflex above 0.8", grey, 0.8, 1.0, n));
    chart
        .series
        .push(Series::hline("dormant below 0.3", grey, 0.3, 1.0, n));
    Ok(Figure::single(
        format!("deploy_simulation{}", suffix(profile)),
        (1200, 650),
        Panel::Line(chart),
    ))
}

/// Success rate per episode, corrected vs myopic, one panel per design.
pub fn corrected_vs_myopic(doc: &Doc) -> Result<Figure> {
    let study: Study = doc.parse()?;
    let seeds = study.seeds;
    let mut panels = Vec::new();
    for d in &study.designs {
        let name = d.design.as_str();
        let mut chart = LineChart::new(name, "episode", "success rate", "episode", "success");
        chart.y_range = Some((0.0, 1.05));
        chart.legend = Legend::LowerRight;
        for (i, arm) in ["corrected", "myopic"].into_iter().enumerate() {
            let a = d
                .arms
                .get(arm)
                .ok_or_else(|| anyhow!("{}: design {name} has no arm {arm}", doc.name))?;
            let (rate, lo, hi) = (&a.success_rate, &a.success_ci95_low, &a.success_ci95_high);
            if lo.len() != rate.len() || hi.len() != rate.len() {
                return Err(anyhow!(
                    "{}: {name}/{arm}: band and rate lengths differ",
                    doc.name
                ));
            }
            let x = |e: usize| (e + 1) as f64;
            let mut s = Series::new(
                arm,
                color(i),
                rate.iter().enumerate().map(|(e, &r)| (x(e), r)).collect(),
            )
            .plain();
            s.band = Some((0..rate.len()).map(|e| (x(e), lo[e], hi[e])).collect());
            chart.series.push(s);
        }
        panels.push(Panel::Line(chart));
    }
    let cols = 2;
    Ok(Figure {
        stem: "corrected_vs_myopic".into(),
        size: (1400, 1000),
        title: Some(format!(
            "Corrected vs myopic policy gradient: success per episode, 95% Wilson bands over {seeds} paired seeds"
        )),
        grid: (panels.len().div_ceil(cols), cols),
        panels,
    })
}

/// Every v2 figure the results allow; a figure whose inputs are missing becomes a note.
pub fn render(results: &Results) -> Vec<(String, Result<Figure>)> {
    let mut out = Vec::new();
    for profile in Profile::ALL {
        out.push((
            format!("v2/four_arms{}", suffix(profile)),
            four_arms(results, profile),
        ));
        let stem = format!("v2/deploy_simulation{}", suffix(profile));
        let fig = results
            .v2(profile, sims::v2::DEPLOY_SIM)
            .ok_or_else(|| anyhow!("no {} result", stem))
            .and_then(|d| deploy_simulation(d, profile));
        out.push((stem, fig));
    }
    let study = results
        .v2_study
        .as_ref()
        .ok_or_else(|| anyhow!("no v2/corrected_vs_myopic result"))
        .and_then(corrected_vs_myopic);
    out.push(("v2/corrected_vs_myopic".into(), study));
    out
}
