//! `crabpath mcp`: the brain served over the Model Context Protocol
//! ([`crabpath_mcp`]), on stdio or on streamable HTTP; with `--brains DIR`, every
//! brain of a directory behind tokens (issue 30 items 1 and 2).

use std::net::SocketAddr;
use std::sync::Arc;

use crabpath_mcp::auth::Served;
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
                    "--http {s}: not a loopback address (add --allow-remote to serve it, with --brains and tokens)"
                )));
            }
            if a.allow_remote && a.brains.is_none() {
                return Err(CliError::Other(anyhow::anyhow!(
                    "--allow-remote: refused without tokens (serve --brains DIR with tokens from `crabpath token add`)"
                )));
            }
            Some(addr)
        }
    };
    let workspace = a
        .workspace
        .as_deref()
        .map(crabpath_brain::source::workspace::expanduser);
    let options = Options {
        route_mode: a.route.resolve(ctx.profile),
        workspace,
    };
    let served = match (&a.brains, &a.state) {
        (Some(dir), _) => {
            let ctx = *ctx;
            Served::Dir {
                dir: crabpath_brain::source::workspace::expanduser(dir),
                open: Arc::new(move |path: &std::path::Path| {
                    open_serving(&ctx, &path.to_string_lossy(), true).map_err(|e| e.line())
                }),
                options,
                idle_close: (a.idle_close > 0)
                    .then(|| std::time::Duration::from_secs(a.idle_close)),
            }
        }
        (None, Some(state)) => Served::One(Server::new(open_serving(ctx, state, true)?, options)),
        (None, None) => {
            return Err(CliError::Other(anyhow::anyhow!(
                "--state or --brains is required"
            )))
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Other(anyhow::anyhow!("cannot start the runtime: {e}")))?;
    let served = rt.block_on(async {
        match (addr, served) {
            (None, Served::One(server)) => crabpath_mcp::serve_stdio(server).await,
            (None, Served::Dir { .. }) => Err(crabpath_mcp::Error::Argument(
                "--brains: needs --http".into(),
            )),
            (Some(addr), served) => {
                let options = crabpath_mcp::HttpOptions {
                    remote: a.allow_remote,
                    allow_origins: a.allow_origin.clone(),
                    ..crabpath_mcp::HttpOptions::default()
                };
                crabpath_mcp::serve_http_with(served, addr, options, |bound| {
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
