//! The brain's health: the eight metrics of seed 002 §5.1, Table 4, each with its
//! target range, measured over the graph as it is now and over a window of the journal,
//! the last N queries (issue 31, item 2). [`TABLE_4`] is the one list of the metrics:
//! name, range, unit and how each is measured; the command line, `--json` and the MCP
//! `health` tool all print [`HealthReport`].
//!
//! | metric | target | measured over | definition |
//! |---|---|---|---|
//! | `avg_nodes_fired_per_query` | 1.0–2.0 | window | mean number of fired ids of the window's `query` entries |
//! | `cross_file_edge_pct` | 0–15 % | graph | share of edges whose two endpoints carry different `file` metadata ([`measure_health`]) |
//! | `dormant_pct` | 70–95 % | graph | share of edges with weight < 0.2 ([`measure_health`]) |
//! | `reflex_pct` | 0–10 % | graph | share of edges with weight ≥ 0.6 ([`measure_health`]) |
//! | `context_compression` | ≤ 20 % | window, graph | mean, over the window's queries, of the characters of the fired nodes' texts, divided by the characters of all nodes' texts (upstream `autotune.py`: loaded chars / total chars) |
//! | `proto_promotion_rate` | 0–50 % | window | share of the auto nodes born in the window (journal `neurogenesis` entries, event `born`) that a later entry of the window promotes (`promoted`) |
//! | `reconvergence_rate` | 0 % | graph | share of *families* (the chunks of one file, when at least one edge links two of them) whose every edge between two of its chunks weighs ≥ [`RECONVERGE_WEIGHT`]: siblings that always co-fire have collapsed into one unit again (upstream `mitosis.py::check_reconvergence`) |
//! | `orphan_nodes` | 0 | graph | nodes with no edge in or out ([`measure_health`]) |
//!
//! Fractions are reported in [0, 1] (the table's percentages divided by 100), as
//! [`crabpath::health::GraphHealth`] reports them.
//!
//! **The window.** Every query, served with a conversation id or not, appends a `query`
//! entry with its fired ids to the journal (table `journal` of a database,
//! `journal.jsonl` of a state file); the turn log (table `turns`) holds only the queries
//! served with a `chat_id`, the newest 100 of each conversation. So the window is read
//! from the journal: its newest `query` entries up to `window` of them, and every entry
//! after the oldest of those (all of the journal when it holds fewer queries). A line
//! that is not JSON (a torn last line) is skipped.
//!
//! **Not computable yet.** A metric that has nothing to be measured on (no query yet,
//! no edge, no auto node born in the window, no family) has no value: `None`, `null` in
//! JSON, `n/a` with its reason in text, and never a made-up 0.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{json, Map, Value};

use crabpath::graph::Graph;
use crabpath::health::{measure_health, GraphHealth};

use super::engine::{Backend, Brain};
use super::neurogenesis::NeurogenesisCounts;
use crate::error::{Error, Result};
use crate::store::sql_error;

/// The window of `health` when none is given: the last 1,000 queries (issue 31, item 2).
pub const DEFAULT_WINDOW: usize = 1000;

/// The weight at or above which two sibling chunks count as reconverged (upstream
/// `mitosis.py::MitosisConfig.reconverge_threshold`).
pub const RECONVERGE_WEIGHT: f64 = 0.95;

/// The journal entry type of neurogenesis events (issue 31 item 1, written by the
/// served brain's neurogenesis): `{"type": "neurogenesis", "event": ..., "node": ...}`.
pub const NEUROGENESIS: &str = "neurogenesis";

/// What a metric counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A number of nodes (per query, or in the graph).
    Count,
    /// A share in [0, 1] (the table's percentage / 100).
    Fraction,
}

impl Unit {
    /// `count` / `fraction`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Fraction => "fraction",
        }
    }
}

/// A measured value, or why there is none yet.
pub type Measured = std::result::Result<f64, &'static str>;

/// What a metric is measured on: the graph, its edge health, the journal's window.
pub struct Inputs<'a> {
    /// The graph as it is.
    pub graph: &'a Graph,
    /// Its tier shares, cross-file share and orphans ([`measure_health`]).
    pub health: &'a GraphHealth,
    /// The window of the journal.
    pub window: &'a JournalWindow,
}

