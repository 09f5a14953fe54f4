//! Multi-seed aggregates of the corrected profile: every headline metric's mean with
//! its 95 % Student-t interval (`multi_seed.metrics`), and every aggregated series
//! (`multi_seed.series`, when present) as a mean line with a 95 % band.
//!
//! Expected shapes (written by `sims`):
//! `multi_seed.metrics.<name> = {n, mean, std, ci95_low, ci95_high, …}` and, optionally,
//! `multi_seed.series.<name> = {x: [..], mean: [..], ci95_low: [..], ci95_high: [..],
//! x_label?, y_label?}`. Metrics or series with missing numbers are left out.

use anyhow::{anyhow, Result};
use serde_json::Value;

use crate::data::{num, Doc};
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, LineChart, Panel, Series};

/// The `<sim>_seeds` figure: one panel per metric / series, three per row.
pub fn figure(doc: &Doc, sim: &str) -> Result<Figure> {
    let n_seeds = doc
        .opt("/multi_seed/seeds")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut panels = Vec::new();
    if let Some(metrics) = doc.opt("/multi_seed/metrics").and_then(Value::as_object) {
        for (name, m) in metrics {
            let get = |k: &str| m.get(k).and_then(num);
            let Some(mean) = get("mean") else { continue };
            let ci = get("ci95_low").zip(get("ci95_high"));
            let mut c = BarChart::new(
                &pretty(name),
                "",
                "value",
                vec![format!("n = {}", get("n").unwrap_or(0.0))],
            );
            c.x_col = "seeds".into();
            c.y_col = name.clone();
            c.legend = Legend::None;
            let mut s = BarSeries::new("mean", color(0), vec![Some(mean)]);
            s.intervals = vec![ci];
            s.labels = vec![Some(match ci {
                Some((lo, hi)) => format!("{} [{}, {}]", short(mean), short(lo), short(hi)),
                None => short(mean),
            })];
            c.series.push(s);
            panels.push(Panel::Bar(c));
        }
    }
    if let Some(series) = doc.opt("/multi_seed/series").and_then(Value::as_object) {
        for (name, s) in series {
            let arr =
                |k: &str| -> Option<Vec<f64>> { s.get(k)?.as_array()?.iter().map(num).collect() };
            let (Some(mean), Some(lo), Some(hi)) = (arr("mean"), arr("ci95_low"), arr("ci95_high"))
            else {
                continue;
            };
            let x = arr("x").unwrap_or_else(|| (1..=mean.len()).map(|i| i as f64).collect());
            if x.len() != mean.len() || lo.len() != mean.len() || hi.len() != mean.len() {
                continue;
            }
            let label =
                |k: &str, d: &str| s.get(k).and_then(Value::as_str).unwrap_or(d).to_string();
            let mut c = LineChart::new(
                &pretty(name),
                &label("x_label", "query"),
                &label("y_label", "value"),
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
    }
    if panels.is_empty() {
        return Err(anyhow!(
            "{}: multi_seed has no metric with a mean",
            doc.name
        ));
    }
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    let share = doc
        .opt("/multi_seed/claim_holds_share")
        .and_then(num)
        .map(|s| format!(", claim holds in {:.0} % of seeds", s * 100.0))
        .unwrap_or_default();
    Ok(Figure {
        stem: format!("{sim}_seeds"),
        size: (560 * cols as u32, 480 * rows as u32 + 40),
        title: Some(format!(
            "{sim} [corrected]: mean and 95 % interval over {n_seeds} seeds{share}"
        )),
        grid: (rows, cols),
        panels,
    })
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

/// Four significant digits, no trailing zeros.
fn short(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e5) {
        return format!("{v:.2e}");
    }
    crate::plot::tick((v * 1e4).round() / 1e4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers() {
        assert_eq!(pretty("gap_at_0_3"), "gap at 0.3");
        assert_eq!(pretty("reflex_at_0_3"), "reflex at 0.3");
        assert_eq!(pretty("pg_total_edge_weight"), "pg total edge weight");
        assert_eq!(short(0.56564198), "0.5656");
        assert_eq!(short(1.2e-15), "1.20e-15");
    }
}
