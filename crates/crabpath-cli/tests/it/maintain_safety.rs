//! `maintain` never loses a workspace file and never leaves half a removal behind
//! (issue 33, item 5), tested through the program:
//! * the default `maintain` keeps the only chunk of every single-chunk file in the
//!   corrected profile (the reference's prune drops them; the paper profile still does),
//!   and a remembered conversation turn that has no edge;
//! * a node that `maintain` removes (a question node: a teaching the user gave stays,
//!   fix M5) takes its vector with it: `doctor` passes and the counts of nodes and
//!   vectors agree;
//! * `kill -9` at evenly spaced moments of a `maintain` that removes nodes leaves the
//!   brain as it was before or as it is after, never between.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Nine single-chunk files (`n1.md` … `n9.md`, one paragraph, no heading: one chunk
/// each) and two files of a title and three sections (4 chunks each): 9 + 2 × 4 = 17
/// nodes.
fn workspace(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for i in 1..=9 {
        std::fs::write(
            ws.join(format!("n{i}.md")),
            format!("This is note number {i} about topic{i} and some shared words.\n"),
        )
        .unwrap();
    }
    for (name, title) in [("big.md", "Big"), ("two.md", "Two")] {
        std::fs::write(
            ws.join(name),
            format!(
                "# {title}\n\n## A\nalpha text here\n\n## B\nbeta text here\n\n## C\ngamma text\n"
            ),
        )
        .unwrap();
    }
    ws
}

fn ok(dir: &Path, profile: &str, args: &[&str]) -> String {
    let (rc, out, err) = common::run_text(dir, profile, args);
    assert_eq!(rc, 0, "{args:?}: {out}{err}");
    out
}

/// `init` of [`workspace`] into `dir/brain`.
fn init(dir: &Path, profile: &str) {
    workspace(dir);
    ok(
        dir,
        profile,
        &["init", "--workspace", "ws", "--output", "brain"],
    );
}

/// The `nodes: a -> b` line of a maintenance report.
fn nodes_line(report: &str) -> String {
    report
        .lines()
        .find(|l| l.trim_start().starts_with("nodes:"))
        .unwrap_or_else(|| panic!("no nodes line in {report}"))
        .trim()
        .to_string()
}

/// What the database holds, read with SQLite: (node ids in node order, edges as
/// (source, target, weight bits), node ids with a vector), and the counts of nodes
/// and vectors of `PRAGMA integrity_check`'s database (which must say `ok`).
#[derive(Debug, Clone, PartialEq)]
struct Rows {
    nodes: Vec<String>,
    edges: Vec<(String, String, u64)>,
    vectors: Vec<String>,
}

fn rows(db: &Path) -> Rows {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let check: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok", "{}", db.display());
    let strings = |sql: &str| -> Vec<String> {
        let mut st = c.prepare(sql).unwrap();
        let v = st
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        v
    };
    let nodes = strings("SELECT id FROM nodes WHERE node_seq IS NOT NULL ORDER BY node_seq");
    let vectors =
        strings("SELECT n.id FROM vectors v JOIN nodes n ON n.sym = v.sym ORDER BY v.seq");
    let mut st = c
        .prepare(
            "SELECT s.id, t.id, e.weight FROM edges e JOIN nodes s ON s.sym = e.src \
             JOIN nodes t ON t.sym = e.tgt ORDER BY s.id, t.id",
        )
        .unwrap();
    let edges = st
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<_, f64>(2)?.to_bits()))
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    Rows {
        nodes,
        edges,
        vectors,
    }
}

/// The text of injected node `i` (1 to 9): a word of no other node, so that its edges,
/// weighted by similarity, stay weak (at most 0.124 here, against init's sibling edges
/// of 0.49 to 0.51).
fn teaching(i: usize) -> String {
    let words = [
        "zebra", "quartz", "violin", "harbor", "maple", "circuit", "lantern", "glacier", "mosaic",
    ];
    words[i - 1].to_string()
}

