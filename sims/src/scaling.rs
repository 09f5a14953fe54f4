//! The scaling study: scaling_analysis (reference `sims/scaling_analysis.py`, paper Table
//! 17) grown from 50 to 10^6 nodes and beyond, corrected profile — time per traversal,
//! nodes fired, the work counted by the engine ([`crabpath::TraversalStats`]) and heap
//! bytes per edge, with log-log slopes fitted against graph size.
//!
//! The 15-simulation suite keeps `scaling_analysis` at 50..2000 nodes (it runs over
//! 200 seeds); this study is a separate command, `sims scaling`, writing
//! `results/scaling/scaling.json`. Three series:
//!
//! * `scaling_analysis`: the sim's own graphs (8 forced targets per node, all edges
//!   at 0.4, correct path first) and query settings (4 hops, beam 1, habitual 0.2–0.8);
//! * `uniform8`, `powerlaw8`: the criterion benches' graphs ([`crabpath::synth`]:
//!   out-degree exactly 8 or power-law with mean 8, weights uniform in [−0.2, 1), so
//!   inhibitory, dormant and reflex edges occur) with beam 4, 3 hops.
//!
//! Unlike the sim (which starts every query at `n0000`), each query starts at a node
//! drawn uniformly at random (ChaCha8, seeded), so large graphs pay their cache misses.
//! Counted fields are deterministic for a given seed; times and heap bytes depend on
//! the machine and build and are reported, never asserted.

use std::time::Instant;

use anyhow::{ensure, Result};
use crabpath::synth::{self, Degree};
use crabpath::{Graph, NodeId, Profile, TraversalConfig, TraversalResult, Traverser};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use results::scaling::{Fit, Machine, Row, Series, Study, Timing};
use serde::Serialize;

use crate::alloc;
use crate::scenarios::{forced_graph, scaling_analysis};
use crate::stats::{loglog_slope, quantile};

/// Default graph sizes: the sim's six, then decades to 10^6.
pub const DEFAULT_SIZES: [usize; 9] = [50, 100, 250, 500, 1000, 2000, 10_000, 100_000, 1_000_000];

/// The graph family and query settings of one series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// scaling_analysis's forced-target graphs and settings (4 hops, beam 1).
    ScalingAnalysis,
    /// Out-degree exactly 8 (beam 4, 3 hops).
    Uniform8,
    /// Power-law out-degree, mean 8, capped at 1000 (beam 4, 3 hops).
    Powerlaw8,
}

impl Family {
    /// All series, in output order.
    pub const ALL: [Family; 3] = [Family::ScalingAnalysis, Family::Uniform8, Family::Powerlaw8];

    /// Series name.
    pub fn name(self) -> &'static str {
        match self {
            Family::ScalingAnalysis => "scaling_analysis",
            Family::Uniform8 => "uniform8",
            Family::Powerlaw8 => "powerlaw8",
        }
    }

    /// Parses a series name.
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    fn describe(self) -> &'static str {
        match self {
            Family::ScalingAnalysis => {
                "scaling_analysis graphs (reference `sims/scaling_analysis.py`): 8 forced targets per node, all edges 0.4, ChaCha8(seed) construction"
            }
            Family::Uniform8 => {
                "crabpath::synth::random_graph, out-degree exactly 8, weights uniform in [-0.2, 1), SplitMix64(seed)"
            }
            Family::Powerlaw8 => {
                "crabpath::synth::random_graph, power-law out-degree (mean 8, cap 1000), weights uniform in [-0.2, 1), SplitMix64(seed)"
            }
        }
    }

    /// Query settings (corrected profile switches applied).
    pub fn config(self) -> TraversalConfig {
        match self {
            Family::ScalingAnalysis => forced_graph::query_config(Profile::Corrected),
            Family::Uniform8 | Family::Powerlaw8 => {
                Profile::Corrected.adjust_traversal(TraversalConfig {
                    max_hops: 3,
                    beam_width: 4,
                    ..Default::default()
                })
            }
        }
    }

    /// The graph of `n` nodes.
    pub fn build(self, n: usize, seed: u64) -> Result<Graph> {
        Ok(match self {
            Family::ScalingAnalysis => scaling_analysis::build(Profile::Corrected, seed, n)?,
            Family::Uniform8 => synth::random_graph(n, Degree::Uniform(8), seed),
            Family::Powerlaw8 => synth::random_graph(n, Degree::PowerLaw(8), seed),
        })
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Graph sizes (nodes), ascending.
    pub sizes: Vec<usize>,
    /// Series to run.
    pub families: Vec<Family>,
    /// Timed queries per graph.
    pub queries: usize,
    /// Queries per timed batch (the timer is read once per batch).
    pub batch: usize,
    /// Untimed queries run first on each graph.
    pub warmup: usize,
    /// Seed of the graphs and of the query start nodes.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sizes: DEFAULT_SIZES.to_vec(),
            families: Family::ALL.to_vec(),
            queries: 20_000,
            batch: 100,
            warmup: 2_000,
            seed: 42,
        }
    }
}

