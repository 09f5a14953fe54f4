//! # crabpath-brain
//!
//! The CrabPath memory as an application: a brain built from a folder (or a
//! conversation), kept on disk, queried every turn and taught outcomes and corrections.
//! The algorithm itself (graph, traversal, learning, maintenance, search) is crate
//! `crabpath`; the Python-compatible formats of the `paper` profile are crate
//! `pyformat`. The `crabpath` binary (crate `crabpath-cli`) only parses arguments,
//! calls this crate and prints.
//!
//! ## The service and the store
//!
//! | piece | module |
//! |---|---|
//! | the `Brain` service: open, query, learn, inject, maintain, sync, snapshots, export/import, a transaction for anything else | [`service`] |
//! | what an operation works on (graph, vectors, meta, journal entries) | [`working`] |
//! | the brain database: schema and migrations, rows, write-back of what changed, vectors, search and its derived index, bulk creation | [`store`] |
//! | the embedder a brain records | [`embedder`] |
//! | changing a brain's embedder in place, resumably (seed 003 §6.3) | [`reembed`] |
//!
//! ```no_run
//! use crabpath_brain::{locate, Brain, OpenOptions, QueryRequest};
//! # fn main() -> crabpath_brain::Result<()> {
//! let mut o = OpenOptions::new(crabpath::Profile::Corrected);
//! o.embedder = Some(std::sync::Arc::new(|| {
//!     Ok(Box::new(crabpath::HashEmbedder::new()) as Box<dyn crabpath::Embedder>)
//! }));
//! let mut brain = Brain::open(locate("brain".as_ref()), o)?;
//! let answer = brain.query(&QueryRequest::new("how do I deploy", 10))?;
//! let fired: Vec<String> = answer.fired().iter().map(|s| s.to_string()).collect();
//! brain.learn(&fired, 1.0)?; // it helped
//! # Ok(())
//! # }
//! ```
//!
//! ## Brains from folders: the building blocks of the reference CLI
//!
//! The reference's command-line program (`crabpath/cli.py` and the modules it drives,
//! commit 134c676) builds a brain from a folder, replays session logs and keeps its
//! files in a fixed format. These modules reproduce those pieces exactly (paper
//! profile) and fix their bugs (corrected profile, each fix tabled in its module docs):
//!
//! | piece | module | reference |
//! |---|---|---|
//! | walk, skip rules, `.gitignore`, reading | [`workspace`], [`gitignore`], [`text`] | `split.py::split_workspace`, `_should_skip_path`, `_match_gitignore` |
//! | Markdown / Python / JSON / config chunkers | [`chunk`] | `split.py::_chunk_*` |
//! | nodes, ids, metadata, sibling edges | [`bootstrap`] | `split.py::split_workspace`, `_sibling_weight` |
//! | session logs (plain, flat, OpenClaw) | [`session`] | `replay.py::extract_interactions`, `extract_queries` |
//! | session replay | [`replay`] | `replay.py::replay_queries` |
//! | `state.json` | [`statefile`] | `store.py::save_state`, `load_state` |
//! | `graph.json`, `index.json`, `texts.json`, embedder record | [`reffiles`] | `cli.py::cmd_init`, `_write_graph`, `_load_graph` |
//! | journal | [`journal`] | `journal.py` |
//!
//! ## The program: what each command does to a brain
//!
//! | command | module | reference |
//! |---|---|---|
//! | `learn`, `maintain`, `merge`, `connect`, `anchor`, `doctor`, `info`, `journal`, `query` | [`command`] | `cli.py::cmd_*`, `maintain.py::run_maintenance` |
//! | `sync` (incremental when corrected) | [`sync`] | `sync.py::sync_workspace` |
//! | `compact` (daily notes) | [`compact`] | `compact.py::compact_daily_notes` |
//! | `daemon` (NDJSON protocol, write-ahead log) | [`daemon`] | `daemon.py` |
//! | `snapshot`, `rollback` | [`snapshot`] | — |
//! | the state lock; one `.bak` per save (state files) | [`lock`], `pyformat::io` | — (the reference has neither) |
//! | binary index sidecar of `state.json` | [`sidecar`] | — |
//! | the daemon's upstream v12 methods (`inject`, `correction`, `last_fired`, `learn_by_chat_id`, `capture_feedback`, `route_mode`) | [`daemon`] | `openclawbrain/daemon.py`, `protocol.py` (12.2.6) |
//!
//! ## Serving agents
//!
//! | piece | module | source |
//! |---|---|---|
//! | route modes of served queries (`off`, `edge`, `edge+sim`, `adaptive`) and the vectors routers read | [`route`] | `crabpath::router`; upstream `daemon.py::_handle_query` |
//! | conversation log, feedback that arrives later, the correction ledger | [`turns`], [`service`] (`feedback`, `correct`, `teach`) | seed 003 §3.2–3.4, seed 002 §5.7–5.8 |
//! | a conversation as a source: JSON Lines turns, their nodes and session chains; `remember` adds one | [`conversation`], [`service`] (`remember_turn`) | issue 28 item 1 |
//!
//! ## Layers
//!
//! [`error`] imports nothing from the crate; every other module imports only modules
//! below it (the workspace's `.ci/module-cycles` checks that no module imports one that
//! imports it back).
#![warn(missing_docs)]

pub mod bootstrap;
pub mod chunk;
pub mod command;
pub mod compact;
pub mod conversation;
pub mod daemon;
pub mod embedder;
pub mod embedtext;
pub mod error;
pub mod gitignore;
pub mod journal;
pub mod lock;
pub mod reembed;
pub mod reffiles;
pub mod replay;
pub mod route;
pub mod service;
pub mod session;
pub mod sidecar;
pub mod snapshot;
pub mod statecheck;
pub mod statefile;
pub mod store;
pub mod sync;
pub mod text;
pub mod turns;
pub mod working;
pub mod workspace;

pub use error::{Error, Result};
pub use service::{locate, Answer, Brain, Location, OpenOptions, QueryRequest, Scope, Seeding};
pub use working::Working;
