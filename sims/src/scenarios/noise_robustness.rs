//! noise_robustness (reference `sims/noise_robustness.py`; REPRODUCE.md discrepancy S6;
//! paper Table 15).
//!
//! A 15-node random graph (7 targets per node, correct path query_node → … → ship
//! inserted first) is traversed 100 times per noise level (0–0.3); each outcome is
//! flipped to −1 with that probability before heuristic learning. Measured per level:
//! reflex reached, weights, correct-vs-distractor gap.
//!
//! The reference defines no claim (N/A). Corrected claim: with up to 20 % flipped
//! outcomes the learned graph still routes the full correct path in ≥ 90 % of the last
//! 10 queries (the rate is reported for every level).

use anyhow::Result;
use crabpath::{
    apply_outcome, Episode, Graph, LearningConfig, NodeId, Profile, TraversalResult, Traverser,
};
use indexmap::IndexMap;
use results::sims::noise_robustness::{Body, Doc, Level, Paper, TableRow};
use results::sims::NoExtra;
use serde_json::Value;

use super::forced_graph::{self, SimRng};
use crate::claims::Verdict;
use crate::paper::extract::{fixed, join, mean_ci, yes_no};
use crate::paper::{self, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, json_text, Metric, Simulation};

const NAME: &str = "noise_robustness";

const QUERIES: usize = 100;
const PATH_LEN: usize = 5;
const TARGETS: usize = 7;
const LEVELS: [f64; 4] = [0.0, 0.1, 0.2, 0.3];
/// Corrected claim: levels up to this one must keep the path.
const CLAIM_MAX_LEVEL: f64 = 0.2;
const CLAIM_MIN_RATE: f64 = 0.9;

fn ids() -> Vec<String> {
    forced_graph::node_ids(
        &["query_node", "inspect", "validate", "approve", "ship"],
        "detour",
        10,
    )
}

/// The graph of one noise level (the reference builds it afresh with the same seed).
pub fn build(profile: Profile, seed: u64) -> Result<Graph> {
    forced_graph::build_scenario(&ids(), PATH_LEN, TARGETS, profile, seed)
}

/// Whether a traversal followed exactly the 4 correct transitions.
fn on_path(r: &TraversalResult, path: &[(String, NodeId, NodeId)]) -> bool {
    r.steps.len() == path.len()
        && r.steps
            .iter()
            .zip(path)
            .all(|(s, (_, a, b))| (s.from, s.to) == (*a, *b))
}

fn run_level(profile: Profile, seed: u64, level: f64) -> Result<(Level, f64)> {
    let mut g = build(profile, seed)?;
    let ids = ids();
    let path = forced_graph::path_edges(&g, &ids, PATH_LEN)?;
    let cfg = forced_graph::query_config(profile);
    let learning = profile.adjust_learning(LearningConfig {
        learning_rate: 0.1,
        ..Default::default()
    });
    let mut noise = SimRng::for_profile(profile, seed, 1);
    let seeds = [(g.require("query_node")?, 1.0)];
    let mut trav = Traverser::new();
    let (mut fired, mut correct, mut flips) = (Vec::new(), Vec::new(), 0usize);
    let mut last_path = Vec::new();
    let mut first_flipped = false;
    for _ in 0..QUERIES {
        let r = trav.traverse(&g, &seeds, &cfg)?;
        fired.push(r.fired.len());
        correct.push(on_path(&r, &path));
        last_path = r
            .fired_names(&g)
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        let outcome = if noise.random() < level { -1.0 } else { 1.0 };
        flips += usize::from(outcome < 0.0);
        first_flipped |= fired.len() == 1 && outcome < 0.0;
        apply_outcome(&mut g, &Episode::from_result(&r), outcome, &learning, None)?;
    }
    let weights: Vec<f64> = path
        .iter()
        .map(|(_, a, b)| g.weight(*a, *b).unwrap_or(0.0))
        .collect();
    let is_correct = |s: NodeId, t: NodeId| path.iter().any(|(_, a, b)| (*a, *b) == (s, t));
    let distractors: Vec<f64> = g
        .edges()
        .filter(|&(s, t, _)| !is_correct(s, t))
        .map(|(_, _, e)| e.weight)
        .collect();
    let distractor_avg = distractors.iter().sum::<f64>() / distractors.len() as f64;
    let negative: Vec<&str> = path
        .iter()
        .zip(&weights)
        .filter(|(_, &w)| w < 0.0)
        .map(|((k, _, _), _)| k.as_str())
        .collect();
    let named: IndexMap<String, f64> = path
        .iter()
        .zip(&weights)
        .map(|((k, _, _), &w)| (k.clone(), w))
        .collect();
    let gap = weights.iter().sum::<f64>() / weights.len() as f64 - distractor_avg;
    let corrected = profile == Profile::Corrected;
    let rate = |xs: &[bool]| xs.iter().filter(|&&b| b).count() as f64 / xs.len() as f64;
    let out = Level {
        noise_rate: level,
        query_count: QUERIES,
        noise_flips: flips,
        correct_path: path.iter().map(|p| p.0.clone()).collect(),
        reaches_reflex_by_q100: weights.iter().all(|&w| w >= 0.6),
        avg_nodes_fired_last_10: fired[QUERIES - 10..].iter().sum::<usize>() as f64 / 10.0,
        final_correct_path_weights: named,
        distractor_final_avg_weight: distractor_avg,
        inhibitory_edges_on_correct_path: negative.iter().map(|k| k.to_string()).collect(),
        nodes_fired_series: fired.clone(),
        correct_path_rate_all: corrected.then(|| rate(&correct)),
        correct_path_rate_last_10: corrected.then(|| rate(&correct[QUERIES - 10..])),
        last_query_fired: corrected.then_some(last_path),
        first_outcome_flipped: corrected.then_some(first_flipped),
    };
    Ok((out, gap))
}

