//! Outcome-only feedback judges what the answer showed (issue 31 item 5, "wrong answers
//! move down"): a −1 without `used_ids` inhibits, from the question's node, the nodes of
//! the answer's first five documents (a folder's pages; a conversation's turns are each
//! their own), the places the outcome judged, and leaves what the answer fired beyond
//! them as it was. So a wrong page moves down with all of its chunks, and a node the
//! answer ranked sixth or later, which may be the right one, comes up. The judged pages
//! move behind the next five pages, not out of the answer: the −1 judged them as a set,
//! and one of them may be a part of what the question needed.

use crate::common;

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::graph::{Graph, Node};
use crabpath::neurogenesis::auto_id;
use crabpath::profile::Profile;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::{FeedbackRequest, Seeding};
use crabpath_brain::{Brain, QueryRequest};

/// Thirteen chunks of twelve pages, of disjoint words; `a.md` has two chunks.
const CHUNKS: [(&str, &str, &str); 13] = [
    ("a.md::0", "a.md", "apricot avocado almond"),
    ("a.md::1", "a.md", "anchor antelope anvil"),
    ("b.md::0", "b.md", "banana basil barley"),
    ("c.md::0", "c.md", "cherry cumin cabbage"),
    ("d.md::0", "d.md", "dill daikon dumpling"),
    ("e.md::0", "e.md", "elderberry endive eggplant"),
    ("f.md::0", "f.md", "fig fennel farro"),
    ("g.md::0", "g.md", "grape ginger garlic"),
    ("h.md::0", "h.md", "hazelnut hops hickory"),
    ("i.md::0", "i.md", "iris ivy indigo"),
    ("j.md::0", "j.md", "juniper jicama jam"),
    ("k.md::0", "k.md", "kale kiwi kumquat"),
    ("l.md::0", "l.md", "lemon lentil lettuce"),
];

/// The question's weight on each chunk's (unit) vector: the first eight 0.1 apart (the
/// words' hash-v1 buckets collide a little, and steps of 0.05 let two swap), so the
/// dense seeding ranks them a0, a1, b, c, d, e, f, g; h to l are not asked for.
const WEIGHTS: [f64; 13] = [
    1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0,
];

const QUESTION: &str = "which page lists the pantry items we need";

fn brain(dir: &std::path::Path) -> Brain {
    let mut g = Graph::new();
    for (id, file, text) in CHUNKS {
        g.add_node(Node::new(id, text).with_meta("file", file));
    }
    let db = common::hash_store(dir, &g);
    common::open_hash(&db, Profile::Corrected, false)
}

/// `Σ wᵢ · v̂ᵢ` over the chunks' hash-v1 vectors ([`WEIGHTS`]).
fn question_vector() -> Vec<f64> {
    vector_of(&WEIGHTS)
}

/// `Σ wᵢ · v̂ᵢ` over the chunks' hash-v1 vectors, `weights` in [`CHUNKS`]' order.
fn vector_of(weights: &[f64; 13]) -> Vec<f64> {
    let e = HashEmbedder::new();
    let mut q: Vec<f64> = Vec::new();
    for ((_, _, text), &w) in CHUNKS.iter().zip(weights) {
        let v = e.embed(text).unwrap();
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        q.resize(v.len(), 0.0);
        for (qi, vi) in q.iter_mut().zip(&v) {
            *qi += w * vi / n;
        }
    }
    q
}

/// Asks [`QUESTION`] (8 dense seeds, limit 13: every chunk) as conversation `c1`'s turn; returns the
/// answer's ids and what it fired.
fn ask(b: &mut Brain) -> (Vec<String>, Vec<String>) {
    let mut req = QueryRequest::new(QUESTION, 8);
    req.vector = Some(question_vector());
    req.seeding = Some(Seeding::Dense);
    req.limit = Some(13);
    let a = b.query(&req).unwrap();
    let ranked: Vec<String> = a.ranked().iter().map(|s| s.to_string()).collect();
    let rec = a.turn_record(QUESTION);
    drop(a);
    let fired = rec.fired.clone();
    b.record_turn("c1", rec).unwrap();
    (ranked, fired)
}

/// `outcome` for `c1`'s newest turn, with the agent's `used` ids if any.
fn feedback(b: &mut Brain, outcome: f64, used: Option<&[&str]>) {
    b.feedback(&FeedbackRequest {
        outcome,
        chat_id: Some("c1"),
        fired_ids: None,
        turns_ago: Some(0),
        window: Window::default(),
        used_ids: used.map(|u| u.iter().map(|s| s.to_string()).collect()),
    })
    .unwrap();
}

/// The weight of the question node's edge to `id` (`None`: no edge).
fn question_edge(b: &mut Brain, id: &str) -> Option<f64> {
    let q = auto_id(QUESTION);
    b.read(|g, _| {
        let s = g.lookup(&q)?;
        let t = g.lookup(id)?;
        g.weight(s, t)
    })
    .unwrap()
}

