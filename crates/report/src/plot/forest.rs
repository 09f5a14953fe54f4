//! Forest plots of paired differences: one row per comparison ("B − A" on the same
//! seeds, splits or queries), each drawn as the mean difference (a filled dot), its
//! 95 % interval (a horizontal whisker) and the individual differences (hollow
//! circles, spread vertically by a deterministic jitter), against a dashed zero line.
//! A whisker that crosses zero is a difference the data cannot tell from none.
//!
//! Input shape: one [`Difference`] per row, top to bottom —
//! `{label, mean, ci: Option<(low, high)>, points: [difference per pair]}`. The plot
//! does no statistics: the caller pairs the values and computes the interval (e.g.
//! [`paired`] for a Student-t interval of the mean difference).

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{
    axes, category_labels, jitter, lighten, num_cell, padded_range, short, size, whisker,
};
use crate::font::FAMILY;

/// One comparison: the mean of paired differences, its interval and the differences.
#[derive(Debug, Clone)]
pub struct Difference {
    /// Row name (y tick label), e.g. `pg − heuristic`.
    pub label: String,
    /// Mean difference (a filled dot).
    pub mean: f64,
    /// `(low, high)` of the interval of the mean difference, when known.
    pub ci: Option<(f64, f64)>,
    /// The individual differences (hollow circles); may be empty.
    pub points: Vec<f64>,
}

/// `later − earlier` for every index where both are finite, in index order: the
/// per-pair differences of two arms measured on the same seeds (splits, queries).
/// With the Student-t interval of their mean ([`sims::stats::summarize`], the
/// formula of the multi-seed aggregates).
pub fn paired(
    label: impl Into<String>,
    earlier: &[Option<f64>],
    later: &[Option<f64>],
) -> Difference {
    let points: Vec<f64> = earlier
        .iter()
        .zip(later)
        .filter_map(|(a, b)| match (a, b) {
            (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Some(b - a),
            _ => None,
        })
        .collect();
    let s = sims::stats::summarize(&points);
    Difference {
        label: label.into(),
        mean: s.mean.unwrap_or(f64::NAN),
        ci: s.ci95_low.zip(s.ci95_high),
        points,
    }
}

/// Paired differences as rows against a zero line.
#[derive(Debug, Clone)]
pub struct ForestPlot {
    /// Panel title.
    pub title: String,
    /// Difference axis description (what is measured, with its unit).
    pub x_label: String,
    /// CSV column name for the difference.
    pub value_col: String,
    /// The rows, top to bottom.
    pub rows: Vec<Difference>,
    /// Colour of the dots and points.
    pub color: RGBColor,
}

impl ForestPlot {
    /// A plot with no rows yet.
    pub fn new(title: &str, x_label: &str, color: RGBColor) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            value_col: "difference".into(),
            rows: Vec::new(),
            color,
        }
    }

    /// Draws the plot into `area`. Cost: one circle per point.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let rows: Vec<&Difference> = self.rows.iter().filter(|r| r.mean.is_finite()).collect();
        let n = rows.len();
        if n == 0 {
            return Err(anyhow!("{}: no differences", self.title));
        }
        let vals = rows.iter().flat_map(|r| {
            r.points
                .iter()
                .copied()
                .chain([r.mean, 0.0])
                .chain(r.ci.into_iter().flat_map(|(l, h)| [l, h]))
        });
        let (x0, x1) = padded_range(vals, 0.1).ok_or_else(|| anyhow!("{}: no data", self.title))?;
        let widest = rows
            .iter()
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0);
        let mut c = ChartBuilder::on(area)
            .caption(&self.title, (FAMILY, size::TITLE))
            .margin(14)
            .x_label_area_size(58)
            .y_label_area_size((widest as u32 * 9 + 24).max(60))
            .build_cartesian_2d(x0..x1, -0.5f64..(n as f64 - 0.5))?;
        // Row i is drawn at y = n − 1 − i, so the first row is on top.
        let yfmt = category_labels(rows.iter().rev().map(|r| r.label.clone()).collect());
        let xfmt = |v: &f64| super::style::tick(*v);
        axes(&mut c.configure_mesh(), &self.x_label, "")
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&yfmt)
            .x_label_formatter(&xfmt)
            .draw()?;
        c.draw_series(DashedLineSeries::new(
            [(0.0, -0.5), (0.0, n as f64 - 0.5)],
            8,
            5,
            BLACK.stroke_width(1),
        ))?;
        let pale = lighten(self.color, 0.55);
        let spread = if n == 1 { 0.3 } else { 0.4 };
        for (i, r) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            c.draw_series(
                r.points
                    .iter()
                    .filter(|v| v.is_finite())
                    .enumerate()
                    .map(|(k, v)| {
                        Circle::new((*v, y + jitter(k) * spread), 3, pale.stroke_width(1))
                    }),
            )?;
            if let Some((lo, hi)) = r.ci {
                let cap = 0.06;
                c.draw_series(whisker(y, (lo, hi), cap, true, BLACK.stroke_width(2)))?;
            }
            c.draw_series([
                Circle::new((r.mean, y), 6, self.color.filled()),
                Circle::new((r.mean, y), 6, BLACK.stroke_width(1)),
            ])?;
            let text = match r.ci {
                Some((lo, hi)) => format!("{} [{}, {}]", short(r.mean), short(lo), short(hi)),
                None => short(r.mean),
            };
            let st = TextStyle::from((FAMILY, size::LEGEND).into_font())
                .pos(Pos::new(HPos::Center, VPos::Bottom));
            let above = if n == 1 { 0.36 } else { 0.24 };
            c.draw_series(std::iter::once(Text::new(
                text,
                ((x0 + x1) / 2.0, y + above),
                st,
            )))?;
        }
        Ok(())
    }

    /// Tidy CSV: `comparison, <value_col>, <value_col>_ci95_low, <value_col>_ci95_high,
    /// n` — one row per comparison (the individual differences are not exported).
    pub fn table(&self) -> Vec<Vec<String>> {
        let v = &self.value_col;
        let mut out = vec![vec![
            "comparison".into(),
            v.clone(),
            format!("{v}_ci95_low"),
            format!("{v}_ci95_high"),
            "n".into(),
        ]];
        for r in &self.rows {
            out.push(vec![
                r.label.clone(),
                num_cell(r.mean),
                r.ci.map(|c| num_cell(c.0)).unwrap_or_default(),
                r.ci.map(|c| num_cell(c.1)).unwrap_or_default(),
                r.points.len().to_string(),
            ]);
        }
        out
    }
}
