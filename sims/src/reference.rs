//! Where the reference program's result files are (`<sim>_results.json` of reference
//! `sims/*.py`), for
//! the tests that compare with them.

use std::path::{Path, PathBuf};

/// Relative location of the reference results inside the shared material.
const REL: &str = "shared/spec/reference-results/sims";

/// `CRABPATH_REFERENCE_DIR` if set, else `shared/spec/reference-results/sims` in the
/// nearest ancestor of this crate's source directory that has it; `None` (after a
/// note on stderr naming the variable) when that directory does not exist.
pub fn results_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("CRABPATH_REFERENCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .map(|a| a.join(REL))
            .find(|d| d.is_dir())
            .unwrap_or_else(|| PathBuf::from(REL)),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "reference directory {} not found; set CRABPATH_REFERENCE_DIR — test skipped",
            dir.display()
        );
        None
    }
}
