//! The report of a run: per-query metrics, means, curves, paired intervals, the effective
//! configuration and provenance, as one JSON file, plus gzip-compressed TREC run files and
//! qrels ([`crate::trec`]) in `runs/` beside it.
//!
//! The JSON keeps the reference program's keys with the same shapes (`dataset`,
//! `dataset_queries`, `graph_nodes`, `graph_edges`, `parameters`, `method_metrics`
//! `{method: {metric: mean}}`, `learning_curves` `{method: {"<n>": {metric: cumulative mean}}}`
//! for the learning methods and the reference metrics, `checkpoints`, `traversal`; reference
//! `benchmarks/external/run_hotpotqa.py::main`, commit 134c676) and adds:
//!
//! * `protocol`, `graph_builder`, `embedder`, `core_profile`, `graph_edges_set_by_labels`;
//! * `configuration`: `command` (the `bench run` command line that reproduces the file —
//!   `bench check` re-runs it), `dense_search` (`f64-exact` or `f32-tiled`, the arithmetic of
//!   the cosine search, [`crate::dense`]) and the core's effective `traversal` and `learning`
//!   configurations (every parameter and profile switch) and `pg_call` arguments;
//! * `evaluation`: which queries learned and which were scored;
//! * budget-matched metrics, `learning_curves_all` (every method, `[{"query": n, metric:
//!   cumulative mean}]`), paired bootstrap intervals ([`COMPARISONS`]), `metric_notes` and
//!   `method_notes`;
//! * `paired_tests`: every pair of methods on the same scored queries — permutation test,
//!   bootstrap interval, Holm-corrected p-value, effect size ([`crate::significance`]);
//! * `manifest`: what others need to rebuild the sample — the dataset file and its SHA-256
//!   as `datasets/SHA256SUMS` records it, the query ids of the stream in order (the file
//!   `query_ids_file`, shared by every report of the same rows, written even with
//!   `--no-run-files`) and their hash, the hash of the scored query ids and of the pooled
//!   document (node) ids;
//! * `files`: the run files and qrels, with the format note [`crate::trec::RUN_FORMAT`];
//! * `provenance`: program version, git commit, checksums of the file read, embedder id and
//!   weights checksum, seeds;
//! * `timings_s` and `embedding_stats` (left out with `--no-timings`).
//!
//! [`ENVIRONMENT_FIELDS`] lists, exactly, the key paths that describe the machine and the
//! moment rather than the result; every other field is deterministic.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::catalog::Dataset;
use crate::error::{Error, Result};
use crate::metrics::{self, metrics_of, Family, Judged, Metric};
use crate::plan::Plan;
use crate::run::{Executed, Inputs, Timings};
use crate::significance;
use crate::trec;

/// Key paths of a report that describe the machine and the moment, not the result; `bench
/// check` compares every other field exactly.
///
/// * `timings_s`, `embedding_stats`: wall-clock times, and how many vectors came from the
///   embedding cache;
/// * `provenance.program`, `provenance.git_commit`, `provenance.git_dirty`: the code that
///   wrote the file (a later commit must reproduce the same numbers);
/// * `provenance.dataset.file`, `provenance.dataset.file_sha256`: the dataset file's name
///   and bytes, which differ between a plain and a gzip copy of the same content (its
///   content checksum, `provenance.dataset.content_sha256`, is compared).
pub const ENVIRONMENT_FIELDS: [&str; 7] = [
    "timings_s",
    "embedding_stats",
    "provenance.program",
    "provenance.git_commit",
    "provenance.git_dirty",
    "provenance.dataset.file",
    "provenance.dataset.file_sha256",
];

/// A paired comparison reported for every method against one baseline.
#[derive(Debug, Clone, Copy)]
pub struct Comparison {
    /// Key of the report object.
    pub key: &'static str,
    /// The method every other method is compared with.
    pub baseline: &'static str,
    /// What the interval is of.
    pub statistic: &'static str,
}

/// The paired comparisons of every report (paired bootstrap 95 % intervals over the scored
/// queries, [`metrics::paired_bootstrap`], for the [`metrics::paired_metrics`]).
pub const COMPARISONS: &[Comparison] = &[Comparison {
    key: "bootstrap_ci_vs_embedding_topk",
    baseline: "embedding_topk",
    statistic: "mean(method) - mean(embedding_topk), paired over the scored queries",
}];

