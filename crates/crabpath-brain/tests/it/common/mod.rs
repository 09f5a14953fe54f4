//! Shared setup of the brain tests (`feedback.rs`, `route.rs`, `store.rs`): the core's
//! fixture workspace, a brain database of it, and a brain opened with the hash-v1
//! embedder.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::graph::{Edge, Graph, Metadata};
use crabpath::profile::Profile;
use crabpath_brain::reference::embedder::EmbedderInfo;
use crabpath_brain::service::{init_store, InitOptions};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{locate, Brain, OpenOptions};

/// The core crate's fixture workspace.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crabpath/tests/fixtures/workspace")
}

/// The fixture workspace's graph (corrected split) and a brain database of it in `dir`
/// (hash-v1, built serially); returns the graph and the database file.
pub fn fixture_brain(dir: &Path) -> (Graph, PathBuf) {
    let boot = split_workspace(fixtures(), &SplitOptions::new(Profile::Corrected)).unwrap();
    let db = hash_store(dir, &boot.graph);
    (boot.graph, db)
}

/// Opens the brain at `path` (a database, a state file or their directory) in `profile`
/// with the hash-v1 embedder; `resident` keeps the graph in memory.
pub fn open_hash(path: &Path, profile: Profile, resident: bool) -> Brain {
    let mut o = OpenOptions::new(profile);
    o.resident = resident;
    o.embedder = Some(std::sync::Arc::new(|| {
        Ok(Box::new(HashEmbedder::new()) as Box<dyn Embedder>)
    }));
    Brain::open(locate(path), o).unwrap()
}

/// A brain database of `graph` in `dir` (hash-v1, built serially); returns the file.
pub fn hash_store(dir: &Path, graph: &Graph) -> PathBuf {
    hash_store_meta(dir, graph, Metadata::new())
}

/// [`hash_store`] with `extra` entries of `meta` (e.g. the sync records).
pub fn hash_store_meta(dir: &Path, graph: &Graph, extra: Metadata) -> PathBuf {
    let e = HashEmbedder::new();
    let opts = InitOptions {
        embedder: &e,
        info: EmbedderInfo::hash_v1(),
        parallel: false,
        progress: None,
    };
    init_store(dir, graph, &opts, extra, Vec::new()).unwrap();
    dir.join("brain.db")
}

/// A hash-v1 brain (corrected profile, not resident) of the JSON Lines turns `chat`, as
/// `crabpath init --conversation` builds it; marked a conversation (`meta.source`) only
/// when `conversation`, else a folder brain of the same graph.
pub fn chat_brain(dir: &Path, chat: &str, conversation: bool) -> Brain {
    use crabpath_brain::source::conversation::{
        build_graph, parse_jsonl, CONVERSATION, SOURCE_KEY,
    };
    let turns = parse_jsonl(chat, Path::new("chat.jsonl")).unwrap();
    let graph = build_graph(&turns).unwrap().graph;
    let mut extra = Metadata::new();
    if conversation {
        extra.insert(SOURCE_KEY.into(), CONVERSATION.into());
    }
    let db = hash_store_meta(dir, &graph, extra);
    open_hash(&db, Profile::Corrected, false)
}

/// The fixture workspace's graph with every edge "dead" (0.01) but one at 0.5: the
/// dormant share is above 0.65 and the habitual share below 0.2, so the reference's
/// rules 1 and 3 fire (half-life +10 in the corrected direction, fix 12 of
/// `crabpath::profile`; Hebbian +0.02) and rule 2's promotion −1 is
/// clipped at the floor 2.
pub fn dead_brain(dir: &Path) -> (PathBuf, (String, String)) {
    let (mut g, _) = fixture_brain(&dir.join("scratch"));
    let edges: Vec<_> = g.edges().map(|(s, t, _)| (s, t)).collect();
    assert!(edges.len() >= 8, "fixture has {} edges", edges.len());
    for &(s, t) in &edges {
        g.add_edge(s, t, Edge::new(0.01)).unwrap();
    }
    let (s, t) = edges[0];
    g.add_edge(s, t, Edge::new(0.5)).unwrap();
    let live = (g.name(s).to_string(), g.name(t).to_string());
    let db = hash_store(&dir.join("brain"), &g);
    (db, live)
}

