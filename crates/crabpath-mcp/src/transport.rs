//! The transports: stdio (what MCP clients launch) and streamable HTTP on a TCP
//! address, both on a current-thread tokio runtime.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;

use crate::auth::{Front, Served};
use crate::error::{Error, Result};
use crate::server::Server;
use crate::stdio::{LineTransport, MAX_LINE_BYTES};

/// Serves on stdin/stdout until the client closes them: newline-delimited JSON-RPC
/// through [`LineTransport`], which answers every line `rmcp` would leave
/// unanswered (not JSON, too long, not a request, params that do not fit).
pub async fn serve_stdio(server: Server) -> Result<()> {
    let (stdin, stdout) = rmcp::transport::io::stdio();
    let running = server
        .serve(LineTransport::new(stdin, stdout, MAX_LINE_BYTES))
        .await
        .map_err(|e| Error::Transport(format!("stdio: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Transport(format!("stdio: {e}")))?;
    Ok(())
}

/// Serves streamable HTTP on `addr` (endpoint `/mcp`; every path is served the same)
/// until the process ends. `ready` is told the bound address (port 0 picks one).
/// Only loopback `Host` headers are accepted unless `remote`.
pub async fn serve_http(
    served: Served,
    addr: SocketAddr,
    remote: bool,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::Transport(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::Transport(format!("{addr}: {e}")))?;
    // plain JSON answers where the protocol version allows (no event stream to set up
    // for a request that has one answer)
    let mut config = StreamableHttpServerConfig::default().with_json_response(true);
    if remote {
        config = config.disable_allowed_hosts();
    }
    // tokens and the brain a request reaches: auth.rs (issue 30)
    let make = move |server: Server| {
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config.clone(),
        )
    };
    let front = Arc::new(Front::new(served, Box::new(make))?);
    ready(bound);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                eprintln!("crabpath mcp: accept failed: {e}");
                continue;
            }
        };
        // answers are small: send them at once (no Nagle delay)
        let _ = stream.set_nodelay(true);
        let f = front.clone();
        let svc = hyper::service::service_fn(move |req| f.clone().handle(req));
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc);
            if let Err(e) = conn.await {
                if !e.is_incomplete_message() {
                    eprintln!("crabpath mcp: connection: {e}");
                }
            }
        });
    }
}
