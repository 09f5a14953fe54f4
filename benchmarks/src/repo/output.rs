//! The report of `bench repo`: the reference's results JSON and printed table
//! (reference `benchmarks/run_benchmark.py::main` and `_print_table`, commit 134c676).
//!
//! The JSON has the reference's keys in its order, written like Python's
//! `json.dumps(indent=2)` ([`pyformat::pyjson`], no trailing newline). Timing fields
//! (`generated_at`, `init_timing_ms.*`, `methods.*.latency_ms.*`,
//! `methods.*.per_query[*].latency_ms`) are ours; `environment.python` is `null` (no
//! Python ran) and `environment.platform` names our OS and architecture. Protocols
//! other than the paper's add keys after `methods` (`protocol`, `budget_metrics`,
//! `paired`, `verdict`) and per-method `budget_scores`; the paper protocol writes none
//! of them.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use pyformat::pyjson::{self, PyValue, Style};

use super::error::{internal, Result};

/// The four reference scores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    /// Recall of the first 3 files.
    #[serde(rename = "Recall@3")]
    pub recall_3: f64,
    /// Recall of the first 5 files.
    #[serde(rename = "Recall@5")]
    pub recall_5: f64,
    /// Relevant files among the first 3, divided by 3.
    #[serde(rename = "Precision@3")]
    pub precision_3: f64,
    /// Reciprocal rank of the first relevant file.
    #[serde(rename = "MRR")]
    pub mrr: f64,
}

impl From<[f64; 4]> for Scores {
    fn from(v: [f64; 4]) -> Self {
        Scores {
            recall_3: v[0],
            recall_5: v[1],
            precision_3: v[2],
            mrr: v[3],
        }
    }
}

impl From<&[f64]> for Scores {
    fn from(v: &[f64]) -> Self {
        let g = |i: usize| v.get(i).copied().unwrap_or(0.0);
        Scores::from([g(0), g(1), g(2), g(3)])
    }
}

/// `init_timing_ms`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct InitTiming {
    /// Milliseconds of the split.
    pub split: f64,
    /// Milliseconds of embedder construction, embedding and indexing.
    pub embed: f64,
}

/// `traversal`: the three traversal flags as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TraversalInfo {
    /// `--traverse-max-hops`.
    pub max_hops: i64,
    /// `--traverse-beam-width`.
    pub beam_width: i64,
    /// `--traverse-seed-k`.
    pub seed_k: i64,
}

/// `environment`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Environment {
    /// The Python version in the reference; `null` here.
    pub python: Option<String>,
    /// Operating system and architecture.
    pub platform: String,
    /// The reference's note, verbatim.
    pub machine_notes: &'static str,
}

impl Environment {
    /// This machine.
    pub fn current() -> Self {
        Environment {
            python: None,
            platform: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
            machine_notes: "Benchmarks are timing-sensitive and may vary across machines.",
        }
    }
}

/// `latency_ms` of a method.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
}

/// One entry of `per_query`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerQuery {
    /// The query text.
    pub query: String,
    /// `relevant` as given.
    pub relevant: Vec<PyValue>,
    /// The first 5 ranked files.
    pub predicted_files: Vec<String>,
    /// Reference scores.
    pub scores: Scores,
    /// Milliseconds.
    pub latency_ms: f64,
    /// Budget-matched scores (clean protocol).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_scores: Option<IndexMap<String, f64>>,
}

/// One method's entry of `methods`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodReport {
    /// Mean reference scores.
    pub scores: Scores,
    /// Latency percentiles.
    pub latency_ms: Latency,
    /// Per query, in query order.
    pub per_query: Vec<PerQuery>,
    /// Learning curve (`{}` for methods that do not learn).
    pub learning_curve: IndexMap<String, Scores>,
    /// Mean budget-matched scores (clean protocol).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_scores: Option<IndexMap<String, f64>>,
    /// Held-out curve of budget-matched scores (clean protocol, learning methods).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heldout_curve: Option<IndexMap<String, IndexMap<String, f64>>>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// When the run ended (UTC, Python `isoformat`).
    pub generated_at: String,
    /// The workspace (absolute, or the label given with `--workspace-label`).
    pub workspace: String,
    /// The queries path as given, normalised.
    pub query_source: String,
    /// Number of query rows.
    pub query_count: usize,
    /// Split and embedding times.
    pub init_timing_ms: InitTiming,
    /// Nodes of the split graph.
    pub graph_nodes: usize,
    /// Chunks (= nodes).
    pub chunks: usize,
    /// `hash-v1`.
    pub embedder: String,
    /// 1024.
    pub embedder_dim: usize,
    /// Traversal flags.
    pub traversal: TraversalInfo,
    /// Machine.
    pub environment: Environment,
    /// Per method, in method order.
    pub methods: IndexMap<String, MethodReport>,
    /// Protocol description (protocols other than the paper's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Value>,
    /// Paired comparisons (protocols other than the paper's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Value>,
    /// Which method wins (protocols other than the paper's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Value>,
}

impl Report {
    /// `json.dumps(report, indent=2)`.
    pub fn to_json(&self) -> Result<String> {
        pyjson::to_string_with(self, Style::PRETTY).map_err(internal)
    }
}

