//! The daemon's protocol: newline-delimited JSON requests against a brain held in
//! memory (reference `crabpath/daemon.py`, commit 134c676), an adapter over the
//! [`Brain`] service. The `crabpath daemon` command feeds it the lines of stdin and
//! prints its answers; this module does everything but the reading, the printing and
//! the signals.
//!
//! A database brain commits every write before answering it (the `save` method has
//! nothing left to do, and another process's writes are seen before the next
//! request); a state file is saved every `auto_save_interval`-th write and on `save`,
//! `shutdown` and (corrected) the end of input, as the reference does.
//!
//! A request is `{"id": <any>, "method": <string>, "params": <object>}`; the answer is
//! `{"id": <id>, "result": <payload>}` or `{"id": <id>, "error": {"code", "message"}}`
//! (code −32601 for an unknown method, −1 for everything else, with the reference's
//! messages). Methods:
//!
//! | method | params | result |
//! |---|---|---|
//! | `query` | `query` (non-blank string), `top_k` (integer ≥ 1, default 4), `chat_id`, `limit` (integer ≥ 1), `seeding` (`dense`, `lexical` or `hybrid`) | `fired_nodes`, `context`, `seeds`, `embed_query_ms`, `traverse_ms`, `total_ms`; with `limit`, `ranked`: at most `limit` node ids, best first ([`crate::service::Answer::ranked`]); on a full database, `journaled: false` and `warning` ([`crate::service::Unjournaled`]) |
//! | `learn` | `fired_nodes` (non-empty list of non-blank strings), `outcome` (number) | `edges_updated` |
//! | `maintain` | `tasks` (list or comma-separated string), `dry_run`, `max_merges` (≥ 1), `prune_below` | the maintenance report ([`crate::service::command::maintain`]); corrected: with `neurogenesis`, the auto nodes that died and merged (counts and ids) |
//! | `health` | corrected: `window` (integer ≥ 1, default 1000) | paper: the reference's health payload; corrected: the eight metrics of seed 002 Table 4 with their ranges ([`crate::service::HealthReport::to_json`]) |
//! | `info` | – | `nodes`, `edges`, `embedder` |
//! | `save` | – | `{"saved": true}` |
//! | `reload` | – | `{"reloaded": true}` (unsaved changes dropped) |
//! | `shutdown` | – | `{"shutdown": true}`, after saving unsaved changes |
//!
//! | `remember` | a turn: `text`, and optionally `id`, `session`, `time`, `speaker` ([`Brain::remember_turn`]) | `node_id`, `turn`, `edges`, `removed` |
//! | `forget` | one of `file`, `node`, `chat` (string) ([`Brain::forget`], a database brain only) | [`crate::service::ForgetReport::to_json`] |
//!
//! `learn` and a non-dry-run `maintain` with a mutating task count as writes; on a
//! state file, every `auto_save_interval`-th write saves it.
//!
//! Upstream v12's methods (`inject`, `correction`, `last_fired`, `learn_by_chat_id`,
//! `capture_feedback`), `route_mode` and `chat_id` turns on `query`, and `protocol` are
//! in `v12` (protocol version [`PROTOCOL_VERSION`]).
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | N1 | end of input exits without saving (3 learns with auto-save every 2: the third is lost) | unsaved writes are saved | 2 of 3 vs. 3 of 3 persisted |
//! | N2 | SIGTERM/SIGINT are noticed only when the next line arrives, which is then not answered | the state is saved and the daemon exits at once (the command's concern) | |
//! | N3 | an acknowledged write lives only in memory until the next auto-save | a state file's writes are appended to a write-ahead log (`<state>.wal`, fsync'd) before the answer, and a daemon that dies is replayed from it on the next start; a database commits each write before the answer | a `kill -9` after an answered `learn` loses it vs. keeps it |
//! | N4 | queries are embedded with OpenAI whenever `OPENAI_API_KEY` is set, whatever the state was built with | with the state's own embedder | |
//! | N5 | learn accepts unknown ids (dangling edges) and any outcome (NaN, 2) | refused (error −1): outcomes are in [−1, 1] as on the command line and in MCP ([`crate::service::command::learn::OUTCOME_RANGE`]) | `outcome 2` learned vs. refused |
//! | N7 | `maintain` notes unknown task names and skips them | refused, naming the tasks | `tasks "bogus"` ran nothing vs. error |
//! | N8 | `prune_below` NaN is taken (it prunes nothing) | refused in both profiles: a finite number | |
//! | N9 | `save` of a database deleted while open answered `{"saved": true}` (the writes went to the deleted file) | in both profiles, an error naming the missing file | |
//! | N6 | answers carry no timing (queries only) | every answer carries `elapsed_ms` | |
//! | N10 | (this port, before) a write refused inside the operation dropped the state in memory, read again from the file alone: acknowledged writes not yet saved were lost | a refused write is undone: the resident state is kept (paper, as the reference keeps its memory), or restored from the file and the write-ahead log (corrected); a write is logged before it is applied and cut back out of the log when refused; an auto-save that fails after a logged write answers a `warning`, not an error | `learn`, an invalid `learn`, `save`: the first lost vs. kept |
//! | N11 | a save writes the state in memory, read at start, over the state file: a write another process saved meanwhile (`crabpath inject`, `learn`) is lost | a write request holds the state file's lock from reading to saving; a file another process saved is read again and the daemon's unsaved writes (the log) are applied on top before the write | `crabpath inject` during a daemon, then a daemon `learn` and `shutdown`: the injected node lost vs. kept |

