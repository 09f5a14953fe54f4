//! The repository protocol (`bench repo`, see the module docs of [`super`]): its plan,
//! and its [`Repository`] implementation of [`crate::protocol::Protocol`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use crabpath::{Graph, LearningConfig, NodeId, PgArgs, Profile, TraversalConfig};
use indexmap::IndexMap;
use indicatif::ProgressBar;
use pyformat::pyjson::PyValue;
use results::repo::{
    CorpusRule, EvaluationDesign, ExcludedFile, GraphDoc, GraphEdge, InitTiming, Latency,
    LearnedGraph, MethodReport, OutcomeRule, PerQuery, Report, Scores, TraversalInfo,
};

use super::args::{
    CorpusArg, DenseArg, EvaluationArg, OutcomeArg, ProfileArg, ProtocolArg, RepoArgs,
};
use super::clean;
use super::corpus::{relative_to, resolve, Corpus, EmbeddingIndex, Excluded};
use super::error::{internal, RepoError, Result};
use super::methods::{
    Engines, HeldOut, HeldOutSpec, Method, Outcome, Params, Run, BM25, DENSE, PAPER_METHODS,
};
use super::metrics::{
    budget_score_names, budget_scores, checkpoint_key, checkpoints, means, percentile,
    reference_scores, ScoreRows,
};
use super::output::{environment, preamble_head, preamble_tail, table};
use super::queries::{self, Queries, QueryRow};
use super::tree;
use crate::embed::{EmbedderArg, ModelOpts, TextEmbedder};
use crate::protocol::{Env, Protocol};
use crate::report::{Format, Sidecar, Written};
use crate::retrieval::Bm25;

/// The reference's output path (relative to the current directory), excluded from a
/// clean corpus.
pub const REFERENCE_RESULTS: &str = "benchmarks/results.json";

/// Everything a run needs, every default resolved.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Workspace as given.
    pub workspace: PathBuf,
    /// Queries path as given.
    pub queries: String,
    /// Core semantics.
    pub profile: Profile,
    /// `paper` or `clean` (the name recorded; the switches below decide).
    pub protocol: ProtocolArg,
    /// Corpus rule.
    pub corpus: CorpusArg,
    /// Learning outcome.
    pub outcome: Outcome,
    /// Online or held-out, with the held-out design.
    pub heldout: Option<HeldOutSpec>,
    /// Run the BM25 baseline.
    pub bm25: bool,
    /// Run the MiniLM baseline (model options).
    pub dense: Option<ModelOpts>,
    /// Score at equal file budgets and compare with paired tests.
    pub fair_scoring: bool,
    /// Extra exclusion patterns.
    pub patterns: Vec<String>,
    /// Method parameters.
    pub params: Params,
    /// The three traversal flags as given.
    pub traversal: TraversalInfo,
    /// Bootstrap resamples and seed.
    pub bootstrap: (usize, u64),
    /// Expected tree hash and its commit, if any.
    pub expect_tree: Option<(String, Option<String>)>,
    /// Output path.
    pub out: PathBuf,
    /// Where to write the workspace graph (`--graph-out`).
    pub graph_out: Option<PathBuf>,
    /// Label for the workspace.
    pub workspace_label: Option<String>,
    /// Zero the timings.
    pub no_timings: bool,
    /// Draw progress bars.
    pub progress: bool,
}

fn usize_flag(v: i64) -> usize {
    v.max(0) as usize
}

