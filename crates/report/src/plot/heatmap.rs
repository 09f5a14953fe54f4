//! Heatmaps: a matrix as coloured cells (viridis) with a colour bar.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{axes, num_cell, size, tick};
use crate::font::FAMILY;

/// Viridis, sampled at nine evenly spaced stops (matplotlib's default colour map).
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 82, 139),
    (44, 113, 142),
    (33, 145, 140),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

/// The viridis colour at `t` in `[0, 1]` (clamped), linearly interpolated.
pub fn viridis(t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A matrix heatmap.
#[derive(Debug, Clone)]
pub struct Heatmap {
    /// Panel title.
    pub title: String,
    /// X axis description (columns).
    pub x_label: String,
    /// Y axis description (rows).
    pub y_label: String,
    /// Row names, top to bottom.
    pub rows: Vec<String>,
    /// Column names, left to right.
    pub cols: Vec<String>,
    /// `values[row][col]`; `None` for an absent cell (drawn white).
    pub values: Vec<Vec<Option<f64>>>,
    /// Colour scale limits.
    pub vmin: f64,
    /// Colour scale limits.
    pub vmax: f64,
    /// Label every `tick_every`-th row/column.
    pub tick_every: usize,
    /// CSV column names: row, column, value.
    pub csv_cols: [String; 3],
}

impl Heatmap {
    /// Draws the heatmap and its colour bar into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let (n, m) = (self.rows.len(), self.cols.len());
        if n == 0 || m == 0 || self.values.len() != n {
            return Err(anyhow!("{}: empty or ragged matrix", self.title));
        }
        let (w, _) = area.dim_in_pixel();
        let (main, bar) = area.split_horizontally(w.saturating_sub(110));
        let mut c = ChartBuilder::on(&main)
            .caption(&self.title, (FAMILY, size::TITLE))
            .margin(14)
            .x_label_area_size(58)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..(m as f64 - 0.5), -0.5f64..(n as f64 - 0.5))?;
        let every = self.tick_every.max(1);
        let cols = self.cols.clone();
        let rows = self.rows.clone();
        let xfmt = move |v: &f64| label_at(&cols, *v, every, false);
        let yfmt = move |v: &f64| label_at(&rows, *v, every, true);
        axes(&mut c.configure_mesh(), &self.x_label, &self.y_label)
            .disable_mesh()
            .x_labels(m)
            .y_labels(n)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .draw()?;
        let span = (self.vmax - self.vmin).max(1e-12);
        let mut cells = Vec::with_capacity(n * m);
        for (r, row) in self.values.iter().enumerate() {
            let y = (n - 1 - r) as f64;
            for (col, v) in row.iter().enumerate().take(m) {
                let color = match v {
                    Some(v) => viridis((v - self.vmin) / span),
                    None => WHITE,
                };
                let x = col as f64;
                cells.push(Rectangle::new(
                    [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                    color.filled(),
                ));
            }
        }
        c.draw_series(cells)?;
        self.colorbar(&bar)
    }

    fn colorbar<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let mut c = ChartBuilder::on(area)
            .margin_top(14 + size::TITLE + 10)
            .margin_bottom(58 + 14)
            .margin_left(6)
            .margin_right(8)
            .set_label_area_size(LabelAreaPosition::Right, 56)
            .build_cartesian_2d(0f64..1f64, self.vmin..self.vmax)?;
        let fmt = |v: &f64| tick(*v);
        c.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_labels(6)
            .y_label_formatter(&fmt)
            .label_style((FAMILY, size::TICK))
            .draw()?;
        let steps = 100;
        let h = (self.vmax - self.vmin) / steps as f64;
        c.draw_series((0..steps).map(|i| {
            let lo = self.vmin + h * i as f64;
            Rectangle::new(
                [(0.0, lo), (1.0, lo + h)],
                viridis((i as f64 + 0.5) / steps as f64).filled(),
            )
        }))?;
        Ok(())
    }

    /// Long CSV: one row per present cell, `row, column, value`.
    pub fn table(&self) -> Vec<Vec<String>> {
        let mut out = vec![self.csv_cols.to_vec()];
        for (r, row) in self.values.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                if let (Some(v), Some(rn), Some(cn)) = (v, self.rows.get(r), self.cols.get(c)) {
                    out.push(vec![rn.clone(), cn.clone(), num_cell(*v)]);
                }
            }
        }
        out
    }
}

/// The name for axis position `v` (integers only, every `every`-th); rows are
/// drawn top-down, so their positions are reversed.
fn label_at(names: &[String], v: f64, every: usize, reversed: bool) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-6 || i < 0.0 || i as usize >= names.len() {
        return String::new();
    }
    let idx = if reversed {
        names.len() - 1 - i as usize
    } else {
        i as usize
    };
    if idx % every == 0 {
        names[idx].clone()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_ends_and_clamps() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert_eq!(viridis(7.0), viridis(1.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
    }

    #[test]
    fn labels_every_second_and_reversed_rows() {
        let names: Vec<String> = (0..4).map(|i| format!("n{i}")).collect();
        assert_eq!(label_at(&names, 0.0, 2, false), "n0");
        assert_eq!(label_at(&names, 1.0, 2, false), "");
        assert_eq!(label_at(&names, 3.0, 1, true), "n0");
        assert_eq!(label_at(&names, 0.5, 1, false), "");
    }
}
