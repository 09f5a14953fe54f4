//! `bench neurogenesis`: the neurogenesis ablation (issue 31, "Measured", second bullet;
//! seed 001 §3.6, ablation C3 "no neurogenesis"; what is switched off is seed 001
//! §2.7–2.8 as the served brain implements it, `crabpath_brain::service::neurogenesis`).
//!
//! Everything goes through the product's path: a corrected-profile brain database per
//! split and arm ([`product::from_graph`] for a corpus, [`product::build`] for a LoCoMo
//! conversation; hash-v1), every question asked with [`Brain::query`] (`--top` seeds, the
//! answer cut to [`K`], the brain's own seeding and no router, as `bench guard` asks),
//! logged as the turn of its own conversation (`chat_id` = the question) and answered by
//! a [`Brain::feedback`] on that turn, as the daemon's `query` and `learn_by_chat_id` do.
//! The two arms differ only in the brain setting `meta.neurogenesis` (`on` / `off`,
//! [`Brain::set_neurogenesis`]): with it off no question node is born, credited, killed
//! or merged, and the answers are those of a fixed graph; the ordinary learning of the
//! feedback (edge weights along the fired path) and the maintenance run in both.
//!
//! * **Protocols.** HotPotQA (`sample1100`) and MultiHop-RAG (`sample500`), the clean
//!   graph (the reference's label-free edges), under the held-out `related` and
//!   `repeat` designs of [`crate::splits`] (the same splits as `bench run --protocol`:
//!   ChaCha8 permutations of `--split-seed`, the dev pool left out of the test, train
//!   fraction 0.5); LoCoMo's test conversations (the tuning ones, conv-26 and conv-30,
//!   left out) under the within-conversation splits of [`crate::locomo::splits`] (half of
//!   each conversation's questions learned from, the other half scored).
//! * **Training.** Each train question in the split's order is asked and answered with a
//!   feedback: `--feedback outcome` (default) the held-out protocols' outcome rule, +1 when
//!   the dataset's outcome metric ([`Dataset::outcome_metric`]: HotPotQA every supporting
//!   paragraph in the first 10, MultiHop-RAG every evidence document in the answer,
//!   LoCoMo any evidence turn in the answer) is 1, else −1; `--feedback confirmed` +1 with
//!   `used_ids` = the evidence (what an agent that found and read it reports).
//! * **Maintenance.** After every `--maintain-every` train questions, `Brain::maintain`
//!   with the tasks [`MAINTAIN_TASKS`] (health and the autotuner, one decay step), after
//!   which the brain kills the probationary question nodes idle for 14 queries and merges
//!   those of the same words (seed 001 §2.8). The content tasks `prune` and `merge` are
//!   left out: a corpus node carries no `file` metadata, so `prune` would remove an
//!   orphaned paragraph, and `merge` gives a merged node a new id; either would take
//!   evidence away from the scoring by id, in both arms.
//! * **Test.** Each test question is asked once, with no feedback: recall@[`K`]
//!   ([`TEST_METRIC`]) of its evidence, and the characters of its context
//!   ([`crabpath_brain::Answer::context`]: the fired nodes' texts, what an agent reads).
//! * **Statistics.** Per question tested in at least one split, its mean over the splits
//!   that tested it, per arm; on − off paired over those questions with the paired
//!   randomization test and bootstrap interval of [`significance::test_all_pairs`], Holm
//!   over every test of the report (each protocol's recall and context), and the minimum
//!   detectable difference at 80 % power ([`significance::summarize`]), as the held-out
//!   reports do.
//! * **Growth** (arm on, summed over splits): question nodes born per 1,000 queries
//!   asked (train and test), and the share of births that were promoted (three positive
//!   credits), died, and were merged, counted from the journal's `neurogenesis` entries
//!   ([`Events`]); the arm off's births are written too (0: the switch holds).
//!
//! The run takes minutes (two brains per split and protocol); it is measured once and its
//! small JSON and Markdown are committed in `results/bench/neurogenesis/`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crabpath::embed::HashEmbedder;
use crabpath::graph::Metadata;
use crabpath_brain::service::command::maintain::{parse_tasks, Flavor, MaintainOptions};
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::FeedbackRequest;
use crabpath_brain::{Brain, QueryRequest};
use pyformat::pyjson::{PyDict, PyValue};
use rayon::prelude::*;
use serde::Serialize;

use crate::catalog::{known_file, Dataset, VariantArg};
use crate::data::locate::{resolve_input, DataDir};
use crate::embed::{EmbedderArg, ModelOpts};
use crate::engine::staged_clean_corpus;
use crate::error::{Error, Result};
use crate::locomo::data::Conversation;
use crate::locomo::product;
use crate::locomo::splits::{Role, WithinSplits, DEFAULT_LEARN_FRACTION};
use crate::metrics::{Judged, Metric, METRICS};
use crate::significance::{self, holm, summarize, test_all_pairs, TEST_METRIC};
use crate::splits::{Heldout, HeldoutKind, Split, DEFAULT_DEV_FRACTION, DEFAULT_TRAIN_FRACTION};

