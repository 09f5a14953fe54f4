//! Corrections that guide rather than erase (issue 31, item 4), through the `Brain`
//! service: the rollback scenario on a small workspace (deploy notes beside
//! unrelated pages), the similarity floor of a correction's links, and the old rule
//! (`CorrectionMode::Veto`, the paper profile's) still available as it was.

use crate::common;

use std::path::Path;

use crabpath::graph::EdgeKind;
use crabpath::profile::Profile;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::{CorrectRequest, CorrectionMode, GUARDRAIL_MIN_SIM};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{Brain, QueryRequest};

/// The question and correction (issue 31, item 4).
const QUESTION: &str = "how do I roll back a failed deploy";
const CORRECTION: &str = "Never roll back by hand: always use the release tool.";

/// The rollback workspace (`tests/fixtures/rollback`, also the command line's test):
/// rollback and deploy notes, and pages on other topics (the unrelated
/// `matmul.rst` and `http-client.md`).
fn rollback_workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rollback")
}

/// A corrected-profile brain database of the workspace (hash-v1), opened in `profile`.
fn brain(dir: &Path, profile: Profile) -> Brain {
    let boot =
        split_workspace(rollback_workspace(), &SplitOptions::new(Profile::Corrected)).unwrap();
    let db_dir = dir.join("brain");
    std::fs::create_dir_all(&db_dir).unwrap();
    let db = common::hash_store(&db_dir, &boot.graph);
    common::open_hash(&db, profile, true)
}

/// The query as the MCP server asks it (top_k 4, route mode edge+sim), logged as
/// a turn of `chat`; returns (content ids, guardrail ids): the fired nodes that are not
/// guardrails, and the guardrails.
fn ask(b: &mut Brain, chat: &str) -> (Vec<String>, Vec<String>) {
    let mut req = QueryRequest::new(QUESTION, 4);
    req.route = RouteMode::EdgeSim.config();
    let answer = b.query(&req).unwrap();
    let content: Vec<String> = answer
        .fired()
        .into_iter()
        .filter(|id| !answer.is_guardrail(id))
        .map(str::to_string)
        .collect();
    let guards = answer.guardrails.clone();
    let rec = answer.turn_record(QUESTION);
    drop(answer);
    b.record_turn(chat, rec).unwrap();
    (content, guards)
}

fn correct(b: &mut Brain, text: &str, chat: Option<&str>, mode: CorrectionMode) -> Vec<String> {
    let r = b
        .correct_with(
            &CorrectRequest {
                content: text,
                chat_id: chat,
                turns_ago: None,
                outcome: -1.0,
                window: Window::default(),
                source: "test",
            },
            mode,
        )
        .unwrap();
    assert!(r.injected && r.mode == mode);
    r.connected_to
}

/// The correction's out-edges: (target, weight, kind, metadata score).
fn links(b: &mut Brain, id: &str) -> Vec<(String, f64, EdgeKind, Option<f64>)> {
    b.read(|g, _| {
        let n = g.lookup(id).unwrap();
        g.outgoing(n)
            .map(|(t, e)| {
                let score = e.metadata.get("score").and_then(|v| v.as_f64());
                (g.name(t).to_string(), e.weight, e.kind.clone(), score)
            })
            .collect()
    })
    .unwrap()
}

#[test]
fn the_rollback_question_keeps_its_content_beside_the_correction_as_a_guardrail() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path(), Profile::Corrected);
    let (before, guards) = ask(&mut b, "c1");
    assert!(guards.is_empty());
    assert_eq!(before.len(), 6, "the question fires the notes: {before:?}");
    let r = b
        .correct(&CorrectRequest {
            content: CORRECTION,
            chat_id: Some("c1"),
            turns_ago: None,
            outcome: -1.0,
            window: Window::default(),
            source: "test",
        })
        .unwrap();
    let (after, guards) = ask(&mut b, "c1");
    // the old rule answered with the correction alone (the issue: "returns only the
    // correction"); now the correction is a guardrail and rollback notes remain
    assert_eq!(guards, vec![r.node_id.clone()], "content {after:?}");
    assert!(!after.is_empty(), "only the correction is left");
    let rollback = after
        .iter()
        .filter(|id| id.starts_with("deploy.md") || id.starts_with("rollback-notes.md"))
        .count();
    assert!(rollback >= 2, "relevant content: {after:?}");
    // the corrected profile's default is the guardrail (issue 31 item 4)
    assert_eq!(r.mode, CorrectionMode::Guardrail);
    assert!(r.inhibited_nodes.is_empty(), "{:?}", r.inhibited_nodes);
    // no correction edge inhibits: it guides, it does not veto
    for (t, w, k, _) in links(&mut b, &r.node_id) {
        assert!(k != EdgeKind::Inhibitory && w > 0.0, "{t}: {w} {k:?}");
    }
    // the wrong path is weakened by the turn's outcome learning, not vetoed and not
    // cut: no path edge was changed by the correction itself
    assert!(r.inhibited_edges.is_empty(), "{:?}", r.inhibited_edges);
    assert_eq!(r.feedback.credited.len(), 1);
    assert!(r.feedback.credited[0].outcome < 0.0 && r.feedback.edges_updated > 0);
}

