//! `forget` (issue 30, item 3): after forgetting a file, no byte of its content is
//! left in any file of the brain directory (database, write-ahead log, snapshots,
//! derived index), the other files still answer, and an unknown target changes nothing.

use std::path::{Path, PathBuf};

use crate::common;

use crabpath::profile::Profile;
use crabpath_brain::service::ForgetTarget;
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{Brain, QueryRequest};

/// The forgotten file's marker: a string no other file or format holds.
const MARKER: &str = "ZEBRA-UNIQUE-7731";

/// A folder of three files, `b.md` holding the marker; its brain (hash-v1) in `dir/brain`.
fn brain(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("a.md"),
        "# Deploy\n\nRun the deploy script on the staging host first.\n\nThen promote the build to production after the checks pass.\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("b.md"),
        format!("# Secret\n\nThe vault code is {MARKER} and only ops may read it.\n\nRotate the {MARKER} code every month.\n"),
    )
    .unwrap();
    std::fs::write(
        ws.join("c.md"),
        "# Backups\n\nNightly backups go to the cold storage bucket.\n\nRestore drills run every quarter on a spare host.\n",
    )
    .unwrap();
    // one chunk each: no edge at init, so a learn from them starts a new bucket
    std::fs::write(ws.join("d.md"), "Dogs bark at the mail carrier.\n").unwrap();
    std::fs::write(ws.join("e.md"), "Eels hide under river stones.\n").unwrap();
    let boot = split_workspace(&ws, &SplitOptions::new(Profile::Corrected)).unwrap();
    common::hash_store(&dir.join("brain"), &boot.graph)
}

fn open(db: &Path) -> Brain {
    common::open_hash(db, Profile::Corrected, false)
}

fn ask(b: &mut Brain, text: &str) -> Vec<String> {
    let a = b.query(&QueryRequest::new(text, 4)).unwrap();
    a.fired().iter().map(|s| s.to_string()).collect()
}

/// Every file under `dir`, with the files whose bytes contain `needle` (ASCII case
/// ignored, as `strings | grep -i` would find it).
fn files_holding(dir: &Path, needle: &str) -> (usize, Vec<PathBuf>) {
    let needle = needle.to_ascii_lowercase().into_bytes();
    let (mut seen, mut hits) = (0, Vec::new());
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            seen += 1;
            let bytes = std::fs::read(&p).unwrap().to_ascii_lowercase();
            if bytes.windows(needle.len()).any(|w| w == needle.as_slice()) {
                hits.push(p);
            }
        }
    }
    (seen, hits)
}

#[test]
fn forgetting_a_file_leaves_none_of_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let brain_dir = db.parent().unwrap().to_path_buf();
    let mut b = open(&db);
    let fired = ask(&mut b, &format!("what is the vault code {MARKER}"));
    assert!(fired.iter().any(|id| id.starts_with("b.md")), "{fired:?}");
    b.learn(&fired, 1.0).unwrap();
    b.snapshot("undo").unwrap();
    ask(&mut b, "deploy script staging host");
    // the marker is in the database (or its log) and the snapshot before forget: the
    // check below can see it
    let (_, before) = files_holding(&brain_dir, MARKER);
    assert!(before.len() >= 2, "{before:?}");

    let r = b.forget(&ForgetTarget::File("b.md".into())).unwrap();
    // b.md's chunks (at least its two paragraphs)
    assert!(r.removed.nodes >= 2, "{r:?}");
    assert!(r.removed.journal >= 2, "the query and the learn: {r:?}");
    assert_eq!(r.snapshots.len(), 1);
    assert!(r.wal_truncated);
    drop(b);

    for needle in [MARKER, "zebra", "vault"] {
        let (seen, hits) = files_holding(&brain_dir, needle);
        assert!(seen >= 2, "database and snapshot at least: {seen}");
        assert!(hits.is_empty(), "`{needle}` still in {hits:?}");
    }
    // the others still answer, from the database and from the rewritten snapshot
    let mut b = open(&db);
    let fired = ask(&mut b, "nightly backups cold storage");
    assert!(fired.iter().any(|id| id.starts_with("c.md")), "{fired:?}");
    assert!(!fired.iter().any(|id| id.starts_with("b.md")), "{fired:?}");
    b.rollback(Some("undo")).unwrap();
    let fired = ask(&mut b, &format!("vault code {MARKER}"));
    assert!(!fired.iter().any(|id| id.starts_with("b.md")), "{fired:?}");
}

