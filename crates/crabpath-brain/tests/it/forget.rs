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

/// A forgotten file's name is gone too. The mark that says a forget is under way
/// (`meta.forget_pending`: the target and its node ids, all of them the file's path)
/// was deleted after the `VACUUM`, without `secure_delete`: the path stayed readable
/// in the database's free space, once per node id. This test then fails: the name is
/// still in `brain.db`.
#[test]
fn forgetting_a_file_leaves_none_of_its_name() {
    const NAME: &str = "PELICAN-NAME-5519";
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("a.md"),
        "# Deploy\n\nRun the deploy script first.\n",
    )
    .unwrap();
    let file = format!("{NAME}.md");
    std::fs::write(
        ws.join(&file),
        "# Report\n\nThe report is due on Friday.\n\nSend it to the board.\n",
    )
    .unwrap();
    let boot = split_workspace(&ws, &SplitOptions::new(Profile::Corrected)).unwrap();
    let db = common::hash_store(&dir.path().join("brain"), &boot.graph);
    let brain_dir = db.parent().unwrap().to_path_buf();
    let (_, before) = files_holding(&brain_dir, NAME);
    assert!(!before.is_empty(), "the check below can see the name");
    let mut b = open(&db);
    let r = b.forget(&ForgetTarget::File(file)).unwrap();
    assert!(r.removed.nodes >= 2, "its two paragraphs at least: {r:?}");
    drop(b);
    let (seen, hits) = files_holding(&brain_dir, NAME);
    assert!(seen >= 1, "the database at least: {seen}");
    assert!(hits.is_empty(), "`{NAME}` still in {hits:?}");
}

/// A merged node holds the text of its parts: forgetting a file removes every merged
/// node that joined one of its chunks, however deep the merges (a merge of a merged
/// node records the parts of both, `merged_parts`). Before, `forget --file b.md` after
/// maintenance had merged b.md's two paragraphs left the merged node, and the marker
/// readable in the database.
#[test]
fn forgetting_a_file_removes_the_merged_nodes_holding_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let brain_dir = db.parent().unwrap().to_path_buf();
    let mut b = open(&db);
    // b.md's paragraphs learned together both ways past the merge bar (0.8), merged;
    // then the merged node with c.md's first paragraph, merged again
    common::learn_until_mergeable(&mut b, "b.md::1", "b.md::2");
    Step::Maintain("merge").apply(&mut b);
    let merged_ids = |b: &mut Brain| {
        b.read(|g, _| {
            g.nodes()
                .filter(|(_, n)| n.id.starts_with("merged:"))
                .map(|(_, n)| n.id.clone())
                .collect::<Vec<_>>()
        })
        .unwrap()
    };
    let first = merged_ids(&mut b);
    assert_eq!(first.len(), 1, "{first:?}");
    common::learn_until_mergeable(&mut b, &first[0], "c.md::1");
    Step::Maintain("merge").apply(&mut b);
    let second = merged_ids(&mut b);
    assert!(
        second.len() == 1 && second != first,
        "{first:?} then {second:?}"
    );
    let (_, before) = files_holding(&brain_dir, MARKER);
    assert!(!before.is_empty());

    b.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert!(merged_ids(&mut b).is_empty());
    drop(b);
    let (_, hits) = files_holding(&brain_dir, MARKER);
    assert!(hits.is_empty(), "`{MARKER}` still in {hits:?}");
}

