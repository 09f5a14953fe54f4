//! Figure model and rendering: a [`Figure`] is a grid of [`Panel`]s, rendered to PNG
//! (plotters' bitmap backend + the bundled font, encoded with fixed settings) and to
//! SVG (stored gzip-compressed as `.svgz`, which vector editors open directly), and
//! exported as CSV (one file per figure, tidy columns) so that the data behind every
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

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
/// Tick labels and table numbers share one formatter.
pub use sims::paper::extract::tick;

/// Font sizes in pixels.
pub mod size {
    /// Figure title (multi-panel figures).
    pub const SUPTITLE: u32 = 26;
    /// Panel title.
    pub const TITLE: u32 = 22;
    /// Axis descriptions.
    pub const LABEL: u32 = 18;
    /// Tick labels.
    pub const TICK: u32 = 16;
    /// Legend entries and annotations.
    pub const LEGEND: u32 = 16;
}

/// The matplotlib "tab10" colours, used in the same roles as the reference figures.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The light halves of matplotlib's "tab20" pairs, for series 10 to 19 of a chart with
/// more series than [`PALETTE`] has colours (each the lighter shade of the `tab10` colour
/// ten series earlier).
pub const PALETTE_LIGHT: [RGBColor; 10] = [
    RGBColor(0xae, 0xc7, 0xe8),
    RGBColor(0xff, 0xbb, 0x78),
    RGBColor(0x98, 0xdf, 0x8a),
    RGBColor(0xff, 0x98, 0x96),
    RGBColor(0xc5, 0xb0, 0xd5),
    RGBColor(0xc4, 0x9c, 0x94),
    RGBColor(0xf7, 0xb6, 0xd2),
    RGBColor(0xc7, 0xc7, 0xc7),
    RGBColor(0xdb, 0xdb, 0x8d),
    RGBColor(0x9e, 0xda, 0xe5),
];

/// The `i`-th series colour: [`PALETTE`] for the first ten, [`PALETTE_LIGHT`] for the next
/// ten (so that no two of up to 20 series share a colour), then cycling.
pub fn color(i: usize) -> RGBColor {
    match i % 20 {
        j if j < 10 => PALETTE[j],
        j => PALETTE_LIGHT[j - 10],
    }
}

/// Grid line colour.
pub const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);

/// The axis descriptions, label fonts and light grid every chart with axes uses.
pub fn axes<'m, 'a, 'b, X, Y, DB>(
    mesh: &'m mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>,
    x_label: &str,
    y_label: &str,
) -> &'m mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
    DB: DrawingBackend,
{
    mesh.x_desc(x_label)
        .y_desc(y_label)
        .axis_desc_style((FAMILY, size::LABEL))
        .label_style((FAMILY, size::TICK))
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
}

/// Where a legend goes (or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legend {
    /// No legend.
    None,
    /// Upper left corner of the plotting area.
    UpperLeft,
    /// Upper right corner.
    UpperRight,
    /// Lower left corner.
    LowerLeft,
    /// Lower right corner.
    LowerRight,
    /// Middle of the right edge.
    MiddleRight,
}

impl Legend {
    /// The plotters position, `None` for no legend.
    pub fn position(self) -> Option<SeriesLabelPosition> {
        Some(match self {
            Legend::None => return None,
            Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
            Legend::UpperRight => SeriesLabelPosition::UpperRight,
            Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
            Legend::MiddleRight => SeriesLabelPosition::MiddleRight,
        })
    }

    /// Draws the chart's series legend here, in the house style (white box, grey
    /// border, legend font); `marker_width` widens the marker column. No legend for
    /// [`Legend::None`].
    pub fn draw<'a, DB, CT>(
        self,
        chart: &mut ChartContext<'a, DB, CT>,
        marker_width: Option<u32>,
    ) -> Result<()>
    where
        DB: DrawingBackend + 'a,
        DB::ErrorType: 'static,
        CT: CoordTranslate,
    {
        let Some(pos) = self.position() else {
            return Ok(());
        };
        let mut labels = chart.configure_series_labels();
        labels.position(pos).margin(10);
        if let Some(w) = marker_width {
            labels.legend_area_size(w);
        }
        labels
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(0x99, 0x99, 0x99))
            .label_font((FAMILY, size::LEGEND))
            .draw()?;
        Ok(())
    }
}

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

    /// A short name for the panel: the `panel` column of a multi-panel figure's CSV.
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

