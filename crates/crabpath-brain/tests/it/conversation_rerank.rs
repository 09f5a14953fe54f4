//! A conversation brain's answer is re-ordered by the ranker of
//! `crabpath_brain::service::rerank` (issue 28, recall@10): a turn that contains every
//! word of the question comes before turns that BM25 prefers for one word alone; a
//! folder brain's answer, and the answer asked with `rerank: false`, keep the order
//! before it.

use crate::common;

use std::path::Path;

use crabpath_brain::service::Seeding;
use crabpath_brain::QueryRequest;

/// The short turns L1–L3 each repeat two of the question's three words, so BM25 ranks
/// them first; W names all three (lantern, harbour, festival) once, in one long turn.
const CHAT: &str = r#"{"id": "L1", "session": 1, "speaker": "Bo", "text": "lantern lantern harbour harbour"}
{"id": "L2", "session": 1, "speaker": "Bo", "text": "festival festival lantern lantern"}
{"id": "L3", "session": 1, "speaker": "Bo", "text": "harbour harbour festival festival"}
{"id": "F1", "session": 2, "speaker": "Bo", "text": "we cooked rice and beans for dinner tonight"}
{"id": "F2", "session": 2, "speaker": "Ann", "text": "my cat slept on the sofa all afternoon today"}
{"id": "F3", "session": 2, "speaker": "Bo", "text": "the train was late again this morning, sadly"}
{"id": "W", "session": 3, "speaker": "Ann", "text": "at the harbour festival we hung a paper lantern on every boat until the music stopped late at night"}
{"id": "F4", "session": 3, "speaker": "Bo", "text": "my brother is visiting from the city next week"}
"#;

const QUESTION: &str = "Which lantern at the harbour festival?";

fn ranked(dir: &Path, conversation: bool, rerank: bool) -> Vec<String> {
    let mut b = common::chat_brain(dir, CHAT, conversation);
    let mut req = QueryRequest::new(QUESTION, 6);
    req.limit = Some(8);
    req.seeding = Some(Seeding::Lexical);
    req.rerank = rerank;
    let a = b.query(&req).unwrap();
    a.ranked().into_iter().map(str::to_string).collect()
}

#[test]
fn a_conversation_answer_puts_the_turn_covering_the_question_first() {
    let dir = tempfile::tempdir().unwrap();
    // before the ranker: BM25 puts the three short turns first
    let before = ranked(dir.path(), true, false);
    let place = |r: &[String]| r.iter().position(|x| x == "W").unwrap();
    assert_eq!(place(&before), 3, "{before:?}");
    let dir = tempfile::tempdir().unwrap();
    let after = ranked(dir.path(), true, true);
    // W at base place 3 scores 1/4 - 0.3/8 + 0.5 = 0.7125 (coverage 1), L3 at place 2
    // 1/3 - 0.3/7 + 0.5 * 2/3 = 0.624 (each word weighs ln(1 + 8/4), equal): W third
    // (WEIGHTS = [1, -0.3, 0.05, 0.1, 0.5]; W is no chain neighbour of L1)
    assert_eq!(place(&after), 2, "{after:?}");
    // the same candidates, re-ordered
    let mut a = after.clone();
    let mut b = before.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn a_folder_answer_keeps_the_order_before_the_ranker() {
    let dir = tempfile::tempdir().unwrap();
    let folder = ranked(dir.path(), false, true);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(folder, ranked(dir.path(), false, false));
}