/// A forget interrupted after its removal committed (here the search index cannot be
/// written, as a kill or a full disk would stop it) leaves a pending mark
/// in the brain; the next `forget` of the same target finishes it: the snapshot and the
/// database file lose the content and the weights are rebuilt. Before, the second call
/// answered "no file `b.md`" and the snapshot kept the content for good.
#[test]
fn an_interrupted_forget_is_finished_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let brain_dir = db.parent().unwrap().to_path_buf();
    let mut b = open(&db);
    let fired = ask(&mut b, &format!("what is the vault code {MARKER}"));
    b.learn(&fired, 1.0).unwrap();
    b.snapshot("undo").unwrap();
    // the derived index cannot be written: a directory (not empty) stands in its place
    let idx = brain_dir.join("search.idx");
    std::fs::remove_file(&idx).ok();
    std::fs::create_dir_all(idx.join("block")).unwrap();
    let e = b.forget(&ForgetTarget::File("b.md".into())).unwrap_err();
    assert!(e.to_string().contains("search.idx"), "{e}");
    // the content left the brain's tables, but the snapshot still holds it
    assert!(!b.has_node("b.md::1").unwrap());
    let (_, hits) = files_holding(&brain_dir, MARKER);
    assert!(
        hits.iter()
            .any(|p| p.to_string_lossy().contains("snapshots")),
        "{hits:?}"
    );
    std::fs::remove_dir_all(&idx).unwrap();
    // a rollback to the snapshot now would bring the content back: refused
    let e = b.rollback(Some("undo")).unwrap_err().to_string();
    assert!(e.contains("did not finish"), "{e}");

    let r = b.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert!(r.resumed, "{r:?}");
    assert_eq!(r.removed.nodes, 0);
    assert_eq!(r.snapshots.len(), 1);
    assert!(
        matches!(r.relearned, crabpath_brain::service::Relearned::Replayed(_)),
        "{r:?}"
    );
    drop(b);
    let (seen, hits) = files_holding(&brain_dir, MARKER);
    assert!(seen >= 2, "{seen}");
    assert!(hits.is_empty(), "still in {hits:?}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let left: i64 = conn
        .query_row(
            "SELECT count(*) FROM meta WHERE key = 'forget_pending'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0, "the pending mark goes once done");
    // a forget of it again is the error it always was
    let mut b = open(&db);
    assert!(b.forget(&ForgetTarget::File("b.md".into())).is_err());
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
pub(crate) fn exported(b: &mut Brain, dir: &Path) -> serde_json::Value {
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

/// One step of a brain's history in the tests below (issue 30 item 3: every kind of
/// learning event a folder brain records).
#[derive(Debug, Clone)]
pub(crate) enum Step {
    Learn(Vec<&'static str>, f64),
    /// A TEACHING node: id, text (connected to its 2 nearest nodes scoring ≥ 0.05).
    Inject(&'static str, &'static str),
    /// A turn of the conversation `chat` that fired these ids along this path.
    Turn(Vec<&'static str>),
    /// A correction with the given rule: a veto of the newest turn of `chat-1`, a
    /// guardrail of no conversation (a second correction of the same turn would find
    /// its credit consumed by the first in X and not in a Y without the first).
    Correct(&'static str, crabpath_brain::service::CorrectionMode),
    /// `maintain` (daemon flavour) with these tasks.
    Maintain(&'static str),
    /// A dry run of `maintain` (command-line flavour) with these tasks: journaled,
    /// nothing changed.
    MaintainDry(&'static str),
    /// `autotune` on its own.
    Autotune,
    /// `anchor` of a node: set this authority, or remove it (`None`).
    Anchor(&'static str, Option<&'static str>),
    /// `connect`: cross-file edges between the chunk pairs with the most words in common.
    Connect,
}

impl Step {
    /// The ids the step names (a correction: its node's id, which only `apply` knows).
    pub(crate) fn names(&self) -> Vec<String> {
        match self {
            Step::Learn(ids, _) | Step::Turn(ids) => ids.iter().map(|s| s.to_string()).collect(),
            Step::Inject(id, _) => vec![id.to_string()],
            Step::Correct(text, _) => vec![crabpath_brain::service::turns::feedback_node_id(
                "CORRECTION",
                text,
            )],
            Step::Anchor(id, _) => vec![id.to_string()],
            Step::Maintain(_) | Step::MaintainDry(_) | Step::Autotune | Step::Connect => Vec::new(),
        }
    }

    pub(crate) fn apply(&self, b: &mut Brain) {
        use crabpath_brain::service::command::maintain::{Flavor, MaintainOptions};
        use crabpath_brain::service::turns::Window;
        use crabpath_brain::service::{CorrectRequest, CorrectionMode};
        let owned = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        match self {
            Step::Learn(ids, outcome) => {
                b.learn(&owned(ids), *outcome).unwrap();
            }
            Step::Inject(id, text) => {
                b.inject(&common::teaching(id, text, 2)).unwrap();
            }
            Step::Turn(ids) => {
                common::log_query(b, "chat-1", ids, "how do we ship");
            }
            Step::Correct(text, mode) => {
                b.correct_with(
                    &CorrectRequest {
                        content: text,
                        chat_id: (*mode == CorrectionMode::Veto).then_some("chat-1"),
                        turns_ago: None,
                        outcome: -1.0,
                        window: Window::default(),
                        source: "test",
                    },
                    *mode,
                )
                .unwrap();
            }
            Step::Maintain(tasks) | Step::MaintainDry(tasks) => {
                let dry_run = matches!(self, Step::MaintainDry(_));
                b.maintain(&MaintainOptions {
                    requested: tasks.split(',').map(str::to_string).collect(),
                    dry_run,
                    max_merges: 5,
                    prune_below: 0.01,
                    flavor: if dry_run { Flavor::Cli } else { Flavor::Daemon },
                    journal: true,
                    embedder: None,
                })
                .unwrap();
            }
            Step::Autotune => {
                b.autotune(false).unwrap();
            }
            Step::Connect => {
                b.connect_chunks().unwrap();
            }
            Step::Anchor(id, authority) => {
                use crabpath_brain::service::command::anchor::AnchorAction;
                let action = authority.map_or(AnchorAction::Remove, AnchorAction::Set);
                b.anchor(id, action).unwrap();
            }
        }
    }
}

/// A history of every kind of learning event, interleaved: learns (some through
/// b.md), two injections, a veto correction of a turn (its credit learned, its path
/// inhibited), a guardrail correction, maintenance runs (health and the autotuner,
/// decay, prune, merge; one of them dry) and the autotuner on its own.
fn history() -> Vec<Step> {
    use crabpath_brain::service::CorrectionMode::{Guardrail, Veto};
    vec![
        Step::Learn(vec!["d.md::0", "b.md::0"], 1.0),
        Step::Learn(vec!["a.md::0", "a.md::1", "c.md::0"], 1.0),
        Step::Inject(
            "teaching::ship",
            "Deploy to staging first, then production; nightly backups before a deploy.",
        ),
        Step::Learn(vec!["teaching::ship", "a.md::1"], 1.0),
        Step::Maintain("health,decay,prune"),
        Step::Learn(vec!["b.md::0", "b.md::1"], 1.0),
        Step::Turn(vec!["a.md::0", "a.md::1", "c.md::1"]),
        Step::Correct(
            "Production promotion needs the backups restore drill first.",
            Veto,
        ),
        Step::Learn(vec!["c.md::0", "b.md::1", "a.md::0"], -1.0),
        Step::Inject(
            "teaching::eels",
            "Eels and dogs: the river stones and the mail carrier.",
        ),
        Step::Correct("Cold storage backups run nightly, not weekly.", Guardrail),
        Step::Learn(vec!["e.md::0", "teaching::eels", "c.md::1"], 0.5),
        Step::Maintain("health,decay,merge,prune"),
        Step::Learn(vec!["a.md::1", "c.md::0"], 1.0),
        Step::MaintainDry("health,decay,prune"),
        Step::Autotune,
        Step::Maintain("decay"),
        Step::Learn(vec!["c.md::0", "c.md::1"], -0.5),
    ]
}

/// Applies `steps` to X, and to Y those that name nothing of b.md (Y never had it).
fn teach(x: &mut Brain, y: &mut Brain, steps: Vec<Step>) {
    for step in steps {
        step.apply(x);
        if !step.names().iter().any(|id| id.starts_with("b.md")) {
            step.apply(y);
        }
    }
}

/// X forgets b.md: its weights are rebuilt from `events` recorded events, and its graph,
/// which differed from Y's before, equals it after. Returns both exports.
fn forget_b_equals_y(
    x: &mut Brain,
    y: &mut Brain,
    dir: &Path,
    events: usize,
) -> (serde_json::Value, serde_json::Value) {
    let before = exported(x, &dir.join("x"));
    let r = x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert_eq!(
        r.relearned,
        crabpath_brain::service::Relearned::Replayed(events)
    );
    let (ex, ey) = (exported(x, &dir.join("x")), exported(y, &dir.join("y")));
    assert_ne!(before["graph"], ey["graph"]);
    assert_eq!(ex["graph"], ey["graph"]);
    (ex, ey)
}

/// The replay was skipped, for a reason that says each of `words`.
fn assert_kept(r: &crabpath_brain::service::Relearned, words: &[&str]) {
    match r {
        crabpath_brain::service::Relearned::Kept(why) => {
            assert!(words.iter().all(|w| why.contains(w)), "{why}")
        }
        other => panic!("{other:?}"),
    }
}

/// X and Y: the folder of [`brain`] (X) and, in Y, the same folder without `without`
/// (a file name), each with its database; both open.
pub(crate) fn two_brains(dir: &Path, without: Option<&str>) -> (Brain, Brain) {
    let x_db = brain(&dir.join("x"));
    let ws_y = dir.join("y/ws");
    std::fs::create_dir_all(&ws_y).unwrap();
    for e in std::fs::read_dir(dir.join("x/ws")).unwrap().flatten() {
        if Some(e.file_name().to_string_lossy().as_ref()) != without {
            std::fs::copy(e.path(), ws_y.join(e.file_name())).unwrap();
        }
    }
    let boot = split_workspace(&ws_y, &SplitOptions::new(Profile::Corrected)).unwrap();
    let y_db = common::hash_store(&dir.join("y/brain"), &boot.graph);
    (open(&x_db), open(&y_db))
}

/// The connections of the injected and correction nodes of `b`, by id: what the
/// exactness tests rely on (none may reach b.md, whose absence in Y would change the
/// search).
pub(crate) fn inject_links(b: &mut Brain) -> Vec<(String, String)> {
    b.read(|g, _| {
        g.edges()
            .filter_map(|(s, t, e)| {
                let (s, t) = (g.name(s).to_string(), g.name(t).to_string());
                let of_inject = e.metadata.get("source").and_then(|v| v.as_str()) == Some("inject");
                of_inject.then_some((s, t))
            })
            .collect()
    })
    .unwrap()
}

/// Issue 30 item 3's exactness test with every kind of learning event: X (files a, b,
/// c, d, e and [`history`]) forgets b; Y (no b, the history less the steps naming b)
/// is the same brain, export for export. Before injections, corrections and
/// maintenance were journaled with their inputs, the replay could not repeat them and
/// the weights were kept (`Relearned::Kept`).
#[test]
fn forget_replays_injections_corrections_and_maintenance() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    for step in history() {
        step.apply(&mut x);
        if !step.names().iter().any(|id| id.starts_with("b.md")) {
            step.apply(&mut y);
        }
    }
    // the injections and corrections found their neighbours in a, c, d and e: the same
    // search in Y, which never had b
    let links = inject_links(&mut x);
    assert!(links.len() >= 4, "{links:?}");
    assert!(
        !links
            .iter()
            .any(|(s, t)| s.starts_with("b.md") || t.starts_with("b.md")),
        "{links:?}"
    );
    // 18 steps, 3 of them learns through b; the rest record 6 learns (one of them the
    // veto correction's credit), 4 injections (two teachings, two correction nodes),
    // 2 corrections, 3 maintenance runs and 1 autotuner run (the turn and the dry run
    // record none)
    let (ex, ey) = forget_b_equals_y(&mut x, &mut y, dir.path(), 16);
    assert_eq!(ex, ey);
    // and they answer alike: the nodes that came back have their vectors and lexical
    // postings
    for q in [
        "deploy to staging then production",
        "eels river stones mail carrier",
        "cold storage backups nightly",
    ] {
        assert_eq!(ask(&mut x, q), ask(&mut y, q), "{q}");
    }
}

/// The folder changes both brains of [`forget_replays_syncs`] see (a file's chunk 0 is
/// its title): first a.md loses its last paragraph (a.md::2 removed), c.md grows one
/// (c.md::3), d.md is deleted and f.md is new; then d.md comes back (d.md::0 again)
/// and c.md shrinks back (c.md::3 removed).
fn change_folder(ws: &Path, second: bool) {
    if second {
        std::fs::write(
            ws.join("d.md"),
            "Dogs sleep after the mail carrier leaves.\n",
        )
        .unwrap();
        std::fs::write(
            ws.join("c.md"),
            "# Backups\n\nNightly backups go to the cold storage bucket.\n\nRestore drills run every quarter on a spare host.\n",
        )
        .unwrap();
        return;
    }
    std::fs::write(
        ws.join("a.md"),
        "# Deploy\n\nRun the deploy script on the staging host first.\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("c.md"),
        "# Backups\n\nNightly backups go to the cold storage bucket.\n\nRestore drills run every quarter on a spare host.\n\nOld tapes are shredded after a year.\n",
    )
    .unwrap();
    std::fs::remove_file(ws.join("d.md")).unwrap();
    std::fs::write(
        ws.join("f.md"),
        "# Fish\n\nFeed the fish twice a day.\n\nClean the tank every week.\n",
    )
    .unwrap();
}

/// A corrected `sync` of `b` with its folder `ws`, journaled as the command line does.
pub(crate) fn sync(b: &mut Brain, ws: &Path) -> crabpath_brain::source::sync::SyncReport {
    use pyformat::pyjson::{PyDict, PyValue};
    let event = |_: &crabpath_brain::source::sync::SyncReport| {
        let mut e = PyDict::new();
        e.insert("type".into(), PyValue::Str("sync".into()));
        e
    };
    b.sync(ws, Vec::new(), false, None, &event, Default::default())
        .unwrap()
}

/// Issue 30 item 3 with the folder changing under the brain: X (files a–e) and Y (no
/// b) learn, sync the same folder changes twice (chunks added, removed, a file
/// deleted and one new, a chunk id removed and made again) with learns and
/// maintenance between, then X forgets b. The replay repeats each sync from its
/// journal entry (stand-ins for the chunks a sync removed, whose text is gone), and X
/// equals Y edge for edge. Before, a `sync` entry held counts only and stopped the
/// replay (`Relearned::Kept`): a synced brain could forget a file but not unlearn it.
#[test]
fn forget_replays_syncs() {
    use crabpath_brain::service::CorrectionMode::Guardrail;
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let (wx, wy) = (dir.path().join("x/ws"), dir.path().join("y/ws"));
    teach(
        &mut x,
        &mut y,
        vec![
            Step::Learn(vec!["d.md::0", "b.md::0"], 1.0),
            Step::Learn(vec!["a.md::0", "a.md::2", "c.md::0"], 1.0),
            Step::Learn(vec!["d.md::0", "a.md::2", "e.md::0"], 1.0),
            Step::Maintain("health,decay,prune"),
            Step::Learn(vec!["b.md::0", "b.md::1"], 1.0),
            Step::Learn(vec!["c.md::1", "e.md::0"], -1.0),
        ],
    );
    change_folder(&wx, false);
    change_folder(&wy, false);
    let (rx, ry) = (sync(&mut x, &wx), sync(&mut y, &wy));
    let c = rx.changes.clone().unwrap();
    assert_eq!(c.added, ["c.md::3", "f.md::0", "f.md::1", "f.md::2"]);
    assert_eq!(c.removed, ["a.md::2", "d.md::0"]);
    // (X's first sync also lists b.md's chunks among the files it re-split: the brain
    // had no record of the folder yet)
    let (cx, cy) = (rx.changes.unwrap(), ry.changes.unwrap());
    assert_eq!((&cx.added, &cx.removed), (&cy.added, &cy.removed));
    teach(
        &mut x,
        &mut y,
        vec![
            Step::Learn(vec!["f.md::0", "c.md::3", "a.md::0"], 1.0),
            Step::Learn(vec!["b.md::1", "f.md::1"], 1.0),
            Step::Correct("Cold storage backups run nightly, not weekly.", Guardrail),
            Step::Maintain("health,decay,prune"),
            Step::Autotune,
            Step::Learn(vec!["f.md::1", "e.md::0", "c.md::3"], 0.5),
        ],
    );
    change_folder(&wx, true);
    change_folder(&wy, true);
    let (rx, ry) = (sync(&mut x, &wx), sync(&mut y, &wy));
    assert_eq!(rx.changes.as_ref().unwrap().added, ["d.md::0"]);
    assert_eq!(rx.changes.as_ref().unwrap().removed, ["c.md::3"]);
    // (X's first sync also lists b.md's chunks among the files it re-split: the brain
    // had no record of the folder yet)
    let (cx, cy) = (rx.changes.unwrap(), ry.changes.unwrap());
    assert_eq!((&cx.added, &cx.removed), (&cy.added, &cy.removed));
    teach(
        &mut x,
        &mut y,
        vec![
            Step::Learn(vec!["d.md::0", "a.md::0", "f.md::0"], 1.0),
            Step::Maintain("decay"),
        ],
    );
    // 14 steps and 2 syncs: 2 learns through b dropped; the rest record 6 learns, the
    // correction's node and its correction, 3 maintenance runs, 1 autotuner run, 2 syncs
    forget_b_equals_y(&mut x, &mut y, dir.path(), 14);

    // a chunk a sync added, forgotten: the sync no longer names it, and the rest replays
    let r = x.forget(&ForgetTarget::Node("f.md::1".into())).unwrap();
    assert!(
        matches!(r.relearned, crabpath_brain::service::Relearned::Replayed(_)),
        "{r:?}"
    );
    let db = dir.path().join("x/brain/brain.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let naming: i64 = conn
        .query_row(
            "SELECT count(*) FROM journal WHERE entry LIKE '%f.md::1%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(naming, 0);
    let syncs: i64 = conn
        .query_row(
            "SELECT count(*) FROM journal WHERE entry LIKE '%\"type\": \"sync\"%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(syncs, 2, "the sync entries are rewritten, not deleted");
}

/// A chunk of the forgotten file that a sync removed before the forget (here b.md's
/// last paragraph) is no node any more, but the learn through it is still in the
/// journal. Before, forget dropped only the entries naming the file's nodes that were
/// left: the replay ran that learn on a stand-in of b.md::2 and kept the edges it made
/// between a.md::0 and c.md::0, which Y never had, and said `Replayed` (found by
/// `forget_random`).
#[test]
fn forget_drops_the_learns_through_a_chunk_a_sync_removed_before() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let (wx, wy) = (dir.path().join("x/ws"), dir.path().join("y/ws"));
    teach(
        &mut x,
        &mut y,
        vec![Step::Learn(vec!["a.md::0", "c.md::0", "b.md::2"], 1.0)],
    );
    std::fs::write(
        wx.join("b.md"),
        format!("# Secret\n\nThe vault code is {MARKER} and only ops may read it.\n"),
    )
    .unwrap();
    let r = sync(&mut x, &wx);
    assert_eq!(r.changes.unwrap().removed, ["b.md::2"]);
    sync(&mut y, &wy);
    // the sync is replayed; the learn through b.md::2 is gone with b.md
    forget_b_equals_y(&mut x, &mut y, dir.path(), 1);
}

/// A file deleted from the folder before a brain's first sync (no record of its files
/// yet): the sync removes its chunks whether or not a learn linked them to a re-split
/// file. Before, a database brain's sync read only the re-split files and the nodes with
/// an edge into them, so X (e.md::0 learned with b.md::0) lost e.md::0 and Y (e.md::0
/// never learned) kept it; X's replay repeated its own sync and differed from Y with
/// nothing said (found by `forget_random`).
#[test]
fn forget_after_a_first_sync_that_deleted_an_unlinked_file() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let (wx, wy) = (dir.path().join("x/ws"), dir.path().join("y/ws"));
    teach(
        &mut x,
        &mut y,
        vec![Step::Learn(vec!["e.md::0", "b.md::0"], 0.5)],
    );
    for (b, ws) in [(&mut x, &wx), (&mut y, &wy)] {
        std::fs::remove_file(ws.join("e.md")).unwrap();
        let r = sync(b, ws);
        assert_eq!(r.changes.unwrap().removed, ["e.md::0"]);
    }
    forget_b_equals_y(&mut x, &mut y, dir.path(), 1);
}

/// An authority change between maintenance runs: decay reads a source's authority, so
/// the replay must give a.md::0 `canonical` only from its `anchor` on, and take it away
/// again where `anchor --remove` did; and a `connect` run is run again where it was.
/// Before, neither was journaled: the replay decayed a.md::0's edges as canonical from
/// the start and left out the edges `connect` added, and X (forgot b) differed from Y
/// (never had it) with nothing said.
#[test]
fn forget_replays_anchors_and_connect_where_they_happened() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let steps = vec![
        Step::Learn(vec!["a.md::0", "c.md::0", "a.md::1"], 1.0),
        Step::Learn(vec!["d.md::0", "b.md::0"], 1.0),
        Step::Maintain("decay"),
        Step::Anchor("a.md::0", Some("canonical")),
        Step::Maintain("decay"),
        Step::Learn(vec!["b.md::1", "a.md::0"], 1.0),
        Step::Anchor("c.md::0", Some("constitutional")),
        Step::Connect,
        Step::Maintain("decay,prune"),
        Step::Anchor("a.md::0", None),
        Step::Maintain("decay"),
    ];
    teach(&mut x, &mut y, steps);
    // 11 steps, 2 through b: 1 learn, 4 maintenance runs, 3 anchors, 1 connect
    let (ex, ey) = forget_b_equals_y(&mut x, &mut y, dir.path(), 9);
    assert_eq!(ex, ey);
}

/// A `connect` before a sync that removed or rewrote chunks cannot be run again: the
/// texts it read are gone. The weights are kept and the report says why.
#[test]
fn a_connect_before_a_sync_that_rewrote_chunks_keeps_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, _) = two_brains(dir.path(), Some("b.md"));
    let wx = dir.path().join("x/ws");
    Step::Learn(vec!["a.md::0", "b.md::0"], 1.0).apply(&mut x);
    Step::Connect.apply(&mut x);
    change_folder(&wx, false);
    sync(&mut x, &wx);
    let r = x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert_kept(&r.relearned, &["connect", "sync"]);
}

/// A maintenance run that merges two chunks: the replay makes the merged node again
/// from stand-ins of its parts (their texts are in it) and gives it back its text, so
/// X (forgot b) still equals Y (never had it). Before, a merge stopped the replay
/// (`Relearned::Kept`: "its maintenance would merge nodes").
#[test]
fn forget_replays_a_maintenance_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let mut steps = vec![
        Step::Learn(vec!["d.md::0", "b.md::0"], 1.0),
        Step::Maintain("decay"),
    ];
    // a.md::1 and c.md::1 fire together both ways until both edges reach 0.8
    for _ in 0..12 {
        steps.push(Step::Learn(vec!["a.md::1", "c.md::1"], 1.0));
        steps.push(Step::Learn(vec!["c.md::1", "a.md::1"], 1.0));
    }
    steps.extend([
        Step::Learn(vec!["b.md::1", "e.md::0"], 1.0),
        Step::Maintain("health,decay,merge,prune"),
        Step::Learn(vec!["e.md::0", "c.md::0", "a.md::0"], 1.0),
        Step::Maintain("decay"),
    ]);
    teach(&mut x, &mut y, steps);
    let merged = x
        .read(|g, _| {
            g.nodes()
                .filter(|(_, n)| n.id.starts_with("merged:"))
                .map(|(_, n)| n.id.clone())
                .collect::<Vec<_>>()
        })
        .unwrap();
    assert_eq!(merged.len(), 1, "the pair merged: {merged:?}");
    // 30 steps, 2 through b: 26 learns, 3 maintenance runs
    let (ex, ey) = forget_b_equals_y(&mut x, &mut y, dir.path(), 28);
    assert_eq!(ex, ey);
}

/// A file the folder lost (a sync removed every chunk of it) can still be forgotten:
/// the history names its former chunks, and their learning goes. X learned through
/// b.md, then b.md was deleted and synced away; `forget --file b.md` drops the learn
/// through it and X equals Y, which never had it. Before, it answered "no file" and the
/// learning stayed.
#[test]
fn a_file_a_sync_removed_can_still_be_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let (wx, wy) = (dir.path().join("x/ws"), dir.path().join("y/ws"));
    teach(
        &mut x,
        &mut y,
        vec![
            Step::Learn(vec!["a.md::1", "c.md::1"], 1.0),
            Step::Learn(vec!["a.md::1", "b.md::1", "c.md::0"], 1.0),
            Step::Maintain("decay"),
        ],
    );
    std::fs::remove_file(wx.join("b.md")).unwrap();
    sync(&mut x, &wx);
    sync(&mut y, &wy);
    assert!(!x.has_node("b.md::1").unwrap());
    let before = exported(&mut x, &dir.path().join("x"));
    let r = x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert_eq!(r.removed.nodes, 0);
    assert!(r.removed.journal >= 1, "{r:?}");
    assert!(
        matches!(r.relearned, crabpath_brain::service::Relearned::Replayed(_)),
        "{r:?}"
    );
    let (ex, ey) = (
        exported(&mut x, &dir.path().join("x")),
        exported(&mut y, &dir.path().join("y")),
    );
    assert_ne!(before["graph"], ey["graph"]);
    assert_eq!(ex["graph"], ey["graph"]);
    // a file the history never named is still unknown
    assert!(x.forget(&ForgetTarget::File("zzz.md".into())).is_err());
}

/// A node anchored without a journal entry (an anchor of the paper profile, or before
/// anchors were journaled) cannot be replayed from where it happened: the weights are
/// kept and the report says why.
#[test]
fn an_unjournaled_anchor_keeps_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, _) = two_brains(dir.path(), Some("b.md"));
    Step::Learn(vec!["a.md::0", "b.md::0"], 1.0).apply(&mut x);
    x.write(crabpath_brain::Scope::All, |w| {
        crabpath_brain::service::command::anchor::anchor(
            w.graph,
            "a.md::1",
            crabpath_brain::service::command::anchor::AnchorAction::Set("canonical"),
        )
        .map(|_| ())
    })
    .unwrap();
    let r = x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert_kept(&r.relearned, &["a.md::1", "anchor"]);
}

/// Forgetting an injected node or a correction drops the events that touched it (its
/// injection, the correction's own entry, the learns through it) and replays the rest:
/// the brain equals one that never had it. Before, the injected nodes left in the
/// brain stopped the replay (`Relearned::Kept`).
#[test]
fn forgetting_an_injected_or_correction_node_drops_its_events() {
    let correction = "Production promotion needs the backups restore drill first.";
    let correction_id = crabpath_brain::service::turns::feedback_node_id("CORRECTION", correction);
    for target in ["teaching::eels".to_string(), correction_id] {
        let dir = tempfile::tempdir().unwrap();
        let (mut x, mut y) = two_brains(dir.path(), None);
        let steps: Vec<Step> = history()
            .into_iter()
            .filter(|s| !s.names().iter().any(|id| id.starts_with("b.md")))
            .collect();
        for step in &steps {
            step.apply(&mut x);
            if !step.names().contains(&target) {
                step.apply(&mut y);
            }
        }
        assert!(x.has_node(&target).unwrap() && !y.has_node(&target).unwrap());
        // no later injection found it among its neighbours: the same search in Y
        let made = steps
            .iter()
            .position(|s| s.names().contains(&target))
            .unwrap();
        let later: Vec<String> = steps[made + 1..]
            .iter()
            .filter(|s| matches!(s, Step::Inject(..) | Step::Correct(..)))
            .flat_map(Step::names)
            .collect();
        let links = inject_links(&mut x);
        assert!(
            !links
                .iter()
                .any(|(s, t)| (s == &target && later.contains(t))
                    || (t == &target && later.contains(s))),
            "{target}: {links:?}"
        );
        let r = x.forget(&ForgetTarget::Node(target.clone())).unwrap();
        assert!(r.removed.journal >= 2, "{target}: {r:?}");
        assert!(
            matches!(r.relearned, crabpath_brain::service::Relearned::Replayed(_)),
            "{target}: {r:?}"
        );
        let (ex, ey) = (
            exported(&mut x, &dir.path().join("x")),
            exported(&mut y, &dir.path().join("y")),
        );
        assert_eq!(ex["graph"], ey["graph"], "{target}");
        assert_eq!(ex, ey, "{target}");
    }
}

/// An injection linked to a forgotten node keeps its node and its other links: its
/// journal entry loses only the forgotten neighbour (rewritten, not deleted), and the
/// replay links the rest again.
#[test]
fn an_injection_linked_to_a_forgotten_node_keeps_its_other_links() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut b = open(&db);
    let r = b
        .inject(&common::teaching(
            "teaching::vault",
            "Rotate the vault code every month; only ops may read it. Staging host.",
            5,
        ))
        .unwrap();
    let (gone, kept): (Vec<String>, Vec<String>) = r
        .connected_to
        .iter()
        .cloned()
        .partition(|id| id.starts_with("b.md"));
    assert!(!gone.is_empty() && !kept.is_empty(), "{r:?}");
    let f = b.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert_eq!(f.relearned, crabpath_brain::service::Relearned::Replayed(1));
    let journal = b.journal_entries().unwrap();
    let text: Vec<String> = journal
        .entries
        .iter()
        .map(crabpath_brain::reference::journal::entry_line)
        .collect();
    assert_eq!(text.len(), 1, "{text:?}");
    assert!(!text[0].contains("b.md"), "{text:?}");
    let mut links: Vec<String> = inject_links(&mut b)
        .into_iter()
        .filter(|(s, _)| s == "teaching::vault")
        .map(|(_, t)| t)
        .collect();
    links.sort();
    let mut want = kept.clone();
    want.sort();
    assert_eq!(links, want);
}

