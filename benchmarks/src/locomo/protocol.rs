//! `bench run --dataset locomo`: LoCoMo as one more [`Protocol`] — plan (the options that
//! apply, checked), open (the release file and the embedders), execute ([`super::run`]),
//! report (a [`results::bench::Report`] with the [`results::locomo::Locomo`] sections,
//! through the one writer).
//!
//! **Options.** `--embedder minilm` runs both embedders (hash-v1 and all-MiniLM-L6-v2);
//! `--embedder hash-v1` (the default) runs hash-v1 alone. `--core-profile`, `--discount`,
//! `--splits`, `--split-seed`, `--train-fraction` (the share of a conversation's questions
//! learned from), `--bootstrap`, `--bootstrap-seed`, `--permutations`, `--input`, `--out`,
//! `--no-run-files` and `--no-timings` mean what they mean for the other protocols. Every
//! knob the protocol tunes (seeds, hops, beam, graph, router, learning rate) and every
//! option of another protocol is refused with a message naming it.
//!
//! **Files.** For the test conversations' multi-hop questions ([`RUN_CATEGORY`], the
//! issue's question): their qrels (`runs/locomo-multi-hop.qrels.xz`) and the run file of
//! the cold traversal ([`RUN_ARMS`]) at depth [`RUN_DEPTH`], xz-compressed TREC
//! ([`crate::trec`]); `trec_eval -c -m recall.10` on them gives the report's multi-hop
//! recall@10 of the cold traversal. The other arms' and questions' numbers are in the
//! report: the learning arms have no single list per question (each is scored on several
//! splits), and the repository's 15 MiB size budget leaves no room for more (a run of one
//! arm over the 1,680 test questions is about 75 KB gzip-compressed, the qrels of every
//! scored question 11 KB, a multi-hop run 11 KB).

use std::path::{Path, PathBuf};
use std::time::Instant;

use indexmap::IndexMap;
use results::bench::{EmbeddingStats, Files, MethodMeans, Parameters, PgCall, Report, Seeds};
use results::locomo::{
    ArmKnobs, ByCategory, ByConversation, Cell, ConversationRow, Design, Family, Grid as GridDoc,
    Locomo as Sections, RouterKnobs, Row, Transfer, TransferFold, Tuning, Walk, Within,
};
use results::Slot;

use super::arms::Arm;
use super::brain::corpora;
use super::compare::{against_best_baseline, Draws, Slice};
use super::context::LIST_DEPTH;
use super::data::Category;
use super::manifest::{manifest, provenance, ReadFile, ScoredIds};
use super::metrics::LOCOMO_METRICS;
use super::run::{execute, LocomoRun, Options};
use super::splits::{WithinSplits, TUNING_CONVERSATIONS};
use super::tuning::{base_knobs, Grid, BUDGET_TURNS, GRID};
use crate::catalog::{self, Dataset, KnownFile};
use crate::embed::{EmbedStats, EmbedderArg, TextEmbedder};
use crate::error::{Error, Result};
use crate::plan::{RunArgs, COMMAND_PREFIX, DEFAULT_OUT_DIR, PG_CALL, RUNS_DIR};
use crate::protocol::{Env, Protocol};
use crate::report::{self, Format, Sidecar, Written};
use crate::trec;

/// The LoCoMo protocol (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct LocomoProtocol;

/// Ranks written per question in a run file.
pub const RUN_DEPTH: usize = 10;

/// The arms with a run file: the cold traversal (see the module docs).
pub const RUN_ARMS: [&str; 1] = ["crabpath_cold"];

/// The questions of the run files: the test conversations' multi-hop questions (see the
/// module docs).
pub const RUN_CATEGORY: Category = Category::MultiHop;

/// The metrics tested against the best baseline: recall@10 on every slice, recall at the
/// budget on all questions and on multi-hop (the issue's questions; the other cells are
/// means in `by_category`, the report's size kept small).
pub const TESTED_METRICS: [&str; 2] = ["recall_at_10", "recall_at_budget"];

/// The resolved options.
#[derive(Debug, Clone)]
pub struct LocomoPlan {
    /// The options as given.
    pub args: RunArgs,
    /// The release file.
    pub file: &'static KnownFile,
    /// Whether all-MiniLM-L6-v2 runs beside hash-v1.
    pub minilm: bool,
    /// Splits, grid and untuned knobs.
    pub options: Options,
    /// The tests' draws.
    pub draws: Draws,
}

impl LocomoPlan {
    /// Where the report goes.
    pub fn report_path(&self) -> PathBuf {
        match &self.args.out {
            Some(p) => p.clone(),
            None => PathBuf::from(DEFAULT_OUT_DIR).join(format!("{}.json", self.stem())),
        }
    }

