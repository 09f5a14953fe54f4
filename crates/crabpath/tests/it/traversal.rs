//! Traversal semantics of reference `crabpath/traverse.py::traverse` (commit 134c676),
//! one behaviour per test.

use crabpath::traverse::{resolve_seeds, Router};
use crabpath::{traverse, Edge, Graph, Node, NodeId, Tier, TraversalConfig, Traverser};

fn graph(nodes: &[&str], edges: &[(&str, &str, f64)]) -> Graph {
    let mut g = Graph::new();
    for n in nodes {
        g.add_node(Node::new(*n, n.to_uppercase()));
    }
    for &(s, t, w) in edges {
        g.add_edge_by_id(s, t, Edge::new(w)).unwrap();
    }
    g
}

fn names(g: &Graph, ids: &[NodeId]) -> Vec<String> {
    ids.iter().map(|&i| g.name(i).to_string()).collect()
}

fn seeds(g: &Graph, s: &[(&str, f64)]) -> Vec<(NodeId, f64)> {
    resolve_seeds(g, s).unwrap()
}

/// With equal weights the first inserted edge wins the tie.
#[test]
fn ties_break_by_insertion_order() {
    let g = graph(&["q", "a", "b"], &[("q", "b", 0.5), ("q", "a", 0.5)]);
    let cfg = TraversalConfig {
        beam_width: 1,
        max_hops: 1,
        ..Default::default()
    };
    let r = traverse(&g, &seeds(&g, &[("q", 1.0)]), &cfg).unwrap();
    assert_eq!(names(&g, &r.fired), ["q", "b"]);
}

/// Habitual wins a score tie against reflex.
#[test]
fn habitual_beats_reflex_on_ties() {
    // q→r reflex 0.6 from a seed of 0.5 → 0.3; q2→h habitual 0.3 from seed 1.0 → 0.3
    let g = graph(&["q", "q2", "r", "h"], &[("q", "r", 0.6), ("q2", "h", 0.3)]);
    let cfg = TraversalConfig {
        beam_width: 2,
        max_hops: 1,
        ..Default::default()
    };
    let mut t = Traverser::new();
    let r = t
        .traverse(&g, &seeds(&g, &[("q2", 1.0), ("q", 0.5)]), &cfg)
        .unwrap();
    let steps: Vec<_> = r
        .steps
        .iter()
        .map(|s| (g.name(s.to).to_string(), s.tier))
        .collect();
    assert_eq!(steps[0].1, Tier::Habitual);
    assert_eq!(steps[1].1, Tier::Reflex);
}

/// An inhibitory edge from a fired node with score·w ≤ −0.01 vetoes its target;
/// a weak one only lowers the score (reference `crabpath/traverse.py::_incoming_inhibition`).
#[test]
fn inhibition_vetoes_or_lowers() {
    let g = graph(
        &["q", "bad", "good", "n"],
        &[("q", "bad", 0.9), ("q", "good", 0.8), ("n", "bad", -0.5)],
    );
    let cfg = TraversalConfig {
        max_hops: 1,
        ..Default::default()
    };
    let r = traverse(&g, &seeds(&g, &[("q", 1.0), ("n", 0.5)]), &cfg).unwrap();
    assert!(!names(&g, &r.fired).contains(&"bad".to_string()));
    assert!(names(&g, &r.fired).contains(&"good".to_string()));
    // weak source: 0.015 * -0.5 = -0.0075 > -0.01 → no veto
    let r = traverse(&g, &seeds(&g, &[("q", 1.0), ("n", 0.015)]), &cfg).unwrap();
    assert!(names(&g, &r.fired).contains(&"bad".to_string()));
    let bad_score = r
        .fired_scores
        .iter()
        .find(|(n, _)| g.name(*n) == "bad")
        .unwrap()
        .1;
    assert_eq!(bad_score, 0.9 + 0.015 * -0.5);
}

/// Edge damping λ^k per prior use limits a reflex cycle; with λ = 1
/// the cycle is followed until max_hops.
#[test]
fn damping_limits_cycles() {
    let g = graph(&["a", "b"], &[("a", "b", 1.0), ("b", "a", 1.0)]);
    let undamped = TraversalConfig {
        max_hops: 10,
        edge_damping: 1.0,
        ..Default::default()
    };
    let r = traverse(&g, &seeds(&g, &[("a", 1.0)]), &undamped).unwrap();
    assert_eq!(r.steps.len(), 10);
    let damped = TraversalConfig {
        max_hops: 10,
        edge_damping: 0.3,
        ..Default::default()
    };
    let r = traverse(&g, &seeds(&g, &[("a", 1.0)]), &damped).unwrap();
    assert!(r.steps.len() < 10);
    // the second use of a→b is damped by 0.3
    let uses: Vec<f64> = r
        .steps
        .iter()
        .filter(|s| g.name(s.from) == "a")
        .map(|s| s.effective)
        .collect();
    assert_eq!(uses[..2], [1.0, 0.3]);
}