/// Forgetting a conversation drops its learning too: the credit of its feedback and
/// its teaching (their journal entries carry its chat id, or name the node it made),
/// while another conversation's feedback and the learns stay. X equals Y, which never
/// heard the forgotten conversation. Before, the teaching's node stopped the replay
/// (`Relearned::Kept`), and the feedback's credit, journaled without its chat, stayed.
#[test]
fn forgetting_a_chat_drops_its_feedback_and_teachings() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), None);
    let turn = |b: &mut Brain, chat: &str, fired: &[&str]| {
        common::log_query(b, chat, fired, &format!("what did {chat} ask"));
    };
    let feedback = |b: &mut Brain, chat: &str, outcome: f64| {
        common::chat_feedback(b, chat, outcome, None);
    };
    for (b, heard) in [(&mut x, true), (&mut y, false)] {
        // no question nodes, so that the counts below are the chat's own rows (with
        // them: `forgetting_a_chat_with_question_nodes_equals_never_having_heard_it`)
        b.set_neurogenesis(false).unwrap();
        b.learn(&["a.md::0".into(), "c.md::1".into()], 1.0).unwrap();
        if heard {
            turn(b, "chat-a", &["d.md::0", "a.md::1", "c.md::0"]);
            feedback(b, "chat-a", 1.0);
            b.teach(
                "Deploy the build only after the nightly backup.",
                "TEACHING",
                Some("chat-a"),
                "test",
            )
            .unwrap();
        }
        turn(b, "chat-b", &["e.md::0", "c.md::1"]);
        feedback(b, "chat-b", -1.0);
        b.learn(&["a.md::1".into(), "c.md::0".into()], 1.0).unwrap();
    }
    let r = x.forget(&ForgetTarget::Chat("chat-a".into())).unwrap();
    // the teaching's node; the feedback's learn and the injection's entry
    assert_eq!(r.removed.nodes, 1, "{r:?}");
    assert_eq!(r.removed.journal, 2, "{r:?}");
    // 2 learns and chat-b's credit
    assert_eq!(r.relearned, crabpath_brain::service::Relearned::Replayed(3));
    let (ex, ey) = (
        exported(&mut x, &dir.path().join("x")),
        exported(&mut y, &dir.path().join("y")),
    );
    assert_eq!(ex["graph"], ey["graph"]);
    assert_eq!(ex, ey);
}

