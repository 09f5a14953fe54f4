//! No code: this crate only unifies the features of the workspace's dependencies
//! (see its `Cargo.toml`), so that every build of any set of members compiles each
//! dependency with one feature set and reuses the artefacts of the others.
