//! Shared helpers of the exactness tests: the committed reference outputs, the staged
//! datasets, and a value-by-value comparison that names the first difference.

#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};

use crabpath_v2::data::{load_experiment, Experiment};
use crabpath_v2::graph::{Graph, Node};
use crabpath_v2::learning::{learn, Baselines, Credit};
use crabpath_v2::learning::{LearningOutcome, Update};
use crabpath_v2::router::ArgmaxRouter;
use crabpath_v2::router::Candidate;
use crabpath_v2::trace::LearningCall;
use crabpath_v2::traverse::Step;
use crabpath_v2::traverse::{seeds_by_name, traverse, TraversalConfig};
use crabpath_v2::EngineConfig;
use serde_json::{json, Value};

/// The ignore reason of every test that needs the staged datasets.
pub const NEEDS_DATA: &str = "needs ../shared/datasets/crabpath-v2 (or CRABPATH_DATA_DIR); run with: cargo test --workspace -- --ignored";

/// Workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/<name> sits two levels below the workspace")
        .to_path_buf()
}

/// `results/reference/v2/<rel>` (plain or `.gz`), as text.
pub fn reference_text(rel: &str) -> String {
    let base = workspace().join("results/reference/v2").join(rel);
    let gz = PathBuf::from(format!("{}.gz", base.display()));
    if gz.is_file() {
        let bytes = std::fs::read(&gz).unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
        s
    } else {
        std::fs::read_to_string(&base).unwrap_or_else(|e| {
            panic!("committed reference output {} missing: {e}", base.display())
        })
    }
}

/// A committed reference output parsed as JSON.
pub fn reference(rel: &str) -> Value {
    serde_json::from_str(&reference_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The staged data directory ([`testdata::data_dir`]).
pub fn data_dir() -> PathBuf {
    testdata::data_dir()
}

/// Loads a staged experiment, panicking with the missing file and how to get it.
pub fn experiment(name: &str) -> Experiment {
    load_experiment(&data_dir(), name).unwrap_or_else(|e| {
        panic!(
            "{e}\nThe seed-000 datasets are not committed: set CRABPATH_DATA_DIR to a directory \
             holding crabpath-v2/ (the staged copy is ../shared/datasets)"
        )
    })
}

/// Value-by-value comparison of a JSON document we produced with a reference document.
pub struct Checker {
    /// Scalars compared so far.
    pub count: usize,
}

impl Checker {
    /// A fresh checker.
    pub fn new() -> Checker {
        Checker { count: 0 }
    }

    /// Compares `got` with `expected` recursively; numbers must be equal as f64 bit
    /// patterns (an integer and a float of the same value are equal). Panics naming the
    /// first difference by its path.
    pub fn same(&mut self, path: &str, expected: &Value, got: &Value) {
        match (expected, got) {
            (Value::Object(a), Value::Object(b)) => {
                let ka: Vec<&String> = a.keys().collect();
                let kb: Vec<&String> = b.keys().collect();
                assert_eq!(ka, kb, "{path}: keys differ (expected, got)");
                for (k, v) in a {
                    self.same(&format!("{path}.{k}"), v, &b[k]);
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                assert_eq!(
                    a.len(),
                    b.len(),
                    "{path}: length differs: expected {expected}, got {got}"
                );
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    self.same(&format!("{path}[{i}]"), x, y);
                }
            }
            (Value::Number(x), Value::Number(y)) => {
                let (fx, fy) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                assert!(
                    fx.to_bits() == fy.to_bits(),
                    "{path}: expected {x}, got {y} (first differing value)"
                );
                self.count += 1;
            }
            _ => {
                assert_eq!(expected, got, "{path}: expected {expected}, got {got}");
                self.count += 1;
            }
        }
    }
}

fn cands(g: &Graph, c: &[Candidate]) -> Value {
    Value::Array(
        c.iter()
            .map(|c| json!([g.name(c.target), c.weight]))
            .collect(),
    )
}

/// A step in the traces' shape.
pub fn step_json(g: &Graph, s: &Step) -> Value {
    json!({
        "from_node": g.name(s.from),
        "to_node": g.name(s.to),
        "edge_weight": s.edge_weight,
        "tier": s.tier.as_str(),
        "candidates": cands(g, &s.candidates),
    })
}

/// Updates in the traces' shape.
pub fn updates_json(g: &Graph, u: &[Update]) -> Value {
    Value::Array(
        u.iter()
            .map(|u| json!([g.name(u.source), g.name(u.target), u.delta, u.new_weight]))
            .collect(),
    )
}

/// A learning outcome's common trace fields.
pub fn outcome_fields(g: &Graph, o: &LearningOutcome) -> (Value, Value) {
    (
        Value::Array(o.steps_applied.iter().map(|s| step_json(g, s)).collect()),
        updates_json(g, &o.updates),
    )
}

/// A weight table in the traces' shape.
pub fn weights_json(w: &[(String, String, f64, i64, i64)]) -> Value {
    Value::Array(
        w.iter()
            .map(|(s, t, w, f, k)| json!([s, t, w, f, k]))
            .collect(),
    )
}

/// A learning call of a comparison in the traces' shape.
pub fn comparison_call_json(g: &Graph, c: &LearningCall) -> Value {
    let (steps, updates) = outcome_fields(g, &c.outcome);
    json!({
        "arm": c.arm,
        "episode": c.episode,
        "episode_id": c.key,
        "reward": c.reward,
        "baseline_before": c.outcome.baseline_before,
        "baseline_after": c.outcome.baseline_after,
        "steps_applied": steps,
        "updates": updates,
        "weights_after": weights_json(&c.weights_after),
    })
}

/// Drops the keys of `v` (an object) that are not in `keep`.
pub fn only(v: &Value, keep: &[&str]) -> Value {
    let mut m = serde_json::Map::new();
    for k in keep {
        if let Some(x) = v.get(*k) {
            m.insert((*k).to_string(), x.clone());
        }
    }
    Value::Object(m)
}

/// The quirks log's learning case (Q-COUNTS, Q-DORMANT-LEARN, Q-SUM): r -> {a 0.6, b 0.5,
/// c 0.1}, one +1 episode through r -> a with `cfg`'s ties and learning rule.
pub fn dormant_episode(cfg: &EngineConfig) -> Graph {
    let mut g = Graph::new();
    for n in ["r", "a", "b", "c"] {
        g.add_node(Node::new(n, n));
    }
    for (t, w) in [("a", 0.6), ("b", 0.5), ("c", 0.1)] {
        g.add_edge("r", t, w);
    }
    let mut router = ArgmaxRouter { ties: cfg.ties };
    let tcfg = TraversalConfig {
        ties: cfg.ties,
        ..TraversalConfig::default()
    };
    let traj = traverse(&g, "q", &seeds_by_name(&g, &["r"]), &mut router, &tcfg);
    assert_eq!(traj.visit_names(&g), ["r", "a"]);
    learn(
        &mut g,
        &traj.steps,
        1.0,
        "q",
        Credit::Corrected,
        &cfg.learning,
        &mut Baselines::new(),
    );
    g
}
