//! The HTTP layer in front of rmcp's streamable HTTP service (issue 30 items 1 and 2):
//! bearer tokens, the role check, and one server for many brains.
//!
//! Served one brain (`--state`), a request goes straight to that brain's service, as
//! before (no tokens: loopback only). Served a directory (`--brains DIR`), every
//! request must carry `Authorization: Bearer <token>` of `DIR/tokens.db`
//! ([`crate::tokens`]):
//!
//! | case | answer | logged (stderr, never the secret) |
//! |---|---|---|
//! | no bearer token, or one no row has (unknown, revoked) | 401, `WWW-Authenticate: Bearer` | `401 <why>` |
//! | the token's role is below what the body's JSON-RPC message needs (a tool's role from [`crate::tools::TOOLS`]; everything else, resources included, needs `read`) | 403, a JSON-RPC error "forbidden: …" | `403 token <id> …` |
//! | the token's brain has no `DIR/<brain>/brain.db` | 404 | `404 token <id> …` |
//! | otherwise | the token's brain's own rmcp service | |
//!
//! The token alone decides the brain: each brain has its own rmcp service with its own
//! session manager, so a session id of brain A sent with a token of brain B is unknown
//! there, and nothing of A is reachable. A brain opens at its first request (lazily),
//! closes when idle for `Served::Dir`'s `idle_close` and opens again at the next
//! request ([`crate::idle`]), and has its own mutex: writes to one never wait for
//! another's lock. Bodies are read
//! whole before the check, within the server's body caps ([`HttpOptions::max_body_bytes`]
//! and [`HttpOptions::body_timeout`]: 413 and 408 above them).

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use crabpath_brain::serve::role::Role;
use crabpath_brain::Brain;
use http::{header, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use serde_json::Value;

use crate::error::{rpc_error, Error, Result};
use crate::http_guard::{Guard, HttpResponse};
use crate::http_limits::HttpOptions;
use crate::poison::lock;
use crate::server::{Options, Server};
use crate::sessions::SessionKey;
use crate::tokens::{TokenInfo, Tokens};
use crate::tools;

/// One brain's HTTP service: rmcp's streamable HTTP service over its [`Server`],
/// behind the checks of [`Guard`] (sessions capped per token).
pub type HttpService = Guard;

/// Opens a brain directory for serving (resident, with its embedder): the CLI's.
pub type Opener = Arc<dyn Fn(&Path) -> std::result::Result<Brain, String> + Send + Sync>;

/// Makes rmcp's service for a server (the transport's configuration).
pub type MakeService = Box<dyn Fn(Server) -> HttpService + Send + Sync>;

/// What an HTTP server serves.
pub enum Served {
    /// One brain, no tokens (loopback only).
    One(Server),
    /// Every brain `DIR/<name>/` with a `brain.db`, reached by tokens of `DIR/tokens.db`.
    Dir {
        /// The served directory.
        dir: PathBuf,
        /// Opens one brain of it.
        open: Opener,
        /// How every brain serves.
        options: Options,
        /// A brain unused this long is closed ([`crate::idle`]); `None`: never.
        idle_close: Option<std::time::Duration>,
    },
}

/// The front of the HTTP server: the token check and the brain a request reaches.
pub struct Front {
    inner: Inner,
    make: MakeService,
    /// The server's limits: a body is read within their caps.
    limits: Arc<HttpOptions>,
}

enum Inner {
    One(HttpService),
    Dir {
        dir: PathBuf,
        open: Opener,
        options: Options,
        tokens: Mutex<Tokens>,
        brains: Arc<Brains>,
    },
}

/// One opened brain of a served directory: its HTTP service, the server inside it
/// (which [`crate::idle`] closes when idle), and how many holders the server's brain
/// had when it opened (this entry's and the service's own, [`Server::holders`]).
struct Entry {
    service: HttpService,
    server: Server,
    holders: usize,
}

/// The brains of a served directory opened so far.
type Brains = Mutex<HashMap<String, Entry>>;

/// Closes the idle brains of `brains` every [`crate::idle::check_every`] until the
/// front is dropped; a closed brain that no MCP session and no request holds any more
/// (its holders back to those it opened with) then leaves the map, its service with
/// it, so that a directory of many brains keeps nothing of the ones nobody uses. A
/// session holds its brain until it ends (a `DELETE`, or its idle timeout), so that
/// the same session reopens it; a request that took the service just before it left
/// finishes on it (the brain opens again for it, then is dropped with it), and the next
/// one opens the brain anew.
fn spawn_closer(brains: &Arc<Brains>, after: std::time::Duration) {
    let weak = Arc::downgrade(brains);
    let every = crate::idle::check_every(after);
    std::thread::spawn(move || loop {
        std::thread::sleep(every);
        let Some(brains) = weak.upgrade() else {
            return;
        };
        let servers: Vec<Server> = lock(&brains).values().map(|e| e.server.clone()).collect();
        for s in &servers {
            s.close_if_idle(after);
        }
        drop(servers);
        lock(&brains).retain(|name, e| {
            let release = e.server.is_closed() && e.server.holders() == e.holders;
            if release {
                eprintln!("crabpath mcp: brain `{name}` released (closed, no session holds it)");
            }
            !release
        });
    });
}

impl Front {
    /// The front of `served`, making rmcp services with `make`.
    ///
    /// # Failure
    /// A served directory without a token file or without any token (a directory is
    /// only ever served with tokens).
    pub fn new(served: Served, make: MakeService, limits: Arc<HttpOptions>) -> Result<Front> {
        let inner = match served {
            Served::One(server) => Inner::One(make(server)),
            Served::Dir {
                dir,
                open,
                options,
                idle_close,
            } => {
                let tokens = Tokens::open(&dir, false)?;
                if !tokens.any()? {
                    return Err(Error::Argument(format!(
                        "{}: no tokens (add one with `crabpath token add --brains {} --brain NAME --role read`)",
                        Tokens::path(&dir).display(),
                        dir.display()
                    )));
                }
                let brains = Arc::new(Mutex::new(HashMap::new()));
                if let Some(after) = idle_close {
                    spawn_closer(&brains, after);
                }
                Inner::Dir {
                    dir,
                    open,
                    options,
                    tokens: Mutex::new(tokens),
                    brains,
                }
            }
        };
        Ok(Front {
            inner,
            make,
            limits,
        })
    }

    /// Answers one HTTP request (never fails: every refusal is an HTTP answer).
    pub async fn handle(
        self: Arc<Self>,
        req: Request<Incoming>,
    ) -> std::result::Result<HttpResponse, Infallible> {
        let (dir, open, options, tokens, brains) = match &self.inner {
            Inner::One(service) => return Ok(service.handle(req).await),
            Inner::Dir {
                dir,
                open,
                options,
                tokens,
                brains,
            } => (dir, open, options, tokens, brains),
        };
        let Some(secret) = bearer(&req) else {
            eprintln!(
                "crabpath mcp: 401 no bearer token ({} {})",
                req.method(),
                req.uri().path()
            );
            return Ok(unauthorized("a bearer token is required"));
        };
        let checked = lock(tokens).check(&secret);
        let token = match checked {
            Ok(Some(t)) => t,
            Ok(None) => {
                eprintln!(
                    "crabpath mcp: 401 unknown or revoked token ({} {})",
                    req.method(),
                    req.uri().path()
                );
                return Ok(unauthorized("unknown or revoked token"));
            }
            Err(e) => {
                eprintln!("crabpath mcp: 500 {e}");
                return Ok(answer(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    rpc_error(&Value::Null, -32603, &e.to_string()),
                ));
            }
        };
        let (mut parts, body) = req.into_parts();
        // the session cap counts per token (sessions.rs)
        parts.extensions.insert(SessionKey(token.id.clone()));
        // the token is good: its body within the guard's time cap too (http_guard.rs)
        let cap = self.limits.max_body_bytes;
        let read = Limited::new(body, cap).collect();
        let bytes = match tokio::time::timeout(self.limits.body_timeout, read).await {
            Ok(Ok(c)) => c.to_bytes(),
            Err(_) => {
                let m = "the request body did not arrive in time";
                return Ok(answer(
                    StatusCode::REQUEST_TIMEOUT,
                    rpc_error(&Value::Null, -32600, m),
                ));
            }
            Ok(Err(_)) => {
                let m = format!("the request body is over {cap} bytes");
                return Ok(answer(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    rpc_error(&Value::Null, -32600, &m),
                ));
            }
        };
        if let Some((id, need, what)) = needed(&bytes) {
            if !token.role.allows(need) {
                eprintln!(
                    "crabpath mcp: 403 token {} (brain {}, role {}): {what} needs {}",
                    token.id,
                    token.brain,
                    token.role.as_str(),
                    need.as_str()
                );
                let m = format!(
                    "forbidden: this token's role is {}; {what} needs {}",
                    token.role.as_str(),
                    need.as_str()
                );
                return Ok(answer(StatusCode::FORBIDDEN, rpc_error(&id, -32003, &m)));
            }
        }
        let service = match self.brain(dir, open, options, brains, &token) {
            Ok(s) => s,
            Err(m) => {
                eprintln!("crabpath mcp: 404 token {}: {m}", token.id);
                return Ok(answer(
                    StatusCode::NOT_FOUND,
                    rpc_error(&Value::Null, -32002, &m),
                ));
            }
        };
        Ok(service
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await)
    }

    /// The service of the token's brain, opened at its first request.
    fn brain(
        &self,
        dir: &Path,
        open: &Opener,
        options: &Options,
        brains: &Brains,
        token: &TokenInfo,
    ) -> std::result::Result<HttpService, String> {
        if let Some(e) = lock(brains).get(&token.brain) {
            return Ok(e.service.clone());
        }
        let path = dir.join(&token.brain);
        if !path.join("brain.db").is_file() {
            return Err(format!(
                "brain `{}` has no brain.db in {}",
                token.brain,
                dir.display()
            ));
        }
        let brain = open(&path).map_err(|m| format!("brain `{}`: {m}", token.brain))?;
        let reopen = {
            let open = open.clone();
            Arc::new(move || open(&path)) as crate::idle::Reopen
        };
        let idle = Arc::new(crate::idle::Idle::new(&token.brain, reopen));
        let server = Server::closable(brain, options.clone(), idle);
        let service = (self.make)(server.clone());
        let holders = server.holders();
        Ok(lock(brains)
            .entry(token.brain.clone())
            .or_insert(Entry {
                service,
                server,
                holders,
            })
            .service
            .clone())
    }
}

/// The secret of `Authorization: Bearer <secret>` (scheme case-insensitive).
fn bearer<B>(req: &Request<B>) -> Option<String> {
    let v = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, secret) = v.trim().split_once(' ')?;
    let secret = secret.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !secret.is_empty()).then(|| secret.to_string())
}

