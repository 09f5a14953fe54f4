//! A conversation brain's answer puts the traversal's best addition fifth, after
//! [`LEAD_SEEDS`] seeds and before the fifth seed (issue 28, recall@5;
//! `crabpath_brain::service::lead`); a folder brain's answer keeps all its seeds first.

use crate::common;

use std::path::Path;

use crabpath_brain::service::lead::LEAD_SEEDS;
use crabpath_brain::service::Seeding;
use crabpath_brain::QueryRequest;

/// Six turns name the kayak (K1–K6, equal length, so BM25 ranks them in insertion
/// order); N1 and N2 do not, and are reached only along the session chains (K3 → N1,
/// K6 → N2). "kayak" is in 6 turns, more than an entity link's 4, so no entity edges.
const CHAT: &str = r#"{"id": "K1", "session": 1, "speaker": "Ann", "text": "my kayak is red"}
{"id": "K2", "session": 1, "speaker": "Bo", "text": "my kayak is blue"}
{"id": "K3", "session": 1, "speaker": "Ann", "text": "my kayak is old"}
{"id": "N1", "session": 1, "speaker": "Bo", "text": "we paddled to the island at dawn"}
{"id": "K4", "session": 2, "speaker": "Ann", "text": "my kayak is new"}
{"id": "K5", "session": 2, "speaker": "Bo", "text": "my kayak is big"}
{"id": "K6", "session": 2, "speaker": "Ann", "text": "my kayak is fast"}
{"id": "N2", "session": 2, "speaker": "Bo", "text": "then we swam back to the shore"}
"#;

fn ranked(dir: &Path, conversation: bool) -> Vec<String> {
    let mut b = common::chat_brain(dir, CHAT, conversation);
    let mut req = QueryRequest::new("which kayak", 6);
    req.limit = Some(8);
    req.seeding = Some(Seeding::Lexical);
    // the order of the lead rule, before the ranker re-orders it (service::rerank)
    req.rerank = false;
    let a = b.query(&req).unwrap();
    a.ranked().into_iter().map(str::to_string).collect()
}

fn is_seed(id: &str) -> bool {
    id.starts_with('K')
}

#[test]
fn a_conversation_answer_puts_one_addition_before_the_fifth_seed() {
    let dir = tempfile::tempdir().unwrap();
    let r = ranked(dir.path(), true);
    assert_eq!(LEAD_SEEDS, 4);
    // ranks 1–4: seeds; rank 5: an addition (a turn without the word); rank 6: a seed
    assert!(r[..4].iter().all(|x| is_seed(x)), "{r:?}");
    assert!(!is_seed(&r[4]), "{r:?}");
    assert!(is_seed(&r[5]), "{r:?}");
    // all six seeds are still in the first seven
    assert_eq!(r[..7].iter().filter(|x| is_seed(x)).count(), 6, "{r:?}");
}

#[test]
fn a_folder_answer_keeps_its_seeds_first() {
    let dir = tempfile::tempdir().unwrap();
    let r = ranked(dir.path(), false);
    assert!(r[..6].iter().all(|x| is_seed(x)), "{r:?}");
    assert!(r[6..].iter().all(|x| !is_seed(x)), "{r:?}");
}
