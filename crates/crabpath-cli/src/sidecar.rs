//! The binary index sidecar (`crabpath::sidecar`): loading through it when it is
//! current, refreshing it after saves.

use std::path::Path;

use crabpath::state::Rendered;
use crabpath::{State, VectorIndex};

/// The state at `path`, read through its sidecar, if the sidecar is current.
pub fn load(path: &Path) -> Option<State> {
    crabpath::sidecar::load(path)
}

/// Rewrites the sidecar of a state file just written from `rendered` (best effort: a
/// failure only removes the sidecar, and the next load parses the state file).
pub fn refresh(path: &Path, rendered: &Rendered, index: &VectorIndex) {
    let _ = crabpath::sidecar::write_rendered(path, rendered, index);
}
