//! Maintenance (reference `crabpath/maintain.py`, `merge.py`, `connect.py`) and injection
//! (reference `crabpath/inject.py`), commit 134c676.

use crabpath::graph::{Edge, EdgeKind, Graph, Node, NodeId};
use crabpath::index::VectorIndex;
use crabpath::inject::{
    inject_batch, inject_correction, inject_node, BatchOptions, CorrectionOptions, InjectConfig,
    InjectItem, InjectOptions,
};
use crabpath::maintain::*;
use crabpath::state::State;
use crabpath::traverse::{traverse, TraversalConfig};
use crabpath::DecayConfig;
use serde_json::json;

fn node(g: &mut Graph, id: &str) -> NodeId {
    g.add_node(Node::new(id, id.to_uppercase()))
}

fn node_auth(g: &mut Graph, id: &str, auth: &str) -> NodeId {
    g.add_node(Node::new(id, id.to_uppercase()).with_meta("authority", auth))
}

fn edge(g: &mut Graph, s: NodeId, t: NodeId, w: f64) {
    g.add_edge(s, t, Edge::new(w)).unwrap();
}

/// Every stored edge as (source, target, weight), bucket by bucket.
fn listing(g: &Graph) -> Vec<(String, String, f64)> {
    g.edges()
        .map(|(s, t, e)| (g.name(s).to_string(), g.name(t).to_string(), e.weight))
        .collect()
}

fn e(s: &str, t: &str, w: f64) -> (String, String, f64) {
    (s.to_string(), t.to_string(), w)
}

fn state(graph: Graph) -> State {
    State::new(graph, VectorIndex::new())
}

// ----- authority, pruning --------------------------------------------------------------

#[test]
fn authority_defaults_to_overlay() {
    let mut g = Graph::new();
    let a = node_auth(&mut g, "a", "constitutional");
    let b = node_auth(&mut g, "b", "canonical");
    let c = node_auth(&mut g, "c", "bogus");
    let d = node(&mut g, "d");
    let ghost = g.intern("ghost");
    assert_eq!(authority(&g, a), Authority::Constitutional);
    assert_eq!(authority(&g, b), Authority::Canonical);
    assert_eq!(authority(&g, c), Authority::Overlay);
    assert_eq!(authority(&g, d), Authority::Overlay);
    assert_eq!(authority(&g, ghost), Authority::Overlay);
}

#[test]
fn prune_edges_respects_authority() {
    let mut g = Graph::new();
    let k = node_auth(&mut g, "k", "constitutional");
    let c = node_auth(&mut g, "c", "canonical");
    let x = node(&mut g, "x");
    let y = node(&mut g, "y");
    edge(&mut g, k, x, 0.001); // constitutional source: kept
    edge(&mut g, x, k, 0.0); // constitutional target: kept
    edge(&mut g, c, x, 0.3); // canonical, |w| > 0.1: kept
    edge(&mut g, x, c, 0.1); // canonical, |w| = 0.1 < 0.5: pruned
    edge(&mut g, x, y, 0.3); // overlay < 0.5: pruned
    edge(&mut g, y, x, -0.6); // |w| >= 0.5: kept
    edge(&mut g, y, y, 0.2); // self-loop < 0.5: pruned
    g.add_edge_by_id("y", "ghost", Edge::new(0.0)).unwrap(); // dangling: pruned
    assert_eq!(prune_edges(&mut g, 0.0), 0);
    assert_eq!(prune_edges(&mut g, -1.0), 0);
    assert_eq!(prune_edges(&mut g, 0.5), 4);
    assert_eq!(
        listing(&g),
        vec![
            e("k", "x", 0.001),
            e("x", "k", 0.0),
            e("c", "x", 0.3),
            e("y", "x", -0.6)
        ]
    );
}

#[test]
fn prune_edges_keeps_negative_edges_at_threshold() {
    let mut g = Graph::new();
    let a = node(&mut g, "a");
    let b = node(&mut g, "b");
    edge(&mut g, a, b, -0.01);
    edge(&mut g, b, a, -0.0099);
    assert_eq!(prune_edges(&mut g, 0.01), 1);
    assert_eq!(listing(&g), vec![e("a", "b", -0.01)]);
}

