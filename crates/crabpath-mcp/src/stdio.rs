//! The stdio transport: newline-delimited JSON-RPC, every line checked before `rmcp`
//! sees it, so that no line goes unanswered.
//!
//! `rmcp`'s own stdio transport (`AsyncRwTransport`, 3.11.0) drops a line that is
//! not JSON without a word (its issue #938: an answer could start an error storm
//! with a peer that echoes it), drops a line over its 16 MiB cap without a word, and
//! turns a `tools/call` whose `params` do not fit into a custom request, which the
//! handler answers `-32601 "tools/call"`. A client that sent any of them waits
//! forever. JSON-RPC 2.0 asks for an answer to each (§5.1), so this transport reads
//! the lines itself and hands `rmcp` only messages it can serve:
//!
//! | line | answer |
//! |---|---|
//! | not UTF-8, or not JSON | `-32700` (id null) with the reason |
//! | over [`MAX_LINE_BYTES`] | `-32600` (id null), discarded as it streams, never held |
//! | JSON but not a JSON-RPC 2.0 request, notification or response (an array, no `method`, `jsonrpc` not `"2.0"`, an `id` that is neither a string nor an integer) | `-32600` with the reason (the request's id when it has a usable one, else null) |
//! | a request for a standard method whose `params` do not fit (e.g. `tools/call` without a `name`, or with `arguments` that are not an object) | `-32602` with the reason |
//! | anything else | passed to `rmcp` as it is |
//!
//! A notification (no `id`) that is a well-formed JSON-RPC message is never answered,
//! as JSON-RPC asks. The server keeps reading after every bad line.
//!
//! Two tasks do the I/O: a reader (lines in; answers to bad lines go straight to the
//! writer) and a writer (one line out at a time, so answers never interleave). The
//! transport's `receive` only takes checked messages off a channel, which keeps it
//! safe to cancel (`rmcp` polls it inside a `select!`).

use std::borrow::Cow;
use std::io;

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ErrorCode, InitializeRequestParams,
    JsonRpcMessage, PaginatedRequestParams, ReadResourceRequestParams, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::args::kind;

/// The longest line (one JSON-RPC message, newline excluded) the server reads: 4 MiB.
///
/// The largest message a client has reason to send is a `teach` or `correct` with a
/// document's worth of text, well under a megabyte; 4 MiB leaves room for that with a
/// margin. Reading a message costs a few times its size (the line, the parsed JSON,
/// `rmcp`'s typed copy), so the cap also bounds what one line can make the server
/// hold, to some tens of MB. A longer line is answered `-32600` and skipped as it
/// streams in (it is never held whole), and the next line is served.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// How many checked messages may wait for `rmcp` before the reader stops reading.
const QUEUE: usize = 16;

/// A JSON-RPC error answer written by the transport itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// `-32700`, `-32600` or `-32602`.
    pub code: i32,
    /// One line saying what was wrong.
    pub message: String,
    /// The request's id when it could be read (JSON `null` otherwise).
    pub id: Value,
}

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>, id: Value) -> Refusal {
        Refusal {
            code: code.0,
            message: message.into(),
            id,
        }
    }

    /// The answer's line (with its newline).
    pub fn to_line(&self) -> Vec<u8> {
        let v = crate::error::rpc_error(&self.id, self.code.into(), &self.message);
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

/// What one line of input is.
#[derive(Debug)]
pub enum Checked {
    /// Nothing to do (an empty line, or a notification `rmcp` would not take).
    Skip,
    /// A message for `rmcp`.
    Message(Box<ClientJsonRpcMessage>),
    /// A line answered with an error.
    Refused(Refusal),
}

/// Checks one line (without its newline; a trailing `\r` and a leading UTF-8 byte
/// order mark are ignored, as `rmcp` ignores them).
pub fn check_line(line: &[u8]) -> Checked {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Skip;
    }
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return Checked::Refused(Refusal::new(
                ErrorCode::PARSE_ERROR,
                format!(
                    "Parse error: the line is not UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
                Value::Null,
            ))
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Checked::Refused(Refusal::new(
                ErrorCode::PARSE_ERROR,
                format!("Parse error: the line is not JSON ({e})"),
                Value::Null,
            ))
        }
    };
    check_value(value)
}

