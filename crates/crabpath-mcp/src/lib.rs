//! # crabpath-mcp
//!
//! The CrabPath memory as a [Model Context Protocol](https://modelcontextprotocol.io)
//! server, written with the official Rust SDK (`rmcp`, pinned in the workspace's
//! `Cargo.toml`): an adapter over the [`crabpath_brain::Brain`] service, served on
//! stdio (what MCP clients launch) or on streamable HTTP (`crabpath mcp --http
//! 127.0.0.1:PORT`, endpoint `/mcp`, loopback unless asked otherwise).
//!
//! | tool | what it does | `Brain` method |
//! |---|---|---|
//! | `query` | retrieves the memory's chunks for a question: the fired nodes with text, score and the path that reached them; with a `chat_id` the turn is logged for later feedback; on a full database the answer carries `journaled: false` and a `warning`, and no turn is logged | [`Brain::query`](crabpath_brain::Brain::query), [`Brain::record_turn`](crabpath_brain::Brain::record_turn) |
//! | `feedback` | teaches an outcome in [−1, 1] to a conversation's recent turns (window of 10 turns or 900 s, weight exp(−Δ/5), each turn once) or to explicit fired ids | [`Brain::feedback`](crabpath_brain::Brain::feedback) |
//! | `correct` | adds a CORRECTION node; with a `chat_id` it inhibits the path that conversation's recent answers took | [`Brain::correct`](crabpath_brain::Brain::correct) |
//! | `teach` | adds new knowledge as a node, connected as `inject` connects it | [`Brain::teach`](crabpath_brain::Brain::teach) |
//! | `health` | the eight Table-4 metrics with their ranges, node and edge counts | [`Brain::health_report`](crabpath_brain::Brain::health_report) |
//! | `sync` | re-reads the workspace folder (a conversation brain has none: refused, saying so) | [`Brain::sync`](crabpath_brain::Brain::sync) |
//! | `remember` | adds a turn of a conversation (`text`; `speaker`, `time`, `session`, `id`), chained to the previous turn of its session and linked to earlier turns sharing its rare words | [`Brain::remember_turn`](crabpath_brain::Brain::remember_turn) |
//!
//! Each tool is defined once, in [`tools::TOOLS`] (name, role, arguments, schema,
//! handler). Served as a directory of brains (`crabpath mcp --brains DIR --http ADDR`),
//! every HTTP request needs a bearer token of [`tokens`]; [`auth`] answers 401/403
//! before rmcp sees the request and sends it to the token's brain only.
//!
//! Nodes are resources: `crabpath://node/{id}` (a resource template; the list of
//! resources is empty, a brain of 79,000 chunks being no list to show a model).
//!
//! Bad arguments are tool errors (`isError: true`, a message naming the argument and
//! what was expected); a failing operation is a tool error too; nothing panics the
//! server. On stdio every line gets an answer ([`stdio`]): a line that is not JSON
//! `-32700`, one that is not a JSON-RPC request `-32600`, a standard request whose
//! params do not fit `-32602`, each with the reason, and a line over
//! [`stdio::MAX_LINE_BYTES`] (4 MiB) `-32600`, skipped without being held. Requests
//! are served one at a time on the brain (a mutex), each on the runtime's blocking pool,
//! so a long one (`sync`) holds up other writing tools but not the protocol
//! (`initialize`, `ping`, `tools/list`), other connections, nor the read-only `health`
//! and node resource, which a database brain answers from a second, read-only
//! connection ([`crabpath_brain::Brain::reader`]). Over HTTP, [`http_limits`] lists the
//! caps and timeouts and [`http_guard`] the answers `rmcp` alone would get wrong.

#![warn(missing_docs)]

pub mod args;
pub mod auth;
pub mod client;
pub mod error;
pub mod http_guard;
pub mod http_limits;
pub mod idle;
pub mod load;
mod poison;
pub mod server;
pub mod sessions;
pub mod silent;
pub mod stdio;
pub mod tokens;
pub mod tools;
pub mod transport;

pub use error::{Error, Result};
pub use http_limits::HttpOptions;
pub use server::{Options, Server};
pub use transport::{serve_http, serve_http_with, serve_stdio};