#[test]
fn orphan_removal() {
    let mut g = Graph::new();
    let a = node(&mut g, "a");
    let b = node(&mut g, "b");
    node(&mut g, "lonely");
    node_auth(&mut g, "law", "constitutional");
    node_auth(&mut g, "canon", "canonical");
    let s = node(&mut g, "selfish");
    let d = node(&mut g, "dangler");
    let fed = node(&mut g, "fed");
    edge(&mut g, a, b, 0.5);
    edge(&mut g, s, s, 0.5); // a self-loop makes a node non-orphan
    g.add_edge_by_id("dangler", "ghost", Edge::new(0.5))
        .unwrap(); // not outgoing
    g.add_edge_by_id("phantom", "fed", Edge::new(0.5)).unwrap(); // not incoming
    let _ = (d, fed);
    assert_eq!(prune_orphan_nodes(&mut g), 3);
    let names: Vec<&str> = g.nodes().map(|(_, n)| n.id.as_str()).collect();
    assert_eq!(names, vec!["a", "b", "law", "canon", "selfish"]);
    // the dangler's bucket and the edge into `fed` went with them
    assert_eq!(
        listing(&g),
        vec![e("a", "b", 0.5), e("selfish", "selfish", 0.5)]
    );
}

// ----- merge candidates ----------------------------------------------------------------

#[test]
fn candidate_pairs_need_both_directions_and_greater_target() {
    let mut g = Graph::new();
    let b = node(&mut g, "b");
    let a = node(&mut g, "a");
    let c = node(&mut g, "c");
    let d = node(&mut g, "d");
    let long = g.add_node(Node::new("e", "x".repeat(1201)));
    let edge_len = g.add_node(Node::new("f", "x".repeat(1200)));
    edge(&mut g, b, a, 0.9); // target "a" < "b": emitted from a's side
    edge(&mut g, a, b, 0.8);
    edge(&mut g, a, c, 0.95);
    edge(&mut g, c, a, 0.79); // min < 0.8
    edge(&mut g, c, d, 0.9); // no reverse edge
    edge(&mut g, d, long, 0.9);
    edge(&mut g, long, d, 0.9); // content 1201 > 1200
    edge(&mut g, d, edge_len, 0.85);
    edge(&mut g, edge_len, d, 0.85); // exactly 1200: allowed
    edge(&mut g, c, c, 1.0);
    let pairs = candidate_pairs(&g, MAX_MERGE_CONTENT_CHARS);
    assert_eq!(pairs, vec![(a, b), (d, edge_len)]);
    assert_eq!(suggest_merges(&g, None), pairs);
    let mut asked = Vec::new();
    let mut judge = |x: &Node, y: &Node| {
        asked.push((x.id.clone(), y.id.clone()));
        y.id == "f"
    };
    assert_eq!(suggest_merges(&g, Some(&mut judge)), vec![(d, edge_len)]);
    assert_eq!(
        asked,
        vec![("a".to_string(), "b".to_string()), ("d".into(), "f".into())]
    );
}

// ----- apply_merge ---------------------------------------------------------------------

#[test]
fn merged_ids_match_the_reference_sim() {
    // structural_vs_edge_only's merge ids (results/reference/sims/
    // structural_vs_edge_only_results.json).
    let g = Graph::new();
    assert_eq!(
        merged_id(&g, "ref_dup_00_a", "ref_dup_00_b"),
        "merged:4a56c986dbcc"
    );
    assert_eq!(
        merged_id(&g, "merged:87e70f81df8d", "proc_04"),
        "merged:a90b8ebfa95a"
    );
    let mut g = Graph::new();
    g.add_node(Node::new("merged:4a56c986dbcc", "x"));
    g.add_node(Node::new("merged:4a56c986dbcc:1", "x"));
    assert_eq!(
        merged_id(&g, "ref_dup_00_a", "ref_dup_00_b"),
        "merged:4a56c986dbcc:2"
    );
}

#[test]
fn merge_node_content_summary_metadata() {
    let mut g = Graph::new();
    let a = g.add_node(Node::new("ref_dup_00_a", "first line\nmore").with_meta("file", "f.md"));
    let b = g.add_node(Node::new("ref_dup_00_b", "B body"));
    g.add_node(Node::new("merged:4a56c986dbcc", "taken"));
    let m = apply_merge(&mut g, a, b).unwrap();
    let n = g.node(m).unwrap();
    assert_eq!(n.id, "merged:4a56c986dbcc:1");
    assert_eq!(n.content, "first line\nmore\n\nB body");
    assert_eq!(n.summary, "first line");
    assert_eq!(
        serde_json::Value::Object(n.metadata.clone()),
        json!({"merged_from": ["ref_dup_00_a", "ref_dup_00_b"], "source": "llm-merge"})
    );
    assert!(g.get_node("ref_dup_00_a").is_none() && g.get_node("ref_dup_00_b").is_none());
    let names: Vec<&str> = g.nodes().map(|(_, n)| n.id.as_str()).collect();
    assert_eq!(names, vec!["merged:4a56c986dbcc", "merged:4a56c986dbcc:1"]);
}