    /// The report's file name without `.json`: `locomo-<embedder>[-corrected]`, then the
    /// non-default splits, split seed, learn fraction and bootstrap seed.
    pub fn stem(&self) -> String {
        let a = &self.args;
        let mut s = format!("locomo-{}", a.embedder.slug());
        if a.core_profile.profile() == crabpath::Profile::Corrected {
            s.push_str("-corrected");
        }
        let d = defaults();
        if a.splits != d.splits {
            s.push_str(&format!("-splits{}", a.splits));
        }
        if a.split_seed != d.split_seed {
            s.push_str(&format!("-sseed{}", a.split_seed));
        }
        if a.train_fraction != d.train_fraction {
            s.push_str(&format!("-learn{}", a.train_fraction));
        }
        if a.stats.bootstrap_seed != d.stats.bootstrap_seed {
            s.push_str(&format!("-bseed{}", a.stats.bootstrap_seed));
        }
        s
    }

    /// The command line that reproduces the run (every option that shapes the results).
    pub fn command_line(&self, input_name: Option<&str>) -> String {
        let a = &self.args;
        let mut c = vec![COMMAND_PREFIX.to_string(), "--dataset locomo".into()];
        match input_name {
            None => c.push("--variant full".into()),
            Some(name) => c.push(format!("--input {name}")),
        }
        c.push(format!("--embedder {}", a.embedder.slug()));
        c.push(format!(
            "--core-profile {}",
            a.core_profile.profile().as_str()
        ));
        c.push(format!("--discount {}", a.discount));
        c.push(format!("--splits {}", a.splits));
        c.push(format!("--split-seed {}", a.split_seed));
        c.push(format!("--train-fraction {}", a.train_fraction));
        c.push(format!("--bootstrap {}", a.stats.bootstrap));
        c.push(format!("--bootstrap-seed {}", a.stats.bootstrap_seed));
        c.push(format!("--permutations {}", a.stats.permutations));
        if a.no_run_files {
            c.push("--no-run-files".into());
        }
        c.join(" ")
    }
}

/// `bench run --dataset locomo` with every default.
fn defaults() -> RunArgs {
    use clap::Parser;
    #[derive(Parser)]
    struct P {
        #[command(flatten)]
        a: RunArgs,
    }
    P::parse_from(["bench run", "--dataset", "locomo"]).a
}

/// The options `bench run --dataset locomo` refuses when set: `(flag, why)`.
fn refused(a: &RunArgs) -> Option<(&'static str, &'static str)> {
    let d = defaults();
    let tuned = "the LoCoMo protocol tunes it on conv-26 and conv-30";
    let other = "it belongs to another protocol";
    let checks: [(bool, &'static str, &'static str); 21] = [
        (a.protocol != d.protocol, "--protocol", other),
        (!a.router.is_empty(), "--router", tuned),
        (a.router_alpha != d.router_alpha, "--router-alpha", tuned),
        (a.router_top_k != d.router_top_k, "--router-top-k", tuned),
        (
            a.confidence_temperature != d.confidence_temperature,
            "--confidence-temperature",
            "the LoCoMo protocol keeps the router's default",
        ),
        (a.dev_fraction != d.dev_fraction, "--dev-fraction", other),
        (a.dev, "--dev", other),
        (a.graph != d.graph, "--graph", tuned),
        (a.knn_k != d.knn_k, "--knn-k", tuned),
        (
            a.dense_search == crate::dense::DenseSearchArg::F64Exact,
            "--dense-search f64-exact",
            "LoCoMo searches with the f32 tiled path",
        ),
        (a.seed_top_k != d.seed_top_k, "--seed-top-k", tuned),
        (a.seed_source != d.seed_source, "--seed-source", tuned),
        (
            a.embed_top_k != d.embed_top_k,
            "--embed-top-k",
            "LoCoMo's lists are 100 long",
        ),
        (a.max_hops != d.max_hops, "--max-hops", tuned),
        (a.beam_width != d.beam_width, "--beam-width", tuned),
        (a.lr != d.lr, "--lr", tuned),
        (a.shared_edge_state, "--shared-edge-state", other),
        (a.split.is_some(), "--split", other),
        (a.corpus.is_some(), "--corpus", other),
        (
            a.chunk_size != d.chunk_size || a.chunk_overlap != d.chunk_overlap,
            "--chunk-size/--chunk-overlap",
            other,
        ),
        (
            a.data.limit.is_some_and(|n| n != 0),
            "--limit",
            "every question of every conversation is used",
        ),
    ];
    checks
        .into_iter()
        .find(|c| c.0)
        .map(|(_, flag, why)| (flag, why))
}

