//! The integration tests of `bench`, one test binary (`cargo test -p bench --test it`):
//! each module is one former `tests/<topic>.rs` file, so a test's full name is
//! `<topic>::<test>` (filter with `cargo test -p bench --test it <topic>::`). One binary
//! links the dependency graph once instead of once per file (CI time, stop 38). Tests
//! here share a process: none sets environment variables, changes the current directory
//! or keeps process-wide state that another test reads.
//!
//! A new topic: `tests/it/<topic>.rs` and a `mod <topic>;` line below (alphabetical).

mod check;
mod cli;
mod common;
mod folder;
mod heldout;
mod loaders;
mod locomo;
mod locomo_product;
mod minilm;
mod official;
mod peers;
mod peers_check;
mod reference_match;
mod repo_bench;
mod staged;
