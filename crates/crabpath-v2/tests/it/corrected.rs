//! Each fix of the corrected profile (listed in the crate docs) with its before (paper
//! profile) and after (corrected profile) number.

use crate::common;

use common::*;
use crabpath_v2::deploy::deploy_sim;
use crabpath_v2::embed::KeywordIndex;
use crabpath_v2::experiments::Design;
use crabpath_v2::graph::{Graph, Node};
use crabpath_v2::learning::{learn, Baselines, Credit};
use crabpath_v2::neurogenesis::{assess_novelty, Band};
use crabpath_v2::router::ArgmaxRouter;
use crabpath_v2::runner::{compare, Arm, CompareOptions};
use crabpath_v2::traverse::{seeds_by_name, traverse, TraversalConfig};
use crabpath_v2::{EngineConfig, Scenario};
use serde_json::json;

fn both() -> [EngineConfig; 2] {
    [EngineConfig::paper(), EngineConfig::corrected()]
}

#[test]
fn weight_ties_no_longer_go_to_the_largest_id() {
    // deploy_root -> {check_tests 0.5, skip_tests 0.5, ...}: the reference's router takes
    // skip_tests because "s" > "c" (reference `crabpath/router.py` fallback, 11781e3; quirks log Q-TIE); the corrected one the edge added
    // first, check_tests.
    let g = Design::DeployPipeline.task().graph;
    let first_hop = |cfg: &EngineConfig| {
        let mut r = ArgmaxRouter { ties: cfg.ties };
        let tcfg = TraversalConfig {
            max_hops: 4,
            ties: cfg.ties,
            ..TraversalConfig::default()
        };
        traverse(&g, "q", &seeds_by_name(&g, &["deploy_root"]), &mut r, &tcfg).visit_names(&g)
    };
    let [paper, fixed] = both();
    assert_eq!(
        first_hop(&paper),
        ["deploy_root", "skip_tests", "deploy_prod", "rollback"]
    );
    assert_eq!(
        first_hop(&fixed),
        [
            "deploy_root",
            "check_tests",
            "check_ci",
            "deploy_staging",
            "deploy_prod"
        ]
    );
}

#[test]
fn dormant_edges_are_no_longer_learned_and_counts_follow_decisions() {
    let [paper, fixed] = both();
    let w = |g: &Graph, t| g.edge_by_name("r", t).unwrap().clone();
    let before = dormant_episode(&paper);
    assert_eq!((w(&before, "c").weight * 1e6).round() / 1e6, 0.087924);
    let counts = |g: &Graph| {
        ["a", "b", "c"]
            .map(|t| (w(g, t).follow_count, w(g, t).skip_count))
            .to_vec()
    };
    assert_eq!(counts(&before), [(1, 0), (1, 0), (1, 0)]);
    let after = dormant_episode(&fixed);
    assert_eq!(w(&after, "c").weight, 0.1);
    assert_eq!(counts(&after), [(1, 0), (0, 1), (0, 0)]);
    // The followed edge still gains and the other option loses, with τ = 0.2:
    // p(a) = 1 / (1 + e^(-0.5)) = 0.6225, Δa = 0.05 · 0.3775 / 0.2 = 0.0944.
    assert!(
        (w(&after, "a").weight - (0.6 + 0.05 * (1.0 - 1.0 / (1.0 + (-0.5f64).exp())) / 0.2)).abs()
            < 1e-12
    );
    assert!((w(&after, "a").weight + w(&after, "b").weight - 1.1).abs() < 1e-12);
}

#[test]
fn calls_without_steps_leave_the_baseline_alone() {
    // Quirks log Q-BASELINE: 3 empty calls -> 0.1426250000000001 (paper) vs 0.0.
    for (cfg, expected) in both().iter().zip([0.1426250000000001, 0.0]) {
        let mut g = Graph::new();
        let mut b = Baselines::new();
        let mut last = 0.0;
        for _ in 0..3 {
            last = learn(
                &mut g,
                &[],
                1.0,
                "same query",
                Credit::Corrected,
                &cfg.learning,
                &mut b,
            )
            .baseline_after;
        }
        assert_eq!(last, expected);
    }
}

/// A small keyword-seeded graph of our own: the query reaches `entry`, which has two
/// habitual options; the scenario repeats one query.
fn tiny() -> (Graph, Vec<Scenario>) {
    let mut g = Graph::new();
    g.add_node(Node::new("entry", "deploy entry"));
    g.add_node(Node::new("safe", "run the tests first"));
    g.add_node(Node::new("risky", "skip the tests"));
    g.add_edge("entry", "safe", 0.5);
    g.add_edge("entry", "risky", 0.6);
    let s = Scenario {
        query: "deploy entry".into(),
        reward: 1.0,
        expected_answer_fragments: vec!["tests first".into()],
    };
    (g, vec![s.clone(), s])
}

#[test]
fn arms_no_longer_share_a_baseline_table() {
    // Q-ARM-LEAK: the reference's myopic arm starts with the baseline the corrected arm
    // left (0.05 after one +1 episode is 0.05, after two 0.0975).
    let (g, s) = tiny();
    let first_myopic_baseline = |cfg: EngineConfig| {
        let opts = CompareOptions {
            config: cfg,
            ..CompareOptions::default()
        };
        let run = compare(&g, "tiny", &s, &opts);
        run.learning_calls
            .iter()
            .find(|c| c.arm == Arm::CrabpathMyopic.as_str())
            .unwrap()
            .outcome
            .baseline_before
    };
    let [paper, fixed] = both();
    assert_eq!(first_myopic_baseline(paper), 0.09750000000000009);
    assert_eq!(first_myopic_baseline(fixed), 0.0);
}

