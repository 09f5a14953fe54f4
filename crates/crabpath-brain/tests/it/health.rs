//! The eight health metrics of seed 002 §5.1, Table 4 (issue 31, item 2), through
//! `Brain::health_report` on small brain databases whose every value is computed by
//! hand below; a brain with nothing to measure yet; the window; and a journal written
//! by the product's own query path.

use crate::common;

use crabpath::graph::{Edge, Graph, Node};
use crabpath::profile::Profile;
use crabpath_brain::reference::journal::query_event;
use crabpath_brain::service::health::{Status, DEFAULT_WINDOW, TABLE_4};
use crabpath_brain::service::HealthReport;
use crabpath_brain::QueryRequest;
use pyformat::pyjson::{PyDict, PyValue};

/// Five nodes, texts of 10 + 10 + 20 + 10 + 50 = 100 characters:
///
/// | node | file | chars |
/// |---|---|---|
/// | a.md::0 | a.md | 10 |
/// | a.md::1 | a.md | 10 |
/// | b.md::0 | b.md | 20 |
/// | b.md::1 | b.md | 10 |
/// | lonely | — | 50 |
///
/// Six edges:
///
/// | edge | weight | tier (0.2 / 0.6) | same file |
/// |---|---|---|---|
/// | a.md::0 → a.md::1 | 0.97 | reflex | a.md |
/// | a.md::1 → a.md::0 | 0.96 | reflex | a.md |
/// | b.md::0 → b.md::1 | 0.5 | habitual | b.md |
/// | b.md::1 → b.md::0 | 0.1 | dormant | b.md |
/// | a.md::1 → b.md::0 | 0.1 | dormant | cross-file |
/// | b.md::0 → a.md::0 | −0.3 | dormant (negatives count as dormant) | cross-file |
fn graph() -> Graph {
    let mut g = Graph::new();
    let text = |c: char, n: usize| c.to_string().repeat(n);
    for (id, file, chars) in [
        ("a.md::0", Some("a.md"), 10),
        ("a.md::1", Some("a.md"), 10),
        ("b.md::0", Some("b.md"), 20),
        ("b.md::1", Some("b.md"), 10),
        ("lonely", None, 50),
    ] {
        let mut n = Node::new(id, text('x', chars));
        if let Some(f) = file {
            n = n.with_meta("file", f);
        }
        g.add_node(n);
    }
    for (s, t, w) in [
        ("a.md::0", "a.md::1", 0.97),
        ("a.md::1", "a.md::0", 0.96),
        ("b.md::0", "b.md::1", 0.5),
        ("b.md::1", "b.md::0", 0.1),
        ("a.md::1", "b.md::0", 0.1),
        ("b.md::0", "a.md::0", -0.3),
    ] {
        g.add_edge_by_id(s, t, Edge::new(w)).unwrap();
    }
    g
}

fn query(fired: &[&str]) -> PyDict {
    query_event("q", fired, 5, PyValue::Null)
}

/// A neurogenesis journal entry (the shared shape of issue 31's neurogenesis events).
fn neuro(event: &str, node: &str) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str("neurogenesis".into()));
    e.insert("event".into(), PyValue::Str(event.into()));
    e.insert("node".into(), PyValue::Str(node.into()));
    e
}

/// The journal, oldest first: three queries firing 2, 1 and 4 ids (the last names
/// `gone`, a node deleted since: 0 characters), births of auto:1 and auto:2, and
/// promotions of auto:1 and of auto:9 (born before the journal starts).
///
/// | query | fired | characters of the fired texts |
/// |---|---|---|
/// | 1 | a.md::0, a.md::1 | 10 + 10 = 20 |
/// | 2 | b.md::0 | 20 |
/// | 3 | a.md::0, b.md::0, b.md::1, gone | 10 + 20 + 10 + 0 = 40 |
fn journal() -> Vec<PyDict> {
    vec![
        query(&["a.md::0", "a.md::1"]),
        neuro("born", "auto:1"),
        PyDict::from([("type".to_string(), PyValue::Str("health".into()))]),
        query(&["b.md::0"]),
        neuro("born", "auto:2"),
        neuro("promoted", "auto:1"),
        neuro("promoted", "auto:9"),
        neuro("refreshed", "auto:2"),
        query(&["a.md::0", "b.md::0", "b.md::1", "gone"]),
    ]
}

fn report(g: &Graph, journal: Vec<PyDict>, window: usize) -> HealthReport {
    let dir = tempfile::tempdir().unwrap();
    let e = crabpath::embed::HashEmbedder::new();
    let opts = crabpath_brain::service::InitOptions {
        embedder: &e,
        info: crabpath_brain::reference::embedder::EmbedderInfo::hash_v1(),
        parallel: false,
        progress: None,
    };
    crabpath_brain::service::init_store(
        dir.path(),
        g,
        &opts,
        crabpath::graph::Metadata::new(),
        journal,
    )
    .unwrap();
    let mut b = common::open_hash(&dir.path().join("brain.db"), Profile::Corrected, false);
    b.health_report(window).unwrap()
}

fn close(report: &HealthReport, name: &str, want: f64) {
    let got = report
        .value(name)
        .unwrap_or_else(|| panic!("{name} not computed: {:?}", report.metric(name)));
    assert!((got - want).abs() < 1e-12, "{name}: {got} != {want}");
}

fn status(report: &HealthReport, name: &str) -> Status {
    report.metric(name).unwrap().status()
}

