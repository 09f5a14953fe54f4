//! static_vs_learning (reference `sims/static_vs_learning.py`, discrepancy S8; paper Table 16).
//!
//! A 25-node random graph (6 targets per node, correct path task_entry → … → publish
//! inserted first) is traversed 100 times with no learning, heuristic learning or
//! policy gradient (+1 each query); measured: nodes fired, path stability, weights.
//!
//! The reference claim (static fires the fewest nodes) is vacuous: every mode fires 5
//! every query, because equal weights and insertion order already pick the correct path.
//! Corrected claim: both learning rules keep routing the full correct path (last 10).

use anyhow::Result;
use crabpath::{
    apply_outcome, apply_outcome_pg, Episode, Graph, LearningConfig, NodeId, PgArgs, Profile,
    Traverser,
};
use indexmap::IndexMap;
use results::sims::static_vs_learning::{Body, Doc, Mode as RunMode, Paper, ReferenceClaim, Runs};
use results::sims::NoExtra;
use serde_json::Value;

use super::forced_graph;
use crate::claims::Verdict;
use crate::paper::extract::{fixed, join, mean_ci, num, object_values, opt};
use crate::paper::{self, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, json_text, Metric, Simulation};

const NAME: &str = "static_vs_learning";

const QUERIES: usize = 100;
const PATH_LEN: usize = 5;
const TARGETS: usize = 6;
const WINDOW: usize = 10;
const CLAIM_MIN_RATE: f64 = 0.9;

fn ids() -> Vec<String> {
    forced_graph::node_ids(
        &["task_entry", "ingest", "transform", "verify", "publish"],
        "peer",
        20,
    )
}

/// The graph of one mode (built afresh with the same seed for each).
pub fn build(profile: Profile, seed: u64) -> Result<Graph> {
    forced_graph::build_scenario(&ids(), PATH_LEN, TARGETS, profile, seed)
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Static,
    Heuristic,
    PolicyGradient,
}

fn run_mode(profile: Profile, seed: u64, mode: Mode) -> Result<RunMode> {
    let mut g = build(profile, seed)?;
    let ids = ids();
    let path = forced_graph::path_edges(&g, &ids, PATH_LEN)?;
    let cfg = forced_graph::query_config(profile);
    let learning = profile.adjust_learning(LearningConfig {
        learning_rate: 0.1,
        ..Default::default()
    });
    let seeds = [(g.require("task_entry")?, 1.0)];
    let correct: Vec<NodeId> = path.iter().map(|p| p.2).collect();
    let mut trav = Traverser::new();
    let (mut fired, mut sigs) = (Vec::new(), Vec::new());
    for _ in 0..QUERIES {
        let r = trav.traverse(&g, &seeds, &cfg)?;
        fired.push(r.fired.len());
        sigs.push(r.steps.iter().map(|s| s.to).collect::<Vec<_>>());
        let ep = Episode::from_result(&r);
        match mode {
            Mode::Static => {}
            Mode::Heuristic => drop(apply_outcome(&mut g, &ep, 1.0, &learning, None)?),
            Mode::PolicyGradient => drop(apply_outcome_pg(
                &mut g,
                &ep,
                1.0,
                &learning,
                None,
                PgArgs::default(),
            )?),
        }
    }
    let stable = (0..=QUERIES - WINDOW)
        .find(|&i| sigs[i..i + WINDOW].iter().all(|s| *s == sigs[i]))
        .map(|i| i + 1);
    let lt5 = fired.iter().position(|&n| n < 5).map(|i| i + 1);
    let weights: IndexMap<String, f64> = path
        .iter()
        .map(|(k, a, b)| (k.clone(), g.weight(*a, *b).unwrap_or(0.0)))
        .collect();
    let name = match mode {
        Mode::Static => "static",
        Mode::Heuristic => "heuristic_learning",
        Mode::PolicyGradient => "policy_gradient_learning",
    };
    let corrected = profile == Profile::Corrected;
    let last = &sigs[QUERIES - 10..];
    let rate = last.iter().filter(|s| **s == correct).count() as f64 / last.len() as f64;
    let mut nodes = vec![path[0].1];
    nodes.extend(&correct);
    let inhibitory = forced_graph::inhibitory_among(&g, &nodes, cfg.tiers.inhibitory);
    Ok(RunMode {
        mode: name.into(),
        query_count: QUERIES,
        average_nodes_fired: fired.iter().sum::<usize>() as f64 / QUERIES as f64,
        nodes_fired_series: fired,
        converges_to_stable_path: stable.is_some(),
        queries_until_stable_path: stable,
        queries_until_nodes_fired_lt_5: lt5,
        final_correct_path_weights: weights,
        correct_path: path.iter().map(|p| p.0.clone()).collect(),
        correct_path_rate_last_10: corrected.then_some(rate),
        inhibitory_edges_among_path_nodes: corrected.then_some(inhibitory),
    })
}

