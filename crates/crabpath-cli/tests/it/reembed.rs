//! `crabpath reembed --state B --embedder X` through the program (issue 28, item 7;
//! seed 003 §6.3): the summary line, one-line errors, `kill -9` at seeded moments
//! leaving a brain that `doctor` passes and that a rerun finishes from where it was
//! killed, with the learned rows byte for byte as they were. The MiniLM test (old or
//! new embedder, never a mix, through the program) needs the model and is ignored
//! without it.

use crate::common;
use crate::kept;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rusqlite::types::Value;

/// `n` files of a title and two sections (3 chunks each).
fn workspace(dir: &Path, n: usize) -> PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for i in 0..n {
        std::fs::write(
            ws.join(format!("f{i:03}.md")),
            format!(
                "# File {i}\n\n## Deploy\ndeploy step{i} to server{i} with care\n\n## Archive\nextract tar archive{i} into folder{i}\n"
            ),
        )
        .unwrap();
    }
    ws
}

/// `reembed --state brain --embedder <embedder> --batch <batch>`.
fn reembed_args<'a>(embedder: &'a str, batch: &'a str) -> [&'a str; 7] {
    [
        "reembed",
        "--state",
        "brain",
        "--embedder",
        embedder,
        "--batch",
        batch,
    ]
}

fn ok(dir: &Path, args: &[&str]) -> String {
    ok_cached(dir, args, None)
}

/// [`ok`] with MiniLM's embedding cache in `cache` (a new directory: nothing cached,
/// so that every run embeds, as a first reembed does).
fn ok_cached(dir: &Path, args: &[&str], cache: Option<&Path>) -> String {
    let mut c = common::command(dir, "corrected", args);
    if let Some(cache) = cache {
        c.env(crabpath_embed::cache::CACHE_DIR_ENV, cache);
    }
    let o = c.output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{args:?}: {out}{err}");
    out
}

