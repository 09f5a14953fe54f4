//! Multi-seed aggregates of the corrected profile, drawn as comparisons: metrics that
//! measure the same quantity under different conditions or arms share one axis
//! ([`IntervalChart`]: mean, 95 % interval, one circle per seed), with the threshold of
//! the sim's machine-checked claim as a dashed line; arms measured on the same seeds
//! are compared by their paired differences ([`ForestPlot`]); aggregated series
//! (`multi_seed.series`, when present) are mean lines with a shaded 95 % band.
//!
//! Expected shapes (written by `sims`): `multi_seed.metrics.<name> = {pointer,
//! values: [per seed, null when missing], n, mean, ci95_low, ci95_high, …}`,
//! `multi_seed.claim_verdicts = ["PASS" | "FAIL" | …, per seed]`, `claim = {threshold,
//! comparison, …}` and, optionally, `multi_seed.series.<name> = {x, mean, ci95_low,
//! ci95_high, x_label?, y_label?}`. Metrics or series with missing numbers are left
//! out. No sim writes `multi_seed.series` today: the only per-query series the
//! RNG-built sims record is nodes fired per query, which is 5 on every query of every
//! seed except at 30 % noise.
//!
//! # Grouping rule (from the metric names, in the sim's headline order)
//! 1. A name `<quantity>_at_<condition>` belongs to group `<quantity>`, category
//!    `<condition>` (`0_3` reads `0.3`): e.g. `gap_at_0_0`, `gap_at_0_3`.
//! 2. Otherwise a name `<arm>_<quantity>` belongs to group `<quantity>`, category
//!    `<arm>`, when at least one other metric has the same `<quantity>`: e.g.
//!    `heuristic_total_edge_weight`, `pg_total_edge_weight`.
//! 3. The claim's own metric (pointer `/claim/value`) joins the group with the longest
//!    `<quantity>` its name contains, as a last, grey category named by the rest of its
//!    name (`min_correct_path_rate_last_10_up_to_0_2` → `min up to 0.2` in
//!    `correct_path_rate_last_10`); the claim's threshold is drawn on that panel.
//! 4. Every other metric is a group of its own.
//!
//! A group with two or more (non-claim) members also gets a forest panel: each member
//! minus the group's first member, per seed, with the Student-t interval of the mean
//! difference. Axis descriptions come from the sims' [`sims::sim::Metric`] `label`
//! (value axis) and `condition` (category axis).

use anyhow::{anyhow, Result};
use results::sims::{Claim, Envelope, MultiSeed};

use crate::data::Doc;
use crate::plot::forest::paired;
use crate::plot::{
    color, Figure, ForestPlot, Interval, IntervalChart, Legend, LineChart, Panel, Series,
};

/// One multi-seed metric as stored.
#[derive(Debug, Clone)]
struct Stored {
    name: String,
    values: Vec<Option<f64>>,
    mean: f64,
    ci: Option<(f64, f64)>,
    is_claim: bool,
    label: String,
    condition: String,
}

/// Metrics drawn on one axis.
#[derive(Debug, Clone)]
struct Group {
    quantity: String,
    /// `(category, metric)`, axis order.
    members: Vec<(String, Stored)>,
    /// Categories are arms (distinct colours) rather than levels of one condition.
    arms: bool,
    /// The claim's own metric joined this group (rule 3) or is it (rule 4).
    claim: bool,
}