/// What a LoCoMo run reads.
#[derive(Debug)]
pub struct LocomoInputs {
    /// The conversations.
    pub data: super::data::Locomo,
    /// The file read.
    pub file: ReadFile,
    /// Their corpora (file order).
    pub corpora: Vec<super::brain::ConversationCorpus>,
    /// hash-v1.
    pub hash: TextEmbedder,
    /// all-MiniLM-L6-v2 (with `--embedder minilm`).
    pub minilm: Option<TextEmbedder>,
}

impl Protocol for LocomoProtocol {
    type Args = RunArgs;
    type Plan = LocomoPlan;
    type Inputs = LocomoInputs;
    type Executed = LocomoRun;
    type Report = Report<Sections>;
    type Error = Error;

    fn plan(&self, args: &RunArgs) -> Result<LocomoPlan> {
        if args.data.dataset != Dataset::Locomo {
            return Err(Error::Internal(
                "the LoCoMo protocol ran another dataset".into(),
            ));
        }
        if args.embedder == EmbedderArg::Mpnet {
            return Err(Error::Usage(
                "--embedder mpnet runs with --dataset locomo --protocol product only".into(),
            ));
        }
        if let Some((flag, why)) = refused(args) {
            return Err(Error::Usage(format!(
                "{flag} does not apply to --dataset locomo: {why} (benchmarks/README.md, \
                 \"LoCoMo\")"
            )));
        }
        let file = catalog::known_file(Dataset::Locomo, args.data.variant)?;
        let splits = WithinSplits::new(args.splits, args.split_seed, args.train_fraction)?;
        let mut base = base_knobs();
        base.profile = args.core_profile.profile();
        base.discount = args.discount;
        Ok(LocomoPlan {
            args: args.clone(),
            file,
            minilm: args.embedder == EmbedderArg::Minilm,
            options: Options {
                splits,
                grid: GRID,
                base,
            },
            draws: Draws {
                permutations: args.stats.permutations,
                resamples: args.stats.bootstrap,
                seed: args.stats.bootstrap_seed,
            },
        })
    }

    fn open(&self, plan: &LocomoPlan, env: &mut Env) -> Result<LocomoInputs> {
        let t = Instant::now();
        let hash = TextEmbedder::open(EmbedderArg::HashV1, &plan.args.model)?;
        let minilm = match plan.minilm {
            true => Some(TextEmbedder::open(EmbedderArg::Minilm, &plan.args.model)?),
            false => None,
        };
        env.timings.tick("embedder_load", t);
        let (file, data) = ReadFile::read(plan.args.data.input.as_deref(), plan.file, env)?;
        let corpora = corpora(&data)?;
        Ok(LocomoInputs {
            data,
            file,
            corpora,
            hash,
            minilm,
        })
    }