/// Score decay gives an implicit depth limit (0.27⁴ < 0.01).
#[test]
fn score_decay_depth_limit() {
    let g = graph(
        &["a", "b", "c", "d", "e"],
        &[
            ("a", "b", 0.27),
            ("b", "c", 0.27),
            ("c", "d", 0.27),
            ("d", "e", 0.27),
        ],
    );
    let r = traverse(&g, &seeds(&g, &[("a", 1.0)]), &TraversalConfig::default()).unwrap();
    assert_eq!(names(&g, &r.fired), ["a", "b", "c", "d"]);
}

/// Guards, seed threshold, unknown seeds.
#[test]
fn guards_and_seeding() {
    let g = graph(&["a", "b"], &[("a", "b", 0.9)]);
    let zero = TraversalConfig {
        max_hops: 0,
        ..Default::default()
    };
    assert!(traverse(&g, &seeds(&g, &[("a", 1.0)]), &zero)
        .unwrap()
        .fired
        .is_empty());
    let r = traverse(&g, &seeds(&g, &[("a", 0.005)]), &TraversalConfig::default()).unwrap();
    assert!(r.fired.is_empty(), "seeds below fire_threshold never fire");
    assert!(resolve_seeds(&g, &[("nope", 1.0)]).is_err());
    assert!(traverse(
        &g,
        &[(g.lookup("a").unwrap(), f64::NAN)],
        &TraversalConfig::default()
    )
    .is_err());
    let empty = Graph::new();
    assert!(traverse(&empty, &[], &TraversalConfig::default())
        .unwrap()
        .fired
        .is_empty());
}

/// Node and character budgets stop the traversal.
#[test]
fn budgets() {
    let g = graph(
        &["a", "b", "c", "d"],
        &[("a", "b", 0.9), ("b", "c", 0.9), ("c", "d", 0.9)],
    );
    let cfg = TraversalConfig {
        max_fired_nodes: Some(2),
        ..Default::default()
    };
    let r = traverse(&g, &seeds(&g, &[("a", 1.0)]), &cfg).unwrap();
    assert_eq!(r.fired.len(), 2);
    let cfg = TraversalConfig {
        max_context_chars: Some(2),
        ..Default::default()
    };
    let r = traverse(&g, &seeds(&g, &[("a", 1.0)]), &cfg).unwrap();
    assert_eq!(names(&g, &r.fired), ["a", "b"]);
    assert_eq!(r.context(&g, Some(5)), "A\n\nB");
    assert_eq!(r.context(&g, Some(3)), "A");
    assert_eq!(r.context_chars(&g), 4);
}

/// The router sees habitual candidates per source (lexicographic source
/// order) and can reject them; reflex edges bypass it.
#[test]
fn router_filters_habitual_only() {
    let g = graph(
        &["q", "h1", "h2", "r"],
        &[("q", "h1", 0.4), ("q", "h2", 0.3), ("q", "r", 0.7)],
    );
    let h2 = g.lookup("h2").unwrap();
    let mut calls = Vec::new();
    let mut router = |src: NodeId, cands: &[(NodeId, &Edge)], query: &str| {
        calls.push((src, cands.len(), query.to_string()));
        vec![h2]
    };
    let r = Traverser::new()
        .traverse_routed(
            &g,
            &seeds(&g, &[("q", 1.0)]),
            &TraversalConfig {
                max_hops: 1,
                ..Default::default()
            },
            &mut router as &mut dyn Router,
            "why",
        )
        .unwrap();
    assert_eq!(names(&g, &r.fired), ["q", "r", "h2"]);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, 2);
    assert_eq!(calls[0].2, "why");
}

