//! The random-sequence property test of issue 33 ("nothing a user or an agent does can
//! lose a brain"): from a seed, a random sequence of the commands a user runs on a brain
//! database (corrected profile, hash-v1 embedder, a small generated workspace of
//! Markdown files with sections and some single-chunk files):
//!
//! * `init`, and later `init` again over the brain;
//! * `query`; `learn` of a window of the fired ids of a query, with a random outcome;
//! * `inject` (teaching, directive or correction);
//! * `sync` after random edits of the workspace (a section rewritten, added or removed,
//!   a file rewritten as one paragraph, a file added, a file deleted);
//! * `maintain` with its default tasks or a random subset, sometimes other thresholds;
//! * `snapshot`, `rollback` (the latest, or a random snapshot of `snapshot --list`);
//! * `export` then `import` of that file into the brain (a round trip: exporting again
//!   gives the same bytes);
//! * `kill -9` of a random write command (learn, inject, sync, maintain, snapshot,
//!   rollback, import, init) at a random moment within its usual duration.
//!
//! After every step `crabpath doctor --state brain` must exit 0 and the brain must
//! answer a query (exit 0, at least one fired node); the step's own command must exit 0
//! (a killed one excepted). On a failure the sequence stops and the test fails with the
//! seed, the step, every step so far as the commands it ran, and doctor's output.
//!
//! Environment (the defaults are the short run of `cargo test`):
//! * `CRABPATH_SEQ_CASES` sequences (default 6), `CRABPATH_SEQ_STEPS` steps after the
//!   `init` (default 30: about 180 steps, 25 s in a debug build on 2 busy cores);
//! * `CRABPATH_SEQ_SEED` the first sequence's seed (default 33; sequence `i` uses
//!   seed + i). To replay a failure: `CRABPATH_SEQ_SEED=<seed> CRABPATH_SEQ_CASES=1`
//!   (the moments of the kills are wall-clock and may land elsewhere);
//! * `CRABPATH_SEQ_EXCLUDE` a comma-separated list of step kinds (e.g. `maintain`,
//!   `kill`) or `maintain` tasks (e.g. `prune`) left out, to look past a known failure;
//!   the summary names them.
//!
//! The counts of a run (steps of each kind, kills, failures) are printed on stdout
//! (`-- --nocapture`); BENCHMARKS.md has those of a long run.

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The words of the generated texts and queries (a small vocabulary, so that queries
/// find the sections and `connect` and `merge` have overlaps to work on).
const WORDS: [&str; 24] = [
    "deploy", "cargo", "docker", "cats", "fish", "dogs", "bones", "birds", "rust", "sqlite",
    "graph", "edges", "memory", "query", "learn", "garden", "coffee", "train", "river", "music",
    "backup", "login", "server", "budget",
];

/// The kinds of step, in the order of the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Init,
    Query,
    Learn,
    Inject,
    Sync,
    Maintain,
    Snapshot,
    Rollback,
    ExportImport,
    Reinit,
    Kill,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Init => "init",
            Kind::Query => "query",
            Kind::Learn => "learn",
            Kind::Inject => "inject",
            Kind::Sync => "sync",
            Kind::Maintain => "maintain",
            Kind::Snapshot => "snapshot",
            Kind::Rollback => "rollback",
            Kind::ExportImport => "export-import",
            Kind::Reinit => "reinit",
            Kind::Kill => "kill",
        }
    }
}

/// The random steps and their weights (out of their sum, 24): writes more often than
/// reads, a re-`init` rarely (it forgets what was learned).
const WEIGHTS: [(Kind, u32); 10] = [
    (Kind::Query, 2),
    (Kind::Learn, 3),
    (Kind::Inject, 2),
    (Kind::Sync, 3),
    (Kind::Maintain, 3),
    (Kind::Snapshot, 2),
    (Kind::Rollback, 2),
    (Kind::ExportImport, 2),
    (Kind::Reinit, 1),
    (Kind::Kill, 4),
];

/// The commands a kill step interrupts.
const KILLABLE: [Kind; 8] = [
    Kind::Learn,
    Kind::Inject,
    Kind::Sync,
    Kind::Maintain,
    Kind::Snapshot,
    Kind::Rollback,
    Kind::ExportImport,
    Kind::Reinit,
];

const MAINTAIN_TASKS: [&str; 5] = ["health", "decay", "prune", "merge", "connect"];

