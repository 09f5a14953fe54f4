//! The integration tests of `crabpath-brain`, one test binary (`cargo test -p crabpath-brain --test it`):
//! each module is one former `tests/<topic>.rs` file, so a test's full name is
//! `<topic>::<test>` (filter with `cargo test -p crabpath-brain --test it <topic>::`). One binary
//! links the dependency graph once instead of once per file (CI time, stop 38). Tests
//! here share a process: none sets environment variables, changes the current directory
//! or keeps process-wide state that another test reads.
//!
//! A new topic: `tests/it/<topic>.rs` and a `mod <topic>;` line below (alphabetical).

mod autotune;
mod cli_reference;
mod common;
mod conversation;
mod conversation_entities;
mod conversation_features;
mod conversation_lead;
mod conversation_rerank;
mod embed_text;
mod entity_link_change;
mod feedback;
mod folder_rank;
mod forget;
mod forget_random;
mod forget_random_turns;
mod full_disk;
mod guardrail;
mod guardrail_context;
mod guardrail_depth;
mod health;
mod import_validation;
mod judged_feedback;
mod lexical;
mod maintain_prune;
mod maintain_safety;
mod maintain_snapshot;
mod neurogenesis;
mod postings_stream;
mod reembed;
mod reference_sample;
mod route;
mod search_index;
mod search_index_format;
mod store;
mod sync_merged;
mod workspace_profiles;
