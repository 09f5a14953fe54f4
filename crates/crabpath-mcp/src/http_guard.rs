//! The layer between hyper and `rmcp`'s streamable HTTP service: what `rmcp` 3.11
//! answers badly or not at all (issue 30 item 4).
//!
//! | request | `rmcp` alone | here |
//! |---|---|---|
//! | a POST body trickled in | waits for it | 408 after [`HttpOptions::body_timeout`], connection closed |
//! | a POST body over [`HttpOptions::max_body_bytes`] | 413 | 413 saying the cap, connection closed (the rest is not read) |
//! | `Content-Type: application/json` with a body that is not JSON | 415 | 400, JSON-RPC `-32700` with the reason |
//! | JSON that is not a JSON-RPC message | 415 | 400, JSON-RPC `-32600` with the reason |
//! | `DELETE` of an unknown session | 202 | 404 |
//!
//! The body is checked as a stdio line is ([`crate::stdio::check_line`]), so both
//! transports refuse the same messages with the same codes. Everything else (`Host`
//! and `Origin` checks, sessions, the protocol) is `rmcp`'s.

use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{header, Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::StreamableHttpService;

use crate::http_limits::HttpOptions;
use crate::server::Server;
use crate::sessions::{CappedSessions, SessionKey, CURRENT_KEY};
use crate::stdio::{check_line, Checked};

/// An HTTP response as `rmcp` builds them.
pub type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The session header of the streamable HTTP transport.
const SESSION_HEADER: &str = "mcp-session-id";

/// `rmcp`'s service behind the checks above; cheap to clone (one per connection).
#[derive(Clone)]
pub struct Guard {
    service: StreamableHttpService<Server, CappedSessions>,
    sessions: Arc<CappedSessions>,
    options: Arc<HttpOptions>,
}

impl Guard {
    /// The guard over `service`, whose session manager is `sessions`.
    pub fn new(
        service: StreamableHttpService<Server, CappedSessions>,
        sessions: Arc<CappedSessions>,
        options: Arc<HttpOptions>,
    ) -> Guard {
        Guard {
            service,
            sessions,
            options,
        }
    }

    /// Answers one request. A [`SessionKey`] in its extensions (put there by a layer in
    /// front, e.g. a token check) decides whose session cap a new session counts
    /// against.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: hyper::body::Body<Data = Bytes> + Unpin,
        B::Error: std::fmt::Display,
    {
        let key = request
            .extensions()
            .get::<SessionKey>()
            .cloned()
            .unwrap_or_default();
        let (parts, body) = request.into_parts();
        if parts.method == Method::DELETE {
            let id = parts
                .headers
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok());
            if let Some(id) = id {
                if !self.sessions.knows(id) {
                    return plain(StatusCode::NOT_FOUND, "Not Found: Session not found");
                }
            }
        }
        let body = if parts.method == Method::POST {
            match self.read_body(body).await {
                Ok(b) => b,
                Err(refused) => return refused,
            }
        } else {
            Bytes::new()
        };
        if parts.method == Method::POST && is_json(&parts.headers) {
            if let Some(refused) = refuse_body(&body) {
                return refused;
            }
        }
        let request = Request::from_parts(parts, Full::new(body));
        CURRENT_KEY.scope(key, self.service.handle(request)).await
    }

    /// The whole body, within the time and size caps.
    async fn read_body<B>(&self, mut body: B) -> Result<Bytes, HttpResponse>
    where
        B: hyper::body::Body<Data = Bytes> + Unpin,
        B::Error: std::fmt::Display,
    {
        let cap = self.options.max_body_bytes;
        let deadline = tokio::time::Instant::now() + self.options.body_timeout;
        let mut got: Vec<u8> = Vec::new();
        loop {
            let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
                Err(_) => {
                    return Err(closing(
                        StatusCode::REQUEST_TIMEOUT,
                        &format!(
                            "Request Timeout: the request body did not arrive within {} s",
                            self.options.body_timeout.as_secs_f64()
                        ),
                    ))
                }
                Ok(None) => return Ok(Bytes::from(got)),
                Ok(Some(Err(e))) => {
                    return Err(closing(
                        StatusCode::BAD_REQUEST,
                        &format!("Bad Request: cannot read the request body: {e}"),
                    ))
                }
                Ok(Some(Ok(frame))) => frame,
            };
            if let Ok(data) = frame.into_data() {
                if data.len() > cap.saturating_sub(got.len()) {
                    return Err(closing(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        &format!(
                            "Payload Too Large: the request body is over {cap} bytes, the cap on one MCP message"
                        ),
                    ));
                }
                got.extend_from_slice(&data);
            }
        }
    }
}

/// Whether the request says its body is JSON (what `rmcp` requires of a POST).
fn is_json(headers: &hyper::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .is_some_and(|v| v.eq_ignore_ascii_case("application/json"))
}

/// The answer to a JSON body that is no JSON-RPC message: `-32700` (not JSON, or
/// empty) and `-32600` (not a JSON-RPC message) with HTTP 400; a standard request
/// whose params do not fit (`-32602`) with HTTP 200, as `rmcp` answers its own
/// `-32602`. `None`: a message for `rmcp`.
fn refuse_body(body: &[u8]) -> Option<HttpResponse> {
    let refusal = match check_line(body) {
        Checked::Refused(r) => r,
        Checked::Message(_) => return None,
        Checked::Skip if !body.iter().all(u8::is_ascii_whitespace) => return None,
        Checked::Skip => {
            let line = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the request body is empty"}}"#;
            return Some(json(StatusCode::BAD_REQUEST, Bytes::from_static(line)));
        }
    };
    let status = if refusal.code == -32602 {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    // the stdio wording speaks of a line; over HTTP it is the body
    let mut refusal = refusal;
    refusal.message = refusal.message.replacen("the line", "the request body", 1);
    Some(json(status, Bytes::from(refusal.to_line())))
}

/// A JSON answer with `status` (the token layer's refusals too, [`crate::auth`]).
pub(crate) fn json(status: StatusCode, body: Bytes) -> HttpResponse {
    let mut r = Response::new(Full::new(body).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    r
}

fn plain(status: StatusCode, text: &str) -> HttpResponse {
    let mut r = Response::new(Full::new(Bytes::from(text.to_string())).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// A plain answer after which the connection closes (its request was not read to the
/// end).
fn closing(status: StatusCode, text: &str) -> HttpResponse {
    let mut r = plain(status, text);
    r.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::refuse_body;

    fn status(body: &[u8]) -> Option<u16> {
        refuse_body(body).map(|r| r.status().as_u16())
    }

    #[test]
    fn bodies_are_refused_as_lines_are() {
        assert_eq!(status(b"{not json"), Some(400));
        assert_eq!(status(b""), Some(400));
        assert_eq!(status(br#"{"foo":1}"#), Some(400));
        assert_eq!(status(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
    }
}