impl Plan {
    /// Resolves the flags (see [`RepoArgs`]).
    pub fn from_args(a: &RepoArgs) -> Result<Plan> {
        let profile = match a.profile {
            ProfileArg::Paper => Profile::Paper,
            ProfileArg::Corrected => Profile::Corrected,
        };
        let protocol = a.protocol.unwrap_or(match profile {
            Profile::Paper => ProtocolArg::Paper,
            Profile::Corrected => ProtocolArg::Clean,
        });
        let clean = protocol == ProtocolArg::Clean;
        let corpus = a.corpus.unwrap_or(if clean {
            CorpusArg::Clean
        } else {
            CorpusArg::AsIs
        });
        let outcome = match a.outcome.unwrap_or(if clean {
            OutcomeArg::Relevance
        } else {
            OutcomeArg::Fixed
        }) {
            OutcomeArg::Fixed => Outcome::Fixed(1.0),
            OutcomeArg::Relevance => Outcome::Relevance { k: a.outcome_k },
        };
        let evaluation = a.evaluation.unwrap_or(if clean {
            EvaluationArg::Heldout
        } else {
            EvaluationArg::Online
        });
        if evaluation == EvaluationArg::Heldout && (a.folds < 2 || a.repetitions == 0) {
            return Err(RepoError::Usage(format!(
                "--evaluation heldout needs --folds >= 2 and --repetitions >= 1 (got {} and {})",
                a.folds, a.repetitions
            )));
        }
        let heldout = (evaluation == EvaluationArg::Heldout).then_some(HeldOutSpec {
            folds: a.folds,
            repetitions: a.repetitions,
            seed: a.seed,
        });
        // Traversal configs: a negative flag acts as 0 (the reference returns an empty
        // result for max_hops <= 0 or beam_width <= 0).
        let base = |hops: i64| {
            profile.adjust_traversal(TraversalConfig {
                max_hops: usize_flag(hops),
                beam_width: usize_flag(a.traverse_beam_width),
                ..TraversalConfig::default()
            })
        };
        let t = base(a.traverse_max_hops);
        let mut ni = t.clone();
        ni.tiers.inhibitory = -999.0;
        let r = base(a.replay_max_hops);
        let params = Params {
            seed_top_k: a.seed_top_k,
            hash_top_k: a.hash_top_k,
            traverse_seed_k: a.traverse_seed_k,
            t,
            ni,
            r,
            learning: profile.adjust_learning(LearningConfig::default()),
            pg: PgArgs::default(),
            profile,
        };
        let expect_tree = match &a.expect_tree {
            None => None,
            Some(s) => match tree::known(s) {
                Some(k) => Some((k.tree.to_string(), Some(k.commit.to_string()))),
                None if s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit()) => {
                    Some((s.to_ascii_lowercase(), None))
                }
                None => {
                    return Err(RepoError::Usage(format!(
                        "--expect-tree {s}: neither a 40-digit tree hash nor a known commit \
                         ({})",
                        tree::known_workspaces()
                            .iter()
                            .map(|k| &k.commit[..7])
                            .collect::<Vec<_>>()
                            .join(", ")
                    )))
                }
            },
        };
        let queries = a.queries.clone().unwrap_or_else(|| {
            a.workspace
                .join("benchmarks/queries.json")
                .to_string_lossy()
                .into_owned()
        });
        Ok(Plan {
            workspace: a.workspace.clone(),
            queries,
            profile,
            protocol,
            corpus,
            outcome,
            heldout,
            bm25: clean,
            dense: (clean && a.dense == DenseArg::Minilm).then(|| a.model.clone()),
            fair_scoring: clean,
            patterns: a.exclude.clone(),
            params,
            traversal: TraversalInfo {
                max_hops: a.traverse_max_hops,
                beam_width: a.traverse_beam_width,
                seed_k: a.traverse_seed_k,
            },
            bootstrap: (a.bootstrap, a.bootstrap_seed),
            expect_tree,
            out: a
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from(REFERENCE_RESULTS)),
            graph_out: a.graph_out.clone(),
            workspace_label: a.workspace_label.clone(),
            no_timings: a.no_timings,
            progress: !a.no_progress,
        })
    }

    /// Whether this is the reference's protocol exactly (its report, nothing added).
    pub fn is_reference(&self) -> bool {
        self.corpus == CorpusArg::AsIs
            && self.outcome == Outcome::Fixed(1.0)
            && self.heldout.is_none()
            && !self.bm25
            && self.dense.is_none()
            && !self.fair_scoring
            && self.patterns.is_empty()
    }

    /// The methods run, in report order.
    pub fn methods(&self) -> Vec<Method> {
        let mut m = PAPER_METHODS.to_vec();
        if self.bm25 {
            m.push(BM25);
        }
        if self.dense.is_some() {
            m.push(DENSE);
        }
        m
    }

    /// Files the clean corpus leaves out: the queries file and the outputs, when they
    /// lie inside the workspace.
    fn exclusions(&self, root: &Path) -> Vec<Excluded> {
        if self.corpus == CorpusArg::AsIs {
            return Vec::new();
        }
        let mut v: Vec<Excluded> = Vec::new();
        let mut add = |p: &Path, reason: &str| {
            if let Some(rel) = relative_to(root, p) {
                if !v.iter().any(|x| x.rel == rel) {
                    v.push(Excluded {
                        rel,
                        reason: reason.into(),
                    });
                }
            }
        };
        add(Path::new(&self.queries), "the benchmark's queries file");
        add(&self.out, "this run's results file");
        if let Some(g) = &self.graph_out {
            add(g, "this run's graph file");
        }
        add(
            &root.join(REFERENCE_RESULTS),
            "the reference benchmark's results file",
        );
        v
    }
}