/// The four preamble lines (reference `main`); `split_ms`/`embed_ms` printed with 3
/// decimals.
pub fn preamble_head(workspace: &str) -> String {
    format!("Splitting workspace: {workspace}\n")
}

/// Lines 2–4 of the preamble.
pub fn preamble_tail(nodes: usize, chunks: usize, t: InitTiming) -> String {
    format!(
        "Graph nodes: {nodes} | Chunks: {chunks}\nInit timings: split={:.3}ms embed={:.3}ms\n\
         Benchmark timings are machine-dependent and vary by hardware, OS, and runtime \
         conditions.\n",
        t.split, t.embed
    )
}

/// The reference's table (`_print_table`): an empty line, the header, 62 dashes, one
/// row per method (name padded to 22, never cut; the header does not line up with the
/// values, as in the reference).
pub fn table(rows: &[(&str, Scores, Latency)]) -> String {
    let mut s = String::from(
        "\nMethod                  Recall@3 Recall@5 Precision@3 MRR    p50_ms p95_ms\n",
    );
    s.push_str(&"-".repeat(62));
    s.push('\n');
    for (name, sc, lat) in rows {
        s.push_str(&format!(
            "{name:<22} {:.3}    {:.3}     {:.3}       {:.3}  {:7.3} {:7.3}\n",
            sc.recall_3, sc.recall_5, sc.precision_3, sc.mrr, lat.p50_ms, lat.p95_ms
        ));
    }
    s
}

/// Removes what legitimately differs between two runs of the same benchmark — timing
/// (`generated_at`, `init_timing_ms`, every `latency_ms`), machine (`environment`) and
/// path (`workspace`, `query_source`) fields — leaving what must be identical. The
/// result has the shape of the reference's `results.stripped.json` files committed under
/// `results/reference/repo-bench/`.
pub fn strip_volatile(report: &mut Value) {
    if let Value::Object(top) = report {
        for k in [
            "generated_at",
            "workspace",
            "query_source",
            "init_timing_ms",
            "environment",
        ] {
            top.shift_remove(k);
        }
        if let Some(Value::Object(methods)) = top.get_mut("methods") {
            for m in methods.values_mut() {
                if let Value::Object(m) = m {
                    m.shift_remove("latency_ms");
                    if let Some(Value::Array(pq)) = m.get_mut("per_query") {
                        for q in pq {
                            if let Value::Object(q) = q {
                                q.shift_remove("latency_ms");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The printed output without what differs between runs: the workspace path of the
/// first line, the `Init timings` line, the two latency columns of the table and the
/// path after `Saved:`.
pub fn strip_volatile_stdout(stdout: &str) -> String {
    let mut out = String::new();
    for line in stdout.lines() {
        if line.starts_with("Splitting workspace: ") {
            out.push_str("Splitting workspace: <workspace>\n");
        } else if line.starts_with("Init timings: ") {
            continue;
        } else if line.starts_with("Saved: ") {
            out.push_str("Saved: <file>\n");
        } else {
            // a table row: name and four scores, then p50 and p95
            let fields: Vec<&str> = line.split_whitespace().collect();
            let is_row = fields.len() == 7 && fields[1..].iter().all(|f| f.parse::<f64>().is_ok());
            if is_row {
                let mut end = 0;
                for (i, (pos, _)) in line
                    .match_indices(|c: char| !c.is_whitespace())
                    .filter(|(pos, _)| *pos == 0 || line.as_bytes()[pos - 1] == b' ')
                    .enumerate()
                {
                    if i == 5 {
                        end = pos;
                        break;
                    }
                }
                out.push_str(line[..end].trim_end());
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
    }
    out
}

/// Reads a JSON file, gzip-compressed when its name ends in `.gz`.
pub fn read_json(path: &std::path::Path) -> Result<Value> {
    let bytes = std::fs::read(path).map_err(|e| super::error::RepoError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        use std::io::Read as _;
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_string(&mut s)
            .map_err(|e| super::error::RepoError::Io {
                path: path.to_path_buf(),
                source: e,
            })?;
        s
    } else {
        String::from_utf8(bytes).map_err(internal)?
    };
    serde_json::from_str(&text).map_err(|e| internal(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_reference_layout() {
        // rows of results/reference/repo-bench/134c676/stdout.txt
        let t = table(&[
            (
                "keyword_overlap",
                Scores::from([
                    0.23703703703703707,
                    0.4592592592592592,
                    0.1333333333333333,
                    0.272320025653359,
                ]),
                Latency {
                    p50_ms: 39.224,
                    p95_ms: 39.548,
                },
            ),
            (
                "crabpath_pg_with_replay",
                Scores::from([
                    0.23703703703703707,
                    0.4074074074074074,
                    0.1333333333333333,
                    0.2222222222222222,
                ]),
                Latency {
                    p50_ms: 73.19,
                    p95_ms: 78.983,
                },
            ),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1].len(), 74);
        assert_eq!(lines[2], "-".repeat(62));
        assert_eq!(
            lines[3],
            "keyword_overlap        0.237    0.459     0.133       0.272   39.224  39.548"
        );
        assert_eq!(
            lines[4],
            "crabpath_pg_with_replay 0.237    0.407     0.133       0.222   73.190  78.983"
        );
    }
}
