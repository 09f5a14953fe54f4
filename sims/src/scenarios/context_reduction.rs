//! context_reduction (reference `sims/context_reduction.py`, discrepancy S2).
//!
//! 30 nodes, complete digraph at 0.35; Q1 is a one-hop traversal with beam 29 from n00,
//! Q2–Q100 rotate 3–4 focused seeds with beam 2; each query learns (+1) and decays
//! (half-life 4). Measured: nodes fired per query.
//!
//! The corrected profile keeps the scenario, reports a true last-10 mean, and
//! separates the two causes of the drop: the config switch after Q1 (beam 29 → 2),
//! measured on a static graph with the same queries, and learning + decay.

use anyhow::Result;
use crabpath::{
    apply_decay, apply_outcome, DecayConfig, Edge, Episode, Graph, LearningConfig, Node, NodeId,
    Profile, TraversalConfig, Traverser,
};
use results::sims::context_reduction::{
    Body, Doc, Effects, Extra, Fired, FirstQuery, Paper, QueryPatterns, Reduction, ReferenceClaim,
};
use serde_json::Value;

use crate::claims::Verdict;
use crate::paper::extract::{fixed, int, join};
use crate::paper::{self, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Simulation};

const NAME: &str = "context_reduction";

const N: usize = 30;
const QUERIES: usize = 100;
const KEY: [&str; 5] = ["n00", "n01", "n02", "n03", "n04"];

fn build() -> Result<Graph> {
    let mut g = Graph::new();
    let ids: Vec<NodeId> = (0..N)
        .map(|i| g.add_node(Node::new(format!("n{i:02}"), format!("context node {i}"))))
        .collect();
    for &s in &ids {
        for &t in &ids {
            if s != t {
                g.add_edge(s, t, Edge::new(0.35))?;
            }
        }
    }
    Ok(g)
}

/// Seeds given at query `q` (1-based).
fn seeds_for(q: usize) -> Vec<(&'static str, f64)> {
    if q == 1 {
        return vec![(KEY[0], 1.0)];
    }
    let shift = (q - 2) % 4;
    if shift == 3 {
        vec![
            (KEY[0], 1.0),
            (KEY[1], 0.95),
            (KEY[2], 0.90),
            (KEY[3], 0.85),
        ]
    } else {
        vec![
            (KEY[shift], 1.0),
            (KEY[(shift + 1) % 4], 0.96),
            (KEY[(shift + 2) % 4], 0.92),
        ]
    }
}

/// Which parts of the per-query update run.
#[derive(Clone, Copy)]
struct Arm {
    learn: bool,
    decay: bool,
}

/// Runs the 100 queries; returns the fired lists.
fn run_arm(profile: Profile, arm: Arm) -> Result<(Graph, Vec<Vec<NodeId>>)> {
    let mut g = build()?;
    let mut trav = Traverser::new();
    let learning = profile.adjust_learning(LearningConfig::default());
    let decay = DecayConfig {
        half_life: 4.0,
        min_weight: 0.01,
    };
    let mut fired_per_query = Vec::with_capacity(QUERIES);
    for q in 1..=QUERIES {
        let beam_width = if q == 1 { 29 } else { 2 };
        let cfg = profile.adjust_traversal(TraversalConfig {
            max_hops: 1,
            beam_width,
            ..Default::default()
        });
        let seeds: Vec<(NodeId, f64)> = seeds_for(q)
            .into_iter()
            .map(|(id, s)| Ok((g.require(id)?, s)))
            .collect::<Result<_>>()?;
        let r = trav.traverse(&g, &seeds, &cfg)?;
        if arm.learn {
            apply_outcome(&mut g, &Episode::from_result(&r), 1.0, &learning, None)?;
        }
        if arm.decay {
            apply_decay(&mut g, &decay);
        }
        fired_per_query.push(r.fired);
    }
    Ok((g, fired_per_query))
}

fn mean(xs: &[usize]) -> f64 {
    xs.iter().sum::<usize>() as f64 / xs.len() as f64
}