/// The rankings of one method.
enum Rankings {
    /// One pass (all methods under online evaluation; single-pass methods always).
    Online(Run),
    /// Held-out (learning methods under held-out evaluation).
    HeldOut(HeldOut),
}

/// What the repository protocol reads: the queries, the workspace split into its corpus,
/// and the hash-v1 index every method starts from.
pub struct RepoInputs {
    /// The queries file.
    pub queries: Queries,
    /// The workspace as shown (absolute, or `--workspace-label`).
    pub shown: String,
    /// The split workspace.
    pub corpus: Corpus,
    /// Its hash-v1 index.
    pub hash: EmbeddingIndex,
}

/// What the repository protocol's methods produced.
pub struct RepoExecuted {
    /// The methods, in report order.
    pub methods: Vec<Method>,
    /// Their rankings.
    rankings: Vec<Rankings>,
    /// The graph [`GRAPH_METHOD`] learned (online evaluation).
    pub learned: Option<Graph>,
}

/// The repository benchmark as a protocol (see the module docs of [`super`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Repository;

impl Protocol for Repository {
    type Args = RepoArgs;
    type Plan = Plan;
    type Inputs = RepoInputs;
    type Executed = RepoExecuted;
    type Report = Report<PyValue>;
    type Error = RepoError;

    fn plan(&self, args: &RepoArgs) -> Result<Plan> {
        Plan::from_args(args)
    }

    /// Loads the queries, prints the first preamble line, checks and splits the workspace,
    /// builds the hash-v1 index and prints the rest of the preamble (the reference prints
    /// the first line before splitting).
    fn open(&self, plan: &Plan, env: &mut Env) -> Result<RepoInputs> {
        let queries = queries::load(&plan.queries)?;
        let root = resolve(&plan.workspace);
        let shown = plan
            .workspace_label
            .clone()
            .unwrap_or_else(|| root.display().to_string());
        env.say(&preamble_head(&shown));
        if !root.exists() {
            return Err(RepoError::Split(crabpath_brain::Error::WorkspaceNotFound(
                root,
            )));
        }
        if let Some((expected, commit)) = &plan.expect_tree {
            let actual = tree::tree_hash(&root)?;
            if &actual != expected {
                return Err(RepoError::TreeMismatch {
                    path: root,
                    expected: expected.clone(),
                    commit: commit.clone(),
                    actual,
                });
            }
        }
        let exclusions = plan.exclusions(&root);
        let corpus = Corpus::split(&root, plan.profile, &exclusions, &plan.patterns)?;
        let started = Instant::now();
        let hash_embedder = TextEmbedder::open(EmbedderArg::HashV1, &ModelOpts::default())?;
        let hash = EmbeddingIndex::build(&corpus, hash_embedder, started, &ProgressBar::hidden())?;
        let mut timing = InitTiming {
            split: corpus.split_ms,
            embed: hash.build_ms,
        };
        if plan.no_timings {
            timing = InitTiming::default();
        }
        env.say(&preamble_tail(corpus.len(), corpus.len(), timing));
        Ok(RepoInputs {
            queries,
            shown,
            corpus,
            hash,
        })
    }

