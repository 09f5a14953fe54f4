//! Corrections take no place of the content a related question finds (issue 31 item 4,
//! `service/content_depth.rs`): the seeding's ranked list holds its depth in *content*
//! results, however many corrections quote the question's words.
//!
//! The case `bench guard` found on MultiHop-RAG (17 of the 19 related questions that
//! lost only under the guardrail rule): a topic gathers corrections, each quoting its
//! words; short, they outrank the long page a related question needs, fill the
//! lexical search's 50 places ([`MIN_FUSION_DEPTH`]) and are then set aside as
//! guardrails, leaving the answer without its page.

use crate::common;

use crabpath::graph::{Graph, Node};
use crabpath::profile::Profile;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::CorrectRequest;
use crabpath_brain::store::lexical::MIN_FUSION_DEPTH;
use crabpath_brain::{Brain, QueryRequest};

/// The page the related question needs: long, so that BM25's length normalisation
/// ranks every short correction quoting "payment refund" above it.
const RUNBOOK: &str = "runbook.md::0";
const RUNBOOK_TEXT: &str = "operations runbook for the billing team: a payment refund is \
    issued from the admin console after the ledger entry is checked, the customer is \
    told by mail, the support ticket is closed, and the monthly report lists every \
    refund with its amount, its reason and the name of the person who approved it";

/// The related question: every correction holds all of its words, the page two of
/// them.
const RELATED: &str = "what is the payment refund rule";

/// A question whose first result stays the page ("issued" is the page's alone): the
/// corrections after it must still not take the answer's other places. Before the fix
/// a database brain read for the query only the first `limit` results of the list,
/// corrections among them or not, and a correction it had not read was ranked as
/// content.
const ISSUED: &str = "how is a payment refund issued";

/// More corrections than the lexical search's places (one more than
/// [`MIN_FUSION_DEPTH`]).
const CORRECTIONS: usize = MIN_FUSION_DEPTH + 1;

fn brain(dir: &std::path::Path, resident: bool) -> Brain {
    let mut g = Graph::new();
    g.add_node(Node::new(RUNBOOK, RUNBOOK_TEXT));
    g.add_node(Node::new(
        "garden.md::0",
        "garden tomatoes need water daily",
    ));
    g.add_node(Node::new(
        "coffee.md::0",
        "coffee grinder cleaning schedule",
    ));
    let db = common::hash_store(dir, &g);
    common::open_hash(&db, Profile::Corrected, resident)
}

/// Asks `q` (1 seed, at most 3 results): (ranked content, guardrails).
fn ask(b: &mut Brain, q: &str) -> (Vec<String>, Vec<String>) {
    let mut req = QueryRequest::new(q, 1);
    req.limit = Some(3);
    let a = b.query(&req).unwrap();
    (
        a.ranked().into_iter().map(str::to_string).collect(),
        a.guardrails.clone(),
    )
}

fn run(resident: bool, q: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path(), resident);
    let before = ask(&mut b, q);
    assert_eq!(
        before.0.first().map(String::as_str),
        Some(RUNBOOK),
        "{before:?}"
    );
    for i in 0..CORRECTIONS {
        let text = format!("Correction {i}: payment refund rule number {i}");
        b.correct(&CorrectRequest {
            content: &text,
            chat_id: None,
            turns_ago: None,
            outcome: -1.0,
            window: Window::default(),
            source: "test",
        })
        .unwrap();
    }
    let (ranked, guards) = ask(&mut b, q);
    // before the fix, for RELATED, the 50 places held corrections only: no content
    // seed, no runbook
    assert!(
        ranked.iter().any(|id| id == RUNBOOK),
        "the related question still finds its page: {ranked:?}"
    );
    assert!(
        ranked.iter().all(|id| !id.starts_with("correction::")),
        "no correction takes a place of the content: {ranked:?}"
    );
    assert!(
        !guards.is_empty(),
        "the corrections come back as guardrails"
    );
}

#[test]
fn corrections_quoting_a_question_leave_its_page_in_the_answer() {
    run(false, RELATED);
}

#[test]
fn corrections_quoting_a_question_leave_its_page_in_the_answer_resident() {
    run(true, RELATED);
}

#[test]
fn corrections_after_the_first_result_take_none_of_the_other_places() {
    run(false, ISSUED);
}