#[test]
fn merge_with_missing_nodes_changes_nothing() {
    let mut g = Graph::new();
    let a = node(&mut g, "a");
    let ghost = g.intern("ghost");
    let other = g.intern("other");
    assert_eq!(apply_merge(&mut g, a, ghost).unwrap(), a);
    assert_eq!(apply_merge(&mut g, ghost, a).unwrap(), a);
    assert_eq!(apply_merge(&mut g, ghost, other).unwrap(), ghost);
    assert_eq!(g.node_count(), 1);
}

#[test]
fn merge_rewire_orders_duplicates_and_bucket_recreation() {
    let mut g = Graph::new();
    let x = node(&mut g, "x");
    let a = node(&mut g, "a");
    let y = node(&mut g, "y");
    let b = node(&mut g, "b");
    let z = node(&mut g, "z");
    edge(&mut g, x, a, 0.3);
    edge(&mut g, x, y, 0.4);
    g.add_edge(x, b, Edge::new(0.5).with_kind(EdgeKind::CrossFile))
        .unwrap();
    edge(&mut g, a, b, 0.9); // becomes a self-loop: dropped
    edge(&mut g, a, y, 0.2);
    edge(&mut g, a, a, 0.7); // self-loop on a: dropped
    edge(&mut g, y, y, 0.1); // self-loop elsewhere: untouched
    edge(&mut g, y, b, 0.6);
    edge(&mut g, b, a, 0.9); // dropped
    edge(&mut g, b, y, 0.25); // collapses with a→y, larger weight wins
    edge(&mut g, b, z, 0.1);
    edge(&mut g, z, a, 0.8); // z's bucket only points to a: re-created at the end
    let m = apply_merge(&mut g, a, b).unwrap();
    let mid = g.name(m).to_string();
    assert_eq!(
        listing(&g),
        vec![
            e("x", "y", 0.4),
            e("x", &mid, 0.5),
            e("y", "y", 0.1),
            e("y", &mid, 0.6),
            e(&mid, "y", 0.25),
            e(&mid, "z", 0.1),
            e("z", &mid, 0.8),
        ]
    );
    // the kept duplicate is the whole larger edge, kind included
    assert_eq!(g.edge(x, m).unwrap().kind, EdgeKind::CrossFile);
    let names: Vec<&str> = g.nodes().map(|(_, n)| n.id.as_str()).collect();
    assert_eq!(names, vec!["x", "y", "z", mid.as_str()]);
    assert_eq!(g.edge_count(), 7);
}

#[test]
fn merge_collapse_keeps_first_on_equal_weight() {
    let mut g = Graph::new();
    let x = node(&mut g, "x");
    let a = node(&mut g, "a");
    let b = node(&mut g, "b");
    g.add_edge(x, a, Edge::new(0.5).with_kind(EdgeKind::Inhibitory))
        .unwrap();
    g.add_edge(x, b, Edge::new(0.5).with_kind(EdgeKind::CrossFile))
        .unwrap();
    let m = apply_merge(&mut g, a, b).unwrap();
    assert_eq!(g.edge(x, m).unwrap().kind, EdgeKind::Inhibitory);
}

// ----- connections ---------------------------------------------------------------------

#[test]
fn jaccard_tokens() {
    let a = token_set("Don't deploy, DEPLOY v2!");
    assert_eq!(
        a.iter().map(String::as_str).collect::<Vec<_>>(),
        vec!["deploy", "don't", "v2"]
    );
    let b = token_set("deploy v3");
    assert_eq!(jaccard(&a, &b), 0.25);
    assert_eq!(jaccard(&token_set(""), &token_set("")), 0.0);
}

