//! `forget`'s exactness rule (issue 30 item 3) on random histories: the hand-written
//! histories of `forget.rs` each cover one combination of events; here seeded random
//! ones mix them all. Brain X (files a–e of [`crate::forget::two_brains`]) gets every
//! step, brain Y (the same folder without b.md) the steps that name nothing of b.md;
//! their folders change alike (Y's never has b.md) and both sync. X then forgets b.md,
//! and the replay must either rebuild Y's graph exactly (`Relearned::Replayed`) or say
//! why it cannot (`Relearned::Kept`): never a different brain with nothing said.
//!
//! The steps: learns over random chunks of the files present (a fifth of the picks
//! through b.md), teachings injected, `maintain` with a random set of health, decay,
//! prune and merge (some dry runs), the autotuner, anchors set and removed, `connect`
//! (in about a third of the histories: one before a sync that removes or rewrites a
//! chunk keeps the weights, and most histories sync), a pair of chunks learned both
//! ways until a merge joins them, and folder changes synced (a paragraph added,
//! removed or rewritten, a file deleted or made again, b.md changed, deleted and made
//! again in X's folder only), and agents' queries in two chats (their turn logs, the
//! question nodes they grow, and the agents' feedback on the newest query; Y hears a
//! query that fired nothing of b.md, and its feedback), and corrections (a veto of a
//! chat's newest query, a guardrail of none), and snapshots rolled back to. The
//! question layer is
//! compared by id, its journal positions aside ([`layered`]): the replay puts it back
//! after the rest.
//!
//! Two outcomes are set apart as the documented limits of `forget` rather than
//! failures (see `service::unlearn`): an injection that found a b.md chunk among its
//! nearest nodes (Y's search found another), and a merge that joined a b.md chunk
//! (the merged node keeps its text).
//!
//! Seeds 0..[`SEEDS`], deterministic ([`pyrand::Random`]); a failing seed is shrunk to
//! the fewest steps that still fail and printed. The test prints how many replayed and
//! why the others were kept (`--nocapture`), and fails when fewer than half replay.
//! Its first runs found two brains that replayed unlike Y, each now a test of
//! `forget.rs`: `forget_drops_the_learns_through_a_chunk_a_sync_removed_before` and
//! `forget_after_a_first_sync_that_deleted_an_unlinked_file`; with the agents' queries,
//! a third: [`a_question_nodes_edge_to_a_merged_node_comes_back`]. Now (120 seeds):
//! 99 replayed and equal, 20 kept (17 a `connect` before a sync that rewrote or
//! removed chunks, 3 a merge of a chunk merged again), 1 documented limit, 0
//! different. Before a sync kept the chunks a merged node holds in it
//! (`sync_merged.rs`), it added them back, and 14 were kept for a merge of such a
//! chunk: 87 / 32 / 1 (200 seeds: 146 / 53 / 1, no difference either; fewer run here,
//! for the time of `.ci/run`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

use crabpath_brain::service::{ForgetTarget, Relearned};
use crabpath_brain::Brain;
use pyrand::Random;

use crate::common;
use crate::forget::{exported, inject_links, sync, two_brains, Step};

/// How many seeds the test runs.
const SEEDS: u64 = 120;

/// Paragraphs a file may gain (a title first for a file made anew): each file its own
/// words, a few shared so that `connect` finds pairs across files (b.md's with c.md's
/// too).
fn pool(file: &str) -> &'static [&'static str] {
    match file {
        "a.md" => &[
            "Tag the release build before the deploy window opens.",
            "Roll back the deploy when the staging checks fail twice.",
            "The production host restarts after every deploy.",
            "Deploy notes go to the release channel each week.",
        ],
        "b.md" => &[
            "Vault keys rotate whenever ops changes the cipher.",
            "Only ops may unseal the vault, with both keys.",
            "Ciphers older than a year leave the vault.",
            "Secret shares sit in two separate safes.",
        ],
        "c.md" => &[
            "Old tapes are shredded after a year.",
            "Backups of the production host run every week.",
            "Restore checks read the cold storage bucket.",
            "Snapshots expire from the bucket after ninety days.",
        ],
        "d.md" => &[
            "Dogs sleep after the mail carrier leaves.",
            "Walk the dogs before the storm every evening.",
            "Dogs chase the mail van down the lane.",
        ],
        "e.md" => &[
            "Eels hide under river stones.",
            "Eels swim upstream after the spring rain.",
            "Herons hunt eels near the river stones.",
        ],
        _ => &[
            "Feed the fish twice a day.",
            "Clean the tank every week.",
            "Fish tanks need a spare filter on the host shelf.",
        ],
    }
}