/// What a finished run wrote.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The JSON report.
    pub json_path: std::path::PathBuf,
    /// The report itself.
    pub report: Value,
}

/// Per-query metric rows of one method (one row per scored step, [`metrics_of`] order).
type Rows = Vec<Vec<f64>>;

fn object(names: &[&Metric], vals: &[f64], keep: impl Fn(&Metric) -> bool) -> Value {
    Value::Object(
        names
            .iter()
            .zip(vals)
            .filter(|(m, _)| keep(m))
            .map(|(m, v)| (m.name.to_string(), json!(v)))
            .collect(),
    )
}

/// The `provenance` of a report: program, commit, dataset file and content hashes, the
/// embedder, and the run's RNG `seeds`. Shared by the plain and the held-out reports.
pub(crate) fn provenance(inputs: &Inputs, ex: &Executed, seeds: Value) -> Value {
    let data = &inputs.data;
    json!({
        "program": concat!("bench ", env!("CARGO_PKG_VERSION")),
        "git_commit": git(&["rev-parse", "HEAD"]),
        "git_dirty": git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
        "dataset": {
            "known_file": data.recognised.map(|f| f.key),
            "file": data.file_name(),
            "file_sha256": data.file_sha,
            "content_sha256": data.content_sha,
        },
        "embedder": ex.embedder,
        "seeds": seeds,
    })
}

/// The first keys of every report, in their order: what was run on what (dataset and its
/// query count, protocol, graph builder, embedder, core profile) and the graph it built.
/// Shared by the plain reports and the held-out ones ([`crate::heldout::write`]).
pub(crate) fn report_head(
    plan: &Plan,
    ds: Dataset,
    ex: &Executed,
    queries: usize,
) -> Map<String, Value> {
    let a = &plan.args;
    let mut report = Map::new();
    let mut put = |k: &str, v: Value| {
        report.insert(k.to_string(), v);
    };
    put("dataset", json!(ds.reference_name()));
    put("dataset_queries", json!(queries));
    put("protocol", json!(a.protocol.as_str()));
    put("graph_builder", json!(plan.builder.name()));
    put("embedder", json!(ex.embedder.id));
    put("core_profile", json!(plan.profile.as_str()));
    put("graph_nodes", json!(ex.graph_nodes));
    put("graph_edges", json!(ex.graph_edges));
    put("graph_edges_set_by_labels", json!(ex.edges_set_by_labels));
    report
}