/// A scratch directory with a brain of [`workspace`] (`files` files) in `brain` that
/// has learned: outcomes on the nodes queries fired (weights changed, journal
/// entries) and a teaching. Returns the directory and the database.
fn learned(files: usize) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    workspace(dir, files);
    ok(dir, &["init", "--workspace", "ws", "--output", "brain"]);
    for (q, outcome) in [("deploy step3", "1"), ("extract tar archive", "-1")] {
        let out = ok(dir, &["query", q, "--state", "brain", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let fired: Vec<String> = v["fired"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        ok(
            dir,
            &[
                "learn",
                "--state",
                "brain",
                "--outcome",
                outcome,
                "--fired-ids",
                &fired.join(","),
            ],
        );
    }
    ok(
        dir,
        &[
            "inject",
            "--state",
            "brain",
            "--id",
            "teaching::checklist",
            "--content",
            "always deploy with the checklist",
            "--type",
            "TEACHING",
        ],
    );
    let db = dir.join("brain/brain.db");
    (tmp, db)
}

/// What a reembed keeps (nodes, edges, journal, turns, ledger, `meta` but the
/// embedder's keys), and the vectors with the `brain` row's layout and dimension and
/// the recorded embedder — every column as SQLite holds it.
fn rows(db: &Path) -> (kept::Tables, kept::Tables) {
    let c = kept::open(db);
    let vectors = [
        "SELECT seq, sym, v FROM vectors ORDER BY seq",
        "SELECT layout, dim FROM brain",
        "SELECT key, value FROM meta WHERE key IN ('embedder_name', 'embedder_dim') ORDER BY key",
    ]
    .iter()
    .map(|q| kept::dump(&c, q))
    .collect();
    (kept::kept(db), vectors)
}

/// The new vectors an unfinished reembed has committed (0 without one).
fn committed(db: &Path) -> usize {
    let c = rusqlite::Connection::open(db).unwrap();
    crabpath_brain::service::command::reembed::pending(&c)
        .unwrap()
        .map_or(0, |p| p.done)
}

/// `doctor` passes; returns its report.
fn doctor_passes(dir: &Path) -> String {
    let (rc, out, err) = common::run_text(dir, "corrected", &["doctor", "--state", "brain"]);
    assert_eq!(rc, 0, "doctor:\n{out}{err}");
    assert!(!out.contains("FAIL"), "{out}");
    out
}

/// The summary line's numbers: nodes re-embedded and resumed from.
fn summary(out: &str) -> (usize, usize) {
    let line = out.lines().last().unwrap_or_default();
    let num = |after: &str| -> usize {
        let rest = &line[line.find(after).unwrap_or_else(|| panic!("{line}")) + after.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (num("Re-embedded "), num("resumed from "))
}

#[test]
fn reembed_keeps_the_learned_rows_and_says_what_it_did() {
    let (dir, db) = learned(20);
    let d = dir.path();
    let before = rows(&db);
    let out = ok(d, &reembed_args("hash", "7"));
    // 20 files × 3 chunks, and the teaching
    assert_eq!(summary(&out), (61, 0), "{out}");
    assert!(
        out.contains("with hash-v1 (dim=1024) (was hash-v1 (dim=1024))"),
        "{out}"
    );
    // hash-v1 again: the same vectors, bit for bit
    assert_eq!(rows(&db), before);
    doctor_passes(d);
    // the name a brain records is accepted too, and --json
    let out = ok(
        d,
        &[
            "reembed",
            "--state",
            "brain/brain.db",
            "--embedder",
            "hash-v1",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["nodes"].as_u64(), v["resumed_from"].as_u64()),
        (Some(61), Some(0))
    );
    assert_eq!(rows(&db), before);
    ok(d, &["query", "deploy step3", "--state", "brain"]);
}

#[test]
fn help_explains_every_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(dir.path(), &["reembed", "--help"]);
    for flag in ["--state", "--embedder", "--batch", "--json"] {
        assert!(out.contains(flag), "{flag} missing from:\n{out}");
    }
    assert!(out.contains("Run the same command again"), "{out}");
}

#[test]
fn bad_arguments_give_one_line_and_write_nothing() {
    let (dir, db) = learned(3);
    let d = dir.path();
    let before = rows(&db);
    let one_line = |args: &[&str], says: &str| {
        let (rc, out, err) = common::run_text(d, "corrected", args);
        assert_eq!(rc, 1, "{args:?}: {out}{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    one_line(
        &["reembed", "--state", "brain", "--embedder", "bogus"],
        "--embedder bogus: unknown embedder; expected one of hash (hash-v1), minilm (all-MiniLM-L6-v2)",
    );
    one_line(
        &["reembed", "--state", "brain", "--embedder", "openai"],
        "not available",
    );
    one_line(
        &["reembed", "--state", "nowhere", "--embedder", "hash"],
        "--state nowhere: no brain there",
    );
    // a model that is not on this machine: one line naming it, nothing written
    let o = common::command(
        d,
        "corrected",
        &["reembed", "--state", "brain", "--embedder", "minilm"],
    )
    .env("CRABPATH_MODEL_DIR", d.join("no-model"))
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("model not found") && err.contains("no-model"),
        "{err}"
    );
    assert_eq!(rows(&db), before);
    // a state file (the paper profile's brain): import it first
    ok(
        d,
        &[
            "--profile",
            "paper",
            "init",
            "--workspace",
            "ws",
            "--output",
            "paper",
        ],
    );
    let state = d.join("paper/state.json");
    let bytes = std::fs::read(&state).unwrap();
    one_line(
        &[
            "reembed",
            "--state",
            "paper/state.json",
            "--embedder",
            "hash",
        ],
        "import it first (`crabpath import --state",
    );
    assert_eq!(std::fs::read(&state).unwrap(), bytes);
    // --batch 0 is refused by the parser (exit 2)
    let (rc, _, err) = common::run_text(d, "corrected", &reembed_args("hash", "0"));
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--batch"), "{err}");
}

#[test]
fn an_empty_brain_is_reembedded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("ws")).unwrap();
    ok(d, &["init", "--workspace", "ws", "--output", "brain"]);
    let out = ok(d, &["reembed", "--state", "brain", "--embedder", "hash"]);
    assert_eq!(summary(&out), (0, 0), "{out}");
}

/// Trials, each killed at a seeded moment of the run.
const TRIALS: u64 = 20;

/// Moments from a fixed seed (SplitMix64), uniform in [0, 1).
fn moments(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Kills `crabpath reembed` (`args`) [`TRIALS`] times on copies of `dir/brain`: the
/// even trials at seeded moments over the length of a full run, the odd ones as soon as
/// a first batch is committed; after each kill `check(trial dir, trial)`, then
/// a rerun must resume from the batches committed and finish (`finished`). With
/// `fresh_cache`, every run gets an empty embedding cache. Returns how many kills left
/// batches committed.
fn kill_trials(
    d: &Path,
    args: &[&str],
    seed: u64,
    fresh_cache: bool,
    check: &mut dyn FnMut(&Path, usize),
    finished: &dyn Fn(&Path),
) -> usize {
    let mut runs = 0;
    let mut cache = || {
        runs += 1;
        fresh_cache.then(|| d.join(format!("cache-{runs}")))
    };
    let full = d.join("full");
    common::copy_tree(&d.join("brain"), &full.join("brain"));
    let t = Instant::now();
    ok_cached(&full, args, cache().as_deref());
    let span = t.elapsed() + Duration::from_millis(20);
    finished(&full);
    let mut next = moments(seed);
    let mut partial = 0;
    for k in 0..TRIALS {
        let trial = d.join(format!("t{k}"));
        common::copy_tree(&d.join("brain"), &trial.join("brain"));
        let mut child = common::command(&trial, "corrected", args);
        if let Some(c) = cache() {
            child.env(crabpath_embed::cache::CACHE_DIR_ENV, c);
        }
        let mut child = child
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let db = trial.join("brain/brain.db");
        if k % 2 == 0 {
            std::thread::sleep(span.mul_f64(next()));
        } else {
            // every other kill waits for the first committed batch, so that kills land
            // between batches however the model's load and the machine's load move the
            // run's phases (a moment drawn over the whole run may miss the batches)
            let deadline = Instant::now() + span * 4;
            while Instant::now() < deadline
                && child.try_wait().unwrap().is_none()
                && committed(&db) == 0
            {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let done = committed(&db);
        if done > 0 {
            partial += 1;
        }
        check(&trial, k as usize);
        let report = doctor_passes(&trial);
        // an unfinished reembed is reported, with the command that finishes it
        let said = report.contains("reembed_unfinished: PASS (a reembed to ")
            && report.contains(&format!("is in progress: {done} of "))
            && report.contains("--embedder ");
        assert_eq!(said, done > 0, "trial {k}, {done} committed: {report}");
        let out = ok_cached(&trial, args, cache().as_deref());
        assert_eq!(summary(&out).1, done, "trial {k}: {out}");
        finished(&trial);
        doctor_passes(&trial);
    }
    partial
}

#[test]
fn kill_9_mid_reembed_leaves_a_brain_that_works_and_a_rerun_finishes() {
    let (dir, db) = learned(100);
    let d = dir.path();
    let before = rows(&db);
    let args = reembed_args("hash", "3");
    let partial = kill_trials(
        d,
        &args,
        0x5EED_0028,
        false,
        &mut |trial, k| {
            // hash-v1 to hash-v1: the old and the new brain are the same rows
            assert_eq!(rows(&trial.join("brain/brain.db")), before, "trial {k}");
        },
        &|trial| assert_eq!(rows(&trial.join("brain/brain.db")), before),
    );
    assert!(partial > 0, "no kill landed between two batches");
}

/// The MiniLM model's directory (`CRABPATH_MODEL_DIR`, else the workspace's
/// `datasets/models/all-MiniLM-L6-v2`); fails naming it and the command that fetches
/// it when its weights are missing.
fn minilm_present() {
    let dir = crabpath_embed::resolve_model_dir(None);
    assert!(
        dir.join("model.safetensors").is_file(),
        "the MiniLM model is missing at {}: fetch it with `cargo run --release -p bench -- fetch-model` (or set CRABPATH_MODEL_DIR)",
        dir.display()
    );
}

#[test]
#[ignore = "needs the MiniLM model (cargo run --release -p bench -- fetch-model); fails naming it when absent"]
fn kill_9_mid_reembed_to_minilm_leaves_old_or_new_never_a_mix() {
    minilm_present();
    let (dir, db) = learned(20);
    let d = dir.path();
    let (kept, old) = rows(&db);
    let args = reembed_args("minilm", "4");
    let new = {
        let full = d.join("reference");
        common::copy_tree(&d.join("brain"), &full.join("brain"));
        ok_cached(&full, &args, Some(&d.join("cache-reference")));
        rows(&full.join("brain/brain.db")).1
    };
    assert_ne!(new, old);
    assert_eq!(
        new[1],
        vec![vec![Value::Text("dense".into()), Value::Integer(384)]]
    );
    let mut seen = (0, 0);
    let partial = kill_trials(
        d,
        &args,
        0x5EED_0384,
        true,
        &mut |trial, k| {
            let (k_now, v_now) = rows(&trial.join("brain/brain.db"));
            assert_eq!(k_now, kept, "trial {k}: learned rows changed");
            if v_now == old {
                seen.0 += 1;
            } else {
                assert_eq!(v_now, new, "trial {k}: neither the old nor the new vectors");
                seen.1 += 1;
            }
        },
        &|trial| {
            assert_eq!(
                rows(&trial.join("brain/brain.db")),
                (kept.clone(), new.clone())
            )
        },
    );
    eprintln!("old/new after the kill: {seen:?}; killed with batches committed: {partial}");
    assert!(partial > 0, "no kill landed between two batches");
    assert!(seen.0 > 0, "no kill landed before the swap: {seen:?}");
    // queries now embed with MiniLM
    ok(d, &args);
    let out = ok(d, &["query", "extract tar archive7", "--state", "brain"]);
    assert!(out.contains("archive7"), "{out}");
}