#[test]
fn an_unknown_target_is_an_error_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut b = open(&db);
    let before = b.node_count().unwrap();
    for (t, words) in [
        (ForgetTarget::File("nope.md".into()), "no file `nope.md`"),
        (ForgetTarget::Node("nope::0".into()), "no node `nope::0`"),
        (ForgetTarget::Chat("nobody".into()), "no chat `nobody`"),
    ] {
        let e = b.forget(&t).unwrap_err().to_string();
        assert!(e.contains(words) && !e.contains('\n'), "{e}");
    }
    assert_eq!(b.node_count().unwrap(), before);
}

#[test]
fn forgetting_a_node_removes_its_edges_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut b = open(&db);
    let before = b.node_count().unwrap();
    let r = b.forget(&ForgetTarget::Node("a.md::0".into())).unwrap();
    assert_eq!(r.ids, vec!["a.md::0".to_string()]);
    assert_eq!((r.removed.nodes, r.removed.vectors), (1, 1));
    assert!(r.removed.edges >= 1, "a.md::0 -> a.md::1 at least: {r:?}");
    assert_eq!(b.node_count().unwrap(), before - 1);
    assert!(!b.has_node("a.md::0").unwrap());
    assert!(b.has_node("a.md::1").unwrap());
}

/// Forgetting the middle chunk of a file leaves its neighbours unlinked: the replay's
/// init graph is the whole file's chain less the pairs of the forgotten chunk, not a
/// new chain a.md::0 <-> a.md::2.
#[test]
fn forgetting_a_middle_chunk_links_no_new_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut b = open(&db);
    let r = b.forget(&ForgetTarget::Node("a.md::1".into())).unwrap();
    // a fresh brain's journal is empty: the replay runs, with no learn event
    assert_eq!(r.relearned, crabpath_brain::service::Relearned::Replayed(0));
    let linked = b
        .read(|g, _| {
            let (x, y) = (g.lookup("a.md::0").unwrap(), g.lookup("a.md::2").unwrap());
            g.edge(x, y).is_some() || g.edge(y, x).is_some()
        })
        .unwrap();
    assert!(!linked);
}

