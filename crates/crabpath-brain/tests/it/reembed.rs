//! `reembed` (issue 28, item 7; seed 003 §6.3): a brain database changes embedder in
//! place and keeps what it learned, resumably, and a `kill -9` at any moment leaves the
//! old brain or the new one, never a mix.
//!
//! No model is needed: the new embedder is [`Folded`], hash-v1 folded to a few dense
//! dimensions (another name, dimension and layout than hash-v1, as MiniLM would be).

use crate::common;

use common::kept::{dump, kept};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::profile::Profile;
use crabpath_brain::reference::embedder::EmbedderInfo;
use crabpath_brain::service::command::doctor::doctor_store;
use crabpath_brain::service::command::reembed::{pending, ReembedOptions, ReembedReport};
use crabpath_brain::service::EmbedderLoader;
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::store::codec::encode_vector;
use crabpath_brain::store::Layout;
use crabpath_brain::{locate, Brain, OpenOptions, QueryRequest};
use rusqlite::types::Value;

/// hash-v1 folded to `dim` dense dimensions (component `i` is the sum of hash-v1's
/// components `j` with `j % dim == i`); waits `delay` per batch and fails from batch
/// `fail_from` on, when asked; counts the texts it embedded.
struct Folded {
    dim: usize,
    delay: Duration,
    fail_from: Option<usize>,
    calls: AtomicUsize,
    texts: AtomicUsize,
    name: String,
}

impl Folded {
    fn new(dim: usize) -> Folded {
        Folded {
            dim,
            delay: Duration::ZERO,
            fail_from: None,
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
            name: format!("folded-{dim}"),
        }
    }

    fn info(&self) -> EmbedderInfo {
        EmbedderInfo {
            name: self.name.clone(),
            dim: self.dim,
        }
    }

    fn fold(&self, text: &str) -> Vec<f64> {
        let h = HashEmbedder::new().embed(text).unwrap();
        let mut v = vec![0.0; self.dim];
        for (j, x) in h.iter().enumerate() {
            v[j % self.dim] += x;
        }
        v
    }
}

impl Embedder for Folded {
    fn name(&self) -> &str {
        &self.name
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail_from.is_some_and(|f| call >= f) {
            return Err(crabpath::Error::Embed {
                name: self.name.clone(),
                message: "interrupted on purpose".into(),
            });
        }
        std::thread::sleep(self.delay);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts.iter().map(|t| self.fold(t)).collect())
    }
}

/// 40 files of a title and three sections: 40 × 4 = 160 nodes (one chunk per title
/// and per section, corrected split), each with words of its own.
fn workspace(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for i in 0..40 {
        std::fs::write(
            ws.join(format!("f{i:02}.md")),
            format!(
                "# File {i}\n\n## Deploy\ndeploy step{i} to server{i} with care\n\n## Archive\nextract tar archive{i} into folder{i}\n\n## Notes\nnote{i} about topic{} and topic{}\n",
                i % 7,
                i % 5
            ),
        )
        .unwrap();
    }
    ws
}

/// A hash-v1 brain of [`workspace`] in `dir/brain` that has learned: queries recorded in
/// a conversation's log, outcomes learned on their fired nodes (weights changed), a
/// teaching (a node and a ledger row). Returns the database.
fn learned_brain(dir: &Path) -> PathBuf {
    let ws = workspace(dir);
    let boot = split_workspace(&ws, &SplitOptions::new(Profile::Corrected)).unwrap();
    let db = common::hash_store(&dir.join("brain"), &boot.graph);
    let mut brain = common::open_hash(&db, Profile::Corrected, false);
    // a fixed graph: the counts below are of the folder's chunks and the teaching
    brain.set_neurogenesis(false).unwrap();
    for (i, q) in ["deploy step3", "extract tar archive", "note about topic2"]
        .iter()
        .enumerate()
    {
        let (fired, record) = {
            let answer = brain.query(&QueryRequest::new(q, 6)).unwrap();
            let fired: Vec<String> = answer.fired().iter().map(|s| s.to_string()).collect();
            (fired, answer.turn_record(q))
        };
        brain.record_turn("chat-1", record).unwrap();
        let outcome = if i == 1 { -1.0 } else { 1.0 };
        brain.learn(&fired, outcome).unwrap();
    }
    brain
        .teach(
            "always deploy with the checklist",
            "TEACHING",
            Some("chat-1"),
            "test",
        )
        .unwrap();
    db
}

