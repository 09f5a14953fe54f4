//! The standard protocol (`--protocol paper | clean`): the reference's stream of queries,
//! prequential (every query scored, then learned from) or split (`--split F`: learn on the
//! first share, score the rest on the frozen graph) — reference
//! `benchmarks/external/run_hotpotqa.py::main` and `run_multihop_rag.py::main`, commit
//! 134c676.
//!
//! Its report keeps the reference program's keys with the same shapes (`dataset`,
//! `dataset_queries`, `graph_nodes`, `graph_edges`, `parameters`, `method_metrics`
//! `{method: {metric: mean}}`, `learning_curves` `{method: {"<n>": {metric: cumulative
//! mean}}}` for the learning methods and the reference metrics, `checkpoints`,
//! `traversal`) and adds:
//!
//! * `protocol`, `graph_builder`, `embedder`, `core_profile`, `graph_edges_set_by_labels`;
//! * `configuration`: `command` (the `bench run` command line that reproduces the file —
//!   `bench check` re-runs it), `dense_search` (`f64-exact` or `f32-tiled`, the arithmetic of
//!   the cosine search, [`crate::dense`]) and the core's effective `traversal` and `learning`
//!   configurations (every parameter and profile switch) and `pg_call` arguments;
//! * `evaluation`: which queries learned and which were scored;
//! * budget-matched metrics, `learning_curves_all` (every method, `[{"query": n, metric:
//!   cumulative mean}]`), paired bootstrap intervals against [`BASELINE`], `metric_notes`
//!   and `method_notes`;
//! * `paired_tests`: every pair of methods on the same scored queries — permutation test,
//!   bootstrap interval, Holm-corrected p-value, effect size ([`crate::significance`]);
//! * `manifest`: what others need to rebuild the sample — the dataset file and its SHA-256
//!   as `datasets/SHA256SUMS` records it, the query ids of the stream in order (the file
//!   `query_ids_file`, shared by every report of the same rows, written even with
//!   `--no-run-files`) and their hash, the hash of the scored query ids and of the pooled
//!   document (node) ids;
//! * `files`: the run files and qrels, xz-compressed TREC files in `runs/` beside the
//!   report ([`crate::trec`]), with the format note [`crate::trec::RUN_FORMAT`];
//! * `provenance`: program version, git commit, checksums of the file read, embedder id and
//!   weights checksum, seeds;
//! * `timings_s` and `embedding_stats` (left out with `--no-timings`).

use std::path::Path;
use std::time::Instant;

use indexmap::IndexMap;
use rayon::prelude::*;

use results::bench::{
    Ci, Comparison, CurvePoint, EmbeddingStats, EvaluationScope, Files, Means, PairedTests,
    Parameters, PgCall, Report, Stream, TraversalShape,
};
use results::Slot;

use crate::engine::{run_stream, Inputs, StreamRun};
use crate::error::{Error, Result};
use crate::metrics::{self, metrics_of, Family, Judged, Metric};
use crate::plan::{GraphArg, Plan, RunArgs};
use crate::protocol::{Env, Protocol};
use crate::report::{self, Format, Frame, Sidecar, Written};
use crate::significance;
use crate::trec;

/// The method every other method is compared with by paired bootstrap intervals
/// (`bootstrap_ci_vs_embedding_topk`, for the [`metrics::paired_metrics`]).
pub const BASELINE: &str = "embedding_topk";

/// What the intervals against [`BASELINE`] are of.
pub const BASELINE_STATISTIC: &str =
    "mean(method) - mean(embedding_topk), paired over the scored queries";

/// The standard protocol (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Standard;

/// Per-query metric rows of one method (one row per scored step, [`metrics_of`] order).
type Rows = Vec<Vec<f64>>;

fn means(names: &[&Metric], vals: &[f64], keep: impl Fn(&Metric) -> bool) -> Means {
    names
        .iter()
        .zip(vals)
        .filter(|(m, _)| keep(m))
        .map(|(m, v)| (m.name.to_string(), *v))
        .collect()
}

impl Protocol for Standard {
    type Args = RunArgs;
    type Plan = Plan;
    type Inputs = Inputs;
    type Executed = StreamRun;
    type Report = Report<Stream>;
    type Error = Error;

    fn plan(&self, args: &RunArgs) -> Result<Plan> {
        Plan::new(args)
    }

    fn open(&self, plan: &Plan, env: &mut Env) -> Result<Inputs> {
        Inputs::open(plan, env.data_dir, &mut env.timings)
    }

