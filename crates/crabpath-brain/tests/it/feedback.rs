//! Feedback that arrives later, through the `Brain` service: the conversation log, the
//! attribution window (10 turns or 900 s), the weights exp(−Δturns / 5) (seed 003
//! §3.3–3.4), credit consumed once (also across processes: a database keeps the log),
//! corrections that inhibit the attributed path, and the ledger that applies the same
//! correction once. The pure rules are unit-tested in `crabpath_brain::service::turns`.

use crate::common;

use crabpath::profile::Profile;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::{export_state, CorrectRequest, CorrectionMode, FeedbackRequest};
use crabpath_brain::{Brain, QueryRequest};

const QUESTION: &str = "deploy the service";

/// A served query: answered, then logged as a turn of `chat`. Returns the fired ids
/// and the path.
fn ask(b: &mut Brain, chat: &str) -> (Vec<String>, Vec<(String, String)>) {
    let mut req = QueryRequest::new(QUESTION, 4);
    req.route = RouteMode::EdgeSim.config();
    let answer = b.query(&req).unwrap();
    let rec = answer.turn_record(QUESTION);
    drop(answer);
    let out = (rec.fired.clone(), rec.path.clone());
    b.record_turn(chat, rec).unwrap();
    out
}

fn feedback(
    b: &mut Brain,
    chat: &str,
    outcome: f64,
    window: Window,
) -> crabpath_brain::service::FeedbackReport {
    b.feedback(&FeedbackRequest {
        outcome,
        chat_id: Some(chat),
        fired_ids: None,
        turns_ago: None,
        window,
        used_ids: None,
    })
    .unwrap()
}

fn weight(b: &mut Brain, from: &str, to: &str) -> Option<(f64, String)> {
    b.read(|g, _| {
        let (s, t) = (g.lookup(from)?, g.lookup(to)?);
        let e = g.edge(s, t)?;
        Some((e.weight, e.kind.as_str().to_string()))
    })
    .unwrap()
}

#[test]
fn twelve_turns_credit_the_last_ten_with_decaying_weights_once() {
    for resident in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let db = common::fixture_brain(dir.path()).1;
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        for _ in 0..12 {
            ask(&mut b, "c");
        }
        ask(&mut b, "other");
        let r = feedback(&mut b, "c", -1.0, Window::default());
        let turns: Vec<i64> = r.credited.iter().map(|c| c.turn).collect();
        assert_eq!(
            turns,
            (3..=12).rev().collect::<Vec<_>>(),
            "resident {resident}"
        );
        for c in &r.credited {
            // seed 003 §3.3: outcome · exp(−Δturns / 5), Δ counted from the newest turn
            let w = (-((12 - c.turn) as f64) / 5.0).exp();
            assert!((c.weight - w).abs() < 1e-12);
            assert!((c.outcome + w).abs() < 1e-12);
            assert!(!c.fired.is_empty());
        }
        assert!(r.edges_updated > 0);
        // the credit is consumed: a second feedback reaches nothing
        let again = feedback(&mut b, "c", -1.0, Window::default());
        assert!(again.credited.is_empty());
        assert_eq!(again.already_credited.len(), 10);
        // another conversation is untouched
        let other = feedback(&mut b, "other", 1.0, Window::default());
        assert_eq!(other.credited.len(), 1);
        drop(b);
        // the log lives in the database: another process sees the credit consumed
        let mut b = common::open_hash(&db, Profile::Corrected, false);
        assert!(feedback(&mut b, "c", -1.0, Window::default())
            .credited
            .is_empty());
        assert_eq!(b.recent_turns("c", 100).unwrap().len(), 12);
    }
}

#[test]
fn turns_older_than_the_window_are_not_reached() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = common::open_hash(&db, Profile::Corrected, true);
    ask(&mut b, "c");
    std::thread::sleep(std::time::Duration::from_millis(20));
    // a window of 10 ms: the turn is 20 ms old
    let w = Window {
        seconds: 0.01,
        ..Window::default()
    };
    let r = feedback(&mut b, "c", 1.0, w);
    assert!(r.credited.is_empty() && r.already_credited.is_empty());
    // the default window (900 s) reaches it
    assert_eq!(
        feedback(&mut b, "c", 1.0, Window::default()).credited.len(),
        1
    );
}