/// The vectors (`seq`, `sym`, blob in index order), the `brain` row's layout and
/// dimension, the embedder `meta` records.
#[derive(Debug, Clone, PartialEq)]
struct Vectors {
    rows: Vec<Vec<Value>>,
    layout: String,
    dim: i64,
    embedder: Option<EmbedderInfo>,
}

fn vectors(db: &Path) -> Vectors {
    let c = rusqlite::Connection::open(db).unwrap();
    let (layout, dim) = c
        .query_row("SELECT layout, dim FROM brain", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    Vectors {
        rows: dump(&c, "SELECT seq, sym, v FROM vectors ORDER BY seq"),
        layout,
        dim,
        embedder: EmbedderInfo::from_meta(&crabpath_brain::store::rows::load_meta(&c).unwrap()),
    }
}

/// The vectors `embedder` gives the nodes' texts, in the layout of its name, with the
/// `seq` and `sym` of `before` (what a finished reembed must hold).
fn expected(db: &Path, embedder: &dyn Embedder, layout: Layout) -> Vec<Vec<Value>> {
    let c = rusqlite::Connection::open(db).unwrap();
    let rows = dump(
        &c,
        "SELECT v.seq, v.sym, n.content, json_extract(n.metadata, '$.doc') FROM vectors v JOIN nodes n ON n.sym = v.sym ORDER BY v.seq",
    );
    rows.into_iter()
        .map(|r| {
            let Value::Text(t) = &r[2] else {
                panic!("a node without a text: {r:?}")
            };
            // what init embeds: a folder chunk with its document header
            let header = match &r[3] {
                Value::Text(h) => Some(h.as_str()),
                _ => None,
            };
            let text = crabpath_brain::source::embedtext::embedded_text_of(header, t);
            let blob = encode_vector(&embedder.embed(&text).unwrap(), layout);
            vec![r[0].clone(), r[1].clone(), Value::Blob(blob)]
        })
        .collect()
}

fn loader(e: impl Fn() -> Box<dyn Embedder> + Send + Sync + 'static) -> EmbedderLoader {
    Arc::new(move || Ok(e()))
}

fn open_with(db: &Path, l: EmbedderLoader) -> Brain {
    let mut o = OpenOptions::new(Profile::Corrected);
    o.embedder = Some(l);
    Brain::open(locate(db), o).unwrap()
}

fn run(
    db: &Path,
    e: &dyn Embedder,
    info: EmbedderInfo,
    batch: usize,
) -> crabpath_brain::Result<ReembedReport> {
    let mut brain = open_with(db, loader(|| Box::new(HashEmbedder::new())));
    brain.reembed(&ReembedOptions {
        embedder: e,
        info,
        batch,
        progress: None,
    })
}

/// `doctor` of the database, with hash-v1 and [`Folded`] as the embedders it knows.
fn doctor_passes(db: &Path) {
    let resolve = |meta: &crabpath::graph::Metadata| {
        let info = EmbedderInfo::from_meta(meta).ok_or("no embedder recorded")?;
        let l: EmbedderLoader = if info == EmbedderInfo::hash_v1() {
            loader(|| Box::new(HashEmbedder::new()))
        } else {
            let dim = info.dim;
            loader(move || Box::new(Folded::new(dim)))
        };
        Ok((info, l))
    };
    let report = doctor_store(db, "test", &resolve);
    let failed: Vec<_> = report.checks.iter().filter(|c| !c.ok).collect();
    assert!(
        failed.is_empty(),
        "{}: doctor fails: {failed:?}",
        db.display()
    );
}

#[test]
fn reembed_keeps_what_was_learned_and_answers_with_the_new_embedder() {
    let dir = tempfile::tempdir().unwrap();
    let db = learned_brain(dir.path());
    let before = kept(&db);
    let old = vectors(&db);
    assert_eq!(old.layout, "sparse");
    // 160 chunks (see `workspace`) and the teaching
    assert_eq!(old.rows.len(), 161);
    let folded = Folded::new(16);
    let report = run(&db, &folded, folded.info(), 7).unwrap();
    assert_eq!((report.nodes, report.resumed_from), (161, 0));
    assert_eq!(report.from, Some(EmbedderInfo::hash_v1()));
    // every text embedded once
    assert_eq!(folded.texts.load(Ordering::SeqCst), 161);
    assert_eq!(
        kept(&db),
        before,
        "nodes, edges, journal, turns, ledger or meta changed"
    );
    let now = vectors(&db);
    assert_eq!(now.layout, "dense");
    assert_eq!(now.dim, 16);
    assert_eq!(now.embedder, Some(folded.info()));
    assert_eq!(now.rows, expected(&db, &folded, Layout::Dense));
    assert!(
        !dir.path().join("brain/search.idx").exists(),
        "a dense brain has no search.idx"
    );
    // the side table's and the old vectors' pages are given back (3 free pages without it)
    let free: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .unwrap();
    assert_eq!(free, 0);
    doctor_passes(&db);

    // queries embed with the new embedder; the old one is refused (another dimension)
    let mut brain = open_with(&db, loader(|| Box::new(Folded::new(16))));
    let answer = brain
        .query(&QueryRequest::new("extract tar archive7", 4))
        .unwrap();
    assert!(!answer.fired().is_empty());
    drop(answer);
    let mut stale = open_with(&db, loader(|| Box::new(HashEmbedder::new())));
    let e = stale
        .query(&QueryRequest::new("extract tar archive7", 4))
        .err()
        .unwrap();
    assert!(e.to_string().contains("dimensions"), "{e}");
    // a teaching after the reembed is embedded with the new embedder
    let t = brain
        .teach("archive everything twice", "TEACHING", None, "test")
        .unwrap();
    assert!(t.injected);
    drop(brain);
    assert_eq!(vectors(&db).rows, expected(&db, &folded, Layout::Dense));

    // and back to hash-v1: the vectors `init` made, bit for bit
    let with_teaching = kept(&db);
    let report = run(&db, &HashEmbedder::new(), EmbedderInfo::hash_v1(), 50).unwrap();
    assert_eq!(report.nodes, 162);
    let back = vectors(&db);
    assert_eq!(back.layout, "sparse");
    assert_eq!(
        back.rows[..161],
        old.rows[..],
        "hash-v1 vectors differ from init's"
    );
    assert_eq!(
        back.rows,
        expected(&db, &HashEmbedder::new(), Layout::Sparse)
    );
    assert_eq!(kept(&db), with_teaching);
    assert!(
        dir.path().join("brain/search.idx").exists(),
        "search.idx not rebuilt"
    );
    doctor_passes(&db);
}

#[test]
fn a_resident_brain_follows_a_reembed_by_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let db = learned_brain(dir.path());
    // the daemon's loader: the embedder the brain records when it is called (as the
    // command line's `open_serving` does)
    let mut o = OpenOptions::new(Profile::Corrected);
    o.resident = true;
    let recorded = db.clone();
    o.embedder = Some(Arc::new(move || {
        let c = rusqlite::Connection::open(&recorded).unwrap();
        let meta = crabpath_brain::store::rows::load_meta(&c).unwrap();
        let info = EmbedderInfo::from_meta(&meta).unwrap();
        Ok(if info == EmbedderInfo::hash_v1() {
            Box::new(HashEmbedder::new()) as Box<dyn Embedder>
        } else {
            Box::new(Folded::new(info.dim))
        })
    }));
    let mut daemon = Brain::open(locate(&db), o).unwrap();
    // loaded before the reembed, as a daemon loads it at start
    assert_eq!(daemon.embedder().unwrap().name(), "hash-v1");
    let folded = Folded::new(16);
    run(&db, &folded, folded.info(), 64).unwrap();
    // the resident searcher reloads the new vectors in their new layout
    let fired: Vec<String> = {
        let a = daemon
            .query(&QueryRequest::new("extract tar archive7", 4))
            .unwrap();
        a.fired().iter().map(|s| s.to_string()).collect()
    };
    let mut fresh = open_with(&db, loader(|| Box::new(Folded::new(16))));
    let want: Vec<String> = {
        let a = fresh
            .query(&QueryRequest::new("extract tar archive7", 4))
            .unwrap();
        a.fired().iter().map(|s| s.to_string()).collect()
    };
    assert!(!want.is_empty());
    assert_eq!(fired, want);
    // and its writes use the new layout and dimension
    daemon
        .teach("archive everything twice", "TEACHING", None, "test")
        .unwrap();
    drop(daemon);
    assert_eq!(vectors(&db).rows, expected(&db, &folded, Layout::Dense));
    doctor_passes(&db);
}

