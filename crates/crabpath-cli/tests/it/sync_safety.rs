//! A sync never loses a brain (issue 33, items 2 and 3):
//!
//! * a path that exists but cannot be read is *unreadable*, not deleted: its nodes
//!   stay, the report counts it, and the exit status is 3 (before: `chmod 000
//!   ws/notes`, then `sync` as another user, took a brain from 9 nodes to 5 here and
//!   exited 0);
//! * a brain records its folder: a sync of another folder needs `--rebase`, and one
//!   that removes more than half of the nodes needs `--allow-mass-delete`; either flag
//!   takes a snapshot first;
//! * the MCP `sync` tool reads only the folder the server was started with (before:
//!   `sync {"workspace": "/etc/ssh"}` emptied the brain).
//!
//! Tests run as root on this project's machines, where `chmod 000` does not stop a
//! read: the syncs of unreadable paths then run as `nobody` (`setpriv`); as another
//! user they run directly. Neither case skips.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crabpath_mcp::Server;
use serde_json::{json, Map, Value};

/// Nodes of [`workspace`]: a.md 3 (its title chunk and two sections), b.md, n1.md and
/// n2.md 2 each (as `init` splits them; checked by [`init`]).
const NODES: usize = 9;

/// A folder of four Markdown files, two of them in `notes/`.
fn workspace(ws: &Path) {
    std::fs::create_dir_all(ws.join("notes")).unwrap();
    std::fs::write(ws.join("a.md"), "# A\n\n## one\nx\n\n## two\ny\n").unwrap();
    std::fs::write(ws.join("b.md"), "# B\n\n## b1\nw\n").unwrap();
    std::fs::write(ws.join("notes/n1.md"), "# N1\n\n## n\nz\n").unwrap();
    std::fs::write(ws.join("notes/n2.md"), "# N2\n\n## m\nq\n").unwrap();
}

/// `dir/ws` and a corrected brain of it in `dir/brain`.
fn init(dir: &Path) {
    workspace(&dir.join("ws"));
    let (rc, _, err) = common::run_text(
        dir,
        "corrected",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
    assert_eq!(nodes(dir), NODES);
}

fn nodes(dir: &Path) -> usize {
    let (rc, out, err) =
        common::run_text(dir, "corrected", &["info", "--state", "brain", "--json"]);
    assert_eq!(rc, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["node_count"].as_u64().unwrap() as usize
}

fn sync(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut a = vec!["sync", "--state", "brain", "--workspace"];
    a.extend_from_slice(extra);
    common::run_text(dir, "corrected", &a)
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Runs `crabpath <args>` in `dir` as a user for whom `chmod 000` holds: `nobody`
/// through `setpriv` when running as root (the scratch directory and the brain are
/// opened to every user first), else this user.
fn run_unprivileged(dir: &Path, profile: &str, args: &[&str]) -> (i32, String, String) {
    if !is_root() {
        return common::run_text(dir, profile, args);
    }
    for p in [dir, &dir.join("brain")] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    for e in std::fs::read_dir(dir.join("brain")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o666)).unwrap();
        }
    }
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(common::bin())
        .args(args)
        .current_dir(dir)
        .env("CRABPATH_PROFILE", profile)
        .env("HOME", dir)
        .stdin(Stdio::null())
        .output()
        .expect("setpriv (util-linux) is needed to run a sync as another user when root");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn an_unreadable_folder_keeps_its_nodes_and_the_sync_says_partial() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    chmod(&d.join("ws/notes"), 0o000);
    let (rc, out, err) = run_unprivileged(
        d,
        "corrected",
        &["sync", "--state", "brain", "--workspace", "ws"],
    );
    chmod(&d.join("ws/notes"), 0o755);
    assert_eq!(rc, 3, "partial: {out} {err}");
    assert!(
        out.contains("-0 ") && out.contains("| 1 unreadable (nodes kept)"),
        "{out}"
    );
    assert!(
        err.contains("partial sync: 1 path could not be read (notes)"),
        "{err}"
    );
    // the 4 nodes of notes/ are still there
    assert_eq!(nodes(d), NODES);
    // readable again: a plain sync, nothing to do
    let (rc, out, err) = sync(d, &["ws", "--json"]);
    assert_eq!(rc, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes_removed"], 0);
    assert_eq!(v["nodes_unchanged"], NODES);
    assert_eq!(nodes(d), NODES);
}

#[test]
fn an_unreadable_changed_file_keeps_its_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    // changed (so it must be read), then unreadable
    let n2 = d.join("ws/notes/n2.md");
    std::fs::write(&n2, "# N2\n\n## m\nq changed\n").unwrap();
    chmod(&n2, 0o000);
    let (rc, out, err) = run_unprivileged(
        d,
        "corrected",
        &["sync", "--state", "brain", "--workspace", "ws", "--json"],
    );
    chmod(&n2, 0o644);
    assert_eq!(rc, 3, "{out} {err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes_removed"], 0, "{out}");
    assert_eq!(v["paths_unreadable"], 1, "{out}");
    assert!(err.contains("notes/n2.md: cannot be read"), "{err}");
    assert_eq!(nodes(d), NODES);
    // readable: the change arrives
    let (rc, out, err) = sync(d, &["ws", "--json"]);
    assert_eq!(rc, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes_updated"], 1, "{out}");
}