#[test]
fn connections_sorting_and_filters() {
    let mut g = Graph::new();
    let f = |g: &mut Graph, id: &str, file: Option<&str>, text: &str| {
        let mut n = Node::new(id, text);
        if let Some(file) = file {
            n = n.with_meta("file", file);
        }
        g.add_node(n)
    };
    let n1 = f(&mut g, "n1", Some("a.md"), "alpha beta");
    let n2 = f(&mut g, "n2", Some("b.md"), "alpha beta");
    let n3 = f(&mut g, "n3", Some("a.md"), "alpha beta"); // same file as n1
    let n4 = f(&mut g, "n4", None, "alpha beta"); // no file
    let n5 = f(&mut g, "n5", Some("c.md"), "alpha gamma");
    let _ = (n4, n5);
    let s = suggest_connections(&g, None, MAX_CONNECTION_CANDIDATES);
    let got: Vec<(&str, &str, f64)> = s
        .iter()
        .map(|c| (g.name(c.source), g.name(c.target), c.weight))
        .collect();
    // overlap desc, then source id desc, then target id desc
    assert_eq!(
        got,
        vec![
            ("n2", "n3", 1.0),
            ("n1", "n2", 1.0),
            ("n3", "n5", 1.0 / 3.0),
            ("n2", "n5", 1.0 / 3.0),
            ("n1", "n5", 1.0 / 3.0),
        ]
    );
    let top2 = suggest_connections(&g, None, 2);
    assert_eq!(top2.len(), 2);
    assert_eq!((top2[0].source, top2[0].target), (n2, n3));

    let mut judge = |a: &Node, _b: &Node, overlap: f64| {
        if a.id == "n2" {
            Some(if overlap == 1.0 { 7.0 } else { overlap })
        } else {
            None
        }
    };
    let judged = suggest_connections(&g, Some(&mut judge), 20);
    let got: Vec<(&str, &str, f64)> = judged
        .iter()
        .map(|c| (g.name(c.source), g.name(c.target), c.weight))
        .collect();
    assert_eq!(got, vec![("n2", "n3", 1.0), ("n2", "n5", 1.0 / 3.0)]);

    let mut all = s.clone();
    all.push(s[0].clone()); // repeated
    all.push(ConnectionSuggestion {
        source: n1,
        target: n1,
        weight: 0.5,
        reason: "self".into(),
    });
    all.push(ConnectionSuggestion {
        source: n1,
        target: n3,
        weight: 0.5,
        reason: "same file".into(),
    });
    all.push(ConnectionSuggestion {
        source: n1,
        target: n4,
        weight: 0.5,
        reason: "missing file".into(),
    });
    edge(&mut g, n1, n2, 0.2); // already exists: updated, not counted
    assert_eq!(apply_connections(&mut g, &all).unwrap(), 4);
    let e12 = g.edge(n1, n2).unwrap();
    assert_eq!(e12.weight, 1.0);
    assert_eq!(e12.kind, EdgeKind::CrossFile);
    assert_eq!(e12.metadata.get("source"), Some(&json!("connect")));
    assert_eq!(e12.metadata.get("kind"), Some(&json!("cross_file")));
    assert!(e12.metadata.get("reason").is_some());
    assert!(g.edge(n1, n3).is_none() && g.edge(n1, n4).is_none() && g.edge(n1, n1).is_none());
    assert_eq!(g.edge_count(), 5);
}

fn learning_graph() -> (Graph, VectorIndex) {
    let mut g = Graph::new();
    let mut idx = VectorIndex::new();
    for (id, v) in [
        ("doc_a", vec![1.0, 0.0, 0.0]),
        ("doc_b", vec![0.0, 1.0, 0.0]),
        ("doc_c", vec![0.0, 0.0, 1.0]),
        ("learning::x", vec![0.9, 0.1, 0.0]),
    ] {
        g.add_node(Node::new(id, id));
        idx.upsert(id, v).unwrap();
    }
    (g, idx)
}

#[test]
fn connect_learning_nodes_reference_bug_and_fix() {
    let (mut g, idx) = learning_graph();
    let reference = ConnectOptions::default();
    assert!(reference.require_file_metadata);
    assert_eq!(
        connect_learning_nodes(&mut g, &idx, &reference, None).unwrap(),
        0
    );
    assert_eq!(g.edge_count(), 0);

    let fixed = ConnectOptions::for_profile(crabpath::Profile::Corrected);
    assert!(!fixed.require_file_metadata);
    assert_eq!(
        ConnectOptions::for_profile(crabpath::Profile::Paper),
        reference
    );
    assert_eq!(
        connect_learning_nodes(&mut g, &idx, &fixed, None).unwrap(),
        2
    );
    let l = g.lookup("learning::x").unwrap();
    let a = g.lookup("doc_a").unwrap();
    // sim 0.9939 → min(0.7, max(0.35, sim)) = 0.7, both directions; doc_b (0.11) < 0.3
    assert_eq!(g.weight(l, a), Some(0.7));
    assert_eq!(g.weight(a, l), Some(0.7));

    let mut g2 = learning_graph().0;
    let empty = VectorIndex::new();
    assert!(connect_learning_nodes(&mut g2, &empty, &fixed, None).is_err());
}