/// The offset of the `k`-th point of a jittered strip, in `[-0.5, 0.5)`: the fractional
/// part of `k` times the golden ratio (a low-discrepancy sequence), so that points
/// spread evenly and the same points always land in the same places — no RNG, no
/// dependence on threads. Multiply by the strip's width.
pub fn jitter(k: usize) -> f64 {
    const PHI: f64 = 0.618_033_988_749_894_8;
    ((k as f64 + 1.0) * PHI).fract() - 0.5
}

/// Tick labels of a categorical axis drawn on `-0.5..n-0.5`: the name of category `i`
/// at `i`, nothing between.
pub fn category_labels(names: Vec<String>) -> impl Fn(&f64) -> String {
    move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
            names[i as usize].clone()
        } else {
            String::new()
        }
    }
}

/// A chart with named categories at `0..n` on the x axis (`-0.5..n-0.5`) and values
/// `y0..y1` on the y axis, its caption, axis descriptions and mesh drawn in the house
/// style (no vertical grid lines): the frame of bar and interval charts.
pub fn category_chart<'a, DB>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    (x_label, y_label): (&str, &str),
    names: Vec<String>,
    (y0, y1): (f64, f64),
) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
{
    let n = names.len();
    let mut c = ChartBuilder::on(area)
        .caption(title, (FAMILY, size::TITLE))
        .margin(14)
        .x_label_area_size(58)
        .y_label_area_size(82)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), y0..y1)?;
    let xfmt = category_labels(names);
    let yfmt = |v: &f64| tick(*v);
    axes(&mut c.configure_mesh(), x_label, y_label)
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .draw()?;
    Ok(c)
}

/// A dashed horizontal line at `y` from `x0` to `x1` (a threshold, a baseline) and, when
/// `label` is not empty, its label with its left edge at `label_at` and its top
/// ([`VPos::Top`]: the label hangs below the point) or bottom at `label_at.1`.
pub fn dashed_guide<DB>(
    c: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    (x0, x1): (f64, f64),
    y: f64,
    label: &str,
    label_at: (f64, f64),
    vpos: VPos,
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    c.draw_series(DashedLineSeries::new(
        [(x0, y), (x1, y)],
        8,
        5,
        BLACK.stroke_width(1),
    ))?;
    if !label.is_empty() {
        let st =
            TextStyle::from((FAMILY, size::LEGEND).into_font()).pos(Pos::new(HPos::Left, vpos));
        c.draw_series(std::iter::once(Text::new(label.to_string(), label_at, st)))?;
    }
    Ok(())
}

/// An interval as a whisker with end caps, in drawing order: the bar, the low cap,
/// the high cap. Vertical at `x = at` from `lo` to `hi` (caps `±cap` wide along x);
/// with `horizontal`, at `y = at` from `lo` to `hi` (caps `±cap` along y).
pub fn whisker(
    at: f64,
    (lo, hi): (f64, f64),
    cap: f64,
    horizontal: bool,
    style: ShapeStyle,
) -> [PathElement<(f64, f64)>; 3] {
    let p = |along: f64, across: f64| {
        if horizontal {
            (along, across)
        } else {
            (across, along)
        }
    };
    [
        PathElement::new(vec![p(lo, at), p(hi, at)], style),
        PathElement::new(vec![p(lo, at - cap), p(lo, at + cap)], style),
        PathElement::new(vec![p(hi, at - cap), p(hi, at + cap)], style),
    ]
}