/// Answer length: recall@K is read from it, and the outcome metrics judge it.
pub const K: usize = 10;

/// The `maintain` tasks run at the cadence (see the module docs for those left out).
pub const MAINTAIN_TASKS: &str = "health,decay";

/// Decimals of the report's non-integer numbers.
const DECIMALS: i32 = 6;

/// What a train question's feedback says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FeedbackRule {
    /// The held-out protocols' outcome: +1 when the dataset's outcome metric is 1, else −1.
    Outcome,
    /// +1 with `used_ids` = the question's evidence (agent-confirmed, issue 31 item 5).
    Confirmed,
}

/// A dataset of the ablation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Which {
    /// HotPotQA `sample1100`, held-out `related` and `repeat`.
    Hotpotqa,
    /// MultiHop-RAG `sample500`, held-out `related` and `repeat`.
    MultihopRag,
    /// LoCoMo's test conversations, within-conversation splits.
    Locomo,
}

/// `bench neurogenesis`' options.
#[derive(Debug, clap::Args)]
pub struct NeuroArgs {
    /// Where to write neurogenesis-hash-v1.json and NEUROGENESIS.md (a non-default
    /// --maintain-every, --feedback or --max-questions adds `-maintainN`, `-confirmed`,
    /// `-maxN` to both names).
    #[arg(long, value_name = "DIR", default_value = "results/bench/neurogenesis")]
    pub out: PathBuf,
    /// Which datasets, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "hotpotqa,multihop-rag,locomo"
    )]
    pub datasets: Vec<Which>,
    /// Random splits per protocol (each split runs two fresh brains: on and off).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub splits: usize,
    /// Seed of the splits' permutations (the held-out and LoCoMo designs' own).
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub split_seed: u64,
    /// Seeds per question (`top_k` of the query).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub top: usize,
    /// Run `maintain` after every N train questions (0: never, so nothing dies).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAINTAIN_EVERY)]
    pub maintain_every: usize,
    /// The train questions' feedback: `outcome` (+1 / −1 by the dataset's outcome
    /// metric) or `confirmed` (+1 with used_ids = the evidence).
    #[arg(long, value_enum, value_name = "RULE", default_value_t = FeedbackRule::Outcome)]
    pub feedback: FeedbackRule,
    /// Keep only the first N questions of each corpus and of each LoCoMo conversation
    /// (0: all), for a quick check; the splits are drawn over those.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_questions: usize,
    /// `--bootstrap`, `--bootstrap-seed`, `--permutations`.
    #[command(flatten)]
    pub stats: crate::stat_args::StatArgs,
}

/// One question: its pairing key, its text, its evidence node ids (distinct).
#[derive(Debug, Clone)]
struct Question {
    key: String,
    text: String,
    relevant: Vec<String>,
}

/// Where a set's brain comes from.
enum Source<'a> {
    /// A corpus graph.
    Graph(&'a crabpath::Graph),
    /// A LoCoMo conversation.
    Conversation(&'a Conversation),
}

/// One brain's worth of questions and their splits (indices into `questions`).
struct Set<'a> {
    source: Source<'a>,
    questions: Vec<Question>,
    splits: Vec<Split>,
}

/// One protocol of one dataset: its sets, and the dataset whose outcome rule it uses.
struct Protocol<'a> {
    dataset: Dataset,
    name: &'static str,
    sets: Vec<Set<'a>>,
}

/// Counts of the journal's `neurogenesis` events of a brain (births, refreshes,
/// promotions, demotions, deaths, merges).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Events {
    /// Question nodes born.
    pub born: usize,
    /// Question nodes asked again.
    pub refreshed: usize,
    /// Promotions (three positive credits).
    pub promoted: usize,
    /// Demotions (a negative credit).
    pub demoted: usize,
    /// Deaths (idle on probation for 14 queries).
    pub died: usize,
    /// Merges into a node of the same words.
    pub merged: usize,
}

impl Events {
    /// The counts of `entries` (journal entries; only `"type": "neurogenesis"` ones count,
    /// by their `"event"`).
    pub fn of(entries: &[PyDict]) -> Events {
        let mut e = Events::default();
        for d in entries {
            if d.get("type").and_then(PyValue::as_str) != Some("neurogenesis") {
                continue;
            }
            match d.get("event").and_then(PyValue::as_str) {
                Some("born") => e.born += 1,
                Some("refreshed") => e.refreshed += 1,
                Some("promoted") => e.promoted += 1,
                Some("demoted") => e.demoted += 1,
                Some("died") => e.died += 1,
                Some("merged") => e.merged += 1,
                _ => {}
            }
        }
        e
    }

