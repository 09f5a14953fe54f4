//! A conversation as a source of memory (issue 28, item 1): JSON Lines of turns, one
//! turn a line, in order, read into nodes chained within their session.
//!
//! | piece | file |
//! |---|---|
//! | one turn, its fields and their validation (shared by the file parser and by the `remember` of agents) | [`turn`] |
//! | a JSON Lines file of turns: every line checked before anything is written | [`parse`] |
//! | the node of a turn (id, content, metadata) and the chain edges of a session | [`node`] |
//! | edges between turns of different sessions that mention the same rare words | [`entities`] |
//!
//! A brain built from a conversation (`crabpath init --conversation`) records
//! [`SOURCE_KEY`]` = `[`CONVERSATION`] in its `meta`, so that `sync` can say there is no
//! folder to sync. Its nodes have no `file` metadata: a folder `sync` never touches
//! them ([`crate::source::sync`] works on the nodes of files).

pub mod entities;
pub mod node;
pub mod parse;
pub mod turn;

pub use node::{
    apply_join, build_graph, chain_weight, generated_id, join, link_turns, turn_content, turn_node,
    turn_of_node, turn_text, Chained, Join, JoinEdges, CONVERSATION, SOURCE_KEY,
};
pub use parse::{parse_jsonl, read_jsonl};
pub use turn::{Turn, FIELDS};