    fn texts<'i>(&self, inputs: &'i Inputs) -> Vec<&'i str> {
        inputs.data.texts()
    }

    fn execute(&self, plan: &Plan, inputs: &Inputs, env: &mut Env) -> Result<StreamRun> {
        run_stream(plan, inputs, &env.progress, &mut env.timings)
    }

    fn report(
        &self,
        plan: &Plan,
        inputs: &Inputs,
        ex: StreamRun,
        env: &mut Env,
    ) -> Result<Written<Report<Stream>>> {
        let data = &inputs.data;
        let corpus = &data.corpus;
        let ds = data.ds;
        let n = corpus.queries.len();
        let names = plan.names(data.recognised, n);
        let out = plan.report_path(data.recognised, n);
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
        let mut method_metrics = IndexMap::new();
        let mut learning_curves = IndexMap::new();
        let mut curves_all = IndexMap::new();
        let checkpoints = ds.checkpoints();
        let mut all_points: Vec<usize> = checkpoints.to_vec();
        if !all_points.contains(&scored.len()) {
            all_points.push(scored.len());
        }
        for (r, rows) in ex.runs.iter().zip(&rows) {
            let name = r.method.name.to_string();
            method_metrics.insert(
                name.clone(),
                means(&metric_list, &metrics::mean_rows(rows, width), all),
            );
            if r.method.learns() {
                let reference = |m: &Metric| m.family == Family::Reference;
                let c: IndexMap<String, Means> = metrics::curve(rows, width, checkpoints)
                    .into_iter()
                    .map(|(q, vals)| (q.to_string(), means(&metric_list, &vals, reference)))
                    .collect();
                learning_curves.insert(name.clone(), c);
            }
            let pts: Vec<CurvePoint> = metrics::curve(rows, width, &all_points)
                .into_iter()
                .map(|(q, vals)| CurvePoint {
                    query: q,
                    means: means(&metric_list, &vals, all),
                })
                .collect();
            curves_all.insert(name, pts);
        }
        let a = &plan.args;
        let paired_tests = paired_tests(plan, &ex, &rows, &metric_list, scored.len())?;
        let comparison = comparison(plan, &ex, &rows, &metric_list)?;
        env.timings.tick("metrics", t);

        let dir = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // The stream's query ids in order, one file per row set (written even with
        // --no-run-files: it is the manifest's, and every report of the same rows shares
        // it).
        let ids: String = corpus
            .queries
            .iter()
            .map(|q| format!("{}\n", q.qid))
            .collect();
        let mut sidecars = vec![Sidecar {
            path: dir.join(names.query_ids()),
            bytes: trec::xz(ids.as_bytes())?,
        }];
        let files = if a.no_run_files {
            Slot::Null
        } else {
            let node = |d: usize| corpus.nodes[d].id.as_str();
            let qid = |q: usize| corpus.queries[q].qid.as_str();
            let qrels = trec::qrels_text(
                scored
                    .iter()
                    .map(|&q| (qid(q), corpus.queries[q].relevant.as_slice())),
                node,
            );
            // Each file is formatted and compressed on its own (in parallel).
            let (qrels_xz, runs_xz) = rayon::join(
                || trec::xz(qrels.as_bytes()),
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
                            trec::xz(text.as_bytes())
                        })
                        .collect::<Result<Vec<_>>>()
                },
            );
            sidecars.push(Sidecar {
                path: dir.join(names.qrels()),
                bytes: qrels_xz?,
            });
            let mut runs = IndexMap::new();
            for (r, xz) in ex.runs.iter().zip(runs_xz?) {
                let rel = names.run(r.method);
                sidecars.push(Sidecar {
                    path: dir.join(&rel),
                    bytes: xz,
                });
                runs.insert(r.method.name.to_string(), rel);
            }
            Slot::Value(Files {
                qrels: names.qrels(),
                runs,
                run_format: trec::RUN_FORMAT.to_string(),
            })
        };

        let frame = Frame {
            plan,
            inputs,
            embedder: &ex.embedder,
            graph: ex.graph,
        };
        let methods: Vec<_> = ex.runs.iter().map(|r| r.method).collect();
        let sections = Stream {
            evaluation: report::evaluation(
                plan,
                ex.learned(),
                scored.len(),
                EvaluationScope::Stream {
                    scored_from_query: scored.first().copied().unwrap_or(n),
                    outcome_metric: ds.outcome_metric().to_string(),
                    queries_without_relevant: corpus
                        .queries
                        .iter()
                        .filter(|q| q.relevant.is_empty())
                        .count(),
                },
            ),
            method_metrics,
            learning_curves,
            checkpoints: checkpoints.to_vec(),
            traversal: TraversalShape {
                max_hops: a.max_hops,
                beam_width: a.beam_width,
            },
            learning_curves_all: curves_all,
            bootstrap_ci_vs_embedding_topk: comparison,
            paired_tests,
        };
        let mut doc = frame.report(sections, &methods);
        doc.parameters = Some(Parameters {
            limit: data.limit,
            seed_top_k: a.seed_top_k,
            seed_source: Some(a.seed_source.as_str().to_string()),
            embed_top_k: a.embed_top_k,
            max_hops: a.max_hops,
            beam_width: a.beam_width,
            learning_rate: a.lr,
            discount: a.discount,
            pg_temperature: Some(plan.pg.temperature),
            pg_baseline: Some(plan.pg.baseline),
            knn_k: Slot::written((a.graph == GraphArg::Knn).then_some(a.knn_k)),
            shared_edge_state: Some(a.shared_edge_state),
            split: Slot::written(a.split),
            routers: None,
            router_alpha: None,
            router_top_k: None,
            confidence_temperature: None,
            bootstrap: a.stats.bootstrap,
            bootstrap_seed: a.stats.bootstrap_seed,
            permutations: a.stats.permutations,
        });
        doc.configuration.dense_search = Some(plan.dense_search.as_str().to_string());
        doc.configuration.pg_call = Some(PgCall {
            baseline: plan.pg.baseline,
            temperature: plan.pg.temperature,
        });
        doc.metric_notes = Some(metrics::metric_notes(ds));
        doc.files = files;
        let (dataset_file, dataset_sha256) = frame.dataset_file();
        doc.manifest.about = Some(MANIFEST_ABOUT.to_string());
        doc.manifest.dataset_file = dataset_file;
        doc.manifest.dataset_sha256 = dataset_sha256;
        doc.manifest.query_ids_file = Some(names.query_ids());
        doc.manifest.scored_query_ids_sha256 = Some(report::lines_sha256(
            scored.iter().map(|&q| corpus.queries[q].qid.as_str()),
        ));
        doc.provenance.seeds = frame.seeds(None, None);
        doc.timings_s =
            report::timings(std::mem::take(&mut env.timings), env.started, a.no_timings);
        if !a.no_timings {
            let st = &ex.embed_stats;
            doc.embedding_stats = Some(EmbeddingStats {
                texts: st.texts,
                distinct_texts: st.distinct,
                embedded: st.computed,
                from_cache: st.distinct - st.computed,
                seconds: (st.seconds * 1000.0).round() / 1000.0,
                embedded_per_s: st.computed_per_s().map(|r| (r * 10.0).round() / 10.0),
            });
        }
        Ok(Written {
            document: doc,
            path: out,
            format: Format::Pretty,
            files: sidecars,
        })
    }

    fn summary(&self, report: &Report<Stream>) -> String {
        report::means_table(&report.sections.method_metrics)
    }
}

