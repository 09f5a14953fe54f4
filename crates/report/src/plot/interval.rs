//! Dot-and-whisker charts with the raw values behind each interval: arms, methods or
//! conditions side by side on one value axis, each drawn as its mean (a filled dot),
//! its 95 % interval (a whisker with caps) and the values it summarises (one hollow
//! circle per seed / split / query, spread sideways by a deterministic jitter).
//!
//! Input shape: one [`Interval`] per category, in axis order —
//! `{label, mean, ci: Option<(low, high)>, points: [value per unit], color}` — plus
//! optional dashed reference lines `(y, label)` (a claim's threshold, a baseline).
//! The chart does no statistics: the caller computes the mean and interval (e.g.
//! `sims::stats::summarize`), so that figures show the numbers the JSON stores.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{
    category_chart, dashed_guide, jitter, lighten, num_cell, padded_range, short, size, whisker,
};
use crate::font::FAMILY;

/// One category: a mean, its interval and the values behind them.
#[derive(Debug, Clone)]
pub struct Interval {
    /// Category name (x tick label).
    pub label: String,
    /// The summary value (a filled dot).
    pub mean: f64,
    /// `(low, high)` of the interval (a whisker), when known.
    pub ci: Option<(f64, f64)>,
    /// The individual values (one hollow circle each, in a lighter shade); may be
    /// empty. Non-finite values are skipped.
    pub points: Vec<f64>,
    /// Colour of the dot, whisker tint and points.
    pub color: RGBColor,
}

/// Categories side by side, each a mean with a 95 % interval and its values.
#[derive(Debug, Clone)]
pub struct IntervalChart {
    /// Panel title.
    pub title: String,
    /// Category axis description (what tells the categories apart).
    pub x_label: String,
    /// Value axis description (what is measured, with its unit).
    pub y_label: String,
    /// CSV column name for the category.
    pub x_col: String,
    /// CSV column name for the value.
    pub y_col: String,
    /// The categories, left to right.
    pub items: Vec<Interval>,
    /// Dashed horizontal reference lines `(y, label)`, e.g. a claim's threshold; the
    /// label is written under the line's left end.
    pub references: Vec<(f64, String)>,
    /// Fixed value range (default: the data, the references, padded).
    pub y_range: Option<(f64, f64)>,
    /// Print each mean above its category.
    pub value_labels: bool,
}

impl IntervalChart {
    /// A chart with no categories yet.
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_col: "category".into(),
            y_col: "value".into(),
            items: Vec::new(),
            references: Vec::new(),
            y_range: None,
            value_labels: true,
        }
    }

    /// The highest value drawn for item `i` (its points or its interval's top).
    fn top(it: &Interval) -> f64 {
        it.points
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .chain(it.ci.map(|c| c.1))
            .fold(it.mean, f64::max)
    }

    fn y_range(&self) -> Result<(f64, f64)> {
        if let Some(r) = self.y_range {
            return Ok(r);
        }
        let vals = self.items.iter().flat_map(|it| {
            it.points
                .iter()
                .copied()
                .chain([it.mean])
                .chain(it.ci.into_iter().flat_map(|(l, h)| [l, h]))
        });
        let refs = self.references.iter().map(|r| r.0);
        let (lo, hi) = padded_range(vals.chain(refs), 0.08)
            .ok_or_else(|| anyhow!("{}: no data", self.title))?;
        // Room above the tallest category for its value label.
        let top = if self.value_labels {
            hi + (hi - lo) * 0.08
        } else {
            hi
        };
        Ok((lo, top))
    }

    /// Draws the chart into `area`. Cost: one circle per point.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let n = self.items.len();
        if n == 0 {
            return Err(anyhow!("{}: no categories", self.title));
        }
        let (y0, y1) = self.y_range()?;
        let mut c = category_chart(
            area,
            &self.title,
            (&self.x_label, &self.y_label),
            self.items.iter().map(|i| i.label.clone()).collect(),
            (y0, y1),
        )?;
        for (y, label) in &self.references {
            let below = *y - (y1 - y0) * 0.008;
            let span = (-0.5, n as f64 - 0.5);
            dashed_guide(&mut c, span, *y, label, (-0.47, below), VPos::Top)?;
        }
        // Points spread over 60 % of a slot, narrower when there is one category.
        let spread = if n == 1 { 0.3 } else { 0.6 };
        for (i, it) in self.items.iter().enumerate() {
            let x = i as f64;
            let pale = lighten(it.color, 0.55);
            let pts: Vec<f64> = it
                .points
                .iter()
                .copied()
                .filter(|v| v.is_finite())
                .collect();
            c.draw_series(
                pts.iter().enumerate().map(|(k, v)| {
                    Circle::new((x + jitter(k) * spread, *v), 3, pale.stroke_width(1))
                }),
            )?;
            if let Some((lo, hi)) = it.ci {
                // About 9 px whatever the number of categories.
                let cap = (0.02 * n as f64).min(0.1);
                c.draw_series(whisker(x, (lo, hi), cap, false, BLACK.stroke_width(2)))?;
            }
            c.draw_series([
                Circle::new((x, it.mean), 6, it.color.filled()),
                Circle::new((x, it.mean), 6, BLACK.stroke_width(1)),
            ])?;
            if self.value_labels {
                let st = TextStyle::from((FAMILY, size::LEGEND).into_font())
                    .pos(Pos::new(HPos::Center, VPos::Bottom));
                let at = Self::top(it) + (y1 - y0) * 0.015;
                c.draw_series(std::iter::once(Text::new(short(it.mean), (x, at), st)))?;
            }
        }
        Ok(())
    }

    /// Tidy CSV: `<x_col>, <y_col>, <y_col>_ci95_low, <y_col>_ci95_high, n` — one row per
    /// category (the values themselves stay in the source JSON).
    pub fn table(&self) -> Vec<Vec<String>> {
        let y = &self.y_col;
        let mut rows = vec![vec![
            self.x_col.clone(),
            y.clone(),
            format!("{y}_ci95_low"),
            format!("{y}_ci95_high"),
            "n".into(),
        ]];
        for it in &self.items {
            rows.push(vec![
                it.label.clone(),
                num_cell(it.mean),
                it.ci.map(|c| num_cell(c.0)).unwrap_or_default(),
                it.ci.map(|c| num_cell(c.1)).unwrap_or_default(),
                match it.points.iter().filter(|v| v.is_finite()).count() {
                    0 => String::new(),
                    k => k.to_string(),
                },
            ]);
        }
        rows
    }
}