#[test]
fn a_correction_inhibits_the_path_and_applies_once() {
    // a database (resident and not) and a state file (its log in memory); the paper
    // profile's rule, which the corrected profile keeps as `CorrectionMode::Veto` (its
    // default is the guardrail of issue 31 item 4, tests/it/guardrail.rs)
    let runs = [
        (("db", false), Profile::Paper),
        (("db", true), Profile::Paper),
        (("state", true), Profile::Paper),
        (("db", true), Profile::Corrected),
    ];
    for ((kind, resident), profile) in runs {
        let dir = tempfile::tempdir().unwrap();
        let db = common::fixture_brain(dir.path()).1;
        let path = if kind == "db" {
            db
        } else {
            let state = dir.path().join("state.json");
            let mut b = common::open_hash(&db, Profile::Corrected, false);
            export_state(&mut b, &state).unwrap();
            state
        };
        let mut b = common::open_hash(&path, profile, resident);
        let (fired, steps) = ask(&mut b, "c");
        assert!(!steps.is_empty(), "{kind}: the question follows edges");
        let req = CorrectRequest {
            content: "Deploy with the release pipeline.",
            chat_id: Some("c"),
            turns_ago: Some(0),
            outcome: -1.0,
            window: Window::default(),
            source: "test",
        };
        let r = match profile {
            Profile::Paper => b.correct(&req).unwrap(),
            _ => b.correct_with(&req, CorrectionMode::Veto).unwrap(),
        };
        assert!(r.injected && !r.deduped, "{kind}");
        assert_eq!(r.mode, CorrectionMode::Veto);
        // each distinct edge of the path once (a path may take an edge twice)
        let mut distinct = steps.clone();
        distinct.sort();
        distinct.dedup();
        let mut inhibited = r.inhibited_edges.clone();
        inhibited.sort();
        assert_eq!(inhibited, distinct, "{kind}");
        for (from, to) in &steps {
            let (w, k) = weight(&mut b, from, to).unwrap();
            assert_eq!(k, "inhibitory", "{kind} {from}->{to}");
            assert!(w <= -0.5 + 1e-12, "{kind} {from}->{to}: {w}");
        }
        for id in &fired {
            let (w, k) = weight(&mut b, &r.node_id, id).unwrap();
            assert!(k == "inhibitory" && w < 0.0, "{kind}: correction -> {id}");
        }
        // the nodes only the path reached no longer fire
        let seeds: Vec<String> = steps.iter().map(|s| s.0.clone()).collect();
        let (again, _) = ask(&mut b, "c");
        for (_, to) in &steps {
            if !seeds.contains(to) {
                assert!(!again.contains(to), "{kind}: {to} fired again: {again:?}");
            }
        }
        // the same text (whitespace aside) again: recognised, nothing applied
        let nodes = b.read(|g, _| g.node_count()).unwrap();
        let dup = b
            .correct(&CorrectRequest {
                content: "  Deploy with the release pipeline.\n",
                ..req.clone()
            })
            .unwrap();
        assert!(dup.deduped && dup.node_id == r.node_id, "{kind}");
        assert!(dup.feedback.credited.is_empty());
        assert_eq!(b.read(|g, _| g.node_count()).unwrap(), nodes);
    }
}

