//! `bench run --dataset locomo --protocol product`: LoCoMo's headline row through the
//! product's own path (issue 28, "Measured, side by side in one run").
//!
//! * **Brains.** Every conversation's turns ([`super::turns`]) are built into a brain by
//!   the code of `crabpath init --conversation` ([`super::product::build`]), one node per
//!   turn, in a temporary directory.
//! * **Questions.** Every question of the release (all ten conversations, 1,986, category 5
//!   included) is asked through `Brain::query` with limit [`LIMIT`], once per product arm
//!   ([`super::product::ARMS`]: the default query, hybrid seeds alone, lexical alone,
//!   dense alone; those the product's API offers, [`super::product::available`]), with the
//!   run's embedder (`--embedder hash-v1 | minilm | mpnet`).
//! * **Knob.** The seeds of the default query (`top`) are chosen from [`TOP_GRID`] on
//!   conv-26 and conv-30 only: the highest mean recall@10 there, the smaller on a tie.
//! * **Baselines** over the same turns: BM25 ([`crate::retrieval::Bm25`]), dense search
//!   with hash-v1 (and MiniLM in a MiniLM run) and RRF of BM25 with the run's dense search
//!   ([`crate::retrieval::reciprocal_rank_fusion`], k = 60), each [`LIMIT`] long.
//! * **Scores.** The paper's definition ([`super::paper`]) by category on all ten
//!   conversations for every arm, with the mean characters of the first 10 nodes; on the
//!   eight test conversations, every arm's means and every pair of arms tested on
//!   recall@10 ([`crate::significance::test_all_pairs`]: randomization test, Holm,
//!   bootstrap interval), with the headline's minimum detectable difference against each.
//! * **Files** (xz TREC, unless `--no-run-files`): the headline arm's run on every
//!   question (top 50), BM25's (top 10), the qrels of every question's released evidence
//!   ([`super::paper::evidence_docid`]) and the list of every question id; `bench check`
//!   re-derives the paper table of the headline arm from them ([`rederive_check`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

use indexmap::IndexMap;
use indicatif::ProgressBar;
use results::bench::{Configuration, Files, PairedTests, Report, Sections, Seeds};
use results::locomo_product::{PaperTable, Product, ProductDesign, ProductTuning};
use results::Slot;

use super::data::{Category, Locomo};
use super::manifest::{manifest, provenance, ReadFile, ScoredIds};
use super::paper::{self, KS};
use super::product::{self, available, ProductArm, ARMS, LIMIT};
use super::protocol::{finish, input_name};
use super::splits::{Role, TUNING_CONVERSATIONS};
use crate::catalog::{self, Dataset, KnownFile};
use crate::embed::{EmbedderArg, TextEmbedder};
use crate::error::{Error, Result};
use crate::plan::{ProtocolArg, RunArgs, COMMAND_PREFIX, DEFAULT_OUT_DIR, RUNS_DIR};
use crate::protocol::{Env, Protocol};
use crate::report::{Sidecar, Written};
use crate::retrieval::{reciprocal_rank_fusion, Bm25, CosineIndex, RRF_K};
use crate::significance::{summarize, test_all_pairs, tests_block};
use crate::trec;

/// The seeds of the default query tried on the tuning conversations.
pub const TOP_GRID: [usize; 7] = [4, 6, 8, 12, 16, 24, 32];

/// Ranks of BM25's run file (issue 28: "BM25 (top 10)").
pub const BM25_RUN_DEPTH: usize = 10;

/// The product path protocol (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlineProtocol;

/// The resolved options.
#[derive(Debug, Clone)]
pub struct HeadlinePlan {
    /// The options as given.
    pub args: RunArgs,
    /// The release file.
    pub file: &'static KnownFile,
}

impl HeadlinePlan {
    /// `locomo-product-<embedder>`.
    pub fn stem(&self) -> String {
        format!("locomo-product-{}", self.args.embedder.slug())
    }

