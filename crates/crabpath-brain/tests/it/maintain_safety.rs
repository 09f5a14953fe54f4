//! The connect task of `maintain` (issue 33, item 11) finds the learning nodes'
//! neighbours through the store's search instead of scoring every pair: it must add the
//! edges that scoring every pair adds (same neighbours, weights and reasons), ties
//! broken in node order, on a brain database (search scores in `f32`) and on an
//! in-memory state alike.

use crate::common;

use crabpath::graph::{Graph, Node};
use crabpath::index::cosine;
use crabpath::maintain::{connect_learning_nodes, ConnectOptions, LEARNING_PREFIX};
use crabpath::profile::Profile;
use crabpath::state::State;
use crabpath_brain::service::{full_state, Scope};

/// Words of the generated chunks.
const WORDS: [&str; 24] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray",
];

/// Text shared by [`TIES`] workspace nodes and the first learning node: a tie at
/// similarity 1 wider than the first search (top_k 3 + 8 = 11 hits), so the search is
/// widened and the first 3 of the tie in node order must be kept.
const TIED: &str = "zulu yankee tied text";
const TIES: usize = 14;

/// 400 chunks of 40 files (10 each) drawn from [`WORDS`] by a fixed LCG, [`TIES`] of
/// them replaced by [`TIED`], and 5 learning nodes: [`TIED`], and the text of four
/// chunks with a word changed (similar to their source, above `min_sim` 0.3).
fn graph() -> Graph {
    let mut g = Graph::new();
    let mut x: u64 = 33;
    let mut next = |n: usize| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) as usize % n
    };
    let mut texts = Vec::new();
    for f in 0..40 {
        for c in 0..10 {
            let i = f * 10 + c;
            let text = if i % 29 == 3 && i / 29 < TIES {
                TIED.to_string()
            } else {
                (0..8)
                    .map(|_| WORDS[next(WORDS.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            g.add_node(
                Node::new(format!("f{f}.md::{c}"), text.clone())
                    .with_meta("file", format!("f{f}.md")),
            );
            texts.push(text);
        }
    }
    g.add_node(Node::new(format!("{LEARNING_PREFIX}tied"), TIED));
    for (k, &i) in [7usize, 123, 250, 391].iter().enumerate() {
        let text = texts[i].replacen(' ', " extra ", 1);
        g.add_node(Node::new(format!("{LEARNING_PREFIX}{k}"), text));
    }
    g
}

/// What scoring every pair gives: for each learning node in node order, the first
/// `top_k` others by cosine descending (stable: node order on ties) with similarity
/// at least `min_sim`, as (learning id, other id, similarity).
fn every_pair(st: &State, o: &ConnectOptions) -> Vec<(String, String, f64)> {
    let g = &st.graph;
    let mut out = Vec::new();
    for (_, l) in g.nodes().filter(|(_, n)| n.id.starts_with(LEARNING_PREFIX)) {
        let v = st.index.get(&l.id).unwrap();
        let mut sims: Vec<(String, f64)> = g
            .nodes()
            .filter(|(_, n)| !n.id.starts_with(LEARNING_PREFIX))
            .map(|(_, n)| (n.id.clone(), cosine(v, st.index.get(&n.id).unwrap())))
            .collect();
        sims.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
        for (id, sim) in sims.into_iter().take(o.top_k) {
            if sim >= o.min_sim {
                out.push((l.id.clone(), id, sim));
            }
        }
    }
    out
}

/// The edges connect made: (learning id, other id, similarity of the reason), both
/// directions present with the weight `sim` clamped to [0.35, 0.7].
fn connected(g: &Graph) -> Vec<(String, String, f64)> {
    let mut out = Vec::new();
    for (l, n) in g.nodes().filter(|(_, n)| n.id.starts_with(LEARNING_PREFIX)) {
        let Some(bucket) = g.bucket(l) else {
            continue;
        };
        for (t, e) in bucket.iter() {
            let reason = e.metadata.to_map()["reason"].as_str().unwrap().to_string();
            let sim: f64 = reason
                .strip_prefix("learning node similarity ")
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(e.weight, sim.clamp(0.35, 0.7));
            assert_eq!(g.weight(*t, l), Some(e.weight));
            out.push((n.id.clone(), g.name(*t).to_string(), sim));
        }
    }
    out
}

#[test]
fn connect_adds_what_scoring_every_pair_adds() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::hash_store(dir.path(), &graph());
    let mut brain = common::open_hash(&db, Profile::Corrected, false);
    let before = full_state(&mut brain).unwrap();
    let o = ConnectOptions::for_profile(Profile::Corrected);
    let expected = every_pair(&before, &o);
    // the tie: the first 3 of the 14 tied chunks in node order; and each of the four
    // others finds its source chunk
    let tied: Vec<&str> = expected
        .iter()
        .filter(|(l, _, _)| l.ends_with("tied"))
        .map(|(_, t, _)| t.as_str())
        .collect();
    assert_eq!(tied, ["f0.md::3", "f3.md::2", "f6.md::1"]);
    for (k, source) in ["f0.md::7", "f12.md::3", "f25.md::0", "f39.md::1"]
        .iter()
        .enumerate()
    {
        let l = format!("{LEARNING_PREFIX}{k}");
        assert!(
            expected.iter().any(|(a, b, _)| *a == l && b == source),
            "{l}: {expected:?}"
        );
    }
    // the brain database: its search scores in f32
    let added = brain
        .write(Scope::All, |w| {
            Ok(connect_learning_nodes(w.graph, w.vectors, &o, None)?)
        })
        .unwrap();
    assert_eq!(added, 2 * expected.len());
    let after = full_state(&mut brain).unwrap();
    assert_eq!(connected(&after.graph), expected);
    // the in-memory state: exact search scores
    let mut st = before.clone();
    let added = connect_learning_nodes(&mut st.graph, &st.index, &o, None).unwrap();
    assert_eq!(added, 2 * expected.len());
    assert_eq!(connected(&st.graph), expected);
}