/// `maintain`'s default tasks (`crabpath maintain --help`).
const DEFAULT_TASKS: [&str; 4] = ["health", "decay", "merge", "prune"];

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a whole number")),
        Err(_) => default,
    }
}

/// One generated document of the workspace.
#[derive(Clone, Debug)]
struct Doc {
    /// Path under `ws/`.
    rel: String,
    /// One paragraph without headings (one chunk), or a title and `## ` sections.
    single: bool,
    /// The sections' (heading, body); a single-chunk file has one, its heading unused.
    sections: Vec<(String, String)>,
}

impl Doc {
    /// "one paragraph" or "N sections", for the log.
    fn shape(&self) -> String {
        match self.single {
            true => "one paragraph".into(),
            false => format!("{} sections", self.sections.len()),
        }
    }

    fn text(&self) -> String {
        if self.single {
            return format!("{}\n", self.sections[0].1);
        }
        let mut t = format!("# Notes {}\n\n", self.rel);
        for (h, b) in &self.sections {
            t.push_str(&format!("## {h}\n{b}\n\n"));
        }
        t
    }
}

/// The counts of a run.
#[derive(Default)]
struct Stats {
    sequences: u64,
    steps: BTreeMap<Kind, u64>,
    /// Kills by the command they interrupted.
    kills: BTreeMap<Kind, u64>,
    /// Killed commands that had ended (exit 0) before the signal.
    kills_too_late: u64,
    /// One full report per failed sequence.
    failures: Vec<String>,
    /// The distinct failures: their one-line signature and the seeds that hit them.
    signatures: BTreeMap<String, Vec<u64>>,
}

/// A failure of a step: a one-line signature (to count distinct failures) and the
/// details.
struct Failure {
    signature: String,
    details: String,
}

fn fail(signature: impl Into<String>, details: impl Into<String>) -> Failure {
    Failure {
        signature: signature.into(),
        details: details.into(),
    }
}

/// One sequence: its scratch directory (`ws/` the workspace, `brain/` the brain,
/// `exports/` the exported files), its generator and the log of its steps.
struct Seq<'a> {
    seed: u64,
    rng: ChaCha8Rng,
    dir: tempfile::TempDir,
    docs: Vec<Doc>,
    next_file: usize,
    injected: usize,
    /// Every step so far: its number, kind and the commands it ran.
    log: Vec<String>,
    /// The last wall-clock duration of each kind of command run to its end (the span
    /// within which a kill of that kind lands).
    durations: BTreeMap<Kind, Duration>,
    /// The step kinds left out (`CRABPATH_SEQ_EXCLUDE`).
    exclude: Vec<String>,
    /// What the current step does, for the signature of its failure (its kind; the
    /// command a kill interrupts; the tasks of a `maintain`).
    what: String,
    stats: &'a mut Stats,
}

type Step = Result<(), Failure>;

impl<'a> Seq<'a> {
    fn new(seed: u64, exclude: &[String], stats: &'a mut Stats) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws")).unwrap();
        std::fs::create_dir_all(dir.path().join("exports")).unwrap();
        Seq {
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            dir,
            docs: Vec::new(),
            next_file: 0,
            injected: 0,
            log: Vec::new(),
            durations: BTreeMap::new(),
            exclude: exclude.to_vec(),
            what: String::new(),
            stats,
        }
    }

    fn d(&self) -> &Path {
        self.dir.path()
    }

    /// Appends a line to the current step's log.
    fn note(&mut self, line: impl AsRef<str>) {
        let last = self.log.last_mut().expect("a step");
        last.push_str("\n      ");
        last.push_str(line.as_ref());
    }

