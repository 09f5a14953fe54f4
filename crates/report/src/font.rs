//! The bundled font: DejaVu Sans (Bitstream Vera licence, `assets/FONT-LICENSE`),
//! registered with plotters' `ab_glyph` text path so that PNG text renders the same
//! on every machine, with no system font packages.

use std::io::Read;
use std::sync::OnceLock;

use anyhow::{anyhow, Result};
use plotters::style::FontStyle;

/// DejaVu Sans 2.37 (from Debian's `fonts-dejavu-core`), cut to the Unicode blocks a
/// figure can need and stored gzip-compressed, to keep the repository small (382 KB →
/// 122 KB). The cut keeps every outline, advance, kerning pair and hint of the glyphs it
/// keeps, so the figures render to the same bytes (`report check` compares every PNG; an
/// ASCII-only cut makes 16 of them differ). Made with fonttools 4.55.0:
///
/// ```text
/// pyftsubset DejaVuSans.ttf --unicodes="U+0000-024F,U+0370-03FF,U+2000-206F,U+2070-209F,\
///   U+20A0-20CF,U+2100-214F,U+2190-21FF,U+2200-22FF,U+2300-23FF,U+2500-257F,U+25A0-25FF" \
///   --layout-features='*' --glyph-names --legacy-kern --hinting --name-IDs='*' \
///   --name-legacy --name-languages='*' --notdef-outline --output-file=DejaVuSans.ttf
/// gzip -9n DejaVuSans.ttf
/// ```
static DEJAVU_SANS_GZ: &[u8] = include_bytes!("../assets/DejaVuSans.ttf.gz");

/// The font file, decompressed once.
pub fn dejavu_sans() -> Result<&'static [u8]> {
    static TTF: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    TTF.get_or_init(|| {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(DEJAVU_SANS_GZ)
            .read_to_end(&mut out)
            .ok()
            .map(|_| out)
    })
    .as_deref()
    .ok_or_else(|| anyhow!("the bundled DejaVu Sans font could not be decompressed"))
}

/// The family name every figure uses; SVG files name it too (with a generic
/// `sans-serif` fallback being the viewer's choice).
pub const FAMILY: &str = "sans-serif";

/// Registers the bundled font for [`FAMILY`] (all styles fall back to it). Idempotent.
pub fn ensure_registered() -> Result<()> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        dejavu_sans()
            .is_ok_and(|ttf| plotters::style::register_font(FAMILY, FontStyle::Normal, ttf).is_ok())
    });
    if ok {
        Ok(())
    } else {
        Err(anyhow!("the bundled DejaVu Sans font could not be parsed"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_font_registers() {
        super::ensure_registered().unwrap();
        super::ensure_registered().unwrap();
    }
}
