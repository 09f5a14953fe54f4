//! The MCP server handler: tools, resources and the server's description, over one
//! brain shared by every session.

use std::path::PathBuf;
use std::sync::Arc;

use crabpath_brain::service::route::RouteMode;
use crabpath_brain::Brain;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::idle::{Idle, Slots};
use crate::tools;

/// The prefix of node resource URIs.
pub const NODE_URI: &str = "crabpath://node/";

/// How the server serves.
#[derive(Debug, Clone)]
pub struct Options {
    /// The route mode of queries that do not name one.
    pub route_mode: RouteMode,
    /// The workspace `sync` re-reads by default.
    pub workspace: Option<PathBuf>,
}

/// The server: cheap to clone (every HTTP session gets a clone), one brain behind a
/// mutex, and beside it a read-only handle for the tools that only read.
#[derive(Clone)]
pub struct Server {
    /// The brain's writer and its second, read-only connection to a database brain
    /// ([`Brain::reader`]): the read-only tools (`health`, annotated `readOnlyHint`)
    /// and the node resource use it, so they never wait for the writer's mutex while a
    /// long write (`sync`) holds it (issue 30 item 4, finding c). A state file has no
    /// reader: reads take the writer. In `--brains` mode the brain closes when idle
    /// ([`crate::idle`]).
    slots: Arc<Slots>,
    options: Arc<Options>,
}

impl Server {
    /// A server over `brain` (opened resident and for writing, with its embedder).
    pub fn new(brain: Brain, options: Options) -> Server {
        Server {
            slots: Arc::new(Slots::new(brain, None)),
            options: Arc::new(options),
        }
    }

    /// A server over `brain` that [`Server::close_if_idle`] may close, opened again by
    /// `idle`'s opener at the next request (`crabpath mcp --brains`, issue 30 item 2).
    pub fn closable(brain: Brain, options: Options, idle: Arc<Idle>) -> Server {
        Server {
            slots: Arc::new(Slots::new(brain, Some(idle))),
            options: Arc::new(options),
        }
    }

    /// Closes the brain if it has been idle for `after` and no request holds it
    /// ([`Slots::close_if_idle`]); whether it closed.
    pub fn close_if_idle(&self, after: std::time::Duration) -> bool {
        self.slots.close_if_idle(after)
    }

    /// Whether the brain is closed ([`Slots::is_closed`]).
    pub fn is_closed(&self) -> bool {
        self.slots.is_closed()
    }

    /// How many servers share this one's brain: this one, its clones in the HTTP
    /// service's factory and in every open MCP session (the served directory drops a
    /// closed brain no session holds, [`crate::auth`]).
    pub fn holders(&self) -> usize {
        Arc::strong_count(&self.slots)
    }

    /// Runs a tool; its errors become tool errors (`isError`), never a crash.
    pub fn call_tool_now(
        &self,
        name: &str,
        args: &serde_json::Map<String, Value>,
    ) -> CallToolResult {
        let ctx = tools::Context {
            route_mode: self.options.route_mode,
            workspace: self.options.workspace.as_ref(),
        };
        let read_only = tools::find(name).is_some_and(tools::ToolDef::reads_only);
        let outcome = self
            .slots
            .hold(read_only)
            .and_then(|mut b| tools::call(&mut b, &ctx, name, args));
        match outcome {
            Ok(v) => {
                let text = serde_json::to_string(&v).unwrap_or_default();
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = Some(v);
                r
            }
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
        }
    }

    fn read_node(&self, id: &str) -> crate::error::Result<Option<(String, Value)>> {
        tools::read_node(&mut *self.slots.hold(true)?, id)
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("crabpath", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "CrabPath is a memory that learns which of its chunks answer which questions. \
             Call `query` with the user's question (and a chat_id for this conversation) \
             before answering; after the user reacts, call `feedback` with the same chat_id \
             (1 helpful, -1 wrong); when the user corrects you, call `correct` with the \
             corrected statement; store new durable knowledge with `teach`. Nodes can be \
             read as resources crabpath://node/{id}.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // an unknown tool is the client's protocol error (MCP: -32602), not the tool's
        if tools::find(&request.name).is_none() {
            return Err(ErrorData::invalid_params(
                tools::unknown_tool(&request.name),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        // on the blocking pool: a long tool must not stall the runtime that serves the
        // protocol and every other connection (issue 30 item 4)
        let me = self.clone();
        let name = request.name.to_string();
        tokio::task::spawn_blocking(move || me.call_tool_now(&name, &args).into())
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool failed: {e}"), None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::default())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{NODE_URI}{{id}}"), "node")
                .with_title("A memory node")
                .with_description(
                    "One chunk of the memory by node id (as `query` returns them): its text, then its summary and metadata.",
                ),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(id) = request.uri.strip_prefix(NODE_URI) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown resource `{}`: node resources are {NODE_URI}{{id}}",
                    request.uri
                ),
                None,
            ));
        };
        let id = percent_decode(id);
        let me = self.clone();
        let read = {
            let id = id.clone();
            tokio::task::spawn_blocking(move || me.read_node(&id))
                .await
                .map_err(|e| ErrorData::internal_error(format!("reading failed: {e}"), None))?
        };
        match read {
            Ok(Some((text, meta))) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text, request.uri.clone()),
                ResourceContents::TextResourceContents {
                    uri: request.uri.clone(),
                    mime_type: Some("application/json".into()),
                    text: meta.to_string(),
                    meta: None,
                },
            ])
            .into()),
            Ok(None) => Err(ErrorData::resource_not_found(
                format!("no node `{id}` in this memory"),
                None,
            )),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

/// `%XX` escapes decoded (node ids hold `/`, `:` and spaces, which clients escape in
/// URIs); a malformed escape is kept as it is.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn escapes_are_decoded() {
        assert_eq!(percent_decode("docs%2Fa.md%3A%3A0"), "docs/a.md::0");
        assert_eq!(percent_decode("a.md::1"), "a.md::1");
        assert_eq!(percent_decode("50%"), "50%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