pub fn run(profile: Profile, seed: u64) -> Result<Value> {
    let mut results = Vec::new();
    let mut table = Vec::new();
    for level in LEVELS {
        let (r, gap) = run_level(profile, seed, level)?;
        table.push(TableRow {
            noise_rate: level,
            reaches_reflex_by_q100: r.reaches_reflex_by_q100,
            avg_nodes_fired_last_10: r.avg_nodes_fired_last_10,
            inhibitory_correct_edges: !r.inhibitory_edges_on_correct_path.is_empty(),
            correct_vs_distractor_gap: gap,
        });
        results.push(r);
    }
    let body = Body {
        simulation: "noise_robustness".into(),
        query_count: QUERIES,
        noise_levels: LEVELS.to_vec(),
        results,
        comparison_table: table,
    };
    if profile == Profile::Paper {
        return document::<Paper>(&body);
    }
    let rates: Vec<(f64, f64)> = body
        .results
        .iter()
        .map(|r| (r.noise_rate, r.correct_path_rate_last_10.unwrap_or(0.0)))
        .collect();
    let value = rates
        .iter()
        .filter(|(l, _)| *l <= CLAIM_MAX_LEVEL)
        .map(|r| r.1)
        .fold(1.0, f64::min);
    let listed = rates
        .iter()
        .map(|(l, r)| format!("{l:?}: {r:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    // each level and what its last query fired, as the JSON of the values
    let paths = body
        .results
        .iter()
        .map(|r| {
            format!(
                "{}: {}",
                json_text(&r.noise_rate),
                json_text(&r.last_query_fired)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let first = body
        .results
        .iter()
        .filter(|r| r.first_outcome_flipped == Some(true))
        .map(|r| json_text(&r.noise_rate))
        .collect::<Vec<_>>()
        .join(", ");
    let first = if first.is_empty() {
        "none".to_string()
    } else {
        first
    };
    let claim = Predicate::new(
        "With up to 20% of outcomes flipped to -1, the learned graph still routes the full correct path in at least 90% of the last 10 queries",
        "min over noise levels <= 0.2 of results[].correct_path_rate_last_10",
        value,
        Cmp::Ge,
        CLAIM_MIN_RATE,
    );
    let note = format!(
        "The reference has no claim (N/A; its 'inhibitory edge risk' column is editorial). \
         Restated as a routing check: a query counts when its 4 steps are exactly the correct \
         path. Last-10 rates by noise level: {listed}. Q100 fired by level: {paths}. Before \
         corrected fix 11 positive outcomes kept adding Hebbian increments to the skip-ahead \
         pairs of the path up to the +1 clip, where they tied the credited path and overtook \
         it at the first flip (claim held in 0/200 seeds); co-firing now stops at the middle \
         of the habitual tier. A level whose first outcome is flipped can still lose the path \
         at Q1, while every edge ties at 0.4: the outcome does not depend on the route, so the \
         detour is then rewarded as the path would have been (first outcome flipped at levels: \
         {first}). {}",
        if claim.met {
            "Holds."
        } else {
            "FAILS at some level <= 0.2."
        }
    );
    document(&Doc::new(
        body,
        seed,
        "ChaCha8Rng::seed_from_u64(seed): stream 0 builds each level's graph, stream 1 draws the noise (fresh per level, so flips are nested across levels)",
        None,
        NoExtra {},
        predicate::Claim::one(claim.note(note)),
    ))
}

/// The simulation of reference `sims/noise_robustness.py`.
pub struct NoiseRobustness;

impl Simulation for NoiseRobustness {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.9",
            paper_figures: &[],
            description: "random 15-node graph, 100 queries per noise level 0/0.1/0.2/0.3 with flipped outcomes",
            tables: vec![sim_table(15, "Noise-robustness stress results", NAME, true, "reflex by Q100 / avg nodes fired (last 10) / correct-distractor gap", vec![
                Row::sim(NAME, "0% noise", |d| noise_level(d, 0))
                    .seeds(|d| noise_seeds(d, "0_0")),
                Row::sim(NAME, "10% noise", |d| noise_level(d, 1))
                    .seeds(|d| noise_seeds(d, "0_1")),
                Row::sim(NAME, "20% noise", |d| noise_level(d, 2))
                    .seeds(|d| noise_seeds(d, "0_2")),
                Row::sim(NAME, "30% noise", |d| noise_level(d, 3))
                    .seeds(|d| noise_seeds(d, "0_3")),
            ])],
            summary: vec![Row::sim(NAME, "Noise robustness: reflex by Q100 at 0/10/20/30 %", |d| {
                join((0..4).map(|i| yes_no(d, &format!("/comparison_table/{i}/reaches_reflex_by_q100"))).collect(), ", ")
            })
            .seeds(|d| mean_ci(d, "reflex_at_0_3", 3).map(|v| format!("reflex by Q100 at 30 %: share of seeds {v}")))],
            claims: vec![Claim { section: "6.9", text: "reflex is lost only at the highest noise level", table: 15, row: "30% noise" }, ],
            figures: &[NAME],
            reference_verdict: Verdict::NotApplicable,
            reference_note: Some("no `claim` key in the JSON, no check defined (discrepancy S6)"),
        }
    }
    fn uses_rng(&self) -> bool {
        true
    }
    fn headline(&self) -> &'static [Metric] {
        &[
            Metric {
                name: "min_correct_path_rate_last_10_up_to_0_2",
                pointer: "/claim/value",
                label: "share of last 10 queries on correct path",
                condition: "",
            },
            Metric {
                name: "correct_path_rate_last_10_at_0_0",
                pointer: "/results/0/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "correct_path_rate_last_10_at_0_1",
                pointer: "/results/1/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "correct_path_rate_last_10_at_0_2",
                pointer: "/results/2/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "correct_path_rate_last_10_at_0_3",
                pointer: "/results/3/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "gap_at_0_0",
                pointer: "/comparison_table/0/correct_vs_distractor_gap",
                label: "mean correct-path − mean distractor edge weight",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "gap_at_0_3",
                pointer: "/comparison_table/3/correct_vs_distractor_gap",
                label: "mean correct-path − mean distractor edge weight",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "reflex_at_0_3",
                pointer: "/results/3/reaches_reflex_by_q100",
                label: "correct path reflex by query 100 (1 = yes)",
                condition: "noise rate (share of outcomes flipped)",
            },
            Metric {
                name: "first_outcome_flipped_at_0_2",
                pointer: "/results/2/first_outcome_flipped",
                label: "first outcome flipped (1 = yes)",
                condition: "noise rate (share of outcomes flipped)",
            },
        ]
    }
    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        run(profile, seed)
    }
}

/// noise_robustness level `i`: `reflex / last-10 fired / gap`.
fn noise_level(d: &Value, i: usize) -> Option<String> {
    let b = format!("/comparison_table/{i}");
    join(
        vec![
            yes_no(d, &format!("{b}/reaches_reflex_by_q100")),
            fixed(d, &format!("{b}/avg_nodes_fired_last_10"), 1),
            fixed(d, &format!("{b}/correct_vs_distractor_gap"), 4),
        ],
        " / ",
    )
}

/// The multi-seed metrics of noise level `level` (`0_0` … `0_3`) that exist:
/// reflex-by-Q100 share, last-10 correct-path rate, correct-distractor gap.
fn noise_seeds(d: &Value, level: &str) -> Option<String> {
    let parts: Vec<String> = [
        (
            "reflex by Q100 (share of seeds)",
            format!("reflex_at_{level}"),
            3,
        ),
        (
            "correct-path rate (last 10)",
            format!("correct_path_rate_last_10_at_{level}"),
            3,
        ),
        ("gap", format!("gap_at_{level}"), 4),
    ]
    .iter()
    .filter_map(|(label, name, prec)| mean_ci(d, name, *prec).map(|v| format!("{label} {v}")))
    .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}