/// One row of Table 4 (seed 002 §5.1): a metric's name, its target range, its unit and
/// how it is measured.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The metric's name (Table 4's).
    pub name: &'static str,
    /// Lowest value in range (`None`: the table states only an upper bound).
    pub min: Option<f64>,
    /// Highest value in range.
    pub max: f64,
    /// What it counts.
    pub unit: Unit,
    /// What the range protects (Table 4's "Function" column).
    pub purpose: &'static str,
    /// How it is measured (see the module docs).
    pub measure: fn(&Inputs<'_>) -> Measured,
}

/// The eight metrics of seed 002 §5.1, Table 4, in the table's order, with their target
/// ranges: the one home of these numbers.
pub const TABLE_4: [Target; 8] = [
    Target {
        name: "avg_nodes_fired_per_query",
        min: Some(1.0),
        max: 2.0,
        unit: Unit::Count,
        purpose: "Cost/coverage tradeoff",
        measure: avg_nodes_fired,
    },
    Target {
        name: "cross_file_edge_pct",
        min: Some(0.0),
        max: 0.15,
        unit: Unit::Fraction,
        purpose: "Specialization with bridges",
        measure: |i| edge_share(i, i.health.cross_file_edge_pct),
    },
    Target {
        name: "dormant_pct",
        min: Some(0.70),
        max: 0.95,
        unit: Unit::Fraction,
        purpose: "Noise suppression",
        measure: |i| edge_share(i, i.health.dormant_pct),
    },
    Target {
        name: "reflex_pct",
        min: Some(0.0),
        max: 0.10,
        unit: Unit::Fraction,
        purpose: "Safety against over-automation",
        measure: |i| edge_share(i, i.health.reflex_pct),
    },
    Target {
        name: "context_compression",
        min: None,
        max: 0.20,
        unit: Unit::Fraction,
        purpose: "Bounded tokens per query",
        measure: context_compression,
    },
    Target {
        name: "proto_promotion_rate",
        min: Some(0.0),
        max: 0.50,
        unit: Unit::Fraction,
        purpose: "Discovery without churn",
        measure: proto_promotion_rate,
    },
    Target {
        name: "reconvergence_rate",
        min: Some(0.0),
        max: 0.0,
        unit: Unit::Fraction,
        purpose: "Avoid sibling collapse",
        measure: reconvergence_rate,
    },
    Target {
        name: "orphan_nodes",
        min: Some(0.0),
        max: 0.0,
        unit: Unit::Count,
        purpose: "Full reachability",
        measure: |i| Ok(i.health.orphan_nodes as f64),
    },
];

/// Where a value stands against its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Inside the range.
    Ok,
    /// Below it.
    Low,
    /// Above it.
    High,
    /// Nothing to measure yet.
    NotComputable,
}

impl Status {
    /// `ok` / `low` / `high` / `n/a`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Low => "low",
            Status::High => "high",
            Status::NotComputable => "n/a",
        }
    }

    /// Whether the value is outside its range.
    pub fn out_of_range(self) -> bool {
        matches!(self, Status::Low | Status::High)
    }
}

/// One metric as measured.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Its row of [`TABLE_4`].
    pub target: &'static Target,
    /// The value (`None`: not computable yet, see `reason`).
    pub value: Option<f64>,
    /// Why there is no value.
    pub reason: Option<&'static str>,
}

impl Metric {
    /// Where the value stands against the target range.
    pub fn status(&self) -> Status {
        let t = self.target;
        match self.value {
            None => Status::NotComputable,
            Some(v) if t.min.is_some_and(|m| v < m) => Status::Low,
            Some(v) if v > t.max => Status::High,
            Some(_) => Status::Ok,
        }
    }
}

