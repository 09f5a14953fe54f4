//! structural_vs_edge_only (reference `sims/structural_vs_edge_only.py`): edge learning
//! alone vs. plus pruning vs. full structural maintenance (decay, prune, merge) on a
//! procedure with duplicate reference chunks and stale notes.

use anyhow::{Context, Result};
use crabpath::index::VectorIndex;
use crabpath::maintain::{prune_edges, run_maintenance, MaintenanceOptions};
use crabpath::state::State;
use crabpath::{
    apply_outcome, measure_health, DecayConfig, Episode, Graph, LearningConfig, Node, Traverser,
};
use indexmap::IndexMap;
use results::sims::structural_vs_edge_only::{
    Body, CurvePoint, Doc, Extra, Paper, ReferenceClaim, Strategy, TableRow,
};
use serde_json::Value;

use super::common::{edge, id, query_config};
use crate::claims::Verdict;
use crate::paper::extract::{int, num, opt, sum, thousands};
use crate::paper::{self, expected, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Profile, Simulation};

const NAME: &str = "structural_vs_edge_only";

/// The paper's summed nodes fired, edge-only and full maintenance (§6.12.3, Table 20),
/// and its difference between the two: `edge_only_nodes_fired`,
/// `full_maintenance_nodes_fired` and `change` in `results/sims/expected.json`.
fn paper_fired() -> (i64, i64, String) {
    (
        expected::fact(NAME, "edge_only_nodes_fired"),
        expected::fact(NAME, "full_maintenance_nodes_fired"),
        expected::fact(NAME, "change"),
    )
}

/// Reference `sims/structural_vs_edge_only.py`.
pub struct StructuralVsEdgeOnly;

const QUERIES: usize = 200;
const SEED: &str = "proc_00";
const STRATEGIES: [&str; 3] = ["edge_only", "edge_only_plus_prune", "full_maintain"];

fn add(g: &mut Graph, id: &str, content: String, file: &str) {
    g.add_node(Node::new(id, content).with_meta("file", file));
}

/// The base graph, in the insertion order of reference
/// `sims/structural_vs_edge_only.py`.
fn base_graph() -> Result<Graph> {
    let mut g = Graph::new();
    for i in 0..10 {
        let n = format!("proc_{i:02}");
        add(
            &mut g,
            &n,
            format!("procedural step {n} for the repeated task."),
            "procedural.md",
        );
    }
    for i in 0..15 {
        let n = format!("stale_{i:02}");
        add(
            &mut g,
            &n,
            format!("stale note {n}: outdated guidance to be suppressed."),
            "stale.md",
        );
    }
    for i in 0..5 {
        let (a, b) = (format!("ref_dup_{i:02}_a"), format!("ref_dup_{i:02}_b"));
        add(
            &mut g,
            &a,
            format!("reference chunk {i}: run prechecks, then compile, then deploy."),
            "reference.md",
        );
        add(
            &mut g,
            &b,
            format!("reference chunk {i}: execute prechecks, then compile, then deploy."),
            "reference.md",
        );
        edge(&mut g, &a, &b, 0.86)?;
        edge(&mut g, &b, &a, 0.86)?;
    }
    for i in 0..15 {
        let n = format!("ref_misc_{i:02}");
        add(
            &mut g,
            &n,
            format!("reference note {n} for optional lookups."),
            "reference.md",
        );
    }
    for i in 0..10 {
        let p = format!("proc_{i:02}");
        edge(&mut g, &p, &format!("proc_{:02}", (i + 1) % 10), 0.8)?;
        edge(&mut g, &p, &format!("ref_dup_{:02}_a", i % 5), 0.34)?;
        edge(&mut g, &p, &format!("ref_dup_{:02}_b", i % 5), 0.31)?;
        edge(&mut g, &p, &format!("stale_{:02}", i % 15), 0.03)?;
    }
    for j in 0..15 {
        let s = format!("stale_{j:02}");
        edge(&mut g, &s, &s, 0.0)?;
    }
    for i in 0..5 {
        edge(&mut g, &format!("ref_dup_{i:02}_a"), SEED, 0.1)?;
        edge(&mut g, &format!("ref_dup_{i:02}_b"), SEED, 0.1)?;
    }
    Ok(g)
}

/// `Graph.save` + `load_state`: the reference round-trips through a file, which drops
/// empty buckets and re-creates buckets in edge order.
fn reload(g: &Graph) -> Result<Graph> {
    Graph::from_file(g.to_file()).context("reloading the graph")
}