/// Checks a parsed line: its JSON-RPC shape, then the params of a standard request.
fn check_value(value: Value) -> Checked {
    let invalid = |message: String, id: Value| {
        Checked::Refused(Refusal::new(ErrorCode::INVALID_REQUEST, message, id))
    };
    let obj = match &value {
        Value::Object(o) => o,
        Value::Array(_) => return invalid(
            "Invalid request: batches (JSON arrays) are not supported; send one message per line"
                .into(),
            Value::Null,
        ),
        other => {
            return invalid(
                format!(
                    "Invalid request: a JSON-RPC message is an object, not {}",
                    kind(other)
                ),
                Value::Null,
            )
        }
    };
    // the id to answer with: the request's own when it is one JSON-RPC allows
    let id = match obj.get("id") {
        None => None,
        Some(raw) => match serde_json::from_value::<RequestId>(raw.clone()) {
            Ok(_) => Some(raw.clone()),
            Err(_) => {
                return invalid(
                    format!(
                        "Invalid request: `id` must be a string or an integer, not {}",
                        kind(raw)
                    ),
                    Value::Null,
                )
            }
        },
    };
    let answer_id = id.clone().unwrap_or(Value::Null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(
            "Invalid request: `jsonrpc` must be \"2.0\"".into(),
            answer_id,
        );
    }
    let method = match obj.get("method") {
        None => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(other) => {
            return invalid(
                format!(
                    "Invalid request: `method` must be a string, not {}",
                    kind(other)
                ),
                answer_id,
            )
        }
    };
    if method.is_none() && !obj.contains_key("result") && !obj.contains_key("error") {
        return invalid(
            "Invalid request: a message needs `method` (a request or notification) or `result` or `error` (a response)".into(),
            answer_id,
        );
    }
    let params = obj.get("params").cloned();
    let message = match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(m) => m,
        Err(e) => {
            // a notification is never answered, even a malformed one with a method
            if id.is_none() && method.is_some() {
                return Checked::Skip;
            }
            return invalid(format!("Invalid request: {e}"), answer_id);
        }
    };
    // a standard method whose params do not fit falls through to a custom request in
    // rmcp, which the handler would answer "method not found"
    if let JsonRpcMessage::Request(req) = &message {
        if let ClientRequest::CustomRequest(custom) = &req.request {
            if let Some(reason) = params_problem(&custom.method, params.as_ref()) {
                return Checked::Refused(Refusal::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("Invalid params for `{}`: {reason}", custom.method),
                    answer_id,
                ));
            }
        }
    }
    Checked::Message(Box::new(message))
}

/// Why `params` do not fit a standard method's request, if the method is one this
/// server serves (`None` for other methods, which the handler answers itself:
/// `-32601` for what the server does not offer).
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    /// The serde reason `params` do not deserialize as `T`.
    fn fit<T: serde::de::DeserializeOwned>(params: Option<&Value>, optional: bool) -> String {
        match params {
            None | Some(Value::Null) if optional => "they do not fit the method".into(),
            None | Some(Value::Null) => "`params` are missing".into(),
            Some(p @ Value::Object(_)) => match serde_json::from_value::<T>(p.clone()) {
                Err(e) => e.to_string(),
                Ok(_) => "they do not fit the method".into(),
            },
            Some(other) => format!("`params` must be an object, not {}", kind(other)),
        }
    }
    Some(match method {
        "tools/call" => {
            tool_call_problem(params).unwrap_or_else(|| fit::<CallToolRequestParams>(params, false))
        }
        "initialize" => fit::<InitializeRequestParams>(params, false),
        "resources/read" => fit::<ReadResourceRequestParams>(params, false),
        "tools/list" | "resources/list" | "resources/templates/list" => {
            fit::<PaginatedRequestParams>(params, true)
        }
        _ => return None,
    })
}