/// The eight metrics of a brain (see the module docs).
#[derive(Debug, Clone)]
pub struct HealthReport {
    /// The window asked for: at most this many of the newest queries.
    pub window: usize,
    /// The queries the window holds (fewer when the journal has fewer).
    pub queries: usize,
    /// Nodes of the graph.
    pub nodes: usize,
    /// Stored edges (dangling ones included, as [`measure_health`] counts them).
    pub edges: usize,
    /// The edge tiers, cross-file share and orphans the graph's metrics come from (the
    /// reference's `health` payload and journal event are made of these).
    pub tiers: GraphHealth,
    /// The metrics, in [`TABLE_4`]'s order.
    pub metrics: Vec<Metric>,
    /// The auto nodes neurogenesis made (issue 31 item 1: `health` counts probationary,
    /// promoted and dead ones); all 0 for a state file or a brain without them.
    pub auto_nodes: NeurogenesisCounts,
}

impl HealthReport {
    /// The metric named `name` (a [`TABLE_4`] name).
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.target.name == name)
    }

    /// The value of the metric named `name` (`None`: unknown name or not computable).
    pub fn value(&self, name: &str) -> Option<f64> {
        self.metric(name).and_then(|m| m.value)
    }

    /// The names of the metrics out of their ranges, in table order.
    pub fn out_of_range(&self) -> Vec<&'static str> {
        self.metrics
            .iter()
            .filter(|m| m.status().out_of_range())
            .map(|m| m.target.name)
            .collect()
    }

    /// The report as JSON, what `crabpath health --json` prints and the MCP `health`
    /// tool returns: `{window, queries, nodes, edges, habitual_pct, metrics: {<name>:
    /// {value, unit, min, max, status, reason}}, out_of_range: [names], auto_nodes:
    /// {probation, permanent, dead}}`, metrics in
    /// table order (`habitual_pct`, the tier Table 4 leaves out, is `null` without
    /// edges).
    pub fn to_json(&self) -> Value {
        let mut metrics = Map::new();
        for m in &self.metrics {
            let t = m.target;
            metrics.insert(
                t.name.into(),
                json!({
                    "value": m.value,
                    "unit": t.unit.as_str(),
                    "min": t.min,
                    "max": t.max,
                    "status": m.status().as_str(),
                    "reason": m.reason,
                }),
            );
        }
        json!({
            "window": self.window,
            "queries": self.queries,
            "nodes": self.nodes,
            "edges": self.edges,
            "habitual_pct": (self.edges > 0).then_some(self.tiers.habitual_pct),
            "metrics": metrics,
            "out_of_range": self.out_of_range(),
            "auto_nodes": self.auto_nodes,
        })
    }
}

/// What the journal's window holds, oldest first: the fired ids of its queries and its
/// neurogenesis events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalWindow {
    /// Each query's fired ids, in fired order.
    pub queries: Vec<Vec<String>>,
    /// Each neurogenesis event: (`event`, `node`).
    pub neurogenesis: Vec<(String, String)>,
}

impl JournalWindow {
    /// The window of at most `window` queries of journal lines given newest first
    /// (see the module docs). Cost: parses the lines up to the oldest query kept.
    pub fn from_newest_first<'l>(window: usize, lines: impl IntoIterator<Item = &'l str>) -> Self {
        let mut reader = WindowReader::new(window);
        for line in lines {
            if !reader.take(line) {
                break;
            }
        }
        reader.finish()
    }
}

/// Builds a [`JournalWindow`] from lines handed to it newest first.
struct WindowReader {
    window: usize,
    newest_first: JournalWindow,
}

impl WindowReader {
    fn new(window: usize) -> Self {
        WindowReader {
            window,
            newest_first: JournalWindow::default(),
        }
    }

    /// Takes the next (older) line; `false` once the window is full.
    fn take(&mut self, line: &str) -> bool {
        let w = &mut self.newest_first;
        if w.queries.len() >= self.window {
            return false;
        }
        let Ok(Value::Object(e)) = serde_json::from_str::<Value>(line) else {
            return true;
        };
        let text = |k: &str| e.get(k).and_then(Value::as_str);
        match text("type") {
            Some("query") => {
                if let Some(Value::Array(fired)) = e.get("fired") {
                    let ids = fired.iter().filter_map(Value::as_str).map(String::from);
                    w.queries.push(ids.collect());
                }
            }
            Some(NEUROGENESIS) => {
                if let (Some(event), Some(node)) = (text("event"), text("node")) {
                    w.neurogenesis.push((event.to_string(), node.to_string()));
                }
            }
            _ => {}
        }
        w.queries.len() < self.window
    }

