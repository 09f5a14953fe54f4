//! Paper-profile checks that need only committed files: the seed-000 §4.5 worked
//! numerics (`799419b/giraffe_worked_numerics.json`), the neurogenesis vectors
//! (`b028ad9/neurogenesis_vectors.json`) and the minimal reproductions of the quirks log
//! (`quirks/quirks_e752b95.log`).

use crate::common;

use common::*;
use crabpath_v2::graph::{Graph, Node};
use crabpath_v2::learning::{learn, Baselines, Credit, LearningConfig};
use crabpath_v2::neurogenesis::{assess_novelty, auto_id, NoveltyConfig};
use crabpath_v2::router::Candidate;
use crabpath_v2::tier::Tier;
use crabpath_v2::traverse::Step;
use serde_json::{json, Map, Value};

/// The §4.5 Giraffe example: G -> C with candidates [C 1.0, E 0.0], then C -> E with
/// candidates [E 0.0, STOP 0.0].
fn giraffe() -> (Graph, Vec<Step>) {
    let mut g = Graph::new();
    for n in ["G", "C", "E", "STOP"] {
        g.add_node(Node::new(n, n));
    }
    for (s, t, w) in [
        ("G", "C", 1.0),
        ("G", "E", 0.0),
        ("C", "E", 0.0),
        ("C", "STOP", 0.0),
    ] {
        g.add_edge(s, t, w);
    }
    let id = |n: &str| g.id(n).unwrap();
    let cand = |n: &str, w| Candidate {
        target: id(n),
        weight: w,
    };
    let step = |f: &str, t: &str, cs: Vec<Candidate>| Step {
        from: id(f),
        to: id(t),
        edge_weight: cs[0].weight,
        tier: Tier::Habitual,
        candidates: cs.clone(),
        choice_set: cs,
    };
    let steps = vec![
        step("G", "C", vec![cand("C", 1.0), cand("E", 0.0)]),
        step("C", "E", vec![cand("E", 0.0), cand("STOP", 0.0)]),
    ];
    (g, steps)
}

#[test]
fn worked_numerics_of_section_4_5() {
    let reference = reference("799419b/giraffe_worked_numerics.json");
    let cases = [
        (
            "paper_corrected_eta0.1_gamma1_z+1",
            0.1,
            1.0,
            1.0,
            Credit::Corrected,
        ),
        (
            "paper_myopic_eta0.1_gamma1_z+1 (last step only)",
            0.1,
            1.0,
            1.0,
            Credit::Myopic,
        ),
        (
            "corrected_eta0.1_gamma1_z-1",
            0.1,
            1.0,
            -1.0,
            Credit::Corrected,
        ),
        (
            "corrected_eta0.1_default_gamma0.99_z+1",
            0.1,
            0.99,
            1.0,
            Credit::Corrected,
        ),
        (
            "corrected_code_defaults_eta0.05_gamma0.99_z+1",
            0.05,
            0.99,
            1.0,
            Credit::Corrected,
        ),
    ];
    let mut c = Checker::new();
    for (key, eta, gamma, z, credit) in cases {
        let (mut g, steps) = giraffe();
        let cfg = LearningConfig {
            learning_rate: eta,
            discount: gamma,
            ..LearningConfig::default()
        };
        let out = learn(&mut g, &steps, z, key, credit, &cfg, &mut Baselines::new());
        let mut deltas = Map::new();
        // The reference reports `weight_delta`, the deltas before they are added to the
        // weights (1.0 + 0.026894142136999512 - 1.0 is 0.026894142136999477).
        for &(s, t, d) in &out.deltas {
            deltas.insert(format!("{}->{}", g.name(s), g.name(t)), json!(d));
        }
        let ours = json!({"advantages": out.advantages, "deltas": deltas});
        c.same(key, &reference[key], &ours);
    }
    assert_eq!(c.count, 9 + 18);
    // The paper's printed values are these rounded: 1 - 0.731 = 0.269, 0.1 * 0.269.
    let d = reference["paper_corrected_eta0.1_gamma1_z+1"]["deltas"]["G->C"]
        .as_f64()
        .unwrap();
    assert_eq!((d * 1e4).round() / 1e4, 0.0269);
}

#[test]
fn neurogenesis_vectors() {
    let reference = reference("b028ad9/neurogenesis_vectors.json");
    let cfg = NoveltyConfig::paper();
    let rc = &reference["config"];
    assert_eq!(rc["known_threshold"], json!(cfg.known_threshold));
    assert_eq!(rc["novel_min"], json!(cfg.novel_min));
    assert_eq!(rc["novel_max"], json!(cfg.novel_max));
    assert_eq!(rc["noise_threshold"], json!(cfg.noise_threshold));
    assert_eq!(rc["min_tokens"], json!(cfg.min_tokens));
    let mut c = Checker::new();
    for (query, id) in reference["auto_ids"].as_object().unwrap() {
        c.same(&format!("auto_ids[{query:?}]"), id, &json!(auto_id(query)));
    }
    for (i, case) in reference["gate"].as_array().unwrap().iter().enumerate() {
        let query = case["query"].as_str().unwrap();
        let n = assess_novelty(query, case["top1"].as_f64(), &cfg);
        let ours = json!({
            "query": query,
            "top1": case["top1"],
            "should_create": n.should_create,
            "top_score": n.top_score,
            "band": n.band.as_str(),
            "blocked": n.blocked,
            "reason": n.reason,
        });
        c.same(&format!("gate[{i}]"), case, &ours);
    }
    assert!(c.count >= 8 + 7 * 15, "{}", c.count);
    eprintln!("neurogenesis: {} exact checks", c.count);
}

fn counts(g: &Graph) -> Value {
    Value::Array(
        g.edges()
            .map(|e| {
                json!([
                    g.name(e.target),
                    (e.weight * 1e6).round() / 1e6,
                    e.follow_count,
                    e.skip_count
                ])
            })
            .collect(),
    )
}

#[test]
fn quirks_log_learning_reproductions() {
    // Q-COUNTS / Q-DORMANT-LEARN / Q-SUM lines of quirks/quirks_e752b95.log.
    let log = reference_text("quirks/quirks_e752b95.log");
    assert!(log.contains("[('a', 0.630091, 1, 0), ('b', 0.481985, 1, 0), ('c', 0.087924, 1, 0)]"));
    let g = dormant_episode(&crabpath_v2::EngineConfig::paper());
    assert_eq!(
        counts(&g),
        json!([
            ["a", 0.630091, 1, 0],
            ["b", 0.481985, 1, 0],
            ["c", 0.087924, 1, 0]
        ])
    );
    let sum: f64 = g.edges().map(|e| e.weight).sum();
    assert!((sum - 1.2).abs() < 1e-12, "{sum}");
}
