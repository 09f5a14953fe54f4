//! The daemon: end of input, signals, the write-ahead log and the timing field, paper
//! (the reference's behaviour) against corrected. The paper transcript itself is
//! checked against the reference by `reference_flow.rs`.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

use crabpath_brain::reference::statefile::load_state;

fn brain(dir: &Path) {
    common::fixture_brain(dir, "paper");
}

fn spawn(dir: &Path, profile: &str, interval: &str) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut c = common::spawn_piped(
        dir,
        profile,
        &[
            "daemon",
            "--state",
            "brain/state.json",
            "--auto-save-interval",
            interval,
        ],
    );
    let stdin = c.stdin.take().unwrap();
    let stdout = BufReader::new(c.stdout.take().unwrap());
    (c, stdin, stdout)
}

fn learn_line(i: usize, a: &str, b: &str) -> String {
    format!("{{\"id\": {i}, \"method\": \"learn\", \"params\": {{\"fired_nodes\": [\"{a}\", \"{b}\"], \"outcome\": 1.0}}}}\n")
}

/// Starts a corrected daemon on the brain of `dir` (auto-save interval `auto_save`) and
/// ends its input at once: it replays what its log holds, saves and exits (checked).
fn restart(dir: &Path, auto_save: &str) {
    let (mut c, stdin, _out) = spawn(dir, "corrected", auto_save);
    drop(stdin);
    assert!(c.wait().unwrap().success());
}

fn weight(dir: &Path, a: &str, b: &str) -> Option<f64> {
    let st = load_state(dir.join("brain/state.json")).unwrap();
    let (s, t) = (st.graph.lookup(a)?, st.graph.lookup(b)?);
    st.graph.weight(s, t)
}

const PAIRS: [(&str, &str); 3] = [
    ("README.md::0", "README.md::1"),
    ("notes.txt::0", "notes.txt::1"),
    ("docs/a.md::0", "docs/a.md::1"),
];

/// Three learns with auto-save every 2 writes, then end of input.
fn three_learns_then_eof(profile: &str) -> Vec<bool> {
    let dir = tempfile::tempdir().unwrap();
    brain(dir.path());
    let before: Vec<Option<f64>> = PAIRS
        .iter()
        .map(|(a, b)| weight(dir.path(), a, b))
        .collect();
    let (mut c, mut stdin, mut out) = spawn(dir.path(), profile, "2");
    for (i, (a, b)) in PAIRS.iter().enumerate() {
        stdin.write_all(learn_line(i, a, b).as_bytes()).unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(line.contains("\"edges_updated\": 1"), "{line}");
    }
    drop(stdin);
    assert!(c.wait().unwrap().success());
    PAIRS
        .iter()
        .zip(before)
        .map(|((a, b), w)| weight(dir.path(), a, b) != w)
        .collect()
}

#[test]
fn end_of_input_loses_unsaved_writes_only_in_the_paper_profile() {
    // reference: the third learn is lost (auto-save after the second)
    assert_eq!(three_learns_then_eof("paper"), [true, true, false]);
    assert_eq!(three_learns_then_eof("corrected"), [true, true, true]);
}