#[test]
fn hash_to_hash_rewrites_the_same_vectors_and_bumps_the_epoch() {
    let dir = tempfile::tempdir().unwrap();
    let db = learned_brain(dir.path());
    let (before, old) = (kept(&db), vectors(&db));
    let epoch = |db: &Path| -> i64 {
        rusqlite::Connection::open(db)
            .unwrap()
            .query_row("SELECT vectors FROM brain", [], |r| r.get(0))
            .unwrap()
    };
    let e0 = epoch(&db);
    run(&db, &HashEmbedder::new(), EmbedderInfo::hash_v1(), 256).unwrap();
    assert_eq!(vectors(&db), old);
    assert_eq!(kept(&db), before);
    assert_eq!(epoch(&db), e0 + 1);
    doctor_passes(&db);
}

#[test]
fn an_interrupted_reembed_resumes_and_another_embedder_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let db = learned_brain(dir.path());
    let (before, old) = (kept(&db), vectors(&db));
    // batches of 10; the third embed call fails: 20 vectors committed, nothing swapped
    let mut failing = Folded::new(16);
    failing.fail_from = Some(2);
    let e = run(&db, &failing, failing.info(), 10).err().unwrap();
    assert!(e.to_string().contains("interrupted on purpose"), "{e}");
    assert_eq!(
        vectors(&db),
        old,
        "the old brain must answer until the swap"
    );
    assert_eq!(kept(&db), before);
    let c = rusqlite::Connection::open(&db).unwrap();
    let p = pending(&c).unwrap().unwrap();
    assert_eq!((p.done, p.total), (20, 161));
    assert_eq!(p.target, Some(failing.info()));
    assert!(p.to_string().contains("20 of 161 nodes"), "{p}");
    drop(c);
    doctor_passes(&db);

    // a node added between the runs is embedded too
    let mut brain = common::open_hash(&db, Profile::Corrected, false);
    brain
        .teach("between the two runs", "TEACHING", None, "test")
        .unwrap();
    drop(brain);
    let before = kept(&db);

    // another embedder: starts over
    let other = Folded::new(8);
    let mut other_failing = Folded::new(8);
    other_failing.fail_from = Some(1);
    run(&db, &other_failing, other.info(), 10).err().unwrap();
    let c = rusqlite::Connection::open(&db).unwrap();
    let p = pending(&c).unwrap().unwrap();
    assert_eq!((p.done, p.total, p.target), (10, 162, Some(other.info())));
    drop(c);
    // back to the first target: the 8-dimension rows are dropped, nothing resumed
    let folded = Folded::new(16);
    let report = run(&db, &folded, folded.info(), 10).unwrap();
    assert_eq!(report.resumed_from, 0);
    assert_eq!(folded.texts.load(Ordering::SeqCst), 162);
    assert_eq!(vectors(&db).rows, expected(&db, &folded, Layout::Dense));
    assert_eq!(kept(&db), before);

    // the same target resumes: only the rest is embedded
    let mut failing = Folded::new(8);
    failing.fail_from = Some(3);
    run(&db, &failing, failing.info(), 10).err().unwrap();
    let resumed = Folded::new(8);
    let report = run(&db, &resumed, resumed.info(), 10).unwrap();
    assert_eq!((report.nodes, report.resumed_from), (162, 30));
    assert_eq!(resumed.texts.load(Ordering::SeqCst), 162 - 30);
    assert_eq!(vectors(&db).rows, expected(&db, &resumed, Layout::Dense));
    assert!(pending(&rusqlite::Connection::open(&db).unwrap())
        .unwrap()
        .is_none());
    doctor_passes(&db);
}