/// The strongest role the body's JSON-RPC message(s) need, with the first such
/// message's id and what it asks (for the message); `None` when the body is not
/// JSON (rmcp answers it).
fn needed(body: &[u8]) -> Option<(Value, Role, String)> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let msgs = match &v {
        Value::Array(a) => a.iter().collect(),
        _ => vec![&v],
    };
    let mut out: Option<(Value, Role, String)> = None;
    for m in msgs {
        let method = m.get("method").and_then(Value::as_str).unwrap_or("");
        let (role, what) = if method == "tools/call" {
            let name = m
                .pointer("/params/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            match tools::find(name) {
                Some(t) => (t.role, format!("tool `{}`", t.name)),
                None => (Role::Read, format!("tool `{name}`")),
            }
        } else {
            (Role::Read, format!("`{method}`"))
        };
        if out.as_ref().is_none_or(|(_, r, _)| role > *r) {
            let id = m.get("id").cloned().unwrap_or(Value::Null);
            out = Some((id, role, what));
        }
    }
    out
}

fn answer(status: StatusCode, body: Value) -> HttpResponse {
    crate::http_guard::json(status, Bytes::from(body.to_string()))
}

fn unauthorized(why: &str) -> HttpResponse {
    let mut r = answer(
        StatusCode::UNAUTHORIZED,
        rpc_error(&Value::Null, -32001, &format!("unauthorized: {why}")),
    );
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_needed_by_messages() {
        let need = |s: &str| needed(s.as_bytes()).map(|(_, r, w)| (r, w));
        assert_eq!(
            need(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"teach"}}"#),
            Some((Role::Write, "tool `teach`".into()))
        );
        assert_eq!(
            need(r#"{"jsonrpc":"2.0","id":1,"method":"resources/read"}"#),
            Some((Role::Read, "`resources/read`".into()))
        );
        // a batch needs its strongest message's role
        let batch = r#"[{"method":"tools/call","params":{"name":"query"}},{"method":"tools/call","params":{"name":"sync"}}]"#;
        assert_eq!(need(batch).map(|x| x.0), Some(Role::Write));
        assert_eq!(need("not json"), None);
    }
}