/// The `<sim>_seeds` figure: one comparison panel per group, one forest panel per group
/// of several metrics, one band panel per series; three per row.
pub fn figure(doc: &Doc, sim: &str) -> Result<Figure> {
    let e: Envelope = doc.parse()?;
    let m = e
        .multi_seed
        .ok_or_else(|| anyhow!("{}: no multi_seed aggregate", doc.name))?;
    let n_seeds = m.seeds.len();
    let stored = stored_metrics(&m, sim);
    let groups = group(stored);
    let threshold = e.claim.as_ref().and_then(claim_threshold);
    let mut panels = Vec::new();
    let mut forests = Vec::new();
    for g in &groups {
        panels.push(Panel::Interval(interval_panel(g, threshold.as_ref())));
        if let Some(f) = forest_panel(g) {
            forests.push(Panel::Forest(f));
        }
    }
    panels.extend(forests);
    panels.extend(series_panels(&m));
    if panels.is_empty() {
        return Err(anyhow!(
            "{}: multi_seed has no metric with a mean",
            doc.name
        ));
    }
    // Two columns for four panels (2 × 2 rather than 3 + 1), else up to three.
    let cols = match panels.len() {
        n @ (1 | 2) => n,
        4 => 2,
        _ => 3,
    };
    let rows = panels.len().div_ceil(cols);
    let holds = m
        .checkable_claim_holds()
        .map(|(k, n)| format!("; claim holds in {k}/{n} seeds"))
        .unwrap_or_default();
    let width = if cols == 1 { 720 } else { 600 * cols as u32 };
    Ok(Figure {
        stem: format!("{sim}_seeds"),
        size: (width, 480 * rows as u32 + 76),
        title: Some(format!(
            "{sim} [corrected], {n_seeds} seeds{holds}\n\
             dot: mean · whisker: 95 % t-interval · circles: one per seed"
        )),
        grid: (rows, cols),
        panels,
    })
}

/// The stored metrics with a mean, in the sim's headline order (then document order),
/// with the headline's axis descriptions.
fn stored_metrics(m: &MultiSeed, sim: &str) -> Vec<Stored> {
    let headline = sims::scenarios::find(sim).map_or(&[][..], |s| s.headline());
    let mut out: Vec<(usize, Stored)> = Vec::new();
    for (i, (name, metric)) in m.metrics.iter().enumerate() {
        let Some(mean) = metric.mean else { continue };
        let h = headline.iter().position(|h| h.name == name);
        let meta = h.map(|i| headline[i]);
        out.push((
            h.unwrap_or(headline.len() + i),
            Stored {
                name: name.clone(),
                values: metric.values.clone(),
                mean,
                ci: metric.ci95_low.zip(metric.ci95_high),
                is_claim: metric.is_claim_value(),
                label: meta.map_or_else(|| "value".into(), |m| m.label.to_string()),
                condition: meta.map_or_else(String::new, |m| m.condition.to_string()),
            },
        ));
    }
    out.sort_by_key(|(k, _)| *k);
    out.into_iter().map(|(_, s)| s).collect()
}

/// Applies the grouping rule of the module docs.
fn group(stored: Vec<Stored>) -> Vec<Group> {
    let arm_split = |name: &str| {
        name.split_once('_')
            .map(|(a, q)| (a.to_string(), q.to_string()))
    };
    let plain: Vec<&Stored> = stored.iter().filter(|s| !s.is_claim).collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut push = |quantity: String, cat: String, s: &Stored, arms: bool| match groups
        .iter_mut()
        .find(|g| g.quantity == quantity && g.arms == arms)
    {
        Some(g) => g.members.push((cat, s.clone())),
        None => groups.push(Group {
            quantity,
            members: vec![(cat, s.clone())],
            arms,
            claim: false,
        }),
    };
    for s in &plain {
        if let Some(i) = s.name.rfind("_at_") {
            push(s.name[..i].into(), pretty(&s.name[i + 4..]), s, false);
            continue;
        }
        match arm_split(&s.name) {
            Some((arm, q))
                if plain.iter().any(|o| {
                    o.name != s.name && arm_split(&o.name).is_some_and(|(_, oq)| oq == q)
                }) =>
            {
                push(q, arm, s, true)
            }
            _ => push(s.name.clone(), "all seeds".into(), s, false),
        }
    }
    for s in stored.iter().filter(|s| s.is_claim) {
        let host = groups
            .iter_mut()
            .filter(|g| g.members.len() > 1 || g.members[0].0 != "all seeds")
            .filter(|g| s.name.contains(&g.quantity))
            .max_by_key(|g| g.quantity.len());
        match host {
            Some(g) => {
                let rest = s.name.replacen(&g.quantity, "", 1);
                let rest: Vec<&str> = rest.split('_').filter(|t| !t.is_empty()).collect();
                let cat = if rest.is_empty() {
                    "claim".into()
                } else {
                    pretty(&rest.join("_"))
                };
                g.members.push((cat, s.clone()));
                g.claim = true;
            }
            None => groups.insert(
                0,
                Group {
                    quantity: s.name.clone(),
                    members: vec![("all seeds".into(), s.clone())],
                    arms: false,
                    claim: true,
                },
            ),
        }
    }
    groups
}

