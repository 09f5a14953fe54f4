//! `crabpath mcp`: the brain served over the Model Context Protocol
//! ([`crabpath_mcp`]), on stdio or on streamable HTTP.

use std::net::SocketAddr;

use crabpath_mcp::{Options, Server};

use crate::args::McpArgs;
use crate::cmd::daemon::open_serving;
use crate::context::Ctx;
use crate::error::{CliError, CliResult};

pub fn run(ctx: &Ctx, a: &McpArgs) -> CliResult {
    let addr = match &a.http {
        None => None,
        Some(s) => {
            let addr: SocketAddr = s.parse().map_err(|_| {
                CliError::Other(anyhow::anyhow!(
                    "--http {s}: expected an address with a port, e.g. 127.0.0.1:8765"
                ))
            })?;
            if !addr.ip().is_loopback() && !a.allow_remote {
                return Err(CliError::Other(anyhow::anyhow!(
                    "--http {s}: not a loopback address; the server has no authentication (add --allow-remote if something in front of it has)"
                )));
            }
            Some(addr)
        }
    };
    let brain = open_serving(ctx, &a.state)?;
    let workspace = a
        .workspace
        .as_deref()
        .map(crabpath_brain::source::workspace::expanduser);
    let server = Server::new(
        brain,
        Options {
            route_mode: a.route.resolve(ctx.profile),
            workspace,
        },
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Other(anyhow::anyhow!("cannot start the runtime: {e}")))?;
    let served = rt.block_on(async {
        match addr {
            None => crabpath_mcp::serve_stdio(server).await,
            Some(addr) => {
                let options = crabpath_mcp::HttpOptions {
                    remote: a.allow_remote,
                    allow_origins: a.allow_origin.clone(),
                    ..crabpath_mcp::HttpOptions::default()
                };
                crabpath_mcp::serve_http_with(server, addr, options, |bound| {
                    // one line a script (or a test) can wait for
                    eprintln!("crabpath mcp: serving http://{bound}/mcp");
                })
                .await
            }
        }
    });
    served.map_err(|e| CliError::Other(anyhow::anyhow!("{e}")))?;
    Ok(0)
}