#[test]
fn sigterm_saves_at_once_when_corrected() {
    for profile in ["paper", "corrected"] {
        let dir = tempfile::tempdir().unwrap();
        brain(dir.path());
        let (a, b) = PAIRS[0];
        let old = weight(dir.path(), a, b);
        let (mut c, mut stdin, mut out) = spawn(dir.path(), profile, "0");
        stdin.write_all(learn_line(1, a, b).as_bytes()).unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        unsafe {
            libc::kill(c.id() as libc::pid_t, libc::SIGTERM);
        }
        let t = Instant::now();
        let exited = loop {
            if let Some(s) = c.try_wait().unwrap() {
                break Some(s);
            }
            if t.elapsed() > Duration::from_secs(3) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if profile == "corrected" {
            let s = exited.expect("the corrected daemon did not exit on SIGTERM");
            assert!(s.success());
        } else {
            // reference: still blocked reading; the next line stops it unanswered
            assert!(
                exited.is_none(),
                "the paper daemon exited before the next line"
            );
            stdin
                .write_all(b"{\"id\": 9, \"method\": \"info\"}\n")
                .unwrap();
            assert!(c.wait().unwrap().success());
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
            assert_eq!(rest, "", "the line after the signal was answered");
        }
        assert_ne!(
            weight(dir.path(), a, b),
            old,
            "{profile}: the learn was not saved"
        );
    }
}

#[test]
fn an_acknowledged_write_survives_kill_9_when_corrected() {
    for profile in ["paper", "corrected"] {
        let dir = tempfile::tempdir().unwrap();
        brain(dir.path());
        let (a, b) = PAIRS[1];
        let old = weight(dir.path(), a, b);
        let (mut c, mut stdin, mut out) = spawn(dir.path(), profile, "0");
        stdin.write_all(learn_line(1, a, b).as_bytes()).unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(line.contains("edges_updated"), "{line}");
        unsafe {
            libc::kill(c.id() as libc::pid_t, libc::SIGKILL);
        }
        c.wait().unwrap();
        assert_eq!(
            weight(dir.path(), a, b),
            old,
            "nothing is saved before the restart"
        );
        // a new daemon, with no input
        let (mut c2, stdin2, _out2) = spawn(dir.path(), profile, "0");
        drop(stdin2);
        let status = c2.wait().unwrap();
        assert!(status.success());
        let mut err = String::new();
        std::io::Read::read_to_string(&mut c2.stderr.take().unwrap(), &mut err).unwrap();
        if profile == "corrected" {
            assert!(err.contains("replayed 1"), "{err}");
            assert_ne!(
                weight(dir.path(), a, b),
                old,
                "the acknowledged learn was lost"
            );
        } else {
            assert_eq!(weight(dir.path(), a, b), old);
        }
    }
}

#[test]
fn corrected_answers_carry_their_time() {
    let dir = tempfile::tempdir().unwrap();
    brain(dir.path());
    let input =
        "{\"id\": 1, \"method\": \"health\"}\nnot json\n{\"id\": 2, \"method\": \"shutdown\"}\n";
    let o = common::run(
        dir.path(),
        "corrected",
        &["daemon", "--state", "brain/state.json"],
        input,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["elapsed_ms"].as_f64().is_some_and(|x| x >= 0.0), "{l}");
    }
    let o = common::run(
        dir.path(),
        "paper",
        &["daemon", "--state", "brain/state.json"],
        input,
    );
    assert!(!String::from_utf8_lossy(&o.stdout).contains("elapsed_ms"));
}

/// A refused write takes nothing with it (corrected, state file). Before, a learn
/// refused inside the write (an unknown node id) dropped the state in memory, which
/// was read again from the file alone: the acknowledged learn before it, not yet
/// saved, was gone from the next `save`. The refused write also never reaches the
/// write-ahead log, so a daemon killed afterwards replays the acknowledged learn once.
#[test]
fn a_refused_write_keeps_the_acknowledged_ones_and_leaves_the_log_clean() {
    for kill in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        brain(dir.path());
        let (a, b) = PAIRS[1];
        let (mut c, mut stdin, mut out) = spawn(dir.path(), "corrected", "0");
        let mut ask = |line: String| {
            stdin.write_all(line.as_bytes()).unwrap();
            let mut answer = String::new();
            out.read_line(&mut answer).unwrap();
            answer
        };
        assert!(ask(learn_line(1, a, b)).contains("\"edges_updated\": 1"));
        let wal = std::fs::read(dir.path().join("brain/state.json.wal")).unwrap();
        let refused = ask(learn_line(2, a, "no such node"));
        assert!(refused.contains("unknown node id"), "{refused}");
        assert_eq!(
            std::fs::read(dir.path().join("brain/state.json.wal")).unwrap(),
            wal,
            "the refused learn is not in the log"
        );
        if kill {
            unsafe {
                libc::kill(c.id() as libc::pid_t, libc::SIGKILL);
            }
            c.wait().unwrap();
            restart(dir.path(), "0");
        } else {
            assert!(ask("{\"id\": 3, \"method\": \"save\"}\n".into()).contains("saved"));
            drop(stdin);
            assert!(c.wait().unwrap().success());
        }
        // the same weight as one learn alone gives (a daemon that answered only it)
        let one = tempfile::tempdir().unwrap();
        brain(one.path());
        let (mut c1, mut stdin1, mut out1) = spawn(one.path(), "corrected", "0");
        stdin1.write_all(learn_line(1, a, b).as_bytes()).unwrap();
        let mut line = String::new();
        out1.read_line(&mut line).unwrap();
        drop(stdin1);
        assert!(c1.wait().unwrap().success());
        assert_eq!(
            weight(dir.path(), a, b),
            weight(one.path(), a, b),
            "kill {kill}: the acknowledged learn is kept, once"
        );
    }
}