/// A teaching linked only to the forgotten file is orphaned by the forget, and neither
/// the replayed prune nor a later one removes it (maintenance keeps what a user gave,
/// `maintain_prune.rs`): the replay goes through and the teaching stays. Before, the
/// replayed prune removed it and the forget kept the weights ("the replay would
/// remove node `teaching::vault`"), and the next `maintain` deleted the teaching.
#[test]
fn a_teaching_linked_only_to_a_forgotten_file_stays() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut b = open(&db);
    let r = b
        .inject(&common::teaching(
            "teaching::vault",
            "Rotate the vault code every month; only ops may read it.",
            2,
        ))
        .unwrap();
    assert!(
        !r.connected_to.is_empty() && r.connected_to.iter().all(|id| id.starts_with("b.md")),
        "{r:?}"
    );
    Step::Maintain("prune").apply(&mut b);
    let f = b.forget(&ForgetTarget::File("b.md".into())).unwrap();
    assert!(
        matches!(f.relearned, crabpath_brain::service::Relearned::Replayed(_)),
        "{f:?}"
    );
    Step::Maintain("prune").apply(&mut b);
    assert!(b.has_node("teaching::vault").unwrap());
}

/// A guardrail correction similar to the forgotten file and to another: its entry
/// loses only the forgotten node, so the replay still removes its edge to the other
/// (the guardrail's rule) and it has no content edge of its own afterwards.
#[test]
fn a_guardrail_correction_linked_to_a_forgotten_node_keeps_its_rule() {
    use crabpath_brain::service::turns::Window;
    use crabpath_brain::service::{CorrectRequest, CorrectionMode};
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut b = open(&db);
    let r = b
        .correct_with(
            &CorrectRequest {
                content: "The vault code rotates every month; promote the build to production after the checks pass.",
                chat_id: None,
                turns_ago: None,
                outcome: -1.0,
                window: Window::default(),
                source: "test",
            },
            CorrectionMode::Guardrail,
        )
        .unwrap();
    let similar = r.connected_to.clone();
    assert!(
        similar.iter().any(|id| id.starts_with("b.md"))
            && similar.iter().any(|id| !id.starts_with("b.md")),
        "{r:?}"
    );
    let outgoing = |b: &mut Brain| -> Vec<String> {
        let me = r.node_id.clone();
        b.read(|g, _| {
            let m = g.lookup(&me).unwrap();
            g.edges()
                .filter(|(s, _, _)| *s == m)
                .map(|(_, t, _)| g.name(t).to_string())
                .collect()
        })
        .unwrap()
    };
    assert!(outgoing(&mut b).is_empty());
    let f = b.forget(&ForgetTarget::File("b.md".into())).unwrap();
    // its injection and its own entry
    assert_eq!(f.relearned, crabpath_brain::service::Relearned::Replayed(2));
    assert!(outgoing(&mut b).is_empty(), "{:?}", outgoing(&mut b));
}

