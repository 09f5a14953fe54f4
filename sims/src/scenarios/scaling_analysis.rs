//! scaling_analysis (reference `sims/scaling_analysis.py`; REPRODUCE.md discrepancy S6;
//! paper Table 17).
//!
//! Random graphs of 50–2000 nodes (8 targets per node, correct path n0000 → … → n0004
//! inserted first) are traversed 50 times each (4 hops, beam 1, no learning); measured:
//! nodes fired and wall time per traversal. Timing fields: `avg_traversal_ms`,
//! `time_ratio`, `is_sublinear_time_growth` (and `time_loglog_slope` when corrected).
//!
//! The reference has no claim (N/A) and its only boolean is timing noise. Corrected
//! claim: the work per traversal (out-edges examined plus incoming edges scanned for
//! inhibition, counted, not timed) has a fitted log-log slope < 0.5 against graph size.

use std::time::Instant;

use anyhow::Result;
use crabpath::{Graph, NodeId, Profile, Tier, TraversalConfig, TraversalResult, Traverser};
use results::sims::scaling_analysis::{
    Body, Doc, Extra, Paper, QueryConfig, Ratio, SizeRow, Summary,
};
use serde_json::Value;

use super::forced_graph::{self, SimRng};
use crate::claims::Verdict;
use crate::paper::extract::{find, inner, mean_ci};
use crate::paper::{self, expected, sim_table, Card, Claim, Kind, Row, Table};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Metric, Simulation};

const NAME: &str = "scaling_analysis";

const SIZES: [usize; 6] = [50, 100, 250, 500, 1000, 2000];
const QUERIES: usize = 50;
const PATH_LEN: usize = 5;
const TARGETS: usize = 8;
const CLAIM_MAX_SLOPE: f64 = 0.5;

/// The graph of one size (a fresh generator per size, as the reference does).
pub fn build(profile: Profile, seed: u64, n: usize) -> Result<Graph> {
    let ids: Vec<String> = (0..n).map(|i| format!("n{i:04}")).collect();
    forced_graph::build(
        &ids,
        |id| id.to_string(),
        PATH_LEN,
        TARGETS,
        &mut SimRng::for_profile(profile, seed, 0),
    )
}

/// Work of one traversal as the core does it: every out-edge of every expanded frontier
/// node is examined, and each admissible candidate's incoming edges are scanned for
/// inhibition. With beam 1, step i is accepted at hop i + 1, so the expanded nodes are
/// the seed and the targets of the first `max_hops − 1` steps.
fn work(g: &Graph, seed: NodeId, r: &TraversalResult, cfg: &TraversalConfig) -> (usize, usize) {
    let expanded = std::iter::once(seed).chain(r.steps.iter().take(cfg.max_hops - 1).map(|s| s.to));
    let (mut out_edges, mut incoming) = (0, 0);
    for n in expanded {
        for (t, e) in g.outgoing(n) {
            out_edges += 1;
            let tier = cfg.tiers.classify(e.weight);
            if e.weight > 0.0 && matches!(tier, Tier::Reflex | Tier::Habitual) {
                incoming += g.sources_of(t).len();
            }
        }
    }
    (out_edges, incoming)
}

/// Least-squares log-log slope ([`crate::stats::loglog_slope`]); NaN when undefined.
fn loglog_slope(points: &[(f64, f64)]) -> f64 {
    crate::stats::loglog_slope(points).unwrap_or(f64::NAN)
}

