//! Figure model and rendering: a [`Figure`] is a grid of [`Panel`]s, rendered to PNG
//! (plotters' bitmap backend + the bundled font, encoded with fixed settings) and to
//! SVG (stored gzip-compressed as `.svgz`, which vector editors open directly), and
//! exported as CSV (one file per panel, tidy columns) so that the data behind every
//! figure can be re-plotted elsewhere.
//!
//! Rendering is deterministic: no timestamps, no hash-map iteration, fixed encoder
//! settings, no random numbers (point jitter is a fixed sequence, [`jitter`]); the same
//! figure gives the same bytes.
//!
//! Primitives for comparisons with uncertainty (each module documents its input shape):
//! - [`IntervalChart`] (`interval`): arms / methods / conditions side by side on one
//!   axis, each a mean with its 95 % interval and its per-seed (per-split) values as
//!   jittered points, with dashed reference lines (a claim's threshold);
//! - [`LineChart`] (`line`) with [`Series::band`]: learning curves as a mean line with a
//!   shaded 95 % band (`band = [(x, low, high)]`, one triple per point);
//! - [`ForestPlot`] (`forest`): paired differences (`B − A` on the same seeds) as rows
//!   with 95 % intervals against a zero line; [`forest::paired`] builds a row from two
//!   arms' per-seed values.

pub mod area;
pub mod bar;
pub mod clusters;
pub mod forest;
pub mod heatmap;
pub mod interval;
pub mod line;
pub mod network;
pub mod style;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::artifact::Artifact;
use crate::font::{self, FAMILY};

pub use area::StackedArea;
pub use bar::{BarChart, BarSeries};
pub use clusters::ClusterMap;
pub use forest::{Difference, ForestPlot};
pub use heatmap::Heatmap;
pub use interval::{Interval, IntervalChart};
pub use line::{LineChart, Scale, Series};
pub use network::Network;
pub use style::{
    axes, category_chart, category_labels, color, dashed_guide, jitter, lighten, num_cell,
    padded_range, short, size, slug, tick, whisker, Legend, GRID, PALETTE, PALETTE_LIGHT,
};
/// One sub-plot.
#[derive(Debug, Clone)]
pub enum Panel {
    /// Lines (optionally with markers and shaded bands).
    Line(LineChart),
    /// Grouped bars (optionally with error whiskers).
    Bar(BarChart),
    /// Stacked areas of shares.
    Area(StackedArea),
    /// Matrix as coloured cells with a colour bar.
    Heatmap(Heatmap),
    /// Nodes in columns and weighted edges between them.
    Network(Network),
    /// A large graph with its nodes grouped by cluster and edges coloured by class.
    Clusters(ClusterMap),
    /// Means with 95 % intervals and their individual values, side by side.
    Interval(IntervalChart),
    /// Paired differences with 95 % intervals against zero.
    Forest(ForestPlot),
}

impl Panel {
    /// Draws the panel into `area`.
    pub fn draw<DB>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        match self {
            Panel::Line(c) => c.draw(area),
            Panel::Bar(c) => c.draw(area),
            Panel::Area(c) => c.draw(area),
            Panel::Heatmap(c) => c.draw(area),
            Panel::Network(c) => c.draw(area),
            Panel::Clusters(c) => c.draw(area),
            Panel::Interval(c) => c.draw(area),
            Panel::Forest(c) => c.draw(area),
        }
    }

    /// The panel's data as CSV rows (header first).
    pub fn table(&self) -> Vec<Vec<String>> {
        match self {
            Panel::Line(c) => c.table(),
            Panel::Bar(c) => c.table(),
            Panel::Area(c) => c.table(),
            Panel::Heatmap(c) => c.table(),
            Panel::Network(c) => c.table(),
            Panel::Clusters(c) => c.table(),
            Panel::Interval(c) => c.table(),
            Panel::Forest(c) => c.table(),
        }
    }

    /// A short name for the panel: its CSV's file name in a multi-panel figure.
    pub fn slug(&self) -> String {
        let title = match self {
            Panel::Line(c) => &c.title,
            Panel::Bar(c) => &c.title,
            Panel::Area(c) => &c.title,
            Panel::Heatmap(c) => &c.title,
            Panel::Network(c) => &c.title,
            Panel::Clusters(c) => &c.title,
            Panel::Interval(c) => &c.title,
            Panel::Forest(c) => &c.title,
        };
        slug(title)
    }
}