    fn texts<'i>(&self, inputs: &'i LocomoInputs) -> Vec<&'i str> {
        super::embedding::texts(&inputs.corpora)
    }

    fn execute(
        &self,
        plan: &LocomoPlan,
        inputs: &LocomoInputs,
        env: &mut Env,
    ) -> Result<LocomoRun> {
        let t = Instant::now();
        let progress = env.progress.clone();
        let run = execute(
            &inputs.data,
            inputs.corpora.clone(),
            &inputs.hash,
            inputs.minilm.as_ref(),
            &plan.options,
            &mut |s| {
                let _ = progress.println(format!("bench run: locomo: {s}"));
            },
        )?;
        env.timings.tick("run", t);
        Ok(run)
    }

    fn report(
        &self,
        plan: &LocomoPlan,
        inputs: &LocomoInputs,
        ex: LocomoRun,
        env: &mut Env,
    ) -> Result<Written<Report<Sections>>> {
        let t = Instant::now();
        let out = plan.report_path();
        let input_name = input_name(
            &plan.args,
            inputs.file.recognised,
            plan.file,
            &inputs.file.path,
        );
        let sections = sections(plan, inputs, &ex)?;
        let (files, sidecars) = run_files(plan, &ex, &out)?;
        let cold = ex.tuned.cold;
        let params = cold.params();
        let traversal_embedder = match cold.embedder {
            EmbedderArg::HashV1 => &inputs.hash,
            EmbedderArg::Minilm | EmbedderArg::Mpnet => {
                inputs.minilm.as_ref().unwrap_or(&inputs.hash)
            }
        };
        let run_embedder = inputs.minilm.as_ref().unwrap_or(&inputs.hash);
        let all_qids: Vec<&str> = ex
            .prepared
            .iter()
            .flat_map(|p| p.cc.corpus.queries.iter().map(|q| q.qid.as_str()))
            .collect();
        let test_qids: Vec<&str> = ex
            .tests
            .iter()
            .flat_map(|&i| {
                ex.prepared[i]
                    .cc
                    .corpus
                    .queries
                    .iter()
                    .map(|q| q.qid.as_str())
            })
            .collect();
        let doc_ids: Vec<String> = ex
            .prepared
            .iter()
            .flat_map(|p| {
                p.cc.corpus
                    .node_ids()
                    .map(move |id| format!("{}:{id}", p.cc.sample_id))
            })
            .collect();
        let edges: usize = ex
            .prepared
            .iter()
            .map(|p| {
                p.graph(cold.structure, cold.embedder)
                    .map(|g| g.edge_count())
            })
            .sum::<Result<usize>>()?;
        let mut metric_notes = IndexMap::new();
        for m in &LOCOMO_METRICS {
            let mut note = format!("{}: {}", m.label, m.definition());
            if m.name == super::metrics::RECALL_AT_BUDGET {
                note.push_str(&format!("; budget {} characters", ex.tuned.budget));
            }
            metric_notes.insert(m.name.to_string(), note);
        }
        let learner_lr = ex.tuned.learners.first().map_or(cold.lr, |(_, k)| k.lr);
        let stats: Option<EmbedStats> = ex.embed_stats.last().map(|s| s.1);
        let doc = Report {
            dataset: Dataset::Locomo.reference_name().to_string(),
            dataset_queries: all_qids.len(),
            protocol: "locomo".into(),
            graph_builder: cold.structure.name(),
            embedder: run_embedder.name().to_string(),
            core_profile: cold.profile.as_str().to_string(),
            graph_nodes: doc_ids.len(),
            graph_edges: edges,
            graph_edges_set_by_labels: 0,
            protocol_note: Some(
                "one brain per conversation; every knob tuned on conv-26 and conv-30, every \
                 number below on the other eight conversations"
                    .into(),
            ),
            parameters: Some(Parameters {
                limit: 0,
                seed_top_k: cold.seed_top_k,
                seed_source: Some(cold.seed_source.as_str().into()),
                embed_top_k: LIST_DEPTH,
                max_hops: cold.max_hops,
                beam_width: cold.beam_width,
                learning_rate: learner_lr,
                discount: cold.discount,
                pg_temperature: Some(PG_CALL.temperature),
                pg_baseline: Some(PG_CALL.baseline),
                knn_k: Slot::Absent,
                shared_edge_state: None,
                split: Slot::Absent,
                routers: Some(
                    crabpath::RouterKind::ALL
                        .iter()
                        .map(|k| k.as_str().to_string())
                        .collect(),
                ),
                router_alpha: None,
                router_top_k: None,
                confidence_temperature: Some(cold.router.confidence_temperature),
                bootstrap: plan.args.stats.bootstrap,
                bootstrap_seed: plan.args.stats.bootstrap_seed,
                permutations: plan.args.stats.permutations,
            }),
            configuration: results::bench::Configuration {
                command: plan.command_line(input_name.as_deref()),
                dense_search: Some(crate::dense::DenseSearch::F32Tiled.as_str().into()),
                traversal: params.traversal.clone(),
                learning: params.learning.clone(),
                pg_call: Some(PgCall {
                    baseline: PG_CALL.baseline,
                    temperature: PG_CALL.temperature,
                }),
                router: None,
            },
            sections,
            metric_notes: Some(metric_notes),
            method_notes: ex
                .arms
                .iter()
                .map(|a| (a.name.clone(), arm_note(a)))
                .collect(),
            files,
            manifest: manifest(
                &inputs.file,
                ScoredIds {
                    about: "queries: every question with an evidence turn, of all ten \
                            conversations (ids <sample_id>:q<qa index>); scored: those of \
                            the eight test conversations; documents: every turn \
                            (<sample_id>:<dia_id>)",
                    queries: &all_qids,
                    scored: Some(&test_qids),
                    documents: &doc_ids,
                },
            ),
            provenance: provenance(
                &inputs.file,
                traversal_embedder.id()?,
                Seeds {
                    bootstrap: plan.args.stats.bootstrap_seed,
                    splits: Some(plan.args.split_seed),
                    dev: None,
                },
            ),
            timings_s: None,
            embedding_stats: match (plan.args.no_timings, stats) {
                (false, Some(s)) => Some(EmbeddingStats {
                    texts: s.texts,
                    distinct_texts: s.distinct,
                    embedded: s.computed,
                    from_cache: s.distinct - s.computed,
                    seconds: s.seconds,
                    embedded_per_s: s.computed_per_s(),
                }),
                _ => None,
            },
        };
        Ok(finish(doc, t, env, plan.args.no_timings, out, sidecars))
    }

    fn summary(&self, r: &Report<Sections>) -> String {
        summary(&r.sections)
    }
}