/// The files a sync may change; b.md is forgotten, f.md is not there at first.
const FILES: [&str; 6] = ["a.md", "b.md", "c.md", "d.md", "e.md", "f.md"];

/// `s` as a `&'static str` (the steps of `forget.rs` name static ids and texts). The
/// ids and texts the generator makes are few (chunks of six files, eight teachings),
/// so the leak is bounded.
fn intern(s: &str) -> &'static str {
    static SEEN: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut seen = SEEN.lock().unwrap();
    if let Some(&k) = seen.get(s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    seen.insert(k);
    k
}

/// A change of the folder (both brains' folders; of b.md, X's alone).
#[derive(Debug, Clone)]
enum Change {
    /// A paragraph added at the end of the file (a new chunk).
    Append(&'static str, &'static str),
    /// The file's last paragraph removed (its chunk removed).
    DropLast(&'static str),
    /// Paragraph `k` rewritten (the chunk updated).
    Rewrite(&'static str, usize, &'static str),
    /// The file deleted.
    Delete(&'static str),
    /// The file made (again) with these paragraphs.
    Create(&'static str, Vec<&'static str>),
}

/// One step of a random history.
#[derive(Debug, Clone)]
enum Action {
    /// A step of `forget.rs`, to X, and to Y unless it names b.md.
    Step(Step),
    /// `n` learns of (p, q) and of (q, p) with outcome 1: both edges reach a merge.
    Push(&'static str, &'static str, usize),
    /// The folders change, then both brains sync.
    Sync(Vec<Change>),
    /// An agent's query in a chat that fired these nodes (its turn log; the query, of
    /// words of its own, grows a question node), then maybe the agent's outcome for it
    /// (`turns_ago` 0). Y hears the query when it fired nothing of b.md, and the
    /// outcome when the chat's newest query in X is one Y heard.
    Asked(&'static str, Vec<&'static str>, String, Option<f64>),
    /// A correction ([`CORRECTIONS`]`[k]`): a veto of chat c1's newest query (its credit
    /// learned, its path inhibited; Y's, unless that query fired b.md: then Y takes
    /// the correction without a chat, as the forget leaves X's), or a guardrail of no
    /// chat.
    Correct(usize, crabpath_brain::service::CorrectionMode),
    /// A snapshot of both brains, `s<k>`.
    Snapshot(usize),
    /// Both brains rolled back to snapshot `s<k>`.
    Rollback(usize),
}

/// The corrections a history may give (each once: a second would be deduplicated),
/// in the words of the files so that they link to chunks.
const CORRECTIONS: [&str; 6] = [
    "Never deploy on Fridays: the release window is Monday.",
    "Backups of the production host run nightly, not weekly.",
    "Dogs are walked after the storm, never before.",
    "Eels hide under the bridge stones, not the river ones.",
    "The fish tank filter is changed every month.",
    "Restore checks read the warm storage bucket now.",
];

/// The folder as paragraphs per file (absent: deleted), X's view (Y's is it less b.md).
#[derive(Debug, Clone, Default)]
struct Folder(BTreeMap<&'static str, Vec<String>>);

impl Folder {
    fn read(ws: &Path) -> Folder {
        let mut f = Folder::default();
        for name in FILES {
            if let Ok(text) = std::fs::read_to_string(ws.join(name)) {
                let paras = text.trim().split("\n\n").map(str::to_string).collect();
                f.0.insert(name, paras);
            }
        }
        f
    }

    /// The paragraphs of Y's folder (the files other than b.md).
    fn y_paragraphs(&self) -> usize {
        self.0
            .iter()
            .filter(|(f, _)| **f != "b.md")
            .map(|(_, p)| p.len())
            .sum()
    }

    /// Applies `c`; false when it does not apply to the folder as it is (a file not
    /// there, a paragraph not there, a removal that would take half of Y's chunks:
    /// the sync would refuse it).
    fn apply(&mut self, c: &Change) -> bool {
        let budget = self.y_paragraphs();
        let files = &mut self.0;
        match c {
            Change::Append(f, p) => match files.get_mut(f) {
                Some(v) if v.len() < 6 => v.push(p.to_string()),
                _ => return false,
            },
            Change::DropLast(f) => match files.get_mut(f) {
                Some(v) if v.len() >= 2 => {
                    v.pop();
                }
                _ => return false,
            },
            Change::Rewrite(f, k, p) => match files.get_mut(f) {
                Some(v) if *k < v.len() && v[*k] != *p => v[*k] = p.to_string(),
                _ => return false,
            },
            Change::Delete(f) => match files.get(f) {
                Some(v) if *f == "b.md" || v.len() * 4 <= budget => {
                    files.remove(f);
                }
                _ => return false,
            },
            Change::Create(f, paras) => {
                if files.contains_key(f) {
                    return false;
                }
                files.insert(f, paras.iter().map(|p| p.to_string()).collect());
            }
        }
        true
    }

    /// Writes the folder to `ws` (b.md only when `with_b`): the files that changed,
    /// and removes the deleted ones.
    fn write(&self, ws: &Path, with_b: bool) {
        for name in FILES {
            let path = ws.join(name);
            match self.0.get(name) {
                Some(paras) if with_b || name != "b.md" => {
                    let text = format!("{}\n", paras.join("\n\n"));
                    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                        std::fs::write(&path, text).unwrap();
                    }
                }
                _ => {
                    std::fs::remove_file(&path).ok();
                }
            }
        }
    }
}

/// The node ids of the brain database `db` (read beside the open brain: loading its
/// graph for each step would take most of the test's time).
fn ids(db: &rusqlite::Connection) -> BTreeSet<String> {
    let mut st = db
        .prepare_cached("SELECT id FROM nodes WHERE node_seq IS NOT NULL")
        .unwrap();
    let rows = st.query_map([], |r| r.get::<_, String>(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

fn of_b(id: &str) -> bool {
    id.starts_with("b.md")
}

/// The correction `text` of `chat`'s newest query (none: of no chat).
fn correct(
    b: &mut Brain,
    text: &str,
    chat: Option<&str>,
    mode: crabpath_brain::service::CorrectionMode,
) {
    use crabpath_brain::service::turns::Window;
    use crabpath_brain::service::CorrectRequest;
    b.correct_with(
        &CorrectRequest {
            content: text,
            chat_id: chat,
            turns_ago: chat.map(|_| 0),
            outcome: -1.0,
            window: Window::default(),
            source: "test",
        },
        mode,
    )
    .unwrap();
}

/// What one history may still draw.
struct Mix {
    /// Teachings injected so far (eight at most).
    teachings: usize,
    /// Whether the history runs `connect`.
    connect: bool,
    /// Corrections given so far ([`CORRECTIONS`]).
    corrections: usize,
}

/// X and Y with their folders, in a directory of their own.
struct World {
    dir: tempfile::TempDir,
    x: Brain,
    y: Brain,
    /// X's and Y's databases, read beside them ([`ids`]).
    dbs: [rusqlite::Connection; 2],
    folder: Folder,
    /// Per chat: whether X's newest query fired a b.md chunk (Y never heard it).
    newest_b: BTreeMap<&'static str, bool>,
    /// The snapshots taken (`s<k>`).
    snapshots: Vec<usize>,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let (x, y) = two_brains(dir.path(), Some("b.md"));
        let folder = Folder::read(&dir.path().join("x/ws"));
        let db = |b: &str| {
            rusqlite::Connection::open(dir.path().join(b).join("brain/brain.db")).unwrap()
        };
        let dbs = [db("x"), db("y")];
        World {
            dir,
            x,
            y,
            dbs,
            folder,
            newest_b: BTreeMap::new(),
            snapshots: Vec::new(),
        }
    }

    /// Applies `a` to X and, what of it does not name b.md, to Y; false when it was
    /// skipped (a node it names is not in the brains, a teaching already is: a shrunk
    /// history can leave a step so).
    fn apply(&mut self, a: &Action) -> bool {
        let (in_x, in_y) = (ids(&self.dbs[0]), ids(&self.dbs[1]));
        let there = |id: &str| in_x.contains(id) && (of_b(id) || in_y.contains(id));
        match a {
            Action::Step(step) => {
                let ok = match step {
                    Step::Learn(ids, _) => ids.iter().all(|id| there(id)),
                    Step::Anchor(id, _) => there(id),
                    Step::Inject(id, _) => !in_x.contains(*id) && !in_y.contains(*id),
                    _ => true,
                };
                if !ok {
                    return false;
                }
                step.apply(&mut self.x);
                if !step.names().iter().any(|id| of_b(id)) {
                    step.apply(&mut self.y);
                }
            }
            Action::Push(p, q, n) => {
                if !(there(p) && there(q)) || of_b(p) || of_b(q) {
                    return false;
                }
                for _ in 0..*n {
                    for pair in [vec![*p, *q], vec![*q, *p]] {
                        let step = Step::Learn(pair, 1.0);
                        step.apply(&mut self.x);
                        step.apply(&mut self.y);
                    }
                }
            }
            Action::Asked(chat, fired, query, outcome) => {
                if !fired.iter().all(|id| there(id)) {
                    return false;
                }
                let b = fired.iter().any(|id| of_b(id));
                common::log_query(&mut self.x, chat, fired, query);
                if !b {
                    common::log_query(&mut self.y, chat, fired, query);
                }
                self.newest_b.insert(chat, b);
                if let Some(o) = outcome {
                    common::chat_feedback(&mut self.x, chat, *o, Some(0));
                    if !b {
                        common::chat_feedback(&mut self.y, chat, *o, Some(0));
                    }
                }
            }
            Action::Correct(k, mode) => {
                use crabpath_brain::service::CorrectionMode;
                let veto = *mode == CorrectionMode::Veto;
                if veto && !self.newest_b.contains_key("c1") {
                    return false; // no query of c1 to correct
                }
                let x_chat = veto.then_some("c1");
                let y_chat = x_chat.filter(|_| !self.newest_b["c1"]);
                correct(&mut self.x, CORRECTIONS[*k], x_chat, *mode);
                correct(&mut self.y, CORRECTIONS[*k], y_chat, *mode);
            }
            Action::Snapshot(k) => {
                let name = format!("s{k}");
                self.x.snapshot(&name).unwrap();
                self.y.snapshot(&name).unwrap();
                self.snapshots.push(*k);
            }
            Action::Rollback(k) => {
                if !self.snapshots.contains(k) {
                    return false;
                }
                let name = format!("s{k}");
                self.x.rollback(Some(&name)).unwrap();
                self.y.rollback(Some(&name)).unwrap();
            }
            Action::Sync(changes) => {
                let mut any = false;
                for c in changes {
                    any |= self.folder.apply(c);
                }
                if !any {
                    return false;
                }
                let (wx, wy) = (self.dir.path().join("x/ws"), self.dir.path().join("y/ws"));
                self.folder.write(&wx, true);
                self.folder.write(&wy, false);
                sync(&mut self.x, &wx);
                sync(&mut self.y, &wy);
            }
        }
        true
    }

    /// A random next step for the brains as they are.
    fn pick(&mut self, rng: &mut Random, mix: &mut Mix) -> Action {
        let (in_x, in_y) = (ids(&self.dbs[0]), ids(&self.dbs[1]));
        let common: Vec<&'static str> = in_x
            .intersection(&in_y)
            .filter(|id| !id.starts_with("merged:") && !id.starts_with("auto:"))
            .map(|id| intern(id))
            .collect();
        let bs: Vec<&'static str> = in_x
            .iter()
            .filter(|id| of_b(id))
            .map(|id| intern(id))
            .collect();
        let any = |rng: &mut Random| -> &'static str {
            if !bs.is_empty() && rng.random() < 0.2 {
                bs[rng.choice_index(bs.len())]
            } else {
                common[rng.choice_index(common.len())]
            }
        };
        let mut roll = rng.randbelow(100);
        if (38..=44).contains(&roll) && mix.teachings == 8
            || (68..=71).contains(&roll) && !mix.connect
            || (26..=29).contains(&roll) && mix.corrections == CORRECTIONS.len()
        {
            roll = 0; // a learn instead
        }
        match roll {
            // an agent's query through 1 to 3 nodes, and mostly its outcome
            30..=37 => {
                let k = 1 + rng.randbelow(3) as usize;
                let fired = common::distinct(k, || any(rng));
                let chat = *rng.choice(&["c1", "c2"]);
                let n = rng.randbelow(1_000_000);
                let query = format!("where{n} is{n} it{n}");
                let outcome = (rng.random() < 0.7).then(|| *rng.choice(&[1.0, 0.5, -1.0]));
                Action::Asked(chat, fired, query, outcome)
            }
            // a correction
            26..=29 => {
                use crabpath_brain::service::CorrectionMode::{Guardrail, Veto};
                mix.corrections += 1;
                let mode = if rng.random() < 0.6 { Veto } else { Guardrail };
                Action::Correct(mix.corrections - 1, mode)
            }
            // a snapshot, or a rollback to one
            22..=25 => {
                if !self.snapshots.is_empty() && rng.random() < 0.5 {
                    let k = self.snapshots[rng.choice_index(self.snapshots.len())];
                    Action::Rollback(k)
                } else {
                    Action::Snapshot(self.snapshots.len())
                }
            }
            // a learn of 2 to 4 distinct nodes
            0..=21 => {
                let k = 2 + rng.randbelow(3) as usize;
                let fired = common::distinct(k, || any(rng));
                if fired.len() < 2 {
                    return Action::Step(Step::Autotune);
                }
                let outcome = *rng.choice(&[1.0, 1.0, 0.5, -0.5, -1.0]);
                Action::Step(Step::Learn(fired, outcome))
            }
            38..=44 => {
                let id = intern(&format!("teaching::t{}", mix.teachings));
                mix.teachings += 1;
                let files = ["a.md", "c.md", "d.md", "e.md", "f.md"];
                let (f1, f2) = (*rng.choice(&files), *rng.choice(&files));
                let (one, two) = (*rng.choice(pool(f1)), *rng.choice(pool(f2)));
                Action::Step(Step::Inject(id, intern(&format!("{one} {two}"))))
            }
            45..=56 => {
                let all = ["health", "decay", "prune", "merge"];
                let mut tasks: Vec<&str> = all.into_iter().filter(|_| rng.random() < 0.5).collect();
                if tasks.is_empty() {
                    tasks.push(*rng.choice(&all));
                }
                let tasks = intern(&tasks.join(","));
                if rng.random() < 0.2 {
                    Action::Step(Step::MaintainDry(tasks))
                } else {
                    Action::Step(Step::Maintain(tasks))
                }
            }
            57..=60 => Action::Step(Step::Autotune),
            61..=67 => {
                let authority = *rng.choice(&[Some("canonical"), Some("constitutional"), None]);
                Action::Step(Step::Anchor(any(rng), authority))
            }
            68..=71 => Action::Step(Step::Connect),
            72..=75 => {
                let chunks: Vec<&'static str> = common
                    .iter()
                    .copied()
                    .filter(|id| id.contains("::"))
                    .collect();
                let p = *rng.choice(&chunks);
                let q = *rng.choice(&chunks);
                if p == q {
                    return Action::Step(Step::Learn(vec![p, any(rng)], 1.0));
                }
                Action::Push(p, q, 12)
            }
            _ => {
                let n = 1 + rng.randbelow(3);
                let changes = (0..n).map(|_| self.change(rng)).collect();
                Action::Sync(changes)
            }
        }
    }

    /// A random change of the folder (it may not apply: [`Folder::apply`]).
    fn change(&self, rng: &mut Random) -> Change {
        let f = *rng.choice(&FILES);
        let here = self.folder.0.get(f);
        let para = *rng.choice(pool(f));
        match (here, rng.randbelow(10)) {
            (None, _) => {
                let title = intern(&format!("# {}", f.trim_end_matches(".md").to_uppercase()));
                let mut paras = vec![title];
                for _ in 0..1 + rng.randbelow(2) {
                    paras.push(*rng.choice(pool(f)));
                }
                Change::Create(f, paras)
            }
            (Some(_), 0..=3) => Change::Append(f, para),
            (Some(_), 4..=5) => Change::DropLast(f),
            (Some(v), 6..=7) => Change::Rewrite(f, rng.randbelow(v.len() as u64) as usize, para),
            (Some(_), _) => Change::Delete(f),
        }
    }
}

/// What one history came to.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Replayed, and X equals Y.
    Equal,
    /// Replayed, and X differs from Y: a failure (what differs).
    Differs(String),
    /// The weights were kept, for this reason.
    Kept(String),
    /// A documented limit of forget makes X and Y differ (an injection linked to
    /// b.md, a merge that joined a b.md chunk): not compared.
    Limit(String),
}

/// A readable account of how two exported graphs differ: nodes and edges of one only,
/// edges of both with other weights, or else their order.
fn diff(x: &serde_json::Value, y: &serde_json::Value) -> String {
    let nodes = |v: &serde_json::Value| -> BTreeMap<String, String> {
        v["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| (n["id"].to_string(), n.to_string()))
            .collect()
    };
    let edges = |v: &serde_json::Value| -> BTreeMap<String, String> {
        v["edges"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (format!("{} -> {}", e["source"], e["target"]), e.to_string()))
            .collect()
    };
    let mut out = Vec::new();
    for (what, a, b) in [("node", nodes(x), nodes(y)), ("edge", edges(x), edges(y))] {
        for (k, v) in &a {
            match b.get(k) {
                None => out.push(format!("{what} of X only: {v}")),
                Some(w) if w != v => out.push(format!("{what} differs: X {v} / Y {w}")),
                _ => {}
            }
        }
        for (k, v) in &b {
            if !a.contains_key(k) {
                out.push(format!("{what} of Y only: {v}"));
            }
        }
    }
    if out.is_empty() {
        out.push("same nodes and edges, in another order".into());
    }
    out.truncate(12);
    out.join("\n")
}

/// An exported `graph` with the question layer set apart: the other nodes, and the
/// edges between them, in their order; the question nodes (`auto:`, grown by the
/// agents' queries; their `born_seq` and `last_seq`, journal positions, left out) and
/// every edge from or to one, by id. The replay puts the layer back after the rest,
/// and a brain that never had b.md grew it at other journal positions
/// (`service::unlearn`, "The question layer"): the same nodes, weights and metadata,
/// elsewhere in the order.
fn layered(graph: &serde_json::Value) -> serde_json::Value {
    let auto = |id: &serde_json::Value| id.as_str().is_some_and(|s| s.starts_with("auto:"));
    let (mut nodes, mut auto_nodes) = (Vec::new(), BTreeMap::new());
    for n in graph["nodes"].as_array().into_iter().flatten() {
        if auto(&n["id"]) {
            let mut n = n.clone();
            if let Some(a) = n
                .pointer_mut("/metadata/auto")
                .and_then(|a| a.as_object_mut())
            {
                a.remove("born_seq");
                a.remove("last_seq");
            }
            auto_nodes.insert(n["id"].to_string(), n);
        } else {
            nodes.push(n.clone());
        }
    }
    let (mut edges, mut auto_edges) = (Vec::new(), BTreeMap::new());
    for e in graph["edges"].as_array().into_iter().flatten() {
        if auto(&e["source"]) || auto(&e["target"]) {
            auto_edges.insert(format!("{} -> {}", e["source"], e["target"]), e.clone());
        } else {
            edges.push(e.clone());
        }
    }
    serde_json::json!({"nodes": nodes, "edges": edges, "auto_nodes": auto_nodes, "auto_edges": auto_edges})
}

/// Plays `actions` (those that apply) on a new X and Y, X forgets b.md, and the
/// outcome; `None` when X no longer has b.md to forget.
fn play(actions: &[Action]) -> Option<Outcome> {
    let mut w = World::new();
    for a in actions {
        w.apply(a);
    }
    judge(&mut w)
}

/// The journal entries of the brain database `db`.
fn journal(db: &Path) -> Vec<serde_json::Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT entry FROM journal ORDER BY seq")
        .unwrap();
    let rows = st.query_map([], |r| r.get::<_, String>(0)).unwrap();
    rows.map(|e| serde_json::from_str(&e.unwrap()).unwrap())
        .collect()
}

fn judge(w: &mut World) -> Option<Outcome> {
    if !ids(&w.dbs[0]).iter().any(|id| of_b(id)) {
        return None;
    }
    // an injection's neighbours, as its journal entry lists them: a b.md chunk among
    // them may since have left with a sync (its edges with it)
    let linked_b = inject_links(&mut w.x)
        .into_iter()
        .find(|(s, t)| of_b(s) || of_b(t))
        .or_else(|| {
            journal(&w.dir.path().join("x/brain/brain.db"))
                .into_iter()
                .find(|e| e["type"] == "inject" && e["neighbours"].to_string().contains("\"b.md::"))
                .map(|e| (e["id"].to_string(), e["neighbours"].to_string()))
        });
    let merged_b =
        w.x.read(|g, _| {
            g.nodes()
                .filter_map(|(_, n)| n.metadata.get("merged_from"))
                .find(|m| m.to_string().contains("b.md::"))
                .map(|m| m.to_string())
        })
        .unwrap();
    let r = w.x.forget(&ForgetTarget::File("b.md".into())).unwrap();
    let limit = match (linked_b, merged_b) {
        (Some((s, t)), _) => Some(format!("an injection linked {s} -> {t}")),
        (_, Some(m)) => Some(format!("a merge joined {m}")),
        _ => None,
    };
    Some(match r.relearned {
        Relearned::Kept(why) => Outcome::Kept(why),
        Relearned::Replayed(_) => {
            let (ex, ey) = (
                exported(&mut w.x, &w.dir.path().join("x")),
                exported(&mut w.y, &w.dir.path().join("y")),
            );
            match (layered(&ex["graph"]) == layered(&ey["graph"]), limit) {
                (true, _) => Outcome::Equal,
                (false, Some(why)) => Outcome::Limit(why),
                (false, None) => Outcome::Differs(diff(&ex["graph"], &ey["graph"])),
            }
        }
    })
}

/// A random history of 10 to 40 steps from `seed`, played; the steps that applied and
/// the outcome.
fn random_history(seed: u64) -> (Vec<Action>, Option<Outcome>) {
    let mut rng = Random::new(seed);
    let mut w = World::new();
    let n = 10 + rng.randbelow(31);
    // a `connect` in a third of the histories: one before a sync that removes or
    // rewrites a chunk keeps the weights, and most histories sync
    let mut mix = Mix {
        teachings: 0,
        connect: rng.random() < 0.3,
        corrections: 0,
    };
    let mut done = Vec::new();
    for _ in 0..n {
        let a = w.pick(&mut rng, &mut mix);
        if w.apply(&a) {
            done.push(a);
        }
    }
    // b.md deleted from the folder and not made again: made again, so that there is
    // something to forget
    if !w.folder.0.contains_key("b.md") {
        let a = Action::Sync(vec![Change::Create("b.md", vec!["# B", pool("b.md")[0]])]);
        w.apply(&a);
        done.push(a);
    }
    let outcome = judge(&mut w);
    (done, outcome)
}

/// The fewest of `actions` (whole steps left out, then a sync's changes and a learn's
/// nodes one by one) that still end in [`Outcome::Differs`].
fn shrink(mut actions: Vec<Action>) -> Vec<Action> {
    let fails = |a: &[Action]| matches!(play(a), Some(Outcome::Differs(_)));
    loop {
        let mut smaller = false;
        let mut i = 0;
        while i < actions.len() {
            let mut fewer = actions.clone();
            fewer.remove(i);
            if fails(&fewer) {
                actions = fewer;
                smaller = true;
                continue;
            }
            // the parts of one step
            let parts: Vec<Action> = match &actions[i] {
                Action::Sync(c) if c.len() > 1 => (0..c.len())
                    .map(|k| {
                        let mut c = c.clone();
                        c.remove(k);
                        Action::Sync(c)
                    })
                    .collect(),
                Action::Step(Step::Learn(f, o)) if f.len() > 2 => (0..f.len())
                    .map(|k| {
                        let mut f = f.clone();
                        f.remove(k);
                        Action::Step(Step::Learn(f, *o))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for p in parts {
                let mut fewer = actions.clone();
                fewer[i] = p;
                if fails(&fewer) {
                    actions = fewer;
                    smaller = true;
                    break;
                }
            }
            i += 1;
        }
        if !smaller {
            return actions;
        }
    }
}

/// A seed, the steps of its history that applied, and what it came to.
type Played = (u64, Vec<Action>, Option<Outcome>);

/// Random histories: X forgets b.md and either equals Y or says why it kept the
/// weights; most replay (the test would pass on a replay that always kept them).
#[test]
fn forget_of_random_histories_equals_never_having_had_the_file_or_says_kept() {
    let seeds: Vec<u64> = (0..SEEDS).collect();
    let results: Mutex<Vec<Played>> = Mutex::new(Vec::new());
    // two workers: the seeds are independent
    std::thread::scope(|s| {
        for part in seeds.chunks(seeds.len().div_ceil(2)) {
            let results = &results;
            s.spawn(move || {
                for &seed in part {
                    let (actions, outcome) = random_history(seed);
                    results.lock().unwrap().push((seed, actions, outcome));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    // how many histories hold each newer kind of step: a change of the generator that
    // stopped drawing one would leave it untested
    let holding = |f: fn(&Action) -> bool| results.iter().filter(|r| r.1.iter().any(f)).count();
    let kinds = [
        ("a query", holding(|a| matches!(a, Action::Asked(..)))),
        (
            "a correction",
            holding(|a| matches!(a, Action::Correct(..))),
        ),
        ("a rollback", holding(|a| matches!(a, Action::Rollback(..)))),
        ("a sync", holding(|a| matches!(a, Action::Sync(..)))),
    ];
    eprintln!("forget_random: histories with {kinds:?}");
    for (kind, n) in kinds {
        assert!(n >= 10, "only {n} histories with {kind}");
    }
    let (mut equal, mut kept, mut limits, mut none) = (0, 0, 0, 0);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (seed, actions, outcome) in results {
        match outcome {
            Some(Outcome::Equal) => equal += 1,
            Some(Outcome::Kept(why)) => {
                kept += 1;
                // the reason without the ids and counts in it
                let why: String = why.split('`').step_by(2).collect::<Vec<_>>().join("…");
                let why = why
                    .trim_start_matches(|c: char| !c.is_alphabetic())
                    .to_string();
                *reasons.entry(why).or_default() += 1;
            }
            Some(Outcome::Limit(why)) => {
                limits += 1;
                eprintln!("seed {seed}: documented limit: {why}");
            }
            Some(Outcome::Differs(d)) => failures.push((seed, actions, d)),
            None => none += 1,
        }
    }
    eprintln!(
        "forget_random: {SEEDS} seeds: {equal} replayed and equal, {kept} kept, {limits} documented limits, {} different, {none} without b.md",
        failures.len()
    );
    for (why, n) in &reasons {
        eprintln!("  kept {n}×: {why}");
    }
    if let Some((seed, actions, _)) = failures.first() {
        let small = shrink(actions.clone());
        let d = match play(&small) {
            Some(Outcome::Differs(d)) => d,
            other => format!("{other:?}"),
        };
        panic!(
            "{} seeds replayed to a brain other than Y: {:?}\nseed {seed}, shrunk to {} steps:\n{small:?}\n{d}",
            failures.len(),
            failures.iter().map(|f| f.0).collect::<Vec<_>>(),
            small.len(),
        );
    }
    assert!(
        equal * 2 >= SEEDS as usize,
        "only {equal} of {SEEDS} seeds replayed"
    );
}

/// Seed 157's history, shrunk (found when agents' queries joined the random steps):
/// a question node's credit edge to a chunk moved to the merged node when maintenance
/// merged that chunk with another, and the replay set the merged node aside before it
/// took the question layer, so the layer came back without that edge (X unlike Y,
/// nothing said).
#[test]
fn a_question_nodes_edge_to_a_merged_node_comes_back() {
    let actions = vec![
        Action::Push("c.md::2", "c.md::0", 12),
        Action::Asked("c1", vec!["c.md::2"], "where1 is1 it1".into(), Some(1.0)),
        Action::Step(Step::Maintain("prune,merge")),
    ];
    let outcome = play(&actions);
    assert_eq!(outcome, Some(Outcome::Equal));
}