    fn execute(&self, plan: &Plan, inputs: &RepoInputs, env: &mut Env) -> Result<RepoExecuted> {
        let (corpus, rows) = (&inputs.corpus, &inputs.queries.rows);
        let mp = &env.progress;
        let bm25 = plan.bm25.then(|| Bm25::new(&corpus.texts()));
        let dense = match &plan.dense {
            None => None,
            Some(opts) => {
                let t = Instant::now();
                let e = TextEmbedder::open(EmbedderArg::Minilm, opts)?;
                let b = crate::methods::bar(mp, corpus.len(), "embedding (MiniLM)", 24);
                let ix = EmbeddingIndex::build(corpus, e, t, &b)?;
                b.finish_and_clear();
                let texts: Vec<&str> = rows.iter().map(|r| r.query.as_str()).collect();
                let qv = ix.embed(&texts)?;
                Some((ix, qv))
            }
        };
        let engines = Engines {
            corpus,
            hash: &inputs.hash,
            bm25: bm25.as_ref(),
            dense: dense.as_ref().map(|(ix, qv)| (ix, qv.as_slice())),
            params: &plan.params,
        };
        let methods = plan.methods();
        let mut rankings: Vec<Rankings> = Vec::with_capacity(methods.len());
        let mut learned: Option<Graph> = None;
        for m in &methods {
            let r = match &plan.heldout {
                Some(spec) if m.learns() => {
                    let b = crate::methods::bar(mp, 1, m.name, 24);
                    let h = engines.heldout(m, rows, spec, plan.outcome)?;
                    b.finish_and_clear();
                    Rankings::HeldOut(h)
                }
                _ => {
                    let b = crate::methods::bar(mp, rows.len(), m.name, 24);
                    let (run, graph) = engines.online(m, rows, plan.outcome, &b)?;
                    b.finish_and_clear();
                    if m.name == GRAPH_METHOD {
                        learned = Some(graph);
                    }
                    Rankings::Online(run)
                }
            };
            rankings.push(r);
        }
        let _ = mp.clear();
        Ok(RepoExecuted {
            methods,
            rankings,
            learned,
        })
    }

    /// The report; prints the reference's table (and the clean protocol's summary); the
    /// `--graph-out` document goes beside it.
    fn report(
        &self,
        plan: &Plan,
        inputs: &RepoInputs,
        ex: RepoExecuted,
        env: &mut Env,
    ) -> Result<Written<Report<PyValue>>> {
        let rows = &inputs.queries.rows;
        let report = assemble(
            plan,
            &inputs.queries.source,
            &inputs.shown,
            &inputs.corpus,
            &inputs.hash,
            rows,
            &ex.methods,
            &ex.rankings,
        )?;
        let rows_out: Vec<(&str, Scores, Latency)> = report
            .methods
            .iter()
            .map(|(n, m)| (n.as_str(), m.scores, m.latency_ms))
            .collect();
        env.say(&table(&rows_out));
        if plan.fair_scoring {
            env.say(&clean::summary(&report));
        }
        let mut files = Vec::new();
        if let Some(path) = &plan.graph_out {
            let doc = graph_doc(
                &inputs.shown,
                &inputs.corpus,
                ex.learned.as_ref(),
                rows.len(),
            );
            files.push(Sidecar {
                path: path.clone(),
                bytes: json_maybe_gz(path, &doc)?,
            });
        }
        Ok(Written {
            document: report,
            path: plan.out.clone(),
            format: Format::Python,
            files,
        })
    }
}

/// Per-query scores of one ranking: file names (first 5), reference scores, budget
/// scores.
struct Scored {
    predicted: Vec<String>,
    reference: [f64; 4],
    budget: Vec<f64>,
}

fn score(corpus: &Corpus, ranking: &[NodeId], row: &QueryRow) -> Scored {
    let files = corpus.ranked_files(ranking);
    let names: Vec<&str> = files
        .iter()
        .map(|&f| corpus.files[f as usize].as_str())
        .collect();
    let mut next_missing = corpus.files.len() as u32;
    let relevant: Vec<u32> = row
        .relevant_files
        .iter()
        .map(|f| {
            corpus.file_id(f).unwrap_or_else(|| {
                next_missing += 1;
                next_missing - 1
            })
        })
        .collect();
    Scored {
        predicted: names.iter().take(5).map(|s| s.to_string()).collect(),
        reference: reference_scores(&names, row),
        budget: budget_scores(&files, &relevant),
    }
}

