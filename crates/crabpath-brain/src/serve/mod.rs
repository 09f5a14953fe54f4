//! Serving agents: the daemon's newline-delimited JSON protocol over a resident
//! [`Brain`](crate::Brain), with the reference's methods and upstream's v12 ones (issue 31,
//! "Where it lands": serving). The MCP server (crate `crabpath-mcp`) and the command
//! line (crate `crabpath-cli`) serve through the same [`Brain`](crate::Brain).
//!
//! | piece | module | reference |
//! |---|---|---|
//! | `daemon` (NDJSON protocol, write-ahead log) | [`daemon`] | `daemon.py` |
//! | the daemon's upstream v12 methods (`inject`, `correction`, `last_fired`, `learn_by_chat_id`, `capture_feedback`, `route_mode`) | [`daemon`] | `openclawbrain/daemon.py`, `protocol.py` (12.2.6) |

pub mod daemon;
pub mod role;