    /// Where the report goes.
    pub fn report_path(&self) -> PathBuf {
        match &self.args.out {
            Some(p) => p.clone(),
            None => PathBuf::from(DEFAULT_OUT_DIR).join(format!("{}.json", self.stem())),
        }
    }

    /// The command line that reproduces the run.
    pub fn command_line(&self, input_name: Option<&str>) -> String {
        let a = &self.args;
        let mut c = vec![COMMAND_PREFIX.to_string(), "--dataset locomo".into()];
        match input_name {
            None => c.push("--variant full".into()),
            Some(name) => c.push(format!("--input {name}")),
        }
        c.push("--protocol product".into());
        c.push(format!("--embedder {}", a.embedder.slug()));
        c.push(format!("--bootstrap {}", a.stats.bootstrap));
        c.push(format!("--bootstrap-seed {}", a.stats.bootstrap_seed));
        c.push(format!("--permutations {}", a.stats.permutations));
        if a.no_run_files {
            c.push("--no-run-files".into());
        }
        c.join(" ")
    }
}

/// What the run reads.
#[derive(Debug)]
pub struct HeadlineInputs {
    /// The conversations.
    pub data: Locomo,
    /// The file read.
    pub file: ReadFile,
    /// hash-v1 (a baseline in every run, the product's embedder in a hash-v1 run).
    pub hash: TextEmbedder,
    /// The sentence model of the run (all-MiniLM-L6-v2 with `--embedder minilm`,
    /// all-mpnet-base-v2 with `--embedder mpnet`).
    pub minilm: Option<TextEmbedder>,
    /// Every turn's text and every question, conversation by conversation.
    pub texts: Vec<ConversationTexts>,
}

/// One conversation's texts.
#[derive(Debug, Clone)]
pub struct ConversationTexts {
    /// `sample_id`.
    pub sample_id: String,
    /// Turn ids (`D1:3`), conversation order.
    pub turn_ids: Vec<String>,
    /// Turn texts as released (text, then a shared image's caption): what the baselines
    /// index.
    pub turns: Vec<String>,
    /// Each turn's node content in the product's brain (what an agent reads, and what
    /// the brain embeds).
    pub nodes: Vec<String>,
    /// Questions, file order.
    pub questions: Vec<String>,
    /// Their categories.
    pub categories: Vec<Category>,
    /// Their evidence strings as released.
    pub evidence: Vec<Vec<String>>,
}

impl HeadlineInputs {
    /// The embedder the brains are built with.
    fn run_embedder(&self) -> &TextEmbedder {
        self.minilm.as_ref().unwrap_or(&self.hash)
    }
}

/// What the run produced: per arm, per conversation, per question, the turn ids
/// retrieved, best first.
#[derive(Debug, Clone)]
pub struct HeadlineRun {
    /// Arm names, report order (product arms, then baselines).
    pub arms: Vec<String>,
    /// One line per arm.
    pub notes: Vec<String>,
    /// `lists[arm][conversation][question]`.
    pub lists: Vec<Vec<Vec<Vec<String>>>>,
    /// `top` → mean recall@10 of the default query on the tuning conversations.
    pub tuning: Vec<(usize, f64)>,
    /// The `top` chosen.
    pub top: usize,
}

fn texts_of(data: &Locomo) -> Result<Vec<ConversationTexts>> {
    data.conversations
        .iter()
        .map(|c| {
            let lines = super::turns::conversation_turns(c);
            Ok(ConversationTexts {
                nodes: product::node_texts(c)?,
                sample_id: c.sample_id.clone(),
                turn_ids: lines.iter().map(|t| t.id.clone()).collect(),
                turns: lines.into_iter().map(|t| t.text).collect(),
                questions: c.questions.iter().map(|q| q.question.clone()).collect(),
                categories: c.questions.iter().map(|q| q.category).collect(),
                evidence: c
                    .questions
                    .iter()
                    .map(|q| q.released_evidence.clone())
                    .collect(),
            })
        })
        .collect()
}

