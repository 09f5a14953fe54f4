//! The bundled font: DejaVu Sans (Bitstream Vera licence, `assets/FONT-LICENSE`),
//! registered with plotters' `ab_glyph` text path so that PNG text renders the same
//! on every machine, with no system font packages.

use std::io::Read;
use std::sync::OnceLock;

use anyhow::{anyhow, Result};
use plotters::style::FontStyle;

/// DejaVu Sans 2.37, unmodified (from Debian's `fonts-dejavu-core`), stored
/// gzip-compressed (`gzip -9n`) to keep the repository small.
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
