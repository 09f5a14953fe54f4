//! Stacked area charts of shares (e.g. the tier distribution over queries).

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{axes, num_cell, size, tick, Legend};
use crate::font::FAMILY;

/// Layers stacked bottom to top over a common x.
#[derive(Debug, Clone)]
pub struct StackedArea {
    /// Panel title.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Y axis description.
    pub y_label: String,
    /// CSV column name for x.
    pub x_col: String,
    /// The x values.
    pub x: Vec<f64>,
    /// `(name, colour, values)` from the bottom up; each as long as `x`.
    pub layers: Vec<(String, RGBColor, Vec<f64>)>,
    /// Y range.
    pub y_range: (f64, f64),
    /// Legend position.
    pub legend: Legend,
}

impl StackedArea {
    /// Draws the chart into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let (Some(&x0), Some(&x1)) = (self.x.first(), self.x.last()) else {
            return Err(anyhow!("{}: no data", self.title));
        };
        if self.layers.iter().any(|l| l.2.len() != self.x.len()) {
            return Err(anyhow!("{}: layer lengths differ from x", self.title));
        }
        let mut c = ChartBuilder::on(area)
            .caption(&self.title, (FAMILY, size::TITLE))
            .margin(14)
            .x_label_area_size(58)
            .y_label_area_size(82)
            .build_cartesian_2d(x0..x1, self.y_range.0..self.y_range.1)?;
        let fmt = |v: &f64| tick(*v);
        axes(&mut c.configure_mesh(), &self.x_label, &self.y_label)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .draw()?;
        let mut base = vec![0.0; self.x.len()];
        for (name, color, vals) in &self.layers {
            let top: Vec<f64> = base.iter().zip(vals).map(|(b, v)| b + v).collect();
            let mut poly: Vec<(f64, f64)> =
                self.x.iter().copied().zip(top.iter().copied()).collect();
            poly.extend(self.x.iter().copied().zip(base.iter().copied()).rev());
            let col = *color;
            c.draw_series(std::iter::once(Polygon::new(poly, col.mix(0.8).filled())))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 7), (x + 18, y + 7)], col.mix(0.8).filled())
                });
            base = top;
        }
        self.legend.draw(&mut c, None)?;
        Ok(())
    }

    /// Wide CSV: `<x_col>, <layer 1>, <layer 2>, …`.
    pub fn table(&self) -> Vec<Vec<String>> {
        let mut head = vec![self.x_col.clone()];
        head.extend(self.layers.iter().map(|l| l.0.clone()));
        let mut rows = vec![head];
        for (i, x) in self.x.iter().enumerate() {
            let mut r = vec![num_cell(*x)];
            r.extend(
                self.layers
                    .iter()
                    .map(|l| l.2.get(i).map(|v| num_cell(*v)).unwrap_or_default()),
            );
            rows.push(r);
        }
        rows
    }
}
