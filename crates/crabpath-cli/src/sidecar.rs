//! The binary index sidecar (`crabpath_brain::sidecar`): loading through it when it is
//! current, refreshing it after saves.

use std::path::Path;

use crabpath::{State, VectorIndex};
use crabpath_brain::statefile::Rendered;

/// The state at `path`, read through its sidecar, if the sidecar is current.
pub fn load(path: &Path) -> Option<State> {
    crabpath_brain::sidecar::load(path)
}

/// Rewrites the sidecar of a state file just written from `rendered` (best effort: a
/// failure only removes the sidecar, and the next load parses the state file).
pub fn refresh(path: &Path, rendered: &Rendered, index: &VectorIndex) {
    let _ = crabpath_brain::sidecar::write_rendered(path, rendered, index);
}