    /// The sum of two counts.
    pub fn add(&mut self, o: &Events) {
        self.born += o.born;
        self.refreshed += o.refreshed;
        self.promoted += o.promoted;
        self.demoted += o.demoted;
        self.died += o.died;
        self.merged += o.merged;
    }
}

/// Growth of the question nodes over an arm's brains (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Growth {
    /// Queries asked (train and test, summed over splits).
    pub queries: usize,
    /// The journal's counts, summed over splits.
    pub events: Events,
    /// Question nodes alive at the end (on probation, permanent), summed over splits.
    pub alive: [usize; 2],
    /// Births per 1,000 queries.
    pub born_per_1000_queries: Option<f64>,
    /// Net growth (nodes alive at the end) per 1,000 queries.
    pub alive_per_1000_queries: Option<f64>,
    /// Promotions / births (`null` without a birth).
    pub promoted_share: Option<f64>,
    /// Deaths / births.
    pub died_share: Option<f64>,
    /// Merges / births.
    pub merged_share: Option<f64>,
}

impl Growth {
    /// The rates of `events` over `queries` asked, `alive` nodes left.
    pub fn of(queries: usize, events: Events, alive: [usize; 2]) -> Growth {
        let per_1000 = |x: usize| (queries > 0).then(|| round(x as f64 * 1000.0 / queries as f64));
        let share = |x: usize| (events.born > 0).then(|| round(x as f64 / events.born as f64));
        Growth {
            queries,
            events,
            alive,
            born_per_1000_queries: per_1000(events.born),
            alive_per_1000_queries: per_1000(alive[0] + alive[1]),
            promoted_share: share(events.promoted),
            died_share: share(events.died),
            merged_share: share(events.merged),
        }
    }
}

/// Per key, the mean of its values (a question's mean over the splits that tested it),
/// in key order.
pub fn per_key_means<'k>(values: impl IntoIterator<Item = (&'k str, f64)>) -> Vec<(String, f64)> {
    let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for (k, v) in values {
        let s = sums.entry(k).or_insert((0.0, 0));
        s.0 += v;
        s.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k.to_string(), s / n as f64))
        .collect()
}

/// Judged indices of a ranked answer against evidence ids: the evidence is `0..r`, an
/// answer id its evidence position or `usize::MAX` (not evidence); for the metric table.
pub fn judged_indices(relevant: &[String], ranked: &[String]) -> (Vec<usize>, Vec<usize>) {
    let retrieved = ranked
        .iter()
        .map(|id| relevant.iter().position(|r| r == id).unwrap_or(usize::MAX))
        .collect();
    ((0..relevant.len()).collect(), retrieved)
}

fn metric(name: &str) -> Result<&'static Metric> {
    METRICS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::Internal(format!("metric {name} is not in the table")))
}

fn score(m: &Metric, relevant: &[String], ranked: &[String]) -> f64 {
    let (rel, ret) = judged_indices(relevant, ranked);
    (m.compute)(&Judged {
        retrieved: &ret,
        relevant: &rel,
        embed_top_k: K,
    })
}

fn round(x: f64) -> f64 {
    let f = 10f64.powi(DECIMALS);
    (x * f).round() / f
}

/// Asks `text` as the turn of conversation `chat`; returns the ranked answer and its
/// context's characters.
fn ask(b: &mut Brain, text: &str, chat: &str, top: usize) -> Result<(Vec<String>, usize)> {
    let mut req = QueryRequest::new(text, top);
    req.limit = Some(K);
    let mut m = PyDict::new();
    m.insert("chat_id".into(), PyValue::Str(chat.into()));
    req.journal_metadata = PyValue::Dict(m);
    let a = b
        .query(&req)
        .map_err(|e| Error::brain(format!("asking {text:?}"), e))?;
    let ranked: Vec<String> = a.ranked().into_iter().map(str::to_string).collect();
    let chars = a.context().chars().count();
    let record = a.turn_record(text);
    drop(a);
    b.record_turn(chat, record)
        .map_err(|e| Error::brain(format!("logging {text:?}"), e))?;
    Ok((ranked, chars))
}

/// What one arm did on one split of one set.
struct JobResult {
    /// Per test question: (question index, recall@K, context characters).
    tested: Vec<(usize, f64, f64)>,
    asked: usize,
    events: Events,
    alive: [usize; 2],
}

