//! Line charts: series with optional markers, dashes and shaded bands (mean with a
//! 95 % interval), on linear or logarithmic axes.

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{axes, num_cell, padded_range, size, tick, Legend};
use crate::font::FAMILY;

/// Axis scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Base-10 logarithmic (positive values only).
    Log,
}

/// One line.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label (empty: no legend entry).
    pub name: String,
    /// `(x, y)` points in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Line colour.
    pub color: RGBColor,
    /// Circle markers at the points.
    pub marker: bool,
    /// Dashed line.
    pub dashed: bool,
    /// Line width in pixels.
    pub width: u32,
    /// Shaded band `(x, low, high)` drawn under the line (e.g. a 95 % interval).
    pub band: Option<Vec<(f64, f64, f64)>>,
    /// A guide line (threshold, zero line): drawn, but not exported to CSV.
    pub guide: bool,
}

impl Series {
    /// A solid line with markers, width 2.
    pub fn new(name: impl Into<String>, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            color,
            marker: true,
            dashed: false,
            width: 2,
            band: None,
            guide: false,
        }
    }

    /// Without markers.
    pub fn plain(mut self) -> Self {
        self.marker = false;
        self
    }

    /// A dashed horizontal guide line at `y` from `x0` to `x1`.
    pub fn hline(name: impl Into<String>, color: RGBColor, y: f64, x0: f64, x1: f64) -> Self {
        Self {
            name: name.into(),
            points: vec![(x0, y), (x1, y)],
            color,
            marker: false,
            dashed: true,
            width: 2,
            band: None,
            guide: true,
        }
    }
}

/// A line chart.
#[derive(Debug, Clone)]
pub struct LineChart {
    /// Panel title.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Y axis description.
    pub y_label: String,
    /// CSV column name for x.
    pub x_col: String,
    /// CSV column name for y.
    pub y_col: String,
    /// Fixed x range (default: data range).
    pub x_range: Option<(f64, f64)>,
    /// Fixed y range (default: data range, padded).
    pub y_range: Option<(f64, f64)>,
    /// X scale.
    pub x_scale: Scale,
    /// Y scale.
    pub y_scale: Scale,
    /// The lines, drawn in order.
    pub series: Vec<Series>,
    /// Legend position.
    pub legend: Legend,
}