pub fn run(profile: Profile, seed: u64) -> Result<Value> {
    let full = Arm {
        learn: true,
        decay: true,
    };
    let (g, fired) = run_arm(profile, full)?;
    let counts: Vec<usize> = fired.iter().map(Vec::len).collect();
    let names =
        |ids: &[NodeId]| -> Vec<String> { ids.iter().map(|&n| g.name(n).to_string()).collect() };
    let seed_names = |q: usize| -> Vec<String> {
        seeds_for(q)
            .into_iter()
            .map(|(id, _)| id.to_string())
            .collect()
    };
    let series: Vec<Fired> = (1..=QUERIES)
        .map(|q| Fired {
            query: q,
            seeds: seed_names(q),
            nodes_fired: counts[q - 1],
        })
        .collect();
    let first_10 = mean(&counts[..10]);
    let last_10 = mean(&counts[QUERIES - 10..]);
    let last_5 = mean(&counts[QUERIES - 5..]);

    let body = Body {
        simulation: "context_reduction".into(),
        query_count: QUERIES,
        query_patterns: QueryPatterns {
            focused_nodes: KEY.iter().map(|k| k.to_string()).collect(),
            pattern_type: "3-4 specific nodes every query".into(),
        },
        first_query: FirstQuery {
            query: 1,
            seeds: seed_names(1),
            nodes_fired: counts[0],
            fired: names(&fired[0]),
        },
        nodes_fired_series: series,
        first_10_average_fired: first_10,
        last_10_average_fired: last_10,
    };
    if profile == Profile::Paper {
        // The reference's claim: a last-5 mean under the name `to_last_10_avg`.
        let claim = ReferenceClaim {
            reduction_to_few_nodes: Reduction {
                from_query1: counts[0],
                to_last_10_avg: last_5,
                met: counts[0] >= 28 && last_5 <= 5.0,
            },
        };
        return document(&Paper { body, claim });
    }

    // Corrected: isolate the config switch (static graph: no learning, no decay) and
    // the decay alone, then attribute the rest to learning.
    let last10 = |arm: Arm| -> Result<f64> {
        let (_, f) = run_arm(profile, arm)?;
        let c: Vec<usize> = f.iter().map(Vec::len).collect();
        Ok(mean(&c[QUERIES - 10..]))
    };
    let config_only = last10(Arm {
        learn: false,
        decay: false,
    })?;
    let decay_only = last10(Arm {
        learn: false,
        decay: true,
    })?;
    let q1 = counts[0] as f64;
    let config_effect = q1 - config_only;
    let learning_effect = config_only - last_10;
    let effects = Effects {
        query1_nodes_fired: counts[0],
        last_10_average_fired_learning_and_decay: last_10,
        last_10_average_fired_config_only: config_only,
        last_10_average_fired_decay_only: decay_only,
        reduction_from_config_switch: config_effect,
        reduction_from_learning_and_decay: learning_effect,
        reduction_from_learning_beyond_decay: decay_only - last_10,
    };
    let met = learning_effect > 0.0;
    let decay_note = format!(
        " Decay alone (no outcome learning) fires {decay_only:.2} (half-life 4 snaps unused \
         edges to 0, leaving the seeds), {} than with learning.",
        if decay_only < last_10 {
            "fewer"
        } else {
            "no fewer"
        }
    );
    let mut note = if met {
        format!(
            "Q1 fires {} nodes because it alone runs with beam 29; the static-graph control \
             (same queries, no learning, no decay) already fires {config_only:.2} on average over \
             the last 10 queries, so {config_effect:.2} nodes of the drop come from the config \
             switch and {learning_effect:.2} from learning with decay (true last-10 mean, not the \
             reference's last-5 mean).",
            counts[0]
        )
    } else {
        format!(
            "FAILS: the static-graph control with the same queries (beam 2 after Q1, no \
             learning, no decay) fires {config_only:.2} nodes on average over the last 10 \
             queries versus {last_10:.2} with learning and decay, so the whole drop from {} \
             ({config_effect:.2} nodes) is the config switch after Q1, not learning.",
            counts[0]
        )
    };
    note.push_str(&decay_note);
    let claim = Predicate::new(
        "Learning (with decay) reduces the nodes fired per query beyond what the beam/hop config switch after Q1 achieves on a static graph",
        "last_10_average_fired_config_only - last_10_average_fired (true last-10 means)",
        learning_effect,
        Cmp::Gt,
        0.0,
    )
    .note(note);
    document(&Doc::new(
        body,
        seed,
        "none (deterministic scenario)",
        None,
        Extra { effects },
        predicate::Claim::one(claim),
    ))
}

/// The simulation of this module.
pub struct ContextReduction;

impl Simulation for ContextReduction {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.1",
            paper_figures: &["6"],
            description: "30-node complete graph; Q1 beam 29, then 99 focused beam-2 one-hop queries with learning and decay",
            tables: vec![sim_table(7, "Context contraction in repetitive deployment work", NAME, true, "nodes fired", vec![
                Row::sim(NAME, "Q1", |d| int(d, "/first_query/nodes_fired")),
                Row::sim(NAME, "First 10 (avg)", |d| fixed(d, "/first_10_average_fired", 1)),
                Row::sim(NAME, "Last 10 (avg)", |d| fixed(d, "/last_10_average_fired", 1)),
            ])],
            summary: vec![Row::sim(NAME, "Context reduction: nodes fired", |d| {
                join(vec![int(d, "/first_query/nodes_fired"), fixed(d, "/last_10_average_fired", 1)], " → ")
            })],
            claims: vec![Claim { section: "6.1", text: "nodes fired per query drop from the whole graph to a few (last 10 queries)", table: 7, row: "Last 10 (avg)" }, ],
            figures: &[NAME],
            reference_verdict: Verdict::Pass,
            reference_note: None,
        }
    }
    fn uses_rng(&self) -> bool {
        false
    }
    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        run(profile, seed)
    }
}