/// Runs the simulation for one profile and seed (reference `sims/scaling_analysis.py`).
pub fn run(profile: Profile, seed: u64) -> Result<Value> {
    let cfg = forced_graph::query_config(profile);
    let corrected = profile == Profile::Corrected;
    let mut trav = Traverser::new();
    let (mut rows, mut times, mut works) = (Vec::new(), Vec::new(), Vec::new());
    for n in SIZES {
        let g = build(profile, seed, n)?;
        let (mut total_ms, mut fired) = (0.0, Vec::with_capacity(QUERIES));
        let mut w = (0, 0);
        for _ in 0..QUERIES {
            // Timed like the reference: the node list used to pick the seed is built
            // inside the timed region.
            let start = Instant::now();
            let nodes: Vec<NodeId> = g.node_ids().collect();
            let r = trav.traverse(&g, &[(nodes[0], 1.0)], &cfg)?;
            total_ms += start.elapsed().as_secs_f64() * 1000.0;
            fired.push(r.fired.len());
            w = work(&g, nodes[0], &r, &cfg);
        }
        let avg_ms = total_ms / QUERIES as f64;
        times.push(avg_ms);
        let row = SizeRow {
            graph_size: n,
            avg_traversal_ms: avg_ms,
            avg_nodes_fired: fired.iter().sum::<usize>() as f64 / QUERIES as f64,
            nodes_fired_min: fired.iter().min().copied(),
            nodes_fired_max: fired.iter().max().copied(),
            out_edges_examined_per_traversal: corrected.then_some(w.0),
            incoming_edges_scanned_per_traversal: corrected.then_some(w.1),
            work_per_traversal: corrected.then_some(w.0 + w.1),
        };
        works.push((w.0 + w.1) as f64);
        rows.push(row);
    }
    let ratios: Vec<Ratio> = (1..SIZES.len())
        .map(|i| Ratio {
            from: SIZES[i - 1],
            to: SIZES[i],
            size_ratio: SIZES[i] as f64 / SIZES[i - 1] as f64,
            time_ratio: times[i] / times[i - 1],
        })
        .collect();
    let sublinear =
        (1..SIZES.len()).all(|i| times[i] / times[i - 1] <= SIZES[i] as f64 / SIZES[i - 1] as f64);
    let body = Body {
        simulation: "scaling_analysis".into(),
        query_count: QUERIES,
        graph_sizes: SIZES.to_vec(),
        average_nodes_fired_by_size: rows,
        query_config: QueryConfig {
            max_hops: cfg.max_hops,
            beam_width: cfg.beam_width,
        },
        scale_vs_size: ratios,
        summary: Summary {
            is_sublinear_time_growth: sublinear,
            final_size: SIZES[SIZES.len() - 1],
        },
    };
    if !corrected {
        return document::<Paper>(&body);
    }
    let sizes = SIZES.map(|n| n as f64);
    let slope = loglog_slope(
        &sizes
            .iter()
            .copied()
            .zip(works.iter().copied())
            .collect::<Vec<_>>(),
    );
    let time_slope = loglog_slope(
        &sizes
            .iter()
            .copied()
            .zip(times.iter().copied())
            .collect::<Vec<_>>(),
    );
    let claim = Predicate::new(
        "Traversal cost does not grow with graph size: the work per traversal (out-edges examined + incoming edges scanned for inhibition) has a fitted log-log slope below 0.5 over 50..2000 nodes",
        "work_loglog_slope",
        slope,
        Cmp::Lt,
        CLAIM_MAX_SLOPE,
    );
    let met = claim.met;
    let note = format!(
        "The reference has no claim (N/A) and its is_sublinear_time_growth flips with timing \
         noise. Restated on counted work, which is deterministic: work per traversal by size \
         {works:?}, fitted slope {slope}. The reference's time grows ~linearly because its \
         inhibition check scans every source bucket (crabpath/traverse.py::_incoming_inhibition); this core scans only the target's \
         incoming edges. Wall time is reported in timing fields only (avg_traversal_ms, \
         time_ratio, time_loglog_slope), never in the claim. {}",
        if met {
            "Holds."
        } else {
            "FAILS: work grows with graph size."
        }
    );
    let finite = |x: f64| x.is_finite().then_some(x);
    document(&Doc::new(
        body,
        seed,
        "ChaCha8Rng::seed_from_u64(seed), a fresh generator per size",
        None,
        Extra {
            work_loglog_slope: finite(slope),
            time_loglog_slope: finite(time_slope),
        },
        predicate::Claim::one(claim.note(note)),
    ))
}

/// The simulation of reference `sims/scaling_analysis.py`.
pub struct ScalingAnalysis;

/// The wall-clock fields of the reference's document.
const PAPER_TIMING_FIELDS: [&str; 3] = [
    "average_nodes_fired_by_size[*].avg_traversal_ms",
    "scale_vs_size[*].time_ratio",
    "summary.is_sublinear_time_growth",
];

/// The paper profile's timing fields plus the fitted log-log slope of the times.
const CORRECTED_TIMING_FIELDS: [&str; 4] = [
    "average_nodes_fired_by_size[*].avg_traversal_ms",
    "scale_vs_size[*].time_ratio",
    "summary.is_sublinear_time_growth",
    "time_loglog_slope",
];