/// The machine the timings come from: CPUs, model, load.
fn probe_machine() -> Machine {
    {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        });
        let load_average = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()));
        Machine {
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu_model,
            load_average,
        }
    }
}

/// Runs the study, calling `progress(series, nodes)` before each graph.
pub fn run(opts: &Options, mut progress: impl FnMut(Family, usize)) -> Result<Study> {
    ensure!(!opts.sizes.is_empty(), "no graph sizes given");
    ensure!(
        opts.sizes.iter().all(|&n| n >= 10),
        "graph sizes must be at least 10 nodes (the scaling_analysis graphs need 8 targets besides the node itself)"
    );
    ensure!(
        opts.sizes.windows(2).all(|w| w[0] < w[1]),
        "graph sizes must be strictly ascending"
    );
    ensure!(opts.queries > 0, "--queries must be positive");
    ensure!(
        opts.batch > 0 && opts.queries.is_multiple_of(opts.batch),
        "--queries ({}) must be a positive multiple of --batch ({})",
        opts.queries,
        opts.batch
    );
    let machine = probe_machine();
    let mut series = Vec::new();
    for &family in &opts.families {
        let mut rows = Vec::new();
        for &n in &opts.sizes {
            progress(family, n);
            rows.push(measure(family, n, opts)?);
        }
        let fit = fit(&rows);
        let cfg = family.config();
        series.push(Series {
            name: family.name().into(),
            graph: family.describe().into(),
            max_hops: cfg.max_hops,
            beam_width: cfg.beam_width,
            rows,
            fit,
        });
    }
    Ok(Study {
        study: "scaling".into(),
        profile: Profile::Corrected.as_str().into(),
        seed: opts.seed,
        queries: opts.queries,
        batch: opts.batch,
        warmup: opts.warmup,
        machine,
        series,
        notes: vec![
            "time.* and build_s are wall-clock timing fields (machine- and load-dependent); heap_bytes counts requested bytes through the sims binary's counting allocator",
            "nodes_*_mean and edges_*_mean are counted by the engine (crabpath::TraversalStats) and are deterministic for a given seed",
            "each query starts at one node drawn uniformly (ChaCha8Rng::seed_from_u64(seed), stream 1) with score 1.0",
            "time is read once per batch of queries; median/p10/p90 are over the batch means",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
    })
}

/// Builds one graph and times its queries.
fn measure(family: Family, n: usize, opts: &Options) -> Result<Row> {
    let cfg = family.config();
    let before = alloc::live_bytes();
    let start = Instant::now();
    let g = family.build(n, opts.seed)?;
    let build_s = start.elapsed().as_secs_f64();
    let heap_bytes = alloc::installed().then(|| alloc::live_bytes().saturating_sub(before));
    let edges = g.edge_count();
    let ids: Vec<NodeId> = g.node_ids().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    rng.set_stream(1);
    let starts: Vec<NodeId> = (0..opts.warmup + opts.queries)
        .map(|_| ids[rng.gen_range(0..ids.len())])
        .collect();
    let mut trav = Traverser::new();
    let mut out = TraversalResult::default();
    for &s in &starts[..opts.warmup] {
        trav.run(&g, &[(s, 1.0)], &cfg, None, "", &mut out)?;
    }
    let (mut fired, mut expanded, mut examined, mut touched) = (0usize, 0usize, 0usize, 0usize);
    let mut batch_ns = Vec::with_capacity(opts.queries / opts.batch);
    let mut total_ns = 0.0;
    for chunk in starts[opts.warmup..].chunks(opts.batch) {
        let t = Instant::now();
        for &s in chunk {
            trav.run(&g, &[(s, 1.0)], &cfg, None, "", &mut out)?;
            std::hint::black_box(&out);
        }
        let ns = t.elapsed().as_secs_f64() * 1e9;
        total_ns += ns;
        batch_ns.push(ns / chunk.len() as f64);
        // counted outside the timed region: one more (identical) traversal per query
        for &s in chunk {
            trav.run(&g, &[(s, 1.0)], &cfg, None, "", &mut out)?;
            let st = trav.stats();
            fired += out.fired.len();
            expanded += st.nodes_expanded;
            examined += st.edges_examined;
            touched += st.edges_touched();
        }
    }
    let q = opts.queries as f64;
    let median_ns = quantile(&batch_ns, 0.5).unwrap_or(f64::NAN);
    Ok(Row {
        nodes: n,
        edges,
        build_s,
        heap_bytes,
        bytes_per_edge: heap_bytes.map(|b| b as f64 / edges.max(1) as f64),
        time: Timing {
            median_ns,
            mean_ns: total_ns / q,
            p10_ns: quantile(&batch_ns, 0.1).unwrap_or(f64::NAN),
            p90_ns: quantile(&batch_ns, 0.9).unwrap_or(f64::NAN),
        },
        nodes_fired_mean: fired as f64 / q,
        nodes_expanded_mean: expanded as f64 / q,
        edges_examined_mean: examined as f64 / q,
        edges_touched_mean: touched as f64 / q,
    })
}

fn fit(rows: &[Row]) -> Fit {
    let pts = |f: &dyn Fn(&Row) -> f64, min: usize| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|r| r.nodes >= min)
            .map(|r| (r.nodes as f64, f(r)))
            .collect()
    };
    let at_1000 = rows.iter().find(|r| r.nodes == 1000);
    let largest = rows.last();
    Fit {
        time_slope: loglog_slope(&pts(&|r| r.time.median_ns, 0)),
        time_slope_from_1000: loglog_slope(&pts(&|r| r.time.median_ns, 1000)),
        work_slope: loglog_slope(&pts(&|r| r.edges_touched_mean, 0)),
        fired_slope: loglog_slope(&pts(&|r| r.nodes_fired_mean, 0)),
        time_ratio_largest_vs_1000: match (at_1000, largest) {
            (Some(a), Some(b)) if b.nodes > a.nodes => Some(b.time.median_ns / a.time.median_ns),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Options {
        Options {
            sizes: vec![50, 200, 1000],
            queries: 200,
            batch: 50,
            warmup: 10,
            ..Options::default()
        }
    }

    #[test]
    fn counted_fields_are_deterministic_and_bounded() {
        let a = run(&small(), |_, _| {}).unwrap();
        let b = run(&small(), |_, _| {}).unwrap();
        assert_eq!(a.series.len(), 3);
        for (sa, sb) in a.series.iter().zip(&b.series) {
            let cfg = Family::parse(&sa.name).unwrap().config();
            for (ra, rb) in sa.rows.iter().zip(&sb.rows) {
                assert_eq!(
                    (ra.edges, ra.nodes_fired_mean, ra.edges_touched_mean),
                    (rb.edges, rb.nodes_fired_mean, rb.edges_touched_mean),
                    "{} at {} nodes",
                    sa.name,
                    ra.nodes
                );
                // at most the seed plus beam_width new nodes per hop
                let cap = 1 + cfg.beam_width * cfg.max_hops;
                assert!(ra.nodes_fired_mean >= 1.0 && ra.nodes_fired_mean <= cap as f64);
                // the last hop's targets are never expanded
                let max_expanded = 1 + cfg.beam_width * (cfg.max_hops - 1);
                assert!(ra.nodes_expanded_mean <= max_expanded as f64);
                assert!(ra.edges_touched_mean >= ra.edges_examined_mean);
                assert!(ra.time.median_ns > 0.0);
            }
        }
        // scaling_analysis graphs: beam 1 over a graph where every node has 8 out-edges at
        // 0.4 (habitual, 0.4^4 above the fire threshold): every query runs 4 hops,
        // expanding one node of 8 edges per hop; at most 5 nodes fire (5.0 from n0000 in
        // results/reference/sims/scaling_analysis_results.json, fewer when a random start
        // walks into a cycle)
        let sa = &a.series[0];
        for r in &sa.rows {
            assert_eq!(r.edges, r.nodes * 8);
            assert_eq!(r.nodes_expanded_mean, 4.0, "at {} nodes", r.nodes);
            assert_eq!(r.edges_examined_mean, 32.0);
            assert!(r.nodes_fired_mean > 4.0 && r.nodes_fired_mean <= 5.0);
        }
    }

    #[test]
    fn bad_options_are_errors() {
        let mut o = small();
        o.sizes = vec![1000, 50];
        assert!(run(&o, |_, _| {}).is_err());
        let mut o = small();
        o.batch = 30;
        assert!(run(&o, |_, _| {}).is_err());
        let mut o = small();
        o.sizes = vec![5];
        assert!(run(&o, |_, _| {}).is_err());
    }
}