/// The `--input` file name a LoCoMo report's command line records: `None` when the run
/// read the release file it names by `--variant` (shared by [`crate::locomo::headline`]).
pub fn input_name(
    args: &RunArgs,
    recognised: Option<&KnownFile>,
    file: &KnownFile,
    path: &Path,
) -> Option<String> {
    args.data
        .input
        .as_ref()
        .filter(|_| recognised.is_none_or(|f| f.key != file.key))
        .map(|_| super::manifest::file_name(path))
}

/// A LoCoMo report handed to the writer: its timings closed (`t`: when reporting began),
/// one compact line, numbers at 4 decimals.
pub fn finish<S>(
    mut doc: Report<S>,
    t: Instant,
    env: &mut Env,
    no_timings: bool,
    path: PathBuf,
    files: Vec<Sidecar>,
) -> Written<Report<S>> {
    env.timings.tick("report", t);
    doc.timings_s = report::timings(std::mem::take(&mut env.timings), env.started, no_timings);
    Written {
        document: doc,
        path,
        format: Format::CompactRounded { decimals: 4 },
        files,
    }
}

/// The report's LoCoMo sections.
fn sections(plan: &LocomoPlan, inputs: &LocomoInputs, ex: &LocomoRun) -> Result<Sections> {
    let t = &ex.table;
    let means = |slice: Slice| -> Result<MethodMeans> {
        let mut out = MethodMeans::new();
        for (a, name) in t.arms.iter().enumerate() {
            let mut m = IndexMap::new();
            for metric in &LOCOMO_METRICS {
                m.insert(metric.name.to_string(), t.mean(a, metric.name, slice)?.0);
            }
            out.insert(name.clone(), m);
        }
        Ok(out)
    };
    let metric_names: Vec<String> = LOCOMO_METRICS.iter().map(|m| m.name.to_string()).collect();
    let mut by_category = ByCategory {
        arms: t.arms.clone(),
        metrics: metric_names.clone(),
        questions: IndexMap::new(),
        means: IndexMap::new(),
    };
    for c in Category::ALL {
        let slice = Slice::Category(c);
        let mut rows = Vec::with_capacity(t.arms.len());
        for a in 0..t.arms.len() {
            rows.push(
                LOCOMO_METRICS
                    .iter()
                    .map(|m| t.mean(a, m.name, slice).map(|x| x.0))
                    .collect::<Result<Vec<f64>>>()?,
            );
        }
        let n = t.questions.iter().filter(|q| q.category == c).count();
        by_category.questions.insert(c.as_str().to_string(), n);
        by_category.means.insert(c.as_str().to_string(), rows);
    }
    let mut by_conversation = ByConversation {
        metric: "recall_at_10".into(),
        arms: t.arms.clone(),
        means: IndexMap::new(),
    };
    for (ti, &ci) in ex.tests.iter().enumerate() {
        let mut row = Vec::with_capacity(t.arms.len());
        for a in 0..t.arms.len() {
            row.push(t.mean_where(a, "recall_at_10", |q| q.conversation == ti)?.0);
        }
        by_conversation
            .means
            .insert(ex.conversations[ci].sample_id.clone(), row);
    }
    let mut families = Vec::new();
    for metric in TESTED_METRICS {
        for slice in Slice::every() {
            if metric != "recall_at_10"
                && !matches!(slice, Slice::All | Slice::Category(Category::MultiHop))
            {
                continue;
            }
            let cmp = against_best_baseline(t, metric, slice, plan.draws)?;
            let Some(first) = cmp.first() else { continue };
            families.push(Family {
                metric: metric.into(),
                slice: slice.name().into(),
                questions: t.mean(first.test.b, metric, slice)?.1,
                best_baseline: t.arms[first.test.b].clone(),
                baseline_mean: first.baseline_mean,
                rows: cmp
                    .iter()
                    .map(|c| Row {
                        arm: t.arms[c.test.a].clone(),
                        mean: c.mean,
                        n: c.n,
                        diff: c.test.diff,
                        ci95_low: c.test.ci_low,
                        ci95_high: c.test.ci_high,
                        p_value: c.test.p,
                        p_holm: c.test.p_holm,
                        effect_size_dz: c.test.effect_size_dz.filter(|x| x.is_finite()),
                        mdd80: Some(c.mdd80).filter(|x| x.is_finite()),
                    })
                    .collect(),
            });
        }
    }
    Ok(Sections {
        locomo: design(plan, inputs, ex)?,
        method_metrics: means(Slice::All)?,
        by_category,
        by_conversation,
        against_best_baseline: families,
    })
}