impl LineChart {
    /// A linear chart with no series yet, legend upper right.
    pub fn new(title: &str, x_label: &str, y_label: &str, x_col: &str, y_col: &str) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_col: x_col.into(),
            y_col: y_col.into(),
            x_range: None,
            y_range: None,
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: Vec::new(),
            legend: Legend::UpperRight,
        }
    }

    fn ranges(&self) -> Result<((f64, f64), (f64, f64))> {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = self.series.iter().flat_map(|s| {
            s.points.iter().map(|p| p.1).chain(
                s.band
                    .iter()
                    .flat_map(|b| b.iter().flat_map(|&(_, lo, hi)| [lo, hi])),
            )
        });
        let x = match self.x_range {
            Some(r) => r,
            None => match self.x_scale {
                Scale::Linear => padded_range(xs, 0.02),
                Scale::Log => log_range(xs),
            }
            .ok_or_else(|| anyhow!("{}: no data", self.title))?,
        };
        let y = match self.y_range {
            Some(r) => r,
            None => match self.y_scale {
                Scale::Linear => padded_range(ys, 0.06),
                Scale::Log => log_range(ys),
            }
            .ok_or_else(|| anyhow!("{}: no data", self.title))?,
        };
        Ok((x, y))
    }

    /// Draws the chart into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let ((x0, x1), (y0, y1)) = self.ranges()?;
        let mut b = ChartBuilder::on(area);
        b.caption(&self.title, (FAMILY, size::TITLE))
            .margin(14)
            .x_label_area_size(58)
            .y_label_area_size(82);
        match (self.x_scale, self.y_scale) {
            (Scale::Linear, Scale::Linear) => {
                let mut c = b.build_cartesian_2d(x0..x1, y0..y1)?;
                self.fill(&mut c)
            }
            (Scale::Log, Scale::Log) => {
                let mut c = b.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
                self.fill(&mut c)
            }
            (Scale::Log, Scale::Linear) => {
                let mut c = b.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?;
                self.fill(&mut c)
            }
            (Scale::Linear, Scale::Log) => {
                let mut c = b.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?;
                self.fill(&mut c)
            }
        }
    }

    fn fill<'a, DB, X, Y>(&self, c: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>) -> Result<()>
    where
        DB: DrawingBackend + 'a,
        DB::ErrorType: 'static,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let fmt = |v: &f64| tick(*v);
        let (nx, ny) = (
            if self.x_scale == Scale::Log { 20 } else { 10 },
            if self.y_scale == Scale::Log { 20 } else { 10 },
        );
        axes(&mut c.configure_mesh(), &self.x_label, &self.y_label)
            .x_labels(nx)
            .y_labels(ny)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .draw()?;
        for s in &self.series {
            if let Some(band) = &s.band {
                if band.len() >= 2 {
                    let mut poly: Vec<(f64, f64)> =
                        band.iter().map(|&(x, _, hi)| (x, hi)).collect();
                    poly.extend(band.iter().rev().map(|&(x, lo, _)| (x, lo)));
                    c.draw_series(std::iter::once(Polygon::new(
                        poly,
                        s.color.mix(0.22).filled(),
                    )))?;
                }
            }
        }
        let mut labelled = false;
        for s in &self.series {
            let style = s.color.stroke_width(s.width);
            let anno = if s.dashed {
                c.draw_series(DashedLineSeries::new(s.points.iter().copied(), 8, 5, style))?
            } else if s.marker {
                c.draw_series(LineSeries::new(s.points.iter().copied(), style).point_size(3))?
            } else {
                c.draw_series(LineSeries::new(s.points.iter().copied(), style))?
            };
            if !s.name.is_empty() {
                labelled = true;
                let (color, marker, dashed, has_band) =
                    (s.color, s.marker, s.dashed, s.band.is_some());
                let band_style = if has_band {
                    color.mix(0.22).filled()
                } else {
                    TRANSPARENT.filled()
                };
                let line = color.stroke_width(2);
                let (gap0, gap1) = if dashed { (8, 14) } else { (11, 11) };
                let dot = if marker {
                    color.filled()
                } else {
                    TRANSPARENT.filled()
                };
                anno.label(s.name.as_str()).legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + Rectangle::new([(0, -7), (22, 7)], band_style)
                        + PathElement::new(vec![(0, 0), (gap0, 0)], line)
                        + PathElement::new(vec![(gap1, 0), (22, 0)], line)
                        + Circle::new((11, 0), 3, dot)
                });
            }
        }
        if labelled {
            self.legend.draw(c, Some(30))?;
        }
        Ok(())
    }

    /// Tidy CSV: `series, <x_col>, <y_col>` plus `<y_col>_ci95_low/high` when a
    /// series has a band. Guide lines are left out.
    pub fn table(&self) -> Vec<Vec<String>> {
        let banded = self.series.iter().any(|s| s.band.is_some());
        let mut head = vec!["series".to_string(), self.x_col.clone(), self.y_col.clone()];
        if banded {
            head.push(format!("{}_ci95_low", self.y_col));
            head.push(format!("{}_ci95_high", self.y_col));
        }
        let mut rows = vec![head];
        for s in self.series.iter().filter(|s| !s.guide) {
            for (i, &(x, y)) in s.points.iter().enumerate() {
                let mut r = vec![s.name.clone(), num_cell(x), num_cell(y)];
                if banded {
                    let b = s.band.as_ref().and_then(|b| b.get(i));
                    r.push(b.map(|b| num_cell(b.1)).unwrap_or_default());
                    r.push(b.map(|b| num_cell(b.2)).unwrap_or_default());
                }
                rows.push(r);
            }
        }
        rows
    }
}

/// A log-axis range covering the positive values, widened to whole decades' halves.
fn log_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo <= hi).then(|| (lo / 1.6, hi * 1.6))
}