/// Writes the run files, the qrels and the JSON report of an executed plan to `out` (the
/// JSON last, so that it never names a file that is not there).
pub fn write(
    plan: &Plan,
    inputs: &Inputs,
    ex: &Executed,
    out: &Path,
    mut timings: Timings,
    t_all: Instant,
) -> Result<RunOutput> {
    if let Some(h) = &ex.heldout {
        return crate::heldout::write(plan, inputs, ex, h, out, timings, t_all);
    }
    let data = &inputs.data;
    let corpus = &data.corpus;
    let ds = data.ds;
    let n = corpus.queries.len();
    let names = plan.names(data.recognised, n);
    let scored = ex.scored();

    let t = Instant::now();
    let metric_list = metrics_of(ds);
    let width = metric_list.len();
    let rows: Vec<Rows> = ex
        .runs
        .iter()
        .map(|r| {
            r.lists
                .iter()
                .zip(&scored)
                .map(|(list, &q)| {
                    let j = Judged {
                        retrieved: list,
                        relevant: &corpus.queries[q].relevant,
                        embed_top_k: plan.args.embed_top_k,
                    };
                    metrics::query_metrics(&metric_list, &j)
                })
                .collect()
        })
        .collect();
    let all = |_: &Metric| true;
    let mut method_metrics = Map::new();
    let mut learning_curves = Map::new();
    let mut curves_all = Map::new();
    let checkpoints = ds.checkpoints();
    let mut all_points: Vec<usize> = checkpoints.to_vec();
    if !all_points.contains(&scored.len()) {
        all_points.push(scored.len());
    }
    for (r, rows) in ex.runs.iter().zip(&rows) {
        let name = r.method.name.to_string();
        method_metrics.insert(
            name.clone(),
            object(&metric_list, &metrics::mean_rows(rows, width), all),
        );
        if r.method.learns() {
            let c: Map<String, Value> = metrics::curve(rows, width, checkpoints)
                .into_iter()
                .map(|(q, vals)| {
                    let reference = |m: &Metric| m.family == Family::Reference;
                    (q.to_string(), object(&metric_list, &vals, reference))
                })
                .collect();
            learning_curves.insert(name.clone(), Value::Object(c));
        }
        let pts: Vec<Value> = metrics::curve(rows, width, &all_points)
            .into_iter()
            .map(|(q, vals)| {
                let mut m = Map::new();
                m.insert("query".into(), json!(q));
                if let Value::Object(o) = object(&metric_list, &vals, all) {
                    m.extend(o);
                }
                Value::Object(m)
            })
            .collect();
        curves_all.insert(name, Value::Array(pts));
    }
    let paired_tests = paired_tests(plan, ex, &rows, &metric_list, scored.len())?;
    let comparisons = COMPARISONS
        .iter()
        .map(|c| Ok((c.key, comparison(c, plan, ex, &rows, &metric_list)?)))
        .collect::<Result<Vec<_>>>()?;
    timings.tick("metrics", t);

    let dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // The stream's query ids in order, one file per row set (written even with
    // --no-run-files: it is the manifest's, and every report of the same rows shares it).
    let ids: String = corpus
        .queries
        .iter()
        .map(|q| format!("{}\n", q.qid))
        .collect();
    save(&dir.join(names.query_ids()), &trec::gzip(ids.as_bytes()))?;
    let files = if plan.args.no_run_files {
        Value::Null
    } else {
        let node = |d: usize| corpus.nodes[d].id.as_str();
        let qid = |q: usize| corpus.queries[q].qid.as_str();
        let qrels = trec::qrels_text(
            scored
                .iter()
                .map(|&q| (qid(q), corpus.queries[q].relevant.as_slice())),
            node,
        );
        // Each file is formatted and compressed on its own (in parallel), written in order.
        let (qrels_gz, runs_gz) = rayon::join(
            || trec::gzip(qrels.as_bytes()),
            || {
                ex.runs
                    .par_iter()
                    .map(|r| {
                        let text = trec::run_text(
                            r.method.name,
                            scored
                                .iter()
                                .zip(&r.lists)
                                .map(|(&q, l)| (qid(q), l.as_slice())),
                            node,
                        );
                        trec::gzip(text.as_bytes())
                    })
                    .collect::<Vec<_>>()
            },
        );
        save(&dir.join(names.qrels()), &qrels_gz)?;
        let mut runs = Map::new();
        for (r, gz) in ex.runs.iter().zip(&runs_gz) {
            let rel = names.run(r.method);
            save(&dir.join(&rel), gz)?;
            runs.insert(r.method.name.to_string(), json!(rel));
        }
        json!({
            "qrels": names.qrels(),
            "runs": runs,
            "run_format": trec::RUN_FORMAT,
        })
    };

    let a = &plan.args;
    let mut report = report_head(plan, ds, ex, n);
    let mut put = |k: &str, v: Value| {
        report.insert(k.to_string(), v);
    };
    put(
        "parameters",
        json!({
            "limit": data.limit,
            "seed_top_k": a.seed_top_k,
            "seed_source": a.seed_source.as_str(),
            "embed_top_k": a.embed_top_k,
            "max_hops": a.max_hops,
            "beam_width": a.beam_width,
            "learning_rate": a.lr,
            "discount": a.discount,
            "pg_temperature": plan.pg.temperature,
            "pg_baseline": plan.pg.baseline,
            "knn_k": if a.graph == crate::plan::GraphArg::Knn { json!(a.knn_k) } else { Value::Null },
            "shared_edge_state": a.shared_edge_state,
            "split": a.split,
            "bootstrap": a.bootstrap,
            "bootstrap_seed": a.bootstrap_seed,
            "permutations": a.permutations,
        }),
    );
    put(
        "configuration",
        json!({
            "command": plan.command_line(data.recognised, &data.file_name()),
            "dense_search": plan.dense_search.as_str(),
            "traversal": plan.traversal,
            "learning": plan.learning,
            "pg_call": {"baseline": plan.pg.baseline, "temperature": plan.pg.temperature},
        }),
    );
    put(
        "evaluation",
        json!({
            "mode": plan.schedule.name(),
            "learned_from_queries": ex.steps.iter().filter(|s| s.learn).count(),
            "scored_queries": scored.len(),
            "scored_from_query": scored.first().copied().unwrap_or(n),
            "outcome_metric": ds.outcome_metric(),
            "queries_without_relevant": corpus.queries.iter().filter(|q| q.relevant.is_empty()).count(),
        }),
    );
    put("method_metrics", Value::Object(method_metrics));
    put("learning_curves", Value::Object(learning_curves));
    put("checkpoints", json!(checkpoints));
    put(
        "traversal",
        json!({"max_hops": a.max_hops, "beam_width": a.beam_width}),
    );
    put("learning_curves_all", Value::Object(curves_all));
    for (key, value) in comparisons {
        put(key, value);
    }
    put("paired_tests", paired_tests);
    put("metric_notes", Value::Object(metrics::metric_notes(ds)));
    put(
        "method_notes",
        method_notes(ex.runs.iter().map(|r| r.method)),
    );
    put("files", files);
    put(
        "manifest",
        json!({
            "about": "the rows of this run: the dataset file (SHA-256 as datasets/SHA256SUMS \
                      records it; null for a file it does not list), the query ids of the \
                      stream in order (query_ids_file: gzip-compressed, one id per line, shared \
                      by every report of the same rows), and SHA-256 hashes of id lists, each id followed by a newline (printf '%s\\n' ids | \
                      sha256sum; for the file: zcat file | sha256sum)",
            "dataset_file": data.recognised.map(|f| f.rel_path),
            "dataset_sha256": data.recognised.and_then(|f| f.sha256()),
            "queries": n,
            "query_ids_file": names.query_ids(),
            "query_ids_sha256": lines_sha256(corpus.queries.iter().map(|q| q.qid.as_str())),
            "scored_query_ids_sha256": lines_sha256(scored.iter().map(|&q| corpus.queries[q].qid.as_str())),
            "documents": corpus.nodes.len(),
            "document_ids_sha256": lines_sha256(corpus.node_ids()),
        }),
    );
    put(
        "provenance",
        provenance(inputs, ex, json!({"bootstrap": a.bootstrap_seed})),
    );
    timings.tick("total", t_all);
    if !a.no_timings {
        put("timings_s", timings.to_json());
        let st = &ex.embed_stats;
        put(
            "embedding_stats",
            json!({
                "texts": st.texts,
                "distinct_texts": st.distinct,
                "embedded": st.computed,
                "from_cache": st.distinct - st.computed,
                "seconds": (st.seconds * 1000.0).round() / 1000.0,
                "embedded_per_s": st.computed_per_s().map(|r| (r * 10.0).round() / 10.0),
            }),
        );
    }
    let report = Value::Object(report);
    save_json(out, &report)?;
    Ok(RunOutput {
        json_path: out.to_path_buf(),
        report,
    })
}