/// One split of one set under one arm (see the module docs).
fn run_job(
    set: &Set,
    split: &Split,
    on: bool,
    dataset: Dataset,
    a: &NeuroArgs,
) -> Result<JobResult> {
    let embedder = HashEmbedder::new();
    let mut pb = match set.source {
        Source::Graph(g) => product::from_graph(
            g,
            Metadata::new(),
            &embedder,
            &format!("{}: building the brain", dataset.reference_name()),
        )?,
        Source::Conversation(c) => product::build(c, &embedder)?,
    };
    let b = pb.brain_mut();
    b.set_embedder(crate::folder::run::loader(
        EmbedderArg::HashV1,
        &ModelOpts::default(),
    ));
    b.set_neurogenesis(on)
        .map_err(|e| Error::brain("setting neurogenesis", e))?;
    let outcome_metric = metric(dataset.outcome_metric())?;
    let recall = metric(TEST_METRIC)?;
    let tasks = parse_tasks(MAINTAIN_TASKS, true);
    for (i, &q) in split.train.iter().enumerate() {
        let question = &set.questions[q];
        let (ranked, _) = ask(b, &question.text, &question.key, a.top)?;
        let (outcome, used_ids) = match a.feedback {
            FeedbackRule::Outcome => {
                let hit = score(outcome_metric, &question.relevant, &ranked) >= 1.0;
                (if hit { 1.0 } else { -1.0 }, None)
            }
            FeedbackRule::Confirmed => (1.0, Some(question.relevant.clone())),
        };
        b.feedback(&FeedbackRequest {
            outcome,
            chat_id: Some(&question.key),
            fired_ids: None,
            turns_ago: Some(0),
            window: Window::default(),
            used_ids,
        })
        .map_err(|e| Error::brain(format!("feedback on {:?}", question.text), e))?;
        if a.maintain_every > 0 && (i + 1) % a.maintain_every == 0 {
            b.maintain(&MaintainOptions {
                requested: tasks.clone(),
                dry_run: false,
                max_merges: 0,
                // no prune task (module docs)
                prune_below: 0.0,
                flavor: Flavor::Daemon,
                journal: true,
                embedder: None,
            })
            .map_err(|e| Error::brain("maintain", e))?;
        }
    }
    let mut tested = Vec::with_capacity(split.test.len());
    for &q in &split.test {
        let question = &set.questions[q];
        let (ranked, chars) = ask(b, &question.text, &question.key, a.top)?;
        tested.push((q, score(recall, &question.relevant, &ranked), chars as f64));
    }
    let journal = b
        .journal_entries()
        .map_err(|e| Error::brain("reading the journal", e))?;
    let counts = b
        .neurogenesis_counts()
        .map_err(|e| Error::brain("counting question nodes", e))?;
    Ok(JobResult {
        tested,
        asked: split.train.len() + split.test.len(),
        events: Events::of(&journal.entries),
        alive: [counts.probation, counts.permanent],
    })
}

/// One paired comparison of the report (on − off).
#[derive(Debug, Clone, Serialize)]
pub struct Paired {
    /// Mean over the questions, neurogenesis on.
    pub on: f64,
    /// Mean over the questions, neurogenesis off.
    pub off: f64,
    /// on − off.
    pub diff: f64,
    /// Paired bootstrap 95 % interval of the difference.
    pub ci95_low: f64,
    /// Upper end.
    pub ci95_high: f64,
    /// Paired randomization test.
    pub p_value: f64,
    /// Holm-adjusted over every test of the report.
    pub p_holm: f64,
    /// Minimum detectable difference, 80 % power, two-sided α 0.05.
    pub mdd80: Option<f64>,
    /// Cohen's d_z.
    pub effect_size_dz: Option<f64>,
    /// Questions where on scored higher.
    pub on_better: usize,
    /// Questions where off scored higher.
    pub off_better: usize,
}

/// One protocol's row of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Dataset.
    pub dataset: String,
    /// `related`, `repeat` or `within-conversation`.
    pub protocol: String,
    /// Brains per arm (sets × splits).
    pub brains_per_arm: usize,
    /// Questions tested in at least one split (the paired sample).
    pub questions: usize,
    /// recall@10.
    pub recall_at_10: Paired,
    /// Context characters.
    pub context_chars: Paired,
    /// Question nodes, arm on.
    pub growth_on: Growth,
    /// Births with neurogenesis off (0 when the switch holds).
    pub born_off: usize,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// How it was made.
    pub command: String,
    /// Embedder, profile.
    pub embedder: &'static str,
    /// Always `corrected`.
    pub profile: &'static str,
    /// See the module docs of `benchmarks/src/neurogenesis.rs`.
    pub about: &'static str,
    /// `maintain` tasks at the cadence.
    pub maintain_tasks: &'static str,
    /// The rows.
    pub rows: Vec<Row>,
}

