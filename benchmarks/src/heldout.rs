//! The held-out protocols (`--protocol related | unrelated | repeat`): does outcome learning
//! generalise beyond the queries it learned from, and how much does the graph remember of
//! the queries it did learn from?
//!
//! Every held-out run uses the clean graph (no edge from a label) and `--splits` random
//! splits. Split `i` is a ChaCha8 permutation of the queries (seed `--split-seed`, stream
//! `i`), so every method is scored on the same splits and a split's differences between
//! methods are paired.
//!
//! * **Dev pool.** A fixed share (`--dev-fraction`) of the queries, the first of a ChaCha8
//!   permutation with the fixed seed [`DEV_SEED`] (independent of `--split-seed`), is the
//!   dev pool: those queries may be learned from but are scored only by a `--dev` run, whose
//!   scores are what hyper-parameters are chosen on. The other queries are the test pool;
//!   a reported run scores only them, so nothing is tuned on a test query.
//! * **related / unrelated.** Train = the first `floor(n · --train-fraction)` queries of
//!   the split's permutation, learned from in that order (each traversed, its outcome
//!   applied; test-then-train, as the prequential runs, but nothing of it is scored). Test
//!   = the other queries of the scored pool that have relevant documents and that share at
//!   least one relevant document with some train query (`related`) or none (`unrelated`).
//!   The learning methods are frozen at checkpoints of training ([`CHECKPOINT_PERCENT`] of
//!   the train queries) and the test queries traversed on the frozen graph; the last
//!   checkpoint is the reported score. Static methods (cold traversal, BM25, dense, RRF) are
//!   scored on the same test queries.
//! * **repeat.** Train = every query in the split's order, each scored when first asked
//!   (before its own update: *first ask*) and learned from; test = the scored pool asked
//!   again on the frozen graph at the checkpoints (the last = *re-ask*, the reported score).
//!
//! # Statistics
//! * Per method, the **mean over splits** of the split's mean over its test queries, with a
//!   95 % Student-t interval over splits: `mean ± t(0.975, S−1) · sd / √S`.
//! * **Per-split paired differences** (recall@10) of every traversal method against its cold
//!   counterpart (same router) and against each of dense, BM25 and RRF: mean, sd, the t
//!   interval above, and the **minimum detectable difference** at 80 % power and two-sided
//!   α = 0.05, `MDD = (t(0.975, S−1) + t(0.80, S−1)) · sd / √S` (the true mean difference a
//!   one-sample t-test over the S per-split differences would detect four times in five).
//!   The splits reuse one query sample, so this interval describes the variation between
//!   splits of that sample, not the sampling of queries.
//! * The **pooled per-query paired tests** answer the query-sampling question: each query
//!   ever tested gets, per method, its mean over the splits that tested it; every pair of
//!   methods is then tested on those values with [`crate::significance::test_all_pairs`]
//!   (randomization test, bootstrap interval, Holm, d_z), and the same MDD formula is
//!   given with `n` queries and the sd of the per-query differences.
//! * `repeat` adds, per learning method, the paired test of re-ask against first ask.
//!
//! Student-t quantiles come from the Cornish–Fisher expansion of the normal quantile in
//! 1/df ([`significance::t_quantile`]; Abramowitz & Stegun 26.7.5), accurate to better than 1e-3 for
//! df ≥ 5.

use std::collections::BTreeMap;
use std::time::Instant;

use indexmap::IndexMap;
use indicatif::MultiProgress;
use rayon::prelude::*;

use results::bench::{
    Band, EmbedderId, HeldoutCurves, HeldoutDesign, Parameters, PerSplit, PgCall, ReAsk, Repeat,
    Report, SplitDifference, SplitDifferences,
};
use results::Slot;

use crate::engine::{prepare, GraphStats, Inputs};
use crate::error::{Error, Result};
use crate::methods::{fired_indices, static_lists, Method, Ranking, Rule, Stage, Walker};
use crate::metrics::{self, metrics_of, Judged, Metric};
use crate::plan::{Plan, RunArgs};
use crate::protocol::{Env, Protocol};
use crate::report::{self, Format, Frame, Written};
use crate::significance::{self, finite, summarize, test_all_pairs, Summary, TEST_METRIC};
use crate::splits::{
    queries_with_partner, Heldout, HeldoutKind, Split, CHECKPOINT_PERCENT, DEV_SEED,
};