/// A figure: panels on a grid, an optional overall title, a pixel size.
#[derive(Debug, Clone)]
pub struct Figure {
    /// File stem (`deploy_pipeline` → `deploy_pipeline.png`, `.svgz`, `.csv`).
    pub stem: String,
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// Overall title above the panels (multi-panel figures); `\n` starts a new line.
    pub title: Option<String>,
    /// Rows and columns of panels.
    pub grid: (usize, usize),
    /// The panels, row-major.
    pub panels: Vec<Panel>,
}

impl Figure {
    /// A single-panel figure.
    pub fn single(stem: impl Into<String>, size: (u32, u32), panel: Panel) -> Self {
        Self {
            stem: stem.into(),
            size,
            title: None,
            grid: (1, 1),
            panels: vec![panel],
        }
    }

    /// Draws the whole figure on a backend.
    pub fn draw<DB>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        // One title line per `\n`, each centred above the next.
        let mut body = root.clone();
        for line in self.title.iter().flat_map(|t| t.lines()) {
            body = body.titled(line, (FAMILY, size::SUPTITLE))?;
        }
        let cells = body.split_evenly(self.grid);
        for (panel, cell) in self.panels.iter().zip(cells.iter()) {
            panel.draw(cell)?;
        }
        Ok(())
    }

    /// PNG bytes (8-bit indexed colour, see [`encode_png`]).
    pub fn png(&self) -> Result<Vec<u8>> {
        font::ensure_registered()?;
        let (w, h) = self.size;
        let mut buf = vec![0u8; w as usize * h as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            self.draw(&root)
                .with_context(|| format!("drawing {}.png", self.stem))?;
            root.present()?;
        }
        encode_png(&buf, w, h)
    }

    /// SVG bytes.
    pub fn svg(&self) -> Result<Vec<u8>> {
        font::ensure_registered()?;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, self.size).into_drawing_area();
            self.draw(&root)
                .with_context(|| format!("drawing {}.svg", self.stem))?;
            root.present()?;
        }
        Ok(text.into_bytes())
    }

    /// The SVG, gzip-compressed (`.svgz`, [`gzip`]).
    pub fn svgz(&self) -> Result<Vec<u8>> {
        gzip(&self.svg()?).with_context(|| format!("compressing {}.svgz", self.stem))
    }

    /// `(path, bytes)` of the CSV export, the path relative to the figure's CSV folder:
    /// a single panel's table as it is, in `<stem>.csv`; for several panels one file per
    /// panel, `<stem>/<key>.csv`, each holding that panel's own table, where the key is
    /// the panel's slug (`panel<i>`, counted from 1, when the panel is untitled or its
    /// slug is taken by an earlier panel).
    ///
    /// Why one file per panel: the single table that these files replace carried a
    /// `panel` column, which repeated a slug of up to 45 characters on every row, and
    /// padded each row with the other panels' empty columns. Over the 72 committed
    /// multi-panel figures that came to 710 KB, against 420 KB split (the repository's
    /// 16 MiB tracked-size budget); the values and column names are unchanged.
    pub fn csv(&self) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        if self.panels.len() == 1 {
            let name = PathBuf::from(format!("{}.csv", self.stem));
            return Ok(vec![(name, csv_bytes(&self.panels[0].table())?)]);
        }
        let mut keys: Vec<String> = Vec::with_capacity(self.panels.len());
        let mut out = Vec::with_capacity(self.panels.len());
        for (i, p) in self.panels.iter().enumerate() {
            let s = p.slug();
            let key = if s.is_empty() || keys.contains(&s) {
                format!("panel{}", i + 1)
            } else {
                s
            };
            let name = Path::new(&self.stem).join(format!("{key}.csv"));
            out.push((name, csv_bytes(&p.table())?));
            keys.push(key);
        }
        Ok(out)
    }

    /// PNG and SVGZ under `<out>/<dir>/`, CSVs under `<out>/csv/<dir>/`.
    pub fn artifacts(&self, out: &Path, dir: &str) -> Result<Vec<Artifact>> {
        let mut arts = vec![
            Artifact::new(
                out.join(dir).join(format!("{}.png", self.stem)),
                self.png()?,
            ),
            Artifact::new(
                out.join(dir).join(format!("{}.svgz", self.stem)),
                self.svgz()?,
            ),
        ];
        // each CSV gzip-compressed (`.csv.gz`): 485 KB of CSV over the committed figures
        // took 125 KB so, within the repository's 16 MiB tracked-size budget
        for (name, bytes) in self.csv()? {
            let mut gz = name.into_os_string();
            gz.push(".gz");
            let bytes = gzip(&bytes).with_context(|| format!("compressing {gz:?}"))?;
            arts.push(Artifact::new(out.join("csv").join(dir).join(gz), bytes));
        }
        Ok(arts)
    }
}