/// Events a rollback undid are left out of the replay: the rollback journals the
/// snapshot's last journal position, and the entries between it and the rollback are
/// skipped. X (a, b, c; learns and an injection, a snapshot, more learns and an
/// injection, rollback, learns) forgets b and equals Y (no b, the learns before the
/// snapshot and after the rollback). Before, the rollback left no trace and the undone
/// learns were replayed.
#[test]
fn a_rollback_leaves_its_undone_events_out_of_the_replay() {
    let dir = tempfile::tempdir().unwrap();
    let (mut x, mut y) = two_brains(dir.path(), Some("b.md"));
    let before = [
        Step::Learn(vec!["a.md::0", "c.md::1"], 1.0),
        Step::Learn(vec!["d.md::0", "b.md::0"], 1.0),
        Step::Inject(
            "teaching::ship",
            "Deploy to staging first, then production; nightly backups before a deploy.",
        ),
    ];
    let undone = [
        Step::Learn(vec!["a.md::1", "c.md::0"], 1.0),
        Step::Inject(
            "teaching::eels",
            "Eels and dogs: the river stones and the mail carrier.",
        ),
        Step::Maintain("decay"),
    ];
    let after = [
        Step::Learn(vec!["e.md::0", "a.md::0"], 1.0),
        Step::Learn(vec!["c.md::0", "b.md::1"], -1.0),
        Step::Learn(vec!["a.md::1", "c.md::0"], 0.5),
    ];
    let keep = |s: &Step| !s.names().iter().any(|id| id.starts_with("b.md"));
    for s in &before {
        s.apply(&mut x);
        if keep(s) {
            s.apply(&mut y);
        }
    }
    x.snapshot("s1").unwrap();
    for s in &undone {
        s.apply(&mut x);
    }
    x.rollback(Some("s1")).unwrap();
    assert!(!x.has_node("teaching::eels").unwrap());
    for s in &after {
        s.apply(&mut x);
        if keep(s) {
            s.apply(&mut y);
        }
    }
    let r = x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    // the learn and the injection before the snapshot, two learns after the rollback
    assert_eq!(r.relearned, crabpath_brain::service::Relearned::Replayed(4));
    let (ex, ey) = (
        exported(&mut x, &dir.path().join("x")),
        exported(&mut y, &dir.path().join("y")),
    );
    assert_eq!(ex["graph"], ey["graph"]);
    assert_eq!(ex, ey);
}

