//! Connections that have not sent a byte yet, oldest first (issue 30 item 4: "10,000
//! open idle connections: the server stays up and answers others"). When every
//! connection slot is taken, the server closes the oldest silent connection to make
//! room for the new one, instead of answering the new one 503: a flood of idle
//! connections then keeps out no client that speaks. Before this, the measured flood
//! (`bench team-load --idle 10000`, BENCHMARKS.md) got a real client 503 on 44 of 50
//! calls, for up to the 10 s header timeout.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// The last id given, and the silent connections oldest first (id, its close signal).
type Queue = (u64, VecDeque<(u64, Arc<Notify>)>);

/// The silent connections: an id each, and how to tell it to close.
#[derive(Default)]
pub struct Silent {
    inner: Mutex<Queue>,
}

impl Silent {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        crate::poison::lock(&self.inner)
    }

    /// Registers a new connection as silent: its id, and what [`Silent::evict_oldest`]
    /// notifies.
    pub fn add(&self) -> (u64, Arc<Notify>) {
        let mut g = self.lock();
        g.0 += 1;
        let id = g.0;
        let n = Arc::new(Notify::new());
        g.1.push_back((id, n.clone()));
        (id, n)
    }

    /// Connection `id` has spoken (or ended): no longer a candidate.
    pub fn remove(&self, id: u64) {
        let mut g = self.lock();
        if let Some(i) = g.1.iter().position(|(k, _)| *k == id) {
            g.1.remove(i);
        }
    }

    /// Tells the oldest silent connection to close; `false` when there is none.
    pub fn evict_oldest(&self) -> bool {
        match self.lock().1.pop_front() {
            Some((_, n)) => {
                // stored if the connection is not waiting yet: it closes when it does
                n.notify_one();
                true
            }
            None => false,
        }
    }
}