/// A `maintain` of `brain` that prunes the weak edges of the injected nodes
/// ([`teaching`]) and of the question nodes ([`ask`]), keeping the sibling edges of
/// init: the question nodes are then orphans and removed; the teachings, orphans too,
/// stay (fix M5: maintenance never deletes what a user gave).
const PRUNE: [&str; 7] = [
    "maintain",
    "--state",
    "brain",
    "--tasks",
    "decay,prune",
    "--prune-below",
    "0.45",
];

/// Injects the nodes `teaching::1` … `teaching::<n>` ([`teaching`]) into `dir/brain`.
fn inject_teachings(dir: &Path, n: usize) {
    for i in 1..=n {
        let id = format!("teaching::{i}");
        let content = teaching(i);
        let args = [
            "inject",
            "--state",
            "brain",
            "--id",
            &id,
            "--content",
            &content,
        ];
        ok(dir, "corrected", &args);
    }
}

/// Questions whose queries each grow a question node (`auto:…`, neurogenesis, on by
/// default in the corrected profile), linked to the chunks they fired by edges of 0.15.
const QUESTIONS: [&str; 4] = [
    "notes about topic3 words",
    "alpha and beta text",
    "shared words of note four",
    "which note is number seven",
];

/// Asks [`QUESTIONS`] of `dir/brain`; returns the number of question nodes it then
/// holds.
fn ask(dir: &Path) -> usize {
    for q in QUESTIONS {
        ok(dir, "corrected", &["query", q, "--state", "brain"]);
    }
    let r = rows(&dir.join("brain/brain.db"));
    r.nodes.iter().filter(|n| n.starts_with("auto:")).count()
}

/// `doctor` passes (exit status 0) and says so on every line it checks.
fn doctor_passes(dir: &Path, state: &str) {
    let (rc, out, err) = common::run_text(dir, "corrected", &["doctor", "--state", state]);
    assert_eq!(rc, 0, "doctor of {state}:\n{out}{err}");
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn maintain_keeps_single_chunk_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected");
    // the 17 nodes of `workspace`; the 9 single-chunk files have no edge (init links
    // the chunks of one file to each other only)
    let report = ok(d, "corrected", &["maintain", "--state", "brain"]);
    assert_eq!(nodes_line(&report), "nodes: 17 -> 17", "{report}");
    let found = ok(d, "corrected", &["query", "topic3", "--state", "brain"]);
    assert!(found.contains("n3.md::0"), "{found}");
    doctor_passes(d, "brain");
    let r = rows(&d.join("brain/brain.db"));
    assert_eq!((r.nodes.len(), r.vectors.len()), (17, 17));

    // the paper profile keeps the reference's prune: the 9 single-chunk files go
    let paper = tempfile::tempdir().unwrap();
    let p = paper.path();
    init(p, "paper");
    let report = ok(p, "paper", &["maintain", "--state", "brain"]);
    assert_eq!(nodes_line(&report), "nodes: 17 -> 8", "{report}");
}

#[test]
fn pruned_nodes_take_their_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected");
    inject_teachings(d, 3);
    assert_eq!(ask(d), 4);
    // inject's edges weigh its similarities (see `teaching`), a question node's 0.15,
    // init's sibling edges about 0.5 (0.49 after one decay step): pruning below 0.45
    // leaves the 12 sibling edges of `big.md` and `two.md` and makes every other node
    // an orphan; of them only the 4 question nodes are removed, with their vectors
    // (the chunks have files, M3, and the teachings were given by the user, M5)
    let report = ok(d, "corrected", &PRUNE);
    assert_eq!(nodes_line(&report), "nodes: 24 -> 20", "{report}");
    assert!(
        report.contains("pruned: edges=") && report.contains("nodes=4"),
        "{report}"
    );
    let r = rows(&d.join("brain/brain.db"));
    assert_eq!(r.nodes.len(), 20);
    assert!(
        r.nodes.iter().all(|n| !n.starts_with("auto:")),
        "{:?}",
        r.nodes
    );
    assert_eq!(r.vectors, r.nodes, "vectors and nodes differ");
    assert_eq!(r.edges.len(), 12, "{:?}", r.edges);
    doctor_passes(d, "brain");
    let found = ok(d, "corrected", &["query", &teaching(1), "--state", "brain"]);
    assert!(found.contains("teaching::1"), "{found}");
}

