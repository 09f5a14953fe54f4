//! What the HTTP server allows: origins, timeouts, connection and session caps, body
//! size (issue 30 item 4, the tester's findings on the first HTTP server). The numbers
//! live here; [`crate::http_guard`] and [`crate::transport`] apply them.

use std::time::Duration;

use crate::sessions::SessionLimits;

/// A client must send a request's whole header within 10 s of the server starting to
/// read it (also the longest a kept-alive connection may sit idle between requests).
/// A slowloris client trickling its header is dropped then; the tester's was held past
/// 15 s. Real clients send a header in one packet.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// A request's whole body must arrive within 30 s of its header: 4 MiB (the body cap)
/// at 140 KB/s, far below any link a team server is used over. A client trickling its
/// body is answered 408 and dropped.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// At most 512 connections are served at once. When all are taken, the oldest one that
/// has not sent a byte is closed to make room ([`crate::silent`]); when every one has
/// spoken, one more is answered 503 and closed at once (it holds no file descriptor past
/// that). 512 is far above what a team's MCP clients keep open (one or two each) and
/// far below the 1,024 descriptors a default `ulimit -n` allows, which the brain's
/// database files also need. Idle connections free their place within
/// [`HEADER_TIMEOUT`].
pub const MAX_CONNECTIONS: usize = 512;

/// The origins a browser page may call the server from without `--allow-origin`:
/// pages served from this machine (the MCP specification asks servers to validate
/// `Origin` against DNS rebinding; a request without `Origin`, as every non-browser
/// client sends, is not affected). Syntax: `rmcp`'s, `:*` for any port.
pub const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// How `serve_http` serves; [`Default`] is the documented constants.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Accept any `Host` header (a non-loopback address); the caller has checked that
    /// this is wanted.
    pub remote: bool,
    /// Origins allowed besides [`LOOPBACK_ORIGINS`] (`--allow-origin`), e.g.
    /// `https://app.example.com:443`.
    pub allow_origins: Vec<String>,
    /// [`HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// [`BODY_TIMEOUT`].
    pub body_timeout: Duration,
    /// [`MAX_CONNECTIONS`].
    pub max_connections: usize,
    /// The largest request body: [`crate::stdio::MAX_LINE_BYTES`] (4 MiB), the same cap
    /// as one stdio message, for the same reasons; a larger one is answered 413.
    pub max_body_bytes: usize,
    /// Sessions per key and their idle life.
    pub sessions: SessionLimits,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            remote: false,
            allow_origins: Vec::new(),
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            max_body_bytes: crate::stdio::MAX_LINE_BYTES,
            sessions: SessionLimits::default(),
        }
    }
}

impl HttpOptions {
    /// The origins `rmcp` is told to accept: the loopback ones, then `allow_origins`.
    pub fn origins(&self) -> Vec<String> {
        LOOPBACK_ORIGINS
            .iter()
            .map(|s| s.to_string())
            .chain(self.allow_origins.iter().cloned())
            .collect()
    }
}
