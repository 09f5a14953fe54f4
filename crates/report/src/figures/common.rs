//! What the figure builders share: the context of a simulation figure ([`Ctx`]) and
//! point helpers. The builders import this module, never the dispatching
//! [`super`](crate::figures), so that no builder imports the module that imports it.

use anyhow::{anyhow, Result};

use crate::data::{Doc, Profile};
use crate::plot::Figure;

/// What a builder needs besides the document.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// The profile the document belongs to.
    pub profile: Profile,
}

impl Ctx {
    /// `base`, marked with the profile when it is not the paper profile.
    pub fn title(&self, base: &str) -> String {
        match self.profile {
            Profile::Paper => base.to_string(),
            Profile::Corrected => format!("{base} [corrected]"),
        }
    }
}

/// A simulation figure builder: reads the document as its scenario's type.
pub type Builder = fn(&Doc, Ctx) -> Result<Figure>;

/// Queries `1..=n` as x values.
pub fn queries(n: usize) -> Vec<f64> {
    (1..=n).map(|q| q as f64).collect()
}

/// Zips x and y into points, checking the lengths agree.
pub fn points(x: &[f64], y: &[f64], what: &str) -> Result<Vec<(f64, f64)>> {
    if x.len() != y.len() {
        return Err(anyhow!(
            "{what}: {} x values but {} y values",
            x.len(),
            y.len()
        ));
    }
    Ok(x.iter().copied().zip(y.iter().copied()).collect())
}

/// `xs` as f64.
pub fn floats<T: Copy + Into<f64>>(xs: impl IntoIterator<Item = T>) -> Vec<f64> {
    xs.into_iter().map(Into::into).collect()
}

/// Counts as f64.
pub fn counts(xs: impl IntoIterator<Item = usize>) -> Vec<f64> {
    xs.into_iter().map(|x| x as f64).collect()
}
