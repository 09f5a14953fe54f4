//! A state file's journal on a real full file system (issue 30 item 4: "a full disk gives
//! a clear error for the write, nothing corrupt, and queries keep working"): a 1 MiB
//! tmpfs, filled, then queried. Before, the append left a torn line in `journal.jsonl`
//! (the reference's `journal` then failed on the whole file) and the query printed no
//! answer in either profile. The daemon's write-ahead log of a state file likewise
//! kept a torn line after a refused write, so the next acknowledged write, glued to it,
//! was unreadable when the log was replayed. And a write the log refused had already been applied in
//! memory (it was logged after), so the next save kept a write answered with an error;
//! it is now logged first and applied only once logged.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Command;

/// Mounts a 1 MiB tmpfs on `dir` (root only), unmounted when dropped.
struct Tmpfs<'a>(&'a Path);

impl<'a> Tmpfs<'a> {
    fn mount(dir: &'a Path) -> Tmpfs<'a> {
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1M", "tmpfs"])
            .arg(dir)
            .output()
            .expect("run mount");
        assert!(
            o.status.success(),
            "this test mounts a tmpfs, which needs root (.ci/run runs it so): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        Tmpfs(dir)
    }
}

impl Drop for Tmpfs<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

#[test]
#[ignore = "needs root to mount a tmpfs (.ci/run runs it); run with: cargo test -p crabpath-cli --test it state_full_disk:: -- --ignored"]
fn a_full_disk_leaves_the_journal_whole_and_the_corrected_query_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let _fs = Tmpfs::mount(dir);
    small_brain(dir);
    let q = |profile: &str, i: usize| {
        crate::common::run_text(
            dir,
            profile,
            &[
                "query",
                "--state",
                "b/state.json",
                &format!("deploy tool roll back, asked with enough words to need room {i}"),
            ],
        )
    };
    let (code, _, err) = q("paper", 0);
    assert_eq!(code, 0, "{err}");
    // fill the file system: the journal's next block has no room
    let _ = std::fs::write(dir.join("fill"), vec![0u8; 2 << 20]);
    let journal = dir.join("b/journal.jsonl");
    let mut before = std::fs::read(&journal).unwrap();
    // the paper profile fails the query as the reference does, and leaves no torn line;
    // one block of the journal may still have room for a few entries
    let mut refused = None;
    for i in 1..200 {
        let (code, _, err) = q("paper", i);
        if code != 0 {
            refused = Some(err);
            break;
        }
        before = std::fs::read(&journal).unwrap();
    }
    let err = refused.expect("the full file system refuses an append");
    assert!(err.contains("No space left on device"), "{err}");
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        before,
        "nothing torn left"
    );
    // the corrected profile answers, says the entry was not written, and writes nothing
    let (code, out, err) = q("corrected", 999);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Deploy tool"), "the answer is printed: {out}");
    assert!(
        err.contains("journal.jsonl: No space left on device")
            && err.contains("answered but not journaled"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        before,
        "nothing torn left"
    );
    // and the journal reads whole
    let (code, out, err) =
        crate::common::run_text(dir, "paper", &["journal", "--state", "b/state.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("deploy tool roll back"), "{out}");
}

/// A state file's write whose journal entry cannot be written is refused whole: the
/// state file is left as it was. Before, `state.json` was saved first and the journal
/// appended after, so a journal that refused the entry (a full disk; here a directory
/// where the file should be, which needs no root) gave an error for a write that stood
/// in the state without its entry. Both profiles (the reference saves first: its bytes
/// on success are unchanged, only the failure leaves nothing behind).
#[test]
fn a_journal_that_refuses_the_entry_leaves_the_state_file_as_it_was() {
    for profile in ["paper", "corrected"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        small_brain(dir);
        let state = dir.join("b/state.json");
        let journal = dir.join("b/journal.jsonl");
        let _ = std::fs::remove_file(&journal);
        std::fs::create_dir(&journal).unwrap();
        let before = std::fs::read(&state).unwrap();
        let learn = [
            "learn",
            "--state",
            "b/state.json",
            "--outcome",
            "1",
            "--fired-ids",
            "f1.md::0,f1.md::1",
        ];
        let (code, _, err) = crate::common::run_text(dir, profile, &learn);
        assert_ne!(code, 0, "{profile}: the learn is refused");
        assert!(err.contains("journal.jsonl"), "{profile}: {err}");
        assert!(
            std::fs::read(&state).unwrap() == before,
            "{profile}: the state file holds nothing of the refused learn"
        );
        // with the journal back, the same learn is saved and journaled
        std::fs::remove_dir(&journal).unwrap();
        let (code, _, err) = crate::common::run_text(dir, profile, &learn);
        assert_eq!(code, 0, "{profile}: {err}");
        assert!(std::fs::read(&state).unwrap() != before, "{profile}");
        assert!(std::fs::read_to_string(&journal)
            .unwrap()
            .contains("\"learn\""));
    }
}

/// A state-file brain `b/` of three small files in `dir`, made by the paper profile.
fn small_brain(dir: &Path) {
    let ws = dir.join("ws");
    std::fs::create_dir(&ws).unwrap();
    for i in 1..=3 {
        std::fs::write(
            ws.join(format!("f{i}.md")),
            format!("# T{i}\n\nDeploy tool {i} rolls back.\n"),
        )
        .unwrap();
    }
    let (code, _, err) = crate::common::run_text(
        dir,
        "paper",
        &["init", "--workspace", "ws", "--output", "b"],
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
#[ignore = "needs root to mount a tmpfs (.ci/run runs it); run with: cargo test -p crabpath-cli --test it state_full_disk:: -- --ignored"]
fn a_refused_daemon_write_leaves_its_log_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let _fs = Tmpfs::mount(dir);
    small_brain(dir);
    let mut d =
        crate::common::spawn_piped(dir, "corrected", &["daemon", "--state", "b/state.json"]);
    let mut input = d.stdin.take().unwrap();
    let mut output = std::io::BufReader::new(d.stdout.take().unwrap());
    let mut ask = |line: String| {
        writeln!(input, "{line}").unwrap();
        input.flush().unwrap();
        let mut answer = String::new();
        output.read_line(&mut answer).unwrap();
        answer
    };
    let learn = |i: usize| {
        // longer than a page of the file system: the log's own write meets the full
        // disk (a shorter one can still fit the log's last page and fail later)
        let note = "x".repeat(6000);
        format!(
            r#"{{"id": {i}, "method": "learn", "params": {{"fired_nodes": ["f1.md::0", "f1.md::1"], "outcome": 1.0, "metadata": {{"note": "{note}"}}}}}}"#
        )
    };
    assert!(ask(learn(0)).contains("result"), "a learn with room");
    let _ = std::fs::write(dir.join("fill"), vec![0u8; 2 << 20]);
    let wal = dir.join("b/state.json.wal");
    let mut before = std::fs::read(&wal).unwrap();
    let mut refused = None;
    for i in 1..400 {
        let a = ask(learn(i));
        if a.contains("error") {
            refused = Some((i, a));
            break;
        }
        before = std::fs::read(&wal).unwrap();
    }
    // learns 0 to i - 1 were acknowledged
    let (acknowledged, a) = refused.expect("the full file system refuses a logged write");
    assert!(a.contains("No space left on device"), "{a}");
    let after = std::fs::read(&wal).unwrap();
    assert!(
        after == before,
        "nothing of the refused write stays in the log: {} bytes before, {} after, the refusal: {}",
        before.len(),
        after.len(),
        &a[..a.len().min(300)]
    );
    assert!(after.last() == Some(&b'\n'), "the log ends on a whole line");
    // nor is it applied: with room again, the saved state holds the acknowledged
    // learns alone (before, the refused one was applied in memory and saved later)
    std::fs::remove_file(dir.join("fill")).unwrap();
    assert!(ask(r#"{"id": 9, "method": "save"}"#.into()).contains("saved"));
    drop(input);
    assert!(d.wait().unwrap().success());
    let other = tempfile::tempdir().unwrap();
    small_brain(other.path());
    let mut d2 = crate::common::spawn_piped(
        other.path(),
        "corrected",
        &["daemon", "--state", "b/state.json"],
    );
    let mut input2 = d2.stdin.take().unwrap();
    let mut output2 = std::io::BufReader::new(d2.stdout.take().unwrap());
    for i in 0..acknowledged {
        writeln!(input2, "{}", learn(i)).unwrap();
        let mut answer = String::new();
        output2.read_line(&mut answer).unwrap();
        assert!(answer.contains("result"), "{answer}");
    }
    drop(input2);
    assert!(d2.wait().unwrap().success());
    assert_eq!(
        edge_weight(&dir.join("b/state.json")),
        edge_weight(&other.path().join("b/state.json")),
        "{acknowledged} acknowledged learns, and nothing of the refused one"
    );
}

/// The weight of the edge `f1.md::0` → `f1.md::1` of a state file.
fn edge_weight(state: &Path) -> Option<f64> {
    let st = crabpath_brain::reference::statefile::load_state(state).unwrap();
    let (s, t) = (st.graph.lookup("f1.md::0")?, st.graph.lookup("f1.md::1")?);
    st.graph.weight(s, t)
}