    fn finish(mut self) -> JournalWindow {
        self.newest_first.queries.reverse();
        self.newest_first.neurogenesis.reverse();
        self.newest_first
    }
}

/// Measures the eight metrics of `graph` and the journal's `window` (`asked`: the
/// window's size in queries). Cost: O(nodes + edges) for the graph, plus the fired ids
/// of the window and one pass over all node texts (context compression).
pub fn measure(graph: &Graph, window: &JournalWindow, asked: usize) -> HealthReport {
    let health = measure_health(graph);
    let inputs = Inputs {
        graph,
        health: &health,
        window,
    };
    let metrics = TABLE_4
        .iter()
        .map(|t| {
            let (value, reason) = match (t.measure)(&inputs) {
                Ok(v) => (Some(v), None),
                Err(why) => (None, Some(why)),
            };
            Metric {
                target: t,
                value,
                reason,
            }
        })
        .collect();
    HealthReport {
        window: asked,
        queries: window.queries.len(),
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        tiers: health,
        metrics,
        auto_nodes: NeurogenesisCounts::default(),
    }
}

const NO_QUERIES: &str = "no queries yet";

fn avg_nodes_fired(i: &Inputs<'_>) -> Measured {
    let q = &i.window.queries;
    if q.is_empty() {
        return Err(NO_QUERIES);
    }
    let fired: usize = q.iter().map(Vec::len).sum();
    Ok(fired as f64 / q.len() as f64)
}

fn edge_share(i: &Inputs<'_>, share: f64) -> Measured {
    if i.graph.edge_count() == 0 {
        return Err("no edges yet");
    }
    Ok(share)
}

fn context_compression(i: &Inputs<'_>) -> Measured {
    let q = &i.window.queries;
    if q.is_empty() {
        return Err(NO_QUERIES);
    }
    let g = i.graph;
    let total: usize = g.nodes().map(|(_, n)| n.content_chars()).sum();
    if total == 0 {
        return Err("the nodes hold no text yet");
    }
    // a fired node deleted since counts no characters
    let chars = |id: &String| g.get_node(id).map_or(0, |n| n.content_chars());
    let loaded: usize = q.iter().flatten().map(chars).sum();
    Ok(loaded as f64 / q.len() as f64 / total as f64)
}

fn proto_promotion_rate(i: &Inputs<'_>) -> Measured {
    let mut born: FxHashSet<&str> = FxHashSet::default();
    let mut promoted: FxHashSet<&str> = FxHashSet::default();
    for (event, node) in &i.window.neurogenesis {
        match event.as_str() {
            "born" => {
                born.insert(node.as_str());
            }
            "promoted" if born.contains(node.as_str()) => {
                promoted.insert(node.as_str());
            }
            _ => {}
        }
    }
    if born.is_empty() {
        return Err("no auto node born in the window yet");
    }
    Ok(promoted.len() as f64 / born.len() as f64)
}

fn reconvergence_rate(i: &Inputs<'_>) -> Measured {
    let g = i.graph;
    // per file: whether every edge between two of its chunks is at the threshold
    let mut families: FxHashMap<&str, bool> = FxHashMap::default();
    for (s, t, e) in g.edges() {
        if s == t {
            continue;
        }
        let file = |n| g.node(n).and_then(|n| n.file());
        let (Some(a), Some(b)) = (file(s), file(t)) else {
            continue;
        };
        if a == b {
            let all = families.entry(a).or_insert(true);
            *all &= e.weight >= RECONVERGE_WEIGHT;
        }
    }
    if families.is_empty() {
        return Err("no file has two linked chunks yet");
    }
    let collapsed = families.values().filter(|&&all| all).count();
    Ok(collapsed as f64 / families.len() as f64)
}

