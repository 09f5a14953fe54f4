//! The `Brain` service: the one way the command line, the daemon and agents use a
//! brain. Open it (for reading or writing, resident in memory or not), then `query`,
//! `learn`, `inject`, `maintain`, `sync`, `snapshot`/`rollback`, and
//! [`Brain::write`] for any other change. Every write is one transaction with its
//! journal entries: one writer of the store, one appender of the journal, one query
//! path.
//!
//! A brain is either
//! * a **database** (`brain.db` in a brain directory, [`crate::store`]): the system of
//!   record. A write reads only the rows it needs inside its write transaction and
//!   writes back only the rows it changed ([`crate::store::writeback`]), so concurrent
//!   writers never lose an update; a resident brain (the daemon) keeps the graph in
//!   memory and catches up with other processes' writes before every request (`PRAGMA
//!   data_version`, then the rows with a newer revision); or
//! * a **state file** (`state.json`, the reference's format, or a `graph.json` with an
//!   optional `index.json`): read whole, written whole (atomically, one `.bak`), under
//!   an advisory lock. This is the `paper` profile's brain, byte for byte the
//!   reference's, and what `import`/`export` exchange.
//!
//! [`locate`] decides which from a path (the brain directory, or a file in it).

mod admin;
mod autotune;
pub mod command;
mod content_depth;
mod engine;
mod feedback;
mod feedback_report;
mod fill_hook;
pub mod folder_rank;
mod forget;
mod guardrail;
pub mod health;
pub mod judged;
pub mod lead;
mod neurogenesis;
mod neurogenesis_report;
mod ops;
mod query;
mod reader;
mod reembed;
mod remember;
pub mod rerank;
pub mod route;
mod serving;
pub mod turns;
mod unjournaled;
mod unlearn;

pub use admin::{
    brain_dir, embed_texts, export_state, full_state, import_state, init_reference, init_store,
    keep_before_replacing, layout_for, BrainInfo, InitOptions, InitReport, RolledBack,
};
pub use autotune::AutotuneOutcome;
pub use engine::{
    file_version, locate, save_state_file, Brain, EmbedderLoader, Location, LockWait, OpenOptions,
    Scope,
};
pub use feedback::{
    CorrectReport, CorrectRequest, FeedbackReport, FeedbackRequest, TeachReport, TurnCredit,
};
pub use forget::{ForgetCounts, ForgetReport, ForgetTarget};
pub use guardrail::{is_guardrail, CorrectionMode, GUARDRAIL_MIN_SIM, GUARDRAIL_TOP_K};
pub use health::HealthReport;
pub use neurogenesis::{
    is_auto, parse_switch, NeurogenesisCounts, NeurogenesisMaintain, AUTO_PREFIX, NEUROGENESIS_KEY,
};
pub use ops::{inject_event, InjectRequest, LearnReport};
pub use query::{Answer, QueryRequest, Seeding, ADDED_PER_SEED};
pub use remember::RememberReport;
pub use unjournaled::Unjournaled;
pub use unlearn::Relearned;