// The v12 methods extend `Daemon` from a child module; the shared helpers and constants
// live here, so that the child imports its parent and not the other way round.
mod forget;
mod remember;
mod v12;

/// This protocol's version: 1 for the v11 methods, 2 with upstream v12's.
pub const PROTOCOL_VERSION: i64 = 2;

/// One daemon method, defined once (issue 30 item 1): its name (`protocol` lists
/// them in this order), the role it needs and what runs it. Dispatch reads this table;
/// `forget` (issue 30 item 3, role admin) is one more entry at the end.
pub struct MethodDef {
    /// The method's name, as requests spell it.
    pub name: &'static str,
    /// The least role it needs (the daemon serves its own user on stdio: recorded for
    /// adapters that check roles, as the MCP server's tokens do).
    pub role: Role,
    /// After answering, the daemon exits (`shutdown`).
    pub stops: bool,
    run: fn(&mut Daemon, &PyDict) -> Result<PyValue, Failure>,
}

/// Every method, in the order of the module docs of this module and `v12`
/// (`remember`, then `forget`, last).
pub const METHODS: &[MethodDef] = &[
    method("query", Role::Read, |d, p| d.query(p)),
    method("learn", Role::Write, |d, p| d.learn(p, true)),
    method("maintain", Role::Write, |d, p| d.maintain(p, true)),
    method("health", Role::Read, |d, p| d.health(p)),
    method("info", Role::Read, |d, _| d.info()),
    method("save", Role::Write, |d, _| {
        d.save().map(|()| flag("saved")).map_err(Failure::from)
    }),
    method("reload", Role::Write, |d, _| {
        d.reload().map(|()| flag("reloaded"))
    }),
    MethodDef {
        name: "shutdown",
        role: Role::Admin,
        stops: true,
        run: |d, _| {
            if d.write_count > 0 {
                d.save().map_err(|e| Failure(e.to_string()))?;
            }
            Ok(flag("shutdown"))
        },
    },
    method("inject", Role::Write, |d, p| d.inject(p)),
    method("correction", Role::Write, |d, p| d.correction(p)),
    method("last_fired", Role::Read, |d, p| d.last_fired(p)),
    method("learn_by_chat_id", Role::Write, |d, p| {
        d.learn_by_chat_id(p)
    }),
    method("capture_feedback", Role::Write, |d, p| {
        d.capture_feedback(p)
    }),
    method("protocol", Role::Read, |d, _| Ok(d.protocol())),
    method("remember", Role::Write, |d, p| d.remember(p)),
    method("forget", Role::Admin, |d, p| d.forget(p)),
];

/// A method that answers and goes on.
const fn method(
    name: &'static str,
    role: Role,
    run: fn(&mut Daemon, &PyDict) -> Result<PyValue, Failure>,
) -> MethodDef {
    MethodDef {
        name,
        role,
        stops: false,
        run,
    }
}

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::reference::lock::StateLock;
use crate::serve::role::Role;
use crate::service::command::maintain::{self, Flavor, MaintainOptions, MaintainReport};
use crate::service::command::query::DAEMON_MAX_CONTEXT_CHARS;
use crate::service::command::HealthPayload;
use crate::service::route::RouteMode;
use crate::service::{file_version, Brain, QueryRequest, Seeding};
use crabpath::profile::Profile;
use pyformat::pyjson::{self, PyDict, PyInt, PyValue, Style};
use pyformat::pystr;

/// What the caller does after a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Nothing to print (a blank line).
    Skip,
    /// Print this answer and go on.
    Answer(String),
    /// Print this answer, then exit with status 0.
    Stop(String),
}

/// A failure answered as `{"code": -1, "message": ...}`.
struct Failure(String);

impl From<crate::error::Error> for Failure {
    fn from(e: crate::error::Error) -> Self {
        match e {
            crate::error::Error::Exception { message, .. } => Failure(message),
            other => Failure(other.to_string()),
        }
    }
}

impl From<crabpath::Error> for Failure {
    fn from(e: crabpath::Error) -> Self {
        Failure(e.to_string())
    }
}

/// The write-ahead log of a corrected daemon on a state file (fix N3): one JSON line
/// per acknowledged write, after a header naming the state file version it applies to.
struct Wal {
    path: PathBuf,
    file: std::fs::File,
}

/// The log line written before a save ([`Daemon::save`]): a log whose last line it is,
/// and whose header names another version of the state file, was saved by this daemon.
const SAVING_LINE: &str = "{\"saving\": true}";