/// The beam is cut before de-duplication (paper); the corrected switch
/// de-duplicates first.
#[test]
fn beam_cut_before_dedup() {
    let g = graph(
        &["s1", "s2", "t", "u"],
        &[("s1", "t", 0.9), ("s2", "t", 0.9), ("s1", "u", 0.5)],
    );
    let cfg = TraversalConfig {
        beam_width: 2,
        max_hops: 1,
        ..Default::default()
    };
    let s = seeds(&g, &[("s1", 1.0), ("s2", 1.0)]);
    let r = traverse(&g, &s, &cfg).unwrap();
    assert_eq!(names(&g, &r.fired), ["s1", "s2", "t"]);
    let fixed = TraversalConfig {
        dedup_before_beam: true,
        ..cfg
    };
    let r = traverse(&g, &s, &fixed).unwrap();
    assert_eq!(names(&g, &r.fired), ["s1", "s2", "t", "u"]);
}

/// The engine's work counters ([`crabpath::TraversalStats`], used by the scaling
/// study): expansions per hop and the inhibition-index scans of every node
/// that became active, counted by hand on a small graph.
#[test]
fn stats_count_expansions_and_index_scans() {
    let g = graph(
        &["q", "a", "b", "x", "c", "d"],
        &[
            ("q", "a", 0.5),
            ("q", "b", 0.5),
            ("q", "x", -0.5),
            ("a", "c", 0.5),
            ("a", "d", 0.5),
            ("b", "c", 0.5),
        ],
    );
    let cfg = TraversalConfig {
        beam_width: 2,
        max_hops: 2,
        ..TraversalConfig::default()
    };
    let mut t = Traverser::new();
    assert_eq!(t.stats(), crabpath::TraversalStats::default());
    for _ in 0..2 {
        let r = t.traverse(&g, &seeds(&g, &[("q", 1.0)]), &cfg).unwrap();
        assert_eq!(names(&g, &r.fired), ["q", "a", "b", "c", "d"]);
        let s = t.stats();
        // hop 0 expands q (3 edges); hop 1 expands a and b (2 + 1 edges)
        assert_eq!((s.nodes_expanded, s.edges_examined), (3, 6));
        // q is scanned as a seed and again once fired (the seed index is rebuilt
        // from the fired set), then a and b; c and d fire in the last hop and are
        // never scanned
        assert_eq!((s.nodes_indexed, s.edges_indexed), (4, 9));
        assert_eq!(s.edges_touched(), 15);
    }
}

/// A node set aside ([`Traverser::set_aside`]) is recorded where a hop reaches it but
/// takes no place of the beam, counts in no budget and is never expanded: the walk
/// among the other nodes is the walk of a graph without it.
#[test]
fn a_node_set_aside_is_recorded_but_walked_around() {
    // q→g is the best edge: with a beam of 1 it takes the hop's only place
    let edges = [
        ("q", "g", 0.9),
        ("q", "a", 0.8),
        ("a", "b", 0.8),
        ("g", "c", 0.9),
    ];
    let g = graph(&["q", "g", "a", "b", "c"], &edges);
    let cfg = TraversalConfig {
        beam_width: 1,
        max_hops: 3,
        max_fired_nodes: Some(3),
        ..Default::default()
    };
    let s = seeds(&g, &[("q", 1.0)]);
    let mut t = Traverser::new();
    let walked = t.traverse(&g, &s, &cfg).unwrap();
    assert_eq!(names(&g, &walked.fired), ["q", "g", "c"]);
    fn is_g(graph: &Graph, n: NodeId) -> bool {
        graph.name(n) == "g"
    }
    t.set_aside(Some(is_g));
    let aside = t.traverse(&g, &s, &cfg).unwrap();
    // g is recorded (with its score and the step to it), never expanded (no c), and
    // does not count against max_fired_nodes 3
    assert_eq!(names(&g, &aside.fired), ["q", "g", "a", "b"]);
    let score_g = aside.fired_scores.iter().find(|(n, _)| g.name(*n) == "g");
    assert_eq!(score_g.map(|x| x.1), Some(0.9));
    assert!(aside.steps.iter().any(|st| g.name(st.to) == "g"));
    // without g in the graph the walk is the same
    let without = graph(&["q", "a", "b", "c"], &[("q", "a", 0.8), ("a", "b", 0.8)]);
    let plain = traverse(&without, &seeds(&without, &[("q", 1.0)]), &cfg).unwrap();
    assert_eq!(names(&without, &plain.fired), ["q", "a", "b"]);
    // set back to none: the first walk again
    t.set_aside(None);
    assert_eq!(t.traverse(&g, &s, &cfg).unwrap(), walked);
}