impl Simulation for ScalingAnalysis {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.11",
            paper_figures: &[],
            description: "random graphs of 50..2000 nodes, 50 timed 4-hop beam-1 traversals each",
            tables: vec![scaling_table()],
            summary: vec![
                Row::sim(NAME, "Scaling: time ratio 2000 vs 50 nodes", time_ratio)
                    .kind(Kind::Timing),
            ],
            claims: vec![
                Claim {
                    section: "6.11",
                    text: "nodes fired do not grow with the graph",
                    table: 17,
                    row: "2000 nodes: avg nodes fired",
                },
                Claim {
                    section: "6.11",
                    text: "traversal time growth from 50 to 2000 nodes",
                    table: 17,
                    row: "time ratio 2000 / 50",
                },
            ],
            figures: &[NAME],
            reference_verdict: Verdict::NotApplicable,
            reference_note: Some(
                "no `claim` key; summary.is_sublinear_time_growth is outside `claim` and \
                 timing-noise dependent (discrepancy S6)",
            ),
        }
    }
    fn uses_rng(&self) -> bool {
        true
    }
    /// The reference's three wall-clock fields (results/reference/sims/README.md); the
    /// corrected profile adds the fitted slope of those times.
    fn timing_fields(&self, profile: Profile) -> &'static [&'static str] {
        match profile {
            Profile::Paper => &PAPER_TIMING_FIELDS,
            Profile::Corrected => &CORRECTED_TIMING_FIELDS,
        }
    }
    fn headline(&self) -> &'static [Metric] {
        &[
            Metric {
                name: "work_loglog_slope",
                pointer: "/claim/value",
                label: "log-log slope of work per traversal vs graph size",
                condition: "",
            },
            Metric {
                name: "nodes_fired_at_2000",
                pointer: "/average_nodes_fired_by_size/5/avg_nodes_fired",
                label: "nodes fired per query (mean)",
                condition: "graph size (nodes)",
            },
        ]
    }
    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        run(profile, seed)
    }
}

/// Paper Table 17: `(graph size, ms per traversal)` on the author's machine (its
/// `paper_ms_per_traversal` in `results/sims/expected.json`).
pub fn paper_scaling_ms() -> Vec<(f64, f64)> {
    expected::fact(NAME, "paper_ms_per_traversal")
}

/// The reference program (CPython 3.11.7, 2-vCPU AMD EPYC VM): median over three
/// `run_all.py` runs of the mean ms per traversal (results/reference/sims/README.md
/// gives the setup; one run's values are in the committed reference file); its
/// `reference_ms_per_traversal` in `results/sims/expected.json`.
pub fn reference_scaling_ms() -> Vec<(f64, f64)> {
    expected::fact(NAME, "reference_ms_per_traversal")
}

/// scaling_analysis row for `size`: field formatted.
fn scaling(d: &Value, size: f64, field: &str, prec: usize) -> Option<String> {
    find(d, "/average_nodes_fired_by_size", "graph_size", size)
        .and_then(|e| inner(e, &format!("/{field}")))
        .map(|v| format!("{v:.prec$}"))
}

/// 2000-node over 50-node traversal time.
fn time_ratio(d: &Value) -> Option<String> {
    let a = find(d, "/average_nodes_fired_by_size", "graph_size", 50.0)
        .and_then(|e| inner(e, "/avg_traversal_ms"))?;
    let b = find(d, "/average_nodes_fired_by_size", "graph_size", 2000.0)
        .and_then(|e| inner(e, "/avg_traversal_ms"))?;
    (a > 0.0).then(|| format!("×{:.1}", b / a))
}

/// Table 17: nodes fired (deterministic) and ms per traversal (timing) per size.
fn scaling_table() -> Table {
    let mut rows = Vec::new();
    for (s, _) in paper_scaling_ms() {
        rows.push(
            Row::sim(NAME, &format!("{s} nodes: avg nodes fired"), move |d| {
                scaling(d, s, "avg_nodes_fired", 1)
            })
            .seeds(move |d| mean_ci(d, &format!("nodes_fired_at_{s}"), 1)),
        );
        rows.push(
            Row::sim(NAME, &format!("{s} nodes: ms per traversal"), move |d| {
                scaling(d, s, "avg_traversal_ms", 4)
            })
            .kind(Kind::Timing),
        );
    }
    rows.push(Row::sim(NAME, "time ratio 2000 / 50", time_ratio).kind(Kind::Timing));
    sim_table(
        17,
        "Scaling behavior over 50 random-graph queries each size",
        NAME,
        true,
        "value",
        rows,
    )
}