/// The log line written after a save that failed: the writes before it are not saved.
const SAVE_FAILED_LINE: &str = "{\"saving\": false}";

impl Wal {
    /// Appends `line` (ending with its newline) and syncs it; returns the log's length
    /// before it. A line that cannot be written whole is cut back out: glued to a torn
    /// line, the next acknowledged write would be unreadable when the log is replayed.
    fn append(&mut self, line: &str) -> std::io::Result<u64> {
        let before = self.file.metadata()?.len();
        crate::reference::journal::write_or_cut_back(
            &mut self.file,
            before,
            line.as_bytes(),
            true,
        )?;
        Ok(before)
    }
}

/// The write-ahead log of a state: `<state>.wal`.
pub fn wal_path(state: &Path) -> PathBuf {
    let mut s = state.as_os_str().to_os_string();
    s.push(".wal");
    PathBuf::from(s)
}

/// The daemon.
pub struct Daemon {
    brain: Brain,
    profile: Profile,
    write_count: u64,
    auto_save: u64,
    wal: Option<Wal>,
    /// The state file's lock while a write request runs (corrected profile, state
    /// file): its saves take no second one.
    lock: Option<StateLock>,
    /// The route mode of queries that do not name one ([`crate::service::route`]).
    route_mode: RouteMode,
}

impl Daemon {
    /// A daemon on `brain` (opened resident, for writing, with its embedder). In the
    /// corrected profile on a state file, writes left in its write-ahead log by a
    /// daemon that died are replayed (and saved) first; returns how many.
    pub fn new(brain: Brain, auto_save_interval: i64) -> crate::error::Result<(Daemon, usize)> {
        let profile = brain.profile();
        let mut d = Daemon {
            brain,
            profile,
            write_count: 0,
            auto_save: if auto_save_interval > 0 {
                auto_save_interval as u64
            } else {
                0
            },
            wal: None,
            lock: None,
            route_mode: RouteMode::default_for(profile),
        };
        let mut replayed = 0;
        if profile.fixes_bugs() && !d.brain.is_store() {
            replayed = d.replay_wal()?;
            if replayed > 0 {
                d.save()?;
            } else {
                d.open_wal()?;
            }
        }
        Ok((d, replayed))
    }

    /// Writes not yet saved (always 0 for a database).
    pub fn unsaved(&self) -> u64 {
        self.write_count
    }

    /// Sets the route mode of queries that do not name one (default:
    /// [`RouteMode::default_for`] the profile).
    pub fn set_route_mode(&mut self, mode: RouteMode) {
        self.route_mode = mode;
    }

    /// The brain.
    pub fn brain(&mut self) -> &mut Brain {
        &mut self.brain
    }

    fn open_wal(&mut self) -> crate::error::Result<()> {
        self.start_wal("")
    }