impl Brain {
    /// The eight health metrics of seed 002 §5.1, Table 4, over the graph and the last
    /// `window` queries of the journal (see the module docs; issue 31, item 2).
    ///
    /// Errors: a window of 0 queries; reading the brain or its journal.
    pub fn health_report(&mut self, window: usize) -> Result<HealthReport> {
        if window == 0 {
            return Err(Error::Invalid(
                "the health window must be at least 1 query".into(),
            ));
        }
        let journal = self.journal_window(window)?;
        let mut report = self.read(|g, _| measure(g, &journal, window))?;
        report.auto_nodes = self.neurogenesis_counts()?;
        Ok(report)
    }

    /// The journal's window of `window` queries: a database reads its newest entries
    /// only; a state file's `journal.jsonl` is read whole.
    fn journal_window(&mut self, window: usize) -> Result<JournalWindow> {
        let mut reader = WindowReader::new(window);
        if let Backend::Store(s) = &self.backend {
            crate::store::rows::journal_newest_first(s.store.conn(), |l| reader.take(l))
                .map_err(sql_error(s.store.path()))?;
        } else {
            let journal = self.journal_entries()?;
            for e in journal.entries.iter().rev() {
                if !reader.take(&crate::reference::journal::entry_line(e)) {
                    break;
                }
            }
        }
        Ok(reader.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_seed_002_table_4() {
        let names: Vec<&str> = TABLE_4.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "avg_nodes_fired_per_query",
                "cross_file_edge_pct",
                "dormant_pct",
                "reflex_pct",
                "context_compression",
                "proto_promotion_rate",
                "reconvergence_rate",
                "orphan_nodes"
            ]
        );
        // seed 002 §5.1, Table 4: 1.0–2.0, 0–15 %, 70–95 %, 0–10 %, ≤ 20 %, 0–50 %, 0 %, 0
        let ranges: Vec<(Option<f64>, f64)> = TABLE_4.iter().map(|t| (t.min, t.max)).collect();
        assert_eq!(
            ranges,
            [
                (Some(1.0), 2.0),
                (Some(0.0), 0.15),
                (Some(0.70), 0.95),
                (Some(0.0), 0.10),
                (None, 0.20),
                (Some(0.0), 0.50),
                (Some(0.0), 0.0),
                (Some(0.0), 0.0)
            ]
        );
    }

    #[test]
    fn the_window_keeps_the_newest_queries_and_what_follows_the_oldest() {
        let lines = [
            r#"{"type": "neurogenesis", "event": "born", "node": "auto:0"}"#,
            r#"{"type": "query", "fired": ["a"]}"#,
            r#"{"type": "neurogenesis", "event": "born", "node": "auto:1"}"#,
            r#"{"type": "health", "dormant_pct": 0.5}"#,
            r#"{"type": "query", "fired": ["b", "c"]}"#,
            r#"{"type": "quer"#,
            r#"{"type": "query", "fired": ["d"]}"#,
        ];
        // newest first, window of 2: the last two queries and the entries between them
        let w = JournalWindow::from_newest_first(2, lines.iter().rev().copied());
        assert_eq!(w.queries, vec![vec!["b", "c"], vec!["d"]]);
        assert!(w.neurogenesis.is_empty());
        // window of 3: the births after the first query
        let w = JournalWindow::from_newest_first(3, lines.iter().rev().copied());
        assert_eq!(w.queries.len(), 3);
        assert_eq!(w.neurogenesis, vec![("born".into(), "auto:1".into())]);
        // more than the journal holds: all of it
        let w = JournalWindow::from_newest_first(1000, lines.iter().rev().copied());
        assert_eq!(w.queries.len(), 3);
        assert_eq!(w.neurogenesis.len(), 2);
    }

    #[test]
    fn status_follows_the_range() {
        let t = &TABLE_4[0]; // 1.0–2.0
        let m = |value| Metric {
            target: t,
            value,
            reason: None,
        };
        assert_eq!(m(Some(0.5)).status(), Status::Low);
        assert_eq!(m(Some(1.0)).status(), Status::Ok);
        assert_eq!(m(Some(2.0)).status(), Status::Ok);
        assert_eq!(m(Some(2.5)).status(), Status::High);
        assert_eq!(m(None).status(), Status::NotComputable);
        let c = Metric {
            target: &TABLE_4[4], // ≤ 20 %: no lower bound
            value: Some(0.0),
            reason: None,
        };
        assert_eq!(c.status(), Status::Ok);
    }
}