const ABOUT: &str = "issue 31 neurogenesis ablation (seed 001 C3): per split and arm a fresh \
    hash-v1 brain; train questions asked and answered with feedback, maintain at the cadence; \
    test questions asked once; per question the mean over the splits that tested it, on - off \
    paired (randomization test, bootstrap interval, Holm over every test of the report, MDD at \
    80% power); growth from the journal's neurogenesis events of the arm on";

/// Per question key, a mean over splits ([`per_key_means`]).
type KeyMeans = Vec<(String, f64)>;

/// Means per question of one arm's results: recall and characters, in key order.
fn arm_means(set_results: &[(&Set, Vec<JobResult>)]) -> (KeyMeans, KeyMeans) {
    let mut r = Vec::new();
    let mut c = Vec::new();
    for (set, jobs) in set_results {
        for j in jobs {
            for &(q, rec, chars) in &j.tested {
                r.push((set.questions[q].key.as_str(), rec));
                c.push((set.questions[q].key.as_str(), chars));
            }
        }
    }
    (per_key_means(r), per_key_means(c))
}

fn paired(on: &[(String, f64)], off: &[(String, f64)], a: &NeuroArgs) -> Result<(Paired, f64)> {
    if on.len() != off.len() || on.iter().zip(off).any(|(x, y)| x.0 != y.0) {
        return Err(Error::Internal(
            "the arms tested different questions".into(),
        ));
    }
    let x: Vec<f64> = on.iter().map(|v| v.1).collect();
    let y: Vec<f64> = off.iter().map(|v| v.1).collect();
    let t = test_all_pairs(
        &[x.clone(), y.clone()],
        a.stats.permutations,
        a.stats.bootstrap,
        a.stats.bootstrap_seed,
    );
    let t = t
        .first()
        .ok_or_else(|| Error::Internal("no paired test".into()))?;
    let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
    let n = x.len().max(1) as f64;
    Ok((
        Paired {
            on: round(x.iter().sum::<f64>() / n),
            off: round(y.iter().sum::<f64>() / n),
            diff: round(t.diff),
            ci95_low: round(t.ci_low),
            ci95_high: round(t.ci_high),
            p_value: round(t.p),
            p_holm: 1.0,
            mdd80: significance::finite(summarize(&d).mdd).map(round),
            effect_size_dz: t.effect_size_dz.map(round),
            on_better: t.a_better,
            off_better: t.b_better,
        },
        t.p,
    ))
}

/// Runs one protocol: every (set, split, arm) on the thread pool.
fn run_protocol(p: &Protocol, a: &NeuroArgs) -> Result<(Row, [f64; 2])> {
    let t = std::time::Instant::now();
    let jobs: Vec<(usize, usize, bool)> = p
        .sets
        .iter()
        .enumerate()
        .flat_map(|(s, set)| (0..set.splits.len()).flat_map(move |i| [(s, i, true), (s, i, false)]))
        .collect();
    let done: Vec<JobResult> = jobs
        .par_iter()
        .map(|&(s, i, on)| run_job(&p.sets[s], &p.sets[s].splits[i], on, p.dataset, a))
        .collect::<Result<_>>()?;
    let mut arms: [Vec<(&Set, Vec<JobResult>)>; 2] = [Vec::new(), Vec::new()];
    for set in &p.sets {
        arms[0].push((set, Vec::new()));
        arms[1].push((set, Vec::new()));
    }
    for (&(s, _, on), r) in jobs.iter().zip(done) {
        arms[usize::from(!on)][s].1.push(r);
    }
    let (on_r, on_c) = arm_means(&arms[0]);
    let (off_r, off_c) = arm_means(&arms[1]);
    let (recall_at_10, p_recall) = paired(&on_r, &off_r, a)?;
    let (context_chars, p_chars) = paired(&on_c, &off_c, a)?;
    let mut events = Events::default();
    let (mut queries, mut alive) = (0, [0, 0]);
    for (_, jobs) in &arms[0] {
        for j in jobs {
            events.add(&j.events);
            queries += j.asked;
            alive[0] += j.alive[0];
            alive[1] += j.alive[1];
        }
    }
    let born_off = arms[1]
        .iter()
        .flat_map(|(_, js)| js.iter().map(|j| j.events.born))
        .sum();
    eprintln!(
        "bench neurogenesis: {} {} in {:.1} s",
        p.dataset.reference_name(),
        p.name,
        t.elapsed().as_secs_f64()
    );
    Ok((
        Row {
            dataset: p.dataset.reference_name().to_string(),
            protocol: p.name.to_string(),
            brains_per_arm: jobs.len() / 2,
            questions: on_r.len(),
            recall_at_10,
            context_chars,
            growth_on: Growth::of(queries, events, alive),
            born_off,
        },
        [p_recall, p_chars],
    ))
}

/// A staged corpus as the ablation reads it: its clean graph, its questions, their
/// relevant node indices (for the held-out splits) and the number of nodes.
struct CorpusQuestions {
    graph: crabpath::Graph,
    questions: Vec<Question>,
    relevant: Vec<Vec<usize>>,
    nodes: usize,
}

