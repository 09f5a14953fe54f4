//! HTTP sessions with a cap per key and a short idle life (issue 30 item 4: "4,000
//! `initialize` calls on one connection raise RSS from 28 MB to 719 MB; sessions are
//! uncapped and reaped only after 300 s idle").
//!
//! [`CappedSessions`] wraps `rmcp`'s [`LocalSessionManager`] and keeps, beside it, when
//! each session was last used and which key opened it. Creating a session first closes
//! every session idle for longer than [`SessionLimits::idle`], then, when the key
//! already holds [`SessionLimits::per_key`] sessions, closes that key's longest-idle
//! one. A client that opens sessions without ever closing them therefore holds at most
//! `per_key` of them, and evicts only its own.
//!
//! The key is the [`SessionKey`] an outer layer put in the request's extensions (a
//! token layer puts the token's name there); a request without one uses the empty key,
//! so without tokens the cap is a cap on the whole server.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};

/// At most this many live sessions per key (per token; the whole server without
/// tokens). An MCP client keeps one session per conversation window; 256 leaves room
/// for a team's clients behind one token while bounding what one key can make the
/// server hold: a session costs about 170 KB (the tester's 719 − 28 MB over 4,000
/// sessions), so 256 of them some 45 MB.
pub const MAX_SESSIONS_PER_KEY: usize = 256;

/// A session unused for this long is closed: 60 s (`rmcp` keeps one 300 s). Clients
/// that pause longer re-`initialize` when they get 404 for their session, as the MCP
/// specification asks of them.
pub const SESSION_IDLE: Duration = Duration::from_secs(60);

/// The request extension naming whose cap a new session counts against; see the
/// module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SessionKey(pub String);

tokio::task_local! {
    /// The key of the request being served, set by the HTTP guard around `rmcp`'s
    /// handling of it (`rmcp` creates the session inside that call).
    pub(crate) static CURRENT_KEY: SessionKey;
}

/// The session limits.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// Live sessions per key ([`MAX_SESSIONS_PER_KEY`]).
    pub per_key: usize,
    /// Idle time after which a session is closed ([`SESSION_IDLE`]).
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            per_key: MAX_SESSIONS_PER_KEY,
            idle: SESSION_IDLE,
        }
    }
}

#[derive(Debug)]
struct Seen {
    key: SessionKey,
    last: Instant,
}

/// `rmcp`'s local sessions, capped per key and reaped when idle.
#[derive(Debug)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    seen: Mutex<HashMap<SessionId, Seen>>,
    limits: SessionLimits,
}

impl CappedSessions {
    /// A manager with `limits`; `rmcp`'s own idle timer is set to `limits.idle` too,
    /// so an idle client's worker ends even when no new client comes to reap it.
    pub fn new(limits: SessionLimits) -> CappedSessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(limits.idle);
        CappedSessions {
            inner,
            seen: Mutex::new(HashMap::new()),
            limits,
        }
    }

    /// How many sessions are live (all keys).
    pub fn live(&self) -> usize {
        self.seen().len()
    }

    /// Whether `id` is a live session.
    pub fn knows(&self, id: &str) -> bool {
        self.seen().contains_key(id)
    }

    fn seen(&self) -> MutexGuard<'_, HashMap<SessionId, Seen>> {
        // the map stays consistent whatever panicked while holding it
        crate::poison::lock(&self.seen)
    }

    fn touch(&self, id: &SessionId) {
        if let Some(s) = self.seen().get_mut(id) {
            s.last = Instant::now();
        }
    }

    /// The sessions to close before one more opens for `key`: every idle one, then
    /// the key's longest-idle ones beyond `per_key - 1`. Cost: O(n log n) in the live
    /// sessions (at most `per_key` × keys).
    fn to_evict(&self, key: &SessionKey) -> Vec<SessionId> {
        let now = Instant::now();
        let mut seen = self.seen();
        let mut out: Vec<SessionId> = seen
            .iter()
            .filter(|(_, s)| now.duration_since(s.last) > self.limits.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &out {
            seen.remove(id);
        }
        let mut mine: Vec<(Instant, SessionId)> = seen
            .iter()
            .filter(|(_, s)| &s.key == key)
            .map(|(id, s)| (s.last, id.clone()))
            .collect();
        let keep = self.limits.per_key.max(1) - 1;
        if mine.len() > keep {
            mine.sort();
            for (_, id) in mine.drain(..mine.len() - keep) {
                seen.remove(&id);
                out.push(id);
            }
        }
        out
    }
}

impl SessionManager for CappedSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let key = CURRENT_KEY.try_with(|k| k.clone()).unwrap_or_default();
        for id in self.to_evict(&key) {
            // a session whose worker already ended is just dropped from the map
            let _ = self.inner.close_session(&id).await;
        }
        let (id, transport) = self.inner.create_session().await?;
        self.seen().insert(
            id.clone(),
            Seen {
                key,
                last: Instant::now(),
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.knows(id) && self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.seen().remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<
        impl futures_core::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
        Self::Error,
    > {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<
        impl futures_core::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
        Self::Error,
    > {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<
        impl futures_core::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
        Self::Error,
    > {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }
}