#[test]
fn a_brain_with_no_nodes_takes_the_new_embedder() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::hash_store(&dir.path().join("brain"), &crabpath::Graph::new());
    let folded = Folded::new(16);
    let report = run(&db, &folded, folded.info(), 10).unwrap();
    assert_eq!((report.nodes, report.resumed_from), (0, 0));
    let v = vectors(&db);
    assert_eq!((v.layout.as_str(), v.dim), ("dense", 16));
    assert_eq!(v.embedder, Some(folded.info()));
    assert!(v.rows.is_empty());
    assert_eq!(folded.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn a_state_file_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let graph = crabpath::Graph::new();
    crabpath_brain::service::save_state_file(
        &state,
        &crabpath::state::State::new(graph, Default::default()),
    )
    .unwrap();
    let before = std::fs::read(&state).unwrap();
    let mut brain = open_with(&state, loader(|| Box::new(HashEmbedder::new())));
    let e = brain
        .reembed(&ReembedOptions {
            embedder: &HashEmbedder::new(),
            info: EmbedderInfo::hash_v1(),
            batch: 10,
            progress: None,
        })
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("import it first"), "{e}");
    assert!(!e.contains('\n'));
    assert_eq!(std::fs::read(&state).unwrap(), before);
}

/// The environment variable naming the database the child process re-embeds.
const CHILD_DB: &str = "CRABPATH_TEST_REEMBED_DB";

