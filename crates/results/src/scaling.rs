//! The scaling study (`results/scaling/scaling.json`, written by `sims scaling`):
//! scaling_analysis grown from 50 to 10^6 nodes and beyond, corrected profile — time per
//! traversal, nodes fired, the work counted by the engine and heap bytes per edge, with
//! log-log slopes fitted against graph size.

use serde::{Deserialize, Serialize};

/// Nanoseconds per traversal: statistics of the per-batch means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Median of the batch means.
    pub median_ns: f64,
    /// Mean over all timed queries.
    pub mean_ns: f64,
    /// 10th percentile of the batch means.
    pub p10_ns: f64,
    /// 90th percentile of the batch means.
    pub p90_ns: f64,
}

/// One graph size of one series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Nodes.
    pub nodes: usize,
    /// Edges.
    pub edges: usize,
    /// Seconds to build the graph (timing field).
    pub build_s: f64,
    /// Heap bytes held by the graph (requested sizes; `null` without the counting
    /// allocator). Machine-independent for one build, but not a checked field.
    pub heap_bytes: Option<usize>,
    /// `heap_bytes / edges`.
    pub bytes_per_edge: Option<f64>,
    /// Time per traversal (timing fields).
    pub time: Timing,
    /// Mean distinct nodes fired per traversal (deterministic).
    pub nodes_fired_mean: f64,
    /// Mean frontier nodes expanded per traversal (deterministic).
    pub nodes_expanded_mean: f64,
    /// Mean out-edges examined as candidates per traversal (deterministic).
    pub edges_examined_mean: f64,
    /// Mean edges touched per traversal: examined plus scanned for the inhibition
    /// index (deterministic).
    pub edges_touched_mean: f64,
}

/// Fitted log-log slopes against graph size (`y ∝ nodes^slope`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Of the median time per traversal.
    pub time_slope: Option<f64>,
    /// Of the median time, sizes ≥ 1000 only.
    pub time_slope_from_1000: Option<f64>,
    /// Of the mean edges touched (deterministic).
    pub work_slope: Option<f64>,
    /// Of the mean nodes fired (deterministic).
    pub fired_slope: Option<f64>,
    /// Median time at the largest size over the median time at 1000 nodes.
    pub time_ratio_largest_vs_1000: Option<f64>,
}

/// One series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Series name.
    pub name: String,
    /// Graph family.
    pub graph: String,
    /// Query settings.
    pub max_hops: usize,
    /// Query settings.
    pub beam_width: usize,
    /// One row per size.
    pub rows: Vec<Row>,
    /// Slopes.
    pub fit: Fit,
}

/// The whole study (`results/scaling/scaling.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// `"scaling"`.
    pub study: String,
    /// `"corrected"`.
    pub profile: String,
    /// Seed of graphs and query starts.
    pub seed: u64,
    /// Timed queries per graph.
    pub queries: usize,
    /// Queries per timed batch.
    pub batch: usize,
    /// Untimed warm-up queries per graph.
    pub warmup: usize,
    /// Where the numbers were taken (timing fields depend on it).
    pub machine: Machine,
    /// The series.
    pub series: Vec<Series>,
    /// How to read the file.
    pub notes: Vec<String>,
}

/// The machine the timings come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Logical CPUs available.
    pub cpus: usize,
    /// `model name` from /proc/cpuinfo, when readable.
    pub cpu_model: Option<String>,
    /// 1-minute load average at the start, when readable.
    pub load_average: Option<f64>,
}