/// The corpus of a staged dataset as questions (`max` first, 0 = all), with its graph.
fn corpus_questions(
    data_dir: &DataDir,
    dataset: Dataset,
    variant: VariantArg,
    max: usize,
) -> Result<CorpusQuestions> {
    let (d, graph) = staged_clean_corpus(data_dir, dataset, variant)?;
    let corpus = &d.corpus;
    let n = if max > 0 {
        max.min(corpus.queries.len())
    } else {
        corpus.queries.len()
    };
    let queries = &corpus.queries[..n];
    let questions = queries
        .iter()
        .map(|q| Question {
            key: q.qid.clone(),
            text: q.text.clone(),
            relevant: corpus.relevant_ids(q),
        })
        .collect();
    let relevant = queries.iter().map(|q| q.relevant.clone()).collect();
    Ok(CorpusQuestions {
        graph,
        questions,
        relevant,
        nodes: corpus.nodes.len(),
    })
}

/// The LoCoMo test conversations' questions (`max` first each, 0 = all).
fn locomo_questions(conv: &Conversation, max: usize) -> Vec<Question> {
    let n = if max > 0 {
        max.min(conv.questions.len())
    } else {
        conv.questions.len()
    };
    conv.questions[..n]
        .iter()
        .map(|q| {
            let mut relevant: Vec<String> = Vec::new();
            for e in &q.released_evidence {
                if !relevant.contains(e) {
                    relevant.push(e.clone());
                }
            }
            Question {
                key: format!("{}#{}", conv.sample_id, q.index),
                text: q.question.clone(),
                relevant,
            }
        })
        .collect()
}

/// Runs `bench neurogenesis` (see the module docs); returns the Markdown it wrote.
pub fn cmd_neurogenesis(data_dir: &DataDir, a: &NeuroArgs) -> Result<String> {
    if a.top == 0 {
        return Err(Error::Usage("--top must be at least 1, got 0".into()));
    }
    let heldout = |kind| {
        Heldout::new(
            kind,
            a.splits,
            a.split_seed,
            DEFAULT_TRAIN_FRACTION,
            DEFAULT_DEV_FRACTION,
            false,
        )
    };
    let mut rows = Vec::new();
    let mut ps = Vec::new();
    for which in &a.datasets {
        match which {
            Which::Hotpotqa | Which::MultihopRag => {
                let (dataset, variant) = if *which == Which::Hotpotqa {
                    (Dataset::HotpotQa, VariantArg::Sample1100)
                } else {
                    (Dataset::MultihopRag, VariantArg::Sample500)
                };
                let c = corpus_questions(data_dir, dataset, variant, a.max_questions)?;
                for (kind, name) in [
                    (HeldoutKind::Related, "related"),
                    (HeldoutKind::Repeat, "repeat"),
                ] {
                    let splits = heldout(kind)?.make_splits(&c.relevant, c.nodes);
                    let p = Protocol {
                        dataset,
                        name,
                        sets: vec![Set {
                            source: Source::Graph(&c.graph),
                            questions: c.questions.clone(),
                            splits,
                        }],
                    };
                    let (row, p2) = run_protocol(&p, a)?;
                    rows.push(row);
                    ps.extend(p2);
                }
            }
            Which::Locomo => {
                let file = known_file(Dataset::Locomo, VariantArg::Full)?;
                let path = resolve_input(None, data_dir, file)?;
                let data = crate::locomo::data::load(&path)?;
                let within = WithinSplits::new(a.splits, a.split_seed, DEFAULT_LEARN_FRACTION)?;
                let sets = data
                    .conversations
                    .iter()
                    .filter(|c| Role::of(&c.sample_id) == Role::Test)
                    .map(|c| {
                        let questions = locomo_questions(c, a.max_questions);
                        let splits = within
                            .make(c.row, questions.len())
                            .into_iter()
                            .map(|mut s| {
                                s.test.retain(|&q| !questions[q].relevant.is_empty());
                                Split {
                                    train: s.train,
                                    test: s.test,
                                }
                            })
                            .collect();
                        Set {
                            source: Source::Conversation(c),
                            questions,
                            splits,
                        }
                    })
                    .collect();
                let p = Protocol {
                    dataset: Dataset::Locomo,
                    name: "within-conversation",
                    sets,
                };
                let (row, p2) = run_protocol(&p, a)?;
                rows.push(row);
                ps.extend(p2);
            }
        }
    }
    let adjusted = holm(&ps);
    for (row, adj) in rows.iter_mut().zip(adjusted.chunks(2)) {
        row.recall_at_10.p_holm = round(adj[0]);
        row.context_chars.p_holm = round(adj[1]);
    }
    let datasets: Vec<&str> = a
        .datasets
        .iter()
        .map(|w| match w {
            Which::Hotpotqa => "hotpotqa",
            Which::MultihopRag => "multihop-rag",
            Which::Locomo => "locomo",
        })
        .collect();
    let report = Report {
        command: format!(
            "bench neurogenesis --datasets {} --splits {} --split-seed {} --top {} --maintain-every {} --feedback {} --max-questions {} --permutations {} --bootstrap {} --bootstrap-seed {}",
            datasets.join(","),
            a.splits,
            a.split_seed,
            a.top,
            a.maintain_every,
            match a.feedback {
                FeedbackRule::Outcome => "outcome",
                FeedbackRule::Confirmed => "confirmed",
            },
            a.max_questions,
            a.stats.permutations,
            a.stats.bootstrap,
            a.stats.bootstrap_seed
        ),
        embedder: "hash-v1",
        profile: "corrected",
        about: ABOUT,
        maintain_tasks: MAINTAIN_TASKS,
        rows,
    };
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let suffix = name_suffix(a);
    let json_path = a.out.join(format!("neurogenesis-hash-v1{suffix}.json"));
    let text = serde_json::to_string_pretty(&report)
        .map_err(|e| Error::Internal(format!("the report: {e}")))?;
    std::fs::write(&json_path, text + "\n").map_err(|e| Error::io(&json_path, e))?;
    let md = table(&report);
    let md_path = a.out.join(format!("NEUROGENESIS{suffix}.md"));
    std::fs::write(&md_path, &md).map_err(|e| Error::io(&md_path, e))?;
    Ok(md)
}