/// What is wrong with a `tools/call`'s `params.name` or `params.arguments`, in words
/// a client's author can act on.
fn tool_call_problem(params: Option<&Value>) -> Option<String> {
    let p = match params {
        None | Some(Value::Null) => {
            return Some(
                "`params` are missing: a tool call needs `params.name`, the tool's name".into(),
            )
        }
        Some(Value::Object(p)) => p,
        Some(other) => return Some(format!("`params` must be an object, not {}", kind(other))),
    };
    match p.get("name") {
        None => return Some("`params.name` is missing: the name of the tool to call".into()),
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "`params.name` must be a string (the tool's name), not {}",
                kind(other)
            ))
        }
    }
    match p.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "`params.arguments` must be an object (the tool's arguments by name), not {}",
            kind(other)
        )),
    }
}

/// One line read with a cap.
enum Line {
    /// A whole line (its newline removed), or the last bytes before end of input.
    Text,
    /// A line longer than the cap, skipped; its length in bytes.
    TooLong(usize),
    /// End of input.
    End,
}

/// Reads the next line into `buf` (cleared first) without ever holding more than
/// `max` bytes of it: a longer line is consumed and dropped as it arrives.
async fn read_line<R: AsyncRead + Unpin>(
    r: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut skipped: Option<usize> = None;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(match skipped {
                Some(n) => Line::TooLong(n),
                None if buf.is_empty() => Line::End,
                None => Line::Text,
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(available.len());
        match skipped.as_mut() {
            Some(n) => *n += take,
            None if buf.len() + take > max => {
                skipped = Some(buf.len() + take);
                buf.clear();
                buf.shrink_to(64 * 1024);
            }
            None => buf.extend_from_slice(&available[..take]),
        }
        let consumed = newline.map_or(take, |i| i + 1);
        r.consume(consumed);
        if newline.is_some() {
            return Ok(match skipped {
                Some(n) => Line::TooLong(n),
                None => Line::Text,
            });
        }
    }
}

/// The reader task: lines in, checked messages to `rmcp`, refusals to the writer.
async fn read_loop<R: AsyncRead + Unpin>(
    read: R,
    max: usize,
    messages: mpsc::Sender<ClientJsonRpcMessage>,
    out: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut r = BufReader::with_capacity(64 * 1024, read);
    let mut buf = Vec::new();
    loop {
        let checked = match read_line(&mut r, &mut buf, max).await {
            Ok(Line::End) => return,
            Ok(Line::Text) => check_line(&buf),
            Ok(Line::TooLong(n)) => Checked::Refused(Refusal::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Invalid request: a line of {n} bytes is over the limit of {max} bytes; it was discarded unread"
                ),
                Value::Null,
            )),
            Err(e) => {
                eprintln!("crabpath mcp: cannot read stdin: {e}");
                return;
            }
        };
        match checked {
            Checked::Skip => {}
            Checked::Message(m) => {
                if messages.send(*m).await.is_err() {
                    return; // the service has stopped
                }
            }
            Checked::Refused(r) => {
                if out.send(r.to_line()).is_err() {
                    return; // the writer has stopped: nobody to answer
                }
            }
        }
    }
}

/// The writer task: one whole line at a time, flushed.
async fn write_loop<W: AsyncWrite + Unpin>(
    mut write: W,
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(line) = lines.recv().await {
        if let Err(e) = async {
            write.write_all(&line).await?;
            write.flush().await
        }
        .await
        {
            eprintln!("crabpath mcp: cannot write stdout: {e}");
            return;
        }
    }
}

/// An `rmcp` transport over a byte stream pair (stdin and stdout for `crabpath mcp`)
/// that answers every bad line itself (see the module's table).
pub struct LineTransport {
    messages: mpsc::Receiver<ClientJsonRpcMessage>,
    out: Option<mpsc::UnboundedSender<Vec<u8>>>,
    reader: JoinHandle<()>,
    writer: Option<JoinHandle<()>>,
}