#[test]
fn rewards_come_from_what_was_retrieved() {
    // Q-REWARD-SCRIPTED: the scenario rewards +1 although the walk loads the risky node;
    // the corrected runner rewards -1 (the expected "tests first" was not loaded), which
    // moves the walk to the safe node in the second episode.
    let (g, s) = tiny();
    let visits = |cfg: EngineConfig| {
        let opts = CompareOptions {
            config: cfg,
            ..CompareOptions::default()
        };
        let r = compare(&g, "tiny", &s, &opts).result;
        let arm = r.arm(Arm::CrabpathCorrected).unwrap();
        (
            arm.episodes
                .iter()
                .map(|e| e.visit_order.clone().unwrap().join(">"))
                .collect::<Vec<_>>(),
            arm.accuracy,
        )
    };
    let [paper, fixed] = both();
    assert_eq!(
        visits(paper),
        (vec!["entry>risky".to_string(), "entry>risky".into()], 0.0)
    );
    assert_eq!(
        visits(fixed),
        (vec!["entry>risky".to_string(), "entry>safe".into()], 0.5)
    );
}

#[test]
fn the_temperature_is_used() {
    // Q-TEMP: deploy simulation, episode 1 (+1 through check_tests). Paper (τ = 1, all
    // four root edges in the softmax): w(check_tests) 0.536254150067188 (results/reference/v2/e752b95/run_deploy_sim.stdout.log
    // prints 0.536; the full value is in traces/deploy_sim_corrected.trace.json.gz).
    // Corrected (τ = 0.2 over the beam of three habitual options, check_tests first).
    let scenario = vec![Scenario {
        query: "Deploy the latest changes to production".into(),
        reward: 1.0,
        expected_answer_fragments: vec![],
    }];
    let w = |cfg: &EngineConfig| {
        let mut g = Design::DeployPipeline.task().graph;
        deploy_sim(&mut g, &scenario, cfg, Credit::Corrected, false).episodes[0].w_check_tests
    };
    let [paper, fixed] = both();
    assert_eq!(w(&paper), 0.536254150067188);
    let p_check = 1.0 / (1.0 + 1.0 + (-1.0f64).exp());
    let expected = 0.5 + 0.05 * (1.0 - p_check) / 0.2;
    assert!((w(&fixed) - expected).abs() < 1e-12, "{}", w(&fixed));
    assert_eq!((w(&fixed) * 1e4).round() / 1e4, 0.6444);
}

#[test]
fn the_novelty_gate_has_no_dead_band_and_blocked_phrases_are_reachable() {
    let [paper, fixed] = both();
    let q = "giraffe codeword sequence";
    assert_eq!(
        assess_novelty(q, Some(0.59), &paper.novelty).band,
        Band::NoveltyMiss
    );
    assert_eq!(
        assess_novelty(q, Some(0.59), &fixed.novelty).band,
        Band::Novel
    );
    assert_eq!(
        assess_novelty("hello", None, &paper.novelty).reason,
        Some("too_few_tokens")
    );
    assert_eq!(
        assess_novelty("hello", None, &fixed.novelty).reason,
        Some("blocked_phrase")
    );
}

#[test]
#[ignore = "needs ../shared/datasets/crabpath-v2 (or CRABPATH_DATA_DIR); run with: cargo test --workspace -- --ignored"]
fn gate_bloat_query_nodes_are_no_longer_zero_vectors() {
    // Q-VOCAB: the 20 gate-bloat query nodes (summary "query entry") embed to zero.
    let exp = experiment("gate_bloat");
    let zeros = |cfg: &EngineConfig| {
        KeywordIndex::build(&exp.graph, cfg.vocabulary)
            .vectors()
            .iter()
            .filter(|(_, v)| v.is_zero())
            .count()
    };
    let [paper, fixed] = both();
    assert_eq!(zeros(&paper), 20);
    assert_eq!(zeros(&fixed), 0);
}

#[test]
#[ignore = "needs ../shared/datasets/crabpath-v2 (or CRABPATH_DATA_DIR); run with: cargo test --workspace -- --ignored"]
fn corrected_profile_on_the_eight_experiments() {
    // The corrected profile's four-arm numbers (arg-max routing) next to the paper's.
    let mut rows = Vec::new();
    for name in crabpath_v2::data::EXPERIMENTS {
        let exp = experiment(name);
        let acc = |cfg: EngineConfig| {
            let opts = CompareOptions {
                config: cfg,
                ..CompareOptions::default()
            };
            let r = compare(&exp.graph, name, &exp.scenarios, &opts).result;
            [Arm::CrabpathCorrected, Arm::CrabpathMyopic]
                .map(|a| (r.arm(a).unwrap().avg_tokens, r.arm(a).unwrap().accuracy))
        };
        let [paper, fixed] = both();
        rows.push(json!({"experiment": name, "paper": acc(paper), "corrected": acc(fixed)}));
    }
    for r in &rows {
        eprintln!("{r}");
    }
    assert_eq!(rows.len(), 8);
}