#[test]
fn a_wrong_answer_moves_down_by_its_first_five_pages_and_the_sixth_comes_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path());
    let (first, fired) = ask(&mut b);
    // the precondition: eight seeds in the weights' order, all fired (beam 8, no edges)
    let expected: Vec<&str> = CHUNKS[..8].iter().map(|c| c.0).collect();
    assert_eq!(&first[..8], &expected[..], "{first:?}");
    assert_eq!(fired, expected);
    // none of the first five pages (a, b, c, d, e: six chunks) is right
    feedback(&mut b, -1.0, None);
    // the judged chunks: the question's node had a provisional edge of 0.15 to each seed
    // (its birth, SEED_EDGE_WEIGHT); −1 · CREDIT_STEP 0.25 takes it to −0.10
    for id in [
        "a.md::0", "a.md::1", "b.md::0", "c.md::0", "d.md::0", "e.md::0",
    ] {
        let w = question_edge(&mut b, id).unwrap();
        assert!((w + 0.10).abs() < 1e-9, "{id}: {w}");
    }
    // the sixth and seventh pages were not judged: their edges stay 0.15
    for id in ["f.md::0", "g.md::0"] {
        let w = question_edge(&mut b, id).unwrap();
        assert!((w - 0.15).abs() < 1e-9, "{id}: {w}");
    }
    let (again, _) = ask(&mut b);
    // f and g now lead, then three of h to l: five pages the answer had not shown; the
    // judged pages, a.md's second chunk (sixth place, beyond the first five nodes)
    // included, follow right behind those five in their earlier order (they were judged
    // as a set, and one may be part of what the question needs), then the other two
    let judged = [
        "a.md::0", "a.md::1", "b.md::0", "c.md::0", "d.md::0", "e.md::0",
    ];
    assert_eq!(again.len(), 13, "{again:?}");
    assert_eq!(&again[..2], ["f.md::0", "g.md::0"], "{again:?}");
    let fresh = |ids: &[String]| ids.iter().all(|id| !judged.contains(&id.as_str()));
    assert!(fresh(&again[..5]), "{again:?}");
    assert_eq!(&again[5..11], &judged[..], "{again:?}");
    assert!(fresh(&again[11..]), "{again:?}");
}

/// The content edges of the brain (neither end a question node): `(source, target)`.
fn content_edges(b: &mut Brain) -> Vec<(String, String)> {
    b.read(|g, _| {
        g.edges()
            .map(|(s, t, _)| (g.name(s).to_string(), g.name(t).to_string()))
            .filter(|(s, t)| !s.starts_with("auto:") && !t.starts_with("auto:"))
            .collect()
    })
    .unwrap()
}

#[test]
fn a_confirmed_answer_learns_only_between_the_nodes_the_agent_used() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path());
    let (_, fired) = ask(&mut b);
    // the precondition: no content edge, eight nodes fired
    assert!(content_edges(&mut b).is_empty());
    assert_eq!(fired.len(), 8, "{fired:?}");
    // the agent used b and d (c fired between them) and i, which the turn did not fire
    feedback(&mut b, 1.0, Some(&["b.md::0", "d.md::0", "i.md::0"]));
    // the learning rule reads the path b → d: a +1 along all eight fired linked 20 pairs
    // of them, each to the next three (a.md::0 → a.md::1, a.md::0 → b.md::0, …), seeds
    // the agent did not use, which another question seeding one of them would follow
    let edges = content_edges(&mut b);
    assert_eq!(edges, [("b.md::0".to_string(), "d.md::0".to_string())]);
    // i, used but not fired, is the question node's alone
    let w = question_edge(&mut b, "i.md::0").unwrap();
    assert!(w > 0.15, "{w}");
}

#[test]
fn a_paraphrase_is_not_given_the_judged_nodes_it_does_not_reach() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = brain(dir.path());
    ask(&mut b);
    // a −1: the question's node inhibits the first five pages' six chunks
    feedback(&mut b, -1.0, None);
    assert!(question_edge(&mut b, "a.md::0").unwrap() < 0.0);
    // a paraphrase (five of its six words are the question's, so the node speaks for
    // it) whose own search ranks h to l, f and g first: its six places hold none of the
    // judged chunks (0 on its vector), which its seeding and traversal never reach
    let mut req = QueryRequest::new("which page lists the pantry items we need today", 5);
    req.vector = Some(vector_of(&[
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.4, 1.0, 0.9, 0.8, 0.7, 0.6,
    ]));
    req.seeding = Some(Seeding::Dense);
    req.limit = Some(6);
    let a = b.query(&req).unwrap();
    let ranked: Vec<String> = a.ranked().iter().map(|s| s.to_string()).collect();
    assert_eq!(ranked.len(), 6, "{ranked:?}");
    // before, the inhibited nodes were put behind its first five pages whether it had
    // reached them or not: a.md::0 took the sixth place
    let judged = [
        "a.md::0", "a.md::1", "b.md::0", "c.md::0", "d.md::0", "e.md::0",
    ];
    assert!(
        ranked.iter().all(|id| !judged.contains(&id.as_str())),
        "{ranked:?}"
    );
}