/// Metrics of the learning curves and the split tables.
pub const CURVE_METRICS: [&str; 4] = [
    "recall_at_2",
    "recall_at_5",
    "recall_at_10",
    "full_support_at_10",
];
/// The baselines every traversal method is compared with per split.
pub const BASELINES: [&str; 3] = ["embedding_topk", "bm25_topk", "rrf_topk"];

/// What one method produced over all splits.
#[derive(Debug, Clone)]
pub struct MethodResult {
    /// The method.
    pub method: &'static Method,
    /// `[split][checkpoint]` → mean metric row over the split's test queries (a static
    /// method has one checkpoint).
    pub split_means: Vec<Vec<Vec<f64>>>,
    /// Per query ever tested (in [`HeldoutRun::tested`] order): its mean metric row over
    /// the splits that tested it, at the last checkpoint.
    pub per_query: Vec<Vec<f64>>,
    /// `repeat` and learning methods: per query ever tested, its mean first-ask row.
    pub first_ask: Option<Vec<Vec<f64>>>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// A held-out run's results.
#[derive(Debug, Clone)]
pub struct HeldoutRun {
    /// The protocol.
    pub heldout: Heldout,
    /// The splits.
    pub splits: Vec<Split>,
    /// Queries tested in at least one split, in stream order.
    pub tested: Vec<usize>,
    /// Queries in the dev pool.
    pub dev_queries: usize,
    /// Queries sharing a relevant document with some other query (whole stream).
    pub with_partner: usize,
    /// One per method, in the plan's order.
    pub results: Vec<MethodResult>,
}

fn rows_for(stage: &Stage, metric_list: &[&Metric], q: usize, retrieved: &[usize]) -> Vec<f64> {
    let j = Judged {
        retrieved,
        relevant: &stage.corpus.queries[q].relevant,
        embed_top_k: stage.params.embed_top_k,
    };
    metrics::query_metrics(metric_list, &j)
}

/// What one learning method did on one split.
struct SplitRun {
    /// Mean row over the test queries at each checkpoint.
    checkpoints: Vec<Vec<f64>>,
    /// Rows of the test queries at the last checkpoint (test order).
    last: Vec<Vec<f64>>,
    /// First-ask rows of the test queries (`repeat`; test order).
    first: Vec<Vec<f64>>,
}

fn learn_split(
    stage: &Stage,
    method: &Method,
    rule: Rule,
    split: &Split,
    metric_list: &[&Metric],
    first_ask: bool,
    cold_mean: Option<&[f64]>,
) -> Result<SplitRun> {
    let width = metric_list.len();
    let mut graph = stage.graph.clone();
    let mut walker = Walker::new(stage, method.router())?;
    let len = split.train.len();
    let marks: Vec<usize> = CHECKPOINT_PERCENT
        .iter()
        .map(|p| (len * p + 50) / 100)
        .collect();
    let mut in_test = BTreeMap::new();
    if first_ask {
        for (i, &q) in split.test.iter().enumerate() {
            in_test.insert(q, i);
        }
    }
    let mut first = vec![Vec::new(); if first_ask { split.test.len() } else { 0 }];
    let mut checkpoints = Vec::new();
    let mut last = Vec::new();
    for i in 0..=len {
        for _ in marks.iter().filter(|&&m| m == i) {
            if let Some(c) = cold_mean.filter(|_| i == 0 && len > 0) {
                // the untrained graph traverses as the cold method with the same router
                checkpoints.push(c.to_vec());
                continue;
            }
            let mut rows = Vec::with_capacity(split.test.len());
            for &q in &split.test {
                let e = walker.traverse(&graph, q)?;
                rows.push(rows_for(stage, metric_list, q, &fired_indices(&e.fired)));
            }
            checkpoints.push(metrics::mean_rows(&rows, width));
            last = rows;
        }
        if i == len {
            break;
        }
        let q = split.train[i];
        let episode = walker.traverse(&graph, q)?;
        let retrieved = fired_indices(&episode.fired);
        if let Some(&t) = in_test.get(&q) {
            first[t] = rows_for(stage, metric_list, q, &retrieved);
        }
        walker.learn(&mut graph, q, &episode, &retrieved, rule)?;
    }
    Ok(SplitRun {
        checkpoints,
        last,
        first,
    })
}

/// Per query of `tested`, the mean of its rows over the splits (`rows[s][i]` belongs to
/// `splits[s].test[i]`).
fn per_query_means(
    tested: &[usize],
    splits: &[Split],
    rows: &[&[Vec<f64>]],
    width: usize,
) -> Vec<Vec<f64>> {
    let pos: BTreeMap<usize, usize> = tested.iter().enumerate().map(|(i, &q)| (q, i)).collect();
    let mut sums = vec![vec![0.0; width]; tested.len()];
    let mut counts = vec![0usize; tested.len()];
    for (split, r) in splits.iter().zip(rows) {
        for (&q, row) in split.test.iter().zip(r.iter()) {
            let i = pos[&q];
            counts[i] += 1;
            for (s, x) in sums[i].iter_mut().zip(row) {
                *s += *x;
            }
        }
    }
    sums.into_iter()
        .zip(counts)
        .map(|(s, c)| s.into_iter().map(|x| x / c.max(1) as f64).collect())
        .collect()
}

/// Runs the held-out protocol `h` for `methods` on `stage` (see the module docs).
pub fn run(
    h: &Heldout,
    methods: &[&'static Method],
    stage: &Stage,
    progress: &MultiProgress,
) -> Result<HeldoutRun> {
    let corpus = stage.corpus;
    let relevant: Vec<Vec<usize>> = corpus.queries.iter().map(|q| q.relevant.clone()).collect();
    let nodes = corpus.nodes.len();
    let splits = h.make_splits(&relevant, nodes);
    let mut tested: Vec<usize> = splits.iter().flat_map(|s| s.test.iter().copied()).collect();
    tested.sort_unstable();
    tested.dedup();
    let metric_list = metrics_of(stage.params.dataset);
    let width = metric_list.len();
    let pos: BTreeMap<usize, usize> = tested.iter().enumerate().map(|(i, &q)| (q, i)).collect();

    let mut results: Vec<Option<MethodResult>> = vec![None; methods.len()];
    for (i, m) in methods.iter().enumerate().filter(|(_, m)| !m.learns()) {
        let t = Instant::now();
        let bar = crate::methods::bar(progress, tested.len(), m.name, 26);
        let lists = static_lists(m, stage, &tested, &bar)?;
        bar.finish_and_clear();
        let rows: Vec<Vec<f64>> = tested
            .iter()
            .zip(&lists)
            .map(|(&q, l)| rows_for(stage, &metric_list, q, l))
            .collect();
        let split_means = splits
            .iter()
            .map(|s| {
                let r: Vec<Vec<f64>> = s.test.iter().map(|q| rows[pos[q]].clone()).collect();
                vec![metrics::mean_rows(&r, width)]
            })
            .collect();
        results[i] = Some(MethodResult {
            method: m,
            split_means,
            first_ask: (h.kind == HeldoutKind::Repeat).then(|| rows.clone()),
            per_query: rows,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    let jobs: Vec<(usize, Rule, usize)> = methods
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m.ranking {
            Ranking::Traversal {
                learning: Some(rule),
                ..
            } => Some((i, rule)),
            _ => None,
        })
        .flat_map(|(i, rule)| (0..splits.len()).map(move |s| (i, rule, s)))
        .collect();
    let t = Instant::now();
    let bar = crate::methods::bar(progress, jobs.len(), "learning splits", 26);
    let repeat = h.kind == HeldoutKind::Repeat;
    let done: Vec<SplitRun> = jobs
        .par_iter()
        .map(|&(i, rule, s)| {
            let cold = results.iter().flatten().find(|c| {
                c.method.traverses()
                    && !c.method.learns()
                    && c.method.router() == methods[i].router()
            });
            let cold_mean = cold.map(|c| c.split_means[s][0].as_slice());
            let r = learn_split(
                stage,
                methods[i],
                rule,
                &splits[s],
                &metric_list,
                repeat,
                cold_mean,
            );
            bar.inc(1);
            r
        })
        .collect::<Result<Vec<_>>>()?;
    bar.finish_and_clear();
    let learn_seconds = t.elapsed().as_secs_f64();
    let learners = jobs
        .iter()
        .map(|j| j.0)
        .collect::<std::collections::BTreeSet<_>>();
    let per_learner = learn_seconds / learners.len().max(1) as f64;
    for &i in &learners {
        let mine: Vec<&SplitRun> = jobs
            .iter()
            .zip(&done)
            .filter(|(j, _)| j.0 == i)
            .map(|(_, r)| r)
            .collect();
        let last: Vec<&[Vec<f64>]> = mine.iter().map(|r| r.last.as_slice()).collect();
        let first: Vec<&[Vec<f64>]> = mine.iter().map(|r| r.first.as_slice()).collect();
        results[i] = Some(MethodResult {
            method: methods[i],
            split_means: mine.iter().map(|r| r.checkpoints.clone()).collect(),
            per_query: per_query_means(&tested, &splits, &last, width),
            first_ask: repeat.then(|| per_query_means(&tested, &splits, &first, width)),
            seconds: per_learner,
        });
    }
    let results = results
        .into_iter()
        .zip(methods)
        .map(|(r, m)| r.ok_or_else(|| Error::Internal(format!("method {} did not run", m.name))))
        .collect::<Result<Vec<_>>>()?;
    Ok(HeldoutRun {
        heldout: *h,
        with_partner: queries_with_partner(&relevant, nodes),
        dev_queries: h.dev_pool(relevant.len()).iter().filter(|&&d| d).count(),
        splits,
        tested,
        results,
    })
}

/// Decimals kept of every non-integer number of a held-out report (the report stays small;
/// every number is a mean of at most a few thousand values in [0, 1] or a p-value).
pub const REPORT_DECIMALS: i32 = 6;

/// What a held-out execution produced.
#[derive(Debug)]
pub struct HeldoutExecuted {
    /// Name, dimension and weights of the embedder.
    pub embedder: EmbedderId,
    /// The graph's size.
    pub graph: GraphStats,
    /// The splits and every method's results.
    pub run: HeldoutRun,
}

/// The held-out protocols (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeldoutProtocol;

/// The held-out design of a plan (an internal error for a plan without one: the
/// dispatcher sends only held-out plans here).
fn design(plan: &Plan) -> Result<&Heldout> {
    plan.heldout
        .as_ref()
        .ok_or_else(|| Error::Internal("a held-out run without a held-out design".into()))
}

impl Protocol for HeldoutProtocol {
    type Args = RunArgs;
    type Plan = Plan;
    type Inputs = Inputs;
    type Executed = HeldoutExecuted;
    type Report = Report<results::bench::Heldout>;
    type Error = Error;

    fn plan(&self, args: &RunArgs) -> Result<Plan> {
        let plan = Plan::new(args)?;
        design(&plan)?;
        Ok(plan)
    }

    fn open(&self, plan: &Plan, env: &mut Env) -> Result<Inputs> {
        Inputs::open(plan, env.data_dir, &mut env.timings)
    }

    fn texts<'i>(&self, inputs: &'i Inputs) -> Vec<&'i str> {
        inputs.data.texts()
    }

    fn execute(&self, plan: &Plan, inputs: &Inputs, env: &mut Env) -> Result<HeldoutExecuted> {
        let prepared = prepare(plan, inputs, &env.progress, &mut env.timings)?;
        let stage = prepared.stage(&inputs.data.corpus, &[]);
        let t = Instant::now();
        stage.prepare(&plan.methods);
        env.timings.tick("bm25_index_and_seeds", t);
        let run = run(design(plan)?, &plan.methods, &stage, &env.progress)?;
        drop(stage);
        Ok(HeldoutExecuted {
            embedder: prepared.embedder,
            graph: prepared.graph_stats,
            run,
        })
    }

    fn report(
        &self,
        plan: &Plan,
        inputs: &Inputs,
        ex: HeldoutExecuted,
        env: &mut Env,
    ) -> Result<Written<Self::Report>> {
        let data = &inputs.data;
        let corpus = &data.corpus;
        let n = corpus.queries.len();
        let a = &plan.args;
        let h = &ex.run;
        let t = Instant::now();
        for r in &h.results {
            env.timings.0.push((r.method.name.to_string(), r.seconds));
        }
        let sections = sections(plan, inputs, h)?;
        env.timings.tick("metrics", t);
        let frame = Frame {
            plan,
            inputs,
            embedder: &ex.embedder,
            graph: ex.graph,
        };
        let methods: Vec<&Method> = h.results.iter().map(|r| r.method).collect();
        let mut doc = frame.report(sections, &methods);
        doc.parameters = Some(Parameters {
            limit: data.limit,
            seed_top_k: a.seed_top_k,
            seed_source: None,
            embed_top_k: a.embed_top_k,
            max_hops: a.max_hops,
            beam_width: a.beam_width,
            learning_rate: a.lr,
            discount: a.discount,
            pg_temperature: None,
            pg_baseline: None,
            knn_k: Slot::Absent,
            shared_edge_state: None,
            split: Slot::Absent,
            routers: Some(
                plan.routers()
                    .iter()
                    .map(|k| k.as_str().to_string())
                    .collect(),
            ),
            router_alpha: Some(a.router_alpha),
            router_top_k: Some(a.router_top_k),
            confidence_temperature: Some(a.confidence_temperature),
            bootstrap: a.stats.bootstrap,
            bootstrap_seed: a.stats.bootstrap_seed,
            permutations: a.stats.permutations,
        });
        doc.configuration.pg_call = Some(PgCall {
            baseline: plan.pg.baseline,
            temperature: plan.pg.temperature,
        });
        doc.configuration.router = Some(plan.router);
        doc.metric_notes = Some(metrics::metric_notes(data.ds));
        // no run files: a query is scored on many splits
        doc.files = Slot::Null;
        let (dataset_file, dataset_sha256) = frame.dataset_file();
        doc.manifest.about = Some(MANIFEST_ABOUT.to_string());
        doc.manifest.dataset_file = dataset_file;
        doc.manifest.dataset_sha256 = dataset_sha256;
        doc.manifest.tested_query_ids_sha256 = Some(report::lines_sha256(
            h.tested.iter().map(|&q| corpus.queries[q].qid.as_str()),
        ));
        doc.provenance.seeds = frame.seeds(Some(h.heldout.split_seed), Some(DEV_SEED));
        doc.timings_s =
            report::timings(std::mem::take(&mut env.timings), env.started, a.no_timings);
        Ok(Written {
            document: doc,
            path: plan.report_path(data.recognised, n),
            // one line: a held-out report is read by programs (bench check, report), and
            // the indentation of its many small arrays would double its size
            format: Format::CompactRounded {
                decimals: REPORT_DECIMALS,
            },
            files: Vec::new(),
        })
    }

    fn summary(&self, report: &Self::Report) -> String {
        report::means_table(&report.sections.method_metrics)
    }
}

/// The manifest's `about` of a held-out report.
const MANIFEST_ABOUT: &str = "the rows of this run: the dataset file (SHA-256 as \
    datasets/SHA256SUMS records it) and SHA-256 hashes of id lists (the stream's query ids \
    in order, as the clean run of the same rows lists them; the queries tested in at least \
    one split; the documents), each id followed by a newline";

/// The held-out sections of a run's results.
fn sections(plan: &Plan, inputs: &Inputs, h: &HeldoutRun) -> Result<results::bench::Heldout> {
    let ds = inputs.data.ds;
    let a = &plan.args;
    let metric_list = metrics_of(ds);
    let col = |name: &str| -> Result<usize> {
        metric_list
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| Error::Internal(format!("metric {name} is not in the table")))
    };
    let last = |r: &MethodResult, s: usize| -> Vec<f64> {
        r.split_means[s].last().cloned().unwrap_or_default()
    };
    let mut method_metrics = IndexMap::new();
    let mut method_intervals = IndexMap::new();
    for r in &h.results {
        let finals: Vec<Vec<f64>> = (0..h.splits.len()).map(|s| last(r, s)).collect();
        let mean = metrics::mean_rows(&finals, metric_list.len());
        method_metrics.insert(
            r.method.name.to_string(),
            metric_list
                .iter()
                .zip(&mean)
                .map(|(m, v)| (m.name.to_string(), *v))
                .collect(),
        );
        let mut iv = IndexMap::new();
        for name in CURVE_METRICS {
            let k = col(name)?;
            let xs: Vec<f64> = finals.iter().map(|f| f[k]).collect();
            iv.insert(name.to_string(), summarize(&xs).written());
        }
        method_intervals.insert(r.method.name.to_string(), iv);
    }

    let mut curves = IndexMap::new();
    for r in h.results.iter().filter(|r| r.method.learns()) {
        let mut c = IndexMap::new();
        for name in CURVE_METRICS {
            let k = col(name)?;
            let pts: Vec<Summary> = (0..CHECKPOINT_PERCENT.len())
                .map(|i| summarize(&r.split_means.iter().map(|s| s[i][k]).collect::<Vec<_>>()))
                .collect();
            c.insert(
                name.to_string(),
                Band {
                    mean: pts.iter().map(|p| finite(p.mean)).collect(),
                    ci95_low: pts.iter().map(|p| finite(p.lo)).collect(),
                    ci95_high: pts.iter().map(|p| finite(p.hi)).collect(),
                },
            );
        }
        curves.insert(r.method.name.to_string(), c);
    }

    let k = col(TEST_METRIC)?;
    let by_name = |n: &str| h.results.iter().position(|r| r.method.name == n);
    let mut split_diffs = Vec::new();
    for r in &h.results {
        if !r.method.traverses() {
            continue;
        }
        let mut against: Vec<usize> = Vec::new();
        if r.method.learns() {
            let cold = h.results.iter().position(|c| {
                c.method.traverses() && !c.method.learns() && c.method.router() == r.method.router()
            });
            against.extend(cold);
        }
        against.extend(BASELINES.iter().filter_map(|b| by_name(b)));
        for j in against {
            let d: Vec<f64> = (0..h.splits.len())
                .map(|s| last(r, s)[k] - last(&h.results[j], s)[k])
                .collect();
            let pq: Vec<f64> = r
                .per_query
                .iter()
                .zip(&h.results[j].per_query)
                .map(|(x, y)| x[k] - y[k])
                .collect();
            let sq = summarize(&pq);
            split_diffs.push(SplitDifference {
                a: r.method.name.to_string(),
                b: h.results[j].method.name.to_string(),
                per_split: summarize(&d).written(),
                per_query_mdd80: finite(sq.mdd),
                per_query_sd: finite(sq.sd),
                queries: pq.len(),
            });
        }
    }

    let values: Vec<Vec<f64>> = h
        .results
        .iter()
        .map(|r| r.per_query.iter().map(|q| q[k]).collect())
        .collect();
    let tests = test_all_pairs(
        &values,
        a.stats.permutations,
        a.stats.bootstrap,
        a.stats.bootstrap_seed,
    );
    let name = |i: usize| h.results[i].method.name;
    let mean_of = |i: usize| values[i].iter().sum::<f64>() / values[i].len().max(1) as f64;
    // every pair is tested (and Holm-corrected) but only the comparisons the questions
    // need are written: each method against the static baselines, each learned method
    // against the cold traversal with its router
    let router_of = |i: usize| h.results[i].method.router();
    let is_base = |i: usize| BASELINES.contains(&name(i));
    let is_cold = |i: usize| h.results[i].method.traverses() && !h.results[i].method.learns();
    let wanted = |a: usize, b: usize| {
        is_base(a)
            || is_base(b)
            || (router_of(a) == router_of(b)
                && h.results[a].method.traverses()
                && h.results[b].method.traverses()
                && (is_cold(a) != is_cold(b)))
    };
    let pairs = tests
        .iter()
        .filter(|t| wanted(t.a, t.b))
        .map(|t| t.written(name, mean_of))
        .collect();

    let repeat = if h.heldout.kind == HeldoutKind::Repeat {
        let mut m = IndexMap::new();
        for r in h.results.iter().filter(|r| r.method.learns()) {
            let Some(first) = &r.first_ask else { continue };
            let re: Vec<f64> = r.per_query.iter().map(|q| q[k]).collect();
            let fa: Vec<f64> = first.iter().map(|q| q[k]).collect();
            let t = test_all_pairs(
                &[re, fa],
                a.stats.permutations,
                a.stats.bootstrap,
                a.stats.bootstrap_seed,
            );
            let first_means = metrics::mean_rows(first, metric_list.len());
            let mut fm = IndexMap::new();
            for name in CURVE_METRICS {
                fm.insert(name.to_string(), first_means[col(name)?]);
            }
            m.insert(
                r.method.name.to_string(),
                Repeat {
                    first_ask: fm,
                    re_ask_minus_first_ask: t.first().map(|t| ReAsk {
                        metric: TEST_METRIC.to_string(),
                        diff: t.diff,
                        ci95_low: t.ci_low,
                        ci95_high: t.ci_high,
                        p_value: t.p,
                        effect_size_dz: t.effect_size_dz,
                        re_ask_better: t.a_better,
                        first_ask_better: t.b_better,
                    }),
                },
            );
        }
        Some(m)
    } else {
        None
    };

    let test_sizes: Vec<usize> = h.splits.iter().map(|s| s.test.len()).collect();
    let hs = &h.heldout;
    Ok(results::bench::Heldout {
        heldout: HeldoutDesign {
            protocol: hs.kind.as_str().to_string(),
            about: DESIGN_ABOUT.to_string(),
            splits: hs.splits,
            split_seed: hs.split_seed,
            train_fraction: (hs.kind != HeldoutKind::Repeat).then_some(hs.train_fraction),
            train_queries: h.splits.first().map_or(0, |s| s.train.len()),
            dev_fraction: hs.dev_fraction,
            dev_seed: DEV_SEED,
            dev_queries: h.dev_queries,
            scored_pool: if hs.dev { "dev" } else { "test" }.to_string(),
            queries_with_any_partner: h.with_partner,
            test_queries_per_split_mean: test_sizes.iter().sum::<usize>() as f64
                / test_sizes.len().max(1) as f64,
            test_queries_per_split: test_sizes,
            queries_ever_tested: h.tested.len(),
            checkpoints_percent_of_train: CHECKPOINT_PERCENT.to_vec(),
            outcome_metric: ds.outcome_metric().to_string(),
        },
        method_metrics,
        per_split: PerSplit {
            metric: TEST_METRIC.to_string(),
            about: "each split's mean over its test queries (last checkpoint), split order"
                .to_string(),
            methods: h
                .results
                .iter()
                .map(|r| {
                    let v: Vec<f64> = (0..h.splits.len()).map(|s| last(r, s)[k]).collect();
                    (r.method.name.to_string(), v)
                })
                .collect(),
        },
        method_intervals_over_splits: method_intervals,
        learning_curves: HeldoutCurves {
            about: "per learning method and metric, at each checkpoint (percent of the train \
                    queries learned from): the mean over splits of the split's test mean, \
                    with its 95% t interval over splits; checkpoint 0 is the cold graph"
                .to_string(),
            checkpoints_percent_of_train: CHECKPOINT_PERCENT.to_vec(),
            methods: curves,
        },
        split_differences: SplitDifferences {
            metric: TEST_METRIC.to_string(),
            statistic: "per split: mean(a) - mean(b) over the split's test queries (last \
                        checkpoint)"
                .to_string(),
            interval: "mean ± t(0.975, S-1)·sd/√S over the S splits (Student t by the \
                       Cornish-Fisher expansion); the splits share one query sample, so this \
                       is the variation between splits, not the sampling of queries"
                .to_string(),
            mdd80: "minimum detectable mean difference at 80% power, two-sided alpha 0.05: \
                    (t(0.975, n-1) + t(0.80, n-1))·sd/√n, n = splits (per_split) or queries \
                    (per_query_mdd80, from the sd of the per-query differences of the pooled \
                    test)"
                .to_string(),
            pairs: split_diffs,
        },
        paired_tests: significance::tests_block(
            TEST_METRIC,
            h.tested.len(),
            "mean(a) - mean(b), paired over the queries tested in at least one split, each \
             query's value its mean over the splits that tested it",
            "Holm step-down across every pair of this run's methods (all tested); written are \
             only each method against each static baseline and each learned method against the \
             cold traversal with the same router",
            Some(tests.len()),
            (
                a.stats.permutations,
                a.stats.bootstrap,
                a.stats.bootstrap_seed,
            ),
            pairs,
        ),
        repeat,
    })
}

/// `heldout.about`.
const DESIGN_ABOUT: &str = "see benchmarks/src/heldout.rs: per split (a ChaCha8 permutation, \
    seed split_seed, stream i) the learning methods learn from the train queries in order and \
    are frozen at each checkpoint; the test queries are scored on the frozen graph; \
    method_metrics is the mean over splits of each split's mean at the last checkpoint";