fn run_strategy(base: &Graph, strategy: &str, profile: Profile) -> Result<Strategy> {
    let mut g = reload(base)?;
    let config = query_config(profile, 4, 4);
    let learning = profile.adjust_learning(LearningConfig {
        learning_rate: 0.08,
        ..LearningConfig::default()
    });
    let maintenance = MaintenanceOptions {
        tasks: Some(vec!["decay".into(), "prune".into(), "merge".into()]),
        prune_below: 0.5,
        decay: DecayConfig {
            half_life: 12.0,
            min_weight: 0.01,
        },
        ..MaintenanceOptions::default()
    };
    let mut traverser = Traverser::new();
    let (mut fired_s, mut chars_s, mut edges_s, mut dormant_s) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut curve = Vec::new();
    let mut total = 0usize;
    for q in 1..=QUERIES {
        let seed = id(&g, SEED)?;
        let result = traverser.traverse(&g, &[(seed, 1.0)], &config)?;
        apply_outcome(&mut g, &Episode::from_result(&result), 1.0, &learning, None)?;
        let fired = result.fired.len();
        let chars = result.context(&g, None).chars().count();
        let edges = g.edge_count();
        let dormant = measure_health(&g).dormant_pct;
        total += chars;
        fired_s.push(fired);
        chars_s.push(chars);
        edges_s.push(edges);
        dormant_s.push(dormant);
        if q % 50 == 0 {
            curve.push(CurvePoint {
                query: q,
                nodes_fired: fired,
                context_chars: chars,
                edge_count: edges,
                dormant_pct: dormant,
            });
            match strategy {
                "edge_only_plus_prune" => {
                    prune_edges(&mut g, 0.05);
                }
                "full_maintain" => {
                    let mut state = State::new(reload(&g)?, VectorIndex::new());
                    run_maintenance(&mut state, &maintenance)
                        .with_context(|| format!("maintenance after query {q}"))?;
                    g = reload(&state.graph)?;
                }
                _ => {}
            }
        }
    }
    Ok(Strategy {
        final_nodes_fired: fired_s.last().copied(),
        final_context_chars: chars_s.last().copied(),
        edge_count: edges_s.last().copied(),
        dormant_pct: dormant_s.last().copied(),
        nodes_fired_series: fired_s,
        context_chars_series: chars_s,
        edge_count_series: edges_s,
        dormant_pct_series: dormant_s,
        learning_curve: curve,
        total_cost: total,
    })
}

