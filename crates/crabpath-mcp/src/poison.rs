//! Locking the server's shared state whatever an earlier request did.

use std::sync::{Mutex, MutexGuard};

/// `m`'s guard, also when a thread panicked while holding it: a panic in one request
/// must not take the server down with it, and every state this crate keeps behind a
/// mutex (brains, sessions, connection queues) stays consistent between statements.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