/// Embeds `texts` with `e` (no progress bar).
fn embed(e: &TextEmbedder, texts: &[String]) -> Result<Vec<Vec<f64>>> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    Ok(e.embed(&refs, &ProgressBar::hidden())?.0)
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

/// One conversation's product answers for every available arm (the default with `top`
/// seeds).
fn ask_all(
    b: &mut product::ProductBrain,
    t: &ConversationTexts,
    qv: &[Vec<f64>],
    arm: &ProductArm,
    top: usize,
) -> Result<Vec<Vec<String>>> {
    t.questions
        .iter()
        .zip(qv)
        .map(|(q, v)| product::ask(b, q, v, arm, top))
        .collect()
}

/// A dense baseline's inputs: its embedder's name, the turns' vectors, the questions'.
type DenseInputs<'a> = (&'a str, &'a [Vec<f64>], &'a [Vec<f64>]);

/// The baselines of one conversation: BM25, dense per embedder, RRF of BM25 with the run's
/// dense search; `(name, lists)`.
fn baselines(
    t: &ConversationTexts,
    dense: &[DenseInputs],
) -> Result<Vec<(String, Vec<Vec<String>>)>> {
    let ids = |l: Vec<(usize, f64)>| -> Vec<usize> { l.into_iter().map(|x| x.0).collect() };
    let bm25 = Bm25::new(&t.turns);
    let bm: Vec<Vec<usize>> = t
        .questions
        .iter()
        .map(|q| ids(bm25.search(q, LIMIT)))
        .collect();
    let mut out: Vec<(String, Vec<Vec<usize>>)> = vec![("bm25_topk".into(), bm.clone())];
    let mut last_dense = Vec::new();
    for (name, nodes, queries) in dense {
        let dim = nodes.first().map_or(0, Vec::len);
        let index = CosineIndex::new(nodes, dim)?;
        let lists: Vec<Vec<usize>> = queries
            .iter()
            .map(|q| ids(index.search(q, LIMIT)))
            .collect();
        out.push((format!("embedding_topk[{name}]"), lists.clone()));
        last_dense = lists;
    }
    let run_name = dense.last().map_or("", |d| d.0);
    let rrf: Vec<Vec<usize>> = bm
        .iter()
        .zip(&last_dense)
        .map(|(b, d)| ids(reciprocal_rank_fusion(&[b, d], RRF_K, LIMIT)))
        .collect();
    out.push((format!("rrf_topk[{run_name}]"), rrf));
    Ok(out
        .into_iter()
        .map(|(n, ls)| {
            let named = ls
                .into_iter()
                .map(|l| l.into_iter().map(|d| t.turn_ids[d].clone()).collect())
                .collect();
            (n, named)
        })
        .collect())
}

impl Protocol for HeadlineProtocol {
    type Args = RunArgs;
    type Plan = HeadlinePlan;
    type Inputs = HeadlineInputs;
    type Executed = HeadlineRun;
    type Report = Report<Sections>;
    type Error = Error;

    fn plan(&self, args: &RunArgs) -> Result<HeadlinePlan> {
        if args.data.dataset != Dataset::Locomo || args.protocol != ProtocolArg::Product {
            return Err(Error::Usage(
                "--protocol product runs on --dataset locomo only".into(),
            ));
        }
        Ok(HeadlinePlan {
            args: args.clone(),
            file: catalog::known_file(Dataset::Locomo, args.data.variant)?,
        })
    }

    fn open(&self, plan: &HeadlinePlan, env: &mut Env) -> Result<HeadlineInputs> {
        let t = Instant::now();
        let hash = TextEmbedder::open(EmbedderArg::HashV1, &plan.args.model)?;
        let minilm = match plan.args.embedder {
            EmbedderArg::HashV1 => None,
            model => Some(TextEmbedder::open(model, &plan.args.model)?),
        };
        env.timings.tick("embedder_load", t);
        let (file, data) = ReadFile::read(plan.args.data.input.as_deref(), plan.file, env)?;
        Ok(HeadlineInputs {
            texts: texts_of(&data)?,
            data,
            file,
            hash,
            minilm,
        })
    }