pub fn run(profile: Profile, seed: u64) -> Result<Value> {
    let runs =
        [Mode::Static, Mode::Heuristic, Mode::PolicyGradient].map(|m| run_mode(profile, seed, m));
    let [s, h, pg] = runs;
    let (s, h, pg) = (s?, h?, pg?);
    let avg = |r: &RunMode| r.average_nodes_fired;
    let static_lowest = avg(&s) <= avg(&h).min(avg(&pg));
    let any_stable = [&s, &h, &pg].iter().any(|r| r.converges_to_stable_path);
    let rate = |r: &RunMode| r.correct_path_rate_last_10.unwrap_or(0.0);
    let (rh, rpg, rs) = (rate(&h), rate(&pg), rate(&s));
    let inh = |r: &RunMode| json_text(&r.inhibitory_edges_among_path_nodes);
    let (inh_h, inh_pg) = (inh(&h), inh(&pg));
    let body = Body {
        simulation: "static_vs_learning".into(),
        query_count: QUERIES,
        runs: Runs {
            static_: s,
            heuristic: h,
            policy_gradient: pg,
        },
    };
    let checks = ReferenceClaim {
        static_has_lowest_fired: static_lowest,
        any_run_converges_stable: any_stable,
    };
    if profile == Profile::Paper {
        return document(&Paper {
            body,
            claim: checks,
        });
    }
    let value = rh.min(rpg);
    let claim = Predicate::new(
        "Both learning rules (heuristic, policy gradient) keep routing the full correct path that the static graph routes: at least 90% of the last 10 queries follow it",
        "min(heuristic, policy_gradient) of runs.*.correct_path_rate_last_10",
        value,
        Cmp::Ge,
        CLAIM_MIN_RATE,
    );
    let met = claim.met;
    let note = format!(
        "The reference's static_has_lowest_fired compares equal averages (all modes fire 5 \
         every query), so it says nothing; the static graph already follows the correct \
         path because its edges are inserted first and all weights tie (discrepancy S8). \
         Restated: learning must keep that path. Last-10 full-correct-path rate: static {rs:?}, \
         heuristic {rh:?}, policy gradient {rpg:?}. {}",
        if met {
            format!(
                "Holds. (Before corrected fix 10 PG's negative sibling logits vetoed later \
                 path nodes: the claim held in 49/200 seeds.) Edges at or below the inhibitory \
                 threshold among path nodes at the end: heuristic {inh_h}, policy gradient \
                 {inh_pg}."
            )
        } else {
            format!(
                "FAILS: a learning rule stops routing the full path. Edges at or below the \
                 inhibitory threshold among path nodes at the end (since corrected fix 10 only \
                 correction edges veto; these only route around their target): heuristic {}, \
                 policy gradient {}.",
                inh_h, inh_pg
            )
        }
    );
    document(&Doc::new(
        body,
        seed,
        "ChaCha8Rng::seed_from_u64(seed), graph drawn afresh for each mode",
        Some(checks),
        NoExtra {},
        predicate::Claim::one(claim.note(note)),
    ))
}

/// The simulation of reference `sims/static_vs_learning.py`.
pub struct StaticVsLearning;

