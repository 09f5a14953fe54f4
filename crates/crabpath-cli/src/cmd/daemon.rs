//! `crabpath daemon` (reference `crabpath/cli.py::cmd_daemon`, `daemon.py::main`):
//! stdin/stdout transport and signals around [`crabpath_brain::serve::daemon::Daemon`].
//!
//! Lines are read by a thread and handed to the main loop, which can therefore react
//! to SIGTERM/SIGINT while no input arrives. Paper profile: as the reference, a signal
//! is noticed only when the next line arrives (which is then not answered) or at the
//! end of input, and the end of input exits without saving. Corrected: a signal saves
//! unsaved writes and exits within 50 ms, and so does the end of input.

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use crabpath::HashEmbedder;
use crabpath_brain::serve::daemon::{Daemon, Step};
use crabpath_brain::source::workspace::expanduser;
use crabpath_brain::Brain;

use crate::args::DaemonArgs;
use crate::context::{choose_embedder, Ctx};
use crate::error::{reference, CliError, CliResult};
use crate::out;

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn install_handlers() {
    #[cfg(unix)]
    unsafe {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

pub fn run(ctx: &Ctx, a: &DaemonArgs) -> CliResult {
    let brain = open_serving(ctx, &a.state, false)?;
    let wal = crabpath_brain::serve::daemon::wal_path(brain.path());
    let (mut daemon, replayed) =
        Daemon::new(brain, a.auto_save_interval).map_err(|e| CliError::Other(e.into()))?;
    daemon.set_route_mode(a.route.resolve(ctx.profile));
    serve(ctx, daemon, wal, replayed)
}

/// Opens a brain to serve (the daemon, the MCP server): resident, for writing, with its
/// embedder loaded (corrected: the one it was built with; paper: hash-v1, as the
/// reference without OpenAI). `save_writes`: a state file saves each write before it is
/// answered (the MCP server; see `OpenOptions::save_writes`).
pub fn open_serving(ctx: &Ctx, state: &str, save_writes: bool) -> CliResult<Brain> {
    let path = expanduser(state);
    let mut options = ctx.options(crabpath_brain::reference::reffiles::GraphShape::Bare);
    options.resident = true;
    options.save_writes = save_writes;
    let mut brain = Brain::open(crabpath_brain::locate(&path), options)?;
    if ctx.fixes() {
        let meta = brain.embedder_meta()?;
        choose_embedder(ctx, None, &meta, brain.path())?;
        // the embedder the brain records when it is loaded: after a `reembed` by
        // another process the brain drops the old one and loads the new one
        let (ctx, location, path) = (*ctx, brain.location().clone(), brain.path().to_path_buf());
        brain.set_embedder(std::sync::Arc::new(move || {
            let recorded = ctx
                .open(location.clone(), false)
                .and_then(|mut b| Ok(b.embedder_meta()?))
                .and_then(|meta| choose_embedder(&ctx, None, &meta, &path))
                .map_err(|e| crabpath_brain::Error::Invalid(e.line()))?;
            recorded.loader()()
        }));
        // loaded now: a daemon must not pay for it on its first query
        brain.embedder()?;
    } else {
        if std::env::var("OPENAI_API_KEY").is_ok_and(|k| !k.is_empty()) {
            return reference(
                "ModuleNotFoundError: OPENAI_API_KEY is set, but OpenAI embeddings are not available offline (unset it to embed queries with hash-v1)",
            );
        }
        brain.set_embedder(std::sync::Arc::new(|| {
            Ok(Box::new(HashEmbedder::new()) as Box<dyn crabpath::Embedder>)
        }));
    }
    Ok(brain)
}

fn serve(ctx: &Ctx, mut daemon: Daemon, wal: std::path::PathBuf, replayed: usize) -> CliResult {
    if replayed > 0 {
        eprintln!(
            "crabpath: replayed {replayed} acknowledged write(s) from {} and saved them",
            wal.display()
        );
    }
    install_handlers();
    let (tx, rx) = channel::<String>();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match lock.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let fixes = ctx.fixes();
    let tick = Duration::from_millis(if fixes { 50 } else { 500 });
    let finish = |daemon: &mut Daemon, save: bool| -> CliResult {
        if save && daemon.unsaved() > 0 {
            daemon.save().map_err(|e| CliError::Other(e.into()))?;
        }
        Ok(0)
    };
    loop {
        match rx.recv_timeout(tick) {
            Ok(line) => {
                if STOP.load(Ordering::SeqCst) {
                    return finish(&mut daemon, true);
                }
                match daemon.handle(&line) {
                    Step::Skip => {}
                    Step::Answer(a) => out::println(&a),
                    Step::Stop(a) => {
                        out::println(&a);
                        return Ok(0);
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if fixes && STOP.load(Ordering::SeqCst) {
                    return finish(&mut daemon, true);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let signalled = STOP.load(Ordering::SeqCst);
                return finish(&mut daemon, fixes || signalled);
            }
        }
    }
}
