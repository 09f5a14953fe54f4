//! Cluster maps: a graph of hundreds of nodes drawn with its nodes grouped by cluster
//! (one disc per cluster on a grid, nodes on a sunflower spiral inside it) and its
//! edges coloured by class (the workspace graph of seed 002 Fig. 3: clusters = files,
//! classes = edge tiers).
//!
//! The layout is a pure function of the input (no force simulation, no randomness), so
//! the same graph gives the same picture.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{color, size, Legend};
use crate::font::FAMILY;

/// A graph drawn as clusters on a grid.
#[derive(Debug, Clone)]
pub struct ClusterMap {
    /// Panel title.
    pub title: String,
    /// Cluster names (labels), in layout order (row-major on the grid).
    pub clusters: Vec<String>,
    /// Each node's cluster (index into `clusters`); `None` = not drawn.
    pub node_cluster: Vec<Option<usize>>,
    /// Edge classes in drawing order (later on top): label, colour and line width.
    pub classes: Vec<(String, RGBColor, u32)>,
    /// `(source node, target node, class)`.
    pub edges: Vec<(usize, usize, usize)>,
    /// Label only clusters with at least this many nodes (0 = all).
    pub label_min_nodes: usize,
    /// Legend position.
    pub legend: Legend,
}

/// The golden angle in radians (sunflower spiral).
const GOLDEN_ANGLE: f64 = 2.399_963_229_728_653;

impl ClusterMap {
    /// Grid columns and rows for the clusters (about 4:3).
    fn grid(&self) -> (usize, usize) {
        let n = self.clusters.len().max(1);
        let cols = ((n as f64 * 4.0 / 3.0).sqrt().ceil() as usize).max(1);
        (cols, n.div_ceil(cols))
    }

    /// Centre of cluster `c`: cell `(c mod cols, c div cols)`, y growing downwards.
    fn centre(&self, c: usize) -> (f64, f64) {
        let (cols, _) = self.grid();
        ((c % cols) as f64 + 0.5, -((c / cols) as f64 + 0.5))
    }

    /// Node positions: within its cluster's disc (radius growing with the square root
    /// of the cluster's size), node `k` of `n` at radius `r·√((k+½)/n)` and angle
    /// `k·golden angle`. `None` for nodes without a cluster.
    pub fn positions(&self) -> Vec<Option<(f64, f64)>> {
        let mut count = vec![0usize; self.clusters.len()];
        for c in self.node_cluster.iter().flatten() {
            if let Some(x) = count.get_mut(*c) {
                *x += 1;
            }
        }
        let largest = count.iter().copied().max().unwrap_or(1).max(1) as f64;
        let mut seen = vec![0usize; self.clusters.len()];
        self.node_cluster
            .iter()
            .map(|c| {
                let c = (*c).filter(|c| *c < self.clusters.len())?;
                let k = seen[c] as f64;
                seen[c] += 1;
                let n = count[c] as f64;
                let r = 0.36 * (n / largest).sqrt() * ((k + 0.5) / n).sqrt();
                let (x, y) = self.centre(c);
                let a = k * GOLDEN_ANGLE;
                Some((x + r * a.cos(), y + r * a.sin()))
            })
            .collect()
    }