/// `(threshold, "claim: ≥ 0.9")` of a single-predicate claim.
fn claim_threshold(claim: &Claim) -> Option<(f64, String)> {
    let Claim::One(p) = claim else {
        return None;
    };
    let t = p.threshold.as_f64()?;
    let sym = match p.comparison.as_str() {
        ">=" => "≥",
        "<=" => "≤",
        other => other,
    };
    Some((t, format!("claim: {sym} {}", crate::plot::short(t))))
}

fn interval_panel(g: &Group, threshold: Option<&(f64, String)>) -> IntervalChart {
    let first = &g.members[0].1;
    let mut c = IntervalChart::new(&pretty(&g.quantity), &first.condition, &first.label);
    c.x_col = if g.arms { "arm" } else { "condition" }.into();
    // The CSV file is named for the quantity (the panel title); its value column is
    // `mean` in every panel.
    c.y_col = "mean".into();
    for (i, (cat, s)) in g.members.iter().enumerate() {
        c.items.push(Interval {
            label: cat.clone(),
            mean: s.mean,
            ci: s.ci,
            points: s.values.iter().flatten().copied().collect(),
            color: if s.is_claim && g.members.len() > 1 {
                color(7)
            } else if g.arms {
                color(i)
            } else {
                color(0)
            },
        });
    }
    if g.claim {
        c.references.extend(threshold.cloned());
    }
    c
}

/// Each member minus the first, per seed, for a group of two or more metrics.
fn forest_panel(g: &Group) -> Option<ForestPlot> {
    let members: Vec<&(String, Stored)> = g.members.iter().filter(|m| !m.1.is_claim).collect();
    let ((base_cat, base), rest) = members.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let mut f = ForestPlot::new(
        &format!("Paired difference: {}", pretty(&g.quantity)),
        &format!("Δ {}", base.label),
        color(0),
    );
    f.value_col = "mean_difference".into();
    for (cat, s) in rest {
        f.rows.push(paired(
            format!("{cat} − {base_cat}"),
            &base.values,
            &s.values,
        ));
    }
    Some(f)
}

fn series_panels(m: &MultiSeed) -> Vec<Panel> {
    let mut panels = Vec::new();
    let Some(series) = &m.series else {
        return panels;
    };
    for (name, s) in series {
        let (mean, lo, hi) = (s.mean.clone(), s.ci95_low.clone(), s.ci95_high.clone());
        let x =
            s.x.clone()
                .unwrap_or_else(|| (1..=mean.len()).map(|i| i as f64).collect());
        if x.len() != mean.len() || lo.len() != mean.len() || hi.len() != mean.len() {
            continue;
        }
        let label = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
        let mut c = LineChart::new(
            &pretty(name),
            &label(&s.x_label, "query"),
            &label(&s.y_label, "value"),
            "x",
            name,
        );
        let mut line = Series::new(
            "mean (95 % band)",
            color(0),
            x.iter().copied().zip(mean).collect(),
        );
        line.marker = false;
        line.band = Some(
            x.iter()
                .zip(lo)
                .zip(hi)
                .map(|((x, l), h)| (*x, l, h))
                .collect(),
        );
        c.series.push(line);
        c.legend = Legend::UpperRight;
        panels.push(Panel::Line(c));
    }
    panels
}