// ----- run_maintenance -----------------------------------------------------------------

#[test]
fn maintenance_decays_before_pruning() {
    let mut g = Graph::new();
    let a = node(&mut g, "a");
    let b = node(&mut g, "b");
    let c = node(&mut g, "c");
    edge(&mut g, a, b, 0.0105);
    edge(&mut g, b, c, 0.5);
    let mut st = state(g);
    let opts = MaintenanceOptions {
        // request order is irrelevant: the fixed order is decay → prune
        tasks: Some(vec!["prune".into(), "decay".into(), "bogus".into()]),
        decay: DecayConfig {
            half_life: 10.0,
            min_weight: 0.01,
        },
        ..MaintenanceOptions::default()
    };
    let r = run_maintenance(&mut st, &opts).unwrap();
    assert_eq!(
        r.tasks_run,
        vec![MaintenanceTask::Decay, MaintenanceTask::Prune]
    );
    // 0.0105 × 0.933 < 0.01 → 0.0 → pruned; a becomes an orphan
    assert_eq!(r.pruned_edges, 1);
    assert_eq!(r.pruned_nodes, 1);
    assert_eq!(r.edges_before, 2);
    assert_eq!(r.edges_after, 1);
    assert!(r.decay_applied);
    assert_eq!(r.decayed_edges, 2);
    assert!(r.notes.iter().any(|n| n.contains("bogus")));
    assert_eq!(
        listing(&st.graph),
        vec![e("b", "c", 0.5 * 0.9330329915368074)]
    );
    serde_json::to_string(&r).unwrap();
}

#[test]
fn maintenance_decay_respects_authority() {
    let mut g = Graph::new();
    let k = node_auth(&mut g, "k", "constitutional");
    let c = node_auth(&mut g, "c", "canonical");
    let o = node(&mut g, "o");
    edge(&mut g, k, o, 0.5);
    edge(&mut g, c, o, 0.5);
    edge(&mut g, o, k, 0.5);
    let mut st = state(g);
    let opts = MaintenanceOptions {
        tasks: Some(vec!["decay".into()]),
        ..MaintenanceOptions::default()
    };
    run_maintenance(&mut st, &opts).unwrap();
    let g = &st.graph;
    assert_eq!(g.weight(k, o), Some(0.5));
    assert_eq!(g.weight(c, o), Some(0.5 * 0.5f64.powf(1.0 / 160.0)));
    assert_eq!(g.weight(o, k), Some(0.5 * 0.9913730874626621));
}

/// a↔b mergeable, a→c weak. Reference order prunes a→c (and orphan c) before merging;
/// the paper order merges first, so the merged node's only edge is pruned and it
/// becomes an orphan itself.
fn order_graph() -> State {
    let mut g = Graph::new();
    let a = node(&mut g, "a");
    let b = node(&mut g, "b");
    let c = node(&mut g, "c");
    edge(&mut g, a, b, 0.85);
    edge(&mut g, b, a, 0.85);
    edge(&mut g, a, c, 0.005);
    state(g)
}

#[test]
fn maintenance_reference_vs_paper_order() {
    let tasks = Some(vec!["merge".into(), "prune".into()]);
    let mut st = order_graph();
    let opts = MaintenanceOptions {
        tasks: tasks.clone(),
        ..MaintenanceOptions::default()
    };
    let r = run_maintenance(&mut st, &opts).unwrap();
    assert_eq!(
        r.tasks_run,
        vec![MaintenanceTask::Prune, MaintenanceTask::Merge]
    );
    assert_eq!(
        (r.pruned_edges, r.pruned_nodes, r.merges_applied),
        (1, 1, 1)
    );
    assert_eq!(st.graph.node_count(), 1);
    assert_eq!(r.merged_ids, vec![merged_id(&Graph::new(), "a", "b")]);

    let mut st = order_graph();
    let opts = MaintenanceOptions {
        tasks,
        order: MaintenanceOrder::Paper,
        ..MaintenanceOptions::default()
    };
    let r = run_maintenance(&mut st, &opts).unwrap();
    assert_eq!(
        r.tasks_run,
        vec![MaintenanceTask::Merge, MaintenanceTask::Prune]
    );
    assert_eq!(
        (r.pruned_edges, r.pruned_nodes, r.merges_applied),
        (1, 2, 1)
    );
    assert_eq!(st.graph.node_count(), 0);
}