#[test]
fn teachings_are_stored_once_and_feedback_needs_a_target() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = common::open_hash(&db, Profile::Corrected, true);
    let t = b
        .teach("The staging cluster is eu-west.", "TEACHING", None, "test")
        .unwrap();
    assert!(t.injected && t.node_id.starts_with("teaching::"));
    let t2 = b
        .teach("The staging cluster is eu-west.", "TEACHING", None, "test")
        .unwrap();
    assert!(t2.deduped);
    assert!(b.teach("x", "OTHER", None, "test").is_err());
    assert!(b.teach("  ", "TEACHING", None, "test").is_err());
    let e = b
        .feedback(&FeedbackRequest {
            outcome: 1.0,
            chat_id: None,
            fired_ids: None,
            turns_ago: None,
            window: Window::default(),
            used_ids: None,
        })
        .unwrap_err();
    assert!(e.to_string().contains("chat_id or fired_ids"), "{e}");
    let e = b
        .feedback(&FeedbackRequest {
            outcome: f64::NAN,
            chat_id: Some("c"),
            fired_ids: None,
            turns_ago: None,
            window: Window::default(),
            used_ids: None,
        })
        .unwrap_err();
    assert!(e.to_string().contains("finite"), "{e}");
    // a conversation without turns: nothing to credit, no error
    assert!(feedback(&mut b, "nobody", 1.0, Window::default())
        .credited
        .is_empty());
}

/// A rollback takes the conversation log and the credit ledger back with the weights:
/// the turn credited before the snapshot stays credited (its learning came back with
/// the snapshot), the turn credited after it is logged still but may be credited again
/// (what its credit taught was undone). Before, both tables were left as they were:
/// the later turn answered "already credited" and its outcome could never be taught
/// again, and `init` over a brain then `rollback` to `before-init-*` lost every logged
/// turn.
#[test]
fn a_rollback_takes_the_turns_credit_back_with_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    ask(&mut b, "c");
    let once = Window {
        turns: 1,
        ..Window::default()
    };
    assert_eq!(feedback(&mut b, "c", 1.0, once).credited.len(), 1);
    b.snapshot("s").unwrap();
    ask(&mut b, "c");
    assert_eq!(feedback(&mut b, "c", 1.0, once).credited.len(), 1);
    b.rollback(Some("s")).unwrap();
    assert_eq!(
        b.recent_turns("c", 100).unwrap().len(),
        2,
        "no turn is lost"
    );
    let again = feedback(&mut b, "c", 1.0, once);
    assert_eq!(again.credited.len(), 1, "{again:?}");
    assert_eq!(again.credited[0].turn, 2);
    assert!(again.edges_updated > 0);
    // the first turn's credit came back with the snapshot: consumed
    let r = b
        .feedback(&FeedbackRequest {
            outcome: 1.0,
            chat_id: Some("c"),
            fired_ids: None,
            turns_ago: Some(1),
            window: Window::default(),
            used_ids: None,
        })
        .unwrap();
    assert!(r.credited.is_empty(), "{r:?}");
}

/// A teaching whose node is gone (pruned as an orphan by the maintenance of an earlier
/// release: the corrected prune now keeps it, fix M5) is taught again by the next
/// `teach` of the same text. Before, the ledger still held the text: the second
/// `teach` answered `deduped` with the id of the node that was gone, and the
/// acknowledged teaching was nowhere in the brain.
#[test]
fn a_teaching_maintenance_removed_is_taught_again() {
    use crabpath_brain::service::Scope;
    const FACT: &str = "The staging cluster is eu-west.";
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = common::open_hash(&db, Profile::Corrected, true);
    let t = b.teach(FACT, "TEACHING", None, "test").unwrap();
    assert!(t.injected, "{t:?}");
    // the node removed as an earlier release's prune removed it: node and vector, the
    // ledger row left
    b.write(Scope::All, |w| {
        if let Some(n) = w.graph.lookup(&t.node_id) {
            w.graph.remove_node(n);
        }
        w.vectors.remove(&t.node_id);
        Ok(())
    })
    .unwrap();
    assert!(!b.has_node(&t.node_id).unwrap(), "the case of this test");
    let again = b.teach(FACT, "TEACHING", None, "test").unwrap();
    assert!(!again.deduped && again.injected, "{again:?}");
    assert!(b.has_node(&again.node_id).unwrap());
    let text = b.read_node(&again.node_id, |n| n.content.clone()).unwrap();
    assert_eq!(text.as_deref(), Some(FACT));
    // and the text is stored once again: a third teach finds it
    assert!(b.teach(FACT, "TEACHING", None, "test").unwrap().deduped);
}