const TRIALS: u32 = 20;

#[test]
fn kill_9_mid_maintain_leaves_before_or_after() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected");
    inject_teachings(d, 9);
    assert_eq!(ask(d), 4);
    let before = rows(&d.join("brain/brain.db"));
    assert_eq!(before.nodes.len(), 17 + 9 + 4);
    // a run to the end: the after state (decay and prune are deterministic)
    let full = d.join("full");
    common::copy_tree(&d.join("brain"), &full.join("brain"));
    let t = Instant::now();
    ok(&full, "corrected", &PRUNE);
    let span = t.elapsed() + Duration::from_millis(5);
    let after = rows(&full.join("brain/brain.db"));
    // the 4 question nodes removed
    assert_eq!(after.nodes.len(), 17 + 9);
    assert_eq!(after.vectors, after.nodes);
    let mut seen = (0, 0);
    for k in 0..TRIALS {
        let trial = d.join(format!("t{k}"));
        common::copy_tree(&d.join("brain"), &trial.join("brain"));
        let mut child = Command::new(common::bin())
            .args(PRUNE)
            .current_dir(&trial)
            .env("CRABPATH_PROFILE", "corrected")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // evenly spaced moments over the run's length (Child::kill is SIGKILL)
        std::thread::sleep(span.mul_f64(f64::from(k) / f64::from(TRIALS - 1)));
        let _ = child.kill();
        child.wait().unwrap();
        let now = rows(&trial.join("brain/brain.db"));
        if now == before {
            seen.0 += 1;
        } else {
            assert_eq!(now, after, "trial {k}: neither before nor after");
            seen.1 += 1;
        }
        doctor_passes(&trial, "brain");
    }
    assert_eq!(seen.0 + seen.1, TRIALS);
    assert!(seen.0 > 0, "no kill landed before the commit: {seen:?}");
}

/// A turn remembered through the daemon into a new session whose words no other turn
/// has (so it has no edge: nothing to chain to, no rare word to link by), then the
/// daemon's default `maintain` and the command line's. Before, the first prune took the
/// turn for an orphaned overlay node and removed it: the acknowledged turn was gone.
#[test]
fn maintain_keeps_a_remembered_turn_without_links() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected");
    let mut daemon = common::Served::start(d, "brain");
    let mut ask = |method: &str, params| daemon.ask(method, params);
    let r = ask(
        "remember",
        json!({"text": "Quokkas nap beside xylophones", "id": "lone-turn", "session": "s9"}),
    );
    assert_eq!(
        r["result"]["edges"],
        json!([]),
        "the case of this test: {r}"
    );
    let m = ask("maintain", json!({}));
    assert_eq!(m["result"]["pruned_nodes"], 0, "{m}");
    ask("shutdown", json!({}));
    assert!(daemon.child.wait().unwrap().success());
    ok(d, "corrected", &["maintain", "--state", "brain"]);
    let c = rusqlite::Connection::open(d.join("brain/brain.db")).unwrap();
    let text: Option<String> = c
        .query_row(
            "SELECT content FROM nodes WHERE id = 'lone-turn'",
            [],
            |r| r.get(0),
        )
        .ok();
    assert_eq!(text.as_deref(), Some("Quokkas nap beside xylophones"));
    ok(d, "corrected", &["doctor", "--state", "brain"]);
}
