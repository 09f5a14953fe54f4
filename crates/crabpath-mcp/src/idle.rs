//! Brains that close when idle in `crabpath mcp --brains DIR --http ADDR` (issue 30
//! item 2: "Brains open lazily and close when idle").
//!
//! A served directory may hold many brains, each opened at its first request
//! ([`crate::auth`]) with a writer connection, a read-only reader and a resident graph.
//! A brain nobody asked for `--idle-close` seconds is closed: both connections and
//! every cache are dropped ([`Slots::close_if_idle`]), and the next request opens it
//! again ([`Slots::hold`]), within the same MCP sessions. Once no session holds a
//! closed brain any more, the served directory drops what it kept of it, its HTTP
//! service and session manager included ([`crate::auth`]). A brain is never closed
//! while a request runs on it: a tool holds the brain's mutex for its whole run, and
//! the closer only *tries* that mutex (and the reader's), skipping the brain when
//! either is held. Each close is logged on stderr in one line (`crabpath mcp: brain
//! `NAME` closed after S s idle`).
//!
//! One brain (`--state`, stdio) never closes: its [`Slots`] have no [`Idle`], and a
//! request costs what it did before (one uncontended mutex and a branch).

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crabpath_brain::Brain;

use crate::error::{Error, Result};
use crate::poison::lock;

/// The default of `--idle-close`, in seconds: a brain unused for 10 minutes is closed
/// (a team's brains are asked in bursts; reopening a 79k-chunk resident brain takes
/// about a second).
pub const DEFAULT_IDLE_CLOSE_SECS: u64 = 600;

/// Opens a brain again after it was closed (the CLI's opener of a served directory).
pub type Reopen = Arc<dyn Fn() -> std::result::Result<Brain, String> + Send + Sync>;

/// What a closable brain keeps beside its slots: how to open it again, its name for
/// the log, when it was last used, and how many times it was closed.
pub struct Idle {
    name: String,
    reopen: Reopen,
    start: Instant,
    /// Milliseconds after `start` of the last use (its start and its end).
    last_used: AtomicU64,
    closes: AtomicUsize,
}

impl Idle {
    /// A closable brain named `name` (its directory under `--brains`), reopened by
    /// `reopen`.
    pub fn new(name: &str, reopen: Reopen) -> Idle {
        Idle {
            name: name.to_string(),
            reopen,
            start: Instant::now(),
            last_used: AtomicU64::new(0),
            closes: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last_used.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let now = self.start.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.last_used.load(Ordering::Relaxed)))
    }

    /// How many times the brain was closed for idleness.
    pub fn closes(&self) -> usize {
        self.closes.load(Ordering::Relaxed)
    }
}

/// A served brain's writer and reader (`None` in the writer: closed; `None` in the
/// reader: no reader, or closed), and, in `--brains` mode, its [`Idle`].
pub struct Slots {
    brain: Mutex<Option<Brain>>,
    reader: Mutex<Option<Brain>>,
    idle: Option<Arc<Idle>>,
}

/// A brain held for one request: the slot's guard, the brain inside it open.
pub struct Held<'a> {
    guard: MutexGuard<'a, Option<Brain>>,
    idle: Option<&'a Idle>,
}

impl Deref for Held<'_> {
    type Target = Brain;
    fn deref(&self) -> &Brain {
        self.guard
            .as_ref()
            .expect("a held slot is open (Slots::hold)")
    }
}

impl DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Brain {
        self.guard
            .as_mut()
            .expect("a held slot is open (Slots::hold)")
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // a long request counts as use until it ends
        if let Some(i) = self.idle {
            i.touch();
        }
    }
}

impl Slots {
    /// The slots of `brain` with its reader ([`open_reader`]); closable when `idle`.
    pub fn new(brain: Brain, idle: Option<Arc<Idle>>) -> Slots {
        let reader = open_reader(&brain);
        if let Some(i) = &idle {
            i.touch();
        }
        Slots {
            brain: Mutex::new(Some(brain)),
            reader: Mutex::new(reader),
            idle,
        }
    }

    /// The brain a request runs on: the reader for a read-only one (when there is an
    /// open reader), else the writer, opened again first if it was closed.
    ///
    /// # Failure
    /// Opening a closed brain again fails (its directory removed, its database
    /// unreadable).
    pub fn hold(&self, read_only: bool) -> Result<Held<'_>> {
        let idle = self.idle.as_deref();
        if let Some(i) = idle {
            i.touch();
        }
        if read_only {
            let g = lock(&self.reader);
            if g.is_some() {
                return Ok(Held { guard: g, idle });
            }
        }
        let mut g = lock(&self.brain);
        if g.is_none() {
            let Some(i) = idle else {
                return Err(Error::Argument("the brain is closed".into()));
            };
            let brain =
                (i.reopen)().map_err(|m| Error::Argument(format!("brain `{}`: {m}", i.name)))?;
            *lock(&self.reader) = open_reader(&brain);
            *g = Some(brain);
        }
        Ok(Held { guard: g, idle })
    }

    /// Whether the brain is closed now (false while a request holds it).
    pub fn is_closed(&self) -> bool {
        self.brain.try_lock().is_ok_and(|g| g.is_none())
    }

    /// Closes the brain (drops its connections and caches) when it has been idle for
    /// at least `after` and no request holds it; whether it closed now.
    pub fn close_if_idle(&self, after: Duration) -> bool {
        let Some(i) = &self.idle else {
            return false;
        };
        let idle = i.idle_for();
        if idle < after {
            return false;
        }
        // a request holding either slot is in flight: not now
        let Ok(mut w) = self.brain.try_lock() else {
            return false;
        };
        let Ok(mut r) = self.reader.try_lock() else {
            return false;
        };
        if w.is_none() {
            return false;
        }
        *r = None;
        *w = None;
        i.closes.fetch_add(1, Ordering::Relaxed);
        eprintln!(
            "crabpath mcp: brain `{}` closed after {} s idle",
            i.name,
            idle.as_secs()
        );
        true
    }
}

/// The read-only connection beside a served brain ([`Brain::reader`]); when it cannot
/// be opened, reads use the writer, and that is logged on stderr in one line naming the
/// database (issue 30 review).
pub fn open_reader(brain: &Brain) -> Option<Brain> {
    match brain.reader() {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "crabpath mcp: {}: no read-only connection ({e}); reads wait for the writer",
                brain.path().display()
            );
            None
        }
    }
}

/// How often the closer looks at the brains for an idle time of `after`: a quarter
/// of it, between 50 ms and 5 s.
pub fn check_every(after: Duration) -> Duration {
    (after / 4).clamp(Duration::from_millis(50), Duration::from_secs(5))
}
