//! The transports: stdio (what MCP clients launch) and streamable HTTP on a TCP
//! address, both on a current-thread tokio runtime (tools run on its blocking pool).

use std::net::SocketAddr;
use std::sync::Arc;

use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;

use crate::auth::{Front, Served};
use crate::error::{Error, Result};
use crate::http_guard::Guard;
use crate::http_limits::HttpOptions;
use crate::server::Server;
use crate::sessions::CappedSessions;
use crate::silent::Silent;
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
/// Only loopback `Host` headers are accepted unless `remote`. The limits are
/// [`HttpOptions::default`]'s; [`serve_http_with`] takes others.
pub async fn serve_http(
    served: Served,
    addr: SocketAddr,
    remote: bool,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let options = HttpOptions {
        remote,
        ..HttpOptions::default()
    };
    serve_http_with(served, addr, options, ready).await
}

/// [`serve_http`] with its limits spelled out (issue 30 item 4): headers within
/// `header_timeout`, bodies within `body_timeout` and `max_body_bytes`, at most
/// `max_connections` connections (when full, the oldest connection that has not sent a
/// byte is closed to make room; with none, one more is answered 503), sessions capped
/// per key, foreign `Origin`s refused (403), and the checks of [`Guard`].
pub async fn serve_http_with(
    served: Served,
    addr: SocketAddr,
    options: HttpOptions,
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
    let mut config = StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_allowed_origins(options.origins())
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes);
    if options.remote {
        config = config.disable_allowed_hosts();
    }
    // tokens and the brain a request reaches: auth.rs (issue 30 item 2); each brain's
    // rmcp service behind its own guard and session cap (item 4)
    let options = Arc::new(options);
    let per_brain = options.clone();
    let make = move |server: Server| {
        let sessions = Arc::new(CappedSessions::new(per_brain.sessions));
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            sessions.clone(),
            config.clone(),
        );
        Guard::new(service, sessions, per_brain.clone())
    };
    let front = Arc::new(Front::new(served, Box::new(make), options.clone())?);
    let slots = Arc::new(tokio::sync::Semaphore::new(options.max_connections));
    let silent = Arc::new(Silent::default());
    ready(bound);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                eprintln!("crabpath mcp: accept failed: {e}");
                // out of descriptors: let some connection end before accepting again
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(s) => Some(s),
            // full: the oldest connection that never spoke makes room (silent.rs)
            Err(_) if silent.evict_oldest() => {
                tokio::time::timeout(EVICT_WAIT, slots.clone().acquire_owned())
                    .await
                    .ok()
                    .and_then(|s| s.ok())
            }
            Err(_) => None,
        };
        let Some(slot) = slot else {
            // full of speaking connections: say so without waiting on the client, and close
            let _ = stream.try_write(TOO_MANY);
            continue;
        };
        // answers are small: send them at once (no Nagle delay)
        let _ = stream.set_nodelay(true);
        let front = front.clone();
        let header_timeout = options.header_timeout;
        let (id, evicted) = silent.add();
        let silent = silent.clone();
        tokio::spawn(async move {
            // silent until its first byte (or its end); closed if evicted before that,
            // or when the header timeout passes first
            let mut first = [0u8; 1];
            tokio::select! {
                _ = stream.peek(&mut first) => silent.remove(id),
                _ = evicted.notified() => return,
                _ = tokio::time::sleep(header_timeout) => {
                    silent.remove(id);
                    return;
                }
            }
            let svc = hyper::service::service_fn(move |req| front.clone().handle(req));
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), svc);
            if let Err(e) = conn.await {
                if !e.is_incomplete_message() && !e.is_timeout() {
                    eprintln!("crabpath mcp: connection: {e}");
                }
            }
            drop(slot);
        });
    }
}

/// How long a new connection waits for the place of an evicted silent one.
const EVICT_WAIT: Duration = Duration::from_millis(200);

/// The answer to a connection over [`HttpOptions::max_connections`].
const TOO_MANY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 57\r\n\r\nService Unavailable: too many connections, try again soon";
