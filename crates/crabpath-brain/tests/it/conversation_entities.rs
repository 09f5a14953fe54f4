//! Entity edges (issue 28, item 5) are the same whether a conversation is built whole
//! (`init --conversation`, [`build_graph`]) or remembered turn by turn
//! ([`Brain::remember_turn`], the daemon's and MCP's `remember`): the same edges, and so
//! the same query answers. The conversation is hand-written so that the links change
//! as turns arrive: "pixel" is rare (≤ `MAX_DF` = 4 turns) until the eighth turn makes
//! it common (5 turns), which undoes the links it made.

use crate::common;

use std::path::Path;

use crabpath::profile::Profile;
use crabpath_brain::source::conversation::entities::{entity_links, ENTITY_WEIGHT};
use crabpath_brain::source::conversation::{build_graph, Turn};
use crabpath_brain::{Brain, QueryRequest};
use serde_json::json;

/// Four sessions of two speakers; "pixel" (a dog) in turns 0, 2, 4, 6 and 7, "porto"
/// in 2 and 4, "dune" in 1, 3, 5, 7, "greyhound" in 0 and 6. The fourth turn has no
/// id (generated: `turn:2:2`).
fn turns() -> Vec<Turn> {
    let lines = [
        json!({"id": "D1:1", "session": 1, "time": "9 am on 1 May", "speaker": "Ann", "text": "I adopted a greyhound named Pixel."}),
        json!({"id": "D1:2", "session": 1, "time": "9 am on 1 May", "speaker": "Bo", "text": "Lovely! I am reading Dune again."}),
        json!({"id": "D2:1", "session": 2, "time": "6 pm on 9 May", "speaker": "Ann", "text": "Pixel loves the beach near Porto."}),
        json!({"session": 2, "speaker": "Bo", "text": "Dune is better than the film."}),
        json!({"id": "D3:1", "session": 3, "speaker": "Ann", "text": "We took Pixel to Porto again."}),
        json!({"id": "D3:2", "session": 3, "speaker": "Bo", "text": "I finished Dune last night."}),
        json!({"id": "D4:1", "session": 4, "speaker": "Ann", "text": "Pixel met another greyhound."}),
        json!({"id": "D4:2", "session": 4, "speaker": "Bo", "text": "Dune and Pixel, what a pair."}),
    ];
    lines
        .iter()
        .map(|v| Turn::from_object(v.as_object().unwrap()).unwrap())
        .collect()
}

/// Every edge of the database brain at `db`: `(source, target, weight, kind,
/// metadata)`, sorted.
fn edges(db: &Path) -> Vec<(String, String, f64, String, Option<String>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare(
            "SELECT a.id, b.id, e.weight, e.kind, e.metadata FROM edges e JOIN nodes a ON a.sym = e.src JOIN nodes b ON b.sym = e.tgt",
        )
        .unwrap();
    let mut out: Vec<_> = st
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    out.sort_by(|a: &(String, String, f64, String, Option<String>), b| {
        (&a.0, &a.1).cmp(&(&b.0, &b.1))
    });
    out
}

/// The ranked answers of a few questions, neurogenesis off (nothing written).
fn answers(b: &mut Brain) -> Vec<Vec<String>> {
    [
        "Where did Ann take her greyhound?",
        "What book is Bo reading?",
        "Porto beach dog",
    ]
    .iter()
    .map(|q| {
        let mut r = QueryRequest::new(q, 2);
        r.limit = Some(8);
        r.neurogenesis = Some(false);
        let a = b.query(&r).unwrap();
        a.ranked().iter().map(|s| s.to_string()).collect()
    })
    .collect()
}

/// How [`remembered`] adds the turns after the first.
#[derive(Debug, Clone, Copy)]
enum Remembering {
    /// A brain reading its turns from the database for each `remember`.
    Stored,
    /// A brain held in memory (the daemon's and MCP's), reading them from its graph.
    Resident,
    /// The two, on one database, taking turns (two processes): each reads the turns
    /// the other added.
    Both,
}