/// One line on what an arm is (its knobs are in `locomo.arms`).
fn arm_note(a: &Arm) -> String {
    use super::arms::Group;
    let what = match a.group {
        Group::Baseline => "baseline",
        Group::Cold => "cold traversal, knobs tuned",
        Group::Learned => "learned within the conversation, scored on the splits' test halves",
        Group::Transfer => "cold traversal, router learned on the other test conversations",
        Group::Ablation => "cold traversal on this brain structure, other knobs as tuned",
    };
    format!("{what} ({})", a.method.name)
}

/// An arm's knobs as the report writes them.
fn knobs_doc(a: &Arm) -> ArmKnobs {
    let k = &a.knobs;
    let traverses = a.group.traverses();
    ArmKnobs {
        group: a.group.as_str().into(),
        method: a.method.name.into(),
        embedder: k.embedder.slug().into(),
        structure: traverses.then(|| k.structure.name()),
        walk: traverses.then(|| Walk {
            seed_source: k.seed_source.as_str().into(),
            seed_top_k: k.seed_top_k,
            max_hops: k.max_hops,
            beam_width: k.beam_width,
        }),
        router: a.method.router().map(|_| RouterKnobs {
            top_k: k.router.top_k,
            alpha: k.router.alpha,
        }),
        lr: a.method.learns().then_some(k.lr),
    }
}