/// The paired intervals of `c` for every method but its baseline.
fn comparison(
    c: &Comparison,
    plan: &Plan,
    ex: &Executed,
    rows: &[Rows],
    metric_list: &[&Metric],
) -> Result<Value> {
    let base = ex
        .runs
        .iter()
        .position(|r| r.method.name == c.baseline)
        .ok_or_else(|| {
            Error::Internal(format!("baseline {} of {} did not run", c.baseline, c.key))
        })?;
    let col = |mi: usize, k: usize| -> Vec<f64> { rows[mi].iter().map(|r| r[k]).collect() };
    let mut owned: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    let mut keys: Vec<(usize, &str)> = Vec::new();
    for mi in (0..ex.runs.len()).filter(|&mi| mi != base) {
        for name in metrics::paired_metrics(plan.dataset()) {
            if let Some(k) = metric_list.iter().position(|m| m.name == name) {
                owned.push((col(mi, k), col(base, k)));
                keys.push((mi, name));
            }
        }
    }
    let series: Vec<(&[f64], &[f64])> = owned
        .iter()
        .map(|(x, y)| (x.as_slice(), y.as_slice()))
        .collect();
    let a = &plan.args;
    let cis = metrics::paired_bootstrap(&series, a.bootstrap, a.bootstrap_seed);
    let mut methods = Map::new();
    for ((mi, metric), ci) in keys.into_iter().zip(cis) {
        let entry = methods
            .entry(ex.runs[mi].method.name.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = entry {
            m.insert(
                metric.to_string(),
                json!({"diff": ci.diff, "ci95_low": ci.lo, "ci95_high": ci.hi}),
            );
        }
    }
    Ok(json!({
        "resamples": a.bootstrap,
        "seed": a.bootstrap_seed,
        "statistic": c.statistic,
        "methods": Value::Object(methods),
    }))
}

/// The `paired_tests` object: every pair of methods tested on
/// [`significance::TEST_METRIC`] over the scored queries (see [`crate::significance`]).
fn paired_tests(
    plan: &Plan,
    ex: &Executed,
    rows: &[Rows],
    metric_list: &[&Metric],
    queries: usize,
) -> Result<Value> {
    let metric = significance::TEST_METRIC;
    let k = metric_list
        .iter()
        .position(|m| m.name == metric)
        .ok_or_else(|| Error::Internal(format!("test metric {metric} is not in the table")))?;
    let values: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| r.iter().map(|q| q[k]).collect())
        .collect();
    let a = &plan.args;
    let tests =
        significance::test_all_pairs(&values, a.permutations, a.bootstrap, a.bootstrap_seed);
    let name = |i: usize| ex.runs[i].method.name;
    let mean = |i: usize| metrics::mean_rows(&rows[i], metric_list.len())[k];
    let pairs: Vec<Value> = tests
        .iter()
        .map(|t| {
            json!({
                "a": name(t.a),
                "b": name(t.b),
                "mean_a": mean(t.a),
                "mean_b": mean(t.b),
                "diff": t.diff,
                "ci95_low": t.ci_low,
                "ci95_high": t.ci_high,
                "p_value": t.p,
                "p_holm": t.p_holm,
                "significant": t.significant(),
                "effect_size_dz": t.effect_size_dz,
                "a_better": t.a_better,
                "b_better": t.b_better,
            })
        })
        .collect();
    Ok(significance::tests_block(
        metric,
        queries,
        "mean(a) - mean(b), paired over the scored queries",
        "Holm step-down across every pair of this run",
        Map::new(),
        a.permutations,
        a.bootstrap,
        a.bootstrap_seed,
        Value::Array(pairs),
    ))
}

