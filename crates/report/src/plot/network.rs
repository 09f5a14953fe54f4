//! Node-column diagrams: nodes stacked in one column per group, weighted edges drawn
//! as lines whose width grows with the weight (the domain-separation figure).

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{color, num_cell, size, Legend};
use crate::font::FAMILY;

/// Nodes in group columns and edges between them.
#[derive(Debug, Clone)]
pub struct Network {
    /// Panel title.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Group names, one column each, left to right.
    pub groups: Vec<String>,
    /// `(node id, group index)` in display order (top to bottom within a group).
    pub nodes: Vec<(String, usize)>,
    /// `(source, target, weight)`.
    pub edges: Vec<(String, String, f64)>,
    /// Colour of the edges.
    pub edge_color: RGBColor,
    /// Legend label of the edges (legend omitted if empty).
    pub edge_label: String,
    /// Legend position.
    pub legend: Legend,
}

impl Network {
    /// Position of each node: `x = 2·group`, `y = −(rank within its group)`.
    fn positions(&self) -> Vec<(f64, f64)> {
        let mut seen = vec![0usize; self.groups.len()];
        self.nodes
            .iter()
            .map(|(_, g)| {
                let rank = seen.get(*g).copied().unwrap_or(0);
                if let Some(s) = seen.get_mut(*g) {
                    *s += 1;
                }
                (2.0 * *g as f64, -(rank as f64))
            })
            .collect()
    }

    fn position_of(&self, pos: &[(f64, f64)], id: &str) -> Option<(f64, f64)> {
        self.nodes.iter().position(|n| n.0 == id).map(|i| pos[i])
    }

    /// Draws the diagram into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        if self.nodes.is_empty() || self.groups.is_empty() {
            return Err(anyhow!("{}: no nodes", self.title));
        }
        let pos = self.positions();
        let deepest = pos.iter().map(|p| p.1).fold(0.0, f64::min);
        let g = self.groups.len() as f64;
        let mut c = ChartBuilder::on(area)
            .caption(&self.title, (FAMILY, size::TITLE))
            .margin(14)
            .x_label_area_size(58)
            .y_label_area_size(20)
            .build_cartesian_2d(-1.0f64..(2.0 * g - 0.6), (deepest - 0.6)..0.6f64)?;
        let names = self.groups.clone();
        let xfmt = move |v: &f64| {
            let i = (v / 2.0).round();
            if (v - 2.0 * i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        };
        c.configure_mesh()
            .disable_mesh()
            .disable_y_axis()
            .x_labels(self.groups.len() * 2 + 1)
            .x_label_formatter(&xfmt)
            .x_desc(self.x_label.as_str())
            .axis_desc_style((FAMILY, size::LABEL))
            .label_style((FAMILY, size::TICK))
            .draw()?;
        let mut lines = Vec::new();
        for (s, t, w) in &self.edges {
            let (Some(a), Some(b)) = (self.position_of(&pos, s), self.position_of(&pos, t)) else {
                continue;
            };
            let width = (2.0 + 2.0 * w.abs()).round() as u32;
            lines.push(PathElement::new(
                vec![a, b],
                self.edge_color.mix(0.6).stroke_width(width),
            ));
        }
        let anno = c.draw_series(lines)?;
        if !self.edge_label.is_empty() {
            let col = self.edge_color;
            anno.label(self.edge_label.as_str()).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 22, y)], col.mix(0.6).stroke_width(3))
            });
        }
        c.draw_series(
            self.nodes
                .iter()
                .zip(&pos)
                .map(|((_, g), p)| Circle::new(*p, 8, color(group_color(*g)).filled())),
        )?;
        let st = TextStyle::from((FAMILY, size::LEGEND).into_font())
            .pos(Pos::new(HPos::Left, VPos::Center));
        c.draw_series(
            self.nodes
                .iter()
                .zip(&pos)
                .map(|((id, _), p)| Text::new(id.clone(), (p.0 + 0.12, p.1), st.clone())),
        )?;
        if !self.edge_label.is_empty() {
            self.legend.draw(&mut c, None)?;
        }
        Ok(())
    }

    /// CSV of the edges: `source, target, weight, source_group, target_group`.
    pub fn table(&self) -> Vec<Vec<String>> {
        let group = |id: &str| {
            self.nodes
                .iter()
                .find(|n| n.0 == id)
                .and_then(|n| self.groups.get(n.1).cloned())
                .unwrap_or_default()
        };
        let mut rows = vec![vec![
            "source".to_string(),
            "target".into(),
            "weight".into(),
            "source_group".into(),
            "target_group".into(),
        ]];
        for (s, t, w) in &self.edges {
            rows.push(vec![s.clone(), t.clone(), num_cell(*w), group(s), group(t)]);
        }
        rows
    }
}

/// Palette index of a group: blue, green, orange (the reference's alpha, beta,
/// gamma colours), then the rest of the palette.
fn group_color(g: usize) -> usize {
    match g {
        0 => 0,
        1 => 2,
        2 => 1,
        n => n + 1,
    }
}
