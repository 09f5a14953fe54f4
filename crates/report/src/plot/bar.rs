//! Grouped bar charts with optional 95 % whiskers and value labels.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{
    category_chart, dashed_guide, num_cell, padded_range, size, tick, whisker, Legend,
};
use crate::font::FAMILY;

/// One series of bars (one bar per category).
#[derive(Debug, Clone)]
pub struct BarSeries {
    /// Legend label (empty: no legend entry).
    pub name: String,
    /// Bar colour (used when `colors` is empty).
    pub color: RGBColor,
    /// Per-category colours (overrides `color`).
    pub colors: Vec<RGBColor>,
    /// One value per category; `None` leaves a gap.
    pub values: Vec<Option<f64>>,
    /// Optional `(low, high)` interval per category, drawn as a whisker.
    pub intervals: Vec<Option<(f64, f64)>>,
    /// Optional text above each bar (default: the value).
    pub labels: Vec<Option<String>>,
}

impl BarSeries {
    /// A series with values only.
    pub fn new(name: impl Into<String>, color: RGBColor, values: Vec<Option<f64>>) -> Self {
        Self {
            name: name.into(),
            color,
            colors: Vec::new(),
            values,
            intervals: Vec::new(),
            labels: Vec::new(),
        }
    }
}

/// A grouped bar chart over named categories.
#[derive(Debug, Clone)]
pub struct BarChart {
    /// Panel title.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Y axis description.
    pub y_label: String,
    /// CSV column name for the category.
    pub x_col: String,
    /// CSV column name for the value.
    pub y_col: String,
    /// Category names (x tick labels).
    pub categories: Vec<String>,
    /// Series; bars of one category are placed side by side.
    pub series: Vec<BarSeries>,
    /// Fixed y range (default: data range including 0).
    pub y_range: Option<(f64, f64)>,
    /// Print values above the bars.
    pub value_labels: bool,
    /// Dashed horizontal guides `(y, label)`.
    pub guides: Vec<(f64, String)>,
    /// Legend position.
    pub legend: Legend,
}

impl BarChart {
    /// A chart with no series yet.
    pub fn new(title: &str, x_label: &str, y_label: &str, categories: Vec<String>) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_col: "category".into(),
            y_col: "value".into(),
            categories,
            series: Vec::new(),
            y_range: None,
            value_labels: true,
            guides: Vec::new(),
            legend: Legend::UpperRight,
        }
    }

    fn y_range(&self) -> Result<(f64, f64)> {
        if let Some(r) = self.y_range {
            return Ok(r);
        }
        let vals = self.series.iter().flat_map(|s| {
            s.values
                .iter()
                .flatten()
                .copied()
                .chain(s.intervals.iter().flatten().flat_map(|&(lo, hi)| [lo, hi]))
        });
        let guides = self.guides.iter().map(|g| g.0);
        let (lo, hi) = padded_range(vals.chain(guides).chain([0.0]), 0.12)
            .ok_or_else(|| anyhow!("{}: no data", self.title))?;
        // Bars start at zero: no padding below a non-negative minimum.
        Ok((
            if lo < 0.0 && self.min_value() >= 0.0 {
                0.0
            } else {
                lo
            },
            hi,
        ))
    }

    fn min_value(&self) -> f64 {
        self.series
            .iter()
            .flat_map(|s| s.values.iter().flatten().copied())
            .fold(0.0, f64::min)
    }

    /// Draws the chart into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let n = self.categories.len();
        if n == 0 || self.series.is_empty() {
            return Err(anyhow!("{}: no bars", self.title));
        }
        let (y0, y1) = self.y_range()?;
        let mut c = category_chart(
            area,
            &self.title,
            (&self.x_label, &self.y_label),
            self.categories.clone(),
            (y0, y1),
        )?;
        let m = self.series.len() as f64;
        let group = 0.8;
        let w = group / m;
        let label_style = TextStyle::from((FAMILY, size::LEGEND).into_font())
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        let mut labelled = false;
        for (si, s) in self.series.iter().enumerate() {
            let off = -group / 2.0 + w * (si as f64 + 0.5);
            let mut rects = Vec::new();
            let mut whiskers = Vec::new();
            let mut texts = Vec::new();
            for (ci, v) in s.values.iter().enumerate() {
                let Some(v) = *v else { continue };
                let x = ci as f64 + off;
                let col = s.colors.get(ci).copied().unwrap_or(s.color);
                rects.push(Rectangle::new(
                    [(x - w * 0.45, 0.0), (x + w * 0.45, v)],
                    col.filled(),
                ));
                let mut top = v.max(0.0);
                if let Some(Some((lo, hi))) = s.intervals.get(ci) {
                    let cap = w * 0.18;
                    whiskers.extend(whisker(x, (*lo, *hi), cap, false, BLACK.stroke_width(2)));
                    top = top.max(*hi);
                }
                if self.value_labels {
                    let text = match s.labels.get(ci) {
                        Some(Some(t)) => t.clone(),
                        _ => tick(v),
                    };
                    texts.push(Text::new(
                        text,
                        (x, top + (y1 - y0) * 0.012),
                        label_style.clone(),
                    ));
                }
            }
            let anno = c.draw_series(rects)?;
            if !s.name.is_empty() {
                labelled = true;
                let col = s.color;
                anno.label(s.name.as_str()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 7), (x + 18, y + 7)], col.filled())
                });
            }
            c.draw_series(whiskers)?;
            c.draw_series(texts)?;
        }
        for (y, label) in &self.guides {
            let span = (-0.5, n as f64 - 0.5);
            dashed_guide(&mut c, span, *y, label, (-0.45, *y), VPos::Bottom)?;
        }
        if labelled {
            self.legend.draw(&mut c, None)?;
        }
        Ok(())
    }

    /// Tidy CSV: `<x_col>, series, <y_col>` plus `ci95_low/high` when any interval
    /// is present.
    pub fn table(&self) -> Vec<Vec<String>> {
        let with_ci = self
            .series
            .iter()
            .any(|s| s.intervals.iter().any(|i| i.is_some()));
        let mut head = vec![self.x_col.clone(), "series".into(), self.y_col.clone()];
        if with_ci {
            head.push(format!("{}_ci95_low", self.y_col));
            head.push(format!("{}_ci95_high", self.y_col));
        }
        let mut rows = vec![head];
        for (ci, cat) in self.categories.iter().enumerate() {
            for s in &self.series {
                let Some(Some(v)) = s.values.get(ci) else {
                    continue;
                };
                let mut r = vec![cat.clone(), s.name.clone(), num_cell(*v)];
                if with_ci {
                    let iv = s.intervals.get(ci).copied().flatten();
                    r.push(iv.map(|i| num_cell(i.0)).unwrap_or_default());
                    r.push(iv.map(|i| num_cell(i.1)).unwrap_or_default());
                }
                rows.push(r);
            }
        }
        rows
    }
}