/// The daemon's `forget` answers the report's fields, refuses two targets at once, and
/// the resident brain it serves no longer fires the forgotten file.
#[test]
fn the_daemon_forgets_a_file() {
    use crabpath_brain::serve::daemon::{Daemon, Step};
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let (mut d, _) = Daemon::new(common::open_hash(&db, Profile::Corrected, true), 0).unwrap();
    let answer = |d: &mut Daemon, line: &str| -> serde_json::Value {
        match d.handle(line) {
            Step::Answer(a) => serde_json::from_str(&a).unwrap(),
            other => panic!("{other:?}"),
        }
    };
    let two = answer(
        &mut d,
        r#"{"id": 1, "method": "forget", "params": {"file": "b.md", "node": "a.md::0"}}"#,
    );
    assert_eq!(
        two["error"]["message"],
        "forget: give only one of file, node or chat"
    );
    let q =
        format!(r#"{{"id": 2, "method": "query", "params": {{"query": "vault code {MARKER}"}}}}"#);
    let fired = answer(&mut d, &q)["result"]["fired_nodes"].to_string();
    assert!(fired.contains("b.md"), "{fired}");
    let r = answer(
        &mut d,
        r#"{"id": 3, "method": "forget", "params": {"file": "b.md"}}"#,
    );
    assert_eq!(r["result"]["kind"], "file");
    // b.md's chunks, counted by the split itself (the ids of its nodes before forget)
    let ids = r["result"]["ids"].as_array().unwrap().clone();
    assert!(
        ids.len() >= 2
            && ids
                .iter()
                .all(|i| i.as_str().unwrap().starts_with("b.md::")),
        "{ids:?}"
    );
    assert_eq!(r["result"]["nodes"], ids.len());
    let fired = answer(&mut d, &q)["result"]["fired_nodes"].to_string();
    assert!(!fired.contains("b.md"), "{fired}");
}

/// The learn events of the exactness test, as (fired ids, outcome): within files,
/// across a and c (new edges), and through b (dropped by forget). The first starts
/// d's bucket (its outgoing edges) before e's in X only; in Y, e's comes first.
fn events() -> Vec<(Vec<&'static str>, f64)> {
    vec![
        (vec!["d.md::0", "b.md::0"], 1.0),
        (vec!["e.md::0", "c.md::1"], 1.0),
        (vec!["d.md::0", "a.md::1"], 1.0),
        (vec!["a.md::0", "a.md::1"], 1.0),
        (vec!["b.md::0", "b.md::1"], 1.0),
        (vec!["a.md::1", "c.md::0"], 1.0),
        (vec!["c.md::0", "b.md::1", "a.md::0"], -1.0),
        (vec!["c.md::1", "a.md::0", "c.md::0"], 0.5),
        (vec!["a.md::1", "c.md::0"], 1.0),
        (vec!["c.md::0", "c.md::1"], -0.5),
    ]
}

/// The brain's export (state.json) as JSON, without `meta.created_at` (the time of init).
fn exported(b: &mut Brain, dir: &Path) -> serde_json::Value {
    let out = dir.join("state.json");
    crabpath_brain::service::export_state(b, &out).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    v["meta"].as_object_mut().unwrap().remove("created_at");
    v
}

/// Issue 30 item 3's exactness test: brain X (files a, b, c and the events) forgets b;
/// brain Y (files a and c, the events that do not touch b) is taught the same rest.
/// Their exports are equal; without the replay they are not (X lists d's edges before
/// e's: its bucket was started by the learn through b.md::0).
#[test]
fn forget_then_replay_equals_never_having_had_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let x_db = brain(&dir.path().join("x"));
    // Y: the same folder without b.md
    let ws_y = dir.path().join("y/ws");
    std::fs::create_dir_all(&ws_y).unwrap();
    for f in ["a.md", "c.md", "d.md", "e.md"] {
        std::fs::copy(dir.path().join("x/ws").join(f), ws_y.join(f)).unwrap();
    }
    let boot = split_workspace(&ws_y, &SplitOptions::new(Profile::Corrected)).unwrap();
    let y_db = common::hash_store(&dir.path().join("y/brain"), &boot.graph);

    let (mut x, mut y) = (open(&x_db), open(&y_db));
    for (fired, outcome) in events() {
        let fired: Vec<String> = fired.iter().map(|s| s.to_string()).collect();
        x.learn(&fired, outcome).unwrap();
        if !fired.iter().any(|f| f.starts_with("b.md")) {
            y.learn(&fired, outcome).unwrap();
        }
    }
    let before = exported(&mut x, &dir.path().join("x"));
    let r = x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    // 10 events, 3 through b.md (the 1st, the 5th and the 7th)
    assert_eq!(r.relearned, crabpath_brain::service::Relearned::Replayed(7));
    assert_eq!(r.removed.journal, 3);
    let (ex, ey) = (
        exported(&mut x, &dir.path().join("x")),
        exported(&mut y, &dir.path().join("y")),
    );
    assert_ne!(before["graph"], ey["graph"]);
    assert_eq!(ex["graph"], ey["graph"]);
    assert_eq!(ex, ey);
}