/// SHA-256 of the items, each followed by a newline (`printf '%s\n' ... | sha256sum`).
pub fn lines_sha256<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for s in items {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// Output of `git <args>` run in the workspace this program was built from; `None` when
/// git or the repository is not there.
pub(crate) fn git(args: &[&str]) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Writes `bytes` to `path` with the workspace's atomic write
/// (`pyformat::io::write_atomic`: temporary file, fsync, rename), creating the directory
/// first.
pub fn save(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    pyformat::io::write_atomic(path, bytes).map_err(|e| match e {
        pyformat::Error::Io { path, source } => Error::Io { path, source },
        other => Error::Internal(format!("writing {}: {other}", path.display())),
    })
}

/// The report's `method_notes`: each method's one-line description, in run order.
pub fn method_notes<'a>(methods: impl Iterator<Item = &'a crate::methods::Method>) -> Value {
    Value::Object(
        methods
            .map(|m| (m.name.to_string(), json!(m.about)))
            .collect(),
    )
}

/// Writes `report` as pretty JSON with a final newline ([`save`]).
pub fn save_json(path: &Path, report: &Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(report)
        .map_err(|e| Error::Internal(format!("serialising the report: {e}")))?;
    text.push('\n');
    save(path, text.as_bytes())
}

/// A one-screen summary of a report's `method_metrics` (printed by `bench run`).
pub fn summary(report: &Value) -> String {
    let cols = [
        "recall_at_5",
        "recall_at_10",
        "full_support_at_10",
        "mrr",
        "ndcg_at_10",
        "nodes_fired",
    ];
    method_table(report, "method_metrics", "method", &cols, 20)
}

/// A table of the report's `block` (method → metric values): a header of `first` and the
/// `cols`, then a row per method, values to 4 decimals in columns `width` wide. Empty when
/// the report has no such block.
pub fn method_table(
    report: &Value,
    block: &str,
    first: &str,
    cols: &[&str],
    width: usize,
) -> String {
    let mut s = String::new();
    let Some(mm) = report.get(block).and_then(Value::as_object) else {
        return s;
    };
    s.push_str(&format!("{first:<22}"));
    for c in cols {
        s.push_str(&format!("{c:>width$}"));
    }
    s.push('\n');
    for (m, v) in mm {
        s.push_str(&format!("{m:<22}"));
        for c in cols {
            let x = v.get(*c).and_then(Value::as_f64).unwrap_or(f64::NAN);
            s.push_str(&format!("{x:>width$.4}"));
        }
        s.push('\n');
    }
    s
}