#[test]
fn maintenance_default_tasks_and_merge_filters() {
    let build = || {
        let mut g = Graph::new();
        let p = node_auth(&mut g, "p", "constitutional");
        let q = node(&mut g, "q");
        let r = node_auth(&mut g, "r", "canonical");
        let s = node(&mut g, "s");
        let t = node(&mut g, "t");
        let u = node(&mut g, "u");
        for (x, y) in [(p, q), (r, s), (t, u)] {
            edge(&mut g, x, y, 0.9);
            edge(&mut g, y, x, 0.9);
        }
        state(g)
    };
    let mut st = build();
    let r = run_maintenance(&mut st, &MaintenanceOptions::default()).unwrap();
    use MaintenanceTask::*;
    assert_eq!(r.tasks_run, vec![Health, Decay, Prune, Merge]);
    assert_eq!(r.merges_proposed, 3);
    assert_eq!(r.merges_applied, 1); // only (t, u): constitutional and canonical dropped
    assert!(st.graph.get_node("r").is_some() && st.graph.get_node("t").is_none());

    // with a judge, canonical pairs may merge; max_merges caps the count
    let mut st = build();
    let mut yes = |_: &Node, _: &Node| true;
    let opts = MaintenanceOptions {
        max_merges: 1,
        ..MaintenanceOptions::default()
    };
    let hooks = MaintenanceHooks {
        judge: Some(&mut yes),
        ..MaintenanceHooks::default()
    };
    let r = run_maintenance_with(&mut st, &opts, hooks).unwrap();
    assert_eq!(r.merges_applied, 1);
    assert!(st.graph.get_node("r").is_none() && st.graph.get_node("t").is_some());
}

#[test]
fn maintenance_journal_only_when_asked() {
    let mut st = order_graph();
    let mut lines: Vec<serde_json::Value> = Vec::new();
    let mut journal = |v: &serde_json::Value| -> crabpath::Result<()> {
        lines.push(v.clone());
        Ok(())
    };
    let hooks = MaintenanceHooks {
        journal: Some(&mut journal),
        ..MaintenanceHooks::default()
    };
    run_maintenance_with(&mut st, &MaintenanceOptions::default(), hooks).unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "health");
    assert_eq!(lines[0]["edges"], 3);
    assert_eq!(lines[1]["type"], "maintenance");
    // without the hook nothing is journaled (and nothing else changes)
    let mut again = order_graph();
    let r = run_maintenance(&mut again, &MaintenanceOptions::default()).unwrap();
    assert_eq!(r.edges_after, st.graph.edge_count());
}

// ----- injection -----------------------------------------------------------------------

fn unit(theta_cos: f64) -> Vec<f64> {
    vec![theta_cos, (1.0 - theta_cos * theta_cos).sqrt()]
}

fn inject_graph() -> (Graph, VectorIndex) {
    let mut g = Graph::new();
    let mut idx = VectorIndex::new();
    for (id, v) in [
        ("target", vec![1.0, 0.0]),
        ("far", vec![0.0, 1.0]),
        ("feeder", vec![-1.0, 0.0]),
    ] {
        g.add_node(Node::new(id, format!("{id} text")));
        idx.upsert(id, v).unwrap();
    }
    (g, idx)
}

#[test]
fn inject_node_connects_both_directions() {
    let (mut g, mut idx) = inject_graph();
    let opts = InjectOptions {
        vector: Some(unit(0.887)),
        ..InjectOptions::default()
    };
    let r = inject_node(&mut g, &mut idx, "new", "headline\nbody", opts.clone()).unwrap();
    assert_eq!(r.node_id, "new");
    // far: sin = 0.4618 ≥ 0.3 too; feeder: negative
    assert_eq!(
        r.connected_to,
        vec!["target".to_string(), "far".to_string()]
    );
    assert_eq!(r.edges_added, 4);
    assert!(!r.skipped);
    let n = g.lookup("new").unwrap();
    let t = g.lookup("target").unwrap();
    let sim = r.similarities[0];
    assert!((sim - 0.887).abs() < 1e-12);
    assert_eq!(g.weight(n, t), Some(sim));
    assert_eq!(g.weight(t, n), Some(sim));
    let edge = g.edge(n, t).unwrap();
    assert_eq!(edge.kind, EdgeKind::CrossFile);
    assert_eq!(edge.metadata.get("source"), Some(&json!("inject")));
    assert_eq!(edge.metadata.get("score"), Some(&json!(sim)));
    assert_eq!(g.get_node("new").unwrap().summary, "headline");
    assert!(idx.get("new").is_some());

    // existing id: no-op
    let again = inject_node(&mut g, &mut idx, "new", "other", opts).unwrap();
    assert!(again.skipped);
    assert_eq!(again.edges_added, 0);
    assert_eq!(g.get_node("new").unwrap().content, "headline\nbody");

    // dimension mismatch and missing vector are errors, with no change
    let bad = InjectOptions {
        vector: Some(vec![1.0, 0.0, 0.0]),
        ..InjectOptions::default()
    };
    assert!(inject_node(&mut g, &mut idx, "bad", "x", bad).is_err());
    assert!(inject_node(&mut g, &mut idx, "bad", "x", InjectOptions::default()).is_err());
    assert!(g.get_node("bad").is_none());
}

