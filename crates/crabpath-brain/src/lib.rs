//! # crabpath-brain
//!
//! The CrabPath memory as an application: a brain built from a folder (or a
//! conversation), kept on disk, queried every turn and taught outcomes and corrections.
//! The algorithm itself (graph, traversal, learning, maintenance, search) is crate
//! `crabpath`; the Python-compatible formats of the `paper` profile are crate
//! `pyformat`. The `crabpath` binary (crate `crabpath-cli`) only parses arguments,
//! calls this crate and prints.
//!
//! ## Using a brain
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
//! ## Layers
//!
//! The modules are grouped by layer (issue 31, "Where it lands"), lowest first:
//!
//! | layer | directory | what it holds |
//! |---|---|---|
//! | errors | [`error`] | the crate's one error type; imports nothing from the crate |
//! | reference formats | [`reference`](mod@reference) | the reference program's files, byte for byte: `state.json` and its sidecar, `graph.json`/`index.json`/`texts.json`, the embedder record, the journal; the state lock, state snapshots, the check before `import` |
//! | store | [`store`] | the brain database: schema and migrations, rows, write-back of what changed, vectors, search and its derived index, bulk creation; [`Working`], what an operation works on |
//! | source | [`source`] | reading folders (walk, `.gitignore`, chunkers, bootstrap, `sync`, `compact`) and conversations (session logs and replay, conversation files); the text a node is embedded as |
//! | service | [`service`] | the [`Brain`]: open, query, learn, feedback, corrections, neurogenesis, health, autotune, maintain, sync, snapshots, export/import; what each command does to a brain ([`service::command`], reference `cli.py::cmd_*`); route modes ([`service::route`]); the conversation log and feedback attribution ([`service::turns`]) |
//! | serving | [`serve`] | the daemon's NDJSON protocol (reference `daemon.py`, upstream v12 methods) |
//!
//! Each layer's module lists its pieces and the reference functions they reproduce:
//! the `paper` profile reproduces the reference's command-line program (`crabpath/cli.py`
//! and the modules it drives, commit 134c676) exactly, the corrected profile fixes its
//! bugs (each fix tabled in its module's docs). A layer imports the layers below it,
//! with two exceptions: the journal ([`reference::journal`]) expands `~` with
//! [`source::workspace::expanduser`], and the store's speaker preference
//! ([`store::speaker`]) reads the conversation source's `meta.source` keys
//! ([`source::conversation`]). No module imports a module that imports it back (the
//! workspace's `.ci/module-cycles` and `cargo test -p modcycles` check it).
#![warn(missing_docs)]

pub mod error;
pub mod reference;
pub mod serve;
pub mod service;
pub mod source;
pub mod store;

pub use error::{Error, Result};
pub use service::{locate, Answer, Brain, Location, OpenOptions, QueryRequest, Scope, Seeding};
pub use store::working::Working;