#[test]
fn each_metric_matches_the_hand_computation() {
    let r = report(&graph(), journal(), DEFAULT_WINDOW);
    assert_eq!((r.window, r.queries, r.nodes, r.edges), (1000, 3, 5, 6));
    // (2 + 1 + 4) / 3 fired ids per query; range 1.0–2.0: high
    close(&r, "avg_nodes_fired_per_query", 7.0 / 3.0);
    assert_eq!(status(&r, "avg_nodes_fired_per_query"), Status::High);
    // 2 of 6 edges join a.md and b.md; range 0–15 %: high
    close(&r, "cross_file_edge_pct", 2.0 / 6.0);
    // 3 of 6 edges weigh < 0.2; range 70–95 %: low
    close(&r, "dormant_pct", 3.0 / 6.0);
    assert_eq!(status(&r, "dormant_pct"), Status::Low);
    // 2 of 6 edges weigh ≥ 0.6; range 0–10 %: high
    close(&r, "reflex_pct", 2.0 / 6.0);
    // (20 + 20 + 40) / 3 characters per query over 100 in all; range ≤ 20 %: high
    close(&r, "context_compression", 80.0 / 3.0 / 100.0);
    // born in the window: auto:1, auto:2; promoted after birth: auto:1 (auto:9 was
    // born before); 1 / 2, range 0–50 %: in range (inclusive)
    close(&r, "proto_promotion_rate", 0.5);
    assert_eq!(status(&r, "proto_promotion_rate"), Status::Ok);
    // families a.md (0.97, 0.96: both ≥ 0.95, collapsed) and b.md (0.5, 0.1): 1 / 2;
    // range 0 %: high
    close(&r, "reconvergence_rate", 0.5);
    // `lonely` has no edge; range 0: high
    close(&r, "orphan_nodes", 1.0);
    assert_eq!(
        r.out_of_range(),
        [
            "avg_nodes_fired_per_query",
            "cross_file_edge_pct",
            "dormant_pct",
            "reflex_pct",
            "context_compression",
            "reconvergence_rate",
            "orphan_nodes"
        ]
    );
}

#[test]
fn the_window_counts_the_newest_queries() {
    // the last two queries, and the entries after the older of them: born auto:2,
    // promoted auto:1 (born outside the window), auto:9
    let r = report(&graph(), journal(), 2);
    assert_eq!(r.queries, 2);
    close(&r, "avg_nodes_fired_per_query", (1.0 + 4.0) / 2.0);
    close(&r, "context_compression", (20.0 + 40.0) / 2.0 / 100.0);
    close(&r, "proto_promotion_rate", 0.0);
    // the last query only: no birth after it
    let r = report(&graph(), journal(), 1);
    close(&r, "avg_nodes_fired_per_query", 4.0);
    close(&r, "context_compression", 0.4);
    let p = r.metric("proto_promotion_rate").unwrap();
    assert_eq!((p.value, p.status()), (None, Status::NotComputable));
    assert_eq!(p.reason, Some("no auto node born in the window yet"));
}

#[test]
fn nothing_to_measure_is_not_computable_never_zero() {
    // three nodes, no edge, an empty journal
    let mut g = Graph::new();
    for id in ["x", "y", "z"] {
        g.add_node(Node::new(id, "text").with_meta("file", "f.md"));
    }
    let r = report(&g, Vec::new(), DEFAULT_WINDOW);
    assert_eq!(r.queries, 0);
    // every metric but orphan_nodes, the last of Table 4
    for t in &TABLE_4[..7] {
        let name = t.name;
        let m = r.metric(name).unwrap();
        assert_eq!(m.value, None, "{name}");
        assert_eq!(m.status(), Status::NotComputable, "{name}");
        assert!(m.reason.is_some(), "{name}");
    }
    assert_eq!(
        r.metric("avg_nodes_fired_per_query").unwrap().reason,
        Some("no queries yet")
    );
    // three nodes without an edge: three orphans, a measured value
    close(&r, "orphan_nodes", 3.0);
    let j = r.to_json();
    assert_eq!(
        j["metrics"]["dormant_pct"]["value"],
        serde_json::Value::Null
    );
    assert_eq!(j["metrics"]["dormant_pct"]["status"], "n/a");
    assert_eq!(j["out_of_range"], serde_json::json!(["orphan_nodes"]));
}

#[test]
fn a_window_of_zero_queries_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    let e = b.health_report(0).unwrap_err().to_string();
    assert!(e.contains("at least 1 query"), "{e}");
}

#[test]
fn queries_served_are_measured_from_the_journal() {
    for resident in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let db = common::fixture_brain(dir.path()).1;
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        let before = b.health_report(DEFAULT_WINDOW).unwrap();
        assert_eq!(before.queries, 0);
        assert_eq!(before.value("avg_nodes_fired_per_query"), None);
        let mut fired = Vec::new();
        for q in ["deploy the service", "rollback", "how do I test"] {
            let answer = b.query(&QueryRequest::new(q, 3)).unwrap();
            fired.push(answer.fired().len());
        }
        let r = b.health_report(DEFAULT_WINDOW).unwrap();
        assert_eq!(r.queries, 3, "resident {resident}");
        // the mean of what the three answers fired
        let mean = fired.iter().sum::<usize>() as f64 / 3.0;
        close(&r, "avg_nodes_fired_per_query", mean);
        let r = b.health_report(1).unwrap();
        close(&r, "avg_nodes_fired_per_query", fired[2] as f64);
    }
}