#[test]
fn the_old_rule_erases_the_answer() {
    // the observation, kept as the Veto mode (the paper profile's rule): the
    // 6 chunks the question fired (the count too) shrink to at most one, since
    // the corrected path's edges veto the seeds they join and the correction vetoes
    // every node the earlier answer fired
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path(), Profile::Corrected);
    let (before, _) = ask(&mut b, "c1");
    assert_eq!(before.len(), 6, "{before:?}");
    correct(&mut b, CORRECTION, Some("c1"), CorrectionMode::Veto);
    let mut req = QueryRequest::new(QUESTION, 4);
    req.route = RouteMode::EdgeSim.config();
    let answer = b.query(&req).unwrap();
    let fired = answer.fired();
    let kept = before
        .iter()
        .filter(|id| fired.contains(&id.as_str()))
        .count();
    assert!(kept <= 1, "{before:?} then {fired:?}");
}

#[test]
fn a_correction_does_not_link_below_the_similarity_floor() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path(), Profile::Corrected);
    // hash-v1: the old rule had no floor (0.0) and linked an unrelated text to 3 nodes
    let unrelated = "Zebras graze quietly near volcanic lakes.";
    let old = correct(&mut b, unrelated, None, CorrectionMode::Veto);
    assert_eq!(old.len(), 3, "{old:?}");
    let dir2 = tempfile::tempdir().unwrap();
    let mut b = brain(dir2.path(), Profile::Corrected);
    assert!(correct(&mut b, unrelated, None, CorrectionMode::Guardrail).is_empty());
    // the rollback correction links, only at or above the floor, never to the
    // unrelated pages
    let linked = correct(&mut b, CORRECTION, None, CorrectionMode::Guardrail);
    assert!(!linked.is_empty());
    let id = crabpath_brain::service::turns::feedback_node_id("CORRECTION", CORRECTION);
    for (t, w, k, score) in links(&mut b, &id) {
        let score = score.unwrap();
        assert!(score >= GUARDRAIL_MIN_SIM, "{t}: {score}");
        assert!(
            (w - score).abs() < 1e-12 && k != EdgeKind::Inhibitory,
            "{t}"
        );
        assert!(
            !t.starts_with("matmul") && !t.starts_with("http-client"),
            "{t}"
        );
    }
}

#[test]
fn a_correction_changes_no_other_answer_and_is_found_by_its_words() {
    // Schema 5: a correction is set aside from the content's lexical index and from the
    // walk, so another question's content comes back the same, scores and all (before,
    // the correction's words, which quote the content it corrects, moved every BM25
    // score that shared them, and a correction the walk reached took a place of its
    // beam). It is still returned, beside the content, to a question half of whose
    // words it holds (and, as before, to one whose walk reaches it).
    let other = "what does the release tool do";
    let ask_other = |b: &mut Brain| {
        let mut req = QueryRequest::new(other, 4);
        req.limit = Some(8);
        req.neurogenesis = Some(false);
        let a = b.query(&req).unwrap();
        let texts: Vec<(String, String)> = a
            .guardrail_texts()
            .into_iter()
            .map(|(i, t)| (i.to_string(), t.to_string()))
            .collect();
        (
            a.hits.clone(),
            a.ranked().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            texts,
        )
    };
    for resident in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let boot =
            split_workspace(rollback_workspace(), &SplitOptions::new(Profile::Corrected)).unwrap();
        let db_dir = dir.path().join("brain");
        std::fs::create_dir_all(&db_dir).unwrap();
        let db = common::hash_store(&db_dir, &boot.graph);
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        let (hits, ranked, guards) = ask_other(&mut b);
        assert!(guards.is_empty());
        ask(&mut b, "c1");
        correct(&mut b, CORRECTION, Some("c1"), CorrectionMode::Guardrail);
        let (hits_after, ranked_after, guards_after) = ask_other(&mut b);
        assert_eq!(hits_after, hits, "resident {resident}");
        assert_eq!(ranked_after, ranked, "resident {resident}");
        // {release, tool}: the correction holds both of the question's words
        assert_eq!(
            guards_after.len(),
            1,
            "resident {resident}: {guards_after:?}"
        );
        assert_eq!(guards_after[0].1, CORRECTION);
    }
}
