//! Reading the sources a brain is made of: a folder (walked, filtered, chunked into
//! nodes, kept up to date) and conversations (session logs replayed, conversation files
//! made into turn nodes), and the text each node is embedded as (issue 31, "Where it
//! lands": reading folders and conversations).
//!
//! | piece | module | reference |
//! |---|---|---|
//! | walk, skip rules, `.gitignore`, reading | [`workspace`], [`gitignore`], [`text`] | `split.py::split_workspace`, `_should_skip_path`, `_match_gitignore` |
//! | Markdown / Python / JSON / config chunkers | [`chunk`] | `split.py::_chunk_*` |
//! | nodes, ids, metadata, sibling edges | [`bootstrap`] | `split.py::split_workspace`, `_sibling_weight` |
//! | the text a node is embedded as | [`embedtext`] | issue 28 |
//! | `sync` (incremental when corrected) | [`sync`] | `sync.py::sync_workspace` |
//! | `compact` (daily notes) | [`compact`] | `compact.py::compact_daily_notes` |
//! | session logs (plain, flat, OpenClaw) | [`session`] | `replay.py::extract_interactions`, `extract_queries` |
//! | session replay | [`replay`] | `replay.py::replay_queries` |
//! | a conversation file: JSON Lines turns, their nodes and session chains | [`conversation`] | issue 28 item 1 |

pub mod bootstrap;
pub mod chunk;
pub mod compact;
pub mod conversation;
pub mod embedtext;
pub mod gitignore;
pub mod replay;
pub mod session;
pub mod sync;
pub mod text;
pub mod workspace;
