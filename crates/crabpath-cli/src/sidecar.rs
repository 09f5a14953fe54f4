//! The binary index sidecar (see `crabpath::sidecar`): loading through it when it is
//! current, refreshing it after saves.

use std::path::Path;

use crabpath::State;

/// The state at `path`, read through its sidecar, if the sidecar is current.
pub fn load(_path: &Path) -> Option<State> {
    None
}

/// Rewrites the sidecar of a state just saved (best effort).
pub fn refresh(_path: &Path, _state: &State) {}

/// Rewrites the sidecar of a state file just written by another writer (best effort).
pub fn refresh_from_disk(_path: &Path) {}