#[test]
fn inject_min_sim_and_top_k() {
    let (mut g, mut idx) = inject_graph();
    let opts = InjectOptions {
        vector: Some(unit(0.887)),
        connect_min_sim: 0.5,
        ..InjectOptions::default()
    };
    let r = inject_node(&mut g, &mut idx, "new", "x", opts).unwrap();
    assert_eq!(r.connected_to, vec!["target".to_string()]);
    let (mut g, mut idx) = inject_graph();
    let opts = InjectOptions {
        vector: Some(unit(0.887)),
        connect_top_k: 0,
        ..InjectOptions::default()
    };
    // top_k + 1 = 1 hit: the node itself
    let r = inject_node(&mut g, &mut idx, "new", "x", opts.clone()).unwrap();
    assert!(r.connected_to.is_empty());
    // an equal vector inserted earlier wins the tie (stable search): it is the one hit
    let r = inject_node(&mut g, &mut idx, "new2", "x", opts).unwrap();
    assert_eq!(r.connected_to, vec!["new".to_string()]);
}

/// Reference `crabpath/inject.py::inject_correction` (REPRODUCE.md discrepancy C9; run on
/// the reference: similarity 0.887 → weight 0.0).
#[test]
fn inject_correction_reference_bug_gives_zero_weight() {
    let (mut g, mut idx) = inject_graph();
    let opts = InjectOptions {
        vector: Some(unit(0.887)),
        ..InjectOptions::default()
    };
    let r = inject_correction(
        &mut g,
        &mut idx,
        "fix",
        "do not use target",
        opts,
        &CorrectionOptions::default(),
        &InjectConfig::default(),
    )
    .unwrap();
    assert_eq!(r.inhibitory_edges, 2);
    let c = g.lookup("fix").unwrap();
    let t = g.lookup("target").unwrap();
    let e = g.edge(c, t).unwrap();
    assert_eq!(e.weight, 0.0);
    assert_eq!(e.kind, EdgeKind::Inhibitory);
    // reverse edge stays positive
    assert!((g.weight(t, c).unwrap() - 0.887).abs() < 1e-12);
    assert_eq!(
        g.get_node("fix").unwrap().metadata.get("type"),
        Some(&json!("CORRECTION"))
    );
}

fn fired_after_correction(config: InjectConfig) -> Vec<String> {
    let (mut g, mut idx) = inject_graph();
    let feeder = g.lookup("feeder").unwrap();
    let target = g.lookup("target").unwrap();
    edge(&mut g, feeder, target, 0.9);
    let opts = InjectOptions {
        vector: Some(unit(0.887)),
        ..InjectOptions::default()
    };
    inject_correction(
        &mut g,
        &mut idx,
        "fix",
        "do not use target",
        opts,
        &CorrectionOptions::default(),
        &config,
    )
    .unwrap();
    let fix = g.lookup("fix").unwrap();
    // the correction is active; the target is reached from the feeder in hop 1
    let r = traverse(
        &g,
        &[(fix, 1.0), (feeder, 0.9)],
        &TraversalConfig::default(),
    )
    .unwrap();
    let mut fired: Vec<String> = r.fired_names(&g).iter().map(|s| s.to_string()).collect();
    // and as a seed itself
    let r2 = traverse(
        &g,
        &[(fix, 1.0), (target, 0.8)],
        &TraversalConfig::default(),
    )
    .unwrap();
    fired.push("|".into());
    fired.extend(r2.fired_names(&g).iter().map(|s| s.to_string()));
    fired
}