fn named(names: &[&str], vals: &[f64]) -> IndexMap<String, f64> {
    names
        .iter()
        .zip(vals)
        .map(|(n, v)| (n.to_string(), *v))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    plan: &Plan,
    source: &str,
    shown: &str,
    corpus: &Corpus,
    hash: &EmbeddingIndex,
    rows: &[QueryRow],
    methods: &[Method],
    rankings: &[Rankings],
) -> Result<Report<PyValue>> {
    let fair = plan.fair_scoring;
    // The clean protocol scores only queries with a relevant file.
    let evaluated: Vec<usize> = if fair {
        (0..rows.len())
            .filter(|&i| !rows[i].relevant_files.is_empty())
            .collect()
    } else {
        (0..rows.len()).collect()
    };
    let bnames = budget_score_names();
    let mut reports: IndexMap<String, MethodReport<PyValue>> = IndexMap::new();
    let mut per_method_rows: IndexMap<String, ScoreRows> = IndexMap::new();
    let mut cold_rows: IndexMap<String, ScoreRows> = IndexMap::new();
    for (m, r) in methods.iter().zip(rankings) {
        let mut per_query = Vec::with_capacity(evaluated.len());
        let mut ref_rows: Vec<Vec<f64>> = Vec::new();
        let mut bud_rows: Vec<Vec<f64>> = Vec::new();
        let mut learning_curve = IndexMap::new();
        let mut heldout_curve = None;
        let latencies: Vec<f64>;
        match r {
            Rankings::Online(run) => {
                let n = evaluated.len();
                let marks = if m.learns() {
                    checkpoints(n)
                } else {
                    Vec::new()
                };
                for (j, &qi) in evaluated.iter().enumerate() {
                    let s = score(corpus, &run.rankings[qi], &rows[qi]);
                    ref_rows.push(s.reference.to_vec());
                    bud_rows.push(s.budget.clone());
                    per_query.push(PerQuery {
                        query: rows[qi].query.clone(),
                        relevant: rows[qi].relevant.clone(),
                        predicted_files: s.predicted,
                        scores: Scores::from(s.reference),
                        latency_ms: run.latencies_ms[qi],
                        budget_scores: fair.then(|| named(&bnames, &s.budget)),
                    });
                    if marks.contains(&(j + 1)) {
                        learning_curve.insert(
                            checkpoint_key(j + 1, n),
                            Scores::from(means(&ref_rows, 4).as_slice()),
                        );
                    }
                }
                latencies = evaluated.iter().map(|&qi| run.latencies_ms[qi]).collect();
            }
            Rankings::HeldOut(h) => {
                let reps = h.rankings.len() as f64;
                let mut curve_ref: Vec<Vec<Vec<f64>>> = vec![Vec::new(); h.checkpoints.len()];
                let mut curve_bud: Vec<Vec<Vec<f64>>> = vec![Vec::new(); h.checkpoints.len()];
                let mut predicted_last = vec![Vec::new(); rows.len()];
                for (ci, _) in h.checkpoints.iter().enumerate() {
                    for &qi in &evaluated {
                        let mut rsum = [0.0; 4];
                        let mut bsum = vec![0.0; bnames.len()];
                        for (rep, per_rep) in h.rankings.iter().enumerate() {
                            let ranking = per_rep[ci][qi].as_deref().ok_or_else(|| {
                                internal(format!("{}: query {qi} was not evaluated", m.name))
                            })?;
                            let s = score(corpus, ranking, &rows[qi]);
                            for (a, b) in rsum.iter_mut().zip(s.reference) {
                                *a += b;
                            }
                            for (a, b) in bsum.iter_mut().zip(&s.budget) {
                                *a += b;
                            }
                            if rep == 0 && ci + 1 == h.checkpoints.len() {
                                predicted_last[qi] = s.predicted;
                            }
                        }
                        curve_ref[ci].push(rsum.iter().map(|x| x / reps).collect());
                        curve_bud[ci].push(bsum.iter().map(|x| x / reps).collect());
                    }
                }
                let mut hc = IndexMap::new();
                for (ci, c) in h.checkpoints.iter().enumerate() {
                    let key = c.map_or_else(|| "all".to_string(), |x| x.to_string());
                    learning_curve.insert(
                        key.clone(),
                        Scores::from(means(&curve_ref[ci], 4).as_slice()),
                    );
                    hc.insert(key, named(&bnames, &means(&curve_bud[ci], bnames.len())));
                }
                heldout_curve = Some(hc);
                let last = h.checkpoints.len() - 1;
                ref_rows = curve_ref[last].clone();
                bud_rows = curve_bud[last].clone();
                cold_rows.insert(
                    m.name.to_string(),
                    (curve_ref[0].clone(), curve_bud[0].clone()),
                );
                for (j, &qi) in evaluated.iter().enumerate() {
                    per_query.push(PerQuery {
                        query: rows[qi].query.clone(),
                        relevant: rows[qi].relevant.clone(),
                        predicted_files: std::mem::take(&mut predicted_last[qi]),
                        scores: Scores::from(ref_rows[j].as_slice()),
                        latency_ms: h.latencies_ms[qi],
                        budget_scores: Some(named(&bnames, &bud_rows[j])),
                    });
                }
                latencies = evaluated.iter().map(|&qi| h.latencies_ms[qi]).collect();
            }
        }
        let mut latency = Latency {
            p50_ms: percentile(&latencies, 0.5),
            p95_ms: percentile(&latencies, 0.95),
        };
        if plan.no_timings {
            latency = Latency::default();
            for p in &mut per_query {
                p.latency_ms = 0.0;
            }
        }
        reports.insert(
            m.name.to_string(),
            MethodReport {
                scores: Scores::from(means(&ref_rows, 4).as_slice()),
                latency_ms: latency,
                per_query,
                learning_curve,
                budget_scores: fair.then(|| named(&bnames, &means(&bud_rows, bnames.len()))),
                heldout_curve,
            },
        );
        per_method_rows.insert(m.name.to_string(), (ref_rows, bud_rows));
    }
    let mut report = Report {
        generated_at: if plan.no_timings {
            pyformat::pytime::isoformat_utc(0, 0)
        } else {
            pyformat::pytime::now_isoformat_utc()
        },
        workspace: shown.to_string(),
        query_source: source.to_string(),
        query_count: rows.len(),
        init_timing_ms: if plan.no_timings {
            InitTiming::default()
        } else {
            InitTiming {
                split: corpus.split_ms,
                embed: hash.build_ms,
            }
        },
        graph_nodes: corpus.graph.node_count(),
        chunks: corpus.len(),
        embedder: hash.embedder.name().to_string(),
        embedder_dim: hash.embedder.dim(),
        traversal: plan.traversal,
        environment: environment(),
        methods: reports,
        protocol: None,
        paired: None,
        verdict: None,
    };
    if !plan.is_reference() {
        report.protocol = Some(protocol(plan, corpus, rows, &evaluated));
    }
    if fair {
        let graph_methods: Vec<&str> = methods
            .iter()
            .filter(|m| matches!(m.kind, super::methods::Kind::Traverse { .. }))
            .map(|m| m.name)
            .collect();
        let (paired, verdict) = clean::compare(
            &per_method_rows,
            &cold_rows,
            &graph_methods,
            plan.bootstrap.0,
            plan.bootstrap.1,
        );
        report.paired = Some(paired);
        report.verdict = Some(verdict);
    }
    Ok(report)
}