/// The child process of [`kill_9_at_seeded_moments_leaves_old_or_new`]: re-embeds the
/// database it is given with [`Folded`] (16 dimensions) in batches of 4, 5 ms a batch,
/// until it is killed. It is an entry point, not a test: run without [`CHILD_DB`] (as
/// `cargo test -- --ignored` runs every ignored test) it does nothing.
#[test]
#[ignore = "the child process of kill_9_at_seeded_moments_leaves_old_or_new, which starts it"]
fn reembed_child() {
    let Some(db) = std::env::var_os(CHILD_DB) else {
        return;
    };
    let mut folded = Folded::new(16);
    folded.delay = Duration::from_millis(5);
    run(Path::new(&db), &folded, folded.info(), 4).unwrap();
}

/// Trials, each killed at a seeded moment of the run.
const TRIALS: u64 = 24;

#[test]
fn kill_9_at_seeded_moments_leaves_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = learned_brain(d);
    let (before, old) = (kept(&db), vectors(&db));
    let folded = Folded::new(16);
    let new_rows = expected(&db, &folded, Layout::Dense);
    let exe = std::env::current_exe().unwrap();
    let child = |db: &Path| {
        std::process::Command::new(&exe)
            .args([
                "--exact",
                "reembed::reembed_child",
                "--ignored",
                "--test-threads=1",
            ])
            .env(CHILD_DB, db)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    // a run to the end: its length spans the kill moments
    let full = d.join("full");
    copy_brain(&db, &full);
    let t = Instant::now();
    let status = child(&full.join("brain.db")).wait().unwrap();
    assert!(status.success());
    let span = t.elapsed() + Duration::from_millis(20);
    assert_eq!(vectors(&full.join("brain.db")).rows, new_rows);
    let mut seen = (0, 0);
    let mut partial = 0;
    // moments from a fixed seed (SplitMix64), uniform over the run
    let mut state = 0x5EED_0028u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for k in 0..TRIALS {
        let trial = d.join(format!("t{k}"));
        copy_brain(&db, &trial);
        let tdb = trial.join("brain.db");
        let mut c = child(&tdb);
        let at = span.mul_f64((next() >> 11) as f64 / (1u64 << 53) as f64);
        std::thread::sleep(at);
        let _ = c.kill(); // SIGKILL
        c.wait().unwrap();
        assert_eq!(
            kept(&tdb),
            before,
            "trial {k} ({at:?}): learned rows changed"
        );
        let now = vectors(&tdb);
        if now == old {
            seen.0 += 1;
        } else {
            assert_eq!(
                now.rows, new_rows,
                "trial {k} ({at:?}): neither old nor new vectors"
            );
            assert_eq!((now.layout.as_str(), now.dim), ("dense", 16));
            assert_eq!(
                now.embedder,
                Some(folded.info()),
                "trial {k}: vectors and meta disagree"
            );
            seen.1 += 1;
        }
        doctor_passes(&tdb);
        let done = pending(&rusqlite::Connection::open(&tdb).unwrap())
            .unwrap()
            .map_or(0, |p| p.done);
        if done > 0 {
            partial += 1;
        }
        // a rerun finishes it, resuming from the batches the killed run committed
        let rerun = Folded::new(16);
        let report = run(&tdb, &rerun, rerun.info(), 4).unwrap();
        assert_eq!((report.nodes, report.resumed_from), (161, done));
        assert_eq!(vectors(&tdb).rows, new_rows, "trial {k}: the rerun");
        assert_eq!(kept(&tdb), before);
        doctor_passes(&tdb);
    }
    assert_eq!(seen.0 + seen.1, TRIALS as usize);
    eprintln!("old/new after the kill: {seen:?}; killed with batches committed: {partial}");
    assert!(seen.0 > 0, "no kill landed before the swap: {seen:?}");
    assert!(partial > 0, "no kill landed between two batches");
}

/// Copies a brain database (with its write-ahead log, if any) into `dir`.
fn copy_brain(db: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let src = db.parent().unwrap();
    for name in ["brain.db", "brain.db-wal", "search.idx"] {
        if src.join(name).exists() {
            std::fs::copy(src.join(name), dir.join(name)).unwrap();
        }
    }
}