fn design(plan: &LocomoPlan, inputs: &LocomoInputs, ex: &LocomoRun) -> Result<Design> {
    let l = &ex.prepared;
    let grid: &Grid = &ex.grid;
    let mut stage1: Vec<&super::tuning::Trial> =
        ex.tuned.trials.iter().filter(|x| x.stage == 1).collect();
    stage1.sort_by(|a, b| b.score.total_cmp(&a.score));
    let cell = |t: &super::tuning::Trial| Cell {
        score: t.score,
        knobs: knobs_doc(&t.arm),
    };
    let chosen_knobs: Vec<(String, super::engine::Knobs)> = ex
        .tuned
        .routers
        .iter()
        .map(|(k, kn)| {
            (
                super::super::methods::routed_methods(*k)[0]
                    .name
                    .to_string(),
                *kn,
            )
        })
        .chain(
            ex.tuned
                .learners
                .iter()
                .map(|(m, kn)| (m.name.to_string(), *kn)),
        )
        .collect();
    let mut chosen = IndexMap::new();
    for (name, kn) in chosen_knobs {
        if let Some(t) = ex
            .tuned
            .trials
            .iter()
            .find(|t| t.stage > 1 && t.arm.name == name && t.arm.knobs == kn)
        {
            chosen.insert(name, t.score);
        }
    }
    let never_tested = ex
        .table
        .groups
        .iter()
        .zip(&ex.table.rows)
        .filter(|(g, _)| **g == super::arms::Group::Learned)
        .map(|(_, r)| r.iter().filter(|v| v.is_none()).count())
        .max()
        .unwrap_or(0);
    Ok(Design {
        about: "LoCoMo (Maharana et al., ACL 2024): one brain per conversation, a node per \
                turn; every method scored by evidence recall on the eight test conversations; \
                learning arms scored on the test halves of the within-conversation splits; \
                benchmarks/README.md, \"LoCoMo\""
            .into(),
        conversations: ex
            .conversations
            .iter()
            .zip(l)
            .map(|(c, p)| {
                Ok(ConversationRow {
                    sample_id: c.sample_id.clone(),
                    role: c.role.as_str().into(),
                    sessions: c.sessions,
                    turns: c.turns,
                    edges: p
                        .graph(ex.tuned.cold.structure, ex.tuned.cold.embedder)?
                        .edge_count(),
                    questions: c.questions,
                    scored: c.scored,
                })
            })
            .collect::<Result<_>>()?,
        evidence_repairs: inputs
            .data
            .evidence_issues
            .iter()
            .map(|i| i.describe())
            .collect(),
        load_notes: inputs
            .data
            .notes
            .iter()
            .map(|n| format!("{}: {}", n.conversation, n.note))
            .collect(),
        outcome_rule: "+1 when an evidence turn is among the fired nodes, else -1 (the \
                       dataset's outcome metric partial_hit_rate); the heuristic or \
                       policy-gradient rule applies it after each learn-half question"
            .into(),
        within: Within {
            about: "per conversation, each split a ChaCha8 permutation of its questions (seed \
                    split_seed, stream row * 2^32 + split); the first learn_fraction are \
                    learned from in that order, the rest scored on the frozen brain; a \
                    question's value is its mean over the splits that scored it"
                .into(),
            splits: plan.options.splits.splits,
            split_seed: plan.options.splits.seed,
            learn_fraction: plan.options.splits.learn_fraction,
            questions_never_tested: never_tested,
        },
        tuning: Tuning {
            rule: "mean recall@10 over every question of the tuning conversations; stage 1 \
                   the router-less cold traversal over embedder x seed source x structure x \
                   hops x beam x seeds, stage 2 each router's top-k x alpha, stage 3 each \
                   learning method's rate; the highest score wins, a tie goes to the cell \
                   tried first (cheaper values first)"
                .into(),
            conversations: TUNING_CONVERSATIONS.iter().map(|s| s.to_string()).collect(),
            budget_chars: ex.tuned.budget,
            budget_rule: format!(
                "{BUDGET_TURNS} turns of the tuning conversations' mean length, rounded to a \
                 hundred characters"
            ),
            grid: GridDoc {
                embedders: grid.embedders.iter().map(|e| e.slug().into()).collect(),
                seed_sources: grid
                    .seed_sources
                    .iter()
                    .map(|s| s.as_str().into())
                    .collect(),
                structures: grid.structures.iter().map(|s| s.name()).collect(),
                max_hops: grid.max_hops.to_vec(),
                beam_width: grid.beam_width.to_vec(),
                seed_top_k: grid.seed_top_k.to_vec(),
                router_top_k: grid.router_top_k.to_vec(),
                router_alpha: grid.router_alpha.to_vec(),
                lr: grid.lr.to_vec(),
            },
            cells: ex.tuned.trials.len(),
            stage1_best: stage1.iter().take(3).map(|t| cell(t)).collect(),
            chosen,
        },
        transfer: Transfer {
            about: "each candidate router (kind x top-k x alpha) walks every test \
                    conversation cold; fold j picks the candidate with the highest outcome \
                    rate (share of +1 outcomes) over the other test conversations and is \
                    scored on conversation j"
                .into(),
            candidates: ex.candidates.len(),
            folds: ex
                .choices
                .iter()
                .map(|c| {
                    let a = &ex.candidates[c.chosen];
                    TransferFold {
                        conversation: ex.conversations[ex.tests[c.fold.test]].sample_id.clone(),
                        chosen: a.name.clone(),
                        router_top_k: a.knobs.router.top_k,
                        router_alpha: a.knobs.router.alpha,
                        learn_outcome_rate: c.learn_rate,
                    }
                })
                .collect(),
        },
        arms: ex
            .arms
            .iter()
            .filter(|a| a.name != super::run::TRANSFER_ARM)
            .map(|a| (a.name.clone(), knobs_doc(a)))
            .collect(),
    })
}

/// The `files` block and the files: the multi-hop test questions' qrels and the runs of
/// [`RUN_ARMS`] on them (see the module docs).
fn run_files(plan: &LocomoPlan, ex: &LocomoRun, out: &Path) -> Result<(Slot<Files>, Vec<Sidecar>)> {
    if plan.args.no_run_files {
        return Ok((Slot::Null, Vec::new()));
    }
    let dir = out.parent().unwrap_or(Path::new("")).join(RUNS_DIR);
    let qrels_name = format!("locomo-{}.qrels.xz", RUN_CATEGORY.as_str());
    let mut qrels = String::new();
    for &i in &ex.tests {
        let p = &ex.prepared[i];
        let c = &p.cc.corpus;
        qrels.push_str(&trec::qrels_text(
            c.queries
                .iter()
                .zip(&p.cc.category)
                .filter(|(_, &cat)| cat == RUN_CATEGORY)
                .map(|(q, _)| (q.qid.as_str(), q.relevant.as_slice())),
            |d| c.nodes[d].id.as_str(),
        ));
    }
    let mut files = vec![Sidecar {
        path: dir.join(&qrels_name),
        bytes: trec::xz(qrels.as_bytes())?,
    }];
    let mut runs = IndexMap::new();
    for name in RUN_ARMS {
        let Some(arm) = ex.arms.iter().find(|a| a.name == name) else {
            continue;
        };
        let mut text = String::new();
        for &i in &ex.tests {
            let p = &ex.prepared[i];
            let c = &p.cc.corpus;
            let lists = arm.lists(p)?;
            text.push_str(&trec::run_text(
                &arm.name,
                c.queries
                    .iter()
                    .zip(&lists)
                    .zip(&p.cc.category)
                    .filter(|(_, &cat)| cat == RUN_CATEGORY)
                    .map(|((q, l), _)| (q.qid.as_str(), &l[..l.len().min(RUN_DEPTH)])),
                |d| c.nodes[d].id.as_str(),
            ));
        }
        let file = format!("{}.{}.run.xz", plan.stem(), arm.name);
        runs.insert(arm.name.clone(), format!("{RUNS_DIR}/{file}"));
        files.push(Sidecar {
            path: dir.join(&file),
            bytes: trec::xz(text.as_bytes())?,
        });
    }
    Ok((
        Slot::Value(Files {
            qrels: format!("{RUNS_DIR}/{qrels_name}"),
            runs,
            run_format: format!(
                "{}; LoCoMo: the test conversations' {} questions, the first {RUN_DEPTH} \
                 ranks; document ids are dia_ids (unique within a question's conversation)",
                trec::RUN_FORMAT,
                RUN_CATEGORY.as_str()
            ),
        }),
        files,
    ))
}

