//! Route modes of served queries ([`crabpath_brain::service::route`]) through the one query
//! path: a hub with eight habitual edges of equal weight, three of them to chunks that
//! resemble the question. Without a router every edge is followed (the reference's
//! traversal); `edge` keeps the five first in bucket order (equal weights); `edge+sim`
//! keeps the three that resemble the question among its five — read from a database's
//! rows (sparse hash-v1 vectors), resident or not, and from a state file's index.

use crate::common;

use std::path::{Path, PathBuf};

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::graph::{Edge, Metadata, Node};
use crabpath::profile::Profile;
use crabpath_brain::service::export_state;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::{Brain, QueryRequest, Scope};

const QUESTION: &str = "rollback the kubernetes deployment";

/// Targets `t5`, `t6`, `t7` resemble the question; the others do not.
const TEXTS: [&str; 8] = [
    "banana bread needs ripe bananas",
    "the violin has four strings",
    "tea steeps for three minutes",
    "penguins live in the south",
    "a haiku has seventeen syllables",
    "rollback a kubernetes deployment with kubectl rollout undo",
    "the deployment rollback restores the previous kubernetes replica set",
    "kubernetes deployment history lists each rollout to roll back to",
];

/// The fixture brain plus the hub and its eight targets.
fn store(dir: &Path) -> PathBuf {
    let e = HashEmbedder::new();
    let (_, db) = common::fixture_brain(dir);
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    b.write(Scope::All, |w| {
        let node = |id: &str, text: &str| Node {
            id: id.into(),
            content: text.into(),
            summary: text.into(),
            metadata: Metadata::new(),
        };
        let hub = w.graph.add_node(node("hub", QUESTION));
        w.vectors.upsert("hub", &e.embed(QUESTION)?)?;
        for (i, t) in TEXTS.iter().enumerate() {
            let id = format!("t{i}");
            let n = w.graph.add_node(node(&id, t));
            w.vectors.upsert(&id, &e.embed(t)?)?;
            w.graph.add_edge(hub, n, Edge::new(0.4))?;
        }
        Ok(())
    })
    .unwrap();
    db
}

/// The targets fired by the question seeded at the hub alone.
fn targets(b: &mut Brain, mode: RouteMode) -> Vec<String> {
    let mut req = QueryRequest::new(QUESTION, 1);
    req.vector = Some(HashEmbedder::new().embed(QUESTION).unwrap());
    req.route = mode.config();
    let a = b.query(&req).unwrap();
    let fired: Vec<String> = a.fired().iter().map(|s| s.to_string()).collect();
    assert_eq!(fired[0], "hub", "{mode}: {fired:?}");
    let mut t: Vec<String> = fired.into_iter().filter(|f| f.starts_with('t')).collect();
    t.sort();
    t
}

fn all(ids: &[usize]) -> Vec<String> {
    ids.iter().map(|i| format!("t{i}")).collect()
}

#[test]
fn route_modes_pick_the_edges_they_promise() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path());
    let state = dir.path().join("state.json");
    export_state(
        &mut common::open_hash(&db, Profile::Corrected, false),
        &state,
    )
    .unwrap();
    for (what, path, resident) in [
        ("database", &db, false),
        ("resident database", &db, true),
        ("state file", &state, true),
    ] {
        let mut b = common::open_hash(path, Profile::Corrected, resident);
        assert_eq!(
            targets(&mut b, RouteMode::Off),
            all(&[0, 1, 2, 3, 4, 5, 6, 7]),
            "{what}"
        );
        assert_eq!(
            targets(&mut b, RouteMode::Edge),
            all(&[0, 1, 2, 3, 4]),
            "{what}"
        );
        let sim = targets(&mut b, RouteMode::EdgeSim);
        assert_eq!(sim.len(), 5, "{what}: {sim:?}");
        for t in ["t5", "t6", "t7"] {
            assert!(sim.contains(&t.to_string()), "{what}: {sim:?}");
        }
        // before any learning the weights are uniform: adaptive trusts the question
        assert_eq!(targets(&mut b, RouteMode::Adaptive), sim, "{what}");
    }
}