impl Simulation for StaticVsLearning {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.10",
            paper_figures: &[],
            description:
                "random 25-node graph, 100 queries each without learning, with heuristic, with PG",
            tables: vec![sim_table(
                16,
                "Static, heuristic, and true PG baselines over 100 queries",
                NAME,
                true,
                "stable path from / final path weights / avg nodes fired / queries until < 5 nodes",
                [
                    ("Static traversal", "static", "static"),
                    ("Heuristic learning", "heuristic", "heuristic"),
                    ("True PG", "policy_gradient", "pg"),
                ]
                .into_iter()
                .map(|(label, mode, metrics)| {
                    Row::sim(NAME, label, move |d| static_mode(d, mode))
                        .seeds(move |d| static_seeds(d, metrics))
                })
                .collect(),
            )],
            summary: vec![Row::sim(NAME, "Static baseline: core path weight", |d| {
                let w = |m: &str| {
                    opt(d, &format!("/runs/{m}/final_correct_path_weights"))?
                        .as_object()?
                        .values()
                        .next()
                        .and_then(num)
                        .map(|v| format!("{v:.2}"))
                };
                Some(format!(
                    "{} vs {} / {}",
                    w("static")?,
                    w("heuristic")?,
                    w("policy_gradient")?
                ))
            })
            .seeds(|d| {
                Some(format!(
                    "correct-path rate (last 10): static {}, heuristic {}, PG {}",
                    mean_ci(d, "static_correct_path_rate_last_10", 3)?,
                    mean_ci(d, "heuristic_correct_path_rate_last_10", 3)?,
                    mean_ci(d, "pg_correct_path_rate_last_10", 3)?
                ))
            })],
            claims: vec![Claim {
                section: "6.10",
                text: "learning raises the core path's weights above the static graph's",
                table: 16,
                row: "Static traversal",
            }],
            figures: &[NAME],
            reference_verdict: Verdict::Pass,
            reference_note: None,
        }
    }
    fn uses_rng(&self) -> bool {
        true
    }
    fn headline(&self) -> &'static [Metric] {
        &[
            Metric {
                name: "min_learning_correct_path_rate_last_10",
                pointer: "/claim/value",
                label: "share of last 10 queries on correct path",
                condition: "",
            },
            Metric {
                name: "heuristic_correct_path_rate_last_10",
                pointer: "/runs/heuristic/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "learning rule",
            },
            Metric {
                name: "pg_correct_path_rate_last_10",
                pointer: "/runs/policy_gradient/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "learning rule",
            },
            Metric {
                name: "static_correct_path_rate_last_10",
                pointer: "/runs/static/correct_path_rate_last_10",
                label: "share of last 10 queries on correct path",
                condition: "learning rule",
            },
            Metric {
                name: "heuristic_avg_nodes_fired",
                pointer: "/runs/heuristic/average_nodes_fired",
                label: "nodes fired per query (mean of 100 queries)",
                condition: "learning rule",
            },
            Metric {
                name: "pg_avg_nodes_fired",
                pointer: "/runs/policy_gradient/average_nodes_fired",
                label: "nodes fired per query (mean of 100 queries)",
                condition: "learning rule",
            },
        ]
    }
    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        run(profile, seed)
    }
}

/// static_vs_learning mode: `stable Q / weights / avg fired / until < 5`.
fn static_mode(d: &Value, m: &str) -> Option<String> {
    let b = format!("/runs/{m}");
    let until = match opt(d, &format!("{b}/queries_until_nodes_fired_lt_5")) {
        None => "n/a".to_string(),
        Some(v) => format!("Q{}", num(v)?),
    };
    join(
        vec![
            opt(d, &format!("{b}/queries_until_stable_path"))
                .and_then(num)
                .map(|q| format!("Q{q}")),
            object_values(d, &format!("{b}/final_correct_path_weights"), 2),
            fixed(d, &format!("{b}/average_nodes_fired"), 1),
            Some(until),
        ],
        " / ",
    )
}

/// The multi-seed metrics of static_vs_learning mode prefix `m` (`static`,
/// `heuristic`, `pg`) that exist: avg nodes fired, last-10 correct-path rate.
fn static_seeds(d: &Value, m: &str) -> Option<String> {
    let parts: Vec<String> = [
        ("avg nodes fired", format!("{m}_avg_nodes_fired"), 2),
        (
            "correct-path rate (last 10)",
            format!("{m}_correct_path_rate_last_10"),
            3,
        ),
    ]
    .iter()
    .filter_map(|(label, name, prec)| mean_ci(d, name, *prec).map(|v| format!("{label} {v}")))
    .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}