/// Writes another process saves in the state file while a corrected daemon serves it
/// are kept, with the daemon's own. Before, the daemon saved its memory (read when it
/// started) over the file: a `crabpath inject` answered `Injected` and a `crabpath
/// learn` answered `updated` were gone after the daemon's next save.
#[test]
fn writes_saved_by_another_process_while_the_daemon_runs_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    brain(dir.path());
    let d = dir.path();
    let (a, b) = PAIRS[0];
    let (c, e) = PAIRS[1];
    let before = weight(d, a, b);
    let (mut child, mut stdin, mut out) = spawn(d, "corrected", "10");
    let mut answer = |stdin: &mut ChildStdin, line: String| -> String {
        stdin.write_all(line.as_bytes()).unwrap();
        let mut a = String::new();
        out.read_line(&mut a).unwrap();
        a
    };
    // the daemon learns: in its memory and its log, not saved yet
    let l = answer(&mut stdin, learn_line(1, a, b));
    assert!(l.contains("\"edges_updated\": 1"), "{l}");
    // another process injects a node and learns, each saved in the file
    let state = "brain/state.json";
    common::inject_by_cli(
        d,
        "cli_note",
        "Written by another process while the daemon runs.",
    );
    let fired = format!("{c},{e}");
    let args = [
        "learn",
        "--state",
        state,
        "--outcome",
        "1",
        "--fired-ids",
        &fired,
    ];
    let (rc, _, err) = common::run_text(d, "corrected", &args);
    assert_eq!(rc, 0, "{err}");
    let cli_learned = weight(d, c, e);
    // the daemon injects (saved at once), then shuts down (saved again)
    let inject = "{\"id\": 2, \"method\": \"inject\", \"params\": {\"id\": \"daemon_note\", \"content\": \"Written by the daemon.\", \"type\": \"TEACHING\"}}\n";
    let i = answer(&mut stdin, inject.to_string());
    assert!(i.contains("\"injected\": true"), "{i}");
    let s = answer(
        &mut stdin,
        "{\"id\": 3, \"method\": \"shutdown\"}\n".to_string(),
    );
    assert!(s.contains("\"shutdown\": true"), "{s}");
    assert!(child.wait().unwrap().success());
    let st = load_state(d.join(state)).unwrap();
    assert!(
        st.graph.lookup("cli_note").is_some(),
        "the other process's inject is in state.json"
    );
    assert!(st.graph.lookup("daemon_note").is_some());
    assert_eq!(weight(d, c, e), cli_learned, "the other process's learn");
    assert_ne!(weight(d, a, b), before, "the daemon's learn");
}

/// A daemon killed with an acknowledged write not yet saved, after which another
/// process saves the state file: the restarted daemon applies the logged write on top
/// of that file, and the other process's write stays too. Before, the log's header no
/// longer named the file, the log was taken for one already saved, and the
/// acknowledged learn was lost. A log the daemon was saving when it died is not
/// applied twice (`a_refused_write_keeps_the_acknowledged_ones_and_leaves_the_log_clean`
/// covers a restart over its own file).
#[test]
fn a_killed_daemons_logged_write_survives_another_process_saving_the_file() {
    let dir = tempfile::tempdir().unwrap();
    brain(dir.path());
    let d = dir.path();
    let (a, b) = PAIRS[0];
    let before = weight(d, a, b);
    let (mut child, mut stdin, mut out) = spawn(d, "corrected", "10");
    stdin.write_all(learn_line(1, a, b).as_bytes()).unwrap();
    let mut l = String::new();
    out.read_line(&mut l).unwrap();
    assert!(l.contains("\"edges_updated\": 1"), "{l}");
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGKILL);
    }
    child.wait().unwrap();
    common::inject_by_cli(
        d,
        "cli_note",
        "Saved by another process after the daemon died.",
    );
    restart(d, "10");
    let st = load_state(d.join("brain/state.json")).unwrap();
    assert!(st.graph.lookup("cli_note").is_some());
    assert_ne!(weight(d, a, b), before, "the acknowledged learn is kept");
}

/// The other side of the rule above: a log whose header names another version of the
/// file but that ends with the daemon's save marker was being saved when the daemon
/// died (the file has its writes), and is not applied again.
#[test]
fn a_log_the_daemon_was_saving_is_not_applied_twice() {
    let dir = tempfile::tempdir().unwrap();
    brain(dir.path());
    let d = dir.path();
    let (a, b) = PAIRS[0];
    let (mut child, mut stdin, mut out) = spawn(d, "corrected", "10");
    stdin.write_all(learn_line(1, a, b).as_bytes()).unwrap();
    let mut l = String::new();
    out.read_line(&mut l).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let saved = weight(d, a, b);
    // what a daemon killed between its save and its new log leaves: the old header, the
    // saved write, the marker
    let wal = d.join("brain/state.json.wal");
    let logged = format!(
        "{{\"base\": \"an earlier version\"}}\n{{\"method\":\"learn\",\"params\":{{\"fired_nodes\":[\"{a}\",\"{b}\"],\"outcome\":1}}}}\n{{\"saving\": true}}\n"
    );
    std::fs::write(&wal, logged).unwrap();
    restart(d, "10");
    assert_eq!(weight(d, a, b), saved, "not learned twice");
}