/// `gap_at_0_3` → `gap at 0.3`.
fn pretty(name: &str) -> String {
    let s = name.replace('_', " ");
    // "0 3" → "0.3" where a metric name encodes a decimal.
    let mut out = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' '
            && i > 0
            && chars[i - 1] == '0'
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            && (i < 2 || chars[i - 2] == ' ')
        {
            out.push('.');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn names_read_as_numbers() {
        assert_eq!(pretty("gap_at_0_3"), "gap at 0.3");
        assert_eq!(pretty("0_3"), "0.3");
        assert_eq!(pretty("min_up_to_0_2"), "min up to 0.2");
        assert_eq!(pretty("pg_total_edge_weight"), "pg total edge weight");
    }

    fn metric(name: &str, pointer: &str, values: &[f64]) -> (String, Value) {
        let s = sims::stats::summarize(values);
        (
            name.to_string(),
            json!({"pointer": pointer, "values": values, "n": s.n, "mean": s.mean,
                   "std": s.std, "ci95_low": s.ci95_low, "ci95_high": s.ci95_high}),
        )
    }

    /// The grouping rule on the names of the noise_robustness and pg_vs_heuristic
    /// headlines (sims `scenarios/noise_robustness.rs`, `scenarios/pg_vs_heuristic.rs`).
    #[test]
    fn metrics_are_grouped_by_their_names() {
        let m: serde_json::Map<String, Value> = [
            metric("min_rate_up_to_0_2", "/claim/value", &[1.0, 0.0]),
            metric("rate_at_0_0", "/a", &[1.0, 1.0]),
            metric("rate_at_0_2", "/b", &[1.0, 0.0]),
            metric("gap_at_0_3", "/c", &[0.5, 0.25]),
            metric("pg_clipped_total_delta", "/d", &[-2.0, -2.0]),
            metric("heuristic_total_edge_weight", "/e", &[3.0, 4.0]),
            metric("pg_total_edge_weight", "/f", &[2.0, 2.5]),
        ]
        .into_iter()
        .collect();
        let doc = Doc::new(
            "t.json",
            json!({"claim": {"statement": "s", "metric": "m", "value": 1.0, "threshold": 0.9,
                             "comparison": ">=", "met": true, "note": ""},
                   "multi_seed": {"seeds": [1, 2], "document_seed": 1, "interval": "t",
                                  "metrics": m, "claim_verdicts": ["PASS", "FAIL"],
                                  "claim_holds_share": 0.5}}),
        );
        let e: Envelope = doc.parse().unwrap();
        let ms = e.multi_seed.unwrap();
        let groups = group(stored_metrics(&ms, "no_such_sim"));
        let shape: Vec<(String, Vec<String>, bool)> = groups
            .iter()
            .map(|g| {
                let cats = g.members.iter().map(|m| m.0.clone()).collect();
                (g.quantity.clone(), cats, g.claim)
            })
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shape,
            vec![
                ("rate".into(), s(&["0.0", "0.2", "min up to 0.2"]), true),
                ("gap".into(), s(&["0.3"]), false),
                ("pg_clipped_total_delta".into(), s(&["all seeds"]), false),
                ("total_edge_weight".into(), s(&["heuristic", "pg"]), false),
            ]
        );
        // Paired differences: the claim's metric is not a member of the comparison.
        let f = forest_panel(&groups[0]).unwrap();
        assert_eq!(f.rows.len(), 1);
        assert_eq!(f.rows[0].label, "0.2 − 0.0");
        assert_eq!(f.rows[0].points, vec![0.0, -1.0]);
        let f = forest_panel(&groups[3]).unwrap();
        assert_eq!(f.rows[0].label, "pg − heuristic");
        assert_eq!(f.rows[0].points, vec![-1.0, -1.5]);
        assert!(forest_panel(&groups[1]).is_none());
        assert_eq!(ms.checkable_claim_holds(), Some((1, 2)));
        let fig = figure(&doc, "t").unwrap();
        assert_eq!(fig.panels.len(), 6);
        let Panel::Interval(c) = &fig.panels[0] else {
            panic!("first panel is not an interval chart")
        };
        assert_eq!(c.references, vec![(0.9, "claim: ≥ 0.9".to_string())]);
    }
}