    /// A random number of random words, within `count`.
    fn words(&mut self, count: std::ops::Range<usize>) -> String {
        let n = self.rng.gen_range(count);
        (0..n)
            .map(|_| *WORDS.choose(&mut self.rng).unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A section's text.
    fn sentence(&mut self) -> String {
        self.words(4..9)
    }

    /// A query's text.
    fn query_text(&mut self) -> String {
        self.words(1..4)
    }

    /// A new document: one paragraph (40 %) or 1–3 sections; `multi` forces 2–3
    /// sections.
    fn new_doc(&mut self, multi: bool) -> Doc {
        self.next_file += 1;
        let rel = if self.rng.gen_bool(0.3) {
            format!("notes/f{}.md", self.next_file)
        } else {
            format!("f{}.md", self.next_file)
        };
        let single = !multi && self.rng.gen_bool(0.4);
        let n = match (single, multi) {
            (true, _) => 1,
            (false, true) => self.rng.gen_range(2..4),
            (false, false) => self.rng.gen_range(1..4),
        };
        let sections = (0..n)
            .map(|k| (format!("Part {k}"), self.sentence()))
            .collect();
        Doc {
            rel,
            single,
            sections,
        }
    }

    fn write_doc(&self, doc: &Doc) {
        let p = self.d().join("ws").join(&doc.rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, doc.text()).unwrap();
    }

    /// Whether document `i` is the last one with sections (two chunks or more: its
    /// title's and its sections'), which an edit keeps: a workspace of single-chunk
    /// files alone makes a brain without edges, which `doctor` fails.
    fn last_multi(&self, i: usize) -> bool {
        !self.docs[i].single
            && !self
                .docs
                .iter()
                .enumerate()
                .any(|(j, d)| j != i && !d.single)
    }

    /// The chunks of the workspace's documents (a document with sections: its title's
    /// and one per section).
    fn chunks(&self) -> usize {
        self.docs
            .iter()
            .map(|d| if d.single { 1 } else { 1 + d.sections.len() })
            .sum()
    }

    /// One or two random edits of the workspace, written and logged. At most one of
    /// them removes chunks, at most a third of them: a sync never removes half of the
    /// brain (which a guard against mass deletion may refuse).
    fn edits(&mut self) {
        let mut removed = false;
        for _ in 0..self.rng.gen_range(1..3) {
            removed |= self.edit(removed);
        }
    }

    /// One random edit of the workspace, written and logged; whether it removed
    /// chunks (never when `removed` already).
    fn edit(&mut self, removed: bool) -> bool {
        let choice = self.rng.gen_range(0..6);
        let i = self.rng.gen_range(0..self.docs.len());
        let keep = self.last_multi(i);
        let d = &self.docs[i];
        let may_remove = |n: usize| !removed && 3 * n <= self.chunks();
        let (delete, shorten, flatten) = (
            may_remove(if d.single { 1 } else { 1 + d.sections.len() }),
            may_remove(1),
            may_remove(d.sections.len()),
        );
        match choice {
            // a file added
            0 => {
                let doc = self.new_doc(false);
                self.write_doc(&doc);
                self.note(format!("edit: add ws/{} ({})", doc.rel, doc.shape()));
                self.docs.push(doc);
            }
            // a file deleted (at least three stay)
            1 if self.docs.len() > 3 && !keep && delete => {
                let doc = self.docs.remove(i);
                std::fs::remove_file(self.d().join("ws").join(&doc.rel)).unwrap();
                self.note(format!("edit: delete ws/{}", doc.rel));
                return true;
            }
            // a section added
            2 if !self.docs[i].single && self.docs[i].sections.len() < 4 => {
                let k = self.docs[i].sections.len();
                let body = self.sentence();
                self.docs[i].sections.push((format!("Part {k}"), body));
                self.write_doc(&self.docs[i].clone());
                self.note(format!("edit: ws/{}: add section {k}", self.docs[i].rel));
            }
            // a section removed
            3 if !self.docs[i].single && self.docs[i].sections.len() > 1 && shorten => {
                let k = self.rng.gen_range(0..self.docs[i].sections.len());
                self.docs[i].sections.remove(k);
                self.write_doc(&self.docs[i].clone());
                self.note(format!("edit: ws/{}: remove section {k}", self.docs[i].rel));
                return true;
            }
            // a file with sections rewritten as one paragraph
            4 if !self.docs[i].single && !keep && flatten => {
                let body = self.sentence();
                self.docs[i].single = true;
                self.docs[i].sections = vec![("Part 0".into(), body)];
                self.write_doc(&self.docs[i].clone());
                self.note(format!("edit: ws/{}: one paragraph now", self.docs[i].rel));
                return true;
            }
            // a section's text rewritten
            _ => {
                let k = self.rng.gen_range(0..self.docs[i].sections.len());
                self.docs[i].sections[k].1 = self.sentence();
                self.write_doc(&self.docs[i].clone());
                self.note(format!(
                    "edit: ws/{}: rewrite section {k}",
                    self.docs[i].rel
                ));
            }
        }
        false
    }

    /// Runs `crabpath <args>` in the scratch directory, logged.
    fn cp(&mut self, args: &[&str]) -> (i32, String, String) {
        let o = common::run(self.d(), "corrected", args, "");
        let rc = o.status.code().unwrap_or(-1);
        self.note(format!("$ crabpath {} → {rc}", shell_words(args)));
        (
            rc,
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    /// Runs a command that must succeed, and notes how long it took; its stdout.
    fn must(&mut self, kind: Kind, args: &[&str]) -> Result<String, Failure> {
        let t = Instant::now();
        let (rc, out, err) = self.cp(args);
        if rc != 0 || err.contains("panicked") {
            return Err(fail(
                format!("`crabpath {}` failed: {}", args[0], first_line(&err)),
                format!("exit status {rc}\nstdout:\n{out}\nstderr:\n{err}"),
            ));
        }
        self.durations.insert(kind, t.elapsed());
        Ok(out)
    }

    /// Starts `crabpath <args>` and kills it (SIGKILL) after a random delay within
    /// 1.2 × the last duration of that kind of command (80 ms before any).
    fn kill_during(&mut self, kind: Kind, args: &[&str]) {
        let span = self
            .durations
            .get(&kind)
            .copied()
            .unwrap_or(Duration::from_millis(80))
            .mul_f64(1.2);
        let delay = span.mul_f64(self.rng.gen_range(0.0..1.0));
        let mut child = common::command(self.d(), "corrected", args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn crabpath");
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL on Unix
        let status = child.wait().unwrap();
        let finished = status.success();
        if finished {
            self.stats.kills_too_late += 1;
        }
        *self.stats.kills.entry(kind).or_default() += 1;
        self.note(format!(
            "$ crabpath {} & kill -9 after {:.1} ms → {}",
            shell_words(args),
            delay.as_secs_f64() * 1000.0,
            if finished {
                "it had finished".to_string()
            } else {
                format!("killed ({status})")
            }
        ));
    }

    /// The fired ids of a query, in order.
    fn fired(&mut self, text: &str) -> Result<Vec<String>, Failure> {
        let out = self.must(Kind::Query, &["query", text, "--state", "brain", "--json"])?;
        let v: serde_json::Value = serde_json::from_str(out.trim()).map_err(|e| {
            fail(
                "`crabpath query --json` printed no JSON",
                format!("{e}\nstdout:\n{out}"),
            )
        })?;
        let fired = v["fired"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        Ok(fired)
    }

    /// The `learn` arguments of a window of the fired ids of a random query (`None`
    /// when fewer than two fired).
    fn learn_args(&mut self) -> Result<Option<Vec<String>>, Failure> {
        let q = self.query_text();
        let fired = self.fired(&q)?;
        if fired.len() < 2 {
            return Ok(None);
        }
        let len = self.rng.gen_range(2..=fired.len().min(4));
        let start = self.rng.gen_range(0..=fired.len() - len);
        let outcome = *["1", "-1", "0.5", "-0.5"].choose(&mut self.rng).unwrap();
        Ok(Some(vec![
            "learn".into(),
            "--state".into(),
            "brain".into(),
            format!("--outcome={outcome}"),
            "--fired-ids".into(),
            fired[start..start + len].join(","),
        ]))
    }

    fn inject_args(&mut self) -> Vec<String> {
        self.injected += 1;
        let kind = *["TEACHING", "DIRECTIVE", "CORRECTION"]
            .choose(&mut self.rng)
            .unwrap();
        let content = self.sentence();
        vec![
            "inject".into(),
            "--state".into(),
            "brain".into(),
            "--id".into(),
            format!("injected::{}", self.injected),
            "--content".into(),
            content,
            "--type".into(),
            kind.into(),
        ]
    }

    fn maintain_args(&mut self) -> Vec<String> {
        let mut a: Vec<String> = vec!["maintain".into(), "--state".into(), "brain".into()];
        let subset = self.rng.gen_bool(0.6);
        let mut tasks: Vec<&str> = MAINTAIN_TASKS
            .iter()
            .copied()
            .filter(|_| self.rng.gen_bool(0.5))
            .collect();
        if tasks.is_empty() {
            tasks.push(MAINTAIN_TASKS.choose(&mut self.rng).unwrap());
        }
        let left_out = |t: &&str| self.exclude.iter().any(|e| e == t);
        if !subset {
            tasks = DEFAULT_TASKS.to_vec();
        }
        if subset || MAINTAIN_TASKS.iter().any(left_out) {
            tasks.retain(|t| !left_out(t));
            if tasks.is_empty() {
                tasks.push("health");
            }
            a.push("--tasks".into());
            a.push(tasks.join(","));
        }
        // the signature of a failure names the tasks that remove nodes or edges
        let removing: Vec<&str> = ["prune", "merge"]
            .into_iter()
            .filter(|t| tasks.contains(t))
            .collect();
        self.what = match removing.is_empty() {
            true => format!("{} without prune or merge", self.what),
            false => format!("{} with {}", self.what, removing.join(" and ")),
        };
        if self.rng.gen_bool(0.3) {
            // (below the 0.5 of a new sibling edge: pruning them all leaves a brain
            // without edges, which `doctor` fails)
            let p = *["0.05", "0.2"].choose(&mut self.rng).unwrap();
            a.push(format!("--prune-below={p}"));
        }
        if self.rng.gen_bool(0.3) {
            let m = *["1", "20"].choose(&mut self.rng).unwrap();
            a.push(format!("--max-merges={m}"));
        }
        a
    }

    /// The snapshot names of `snapshot --list --json`.
    fn snapshots(&mut self) -> Result<Vec<String>, Failure> {
        let out = self.must(
            Kind::Snapshot,
            &["snapshot", "--state", "brain", "--list", "--json"],
        )?;
        let v: serde_json::Value = serde_json::from_str(out.trim()).map_err(|e| {
            fail(
                "`crabpath snapshot --list --json` printed no JSON",
                format!("{e}\nstdout:\n{out}"),
            )
        })?;
        Ok(v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The `rollback` arguments: the latest snapshot or a random one (`None` without
    /// any snapshot).
    fn rollback_args(&mut self) -> Result<Option<Vec<String>>, Failure> {
        let names = self.snapshots()?;
        if names.is_empty() {
            return Ok(None);
        }
        let mut a: Vec<String> = vec!["rollback".into(), "--state".into(), "brain".into()];
        if self.rng.gen_bool(0.5) {
            a.push("--to".into());
            a.push(names.choose(&mut self.rng).unwrap().clone());
        }
        Ok(Some(a))
    }

    fn export(&mut self, name: &str) -> Result<Vec<u8>, Failure> {
        let path = format!("exports/{name}.json");
        self.must(
            Kind::ExportImport,
            &["export", "--state", "brain", "--output", &path],
        )?;
        Ok(std::fs::read(self.d().join(&path)).unwrap())
    }

    fn begin(&mut self, n: usize, kind: Kind) {
        *self.stats.steps.entry(kind).or_default() += 1;
        self.log.push(format!("  {n:>3}. {}", kind.name()));
        self.what = kind.name().to_string();
    }

    /// Step 0: the workspace and `init`.
    fn init(&mut self) -> Step {
        self.begin(0, Kind::Init);
        let n = self.rng.gen_range(3..6);
        for k in 0..n {
            let doc = self.new_doc(k == 0);
            self.write_doc(&doc);
            self.note(format!("write ws/{} ({})", doc.rel, doc.shape()));
            self.docs.push(doc);
        }
        self.must(
            Kind::Reinit,
            &["init", "--workspace", "ws", "--output", "brain"],
        )?;
        Ok(())
    }

    /// Runs step `n`.
    fn step(&mut self, n: usize) -> Step {
        let allowed: Vec<(Kind, u32)> = WEIGHTS
            .iter()
            .copied()
            .filter(|(k, _)| !self.exclude.iter().any(|e| e == k.name()))
            .collect();
        let kind = allowed
            .choose_weighted(&mut self.rng, |(_, w)| *w)
            .unwrap()
            .0;
        self.begin(n, kind);
        match kind {
            Kind::Query => {
                let q = self.query_text();
                self.fired(&q)?;
            }
            Kind::Learn => match self.learn_args()? {
                Some(a) => {
                    self.must(Kind::Learn, &strs(&a))?;
                }
                None => self.note("(fewer than two fired: nothing to learn)"),
            },
            Kind::Inject => {
                let a = self.inject_args();
                self.must(Kind::Inject, &strs(&a))?;
            }
            Kind::Sync => {
                self.edits();
                self.must(
                    Kind::Sync,
                    &["sync", "--state", "brain", "--workspace", "ws"],
                )?;
            }
            Kind::Maintain => {
                let a = self.maintain_args();
                self.must(Kind::Maintain, &strs(&a))?;
            }
            Kind::Snapshot => {
                let name = format!("s{n}");
                self.must(
                    Kind::Snapshot,
                    &["snapshot", "--state", "brain", "--name", &name],
                )?;
            }
            Kind::Rollback => match self.rollback_args()? {
                Some(a) => {
                    self.must(Kind::Rollback, &strs(&a))?;
                }
                None => self.note("(no snapshot yet: nothing to roll back to)"),
            },
            Kind::ExportImport => {
                let name = format!("e{n}");
                let first = self.export(&name)?;
                let path = format!("exports/{name}.json");
                self.must(
                    Kind::ExportImport,
                    &["import", "--state", &path, "--output", "brain"],
                )?;
                let again = self.export(&format!("{name}-again"))?;
                if first != again {
                    return Err(fail(
                        "export → import → export changed the state file",
                        format!(
                            "exports/{name}.json ({} bytes) and exports/{name}-again.json ({} bytes) differ",
                            first.len(),
                            again.len()
                        ),
                    ));
                }
            }
            Kind::Reinit => {
                self.must(
                    Kind::Reinit,
                    &["init", "--workspace", "ws", "--output", "brain"],
                )?;
            }
            Kind::Kill => self.kill_step(n)?,
            Kind::Init => unreachable!("step 0 only"),
        }
        Ok(())
    }

    /// A random write command, killed at a random moment.
    fn kill_step(&mut self, n: usize) -> Step {
        let allowed: Vec<Kind> = KILLABLE
            .iter()
            .copied()
            .filter(|k| !self.exclude.iter().any(|e| e == k.name()))
            .collect();
        let Some(&target) = allowed.choose(&mut self.rng) else {
            self.note("(every killable command is left out)");
            return Ok(());
        };
        self.what = format!("kill {}", target.name());
        let args: Vec<String> = match target {
            Kind::Learn => match self.learn_args()? {
                Some(a) => a,
                None => {
                    self.note("(fewer than two fired: nothing to learn)");
                    return Ok(());
                }
            },
            Kind::Inject => self.inject_args(),
            Kind::Sync => {
                self.edits();
                strs_owned(&["sync", "--state", "brain", "--workspace", "ws"])
            }
            Kind::Maintain => self.maintain_args(),
            Kind::Snapshot => {
                strs_owned(&["snapshot", "--state", "brain", "--name", &format!("k{n}")])
            }
            Kind::Rollback => match self.rollback_args()? {
                Some(a) => a,
                None => {
                    self.note("(no snapshot yet: nothing to roll back to)");
                    return Ok(());
                }
            },
            Kind::ExportImport => {
                let name = format!("k{n}");
                self.export(&name)?;
                strs_owned(&[
                    "import",
                    "--state",
                    &format!("exports/{name}.json"),
                    "--output",
                    "brain",
                ])
            }
            Kind::Reinit => strs_owned(&["init", "--workspace", "ws", "--output", "brain"]),
            _ => unreachable!("not killable"),
        };
        self.kill_during(target, &strs(&args));
        Ok(())
    }

    /// The checks after every step: `doctor` passes, a query answers.
    fn check(&mut self) -> Step {
        let (rc, out, err) =
            common::run_text(self.d(), "corrected", &["doctor", "--state", "brain"]);
        if rc != 0 {
            let failed: Vec<&str> = out.lines().filter(|l| l.contains(": FAIL")).collect();
            let sig = if failed.is_empty() {
                format!("doctor exit {rc}: {}", first_line(&err))
            } else {
                format!(
                    "doctor: {}",
                    failed
                        .iter()
                        .map(|l| l.trim())
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            };
            return Err(fail(sig, format!("doctor exit {rc}\n{out}{err}")));
        }
        // every chunk holds one of these words (the titles `# Notes <file>` and the
        // headings `## Part <k>` too), so a brain with nodes fires at least one
        let q = format!("notes part {}", WORDS.join(" "));
        let (rc, out, err) = common::run_text(
            self.d(),
            "corrected",
            &["query", &q, "--state", "brain", "--json"],
        );
        let fired = serde_json::from_str::<serde_json::Value>(out.trim())
            .ok()
            .and_then(|v| v["fired"].as_array().map(Vec::len));
        if rc != 0 || fired.is_none_or(|n| n == 0) || err.contains("panicked") {
            return Err(fail(
                format!("query after the step: exit {rc}, {}", first_line(&err)),
                format!("$ crabpath query '{q}' --state brain --json → {rc}\nstdout:\n{out}\nstderr:\n{err}"),
            ));
        }
        Ok(())
    }

    /// The report of a failure at step `n` (`kept`: its directory is kept).
    fn report(&self, n: usize, f: &Failure, kept: bool) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "sequence of seed {} failed at step {n}: {}\nreplay: CRABPATH_SEQ_SEED={} CRABPATH_SEQ_CASES=1 CRABPATH_SEQ_STEPS={n} cargo test -p crabpath-cli --test it sequences::\nsteps (run in {}{}):",
            self.seed,
            f.signature,
            self.seed,
            self.d().display(),
            if kept { ", kept" } else { ", removed" }
        );
        for l in &self.log {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(s, "{}", f.details);
        s
    }
}

fn strs(a: &[String]) -> Vec<&str> {
    a.iter().map(String::as_str).collect()
}

fn strs_owned(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

/// The arguments as a shell would need them (quoted when they hold spaces).
fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many failed sequences keep their scratch directory.
const KEPT: usize = 3;

/// Runs one sequence; a failure goes into `stats`.
fn run_sequence(seed: u64, steps: usize, exclude: &[String], stats: &mut Stats) {
    let mut seq = Seq::new(seed, exclude, stats);
    let mut outcome = seq.init().and_then(|_| seq.check()).map_err(|f| (0, f));
    if outcome.is_ok() {
        for n in 1..=steps {
            if let Err(f) = seq.step(n).and_then(|_| seq.check()) {
                outcome = Err((n, f));
                break;
            }
        }
    }
    seq.stats.sequences += 1;
    if let Err((n, f)) = outcome {
        // the brain and workspace of the first three failures are kept for a look
        let keep = seq.stats.failures.len() < KEPT;
        let report = seq.report(n, &f, keep);
        // (numbers, thread ids and snapshot times, replaced: one entry per kind of
        // failure)
        let signature = format!("after {}: {}", seq.what, f.signature)
            .replace(|c: char| c.is_ascii_digit(), "#");
        seq.stats
            .signatures
            .entry(signature)
            .or_default()
            .push(seed);
        seq.stats.failures.push(report);
        if keep {
            let _ = seq.dir.keep();
        }
    }
}

#[test]
fn random_sequences_keep_the_brain_sound() {
    let cases = env_num("CRABPATH_SEQ_CASES", 6);
    let steps = env_num("CRABPATH_SEQ_STEPS", 30) as usize;
    let seed0 = env_num("CRABPATH_SEQ_SEED", 33);
    let exclude: Vec<String> = std::env::var("CRABPATH_SEQ_EXCLUDE")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    for e in &exclude {
        assert!(
            WEIGHTS.iter().any(|(k, _)| k.name() == e) || MAINTAIN_TASKS.contains(&e.as_str()),
            "CRABPATH_SEQ_EXCLUDE: no step kind or maintain task `{e}`"
        );
    }
    let t = Instant::now();
    let mut stats = Stats::default();
    for i in 0..cases {
        run_sequence(seed0 + i, steps, &exclude, &mut stats);
    }
    let total: u64 = stats.steps.values().sum();
    let mut summary = format!(
        "{} sequences of up to {steps} steps from seed {seed0} in {:.1} s: {total} steps (",
        stats.sequences,
        t.elapsed().as_secs_f64()
    );
    summary += &stats
        .steps
        .iter()
        .map(|(k, n)| format!("{} {n}", k.name()))
        .collect::<Vec<_>>()
        .join(", ");
    let kills: u64 = stats.kills.values().sum();
    summary += &format!(
        "); {kills} kills ({}; {} had finished first); {} failed sequences, {} distinct failures",
        stats
            .kills
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect::<Vec<_>>()
            .join(", "),
        stats.kills_too_late,
        stats.failures.len(),
        stats.signatures.len()
    );
    if !exclude.is_empty() {
        summary += &format!(" (left out: {})", exclude.join(", "));
    }
    println!("{summary}");
    for (sig, seeds) in &stats.signatures {
        println!("  {sig} (seeds {seeds:?})");
    }
    assert!(
        stats.failures.is_empty(),
        "{summary}\ndistinct failures:\n{}\n\nthe first failed sequence:\n{}",
        stats
            .signatures
            .iter()
            .map(|(s, seeds)| format!("  {s} (seeds {seeds:?})"))
            .collect::<Vec<_>>()
            .join("\n"),
        stats.failures[0]
    );
}

// Regression tests of the failures the sequences found in snapshot and rollback.

/// A brain of a workspace of `files` Markdown files of 4 sections each (5 chunks), in
/// `dir/brain`.
fn small_brain(dir: &Path, files: usize) {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for f in 0..files {
        let mut t = format!("# File {f}\n\n");
        for k in 0..4 {
            t.push_str(&format!(
                "## Part {k}\n{} {} and more\n\n",
                WORDS[(f + k) % WORDS.len()],
                WORDS[(3 * f + k) % WORDS.len()]
            ));
        }
        std::fs::write(ws.join(format!("f{f}.md")), t).unwrap();
    }
    let (rc, _, err) = common::run_text(
        dir,
        "corrected",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (rc, out, err) = common::run_text(dir, "corrected", args);
    assert_eq!(rc, 0, "{args:?}: {out}{err}");
    out
}

/// `snapshot` killed at random moments (seeded; 40 trials within a span that follows
/// the command's duration on this machine: longer after a kill that came before the
/// snapshot was listed, shorter after one that came too late) leaves either no snapshot of that name or a whole one: `rollback` to any listed
/// snapshot works. It wrote the snapshot in place (`VACUUM INTO snapshots/<name>.db`),
/// so a kill half-way left a truncated `<name>.db` that `snapshot --list` showed and
/// `rollback` (the latest by default) refused: "not a brain database (not a SQLite
/// file)" (sequence seed 44, step 12, found it).
#[test]
fn a_snapshot_killed_at_any_moment_is_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_brain(d, 40); // 200 nodes: a snapshot takes long enough to be cut
    let t = Instant::now();
    ok(d, &["snapshot", "--state", "brain", "--name", "whole"]);
    let mut span = t.elapsed();
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let (mut cut, mut listed) = (0, 0);
    for k in 0..40 {
        let name = format!("k{k}");
        let mut child = common::command(
            d,
            "corrected",
            &["snapshot", "--state", "brain", "--name", &name],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(span.mul_f64(rng.gen_range(0.0..1.0)));
        let _ = child.kill();
        if !child.wait().unwrap().success() {
            cut += 1;
        }
        let list = ok(d, &["snapshot", "--state", "brain", "--list"]);
        if !list
            .lines()
            .any(|l| l.split_whitespace().next() == Some(&name))
        {
            span = span.mul_f64(1.25);
        } else {
            span = span.mul_f64(0.9);
            listed += 1;
            ok(d, &["rollback", "--state", "brain", "--to", &name]);
            ok(d, &["doctor", "--state", "brain"]);
        }
    }
    // the kills landed both before and after the snapshot was complete
    assert!(cut > 0 && listed > 0, "cut {cut}, listed {listed} of 40");
}

/// Every `rollback` keeps the state it replaces. Two rollbacks within one second
/// named their backups alike (`before-rollback-<time to the second>`), and the second
/// reused the first's file: the state between them was lost, though the second said
/// it was kept there. Here the backups of the next 30 seconds exist already (taken
/// before a `learn`), as a rollback within the same second finds them.
#[test]
fn a_rollback_keeps_the_state_it_replaces_even_within_the_same_second() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_brain(d, 2);
    ok(d, &["snapshot", "--state", "brain", "--name", "base"]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    for s in now..now + 30 {
        let name = format!(
            "before-rollback-{}",
            crabpath_brain::reference::snapshot::default_name(s)
        );
        ok(d, &["snapshot", "--state", "brain", "--name", &name]);
    }
    ok(
        d,
        &[
            "learn",
            "--state",
            "brain",
            "--outcome",
            "1",
            "--fired-ids",
            "f0.md::1,f1.md::3",
        ],
    );
    ok(
        d,
        &["export", "--state", "brain", "--output", "learned.json"],
    );
    let out = ok(
        d,
        &["rollback", "--state", "brain", "--to", "base", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let backup = Path::new(v["backup"].as_str().unwrap())
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    ok(d, &["rollback", "--state", "brain", "--to", &backup]);
    ok(
        d,
        &["export", "--state", "brain", "--output", "restored.json"],
    );
    assert!(
        std::fs::read(d.join("learned.json")).unwrap()
            == std::fs::read(d.join("restored.json")).unwrap(),
        "the backup {backup} does not hold the state the rollback replaced"
    );
}