    /// Starts the log anew: a header naming the state file's current version, then
    /// `body` (logged writes, one a line, each ending with a newline).
    fn start_wal(&mut self, body: &str) -> crate::error::Result<()> {
        let state = self.brain.path().to_path_buf();
        let path = wal_path(&state);
        let version = file_version(&state).unwrap_or_default();
        let text = format!("{{\"base\": \"{version}\"}}\n{body}");
        pyformat::io::write_atomic(&path, text.as_bytes())?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| crate::error::io_error(&path, e))?;
        self.wal = Some(Wal { path, file });
        Ok(())
    }

    /// Replays the writes of a log that applies to the state file as it is now.
    fn replay_wal(&mut self) -> crate::error::Result<usize> {
        let path = wal_path(self.brain.path());
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(0);
        };
        Ok(self.replay_log(&text))
    }

    /// Replays the writes of the log `text` when it applies to the state file as it is
    /// now (its header names the file's version); returns how many applied.
    fn replay_log(&mut self, text: &str) -> usize {
        let mut lines = text.lines();
        let version = file_version(self.brain.path()).unwrap_or_default();
        let base = lines
            .next()
            .and_then(|h| pyjson::loads(h).ok())
            .and_then(|v| v.as_dict().and_then(|d| d.get("base").cloned()));
        if base.as_ref().and_then(PyValue::as_str) != Some(version.as_str())
            && text.lines().rev().find(|l| !l.trim().is_empty()) == Some(SAVING_LINE)
        {
            // this daemon was saving them when it stopped: the file it wrote has them
            return 0;
        }
        // the file as the log's header names it, or saved since by another process
        // (its acknowledged writes are applied on top, as `rebase` does while running;
        // before, such a log was skipped and the writes it held were lost)
        self.replay_lines(lines).0
    }

    /// Appends a marker line to the log (fsync'd): [`SAVING_LINE`] before a save,
    /// [`SAVE_FAILED_LINE`] after one that failed.
    fn mark(&mut self, line: &str) -> crate::error::Result<()> {
        let Some(wal) = self.wal.as_mut() else {
            return Ok(());
        };
        wal.append(&format!("{line}\n"))
            .map(|_| ())
            .map_err(|e| crate::error::io_error(&wal.path, e))
    }

    /// Applies logged writes to the brain in memory, without journaling them again;
    /// returns how many applied and the lines that did (each with its newline).
    fn replay_lines<'a>(&mut self, lines: impl Iterator<Item = &'a str>) -> (usize, String) {
        let mut n = 0;
        let mut kept = String::new();
        for line in lines {
            // a torn last line (the daemon died while appending) was never answered
            let Ok(PyValue::Dict(req)) = pyjson::loads(line) else {
                continue;
            };
            let method = req.get("method").and_then(PyValue::as_str).unwrap_or("");
            let params = req
                .get("params")
                .and_then(PyValue::as_dict)
                .cloned()
                .unwrap_or_default();
            let ok = match method {
                "learn" => self.learn(&params, false).is_ok(),
                "maintain" => self.maintain(&params, false).is_ok(),
                _ => false,
            };
            if ok {
                n += 1;
                kept.push_str(line);
                kept.push('\n');
            }
        }
        (n, kept)
    }

    /// After a write that failed (answered with an error), the state in memory again
    /// as it was before it: the state file as saved, with the writes acknowledged since
    /// replayed from the write-ahead log (corrected profile, state file). A failed
    /// operation may have changed the state in memory before it stopped, or an append
    /// after the change (its journal entry) may have failed: either way the write is
    /// refused, so nothing of it may stay to be saved later. Before, the state was
    /// dropped and read again from the file alone, which lost every acknowledged write
    /// not yet saved (`learn` answered, then an invalid `learn`, then `save`: the first
    /// was gone). The log is not replayed when it ends with this daemon's save marker
    /// and its header names another version of the file (a `save` that wrote the file
    /// but failed to start a new log must not have its writes applied twice). Returns why it could not restore, if so. Cost: reading the
    /// state file and replaying the log (what a restart after a crash does).
    fn restore_after_failure(&mut self) -> Option<String> {
        let path = self.wal.as_ref()?.path.clone();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => return Some(format!("{}: {e}", path.display())),
        };
        if let Err(e) = self.brain.reload() {
            return Some(e.to_string());
        }
        self.replay_log(&text);
        None
    }

    /// Runs a live write: logs it first (corrected profile, state file), then `apply`;
    /// when `apply` fails, the log is cut back to its length before (and
    /// [`Daemon::dispatch`] restores the state in memory), so that a refused write is
    /// neither applied nor replayed after a restart. `logs(&result)` says whether a
    /// successful write stays in the log (a `maintain` that changed nothing is cut back
    /// out of it). Before, a write was logged after it was applied: a log that refused
    /// the line (a full disk) answered an error for a write already applied in memory,
    /// and saved with the next one.
    fn logged_write<T>(
        &mut self,
        method: &str,
        params: &PyDict,
        logs: impl FnOnce(&T) -> bool,
        apply: impl FnOnce(&mut Daemon) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let before = self.log_write(method, params)?;
        let result = apply(self);
        let keep = result.as_ref().is_ok_and(logs);
        if let (false, Some(wal), Some(before)) = (keep, self.wal.as_mut(), before) {
            if let Err(e) = wal.file.set_len(before).and_then(|()| wal.file.sync_data()) {
                let why = format!(
                    "{}: the write could not be cut back out of the log ({e}): it is replayed after a restart",
                    wal.path.display()
                );
                return match result {
                    Ok(_) => Err(Failure(why)),
                    Err(Failure(first)) => Err(Failure(format!("{first}; {why}"))),
                };
            }
        }
        result
    }

    /// Appends a write to the log before it is applied; returns the log's length before
    /// it (`None` without a log).
    fn log_write(&mut self, method: &str, params: &PyDict) -> Result<Option<u64>, Failure> {
        let Some(wal) = self.wal.as_mut() else {
            return Ok(None);
        };
        let mut req = PyDict::new();
        req.insert("method".into(), PyValue::Str(method.into()));
        req.insert("params".into(), PyValue::Dict(params.clone()));
        let mut line = pyjson::to_string_with(&PyValue::Dict(req), Style::COMPACT)
            .map_err(|e| Failure(e.to_string()))?;
        line.push('\n');
        wal.append(&line)
            .map(Some)
            .map_err(|e| Failure(format!("{}: {e}", wal.path.display())))
    }

    /// Saves a state file now and resets the write counter (and the log); nothing to
    /// do for a database.
    pub fn save(&mut self) -> crate::error::Result<()> {
        if self.wal.is_none() {
            self.brain.save()?;
            self.write_count = 0;
            if self.profile.fixes_bugs() && !self.brain.is_store() {
                self.open_wal()?;
            }
            return Ok(());
        }
        // corrected, state file: saved under the lock, over the file as it is now
        let own = match self.lock {
            Some(_) => None,
            None => self.brain.lock_state()?,
        };
        self.rebase()?;
        // a restart after a crash tells its own save from another process's by this
        // line: the log's writes are then in the file, not to be applied again
        self.mark(SAVING_LINE)?;
        let saved = match self.lock.as_ref().or(own.as_ref()) {
            Some(held) => self.brain.save_locked(held),
            None => self.brain.save(),
        };
        if let Err(e) = saved {
            let _ = self.mark(SAVE_FAILED_LINE);
            return Err(e);
        }
        self.write_count = 0;
        self.open_wal()
    }

    /// Brings the state in memory up to date with a state file another process saved
    /// since this daemon read or saved it (corrected profile, state file; the caller
    /// holds its lock): the file is read again, this daemon's acknowledged writes not
    /// yet saved (the write-ahead log) are applied on top of it, and the log starts
    /// again on the file's new version. Before, the daemon saved its memory over the
    /// file: another process's acknowledged write (`crabpath inject`, `learn`) was
    /// gone. A file that cannot be read leaves the memory as it is (error).
    fn rebase(&mut self) -> crate::error::Result<()> {
        let Some(wal) = self.wal.as_ref() else {
            return Ok(());
        };
        if !self.brain.changed_on_disk() {
            return Ok(());
        }
        let path = wal.path.clone();
        let text = std::fs::read_to_string(&path).map_err(|e| crate::error::io_error(&path, e))?;
        self.brain.reread_state()?;
        let (_, body) = self.replay_lines(text.lines().skip(1));
        self.start_wal(&body)
    }

    /// Handles one input line (see the module docs).
    pub fn handle(&mut self, raw: &str) -> Step {
        let started = Instant::now();
        let line = pystr::strip(raw);
        if line.is_empty() {
            return Step::Skip;
        }
        let mut id = PyValue::Null;
        let outcome = self.dispatch(line, &mut id);
        let mut answer = PyDict::new();
        answer.insert("id".into(), id);
        let stop = matches!(outcome, Ok((_, true)));
        match outcome {
            Ok((payload, _)) => {
                answer.insert("result".into(), payload);
            }
            Err((code, message)) => {
                let mut e = PyDict::new();
                e.insert("code".into(), PyValue::Int(PyInt::from(code)));
                e.insert("message".into(), PyValue::Str(message));
                answer.insert("error".into(), PyValue::Dict(e));
            }
        }
        if self.profile.fixes_bugs() {
            answer.insert("elapsed_ms".into(), PyValue::Float(ms(started)));
        }
        let text =
            pyjson::to_string_with(&PyValue::Dict(answer), Style::COMPACT).unwrap_or_else(|e| {
                format!("{{\"id\": null, \"error\": {{\"code\": -1, \"message\": \"{e}\"}}}}")
            });
        if stop {
            Step::Stop(text)
        } else {
            Step::Answer(text)
        }
    }

    fn dispatch(&mut self, line: &str, id: &mut PyValue) -> Result<(PyValue, bool), (i64, String)> {
        let fail = |m: String| (-1i64, m);
        let request = pyjson::loads_lossy(line).map_err(|e| fail(e.to_string()))?;
        let PyValue::Dict(request) = request else {
            return Err(fail("request must be a JSON object".into()));
        };
        *id = request.get("id").cloned().unwrap_or(PyValue::Null);
        let params = match request.get("params") {
            None => PyDict::new(),
            Some(PyValue::Dict(d)) => d.clone(),
            Some(_) => return Err(fail("params must be a JSON object".into())),
        };
        let Some(method) = request.get("method").and_then(PyValue::as_str) else {
            return Err(fail("method must be a string".into()));
        };
        let Some(def) = METHODS.iter().find(|m| m.name == method) else {
            return Err((-32601, format!("unknown method: {method}")));
        };
        // a write on a state file (corrected) holds its lock from reading it to saving
        // it: another process's save in between is read first, not saved over
        if def.role != Role::Read && self.wal.is_some() {
            self.lock = self.brain.lock_state().map_err(|e| fail(e.to_string()))?;
            if let Err(e) = self.rebase() {
                self.lock = None;
                return Err(fail(e.to_string()));
            }
        }
        let answer = self.run(def, &params);
        self.lock = None;
        answer
    }

    /// Runs one method (see [`Daemon::dispatch`]).
    fn run(&mut self, def: &MethodDef, params: &PyDict) -> Result<(PyValue, bool), (i64, String)> {
        let fail = |m: String| (-1i64, m);
        let result = (def.run)(self, params);
        if let Err(Failure(why)) = result {
            // a refused write leaves nothing of itself in memory (corrected, state file)
            let why = match def.role != Role::Read && self.profile.fixes_bugs() {
                true => match self.restore_after_failure() {
                    Some(also) => format!("{why}; {also}"),
                    None => why,
                },
                false => why,
            };
            return Err(fail(why));
        }
        result.map(|p| (p, def.stops)).map_err(|Failure(m)| fail(m))
    }

    fn info(&mut self) -> Result<PyValue, Failure> {
        let fixes = self.profile.fixes_bugs();
        Ok(self.brain.read(|g, meta| {
            let mut d = PyDict::new();
            d.insert("nodes".into(), count(g.node_count()));
            d.insert("edges".into(), count(g.edge_count()));
            let embedder = match meta.get("embedder_name") {
                None => "hash-v1".to_string(),
                Some(v) => pyformat::pyrepr::py_str(&PyValue::from(v)),
            };
            d.insert("embedder".into(), PyValue::Str(embedder));
            if fixes {
                d.insert(
                    "protocol_version".into(),
                    PyValue::Int(PyInt::from(PROTOCOL_VERSION)),
                );
            }
            PyValue::Dict(d)
        })?)
    }

    fn reload(&mut self) -> Result<(), Failure> {
        self.brain.reload()?;
        self.write_count = 0;
        if self.profile.fixes_bugs() && !self.brain.is_store() {
            self.open_wal()?;
        }
        Ok(())
    }

    /// `health`: the reference's payload (paper profile); the eight metrics of seed 002
    /// Table 4 over the last `window` queries, the object `crabpath health --json` prints
    /// and the MCP `health` tool returns (corrected; issue 31 item 2).
    fn health(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        if !self.profile.fixes_bugs() {
            return self
                .brain
                .read(|g, _| PyValue::Dict(HealthPayload::of(g).to_dict()))
                .map_err(Failure::from);
        }
        let default = crate::service::health::DEFAULT_WINDOW as i64;
        let window = int_param(params, "window", Some(default))?;
        let report = self
            .brain
            .health_report(usize::try_from(window).unwrap_or(usize::MAX))
            .map_err(Failure::from)?;
        Ok(PyValue::from(&report.to_json()))
    }

    fn query(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let text = match params.get("query") {
            Some(PyValue::Str(s)) if !pystr::strip(s).is_empty() => s.clone(),
            _ => return Err(Failure("query must be a non-empty string".into())),
        };
        let top_k = int_param(params, "top_k", Some(4))?;
        let route_mode = match params.get("route_mode") {
            None | Some(PyValue::Null) => self.route_mode,
            Some(PyValue::Str(m)) => RouteMode::parse(m)?,
            Some(_) => {
                return Err(Failure(format!(
                    "route_mode must be one of: {}",
                    crate::service::route::ROUTE_MODES
                )))
            }
        };
        let chat_id = optional_chat_id(params)?;
        let limit = match params.get("limit") {
            None | Some(PyValue::Null) => None,
            Some(_) => Some(int_param(params, "limit", None)? as usize),
        };
        let neurogenesis = match params.get("neurogenesis") {
            None | Some(PyValue::Null) => None,
            Some(PyValue::Bool(b)) => Some(*b),
            Some(PyValue::Str(s)) => Some(
                crate::service::parse_switch(s)
                    .ok_or_else(|| Failure("neurogenesis must be on or off".into()))?,
            ),
            Some(_) => return Err(Failure("neurogenesis must be on or off".into())),
        };
        let seeding = match params.get("seeding") {
            None | Some(PyValue::Null) => None,
            Some(PyValue::Str(s)) => Some(s.parse::<Seeding>().map_err(Failure)?),
            Some(_) => {
                return Err(Failure(
                    "seeding must be one of: dense, lexical, hybrid".into(),
                ))
            }
        };
        let total = Instant::now();
        let embed_start = Instant::now();
        let vector = self.brain.embedder()?.embed(&text)?;
        let embed_ms = ms(embed_start);
        let recorded = self.brain.embedder_meta()?;
        if let Some(d) = recorded.get("embedder_dim").and_then(|v| v.as_i64()) {
            if vector.len() as i64 != d {
                return Err(Failure(format!(
                    "query embedding dimension mismatch: expected {d}, got {}",
                    vector.len()
                )));
            }
        }
        let mut meta = PyDict::new();
        meta.insert(
            "chat_id".into(),
            params.get("chat_id").cloned().unwrap_or(PyValue::Null),
        );
        let req = QueryRequest {
            text: &text,
            vector: Some(vector),
            top: top_k as usize,
            max_context_chars: Some(DAEMON_MAX_CONTEXT_CHARS as i64),
            journal_metadata: PyValue::Dict(meta),
            route: route_mode.config(),
            limit,
            seeding,
            neurogenesis,
            ..QueryRequest::new(&text, top_k as usize)
        };
        let answer = self.brain.query(&req)?;
        let traverse_ms = answer.traverse_ms;
        let record = chat_id.as_ref().and_then(|_| answer.journaled_turn(&text));
        let mut d = PyDict::new();
        d.insert(
            "fired_nodes".into(),
            PyValue::List(
                answer
                    .fired()
                    .iter()
                    .map(|s| PyValue::Str(s.to_string()))
                    .collect(),
            ),
        );
        d.insert("context".into(), PyValue::Str(answer.context()));
        if limit.is_some() {
            d.insert(
                "ranked".into(),
                PyValue::List(
                    answer
                        .ranked()
                        .iter()
                        .map(|s| PyValue::Str(s.to_string()))
                        .collect(),
                ),
            );
        }
        d.insert(
            "seeds".into(),
            PyValue::List(
                answer
                    .hits
                    .iter()
                    .map(|(i, s)| PyValue::List(vec![PyValue::Str(i.clone()), PyValue::Float(*s)]))
                    .collect(),
            ),
        );
        if self.profile.fixes_bugs() {
            d.insert("guardrails".into(), answer.guardrails_json());
        }
        d.insert("embed_query_ms".into(), PyValue::Float(embed_ms));
        d.insert("traverse_ms".into(), PyValue::Float(traverse_ms));
        d.insert("total_ms".into(), PyValue::Float(ms(total)));
        if let Some(u) = &answer.unjournaled {
            d.insert("journaled".into(), PyValue::Bool(false));
            d.insert("warning".into(), PyValue::Str(u.warning()));
        }
        if let (Some(c), Some(rec)) = (&chat_id, record) {
            let turn = self.brain.record_turn(c, rec)?;
            if self.profile.fixes_bugs() {
                d.insert("turn".into(), count(turn as usize));
            }
        }
        if self.profile.fixes_bugs() {
            d.insert(
                "route_mode".into(),
                PyValue::Str(route_mode.as_str().into()),
            );
        }
        Ok(PyValue::Dict(d))
    }

    fn learn(&mut self, params: &PyDict, live: bool) -> Result<PyValue, Failure> {
        let ids = str_list_param(params, "fired_nodes")?;
        let outcome = match params.get("outcome") {
            None | Some(PyValue::Null) => return Err(Failure("outcome is required".into())),
            Some(v) => v
                .as_number()
                .filter(|_| !matches!(v, PyValue::Str(_)))
                .ok_or_else(|| Failure("outcome must be a number".into()))?,
        };
        let summary = if live {
            self.logged_write(
                "learn",
                params,
                |_| true,
                |d| d.brain.learn(&ids, outcome).map_err(Failure::from),
            )?
        } else {
            // a replayed write: its journal entry was written when it was answered
            let profile = self.profile;
            let tuning = self.brain.tuning()?;
            self.brain.write(crate::service::Scope::Nodes(&ids), |w| {
                crate::service::command::learn::learn_ids_tuned(
                    w.graph, &ids, outcome, profile, &tuning,
                )
            })?
        };
        let mut d = PyDict::new();
        d.insert("edges_updated".into(), count(summary.edges_updated));
        if live {
            self.count_write_of(&mut d)?;
        }
        Ok(PyValue::Dict(d))
    }

    /// `maintain`: the maintenance report; corrected, with `autotune` (`before`,
    /// `after`, `applied`, `clipped`) when the health task ran the autotuner (issue 31
    /// item 3). The daemon runs no maintenance of its own between requests.
    fn maintain(&mut self, params: &PyDict, live: bool) -> Result<PyValue, Failure> {
        let requested: Vec<String> = match params.get("tasks") {
            None | Some(PyValue::Null) => maintain::DEFAULT_TASKS
                .split(',')
                .map(str::to_string)
                .collect(),
            Some(PyValue::Str(s)) => maintain::parse_tasks(s, false),
            Some(PyValue::List(l)) => l
                .iter()
                .filter_map(PyValue::as_str)
                .map(|t| pystr::strip(t).to_string())
                .filter(|t| !t.is_empty())
                .collect(),
            Some(_) => {
                return Err(Failure(
                    "tasks must be a list or comma-separated string".into(),
                ))
            }
        };
        let dry_run = match params.get("dry_run") {
            None => false,
            Some(PyValue::Bool(b)) => *b,
            Some(_) => return Err(Failure("dry_run must be a boolean".into())),
        };
        if self.profile.fixes_bugs() {
            maintain::check_task_names(&requested).map_err(Failure)?;
        }
        let max_merges = int_param(params, "max_merges", Some(5))?;
        let prune_below = match params.get("prune_below") {
            None | Some(PyValue::Null) => 0.01,
            Some(v) => v
                .as_number()
                .filter(|x| !matches!(v, PyValue::Str(_)) && x.is_finite())
                .ok_or_else(|| Failure("prune_below must be a finite number".into()))?,
        };
        let run = move |d: &mut Daemon| -> Result<MaintainReport, Failure> {
            let embedder = if d.profile.fixes_bugs() {
                Some(d.brain.take_embedder()?)
            } else {
                None
            };
            let options = MaintainOptions {
                requested,
                dry_run,
                max_merges,
                prune_below,
                flavor: Flavor::Daemon,
                journal: live,
                embedder: embedder.as_deref(),
            };
            let report = d.brain.maintain(&options);
            drop(options);
            if let Some(e) = embedder {
                d.brain.put_embedder(e);
            }
            Ok(report?)
        };
        let report = if live {
            self.logged_write("maintain", params, |r| r.should_save, run)?
        } else {
            run(self)?
        };
        let mut d = daemon_report(&report);
        if live && report.should_save {
            self.count_write_of(&mut d)?;
        }
        Ok(PyValue::Dict(d))
    }

    /// [`Daemon::count_write`] after a write answered with `answer`: in the corrected
    /// profile a state file's write is already in the write-ahead log, so a failed
    /// auto-save does not undo it; the answer says so in `warning` instead of
    /// answering an error for a write that stands (a retry would apply it twice).
    fn count_write_of(&mut self, answer: &mut PyDict) -> Result<(), Failure> {
        match self.count_write() {
            Err(Failure(why)) if self.profile.fixes_bugs() && self.wal.is_some() => {
                answer.insert(
                    "warning".into(),
                    PyValue::Str(format!(
                        "applied and in the write-ahead log; the auto-save failed, and is tried again at the next write or save: {why}"
                    )),
                );
                Ok(())
            }
            other => other,
        }
    }

    fn count_write(&mut self) -> Result<(), Failure> {
        if self.brain.is_store() {
            return Ok(()); // committed already
        }
        self.write_count += 1;
        if self.auto_save > 0 && self.write_count.is_multiple_of(self.auto_save) {
            self.save()?;
        }
        Ok(())
    }
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