/// The one-screen summary: every arm's means on all questions and on multi-hop, then the
/// families of recall@10.
pub fn summary(s: &Sections) -> String {
    let cols = ["recall_at_5", "recall_at_10", "recall_at_budget"];
    let mut out = String::from("LoCoMo, eight test conversations (all questions):\n");
    out.push_str(&report::method_table(
        "arm",
        s.method_metrics.iter().map(|(m, v)| {
            (
                m.as_str(),
                cols.iter().map(|c| v.get(*c).copied()).collect(),
            )
        }),
        &cols,
        18,
    ));
    for f in s
        .against_best_baseline
        .iter()
        .filter(|f| f.slice == "all" || f.slice == "multi-hop")
    {
        // the first arm of the highest mean (the later ones tie with it or are lower)
        let best = f
            .rows
            .iter()
            .fold(None::<&Row>, |b, r| match b {
                Some(b) if b.mean >= r.mean => Some(b),
                _ => Some(r),
            })
            .map_or(String::new(), |r| {
                format!(
                    "best traversal {} {:.4} ({:+.4}, 95% CI [{:+.4}, {:+.4}], p_holm {:.4}, MDD \
                     {:.4})",
                    r.arm,
                    r.mean,
                    r.diff,
                    r.ci95_low,
                    r.ci95_high,
                    r.p_holm,
                    r.mdd80.unwrap_or(f64::NAN)
                )
            });
        out.push_str(&format!(
            "{} on {} ({} questions): best baseline {} {:.4}; {best}\n",
            f.metric, f.slice, f.questions, f.best_baseline, f.baseline_mean
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> RunArgs {
        RunArgs::from_command_line(line).unwrap()
    }

    #[test]
    fn options_of_other_protocols_and_tuned_knobs_are_refused() {
        let p = LocomoProtocol;
        for (flag, line) in [
            ("--max-hops", "bench run --dataset locomo --max-hops 2"),
            ("--protocol", "bench run --dataset locomo --protocol clean"),
            ("--router", "bench run --dataset locomo --router edge"),
            ("--limit", "bench run --dataset locomo --limit 5"),
            ("--lr", "bench run --dataset locomo --lr 0.1"),
        ] {
            let e = p.plan(&args(line)).unwrap_err().to_string();
            assert!(e.starts_with(flag) && e.contains("does not apply"), "{e}");
        }
        assert!(p
            .plan(&args("bench run --dataset locomo --variant first103"))
            .is_err());
        assert!(p
            .plan(&args("bench run --dataset locomo --splits 1"))
            .is_err());
    }

    #[test]
    fn the_recorded_command_line_parses_back_to_the_same_plan() {
        let p = LocomoProtocol;
        let plan = p
            .plan(&args(
                "bench run --dataset locomo --embedder minilm --core-profile corrected \
                 --splits 21",
            ))
            .unwrap();
        assert_eq!(plan.stem(), "locomo-minilm-corrected-splits21");
        assert!(plan.minilm);
        let line = plan.command_line(None);
        let again = p.plan(&args(&line)).unwrap();
        assert_eq!(again.command_line(None), line);
        assert_eq!(again.options.splits, plan.options.splits);
        assert_eq!(
            p.plan(&args("bench run --dataset locomo")).unwrap().stem(),
            "locomo-hash-v1"
        );
    }
}
