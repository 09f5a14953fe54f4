//! The bundled font: DejaVu Sans (Bitstream Vera licence, `assets/FONT-LICENSE`),
//! registered with plotters' `ab_glyph` text path so that PNG text renders the same
//! on every machine, with no system font packages.

use std::sync::OnceLock;

use anyhow::{anyhow, Result};
use plotters::style::FontStyle;

/// DejaVu Sans 2.37, unmodified (from Debian's `fonts-dejavu-core`).
pub static DEJAVU_SANS: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The family name every figure uses; SVG files name it too (with a generic
/// `sans-serif` fallback being the viewer's choice).
pub const FAMILY: &str = "sans-serif";

/// Registers the bundled font for [`FAMILY`] (all styles fall back to it). Idempotent.
pub fn ensure_registered() -> Result<()> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok()
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