impl Simulation for StructuralVsEdgeOnly {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.12.3",
            paper_figures: &[],
            description: "200 queries on a procedure graph: edge-only vs +prune vs full maintenance (decay, prune, merge)",
            tables: vec![sim_table(20, "Full maintenance vs edge-only over 200 queries", NAME, true, "total over 200 queries", vec![
                Row::sim(NAME, "Edge-only, summed nodes fired", |d| fired_total(d, "edge_only").map(|v| thousands(v as i64))),
                Row::sim(NAME, "Full maintenance, summed nodes fired", |d| fired_total(d, "full_maintain").map(|v| thousands(v as i64))),
                Row::sim(NAME, "Difference (nodes fired)", |d| change(fired_total(d, "edge_only"), fired_total(d, "full_maintain"))),
                Row::sim(NAME, "Edge-only, context chars (the sim's cost)", |d| int(d, "/strategies/edge_only/total_cost")),
                Row::sim(NAME, "Full maintenance, context chars", |d| int(d, "/strategies/full_maintain/total_cost")),
                Row::sim(NAME, "Difference (context chars)", |d| change(opt(d, "/strategies/edge_only/total_cost").and_then(num), opt(d, "/strategies/full_maintain/total_cost").and_then(num))),
            ])],
            summary: vec![],
            claims: vec![Claim { section: "6.12.3", text: "full maintenance is cheaper than edge-only learning (nodes fired)", table: 20, row: "Difference (nodes fired)" }, Claim { section: "6.12.3", text: "full maintenance is cheaper (context chars, the sim's metric)", table: 20, row: "Difference (context chars)" }, ],
            figures: &[NAME],
            reference_verdict: Verdict::Fail,
            reference_note: Some(
                "full_maintenance_lowest_cost compares context chars, by which full maintenance \
                 costs more than edge-only; the paper's difference is summed nodes fired \
                 (Table 20; discrepancy S5)",
            ),
        }
    }
    fn uses_rng(&self) -> bool {
        false
    }
    fn measured(&self, doc: &Value) -> String {
        let sum_fired = |s: &str| -> Option<u64> {
            doc.pointer(&format!("/strategies/{s}/nodes_fired_series"))?
                .as_array()?
                .iter()
                .map(Value::as_u64)
                .sum()
        };
        let cost = |s: &str| {
            doc.pointer(&format!("/strategies/{s}/total_cost"))
                .and_then(Value::as_u64)
        };
        match (
            sum_fired("edge_only"),
            sum_fired("full_maintain"),
            cost("edge_only"),
            cost("full_maintain"),
        ) {
            (Some(fe), Some(ff), Some(ce), Some(cf)) => {
                format!("fired Σ {fe} vs {ff}; chars {ce} vs {cf}")
            }
            _ => "-".into(),
        }
    }

    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        let base = base_graph()?;
        let mut strategies = IndexMap::new();
        for s in STRATEGIES {
            strategies.insert(s.to_string(), run_strategy(&base, s, profile)?);
        }
        let curves: IndexMap<String, Vec<CurvePoint>> = strategies
            .iter()
            .map(|(k, v)| (k.clone(), v.learning_curve.clone()))
            .collect();
        let table: Vec<TableRow> = strategies
            .iter()
            .map(|(k, v)| TableRow {
                strategy: k.clone(),
                final_nodes_fired: v.final_nodes_fired,
                final_context_chars: v.final_context_chars,
                total_cost: v.total_cost,
                dormant_pct: v.dormant_pct,
                edge_count: v.edge_count,
            })
            .collect();
        let lowest_total = strategies.values().map(|v| v.total_cost).min();
        let lowest = Some(strategies["full_maintain"].total_cost) == lowest_total;
        let sum_fired = |s: &str| -> usize { strategies[s].nodes_fired_series.iter().sum() };
        let totals_fired: IndexMap<String, usize> = STRATEGIES
            .iter()
            .map(|s| (s.to_string(), sum_fired(s)))
            .collect();
        let chars: IndexMap<String, usize> = strategies
            .iter()
            .map(|(k, v)| (k.clone(), v.total_cost))
            .collect();
        let (fe, ff) = (sum_fired("edge_only"), sum_fired("full_maintain"));
        let (ce, cf) = (chars["edge_only"], chars["full_maintain"]);
        let body = Body {
            simulation: "structural_vs_edge_only".into(),
            query_count: QUERIES,
            query_seed: SEED.into(),
            strategies,
            learning_curves: curves,
            comparison_table: table,
        };
        let claim = ReferenceClaim {
            full_maintenance_lowest_cost: lowest,
        };
        if profile == Profile::Paper {
            return document(&Paper { body, claim });
        }
        let p = Predicate::new(
            "Full structural maintenance (decay, prune, merge every 50 queries) fires fewer nodes over 200 queries than edge learning alone",
            "total_nodes_fired.full_maintain (threshold: total_nodes_fired.edge_only)",
            ff,
            Cmp::Lt,
            fe,
        );
        let pct = |a: usize, b: usize| 100.0 * (a as f64 - b as f64) / b as f64;
        let (paper_edge_only, paper_full, paper_change) = paper_fired();
        let note = format!(
            "Restated (REPRODUCE.md discrepancy S5): the paper's {paper_change} ({} -> {}) \
             compares the summed nodes fired of edge-only and full maintenance, while the reference sim \
             checked total context chars over all three strategies. The claim compares what \
             the paper compared: nodes fired {fe} (edge-only) vs {ff} (full maintenance), \
             {:+.1} %. Context chars are reported, not claimed: {ce} vs {cf} ({:+.1} %; merged \
             nodes carry both contents). {}",
            thousands(paper_edge_only),
            thousands(paper_full),
            pct(ff, fe),
            pct(cf, ce),
            if p.met { "Holds." } else { "FAILS." }
        );
        document(&Doc::new(
            body,
            seed,
            "none (deterministic scenario)",
            Some(claim),
            Extra {
                total_nodes_fired: totals_fired,
                total_context_chars_measured_not_claimed: chars,
            },
            predicate::Claim::one(p.note(note)),
        ))
    }
}

/// structural_vs_edge_only: summed nodes fired of a strategy.
fn fired_total(d: &Value, s: &str) -> Option<f64> {
    sum(d, &format!("/strategies/{s}/nodes_fired_series"))
}

/// `(b − a) / a` as a signed percentage.
fn change(a: Option<f64>, b: Option<f64>) -> Option<String> {
    let (a, b) = (a?, b?);
    (a != 0.0).then(|| format!("{:+.1} %", (b - a) / a * 100.0))
}
