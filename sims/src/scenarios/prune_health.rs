//! prune_health (reference `sims/prune_health.py`): training on a complete graph leaves
//! most edges dormant; pruning them restores health without breaking traversal.

use anyhow::Result;
use crabpath::maintain::prune_edges;
use crabpath::{
    apply_decay, apply_outcome, measure_health, DecayConfig, Episode, Graph, LearningConfig,
    Traverser,
};
use results::sims::prune_health::{
    BeforeAfter, Body, Doc, NotBroken, Paper, PostRecord, ReferenceClaim, TrainingRecord,
};
use results::sims::NoExtra;
use serde_json::Value;

use super::common::{add_with, edge, id, names, query_config};
use crate::claims::Verdict;
use crate::paper::extract::{int, join, pct};
use crate::paper::{self, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Profile, Simulation};

const NAME: &str = "prune_health";

/// Reference `sims/prune_health.py`.
pub struct PruneHealth;

const NODES: usize = 30;
const TRAINING: usize = 100;
const POST: usize = 20;

/// One query batch (as in reference `sims/prune_health.py`): seeds cycle through the keys;
/// traverse, learn (+1, lr 0.08), decay (half-life 10). Returns (seed, fired ids).
fn batch(
    g: &mut Graph,
    keys: &[String],
    n: usize,
    profile: Profile,
) -> Result<Vec<(String, Vec<String>)>> {
    let config = query_config(profile, 2, 5);
    let learning = profile.adjust_learning(LearningConfig {
        learning_rate: 0.08,
        ..LearningConfig::default()
    });
    let decay = DecayConfig {
        half_life: 10.0,
        min_weight: 0.01,
    };
    let mut traverser = Traverser::new();
    let mut out = Vec::with_capacity(n);
    for q in 1..=n {
        let seed = &keys[(q - 1) % keys.len()];
        let result = traverser.traverse(g, &[(id(g, seed)?, 1.0)], &config)?;
        apply_outcome(g, &Episode::from_result(&result), 1.0, &learning, None)?;
        apply_decay(g, &decay);
        out.push((seed.clone(), names(g, &result.fired)));
    }
    Ok(out)
}

fn mean_len(records: &[(String, Vec<String>)]) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    records.iter().map(|r| r.1.len()).sum::<usize>() as f64 / records.len() as f64
}

impl Simulation for PruneHealth {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.12.2",
            paper_figures: &[],
            description: "30-node complete graph, 100 decaying training queries, prune |w| < 0.05, 20 more queries",
            tables: vec![sim_table(19, "Prune-health simulation results", NAME, true, "before → after", vec![
                Row::sim(NAME, "Edges", |d| join(vec![int(d, "/edges_before_prune"), int(d, "/edges_after_prune")], " → ")),
                Row::sim(NAME, "Dormant", |d| join(vec![pct(d, "/dormant_pct_before", 1), pct(d, "/dormant_pct_after", 1)], " → ")),
            ])],
            summary: vec![],
            claims: vec![Claim { section: "6.12.2", text: "pruning removes most edges", table: 19, row: "Edges" }, Claim { section: "6.12.2", text: "pruning lowers the dormant share", table: 19, row: "Dormant" }, ],
            figures: &[NAME],
            reference_verdict: Verdict::Pass,
            reference_note: None,
        }
    }
    fn uses_rng(&self) -> bool {
        false
    }
    fn measured(&self, doc: &Value) -> String {
        let pct = |k: &str| doc.get(k).and_then(Value::as_f64).map(|x| x * 100.0);
        match (
            doc.get("edges_before_prune").and_then(Value::as_u64),
            doc.get("edges_after_prune").and_then(Value::as_u64),
            pct("dormant_pct_before"),
            pct("dormant_pct_after"),
        ) {
            (Some(eb), Some(ea), Some(db), Some(da)) => {
                format!("edges {eb} → {ea}, dormant {db:.1} % → {da:.1} %")
            }
            _ => "-".into(),
        }
    }

    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        let name = |i: usize| format!("k{i:02}");
        let mut g = Graph::new();
        for i in 0..NODES {
            add_with(
                &mut g,
                &name(i),
                format!("fully connected node {}", name(i)),
            );
        }
        for s in 0..NODES {
            for t in 0..NODES {
                if s != t {
                    edge(&mut g, &name(s), &name(t), 0.35)?;
                }
            }
        }
        let keys: Vec<String> = (0..5).map(name).collect();
        let training = batch(&mut g, &keys, TRAINING, profile)?;
        let edges_before = g.edge_count();
        let before = measure_health(&g).dormant_pct;
        prune_edges(&mut g, 0.05);
        let edges_after = g.edge_count();
        let after = measure_health(&g).dormant_pct;
        let post = batch(&mut g, &keys, POST, profile)?;
        let post_records: Vec<(usize, &String, usize, bool)> = post
            .iter()
            .enumerate()
            .map(|(i, (seed, fired))| {
                let reached = fired.iter().any(|f| f != seed && keys.contains(f));
                (i + 1, seed, fired.len(), reached)
            })
            .collect();
        let ok = post_records.iter().filter(|r| r.3).count();
        let removed = edges_before - edges_after;
        let body = Body {
            simulation: "prune_health".into(),
            query_count: TRAINING + POST,
            keys: keys.clone(),
            edges_before_prune: edges_before,
            edges_after_prune: edges_after,
            edges_removed: removed,
            dormant_pct_before: before,
            dormant_pct_after: after,
            avg_nodes_fired_after_prune: mean_len(&post),
            first_100_avg_nodes_fired: mean_len(&training),
            training_records: training
                .iter()
                .enumerate()
                .map(|(i, (seed, fired))| TrainingRecord {
                    query: i + 1,
                    seed: seed.clone(),
                    nodes_fired: fired.len(),
                    fired: fired.clone(),
                })
                .collect(),
            post_prune_records: post_records
                .iter()
                .map(|&(q, seed, n, reached)| PostRecord {
                    query: q,
                    seed: seed.clone(),
                    nodes_fired: n,
                    reached_non_seed_key: reached,
                })
                .collect(),
        };
        let claim = ReferenceClaim {
            prune_improves_health: BeforeAfter {
                before,
                after,
                met: after < before,
            },
            prune_removed_edges: BeforeAfter {
                before: edges_before,
                after: edges_after,
                met: removed > 0,
            },
            traversal_not_broken: NotBroken {
                met: ok == POST,
                queries_ok: ok,
            },
        };
        if profile == Profile::Paper {
            return document(&Paper { body, claim });
        }
        let predicates = vec![
            Predicate::new(
                "Pruning |w| < 0.05 lowers the dormant share",
                "dormant_pct_after (threshold: dormant_pct_before)",
                after,
                Cmp::Lt,
                before,
            ),
            Predicate::new(
                "Pruning removes edges",
                "edges_removed",
                removed,
                Cmp::Gt,
                0,
            ),
            Predicate::new(
                "Traversal is not broken: every post-prune query still reaches a non-seed key",
                "count of post_prune_records with reached_non_seed_key",
                ok,
                Cmp::Eq,
                POST,
            ),
        ];
        let note = format!(
            "The reference's three checks, kept. Edges {edges_before} -> {edges_after}, dormant \
             {before:?} -> {after:?}, {ok}/{POST} post-prune queries reach another key. {}",
            predicate::verdict(&predicates)
        );
        document(&Doc::new(
            body,
            seed,
            "none (deterministic scenario)",
            Some(claim),
            NoExtra {},
            predicate::Claim::all_of(
                "Pruning dormant edges restores health without breaking traversal",
                predicates,
                note,
            ),
        ))
    }
}