/// A database of the first of `turns`, the others remembered one at a time as `how`
/// says; the directory holding it, its file and the links the remembers removed.
fn remembered(
    turns: &[Turn],
    how: Remembering,
) -> (tempfile::TempDir, std::path::PathBuf, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let db = common::hash_store(dir.path(), &build_graph(&turns[..1]).unwrap().graph);
    let mut stored = common::open_hash(&db, Profile::Corrected, false);
    let mut resident = common::open_hash(&db, Profile::Corrected, true);
    let mut removed = Vec::new();
    for (k, t) in turns[1..].iter().enumerate() {
        let b = match how {
            Remembering::Stored => &mut stored,
            Remembering::Resident => &mut resident,
            Remembering::Both if k % 2 == 0 => &mut resident,
            Remembering::Both => &mut stored,
        };
        removed.extend(b.remember_turn(t).unwrap().removed);
    }
    (dir, db, removed)
}

#[test]
fn remembering_turn_by_turn_gives_the_edges_and_answers_of_init() {
    let turns = turns();
    // the whole conversation, as `crabpath init --conversation` builds it
    let whole = tempfile::tempdir().unwrap();
    let whole_db = common::hash_store(whole.path(), &build_graph(&turns).unwrap().graph);
    // a brain read from the database and one held in memory read the turns by
    // different code (`remember`'s `stored_turns` and `resident_turns`): the same
    // edges either way, and when the two add turns to one database in turn
    for how in [Remembering::Resident, Remembering::Both] {
        let (_dir, db, removed) = remembered(&turns, how);
        assert_eq!(edges(&db), edges(&whole_db), "{how:?}");
        assert!(!removed.is_empty(), "{how:?}: no link was undone");
    }
    let (_parts, parts_db, removed) = remembered(&turns, Remembering::Stored);

    let (got, want) = (edges(&parts_db), edges(&whole_db));
    assert_eq!(got, want);
    // the entity edges are there (not only the chains): the links of all 8 turns,
    // each both ways with the entity weight
    let links = entity_links(&turns);
    assert!(!links.is_empty());
    let entity = want.iter().filter(|e| e.2 == ENTITY_WEIGHT).count();
    assert_eq!(entity, 2 * links.len());
    // the eighth turn made "pixel" common: links made by earlier turns were removed
    assert!(!removed.is_empty(), "no link was undone");

    let mut a = common::open_hash(&whole_db, Profile::Corrected, false);
    let mut b = common::open_hash(&parts_db, Profile::Corrected, false);
    assert_eq!(answers(&mut b), answers(&mut a));
}

#[test]
fn a_remembered_turn_reports_its_entity_edges() {
    let turns = turns();
    let dir = tempfile::tempdir().unwrap();
    let db = common::hash_store(dir.path(), &build_graph(&turns[..6]).unwrap().graph);
    let mut b = common::open_hash(&db, Profile::Corrected, true);
    // D4:1 shares "pixel" with D1:1, D2:1, D3:1 (df 4 with it: idf ln(7/4)) and
    // "greyhound" with D1:1 (df 2: ln(7/2)); its best two partners: D1:1 (both words),
    // then D2:1 (the earlier of the tied ones).
    let r = b.remember_turn(&turns[6]).unwrap();
    let entity: Vec<(&str, &str)> = r
        .edges
        .iter()
        .filter(|e| e.2 == ENTITY_WEIGHT)
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    assert_eq!(
        entity,
        [
            ("D1:1", "D4:1"),
            ("D4:1", "D1:1"),
            ("D2:1", "D4:1"),
            ("D4:1", "D2:1")
        ]
    );
    // D1:1's partners were D2:1 and D3:1 ("pixel", tied); now D4:1 outscores them and
    // the tie keeps D2:1. D3:1's own two are D2:1 ("pixel", "porto") and D1:2
    // ("again", ln(7/2) > "pixel"'s ln(7/4)), so nothing keeps D1:1–D3:1: unlinked
    assert_eq!(
        r.removed,
        [
            ("D1:1".to_string(), "D3:1".to_string()),
            ("D3:1".to_string(), "D1:1".to_string())
        ]
    );
}