#[test]
fn another_folder_needs_rebase_which_takes_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    workspace(&d.join("ws2"));
    std::fs::write(d.join("ws2/c.md"), "# C\n\n## c1\nv\n").unwrap();
    let ws = std::fs::canonicalize(d.join("ws")).unwrap();
    let (rc, _, err) = sync(d, &["ws2"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains(&format!("the brain was built from {}, not ", ws.display()))
            && err.contains("--rebase"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let (_, list, _) =
        common::run_text(d, "corrected", &["snapshot", "--state", "brain", "--list"]);
    assert_eq!(list.trim(), "No snapshots.");
    // with --rebase: a snapshot, then the sync (c.md's 2 nodes added)
    let (rc, out, err) = sync(d, &["ws2", "--rebase", "--json"]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("snapshot before-sync-"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes_added"], 2, "{out}");
    assert_eq!(nodes(d), NODES + 2);
    let (_, list, _) =
        common::run_text(d, "corrected", &["snapshot", "--state", "brain", "--list"]);
    assert!(list.starts_with("before-sync-"), "{list}");
    // ws2 is now the brain's folder: ws is the other one
    let (rc, _, err) = sync(d, &["ws"]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("built from") && err.contains("ws2"), "{err}");
}

#[test]
fn removing_more_than_half_needs_allow_mass_delete() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    // 7 of the 9 nodes go: a.md (3) and notes/ (4)
    std::fs::remove_file(d.join("ws/a.md")).unwrap();
    std::fs::remove_dir_all(d.join("ws/notes")).unwrap();
    let (rc, _, err) = sync(d, &["ws"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("sync would remove 7 of the brain's 9 nodes")
            && err.contains("--allow-mass-delete"),
        "{err}"
    );
    assert_eq!(nodes(d), NODES);
    let (rc, _, err) = sync(d, &["ws", "--allow-mass-delete"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(nodes(d), 2);
    // the snapshot taken first brings them back
    let (rc, _, err) = common::run_text(d, "corrected", &["rollback", "--state", "brain"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(nodes(d), NODES);
}

#[test]
fn a_brain_that_records_no_folder_records_its_first_sync() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    // as a brain made before this change: no workspace_dir in meta
    let db = rusqlite::Connection::open(d.join("brain/brain.db")).unwrap();
    let n = db
        .execute("DELETE FROM meta WHERE key = 'workspace_dir'", [])
        .unwrap();
    assert_eq!(n, 1, "init records the folder");
    drop(db);
    workspace(&d.join("ws2"));
    let (rc, _, err) = sync(d, &["ws2"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, _, err) = sync(d, &["ws"]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("ws2, not "), "{err}");
}

fn call(s: &Server, tool: &str, a: Value) -> (bool, Value) {
    let a: Map<String, Value> = a.as_object().unwrap().clone();
    let r = s.call_tool_now(tool, &a);
    let text = serde_json::to_value(&r.content[0]).unwrap()["text"].clone();
    (
        r.is_error == Some(true),
        r.structured_content.unwrap_or(text),
    )
}

#[test]
fn the_mcp_sync_tool_reads_only_the_servers_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("secret.md"), "# S\n\n## s\nhost file\n").unwrap();
    {
        let s = common::mcp_server(d, Some(d.join("ws")));
        // a call cannot name a folder (before: it read it, removing all 9 nodes)
        let (is_err, v) = call(
            &s,
            "sync",
            json!({"workspace": elsewhere.display().to_string()}),
        );
        assert!(is_err, "{v}");
        assert_eq!(
            v,
            json!("sync: unknown argument `workspace` (it takes no arguments)")
        );
        let (is_err, v) = call(&s, "sync", json!({}));
        assert!(!is_err, "{v}");
        assert_eq!(v["nodes_removed"], 0);
        assert_eq!(v["partial"], false);
    }
    assert_eq!(nodes(d), NODES);
    // without --workspace: the folder the brain records
    {
        let s = common::mcp_server(d, None);
        let (is_err, v) = call(&s, "sync", json!({}));
        assert!(!is_err, "{v}");
        let ws = std::fs::canonicalize(d.join("ws")).unwrap();
        assert_eq!(v["workspace"], json!(ws.display().to_string()));
    }
    // started with another folder: refused (that needs `crabpath sync --rebase`)
    {
        let s = common::mcp_server(d, Some(d.join("elsewhere")));
        let (is_err, v) = call(&s, "sync", json!({}));
        assert!(is_err, "{v}");
        assert!(v.as_str().unwrap().contains("--rebase"), "{v}");
    }
    assert_eq!(nodes(d), NODES);
}

#[test]
fn the_paper_profile_keeps_the_nodes_of_an_unreadable_folder_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    workspace(&d.join("ws"));
    let (rc, _, err) = common::run_text(
        d,
        "paper",
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
    let count = || {
        let text = std::fs::read_to_string(d.join("brain/state.json")).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        v["graph"]["nodes"].as_array().unwrap().len()
    };
    assert_eq!(count(), NODES);
    chmod(&d.join("ws/notes"), 0o000);
    let (rc, out, err) = run_unprivileged(
        d,
        "paper",
        &["sync", "--state", "brain/state.json", "--workspace", "ws"],
    );
    chmod(&d.join("ws/notes"), 0o755);
    assert_eq!(rc, 3, "{out} {err}");
    assert!(out.contains(" -0 "), "{out}");
    assert_eq!(count(), NODES);
}

/// The text of node `id` in `dir/brain`, read from its database.
fn content(dir: &Path, id: &str) -> Option<String> {
    let c = rusqlite::Connection::open(dir.join("brain/brain.db")).unwrap();
    c.query_row("SELECT content FROM nodes WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .ok()
}

/// A turn remembered through the daemon and a node injected on the command line, each
/// under the id a chunk of a file not yet in the folder will have (`<file>::0`), then
/// the files appear and the folder is synced. Before, the sync took those nodes for
/// the files' chunks and wrote the chunks' text over them: both acknowledged writes
/// were gone (exit 0). Now those files are not synced (exit 3, partial, saying why)
/// and the rest of the folder is.
#[test]
fn a_sync_never_overwrites_a_remembered_turn_or_an_injected_node() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d);
    let mut daemon = common::spawn_piped(d, "corrected", &["daemon", "--state", "brain"]);
    {
        use std::io::{BufRead, BufReader, Write};
        let mut stdin = daemon.stdin.take().unwrap();
        let mut out = BufReader::new(daemon.stdout.take().unwrap());
        let r = json!({"id": 1, "method": "remember", "params": {"text": "the turn to keep", "id": "zz.md::0"}});
        writeln!(stdin, "{r}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["result"]["node_id"], "zz.md::0", "{v}");
        writeln!(stdin, "{}", json!({"id": 2, "method": "shutdown"})).unwrap();
    }
    assert!(daemon.wait().unwrap().success());
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "inject",
            "--state",
            "brain",
            "--id",
            "yy.md::0",
            "--content",
            "the injected fact to keep",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    std::fs::write(d.join("ws/zz.md"), "# ZZ\n\nA page about zz.\n").unwrap();
    std::fs::write(d.join("ws/yy.md"), "# YY\n\nA page about yy.\n").unwrap();
    std::fs::write(d.join("ws/xx.md"), "# XX\n\nA page about xx.\n").unwrap();
    let (rc, out, err) = sync(d, &["ws"]);
    assert_eq!(content(d, "zz.md::0").as_deref(), Some("the turn to keep"));
    assert_eq!(
        content(d, "yy.md::0").as_deref(),
        Some("the injected fact to keep")
    );
    // partial (the status of a path that cannot be read), naming both files and why
    assert_eq!(rc, 3, "{out}{err}");
    for f in ["zz.md", "yy.md"] {
        assert!(
            err.contains(&format!("skipped {f}: not synced: its chunk id `{f}::0`")),
            "{err}"
        );
    }
    // the third new file is synced
    assert!(content(d, "xx.md::0").is_some(), "{out}{err}");
    // the next sync reads the held-back files again (and holds them back again)
    let (rc, _, err) = sync(d, &["ws"]);
    assert_eq!(rc, 3, "{err}");
    assert!(err.contains("skipped zz.md"), "{err}");
    let (rc, out, err) = common::run_text(d, "corrected", &["doctor", "--state", "brain"]);
    assert_eq!(rc, 0, "{out}{err}");
}