/// Default `--maintain-every`.
pub const DEFAULT_MAINTAIN_EVERY: usize = 100;

/// The result files' name part of the non-default choices that change what is measured
/// (`-maintainN`, `-confirmed`, `-maxN`); empty for the defaults.
pub fn name_suffix(a: &NeuroArgs) -> String {
    let mut s = String::new();
    if a.maintain_every != DEFAULT_MAINTAIN_EVERY {
        s.push_str(&format!("-maintain{}", a.maintain_every));
    }
    if a.feedback == FeedbackRule::Confirmed {
        s.push_str("-confirmed");
    }
    if a.max_questions > 0 {
        s.push_str(&format!("-max{}", a.max_questions));
    }
    s
}

/// The Markdown of a report.
pub fn table(r: &Report) -> String {
    let opt =
        |x: Option<f64>, digits: usize| x.map_or("–".to_string(), |v| format!("{v:.digits$}"));
    let mut s = format!(
        "# Neurogenesis on vs off (issue 31, seed 001 ablation C3)\n\n`{}` (hash-v1, corrected \
         profile, `benchmarks/src/neurogenesis.rs`; maintain tasks `{}`). Per question, the mean \
         over the splits that tested it; Δ = on − off with its paired bootstrap 95 % interval; \
         p: paired randomization test, Holm over the {} tests of this table; MDD: minimum \
         detectable difference at 80 % power.\n\n\
         | dataset | protocol | questions | R@10 on / off | Δ [95 % CI] | p (Holm) | MDD | context chars on / off | Δ [95 % CI] | p (Holm) | MDD |\n\
         |---|---|---:|---|---|---|---:|---|---|---|---:|\n",
        r.command,
        r.maintain_tasks,
        r.rows.len() * 2
    );
    for row in &r.rows {
        if row.questions == 0 {
            s.push_str(&format!(
                "| {} | {} | 0 | – | – | – | – | – | – | – | – |\n",
                row.dataset, row.protocol
            ));
            continue;
        }
        let x = &row.recall_at_10;
        let c = &row.context_chars;
        s.push_str(&format!(
            "| {} | {} | {} | {:.3} / {:.3} | {:+.3} [{:+.3}, {:+.3}] | {:.3} ({:.3}) | {} | {:.0} / {:.0} | {:+.0} [{:+.0}, {:+.0}] | {:.3} ({:.3}) | {} |\n",
            row.dataset,
            row.protocol,
            row.questions,
            x.on,
            x.off,
            x.diff,
            x.ci95_low,
            x.ci95_high,
            x.p_value,
            x.p_holm,
            opt(x.mdd80, 3),
            c.on,
            c.off,
            c.diff,
            c.ci95_low,
            c.ci95_high,
            c.p_value,
            c.p_holm,
            opt(c.mdd80, 0),
        ));
    }
    s.push_str(
        "\nQuestion nodes with neurogenesis on (summed over splits; shares of births):\n\n\
         | dataset | protocol | brains | queries | born | per 1,000 queries | alive at end (probation / permanent) | promoted | died | merged | born with it off |\n\
         |---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n",
    );
    for row in &r.rows {
        let g = &row.growth_on;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {} |\n",
            row.dataset,
            row.protocol,
            row.brains_per_arm,
            g.queries,
            g.events.born,
            opt(g.born_per_1000_queries, 1),
            g.alive[0],
            g.alive[1],
            opt(g.promoted_share, 3),
            opt(g.died_share, 3),
            opt(g.merged_share, 3),
            row.born_off,
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: &str, event: &str) -> PyDict {
        let mut d = PyDict::new();
        d.insert("type".into(), PyValue::Str(kind.into()));
        d.insert("event".into(), PyValue::Str(event.into()));
        d
    }

    #[test]
    fn events_count_only_neurogenesis_entries() {
        let entries = vec![
            entry("neurogenesis", "born"),
            entry("neurogenesis", "born"),
            entry("neurogenesis", "refreshed"),
            entry("neurogenesis", "promoted"),
            entry("neurogenesis", "died"),
            entry("neurogenesis", "merged"),
            entry("neurogenesis", "demoted"),
            // another kind with the same event word does not count
            entry("query", "born"),
            entry("neurogenesis", "unknown"),
        ];
        let e = Events::of(&entries);
        assert_eq!(
            e,
            Events {
                born: 2,
                refreshed: 1,
                promoted: 1,
                demoted: 1,
                died: 1,
                merged: 1
            }
        );
        let mut sum = e;
        sum.add(&e);
        assert_eq!((sum.born, sum.died), (4, 2));
    }

    #[test]
    fn growth_rates_are_per_1000_queries_and_shares_of_births() {
        // 8 births over 400 queries = 20 per 1,000; 2 promoted of 8 = 0.25, 5 died = 0.625,
        // 1 merged = 0.125; alive 1 + 2 = 3 → 7.5 per 1,000 (hand computation)
        let e = Events {
            born: 8,
            promoted: 2,
            died: 5,
            merged: 1,
            ..Events::default()
        };
        let g = Growth::of(400, e, [1, 2]);
        assert_eq!(g.born_per_1000_queries, Some(20.0));
        assert_eq!(g.alive_per_1000_queries, Some(7.5));
        assert_eq!(g.promoted_share, Some(0.25));
        assert_eq!(g.died_share, Some(0.625));
        assert_eq!(g.merged_share, Some(0.125));
        // no birth: shares are undefined, never a fake 0
        let none = Growth::of(400, Events::default(), [0, 0]);
        assert_eq!(none.promoted_share, None);
        assert_eq!(none.born_per_1000_queries, Some(0.0));
        assert_eq!(
            Growth::of(0, Events::default(), [0, 0]).born_per_1000_queries,
            None
        );
    }

    #[test]
    fn result_names_carry_only_non_default_choices() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            a: NeuroArgs,
        }
        let parse = |args: &[&str]| {
            let mut v = vec!["bench"];
            v.extend_from_slice(args);
            Cli::try_parse_from(v).unwrap().a
        };
        assert_eq!(name_suffix(&parse(&[])), "");
        assert_eq!(
            name_suffix(&parse(&[
                "--maintain-every",
                "0",
                "--feedback",
                "confirmed"
            ])),
            "-maintain0-confirmed"
        );
        assert_eq!(name_suffix(&parse(&["--max-questions", "40"])), "-max40");
        assert!(Cli::try_parse_from(["bench", "--datasets", "hotpotqa,bogus"]).is_err());
    }

    #[test]
    fn per_key_means_average_each_question_over_its_splits() {
        // q1 tested in three splits (1, 0, 0.5 → 0.5), q0 in one (0.25), key order
        let m = per_key_means([("q1", 1.0), ("q0", 0.25), ("q1", 0.0), ("q1", 0.5)]);
        assert_eq!(m, vec![("q0".to_string(), 0.25), ("q1".to_string(), 0.5)]);
    }

    #[test]
    fn judged_indices_read_recall_and_outcomes_from_the_metric_table() {
        let rel = vec!["a".to_string(), "b".to_string()];
        let ranked: Vec<String> = ["x", "b", "y"].iter().map(|s| s.to_string()).collect();
        // one of two evidence ids in the answer: recall 0.5, any-hit 1, all-hit 0
        assert_eq!(score(metric("recall_at_10").unwrap(), &rel, &ranked), 0.5);
        assert_eq!(
            score(metric("partial_hit_rate").unwrap(), &rel, &ranked),
            1.0
        );
        assert_eq!(score(metric("full_hit_rate").unwrap(), &rel, &ranked), 0.0);
        let all: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(score(metric("sp_recall_at_10").unwrap(), &rel, &all), 1.0);
        let (r, t) = judged_indices(&rel, &ranked);
        assert_eq!((r, t), (vec![0, 1], vec![usize::MAX, 1, usize::MAX]));
    }
}