#[test]
fn corrected_correction_is_negative_and_vetoes_its_target() {
    let (mut g, mut idx) = inject_graph();
    let opts = InjectOptions {
        vector: Some(unit(0.887)),
        ..InjectOptions::default()
    };
    let fixed = InjectConfig::for_profile(crabpath::Profile::Corrected);
    assert!(fixed.correction_negative);
    assert_eq!(
        InjectConfig::for_profile(crabpath::Profile::Paper),
        InjectConfig::default()
    );
    let r = inject_correction(
        &mut g,
        &mut idx,
        "fix",
        "x",
        opts,
        &CorrectionOptions::default(),
        &fixed,
    )
    .unwrap();
    let c = g.lookup("fix").unwrap();
    let t = g.lookup("target").unwrap();
    let e = g.edge(c, t).unwrap();
    assert_eq!(e.weight, -0.5 * r.similarities[0]);
    assert!(e.weight <= -0.01);
    assert_eq!(e.kind, EdgeKind::Inhibitory);

    let reference = fired_after_correction(InjectConfig::default());
    assert!(
        reference.iter().filter(|s| *s == "target").count() == 2,
        "{reference:?}"
    );
    let corrected = fired_after_correction(fixed);
    assert!(!corrected.iter().any(|s| s == "target"), "{corrected:?}");
}

#[test]
fn inject_batch_counts() {
    struct Fixed;
    impl crabpath::embed::Embedder for Fixed {
        fn name(&self) -> &str {
            "fixed"
        }
        fn dim(&self) -> usize {
            2
        }
        fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
            Ok(texts
                .iter()
                .map(|_| vec![0.887, (1.0f64 - 0.887 * 0.887).sqrt()])
                .collect())
        }
    }
    let (mut g, mut idx) = inject_graph();
    let items = vec![
        InjectItem {
            id: "fix".into(),
            content: "correction".into(),
            node_type: Some("CORRECTION".into()),
            ..InjectItem::default()
        },
        InjectItem {
            id: "note".into(),
            content: "note".into(),
            vector: Some(vec![0.0, 1.0]),
            ..InjectItem::default()
        },
        InjectItem {
            id: "target".into(),
            content: "exists".into(),
            ..InjectItem::default()
        },
    ];
    assert!(inject_batch(&mut g, &mut idx, &items, None, &BatchOptions::default()).is_err());
    assert!(g.get_node("fix").is_none());
    let r = inject_batch(
        &mut g,
        &mut idx,
        &items,
        Some(&Fixed),
        &BatchOptions::default(),
    )
    .unwrap();
    assert_eq!(r.injected, 2);
    assert_eq!(r.skipped, 1);
    // fix ↔ target, far; note ↔ far, fix (0.46), target? cos = 0 → no
    assert_eq!(r.inhibitory, 2);
    assert_eq!(
        r.edges,
        r.reports.iter().map(|x| x.edges_added).sum::<usize>()
    );
    assert_eq!(r.reports[0].edges_added, 4);
    let fix = g.lookup("fix").unwrap();
    let t = g.lookup("target").unwrap();
    assert_eq!(g.weight(fix, t), Some(0.0));
}

/// merge_compression (reference `sims/merge_compression.py`; numbers from
/// results/reference/sims/merge_compression_results.json): 8 mutually linked pairs among 40
/// nodes merge into 32 nodes and 0 edges; each merged content is 115 + 2 + 115 code points.
#[test]
fn merge_compression_shape() {
    let mut g = Graph::new();
    let mut pairs = Vec::new();
    for i in 0..8 {
        let file = format!("src/{i:02}/pipeline.py");
        let text = |step: &str, chunk: &str| {
            format!(
                "{file}: prepare the shared payload for pair {i}. Step {step} normalizes incoming artifacts and writes chunk {chunk}."
            )
        };
        let a = g.add_node(
            Node::new(format!("pair_{i:02}_a"), text("A", "A")).with_meta("file", file.as_str()),
        );
        let b = g.add_node(
            Node::new(format!("pair_{i:02}_b"), text("B", "B")).with_meta("file", file.as_str()),
        );
        assert_eq!(g.node(a).unwrap().content_chars(), 115);
        edge(&mut g, a, b, 0.85);
        edge(&mut g, b, a, 0.85);
        pairs.push((a, b));
    }
    for i in 0..24 {
        g.add_node(Node::new(
            format!("noise_{i:02}"),
            format!("unrelated noise context chunk {i:02}"),
        ));
    }
    assert_eq!((g.node_count(), g.edge_count()), (40, 16));
    assert_eq!(suggest_merges(&g, None), pairs);
    for (a, b) in pairs {
        let m = apply_merge(&mut g, a, b).unwrap();
        assert_eq!(g.node(m).unwrap().content_chars(), 232);
    }
    assert_eq!((g.node_count(), g.edge_count()), (32, 0));
}
