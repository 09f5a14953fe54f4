//! A correction scoped to the question it corrects (issue 31 item 4, "the wrong *path*
//! is inhibited for that context"; `service/guardrail.rs`): a related question that
//! shares content with the corrected one keeps its answer, and the corrected question
//! still gets its guardrail and the corrected content.

use crate::common;

use crabpath::graph::{Edge, Graph, Node};
use crabpath::profile::Profile;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::{CorrectRequest, CorrectionMode};
use crabpath_brain::{Brain, QueryRequest};

/// The deploy notes: the checklist links to the canary page (a path both questions
/// walk); the release-tool page is what the correction points to.
const NODES: [(&str, &str); 5] = [
    (
        "checklist.md::0",
        "deploy checklist for the payment service: run the migrations, then deploy",
    ),
    (
        "canary.md::0",
        "canary dashboard: error rate thresholds to watch after a rollout",
    ),
    (
        "release.md::0",
        "the release tool rolls out the payment service and rolls it back",
    ),
    ("coffee.md::0", "coffee grinder cleaning schedule"),
    ("garden.md::0", "garden tomatoes need water daily"),
];

/// The corrected question, its correction, and a related question (it shares the
/// checklist and needs the canary page the checklist leads to).
const CORRECTED: &str = "how do I deploy the payment service";
const CORRECTION: &str = "Deploy the payment service with the release tool, never by hand.";
const RELATED: &str = "which checklist steps come before a deploy";

/// A brain of [`NODES`] with the edge checklist → canary (hash-v1, corrected profile).
fn brain(dir: &std::path::Path) -> Brain {
    let mut g = Graph::new();
    for (id, text) in NODES {
        g.add_node(Node::new(id, text));
    }
    g.add_edge_by_id("checklist.md::0", "canary.md::0", Edge::new(0.25))
        .unwrap();
    let db = common::hash_store(dir, &g);
    common::open_hash(&db, Profile::Corrected, true)
}

/// Asks `q` (1 seed, at most 2 results), logged as a turn of `chat`; returns (ranked
/// content, guardrails).
fn ask(b: &mut Brain, q: &str, chat: &str) -> (Vec<String>, Vec<String>) {
    let mut req = QueryRequest::new(q, 1);
    req.limit = Some(2);
    let a = b.query(&req).unwrap();
    let ranked = a.ranked().into_iter().map(str::to_string).collect();
    let guards = a.guardrails.clone();
    let rec = a.turn_record(q);
    drop(a);
    b.record_turn(chat, rec).unwrap();
    (ranked, guards)
}

/// Both questions asked, the corrected one corrected with `mode`, both asked again;
/// returns (corrected after, related before, related after, correction id).
#[allow(clippy::type_complexity)]
fn run(
    mode: CorrectionMode,
) -> (
    (Vec<String>, Vec<String>),
    (Vec<String>, Vec<String>),
    (Vec<String>, Vec<String>),
    String,
) {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path());
    let before = ask(&mut b, CORRECTED, "c1");
    assert!(
        !before.0.contains(&"release.md::0".to_string()),
        "the corrected question misses the release tool at first: {before:?}"
    );
    let related_before = ask(&mut b, RELATED, "c2");
    let r = b
        .correct_with(
            &CorrectRequest {
                content: CORRECTION,
                chat_id: Some("c1"),
                turns_ago: None,
                outcome: -1.0,
                window: Window::default(),
                source: "test",
            },
            mode,
        )
        .unwrap();
    let corrected_after = ask(&mut b, CORRECTED, "c1");
    let related_after = ask(&mut b, RELATED, "c2");
    (corrected_after, related_before, related_after, r.node_id)
}

#[test]
fn a_related_question_keeps_its_answer_after_a_correction() {
    // fails with the rule before the fix (the shared rule, next test): the related
    // question's canary page gave way to the release page the correction pulled in
    let (_, before, after, _) = run(CorrectionMode::Guardrail);
    assert!(
        before.0.contains(&"canary.md::0".to_string()),
        "the related question reaches the canary page: {before:?}"
    );
    assert_eq!(after.0, before.0, "the related question keeps its answer");
}

#[test]
fn the_shared_rule_made_the_related_question_lose() {
    // the rule before the fix: the turn's −1 along checklist → canary (0.25 − 0.1:
    // learning rate 0.1, below the habitual tier's 0.2) and the correction's links both
    // ways reach every question on the topic
    let (_, before, after, _) = run(CorrectionMode::GuardrailShared);
    assert!(before.0.contains(&"canary.md::0".to_string()), "{before:?}");
    assert!(
        !after.0.contains(&"canary.md::0".to_string()),
        "{before:?} then {after:?}"
    );
}

#[test]
fn the_corrected_question_gets_its_guardrail_and_the_corrected_content() {
    let (after, _, _, node) = run(CorrectionMode::Guardrail);
    assert_eq!(
        after.1,
        vec![node],
        "the correction comes back as a guardrail"
    );
    assert!(
        after.0.contains(&"release.md::0".to_string()),
        "the corrected content is in the answer: {after:?}"
    );
    // and the wrong answer's canary page gave way to it
    assert!(!after.0.contains(&"canary.md::0".to_string()), "{after:?}");
}
