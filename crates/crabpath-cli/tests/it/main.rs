//! The integration tests of `crabpath-cli`, one test binary (`cargo test -p crabpath-cli --test it`):
//! each module is one former `tests/<topic>.rs` file, so a test's full name is
//! `<topic>::<test>` (filter with `cargo test -p crabpath-cli --test it <topic>::`). One binary
//! links the dependency graph once instead of once per file (CI time, stop 38). Tests
//! here share a process: none sets environment variables, changes the current directory
//! or keeps process-wide state that another test reads.
//!
//! A new topic: `tests/it/<topic>.rs` and a `mod <topic>;` line below (alphabetical).

mod common;
// what `reembed` keeps, shared with crabpath-brain's tests (`reembed`)
mod autotune;
mod conversation;
mod corrected;
mod daemon;
mod daemon_v12;
mod doctor;
mod embed_mpnet;
mod guardrail;
mod health;
#[path = "../../../crabpath-brain/tests/it/common/kept.rs"]
mod kept;
mod maintain_neurogenesis;
mod maintain_safety;
mod mcp;
mod mcp_forget;
mod mcp_full_disk;
mod mcp_http_guard;
mod mcp_idle;
mod mcp_load;
mod mcp_reader;
mod mcp_state_file;
mod mcp_stdio_errors;
mod migrate;
mod neurogenesis;
mod outputs;
mod query_limit;
mod reembed;
mod reference_flow;
mod reliability;
mod replace_safety;
mod safety;
mod sample_workspace;
mod sequences;
mod served_lock;
mod state_full_disk;
mod sync_safety;
mod team;
mod used_ids;
mod validation;