/// The `protocol` object of a run that is not the reference's.
fn protocol(
    plan: &Plan,
    corpus: &Corpus,
    rows: &[QueryRow],
    evaluated: &[usize],
) -> results::repo::Protocol {
    let outcome = match plan.outcome {
        Outcome::Fixed(o) => OutcomeRule {
            rule: "fixed".into(),
            value: Some(o),
            k: None,
            description: None,
        },
        Outcome::Relevance { k } => OutcomeRule {
            rule: "relevance".into(),
            value: None,
            k: Some(k),
            description: Some(format!(
                "+1 if one of the query's relevant files is among the method's first {k} \
                 files, else -1; queries without a relevant file are not learned from"
            )),
        },
    };
    let evaluation = match &plan.heldout {
        None => EvaluationDesign {
            design: "online".into(),
            folds: None,
            repetitions: None,
            seed: None,
            description: "one pass in file order; each query is scored before the method \
                          learns from it"
                .into(),
        },
        Some(s) => EvaluationDesign {
            design: "heldout".into(),
            folds: Some(s.folds),
            repetitions: Some(s.repetitions),
            seed: Some(s.seed),
            description: "learning methods: the labelled queries are dealt into folds at \
                          random (ChaCha8, seed + repetition); a fresh graph learns online, in \
                          file order, from the other folds and the fold is scored on the frozen \
                          graph; scores are averaged over the repetitions; learning_curve / \
                          heldout_curve keys = training queries seen (0 = cold traversal, all = \
                          every training query of the fold)"
                .into(),
        },
    };
    results::repo::Protocol {
        name: match plan.protocol {
            ProtocolArg::Paper => "paper",
            ProtocolArg::Clean => "clean",
        }
        .into(),
        profile: plan.profile.as_str().into(),
        corpus: CorpusRule {
            rule: match plan.corpus {
                CorpusArg::AsIs => "as-is",
                CorpusArg::Clean => "clean",
            }
            .into(),
            excluded: corpus
                .excluded
                .iter()
                .map(|e| ExcludedFile {
                    file: e.rel.clone(),
                    reason: e.reason.clone(),
                })
                .collect(),
            exclude_patterns: plan.patterns.clone(),
            files: corpus.files.len(),
        },
        outcome,
        evaluation,
        evaluated_queries: evaluated.len(),
        queries_without_relevant_file: (0..rows.len())
            .filter(|&i| rows[i].relevant_files.is_empty())
            .collect(),
        budget_scores: plan.fair_scoring.then(|| {
            "every method cut to its first k distinct files (k = 5, 10), shorter lists not \
             padded; files_returned = distinct files ranked, capped at 10"
                .into()
        }),
    }
}

