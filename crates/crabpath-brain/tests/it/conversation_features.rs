//! The conversation features of issue 28, item 5, on a tiny hand-made conversation:
//! a question naming a speaker ranks that speaker's turn first
//! ([`crabpath_brain::store::speaker`]), and turns of different sessions that mention
//! the same rare word are linked, common words linking nothing
//! ([`crabpath_brain::source::conversation::entities`]).

use crate::common;

use std::path::Path;

use crabpath::graph::Metadata;
use crabpath::profile::Profile;
use crabpath_brain::service::Seeding;
use crabpath_brain::source::conversation::entities::ENTITY_WEIGHT;
use crabpath_brain::source::conversation::{build_graph, parse_jsonl, CONVERSATION, SOURCE_KEY};
use crabpath_brain::QueryRequest;

/// Two sessions. B1 (Bo) and A1 (Ann) both name both speakers and "sourdough", with
/// contents of equal length (7 words), so BM25 gives them equal scores and ranks the
/// first inserted, B1, first; "marathon" is in one turn of each session (rare);
/// "weekend" in five of six turns (common).
const CHAT: &str = r#"{"id": "B1", "session": 1, "speaker": "Bo", "text": "Ann, my sourdough rose this weekend"}
{"id": "A1", "session": 1, "speaker": "Ann", "text": "Bo, my sourdough sank this weekend"}
{"id": "A2", "session": 1, "speaker": "Ann", "text": "I run the city marathon next weekend"}
{"id": "B2", "session": 2, "speaker": "Bo", "text": "how was your weekend"}
{"id": "A3", "session": 2, "speaker": "Ann", "text": "the marathon went well, a great weekend"}
{"id": "B3", "session": 2, "speaker": "Bo", "text": "congratulations"}
"#;

fn graph() -> crabpath::graph::Graph {
    let turns = parse_jsonl(CHAT, Path::new("chat.jsonl")).unwrap();
    build_graph(&turns).unwrap().graph
}

#[test]
fn a_rare_word_links_sessions_and_a_common_word_does_not() {
    let g = graph();
    let w = |a: &str, b: &str| {
        g.edge(g.lookup(a).unwrap(), g.lookup(b).unwrap())
            .map(|e| e.weight)
    };
    // "marathon": A2 (`session` 1) and A3 (`session` 2), both ways
    assert_eq!(w("A2", "A3"), Some(ENTITY_WEIGHT));
    assert_eq!(w("A3", "A2"), Some(ENTITY_WEIGHT));
    // "weekend" is in 5 of 6 turns (more than entities::MAX_DF = 4): no link between
    // B1 and B2, which share only it
    assert_eq!(w("B1", "B2"), None);
    assert_eq!(w("A1", "B2"), None);
    // chains: 2 pairs with `session` 1, 2 with `session` 2, both ways = 8; entity: 2
    assert_eq!(g.edge_count(), 10);
}

fn conversation_brain(dir: &Path) -> crabpath_brain::Brain {
    let mut extra = Metadata::new();
    extra.insert(SOURCE_KEY.into(), CONVERSATION.into());
    let db = common::hash_store_meta(dir, &graph(), extra);
    common::open_hash(&db, Profile::Corrected, false)
}

fn first(b: &mut crabpath_brain::Brain, q: &str) -> String {
    let mut req = QueryRequest::new(q, 2);
    req.limit = Some(6);
    req.seeding = Some(Seeding::Lexical);
    req.traverse = false;
    let a = b.query(&req).unwrap();
    a.ranked()[0].to_string()
}

#[test]
fn a_question_naming_a_speaker_ranks_that_speakers_turn_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = conversation_brain(dir.path());
    // without a name BM25 ranks B1 first (equal score, inserted first)
    assert_eq!(first(&mut b, "how did the sourdough turn out"), "B1");
    // naming Ann prefers Ann's turn; naming Bo keeps Bo's
    assert_eq!(first(&mut b, "how did Ann's sourdough turn out"), "A1");
    assert_eq!(first(&mut b, "how did Bo's sourdough turn out"), "B1");
}

#[test]
fn a_folder_brain_ignores_speakers() {
    // the same nodes without the conversation mark: seeding as before the feature
    let dir = tempfile::tempdir().unwrap();
    let db = common::hash_store(dir.path(), &graph());
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    assert_eq!(first(&mut b, "how did Ann's sourdough turn out"), "B1");
}