/// A daemon serving the brain database `db` (hash-v1, resident), as `crabpath daemon`
/// serves it; `send` answers one request line.
fn daemon(db: &Path) -> crabpath_brain::serve::daemon::Daemon {
    crabpath_brain::serve::daemon::Daemon::new(common::open_hash(db, Profile::Corrected, true), 0)
        .unwrap()
        .0
}

fn send(d: &mut crabpath_brain::serve::daemon::Daemon, line: &str) -> serde_json::Value {
    use crabpath_brain::serve::daemon::Step;
    match d.handle(line) {
        Step::Answer(a) => {
            let v: serde_json::Value = serde_json::from_str(&a).unwrap();
            assert!(v.get("error").is_none(), "{line} → {v}");
            v["result"].clone()
        }
        other => panic!("{other:?}"),
    }
}

/// A served query of `chat` (neurogenesis on, as by default) seeding from its 2
/// nearest nodes; its fired ids.
fn chat_query(d: &mut crabpath_brain::serve::daemon::Daemon, chat: &str, q: &str) -> String {
    let line = serde_json::json!({"id": 1, "method": "query",
        "params": {"query": q, "top_k": 2, "chat_id": chat}});
    send(d, &line.to_string())["fired_nodes"].to_string()
}

fn chat_feedback(d: &mut crabpath_brain::serve::daemon::Daemon, chat: &str, outcome: f64) {
    let line = serde_json::json!({"id": 3, "method": "learn_by_chat_id",
        "params": {"chat_id": chat, "outcome": outcome}});
    send(d, &line.to_string());
}

/// The question nodes (auto ids) the journal of `db` records a birth of.
fn born(db: &Path) -> Vec<String> {
    let mut b = open(db);
    let j = b.journal_entries().unwrap();
    j.entries
        .iter()
        .filter_map(|e| {
            let v = pyformat::pyjson::PyValue::Dict(e.clone())
                .to_json()
                .unwrap();
            (v["type"] == "neurogenesis" && v["event"] == "born")
                .then(|| v["node"].as_str().unwrap().to_string())
        })
        .collect()
}

/// The reproduction of the limit this removes (issue 30 item 3): in the default
/// configuration (neurogenesis on) every novel served question grows a question node
/// and journals its birth; once a second chat had asked one, forgetting the first chat
/// kept its learned weights ("the journal holds a `neurogenesis` entry, which replay
/// cannot repeat"). The question layer now stays out of the replay and comes back
/// whole: the weights are rebuilt.
#[test]
fn forgetting_a_chat_unlearns_beside_another_chats_question_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut d = daemon(&db);
    chat_query(
        &mut d,
        "c1",
        "when does the staging deploy promote to production",
    );
    chat_feedback(&mut d, "c1", 1.0);
    chat_query(
        &mut d,
        "c2",
        "where do nightly backups and restore drills go",
    );
    chat_feedback(&mut d, "c2", -1.0);
    drop(d);
    // each chat grew its question node (the precondition of the old refusal)
    assert_eq!(born(&db).len(), 2, "{:?}", born(&db));
    let mut d = daemon(&db);
    let r = send(
        &mut d,
        r#"{"id": 4, "method": "forget", "params": {"chat": "c1"}}"#,
    );
    assert_eq!(r["weights_kept"], serde_json::Value::Null, "{r}");
    // c2's credit (c1's went with its chat; the births are not learning events)
    assert_eq!(r["replayed"], 1, "{r}");
    drop(d);
    assert_eq!(born(&db).len(), 1);
}

/// Every edge of the brain `db` by (source, target): its weight, kind and metadata; and every
/// node's text, with an auto node's `auto` metadata less `born_seq` and `last_seq`
/// (journal positions, which differ between two brains of different histories).
type Edges = std::collections::BTreeMap<(String, String), (f64, String, String)>;
type Nodes = std::collections::BTreeMap<String, (String, serde_json::Value)>;
fn graph_of(db: &Path) -> (Edges, Nodes) {
    let mut b = open(db);
    b.read(|g, _| {
        let edges = edges_of(g);
        let nodes = g
            .nodes()
            .map(|(_, n)| {
                let mut auto = n.metadata.get("auto").cloned().unwrap_or_default();
                if let Some(a) = auto.as_object_mut() {
                    a.remove("born_seq");
                    a.remove("last_seq");
                }
                (n.id.clone(), (n.content.clone(), auto))
            })
            .collect();
        (edges, nodes)
    })
    .unwrap()
}