    /// Draws the map into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        if self.clusters.is_empty() {
            return Err(anyhow!("{}: no clusters", self.title));
        }
        let (cols, rows) = self.grid();
        let pos = self.positions();
        let mut c = ChartBuilder::on(area)
            .caption(&self.title, (FAMILY, size::TITLE))
            .margin(10)
            .build_cartesian_2d(0.0..cols as f64, -(rows as f64 + 0.6)..0.0f64)?;
        for (class, (label, col, width)) in self.classes.iter().enumerate() {
            let lines: Vec<_> = self
                .edges
                .iter()
                .filter(|e| e.2 == class)
                .filter_map(|&(s, t, _)| {
                    let (a, b) = (pos.get(s).copied()??, pos.get(t).copied()??);
                    Some(PathElement::new(
                        vec![a, b],
                        col.mix(0.55).stroke_width(*width),
                    ))
                })
                .collect();
            let n = lines.len();
            let col = *col;
            c.draw_series(lines)?
                .label(format!("{label} ({n})"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], col.stroke_width(3))
                });
        }
        c.draw_series(
            pos.iter()
                .zip(&self.node_cluster)
                .filter_map(|(p, cl)| Some(Circle::new((*p)?, 2, color((*cl)?).filled()))),
        )?;
        let mut count = vec![0usize; self.clusters.len()];
        for cl in self.node_cluster.iter().flatten() {
            if let Some(x) = count.get_mut(*cl) {
                *x += 1;
            }
        }
        let st = TextStyle::from((FAMILY, 11).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
        c.draw_series(
            self.clusters
                .iter()
                .enumerate()
                .filter(|(i, _)| count[*i] >= self.label_min_nodes.max(1))
                .map(|(i, name)| {
                    let (x, y) = self.centre(i);
                    Text::new(name.clone(), (x, y - 0.4), st.clone())
                }),
        )?;
        self.legend.draw(&mut c, None)?;
        Ok(())
    }

    /// CSV: one row per cluster — nodes, then edges by class counted at their source
    /// node, and how many of those leave the cluster.
    pub fn table(&self) -> Vec<Vec<String>> {
        let mut header = vec!["cluster".to_string(), "nodes".into()];
        header.extend(self.classes.iter().map(|(l, _, _)| format!("edges_{l}")));
        header.push("edges_to_other_clusters".into());
        let k = self.classes.len();
        let mut stats = vec![vec![0usize; k + 2]; self.clusters.len()];
        for c in self.node_cluster.iter().flatten() {
            if let Some(s) = stats.get_mut(*c) {
                s[0] += 1;
            }
        }
        let cluster = |n: usize| self.node_cluster.get(n).copied().flatten();
        for &(s, t, class) in &self.edges {
            let Some(cs) = cluster(s) else { continue };
            if let Some(row) = stats.get_mut(cs) {
                if class < k {
                    row[1 + class] += 1;
                }
                if cluster(t) != Some(cs) {
                    row[k + 1] += 1;
                }
            }
        }
        let mut rows = vec![header];
        for (name, s) in self.clusters.iter().zip(stats) {
            let mut r = vec![name.clone()];
            r.extend(s.iter().map(|x| x.to_string()));
            rows.push(r);
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> ClusterMap {
        ClusterMap {
            title: "t".into(),
            clusters: vec!["a".into(), "b".into()],
            node_cluster: vec![Some(0), Some(0), Some(1), None],
            classes: vec![("x".into(), RED, 1), ("y".into(), BLUE, 1)],
            edges: vec![(0, 1, 0), (1, 2, 1), (2, 3, 1)],
            label_min_nodes: 0,
            legend: Legend::None,
        }
    }

    #[test]
    fn nodes_sit_in_their_cluster_cell() {
        let m = map();
        let p = m.positions();
        assert!(p[3].is_none());
        for (i, c) in [(0, 0usize), (1, 0), (2, 1)] {
            let (x, y) = p[i].unwrap();
            let (cx, cy) = m.centre(c);
            assert!((x - cx).abs() < 0.5 && (y - cy).abs() < 0.5, "node {i}");
        }
    }

    #[test]
    fn table_counts_edges_by_class_at_the_source() {
        let t = map().table();
        assert_eq!(
            t[0],
            [
                "cluster",
                "nodes",
                "edges_x",
                "edges_y",
                "edges_to_other_clusters"
            ]
        );
        assert_eq!(t[1], ["a", "2", "1", "1", "1"]);
        assert_eq!(t[2], ["b", "1", "0", "1", "1"]);
    }
}
