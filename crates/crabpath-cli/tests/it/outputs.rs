//! Commands that write a path the user gave (`export --output`) write only a new path
//! or a regular file, and never inside a brain directory: issue 33 item 1 (`export
//! --state B --output B/brain.db` exited 0 and overwrote the database with JSON; as
//! root, `export --output /dev/null` replaced `/dev/null` with a regular file).
//!
//! No test here writes towards `/dev/null`: the character device is one made in the
//! test's own directory (`mknod`, as root), so that a regression replaces only that.

use crate::common;

use std::path::Path;
use std::process::Command;

/// A corrected brain of the fixture workspace in `dir/brain`.
fn brain(dir: &Path) {
    let (rc, _, err) = common::run_text(
        dir,
        "corrected",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
}

fn export(dir: &Path, output: &str) -> (i32, String, String) {
    common::run_text(
        dir,
        "corrected",
        &["export", "--state", "brain", "--output", output],
    )
}

/// The one line of a refusal: names the option and the path, and says which.
fn assert_refused(out: (i32, String, String), path: &str, which: &str) {
    let (rc, stdout, stderr) = out;
    assert_eq!(rc, 1, "stdout: {stdout} stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("crabpath: error: --output {path}: "))
            && stderr.contains(which),
        "{stderr}"
    );
}

#[test]
fn export_into_the_brain_directory_is_refused_and_the_brain_stays() {
    let dir = common::scratch();
    let d = dir.path();
    brain(d);
    let db = d.join("brain/brain.db");
    let before = std::fs::read(&db).unwrap();
    // the database itself, a new file beside it, and the directory
    assert_refused(
        export(d, "brain/brain.db"),
        "brain/brain.db",
        "inside the brain directory",
    );
    assert_refused(
        export(d, "brain/state.json"),
        "brain/state.json",
        "inside the brain directory",
    );
    assert_refused(export(d, "brain"), "brain", "is a directory");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert!(!d.join("brain/state.json").exists());
    // the brain still answers
    let (rc, _, err) = common::run_text(d, "corrected", &["query", "deploy", "--state", "brain"]);
    assert_eq!(rc, 0, "{err}");
    // and a regular file outside it is written (and replaced)
    std::fs::write(d.join("out.json"), "old").unwrap();
    let (rc, _, err) = export(d, "out.json");
    assert_eq!(rc, 0, "{err}");
    assert!(std::fs::read_to_string(d.join("out.json"))
        .unwrap()
        .contains("\"graph\""));
}

#[test]
fn export_to_a_fifo_or_a_device_is_refused_and_it_stays() {
    use std::os::unix::fs::FileTypeExt;
    let dir = common::scratch();
    let d = dir.path();
    brain(d);
    let ok = Command::new("mkfifo").arg(d.join("pipe")).status().unwrap();
    assert!(ok.success(), "mkfifo");
    assert_refused(export(d, "pipe"), "pipe", "is a FIFO");
    assert!(std::fs::metadata(d.join("pipe"))
        .unwrap()
        .file_type()
        .is_fifo());
    // a link to the FIFO counts as the FIFO
    std::os::unix::fs::symlink(d.join("pipe"), d.join("link")).unwrap();
    assert_refused(export(d, "link"), "link", "is a FIFO");
    // a character device of our own (1, 3: what /dev/null is); only root can make one
    let made = Command::new("mknod")
        .arg(d.join("null"))
        .args(["c", "1", "3"])
        .status()
        .unwrap()
        .success();
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap();
    assert_eq!(made, root, "mknod works exactly when running as root");
    if made {
        assert_refused(export(d, "null"), "null", "is a character device");
        assert!(std::fs::metadata(d.join("null"))
            .unwrap()
            .file_type()
            .is_char_device());
    } else {
        eprintln!("not root: the character device case is covered by the FIFO and by pyformat's unit test on a link to /dev/null (check only)");
    }
}