/// The search over the vectors of the brain database `db` ([`Searcher::load`]: its
/// derived index when sound, rebuilt when not).
pub fn load_searcher(db: &Path) -> crabpath_brain::store::search::Searcher {
    let store = crabpath_brain::store::Store::open(db, false).unwrap();
    crabpath_brain::store::search::Searcher::load(
        store.conn(),
        &store.dir(),
        store.layout(),
        store.dim(),
        store.nonce(),
    )
    .unwrap()
}

pub mod kept;

/// A `maintain` of `tasks` as the daemon runs it (journaled, not dry; merges at most 5,
/// prune below 0.01).
pub fn daemon_maintain(
    tasks: &[&str],
) -> crabpath_brain::service::command::maintain::MaintainOptions<'static> {
    use crabpath_brain::service::command::maintain::{Flavor, MaintainOptions};
    MaintainOptions {
        requested: tasks.iter().map(|t| t.to_string()).collect(),
        dry_run: false,
        max_merges: 5,
        prune_below: 0.01,
        flavor: Flavor::Daemon,
        journal: true,
        embedder: None,
    }
}

/// A TEACHING injection of `content` as node `id`, connected to its `top_k` nearest
/// nodes scoring at least 0.05 (source `test`).
pub fn teaching(id: &str, content: &str, top_k: usize) -> crabpath_brain::service::InjectRequest {
    crabpath_brain::service::InjectRequest {
        id: id.into(),
        content: content.into(),
        node_type: "TEACHING".into(),
        summary: None,
        vector: None,
        connect_top_k: top_k,
        connect_min_sim: 0.05,
        source: "test".into(),
    }
}

/// Logs a served query of `chat` with text `query` that fired `fired` (its path: the
/// consecutive pairs, each score 0.5), as a served query logs its turn; returns the
/// turn's number.
pub fn log_query<S: AsRef<str>>(b: &mut Brain, chat: &str, fired: &[S], query: &str) -> i64 {
    use crabpath_brain::service::turns::TurnRecord;
    let fired: Vec<String> = fired.iter().map(|s| s.as_ref().to_string()).collect();
    let path = fired
        .windows(2)
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect();
    b.record_turn(
        chat,
        TurnRecord {
            query: query.to_string(),
            scores: vec![0.5; fired.len()],
            fired,
            path,
        },
    )
    .unwrap()
}

/// The agent's `outcome` for `chat`'s recent queries: the newest only (`turns_ago`
/// `Some(0)`) or the default window (`None`).
pub fn chat_feedback(b: &mut Brain, chat: &str, outcome: f64, turns_ago: Option<usize>) {
    use crabpath_brain::service::turns::Window;
    use crabpath_brain::service::FeedbackRequest;
    b.feedback(&FeedbackRequest {
        outcome,
        chat_id: Some(chat),
        fired_ids: None,
        turns_ago,
        window: Window::default(),
        used_ids: None,
    })
    .unwrap();
}

/// Up to `k` distinct values of `draw`, in the order first drawn, from at most `3k`
/// draws (the random histories' way of picking the nodes a step goes through).
pub fn distinct<T: PartialEq>(k: usize, mut draw: impl FnMut() -> T) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for _ in 0..k * 3 {
        let x = draw();
        if !out.contains(&x) {
            out.push(x);
        }
        if out.len() == k {
            break;
        }
    }
    out
}

/// Learns `x` and `y` together both ways, 12 times each with outcome 1: both edges
/// past the merge bar (0.8, `crabpath::maintain::MERGE_MIN_WEIGHT`), so that a merge
/// task joins them.
pub fn learn_until_mergeable(b: &mut Brain, x: &str, y: &str) {
    for _ in 0..12 {
        b.learn(&[x.to_string(), y.to_string()], 1.0).unwrap();
        b.learn(&[y.to_string(), x.to_string()], 1.0).unwrap();
    }
}
