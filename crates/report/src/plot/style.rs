//! The house style and the drawing helpers every chart shares: font sizes, the palette,
//! axes, legends, categorical frames, guides, whiskers, label and CSV number formats. The
//! charts (one module each) import this module, never the [`super`](crate::plot) that
//! gathers them, so that no chart imports the module that imports it.

use anyhow::Result;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::font::FAMILY;

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