/// `bytes` gzip-compressed at level 9, with no file name, modification time 0 and OS
/// byte 255 in the header, so the output depends on `bytes` only (the SVGZ and CSV
/// exports). Cost: one deflate pass.
pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes)?;
    gz.finish()
}

/// Encodes an RGB buffer as PNG, as small as the `png` crate's encoder makes it while
/// staying byte-stable: 8-bit indexed colour, `Compression::Best` (zlib level 9), each
/// image encoded with no filter and with the adaptive per-row filter, the smaller kept
/// (ties: no filter).
///
/// The palette: an image of at most 256 distinct colours keeps them exactly (sorted, so
/// the bytes depend on the pixels only); otherwise the colours are reduced to 256 by
/// NeuQuant (`color_quant`, deterministic), which only touches the anti-aliased edges of
/// text and lines in a chart. Indexed PNGs are about a third of the size of RGB ones,
/// which keeps the committed figures within the repository's size budget.
///
/// Levels other than `Fast` compress through `flate2`, whose backend cargo chooses by
/// feature unification across the whole build; this crate therefore enables flate2's
/// `zlib-rs` backend itself (see its Cargo.toml), so that the bytes are the same whether
/// `report` is built alone or with the rest of the workspace (pixels were always
/// equal, but with two backends the compressed bytes were not).
pub fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>> {
    let (palette, indices) = palettize(rgb);
    let plain = encode_png_with(
        &palette,
        &indices,
        w,
        h,
        png::AdaptiveFilterType::NonAdaptive,
    )?;
    let adaptive = encode_png_with(&palette, &indices, w, h, png::AdaptiveFilterType::Adaptive)?;
    Ok(if adaptive.len() < plain.len() {
        adaptive
    } else {
        plain
    })
}

/// `(palette as RGB triples, one palette index per pixel)` of an RGB buffer: the exact
/// colours when there are at most 256, else a NeuQuant palette of 256. Cost: one hash
/// lookup per pixel, plus one network search per distinct colour when quantising.
fn palettize(rgb: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use std::collections::{BTreeSet, HashMap};
    let distinct: BTreeSet<[u8; 3]> = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    let lookup: HashMap<[u8; 3], u8>;
    let palette: Vec<u8>;
    if distinct.len() <= 256 {
        palette = distinct.iter().flatten().copied().collect();
        lookup = distinct
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, i as u8))
            .collect();
    } else {
        let rgba: Vec<u8> = rgb
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect();
        let nq = color_quant::NeuQuant::new(10, 256, &rgba);
        palette = nq
            .color_map_rgba()
            .chunks_exact(4)
            .flat_map(|c| [c[0], c[1], c[2]])
            .collect();
        lookup = distinct
            .iter()
            .map(|c| (*c, nq.index_of(&[c[0], c[1], c[2], 255]) as u8))
            .collect();
    }
    let indices = rgb
        .chunks_exact(3)
        .map(|p| lookup[&[p[0], p[1], p[2]]])
        .collect();
    (palette, indices)
}

fn encode_png_with(
    palette: &[u8],
    indices: &[u8],
    w: u32,
    h: u32,
    adaptive: png::AdaptiveFilterType,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Indexed);
        enc.set_palette(palette.to_vec());
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Best);
        enc.set_filter(png::FilterType::NoFilter);
        enc.set_adaptive_filter(adaptive);
        let mut writer = enc.write_header().map_err(|e| anyhow!("PNG header: {e}"))?;
        writer
            .write_image_data(indices)
            .map_err(|e| anyhow!("PNG data: {e}"))?;
        writer.finish().map_err(|e| anyhow!("PNG end: {e}"))?;
    }
    Ok(out)
}