    fn texts<'i>(&self, inputs: &'i HeadlineInputs) -> Vec<&'i str> {
        if inputs.minilm.is_none() {
            return Vec::new();
        }
        // (an mpnet run does not embed the released turn texts, see `execute`; the cache
        // gate of `bench check` reads MiniLM's cache only)
        inputs
            .texts
            .iter()
            .flat_map(|t| {
                t.nodes
                    .iter()
                    .chain(&t.turns)
                    .chain(&t.questions)
                    .map(String::as_str)
            })
            .collect()
    }

    fn execute(
        &self,
        plan: &HeadlinePlan,
        inputs: &HeadlineInputs,
        env: &mut Env,
    ) -> Result<HeadlineRun> {
        let t0 = Instant::now();
        let run_e = inputs.run_embedder();
        let arms: Vec<&ProductArm> = ARMS.iter().filter(|a| available(a)).collect();
        let n_conv = inputs.texts.len();
        let bar = env.progress.add(ProgressBar::new(n_conv as u64));
        crate::embed::style_bar(&bar);
        bar.set_message("locomo product");
        let mut lists: Vec<Vec<Vec<Vec<String>>>> = vec![Vec::new(); arms.len()];
        let mut base_names: Vec<String> = Vec::new();
        let mut base_lists: Vec<Vec<Vec<Vec<String>>>> = Vec::new();
        let mut tuning_rows: Vec<Vec<f64>> = vec![Vec::new(); TOP_GRID.len()];
        // the tuning conversations first: the knob is chosen before any test question
        let mut order: Vec<usize> = (0..n_conv).collect();
        order.sort_by_key(|&i| Role::of(&inputs.texts[i].sample_id) != Role::Tuning);
        let mut per_conv: Vec<Option<(product::ProductBrain, Vec<Vec<f64>>)>> =
            (0..n_conv).map(|_| None).collect();
        for &i in &order {
            let t = &inputs.texts[i];
            let brain = product::build(&inputs.data.conversations[i], run_e.as_embedder())?;
            let qv = embed(run_e, &t.questions)?;
            if Role::of(&t.sample_id) == Role::Tuning {
                let mut b = brain;
                for (g, &top) in TOP_GRID.iter().enumerate() {
                    let got = ask_all(&mut b, t, &qv, arms[0], top)?;
                    for (l, ev) in got.iter().zip(&t.evidence) {
                        tuning_rows[g].push(paper::recall_row(ev, l)[1]);
                    }
                }
                per_conv[i] = Some((b, qv));
            } else {
                per_conv[i] = Some((brain, qv));
            }
        }
        let tuning: Vec<(usize, f64)> = TOP_GRID
            .iter()
            .zip(&tuning_rows)
            .map(|(&top, r)| (top, mean(r.iter().copied())))
            .collect();
        let mut top = TOP_GRID[0];
        let mut best = f64::NEG_INFINITY;
        for &(k, m) in &tuning {
            if m > best {
                best = m;
                top = k;
            }
        }
        for (i, slot) in per_conv.iter_mut().enumerate() {
            let t = &inputs.texts[i];
            let (mut b, qv) = slot
                .take()
                .ok_or_else(|| Error::Internal("a conversation without a brain".into()))?;
            for (a, arm) in arms.iter().enumerate() {
                lists[a].push(ask_all(&mut b, t, &qv, arm, top)?);
            }
            let hash_nodes = embed(&inputs.hash, &t.turns)?;
            let hash_q = embed(&inputs.hash, &t.questions)?;
            let mut dense: Vec<DenseInputs> = vec![("hash-v1", &hash_nodes, &hash_q)];
            let mini;
            // the sentence model's search over the released turn texts: MiniLM's only
            // (mpnet's would embed 5,882 more texts at ~0.1 s each; its own dense search,
            // over the node texts, is the product[dense] arm)
            if let (Some(m), EmbedderArg::Minilm) = (&inputs.minilm, plan.args.embedder) {
                mini = (embed(m, &t.turns)?, qv);
                dense.push((plan.args.embedder.slug(), &mini.0, &mini.1));
            }
            let bs = baselines(t, &dense)?;
            if base_names.is_empty() {
                base_names = bs.iter().map(|b| b.0.clone()).collect();
                base_lists = vec![Vec::new(); bs.len()];
            }
            for (k, (_, l)) in bs.into_iter().enumerate() {
                base_lists[k].push(l);
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        env.timings.tick("run", t0);
        let mut names: Vec<String> = arms.iter().map(|a| a.name.to_string()).collect();
        let mut notes: Vec<String> = arms
            .iter()
            .map(|a| match a.traverse {
                true => format!("{} (top {top})", a.note),
                false => a.note.to_string(),
            })
            .collect();
        for n in &base_names {
            notes.push(baseline_note(n));
        }
        names.extend(base_names);
        lists.extend(base_lists);
        Ok(HeadlineRun {
            arms: names,
            notes,
            lists,
            tuning,
            top,
        })
    }

    fn report(
        &self,
        plan: &HeadlinePlan,
        inputs: &HeadlineInputs,
        ex: HeadlineRun,
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
        let sections = Sections::Product(Box::new(sections(plan, inputs, &ex)?));
        let (files, sidecars) = run_files(plan, inputs, &ex, &out)?;
        let qids = all_qids(inputs);
        let doc_ids: Vec<String> = inputs
            .texts
            .iter()
            .flat_map(|t| t.turn_ids.iter().map(|d| paper::docid(&t.sample_id, d)))
            .collect();
        let run_e = inputs.run_embedder();
        let traversal = crabpath_brain::service::command::query::traversal_config(
            crabpath::Profile::Corrected,
            None,
        );
        let doc = Report {
            dataset: Dataset::Locomo.reference_name().to_string(),
            dataset_queries: qids.len(),
            protocol: "product".into(),
            graph_builder: "init --conversation".into(),
            embedder: run_e.name().to_string(),
            core_profile: crabpath::Profile::Corrected.as_str().to_string(),
            graph_nodes: doc_ids.len(),
            graph_edges: 0,
            graph_edges_set_by_labels: 0,
            protocol_note: Some(
                "every conversation built by the product's conversation init, every question \
                 asked through Brain::query with limit 50; the paper's definition on all ten \
                 conversations, paired tests on the eight test conversations"
                    .into(),
            ),
            parameters: None,
            configuration: Configuration {
                command: plan.command_line(input_name.as_deref()),
                dense_search: None,
                traversal,
                learning: crabpath::LearningConfig::default(),
                pg_call: None,
                router: None,
            },
            sections,
            metric_notes: None,
            method_notes: ex
                .arms
                .iter()
                .cloned()
                .zip(ex.notes.iter().cloned())
                .collect(),
            files,
            manifest: manifest(
                &inputs.file,
                ScoredIds {
                    about: "queries: every question of the ten conversations (ids \
                            <sample_id>:q<qa index>:c<category>); documents: every turn \
                            (<sample_id>:<dia_id>)",
                    queries: &qids,
                    scored: None,
                    documents: &doc_ids,
                },
            ),
            provenance: provenance(
                &inputs.file,
                run_e.id()?,
                Seeds {
                    bootstrap: plan.args.stats.bootstrap_seed,
                    splits: None,
                    dev: None,
                },
            ),
            timings_s: None,
            embedding_stats: None,
        };
        Ok(finish(doc, t, env, plan.args.no_timings, out, sidecars))
    }

    fn summary(&self, r: &Report<Sections>) -> String {
        match &r.sections {
            Sections::Product(p) => summary(p),
            _ => String::new(),
        }
    }
}

fn baseline_note(name: &str) -> String {
    if name == "bm25_topk" {
        "Okapi BM25 (k1 1.2, b 0.75) over the turns, top 50".into()
    } else if name.starts_with("embedding_topk") {
        "exact cosine search over the turns' vectors, top 50".into()
    } else {
        "reciprocal-rank fusion (k = 60) of BM25 and the run's dense search, top 50".into()
    }
}

/// Every question id, conversation by conversation ([`paper::qid`]).
fn all_qids(inputs: &HeadlineInputs) -> Vec<String> {
    inputs
        .texts
        .iter()
        .flat_map(|t| {
            t.categories
                .iter()
                .enumerate()
                .map(|(i, &c)| paper::qid(&t.sample_id, i, c))
        })
        .collect()
}

/// The report's sections.
fn sections(
    plan: &HeadlinePlan,
    inputs: &HeadlineInputs,
    ex: &HeadlineRun,
) -> Result<Product<PairedTests>> {
    let _ = plan;
    let texts = &inputs.texts;
    let mut recall = IndexMap::new();
    let mut chars = IndexMap::new();
    let mut questions = IndexMap::new();
    let mut method_metrics = IndexMap::new();
    let mut test_r10: Vec<Vec<f64>> = Vec::new();
    for (a, name) in ex.arms.iter().enumerate() {
        let mut rows = Vec::new();
        let mut test_rows = Vec::new();
        let mut ch = Vec::new();
        for (c, t) in texts.iter().enumerate() {
            let len: std::collections::HashMap<&str, usize> = t
                .turn_ids
                .iter()
                .map(String::as_str)
                .zip(t.nodes.iter().map(|s| s.chars().count()))
                .collect();
            for (q, l) in ex.lists[a][c].iter().enumerate() {
                let row = paper::recall_row(&t.evidence[q], l);
                rows.push((t.categories[q], row));
                if Role::of(&t.sample_id) == Role::Test {
                    test_rows.push((t.categories[q], row));
                }
                ch.push(
                    l.iter()
                        .take(10)
                        .map(|d| len.get(d.as_str()).copied().unwrap_or(0))
                        .sum::<usize>() as f64,
                );
            }
        }
        let (m, n) = paper::table(&rows);
        questions = n;
        recall.insert(name.clone(), m);
        chars.insert(name.clone(), mean(ch.into_iter()));
        let mut mm = IndexMap::new();
        for (i, k) in KS.iter().enumerate() {
            mm.insert(
                format!("recall_at_{k}"),
                mean(test_rows.iter().map(|r| r.1[i])),
            );
        }
        method_metrics.insert(name.clone(), mm);
        test_r10.push(test_rows.iter().map(|r| r.1[1]).collect());
    }
    let a = &plan.args;
    let tests = test_all_pairs(
        &test_r10,
        a.stats.permutations,
        a.stats.bootstrap,
        a.stats.bootstrap_seed,
    );
    let means: Vec<f64> = test_r10.iter().map(|v| mean(v.iter().copied())).collect();
    let pairs = tests
        .iter()
        .map(|p| p.written(|i| ex.arms[i].as_str(), |i| means[i]))
        .collect();
    let n_test = test_r10.first().map_or(0, Vec::len);
    let mut mdd = IndexMap::new();
    for (b, name) in ex.arms.iter().enumerate().skip(1) {
        let d: Vec<f64> = test_r10[0]
            .iter()
            .zip(&test_r10[b])
            .map(|(x, y)| x - y)
            .collect();
        mdd.insert(name.clone(), summarize(&d).mdd);
    }
    let tests_of = |r: Role| -> Vec<String> {
        texts
            .iter()
            .filter(|t| Role::of(&t.sample_id) == r)
            .map(|t| t.sample_id.clone())
            .collect()
    };
    Ok(Product {
        locomo_product: ProductDesign {
            about: "LoCoMo through the product's path: brains built by `crabpath init \
                    --conversation`'s code, questions asked through Brain::query with limit \
                    50. paper_definition: all ten conversations by the paper's definition; \
                    mean_chars_first10: mean over questions of the characters of the first 10 \
                    nodes returned (one node is one turn); method_metrics and test_paired: the \
                    eight test conversations"
                .into(),
            conversations: texts
                .iter()
                .map(|t| (t.sample_id.clone(), [t.turns.len(), t.questions.len()]))
                .collect(),
            test_conversations: tests_of(Role::Test),
            headline: ex.arms[0].clone(),
            tuning: ProductTuning {
                conversations: TUNING_CONVERSATIONS.iter().map(|s| s.to_string()).collect(),
                knob: "top (seeds of the default query)".into(),
                rule: "highest mean recall@10 (paper definition) of the default query on the \
                       tuning conversations' questions; the smaller on a tie"
                    .into(),
                scores: ex.tuning.iter().map(|(k, m)| (k.to_string(), *m)).collect(),
                chosen: ex.top.to_string(),
            },
        },
        paper_definition: PaperTable {
            definition: paper::DEFINITION.into(),
            ks: KS.to_vec(),
            questions,
            recall,
            mean_chars_first10: chars,
        },
        method_metrics,
        test_paired: tests_block(
            "recall_at_10",
            n_test,
            "per-question recall@10 (paper definition) of a minus that of b, test conversations",
            "Holm across every pair of arms",
            None,
            (
                a.stats.permutations,
                a.stats.bootstrap,
                a.stats.bootstrap_seed,
            ),
            pairs,
        ),
        test_mdd80: mdd,
    })
}

/// The file names of a run's TREC files (relative to the report): the headline's run, BM25's
/// run, the qrels and the question list (shared by every product report).
pub fn file_names(stem: &str) -> [String; 4] {
    [
        format!("{RUNS_DIR}/{stem}.product.run.xz"),
        format!("{RUNS_DIR}/locomo-all.bm25_topk.run.xz"),
        format!("{RUNS_DIR}/locomo-all-released.qrels.xz"),
        format!("{RUNS_DIR}/locomo-all.queries.xz"),
    ]
}

fn run_files(
    plan: &HeadlinePlan,
    inputs: &HeadlineInputs,
    ex: &HeadlineRun,
    out: &Path,
) -> Result<(Slot<Files>, Vec<Sidecar>)> {
    if plan.args.no_run_files {
        return Ok((Slot::Null, Vec::new()));
    }
    let base = out.parent().unwrap_or(Path::new(""));
    let [head, bm, qrels_name, qids_name] = file_names(&plan.stem());
    let bm_arm = ex
        .arms
        .iter()
        .position(|a| a == "bm25_topk")
        .ok_or_else(|| Error::Internal("no bm25_topk arm".into()))?;
    let mut head_text = String::new();
    let mut bm_text = String::new();
    let mut qrels = String::new();
    let mut qids = String::new();
    for (c, t) in inputs.texts.iter().enumerate() {
        let doc = |d: &String| paper::docid(&t.sample_id, d);
        for (q, cat) in t.categories.iter().enumerate() {
            let qid = paper::qid(&t.sample_id, q, *cat);
            qids.push_str(&qid);
            qids.push('\n');
            for (arm, depth, text) in [
                (0, LIMIT, &mut head_text),
                (bm_arm, BM25_RUN_DEPTH, &mut bm_text),
            ] {
                let docs: Vec<String> = ex.lists[arm][c][q].iter().take(depth).map(doc).collect();
                let idx: Vec<usize> = (0..docs.len()).collect();
                text.push_str(&trec::run_text(
                    &ex.arms[arm],
                    std::iter::once((qid.as_str(), idx.as_slice())),
                    |d| docs[d].as_str(),
                ));
            }
            for e in &t.evidence[q] {
                qrels.push_str(&format!(
                    "{qid} 0 {} 1\n",
                    paper::evidence_docid(&t.sample_id, e)
                ));
            }
        }
    }
    let mut sidecars = Vec::new();
    for (name, text) in [
        (&head, &head_text),
        (&bm, &bm_text),
        (&qrels_name, &qrels),
        (&qids_name, &qids),
    ] {
        sidecars.push(Sidecar {
            path: base.join(name),
            bytes: trec::xz(text.as_bytes())?,
        });
    }
    let mut runs = IndexMap::new();
    runs.insert(ex.arms[0].clone(), head);
    runs.insert("bm25_topk".to_string(), bm);
    Ok((
        Slot::Value(Files {
            qrels: qrels_name,
            runs,
            run_format: format!(
                "{}; LoCoMo product path: every question of the ten conversations, the \
                 headline arm's first {LIMIT} ranks and BM25's first {BM25_RUN_DEPTH}; qrels: \
                 one line per evidence string as released (whitespace written as _, duplicates \
                 kept), a question without evidence has none and counts 1; question ids \
                 <sample_id>:q<qa index>:c<category>, every one listed in {qids_name}",
                trec::RUN_FORMAT
            ),
        }),
        sidecars,
    ))
}

/// `bench check`'s re-derivation of a product report: the headline arm's paper table
/// recomputed from its committed run file, the qrels and the question list (beside the
/// report in `dir`) and compared with the report's numbers at the report's rounding;
/// returns one line per difference.
pub fn rederive_check(dir: &Path, report: &Report<Sections>) -> Result<Vec<String>> {
    let Sections::Product(p) = &report.sections else {
        return Ok(Vec::new());
    };
    let Some(files) = report.files.value() else {
        return Ok(Vec::new());
    };
    let head = &p.locomo_product.headline;
    let run_file = files
        .runs
        .get(head)
        .ok_or_else(|| Error::Internal(format!("the report names no run file of {head}")))?;
    let qids_file = Path::new(&files.qrels)
        .parent()
        .unwrap_or(Path::new(""))
        .join("locomo-all.queries.xz");
    let run = trec::read_text(&dir.join(run_file))?;
    let qrels = trec::read_text(&dir.join(&files.qrels))?;
    let qids = trec::read_text(&dir.join(qids_file))?;
    let table = paper::rederive(&run, &qrels, &qids).map_err(Error::Usage)?;
    let stored = p
        .paper_definition
        .recall
        .get(head)
        .ok_or_else(|| Error::Internal(format!("no paper_definition row of {head}")))?;
    let mut diffs = Vec::new();
    for (slice, got) in &table {
        let want = stored.get(slice);
        for (i, k) in KS.iter().enumerate() {
            let g = (got[i] * 1e4).round() / 1e4;
            let w = want.and_then(|w| w.get(i)).copied();
            if w.is_none_or(|w| (w - g).abs() > 1e-9) {
                diffs.push(format!(
                    "paper_definition.recall.{head}.{slice}[@{k}]: stored {w:?}, re-derived from the run files {g}"
                ));
            }
        }
    }
    Ok(diffs)
}

/// One screen: every arm's recall@5/10/25/50 on all questions and on multi-hop, by the
/// paper's definition.
pub fn summary(p: &Product<PairedTests>) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "LoCoMo product path (paper definition, all ten conversations; top chosen {}):\n",
        p.locomo_product.tuning.chosen
    ));
    for (arm, by) in &p.paper_definition.recall {
        for slice in ["all", Category::MultiHop.as_str()] {
            if let Some(v) = by.get(slice) {
                s.push_str(&format!(
                    "  {arm:<28} {slice:<10} R@5 {:.3}  R@10 {:.3}  R@25 {:.3}  R@50 {:.3}\n",
                    v[0], v[1], v[2], v[3]
                ));
            }
        }
    }
    s
}