/// The manifest's `about` of a stream report.
const MANIFEST_ABOUT: &str = "the rows of this run: the dataset file (SHA-256 as \
    datasets/SHA256SUMS records it; null for a file it does not list), the query ids of the \
    stream in order (query_ids_file: xz-compressed, one id per line, shared by every \
    report of the same rows), and SHA-256 hashes of id lists, each id followed by a newline \
    (printf '%s\\n' ids | sha256sum; for the file: xzcat file | sha256sum)";

/// The `paired_tests` block: every pair of methods tested on
/// [`significance::TEST_METRIC`] over the scored queries (see [`crate::significance`]).
fn paired_tests(
    plan: &Plan,
    ex: &StreamRun,
    rows: &[Rows],
    metric_list: &[&Metric],
    queries: usize,
) -> Result<PairedTests> {
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
    let tests = significance::test_all_pairs(
        &values,
        a.stats.permutations,
        a.stats.bootstrap,
        a.stats.bootstrap_seed,
    );
    let name = |i: usize| ex.runs[i].method.name;
    let mean = |i: usize| metrics::mean_rows(&rows[i], metric_list.len())[k];
    let pairs = tests.iter().map(|t| t.written(name, mean)).collect();
    Ok(significance::tests_block(
        metric,
        queries,
        "mean(a) - mean(b), paired over the scored queries",
        "Holm step-down across every pair of this run",
        None,
        (
            a.stats.permutations,
            a.stats.bootstrap,
            a.stats.bootstrap_seed,
        ),
        pairs,
    ))
}

/// The paired intervals of every method but [`BASELINE`] against it.
fn comparison(
    plan: &Plan,
    ex: &StreamRun,
    rows: &[Rows],
    metric_list: &[&Metric],
) -> Result<Comparison> {
    let base = ex
        .runs
        .iter()
        .position(|r| r.method.name == BASELINE)
        .ok_or_else(|| Error::Internal(format!("baseline {BASELINE} did not run")))?;
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
    let cis = metrics::paired_bootstrap(&series, a.stats.bootstrap, a.stats.bootstrap_seed);
    let mut methods: IndexMap<String, IndexMap<String, Ci>> = IndexMap::new();
    for ((mi, metric), ci) in keys.into_iter().zip(cis) {
        methods
            .entry(ex.runs[mi].method.name.to_string())
            .or_default()
            .insert(
                metric.to_string(),
                Ci {
                    diff: ci.diff,
                    ci95_low: ci.lo,
                    ci95_high: ci.hi,
                },
            );
    }
    Ok(Comparison {
        resamples: a.stats.bootstrap,
        seed: a.stats.bootstrap_seed,
        statistic: BASELINE_STATISTIC.to_string(),
        methods,
    })
}