/// Rows to CSV bytes (RFC 4180 quoting, `\n` line ends).
pub fn csv_bytes(rows: &[Vec<String>]) -> Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for r in rows {
        w.write_record(r)?;
    }
    w.into_inner().map_err(|e| anyhow!("CSV: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_bytes_depend_on_the_input_only_and_round_trip() {
        let a = gzip(b"series,x\na,1\n").unwrap();
        assert_eq!(a, gzip(b"series,x\na,1\n").unwrap());
        // header: magic, deflate, no flags, mtime 0, best (2), OS 255
        assert_eq!(&a[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
        let mut out = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&a[..]), &mut out).unwrap();
        assert_eq!(out, "series,x\na,1\n");
    }

    #[test]
    fn ticks_and_cells() {
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(5.0), "5");
        assert_eq!(tick(-1e-17), "0");
        assert_eq!(num_cell(0.41573750000000004), "0.41573750000000004");
        assert_eq!(num_cell(30.0), "30");
        assert_eq!(slug("Graph A (coding)"), "graph_a_coding");
        assert_eq!(padded_range([1.0, 1.0], 0.05), Some((0.9, 1.1)));
        assert_eq!(padded_range([f64::NAN], 0.05), None);
    }

    #[test]
    fn jitter_is_a_fixed_spread_and_tints_are_opaque() {
        let offsets: Vec<f64> = (0..200).map(jitter).collect();
        assert!(offsets.iter().all(|o| (-0.5..0.5).contains(o)));
        assert_eq!(offsets, (0..200).map(jitter).collect::<Vec<_>>());
        // Low discrepancy: every tenth of the strip gets some of the first 50 points.
        for d in 0..10 {
            let lo = -0.5 + d as f64 / 10.0;
            assert!(offsets[..50].iter().any(|o| (lo..lo + 0.1).contains(o)));
        }
        assert_eq!(lighten(RGBColor(0, 100, 255), 0.5), RGBColor(128, 178, 255));
        assert_eq!(short(0.56564198), "0.5656");
        assert_eq!(short(1.2e-15), "1.20e-15");
    }

    /// The comparison primitives draw the same bytes twice, and their CSV holds the
    /// summaries: one row per category / comparison.
    #[test]
    fn interval_and_forest_panels_render_deterministically() {
        let mut c = IntervalChart::new("rate", "noise rate", "share of queries");
        for (i, vals) in [[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]].iter().enumerate() {
            let s = sims::stats::summarize(vals);
            c.items.push(Interval {
                label: format!("0.{i}"),
                mean: s.mean.unwrap(),
                ci: s.ci95_low.zip(s.ci95_high),
                points: vals.to_vec(),
                color: color(0),
            });
        }
        c.references.push((0.9, "claim: ≥ 0.9".into()));
        let a = [Some(1.0), Some(1.0), None];
        let b = [Some(0.0), Some(1.0), Some(0.0)];
        let d = forest::paired("0.1 − 0.0", &a, &b);
        assert_eq!(d.points, vec![-1.0, 0.0]);
        assert_eq!(d.mean, -0.5);
        let mut f = ForestPlot::new("difference", "Δ share", color(0));
        f.rows.push(d);
        let fig = Figure {
            stem: "cmp".into(),
            size: (800, 400),
            title: Some("two\nlines".into()),
            grid: (1, 2),
            panels: vec![Panel::Interval(c), Panel::Forest(f)],
        };
        assert_eq!(fig.png().unwrap(), fig.png().unwrap());
        assert_eq!(fig.svgz().unwrap(), fig.svgz().unwrap());
        let csvs = fig.csv().unwrap();
        let names: Vec<_> = csvs.iter().map(|(n, _)| n.to_str().unwrap()).collect();
        assert_eq!(names, ["cmp/rate.csv", "cmp/difference.csv"]);
        let rate = String::from_utf8(csvs[0].1.clone()).unwrap();
        let diff = String::from_utf8(csvs[1].1.clone()).unwrap();
        // a header and one row per category (rate), per comparison (difference)
        assert_eq!(rate.lines().count(), 1 + 2, "{rate}");
        assert_eq!(diff.lines().count(), 1 + 1, "{diff}");
        assert!(rate.contains("\n0.0,0.6666666666666666,"), "{rate}");
        assert!(diff.contains("\n0.1 − 0.0,-0.5,"), "{diff}");
    }

    #[test]
    fn a_multi_panel_figure_has_one_csv_per_panel() {
        let panel = |title: &str, y: &str, v: f64| {
            let mut c = LineChart::new(title, "query", y, "query", y);
            c.series
                .push(Series::new("a", RGBColor(0, 0, 0), vec![(1.0, v)]));
            Panel::Line(c)
        };
        let fig = Figure {
            stem: "two".into(),
            size: (100, 100),
            title: None,
            grid: (1, 2),
            panels: vec![panel("MRR", "mrr", 0.5), panel("", "recall", 0.25)],
        };
        let csvs: Vec<(String, String)> = fig
            .csv()
            .unwrap()
            .into_iter()
            .map(|(n, b)| (n.to_str().unwrap().into(), String::from_utf8(b).unwrap()))
            .collect();
        // The untitled second panel is keyed by its position; each file has only its
        // own panel's columns.
        assert_eq!(
            csvs,
            [
                ("two/mrr.csv".into(), "series,query,mrr\na,1,0.5\n".into()),
                (
                    "two/panel2.csv".into(),
                    "series,query,recall\na,1,0.25\n".into()
                ),
            ]
        );
    }
}
