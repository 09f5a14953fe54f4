//! The reference program's result files: `<sim>_results.json` as written by reference
//! `sims/*.py` (commit 134c676), committed gzip-compressed in [`DIR`] (its README gives
//! the command and environment). The `paper` profile must reproduce every deterministic
//! field of them ([`crate::sim::Simulation::timing_fields`] lists the others).
//!
//! Tests find the directory with `testdata::reference("sims")`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

/// Where the repository keeps the reference result files, relative to its root.
pub const DIR: &str = "results/reference/sims";

/// `<dir>/<sim>_results.json.gz`.
pub fn path(dir: &Path, sim: &str) -> PathBuf {
    dir.join(format!("{sim}_results.json.gz"))
}

/// The reference's result file of `sim` as the script wrote it (decompressed text).
pub fn text(dir: &Path, sim: &str) -> Result<String> {
    crate::runner::read_text(&path(dir, sim))
}

/// The reference's result file of `sim`, parsed.
pub fn load(dir: &Path, sim: &str) -> Result<Value> {
    crate::runner::read_json(&path(dir, sim))
}