impl LineTransport {
    /// Starts the reader and writer tasks (call within a tokio runtime), with lines
    /// capped at `max_line` bytes ([`MAX_LINE_BYTES`] for the server).
    pub fn new<R, W>(read: R, write: W, max_line: usize) -> LineTransport
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (msg_tx, messages) = mpsc::channel(QUEUE);
        let (out, lines) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_loop(read, max_line, msg_tx, out.clone()));
        let writer = tokio::spawn(write_loop(write, lines));
        LineTransport {
            messages,
            out: Some(out),
            reader,
            writer: Some(writer),
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "the transport is closed")
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn name() -> Cow<'static, str> {
        "crabpath stdio lines".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = serde_json::to_vec(&item)
            .map_err(io::Error::other)
            .and_then(|mut line| {
                line.push(b'\n');
                let out = self.out.as_ref().ok_or_else(closed)?;
                out.send(line).map_err(|_| closed())
            });
        std::future::ready(sent)
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.messages.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // the reader holds a sender to the writer: stop it, then let the writer
        // finish what it was given
        self.reader.abort();
        self.out = None;
        if let Some(w) = self.writer.take() {
            let _ = w.await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &[u8]) -> Refusal {
        match check_line(line) {
            Checked::Refused(r) => r,
            other => panic!("{}: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn bad_lines_are_refused_with_their_codes() {
        assert_eq!(refused(b"{not json").code, -32700);
        assert_eq!(refused(b"\xff\xfe{}").code, -32700);
        assert_eq!(refused(b"[1]").code, -32600);
        assert_eq!(refused(b"7").code, -32600);
        assert_eq!(refused(br#"{"foo":"bar"}"#).code, -32600);
        let r = refused(br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#);
        assert_eq!((r.code, r.id), (-32600, serde_json::json!(3)));
        assert_eq!(
            refused(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).id,
            Value::Null
        );
        let r = refused(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"query","arguments":"x"}}"#);
        assert_eq!((r.code, r.id), (-32602, serde_json::json!("a")));
        assert!(
            r.message.contains("`params.arguments` must be an object"),
            "{}",
            r.message
        );
        let r = refused(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#);
        assert!(
            r.message.contains("`params.name` is missing"),
            "{}",
            r.message
        );
        let r = refused(br#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{}}"#);
        assert_eq!(r.code, -32602);
        assert!(r.message.contains("uri"), "{}", r.message);
    }

    #[test]
    fn good_lines_and_notifications_pass() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"health","arguments":{}}}"#;
        assert!(matches!(check_line(ok), Checked::Message(_)));
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(check_line(note), Checked::Message(_)));
        assert!(matches!(check_line(b"  \r"), Checked::Skip));
        // an unknown method is the handler's to answer (-32601)
        let custom = br#"{"jsonrpc":"2.0","id":1,"method":"x/y"}"#;
        assert!(matches!(check_line(custom), Checked::Message(_)));
    }

    #[test]
    fn a_long_line_is_skipped_and_the_next_one_read() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(long_line());
    }

    async fn long_line() {
        let mut input = vec![b'x'; 1000];
        input.extend_from_slice(b"\n{\"a\":1}\nlast");
        let mut r = BufReader::with_capacity(16, &input[..]);
        let mut buf = Vec::new();
        assert!(matches!(
            read_line(&mut r, &mut buf, 100).await.unwrap(),
            Line::TooLong(1000)
        ));
        assert!(matches!(
            read_line(&mut r, &mut buf, 100).await.unwrap(),
            Line::Text
        ));
        assert_eq!(buf, b"{\"a\":1}");
        assert!(matches!(
            read_line(&mut r, &mut buf, 100).await.unwrap(),
            Line::Text
        ));
        assert_eq!(buf, b"last");
        assert!(matches!(
            read_line(&mut r, &mut buf, 100).await.unwrap(),
            Line::End
        ));
    }
}