/// `c` mixed with white: `amount` 0 keeps it, 1 gives white. An opaque tint, so that
/// overlapping points add no colours to the PNG palette.
pub fn lighten(c: RGBColor, amount: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * amount).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// A value for a label: four significant decimals without trailing zeros, or
/// scientific notation for very small or very large magnitudes.
pub fn short(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e5) {
        return format!("{v:.2e}");
    }
    tick((v * 1e4).round() / 1e4)
}

/// Lower-case ASCII letters and digits, other runs replaced by `_`.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
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

    /// The SVG, gzip-compressed (`.svgz`): level 9, no file name, modification time 0
    /// and OS byte 255 in the header, so the bytes depend on the drawing only.
    pub fn svgz(&self) -> Result<Vec<u8>> {
        use std::io::Write;
        let svg = self.svg()?;
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .operating_system(255)
            .write(Vec::new(), flate2::Compression::best());
        gz.write_all(&svg)
            .and_then(|()| gz.try_finish())
            .with_context(|| format!("compressing {}.svgz", self.stem))?;
        gz.finish()
            .with_context(|| format!("compressing {}.svgz", self.stem))
    }

    /// `(file name, bytes)` of the CSV export, one file `<stem>.csv` per figure: a
    /// single panel's table as it is; for several panels a `panel` column (the panel's
    /// slug, `panel<i>` when untitled) followed by the union of the panels' columns in
    /// first-seen order, each row filling its own panel's columns.
    pub fn csv(&self) -> Result<(String, Vec<u8>)> {
        let name = format!("{}.csv", self.stem);
        if self.panels.len() == 1 {
            return Ok((name, csv_bytes(&self.panels[0].table())?));
        }
        let tables: Vec<(String, Vec<Vec<String>>)> = self
            .panels
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let s = p.slug();
                let s = if s.is_empty() {
                    format!("panel{}", i + 1)
                } else {
                    s
                };
                (s, p.table())
            })
            .collect();
        let mut columns: Vec<String> = Vec::new();
        for (_, t) in &tables {
            for c in t.first().into_iter().flatten() {
                if !columns.contains(c) {
                    columns.push(c.clone());
                }
            }
        }
        let mut head = vec!["panel".to_string()];
        head.extend(columns.iter().cloned());
        let mut rows = vec![head];
        for (slug, t) in &tables {
            let Some((header, body)) = t.split_first() else {
                continue;
            };
            for r in body {
                let mut row = vec![slug.clone()];
                row.extend(columns.iter().map(|c| {
                    header
                        .iter()
                        .position(|h| h == c)
                        .and_then(|i| r.get(i).cloned())
                        .unwrap_or_default()
                }));
                rows.push(row);
            }
        }
        Ok((name, csv_bytes(&rows)?))
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
        let (name, bytes) = self.csv()?;
        arts.push(Artifact::new(out.join("csv").join(dir).join(name), bytes));
        Ok(arts)
    }
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

/// A number for CSV: shortest round-trip form (`0.1`, `1`, `-0.94`); empty for NaN.
pub fn num_cell(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// `(lo, hi)` of finite values, padded by `pad` of the span (a unit span around
/// a constant); `None` when there is no finite value.
pub fn padded_range(values: impl IntoIterator<Item = f64>, pad: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return None;
    }
    if hi - lo < 1e-12 {
        let d = if lo.abs() > 1e-12 {
            lo.abs() * 0.1
        } else {
            1.0
        };
        return Some((lo - d, hi + d));
    }
    let d = (hi - lo) * pad;
    Some((lo - d, hi + d))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (_, csv) = fig.csv().unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert_eq!(csv.lines().count(), 1 + 2 + 1, "{csv}");
        assert!(csv.contains("rate,0.0,0.6666666666666666,"), "{csv}");
        assert!(csv.contains("difference,,,,,2,0.1 − 0.0,-0.5,"), "{csv}");
    }

    #[test]
    fn a_multi_panel_figure_has_one_csv_with_a_panel_column() {
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
        let (name, bytes) = fig.csv().unwrap();
        assert_eq!(name, "two.csv");
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "panel,series,query,mrr,recall\nmrr,a,1,0.5,\npanel2,a,1,,0.25\n"
        );
    }
}
