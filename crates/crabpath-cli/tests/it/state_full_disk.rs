//! A state file's journal on a real full file system (issue 30 item 4: "a full disk gives
//! a clear error for the write, nothing corrupt, and queries keep working"): a 1 MiB
//! tmpfs, filled, then queried. Before, the append left a torn line in `journal.jsonl`
//! (the reference's `journal` then failed on the whole file) and the query printed no
//! answer in either profile.

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
