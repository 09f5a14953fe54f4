//! The reference program's files (reference `crabpath/`, commit 134c676), written and
//! read byte for byte as it does: `state.json` and its binary index sidecar, the other
//! brain files (`graph.json`, `index.json`, `texts.json`), the embedder a brain records,
//! the journal, and what keeps a state file safe (its lock, its snapshots) and checks it
//! before `import` (issue 31, "Where it lands": the reference's file formats).
//!
//! | piece | module | reference |
//! |---|---|---|
//! | `state.json` | [`statefile`] | `store.py::save_state`, `load_state` |
//! | `graph.json`, `index.json`, `texts.json` | [`reffiles`] | `cli.py::cmd_init`, `_write_graph`, `_load_graph` |
//! | the embedder record | [`embedder`] | `cli.py::_state_embedder_meta` |
//! | journal | [`journal`] | `journal.py` |
//! | binary index sidecar of `state.json` | [`sidecar`] | — |
//! | the state lock | [`lock`] | — (the reference has none) |
//! | `snapshot`, `rollback` of a state file | [`snapshot`] | — |
//! | the strict check before `import` | [`statecheck`] | — |

pub mod embedder;
pub mod journal;
pub mod lock;
pub mod reffiles;
pub mod sidecar;
pub mod snapshot;
pub mod statecheck;
pub mod statefile;