fn count(n: usize) -> PyValue {
    PyValue::Int(PyInt::from(n as i64))
}

fn flag(key: &str) -> PyValue {
    let mut d = PyDict::new();
    d.insert(key.into(), PyValue::Bool(true));
    PyValue::Dict(d)
}

/// The reference's `_parse_int`: a JSON integer (booleans count, as in Python) ≥ 1.
fn int_param(params: &PyDict, key: &str, default: Option<i64>) -> Result<i64, Failure> {
    let v = match params.get(key) {
        None | Some(PyValue::Null) => {
            return default.ok_or_else(|| Failure(format!("{key} is required")));
        }
        Some(PyValue::Bool(b)) => i64::from(*b),
        Some(PyValue::Int(i)) => i
            .as_i64()
            .ok_or_else(|| Failure(format!("{key} must be an integer")))?,
        Some(_) => return Err(Failure(format!("{key} must be an integer"))),
    };
    if v < 1 {
        return Err(Failure(format!("{key} must be >= 1")));
    }
    Ok(v)
}

/// The reference's `_parse_str_list` (required).
fn str_list_param(params: &PyDict, key: &str) -> Result<Vec<String>, Failure> {
    let list = match params.get(key) {
        None | Some(PyValue::Null) => return Err(Failure(format!("{key} is required"))),
        Some(PyValue::List(l)) => l,
        Some(_) => return Err(Failure(format!("{key} must be a list"))),
    };
    let mut out = Vec::new();
    for item in list {
        match item {
            PyValue::Str(s) if !pystr::strip(s).is_empty() => out.push(s.clone()),
            _ => {
                return Err(Failure(format!(
                    "{key} must only contain non-empty strings"
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(Failure(format!("{key} must not be empty")));
    }
    Ok(out)
}

/// The daemon's maintenance report (key order of `daemon.py::_handle_maintain`).
fn daemon_report(r: &MaintainReport) -> PyDict {
    let mut d = PyDict::new();
    d.insert(
        "health_before".into(),
        PyValue::Dict(r.health_before.to_dict()),
    );
    d.insert(
        "health_after".into(),
        PyValue::Dict(r.health_after.to_dict()),
    );
    d.insert("merges_applied".into(), count(r.merges_applied));
    d.insert("merges_proposed".into(), count(r.merges_proposed));
    d.insert("decay_applied".into(), PyValue::Bool(r.decay_applied));
    d.insert("pruned_edges".into(), count(r.pruned_edges));
    d.insert("pruned_nodes".into(), count(r.pruned_nodes));
    d.insert(
        "tasks_run".into(),
        PyValue::List(
            r.tasks_run
                .iter()
                .map(|t| PyValue::Str((*t).into()))
                .collect(),
        ),
    );
    d.insert(
        "notes".into(),
        PyValue::List(r.notes.iter().map(|t| PyValue::Str(t.clone())).collect()),
    );
    d.insert("edges_before".into(), count(r.edges_before));
    d.insert("edges_after".into(), count(r.edges_after));
    if let Some(step) = r.autotune_dict() {
        d.insert("autotune".into(), PyValue::Dict(step));
    }
    if let Some(auto) = &r.neurogenesis {
        d.insert("neurogenesis".into(), PyValue::Dict(auto.to_dict()));
    }
    d
}

/// Upstream `protocol.py::parse_chat_id` (optional): `None` for a missing or blank id.
fn optional_chat_id(params: &PyDict) -> Result<Option<String>, Failure> {
    match params.get("chat_id") {
        None | Some(PyValue::Null) => Ok(None),
        Some(PyValue::Str(v)) => {
            let t = pystr::strip(v);
            Ok((!t.is_empty()).then(|| t.to_string()))
        }
        Some(_) => Err(Failure("chat_id must be a string".into())),
    }
}