/// The daemon's `forget` of chat c1 in the brain `db`, checked to have replayed (not
/// kept the weights); its answer.
fn forget_c1_replayed(db: &Path) -> serde_json::Value {
    let mut x = daemon(db);
    let r = send(
        &mut x,
        r#"{"id": 7, "method": "forget", "params": {"chat": "c1"}}"#,
    );
    assert_eq!(r["weights_kept"], serde_json::Value::Null, "{r}");
    r
}

/// Every edge of `g` as [`Edges`] holds it.
fn edges_of(g: &crabpath::graph::Graph) -> Edges {
    g.edges()
        .map(|(s, t, e)| {
            (
                (g.name(s).to_string(), g.name(t).to_string()),
                (
                    e.weight,
                    format!("{:?}", e.kind),
                    format!("{:?}", e.metadata),
                ),
            )
        })
        .collect()
}

/// Issue 30 item 3's exactness with question nodes (neurogenesis on, the default):
/// brain X serves chats c1 (about a.md) and c2 (about c.md and e.md), each asking,
/// asking again and giving feedback, with a maintenance (decay and prune) and a plain
/// learn between; X forgets c1. Brain Y served only c2's requests and the rest, in the
/// same order. c2's answers are the same in X and Y (the files are disjoint, checked at
/// every query), so c1's learning cannot have changed what c2 did. After the forget,
/// every node, every edge and weight (content to content, and c2's question nodes'
/// own) and every question node's state equal Y's, but for the journal positions in
/// the `auto` metadata.
#[test]
fn forgetting_a_chat_with_question_nodes_equals_never_having_heard_it() {
    let dir = tempfile::tempdir().unwrap();
    let (x_db, y_db) = (brain(&dir.path().join("x")), brain(&dir.path().join("y")));
    let (mut x, mut y) = (daemon(&x_db), daemon(&y_db));
    enum R {
        Ask(&'static str, &'static str),
        Feedback(&'static str, f64),
        Line(&'static str),
    }
    let history = [
        R::Ask("c1", "when does the staging deploy promote to production"),
        R::Ask("c2", "nightly backups to the cold storage bucket"),
        R::Feedback("c1", 1.0),
        R::Feedback("c2", -1.0),
        R::Ask("c2", "restore drills every quarter"),
        R::Feedback("c2", 1.0),
        // a teaching of c2's first question's words: its nearest vector is that
        // question's node, to which it links both ways (an edge *to* a question node)
        R::Line(
            r#"{"id": 8, "method": "inject", "params": {"id": "teaching::backups", "content": "nightly backups to the cold storage bucket", "type": "TEACHING"}}"#,
        ),
        // the autotuner too (the health task), which measures the content alone: the
        // replay repeats it (before, with question nodes in its health, it could not)
        R::Line(
            r#"{"id": 5, "method": "maintain", "params": {"tasks": ["health", "decay", "prune"]}}"#,
        ),
        R::Ask("c1", "which script runs the deploy on staging"),
        R::Feedback("c1", -1.0),
        R::Ask("c2", "nightly backups to the cold storage bucket"),
        R::Feedback("c2", 1.0),
        R::Line(
            r#"{"id": 6, "method": "learn", "params": {"fired_nodes": ["e.md::0", "c.md::1"], "outcome": 1.0}}"#,
        ),
    ];
    for step in &history {
        match step {
            R::Ask(chat, q) => {
                let fx = chat_query(&mut x, chat, q);
                if *chat == "c2" {
                    assert!(!fx.contains("a.md"), "{q}: {fx}");
                    assert_eq!(fx, chat_query(&mut y, chat, q), "{q}");
                } else {
                    assert!(fx.contains("a.md") && !fx.contains("c.md"), "{q}: {fx}");
                }
            }
            R::Feedback(chat, o) => {
                chat_feedback(&mut x, chat, *o);
                if *chat == "c2" {
                    chat_feedback(&mut y, chat, *o);
                }
            }
            R::Line(l) => {
                send(&mut x, l);
                send(&mut y, l);
            }
        }
    }
    drop((x, y));
    // a question node for each of c1's and c2's 2 questions (born by the query, or by
    // the first feedback when the query was not novel enough): 4 in X, 2 in Y
    assert_eq!((born(&x_db).len(), born(&y_db).len()), (4, 2));
    let before = graph_of(&x_db);
    let (ey, ny) = graph_of(&y_db);
    assert_ne!(before.0, ey, "c1's learning changed X's weights");
    // the teaching found the same neighbours in X and Y, a question node of c2 among them
    let links = |edges: &Edges| -> Vec<String> {
        edges
            .keys()
            .filter(|(s, _)| s == "teaching::backups")
            .map(|(_, t)| t.clone())
            .collect()
    };
    assert_eq!(links(&before.0), links(&ey));
    assert!(
        links(&ey).iter().any(|t| t.starts_with("auto:")),
        "{:?}",
        links(&ey)
    );
    let r = forget_c1_replayed(&x_db);
    // c2's 3 credits, the teaching, the maintenance and the learn (Y's journal holds
    // these 6 and no other learning event)
    assert_eq!(r["replayed"], 6, "{r}");
    let (ex, nx) = graph_of(&x_db);
    assert_eq!(nx, ny);
    let autos = ny.keys().filter(|id| id.starts_with("auto:")).count();
    assert_eq!(autos, 2, "{ny:?}");
    assert!(
        ey.keys().filter(|(s, _)| s.starts_with("auto:")).count() >= 2,
        "{ey:?}"
    );
    assert_eq!(ex, ey);
}

/// Chat c1 asks one question, is credited +1, and is forgotten: the forget's answer.
fn c1_asked_taught_and_forgotten(
    d: &mut crabpath_brain::serve::daemon::Daemon,
) -> serde_json::Value {
    chat_query(
        d,
        "c1",
        "when does the staging deploy promote to production",
    );
    chat_feedback(d, "c1", 1.0);
    send(
        d,
        r#"{"id": 4, "method": "forget", "params": {"chat": "c1"}}"#,
    )
}

/// The other case the question layer keeps the weights for: a `learn` given a question
/// node by hand (answers leave question nodes out of what fired, so no feedback does
/// this): its learn moves edges to and from the question node along its path, which
/// the replay, with the layer set aside, cannot move.
#[test]
fn a_learn_naming_a_question_node_keeps_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let db = brain(dir.path());
    let mut d = daemon(&db);
    let q = "nightly backups to the cold storage bucket";
    chat_query(&mut d, "c2", q);
    chat_feedback(&mut d, "c2", -1.0);
    let auto = crabpath::neurogenesis::auto_id(q);
    assert_eq!(born(&db), std::slice::from_ref(&auto));
    let line = serde_json::json!({"id": 6, "method": "learn",
        "params": {"fired_nodes": [&auto, "c.md::0"], "outcome": 1.0}});
    send(&mut d, &line.to_string());
    let r = c1_asked_taught_and_forgotten(&mut d);
    assert_eq!(r["replayed"], serde_json::Value::Null, "{r}");
    // c2's credit is the 1st learning event, the learn by hand the 2nd
    assert_eq!(
        r["weights_kept"],
        format!(
            "learn event 2 of 2 cannot be replayed: it names the question node `{auto}`, which the replay leaves out"
        ),
        "{r}"
    );
}

/// The turns of the conversation exactness tests, as JSON Lines: two sessions of an
/// evening's plans, with rare words shared across sessions (pottery, marathon, Lisbon)
/// so that entity edges link them; every turn has its id.
const HEARD: [&str; 6] = [
    r#"{"id": "t1", "session": "1", "speaker": "Ana", "text": "I signed up for a pottery class on Saturday."}"#,
    r#"{"id": "t2", "session": "1", "speaker": "Ben", "text": "Nice. I am training for the marathon in Lisbon."}"#,
    r#"{"id": "t3", "session": "1", "speaker": "Ana", "text": "The pottery teacher lived in Lisbon for years."}"#,
    r#"{"id": "t4", "session": "2", "speaker": "Ben", "text": "The marathon route passes the river twice."}"#,
    r#"{"id": "t5", "session": "2", "speaker": "Ana", "text": "My first pottery bowl cracked in the kiln."}"#,
    r#"{"id": "t6", "session": "2", "speaker": "Ben", "text": "Glue it and call it art."}"#,
];

/// A turn an agent remembers later.
fn later(
    id: &str,
    session: &str,
    speaker: &str,
    text: &str,
) -> crabpath_brain::source::conversation::Turn {
    crabpath_brain::source::conversation::Turn {
        id: Some(id.into()),
        session: Some(session.into()),
        time: None,
        speaker: Some(speaker.into()),
        text: text.into(),
    }
}

/// One step of a conversation brain's history: a turn remembered, a learn, or a
/// maintenance (decay).
enum Heard {
    Remember(crabpath_brain::source::conversation::Turn),
    Learn(Vec<&'static str>, f64),
    Decay,
}

fn conversation_history() -> Vec<Heard> {
    vec![
        Heard::Learn(vec!["t1", "t2"], 1.0),
        Heard::Remember(later(
            "t7",
            "2",
            "Ana",
            "Lisbon has a pottery museum near the river.",
        )),
        Heard::Learn(vec!["t3", "t1"], 1.0),
        Heard::Learn(vec!["t2", "t4", "t7"], -1.0),
        Heard::Decay,
        Heard::Remember(later(
            "t8",
            "3",
            "Ben",
            "The marathon expo sells pottery mugs.",
        )),
        Heard::Learn(vec!["t5", "t8"], 1.0),
        Heard::Remember(later(
            "t9",
            "1",
            "Ana",
            "Saturday works for the kiln visit.",
        )),
        Heard::Learn(vec!["t9", "t1", "t3"], 0.5),
        Heard::Learn(vec!["t8", "t7"], 1.0),
    ]
}

/// Every node of a brain with its content and metadata, and every edge with its weight,
/// kind and metadata.
pub(crate) fn whole(
    b: &mut Brain,
) -> (Edges, std::collections::BTreeMap<String, (String, String)>) {
    b.read(|g, _| {
        let nodes = g
            .nodes()
            .map(|(_, n)| {
                (
                    n.id.clone(),
                    (n.content.clone(), format!("{:?}", n.metadata)),
                )
            })
            .collect();
        (edges_of(g), nodes)
    })
    .unwrap()
}

/// Brain X hears the conversation and its history; brain Y hears it without the turn
/// `gone` (and without the learns that name it, which `forget` drops from X). X
/// forgets `gone`: its nodes (their `metadata.turn` renumbered), edges and weights equal
/// Y's. Returns the forget's report.
fn forget_turn_equals_never_hearing_it(gone: &str) -> crabpath_brain::service::ForgetReport {
    let dir = tempfile::tempdir().unwrap();
    let all = HEARD.join("\n");
    let without: Vec<&str> = HEARD
        .iter()
        .copied()
        .filter(|l| !l.contains(&format!("\"id\": \"{gone}\"")))
        .collect();
    let mut x = common::chat_brain(&dir.path().join("x"), &all, true);
    let mut y = common::chat_brain(&dir.path().join("y"), &without.join("\n"), true);
    let maintain = common::daemon_maintain(&["decay"]);
    for step in conversation_history() {
        match step {
            Heard::Remember(t) => {
                x.remember_turn(&t).unwrap();
                if t.id.as_deref() != Some(gone) {
                    y.remember_turn(&t).unwrap();
                }
            }
            Heard::Learn(ids, outcome) => {
                let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
                x.learn(&ids, outcome).unwrap();
                if !ids.iter().any(|i| i == gone) {
                    y.learn(&ids, outcome).unwrap();
                }
            }
            Heard::Decay => {
                x.maintain(&maintain).unwrap();
                y.maintain(&maintain).unwrap();
            }
        }
    }
    let before = whole(&mut x);
    let r = x.forget(&ForgetTarget::Node(gone.into())).unwrap();
    let (ex, nx) = whole(&mut x);
    let (ey, ny) = whole(&mut y);
    assert_ne!(before.0, ey, "{gone}: its learning changed X's weights");
    // entity edges link the sessions (the rare words), so their rebuild is tested too
    let cross: Vec<_> = ey
        .iter()
        .filter(|(_, (w, _, _))| {
            *w == crabpath_brain::source::conversation::entities::ENTITY_WEIGHT
        })
        .map(|(k, _)| k.clone())
        .collect();
    assert!(!cross.is_empty(), "{gone}");
    assert_eq!(nx, ny, "{gone}: nodes");
    assert_eq!(ex, ey, "{gone}: edges");
    r
}

/// Forgetting a turn of a conversation unlearns too (issue 30 item 3, for the brains
/// agents keep with `remember`): a turn `init --conversation` read (t3, whose `session`
/// value "1" it shares with t2 before it and t9 after it) and a turn an agent remembered (t7). The conversation is rebuilt
/// as a brain that never heard the turn builds it — chains, entity links, positions —
/// and the remembered turns and learning events replayed in order. Before, the weights
/// were kept ("node `t1` was made neither by init of a folder nor by a journaled
/// injection").
#[test]
fn forgetting_a_turn_equals_never_having_heard_it() {
    let r = forget_turn_equals_never_hearing_it("t3");
    // 10 steps, 2 learns through t3 dropped: 3 remembers, 4 learns and the decay
    assert_eq!(
        r.relearned,
        crabpath_brain::service::Relearned::Replayed(8),
        "{r:?}"
    );
    let r = forget_turn_equals_never_hearing_it("t7");
    // t7's remember and the 2 learns through it dropped (or its remember skipped)
    assert!(
        matches!(r.relearned, crabpath_brain::service::Relearned::Replayed(_)),
        "{r:?}"
    );
}

/// Forgetting a chat of a conversation brain unlearns its feedback (before, the weights
/// were kept: the turns were nodes "made neither by init of a folder nor by a journaled
/// injection"). X serves chats c1 (about the pottery turns) and c2 (about the river
/// and the kiln); Y serves only c2, whose answers are the same in both.
#[test]
fn forgetting_a_chat_of_a_conversation_brain_unlearns_its_feedback() {
    let dir = tempfile::tempdir().unwrap();
    let all = HEARD.join("\n");
    drop(common::chat_brain(&dir.path().join("x"), &all, true));
    drop(common::chat_brain(&dir.path().join("y"), &all, true));
    let (x_db, y_db) = (dir.path().join("x/brain.db"), dir.path().join("y/brain.db"));
    let (mut x, mut y) = (daemon(&x_db), daemon(&y_db));
    let fx = chat_query(&mut x, "c1", "signed up for a pottery class on Saturday");
    chat_feedback(&mut x, "c1", 1.0);
    for (q, o) in [
        ("glue it and call it art", -1.0),
        ("the marathon route passes the river", 1.0),
    ] {
        let a = chat_query(&mut x, "c2", q);
        assert_eq!(a, chat_query(&mut y, "c2", q), "{q}");
        chat_feedback(&mut x, "c2", o);
        chat_feedback(&mut y, "c2", o);
    }
    drop((x, y));
    assert!(fx.contains("t1"), "{fx}");
    let before = graph_of(&x_db);
    let (ey, ny) = graph_of(&y_db);
    assert_ne!(before.0, ey, "c1's feedback changed X's weights");
    let r = forget_c1_replayed(&x_db);
    // c2's two credits
    assert_eq!(r["replayed"], 2, "{r}");
    let (ex, nx) = graph_of(&x_db);
    assert_eq!(nx, ny);
    assert_eq!(ex, ey);
}
