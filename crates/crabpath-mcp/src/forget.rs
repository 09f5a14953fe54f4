//! The MCP tool `forget` (issue 30, item 3), kept as one definition (its name, role,
//! schema and call) for the one-definition-per-tool list of issue 30 item 1: the brain
//! forgets a file, a node or a chat ([`crabpath_brain::Brain::forget`]) and the result is
//! [`crabpath_brain::service::ForgetReport::to_json`], the fields of `crabpath forget
//! --json` and the daemon's `forget`.

use std::sync::Arc;

use crabpath_brain::service::ForgetTarget;
use crabpath_brain::Brain;
use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{json, Map, Value};

use crate::args::Args;
use crate::error::{Error, Result};

/// The tool's name.
pub const NAME: &str = "forget";

/// The role a token needs to call it (issue 30 item 3: "an MCP tool `forget` (role
/// admin)"): it deletes content for good.
pub const ROLE: &str = "admin";

/// The tool as a client lists it.
pub fn tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "file": {"type": "string", "minLength": 1, "description": "A file of the memory's folder (its path relative to the folder): every chunk of it."},
            "node": {"type": "string", "minLength": 1, "description": "One node, by id."},
            "chat": {"type": "string", "minLength": 1, "description": "A conversation (chat_id): its logged turns and the nodes it created."}
        },
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    Tool::new(
        NAME,
        "Delete a file, a node or a conversation from the memory for good: its chunks, \
         their links, the logged turns and journal entries that found them. Snapshots \
         are rewritten without it. Give exactly one of file, node or chat. It cannot be \
         undone.",
        Arc::new(schema),
    )
    .annotate(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(true),
    )
}

/// Runs the tool.
pub fn call(brain: &mut Brain, args: &Map<String, Value>) -> Result<Value> {
    let a = Args::new(NAME, args, &["file", "node", "chat"])?;
    let field = |k: &str| a.opt_str(k).map(|s| s.map(str::to_string));
    let target = ForgetTarget::from_fields(field("file")?, field("node")?, field("chat")?)
        .map_err(|m| Error::Argument(format!("{NAME}: {m}")))?;
    Ok(brain.forget(&target)?.to_json())
}