/// The learning method whose graph `--graph-out` records.
pub const GRAPH_METHOD: &str = "crabpath_traverse";

/// Edges as `[source position, target position, weight to 4 decimals]`, in the graph's
/// edge order.
fn edge_rows(g: &Graph) -> Vec<GraphEdge> {
    g.edges()
        .map(|(s, t, e)| (s.index(), t.index(), (e.weight * 1e4).round() / 1e4))
        .collect()
}

/// The `--graph-out` document: files, each node's file (index into `files`, `null`
/// when it has none), the split graph's edges and those of [`GRAPH_METHOD`]'s graph
/// after the queries (`null` when it learned none).
fn graph_doc(shown: &str, corpus: &Corpus, learned: Option<&Graph>, queries: usize) -> GraphDoc {
    GraphDoc {
        workspace: shown.to_string(),
        description: "nodes = chunks in node order; node_file = index into files; edges = \
                      [source, target, weight] by node position, weights rounded to 4 decimals"
            .into(),
        files: corpus.files.clone(),
        node_file: (0..corpus.len())
            .map(|i| corpus.file_index(Corpus::node_id(i)))
            .collect(),
        bootstrap_edges: edge_rows(&corpus.graph),
        learned: learned.map(|g| LearnedGraph {
            method: GRAPH_METHOD.into(),
            queries,
            edges: edge_rows(g),
        }),
    }
}

/// `doc` as compact JSON, gzip-compressed (level 9, no name or time in the header) when
/// `path` ends in `.gz`.
fn json_maybe_gz(path: &Path, doc: &GraphDoc) -> Result<Vec<u8>> {
    let text = serde_json::to_string(doc).map_err(internal)?;
    if path.extension().is_some_and(|x| x == "gz") {
        let mut enc = flate2::GzBuilder::new()
            .operating_system(255)
            .write(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut enc, text.as_bytes()).map_err(internal)?;
        enc.finish().map_err(internal)
    } else {
        Ok(text.into_bytes())
    }
}
