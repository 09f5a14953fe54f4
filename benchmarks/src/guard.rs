//! `bench guard`: do corrections guide rather than erase? (issue 31, item 4).
//!
//! On the held-out questions of three datasets, through the product's path (a
//! corrected-profile brain database, hash-v1, `Brain::query` with its default seeding,
//! `Brain::correct_with`):
//!
//! * HotPotQA (the staged `sample1100`) and MultiHop-RAG (`sample500`): one brain of the
//!   clean graph (the reference's label-free edges,
//!   [`GraphBuilder::Reference`](crate::build::GraphBuilder::Reference)); the held-out
//!   questions are the test pool (the dev pool of [`Heldout::dev_pool`] left out, as
//!   every held-out protocol leaves it out);
//! * LoCoMo: one brain per test conversation ([`product::build`]; the tuning
//!   conversations left out), its questions with evidence.
//!
//! Protocol, per dataset and per arm ([`Arm`]: the rules of [`CorrectionMode`], the old
//! `veto`, the first guardrail `guardrail-shared` and the corrected profile's
//! `guardrail`; and the three parts of `guardrail-shared` alone that diagnose its
//! losses, [`crate::guard_causes`]), each on a fresh brain:
//! 1. every held-out question is asked once (top `--top` seeds, the ranked answer cut to
//!    `--k`) and logged as a turn of its own conversation (`chat_id` = the question);
//!    this is *before*;
//! 2. each wrong answer (recall@k < 1) is corrected for its conversation, with a text
//!    built from its evidence: `Correction: ` followed by the first
//!    [`SNIPPET_CHARS`] characters of each missed evidence text (at most
//!    [`MAX_SNIPPETS`]); the corrections accumulate in the one brain;
//! 3. every held-out question is asked again; this is *after*.
//!
//! Reported, per rule: recall@5 and recall@k before and after, on the corrected
//! questions, on the *related* ones (not corrected, sharing an evidence document with a
//! corrected one; LoCoMo: also any other question of a conversation that got a
//! correction) and on the others; how many related questions lost or gained; and the
//! corrections' links (how many, how many to an evidence document of the corrected
//! question), and why related questions lost ([`crate::guard_causes`]). Every rule
//! answers through today's query, which lists corrections as guardrails outside the
//! ranked content, so they differ only in what `correct` writes.
//!
//! `--pool dev` asks the questions the guardrail rule was chosen on instead (the dev
//! pools, LoCoMo's tuning conversations); the reported results are `--pool test`.
//!
//! The run takes minutes (no model); it is not in `bench check`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::graph::Metadata;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::{CorrectRequest, CorrectionMode, GUARDRAIL_MIN_SIM};
use crabpath_brain::{Brain, QueryRequest};
use serde_json::{json, Value};

use crate::catalog::{known_file, Dataset, VariantArg};
use crate::data::locate::{resolve_input, DataDir};
use crate::engine::staged_clean_corpus;
use crate::error::{Error, Result};
use crate::guard_arm::{recall, Arm, Outcome};
use crate::guard_causes::Run;
use crate::locomo::product;
use crate::locomo::splits::Role;
use crate::splits::{
    Heldout, HeldoutKind, DEFAULT_DEV_FRACTION, DEFAULT_SPLITS, DEFAULT_TRAIN_FRACTION,
};

/// Characters of each missed evidence text a correction quotes.
pub const SNIPPET_CHARS: usize = 240;
/// Evidence texts a correction quotes at most.
pub const MAX_SNIPPETS: usize = 2;

/// `bench guard`'s options.
#[derive(Debug, clap::Args)]
pub struct GuardArgs {
    /// Where to write `guard-hash-v1.json` and `GUARD.md`.
    #[arg(long, value_name = "DIR", default_value = "results/bench/guard")]
    pub out: PathBuf,
    /// Seeds per question (the example asks with top_k 4).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub top: usize,
    /// Answer length; recall@k is read from it, and an answer is wrong when its recall@k
    /// is below 1.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub k: usize,
    /// At most this many held-out questions per dataset (0 = all; LoCoMo: per
    /// conversation).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_questions: usize,
    /// Which questions: `test` (the held-out questions reported: the test pool, LoCoMo's
    /// test conversations) or `dev` (the rule's design was chosen on these: the dev pool
    /// of [`Heldout::dev_pool`], LoCoMo's tuning conversations).
    #[arg(long, value_name = "POOL", default_value = "test")]
    pub pool: Pool,
}

/// Which questions `bench guard` asks (see [`GuardArgs::pool`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pool {
    /// The held-out questions reported.
    Test,
    /// The questions the rule was chosen on.
    Dev,
}

/// One held-out question: its text, its evidence node ids, its conversation (LoCoMo) or
/// none.
struct Question {
    text: String,
    relevant: Vec<String>,
}

/// A brain and its held-out questions (one corpus, or one LoCoMo conversation).
struct Set {
    brain: product::ProductBrain,
    questions: Vec<Question>,
    /// Related questions are those of the same set (LoCoMo), not only those sharing
    /// evidence.
    same_set_related: bool,
}

fn hash_loader() -> crabpath_brain::service::EmbedderLoader {
    Arc::new(|| Ok(Box::new(HashEmbedder::new()) as Box<dyn Embedder>))
}

/// One answer: the ranked content, whether a correction seeded it, and whether it
/// came with a guardrail.
#[derive(Debug, Clone, Default)]
pub(crate) struct Asked {
    pub ranked: Vec<String>,
    pub guard_seeded: bool,
    pub guarded: bool,
}

fn ask(b: &mut Brain, q: &str, top: usize, k: usize, chat: Option<&str>) -> Result<Asked> {
    let mut req = QueryRequest::new(q, top);
    req.limit = Some(k);
    let a = b
        .query(&req)
        .map_err(|e| Error::brain(format!("asking {q:?}"), e))?;
    let asked = Asked {
        ranked: a.ranked().into_iter().map(str::to_string).collect(),
        guard_seeded: a.hits.iter().any(|(id, _)| a.is_guardrail(id)),
        guarded: !a.guardrails.is_empty(),
    };
    let record = chat.map(|_| a.turn_record(q));
    drop(a);
    if let (Some(c), Some(r)) = (chat, record) {
        b.record_turn(c, r)
            .map_err(|e| Error::brain(format!("logging {q:?}"), e))?;
    }
    Ok(asked)
}

/// The text of node `id` of the brain.
fn node_text(b: &mut Brain, id: &str) -> Result<String> {
    b.read(|g, _| {
        g.lookup(id)
            .and_then(|n| g.node(n))
            .map(|n| n.content.clone())
            .unwrap_or_default()
    })
    .map_err(|e| Error::brain(format!("reading {id}"), e))
}

/// The correction of a wrong answer, built from its missed evidence (see the module
/// docs).
fn correction_text(b: &mut Brain, missed: &[String]) -> Result<String> {
    let mut parts = Vec::new();
    for id in missed.iter().take(MAX_SNIPPETS) {
        let t: String = node_text(b, id)?.chars().take(SNIPPET_CHARS).collect();
        parts.push(t.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    Ok(format!("Correction: {}", parts.join(" ")))
}

/// The protocol of the module docs on one set under one arm.
fn run_set(set: &mut Set, arm: Arm, a: &GuardArgs) -> Result<Vec<Outcome>> {
    let b = set.brain.brain_mut();
    b.set_embedder(hash_loader());
    let mut out = Vec::with_capacity(set.questions.len());
    for (i, q) in set.questions.iter().enumerate() {
        let before = ask(b, &q.text, a.top, a.k, Some(&format!("q{i}")))?.ranked;
        out.push(Outcome {
            before,
            ..Outcome::default()
        });
    }
    for (i, q) in set.questions.iter().enumerate() {
        let top = &out[i].before[..out[i].before.len().min(a.k)];
        let missed: Vec<String> = q
            .relevant
            .iter()
            .filter(|r| !top.contains(r))
            .cloned()
            .collect();
        if missed.is_empty() {
            continue;
        }
        out[i].corrected = true;
        let text = correction_text(b, &missed)?;
        let chat = format!("q{i}");
        let (mode, chat_id) = match arm {
            Arm::Rule(m) => (m, Some(chat.as_str())),
            Arm::NodeOnly => (CorrectionMode::GuardrailShared, None),
            Arm::Nothing => continue,
            Arm::LearnOnly => {
                let fired = b
                    .recent_turns(&chat, 1)
                    .map_err(|e| Error::brain(format!("reading turn {chat}"), e))?
                    .pop()
                    .map(|t| t.fired)
                    .unwrap_or_default();
                if !fired.is_empty() {
                    b.learn(&fired, -1.0)
                        .map_err(|e| Error::brain(format!("learning {:?}", q.text), e))?;
                }
                continue;
            }
        };
        let r = b
            .correct_with(
                &CorrectRequest {
                    content: &text,
                    chat_id,
                    turns_ago: None,
                    outcome: -1.0,
                    window: Window::default(),
                    source: "bench-guard",
                },
                mode,
            )
            .map_err(|e| Error::brain(format!("correcting {:?}", q.text), e))?;
        out[i].links = r.connected_to.len();
        out[i].links_to_evidence = r
            .connected_to
            .iter()
            .filter(|c| q.relevant.contains(c))
            .count();
    }
    for (i, q) in set.questions.iter().enumerate() {
        let after = ask(b, &q.text, a.top, a.k, None)?;
        out[i].after = after.ranked;
        out[i].after_guard_seeded = after.guard_seeded;
        out[i].after_guarded = after.guarded;
    }
    Ok(out)
}

/// The arms `bench guard` runs, in the order reports list them: the product's rules,
/// then the diagnosis' parts of the shared rule.
pub const ARMS: [Arm; 6] = [
    Arm::Rule(CorrectionMode::Veto),
    Arm::Rule(CorrectionMode::GuardrailShared),
    Arm::Rule(CorrectionMode::Guardrail),
    Arm::Nothing,
    Arm::NodeOnly,
    Arm::LearnOnly,
];

/// Which questions of a set are related to a corrected one (see the module docs).
fn related(set: &Set, outcomes: &[Outcome]) -> Vec<bool> {
    let corrected_docs: BTreeSet<&str> = set
        .questions
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| o.corrected)
        .flat_map(|(q, _)| q.relevant.iter().map(String::as_str))
        .collect();
    let any = outcomes.iter().any(|o| o.corrected);
    set.questions
        .iter()
        .zip(outcomes)
        .map(|(q, o)| {
            !o.corrected
                && ((set.same_set_related && any)
                    || q.relevant
                        .iter()
                        .any(|r| corrected_docs.contains(r.as_str())))
        })
        .collect()
}

/// Mean recall@k before and after, and losses and gains, of a group of questions.
fn group(rows: &[(&Question, &Outcome)], k: usize) -> Value {
    let n = rows.len();
    let mean = |f: &dyn Fn(&Question, &Outcome) -> f64| -> Option<f64> {
        (n > 0).then(|| rows.iter().map(|(q, o)| f(q, o)).sum::<f64>() / n as f64)
    };
    let (mut lost, mut gained) = (0, 0);
    for (q, o) in rows {
        let (b, a) = (
            recall(&q.relevant, &o.before, k),
            recall(&q.relevant, &o.after, k),
        );
        if a < b - 1e-12 {
            lost += 1;
        }
        if a > b + 1e-12 {
            gained += 1;
        }
    }
    let r = |x: Option<f64>| x.map(|v| (v * 10_000.0).round() / 10_000.0);
    json!({
        "n": n,
        "recall_at_5_before": r(mean(&|q, o| recall(&q.relevant, &o.before, 5))),
        "recall_at_5_after": r(mean(&|q, o| recall(&q.relevant, &o.after, 5))),
        format!("recall_at_{k}_before"): r(mean(&|q, o| recall(&q.relevant, &o.before, k))),
        format!("recall_at_{k}_after"): r(mean(&|q, o| recall(&q.relevant, &o.after, k))),
        "lost": lost,
        "gained": gained,
    })
}

/// The report of one dataset under one rule, over its sets.
fn report(sets: &[Set], outcomes: &[Vec<Outcome>], k: usize) -> Value {
    let mut corrected = Vec::new();
    let mut rel = Vec::new();
    let mut other = Vec::new();
    let (mut links, mut to_evidence, mut linked) = (0usize, 0usize, 0usize);
    for (set, outs) in sets.iter().zip(outcomes) {
        let is_related = related(set, outs);
        for ((q, o), r) in set.questions.iter().zip(outs).zip(is_related) {
            if o.corrected {
                corrected.push((q, o));
                links += o.links;
                to_evidence += o.links_to_evidence;
                linked += usize::from(o.links > 0);
            } else if r {
                rel.push((q, o));
            } else {
                other.push((q, o));
            }
        }
    }
    json!({
        "corrected": group(&corrected, k),
        "related": group(&rel, k),
        "other": group(&other, k),
        "corrections": {
            "n": corrected.len(),
            "with_links": linked,
            "links": links,
            "links_to_evidence": to_evidence,
        },
    })
}

/// The held-out corpus questions of a staged dataset, with one brain of its clean graph.
fn corpus_set(
    data_dir: &DataDir,
    dataset: Dataset,
    variant: VariantArg,
    max: usize,
    pool: Pool,
) -> Result<Set> {
    let (d, graph) = staged_clean_corpus(data_dir, dataset, variant)?;
    let corpus = &d.corpus;
    let heldout = Heldout::new(
        HeldoutKind::Related,
        DEFAULT_SPLITS,
        0,
        DEFAULT_TRAIN_FRACTION,
        DEFAULT_DEV_FRACTION,
        false,
    )?;
    let dev = heldout.dev_pool(corpus.queries.len());
    let mut questions: Vec<Question> = corpus
        .queries
        .iter()
        .zip(&dev)
        .filter(|(q, &dev)| dev == (pool == Pool::Dev) && !q.relevant.is_empty())
        .map(|(q, _)| Question {
            text: q.text.clone(),
            relevant: corpus.relevant_ids(q),
        })
        .collect();
    if max > 0 {
        questions.truncate(max);
    }
    let context = format!("{}: building the brain", dataset.reference_name());
    let brain = product::from_graph(&graph, Metadata::new(), &HashEmbedder::new(), &context)?;
    Ok(Set {
        brain,
        questions,
        same_set_related: false,
    })
}

/// The LoCoMo test conversations' questions with evidence, one brain each.
fn locomo_sets(data_dir: &DataDir, max: usize, pool: Pool) -> Result<Vec<Set>> {
    let file = known_file(Dataset::Locomo, VariantArg::Full)?;
    let path = resolve_input(None, data_dir, file)?;
    let data = crate::locomo::data::load(&path)?;
    let mut sets = Vec::new();
    for conv in &data.conversations {
        let wanted = match pool {
            Pool::Test => Role::Test,
            Pool::Dev => Role::Tuning,
        };
        if Role::of(&conv.sample_id) != wanted {
            continue;
        }
        let mut questions: Vec<Question> = conv
            .questions
            .iter()
            .filter(|q| !q.evidence.is_empty())
            .map(|q| Question {
                text: q.question.clone(),
                relevant: q.evidence.iter().map(|e| e.to_string()).collect(),
            })
            .collect();
        if max > 0 {
            questions.truncate(max);
        }
        sets.push(Set {
            brain: product::build(conv, &HashEmbedder::new())?,
            questions,
            same_set_related: true,
        });
    }
    Ok(sets)
}

/// One arm over a dataset's sets (fresh brains from `make`): its report and its run.
fn run_arm(
    make: &(dyn Fn() -> Result<Vec<Set>> + Sync),
    arm: Arm,
    a: &GuardArgs,
    name: &str,
) -> Result<(Value, Run)> {
    let t = std::time::Instant::now();
    let mut sets = make()?;
    let outcomes = sets
        .iter_mut()
        .map(|s| run_set(s, arm, a))
        .collect::<Result<Vec<_>>>()?;
    let report = report(&sets, &outcomes, a.k);
    let rel = sets
        .iter()
        .zip(&outcomes)
        .map(|(s, o)| related(s, o))
        .collect();
    let evidence = sets
        .iter()
        .map(|s| s.questions.iter().map(|q| q.relevant.clone()).collect())
        .collect();
    eprintln!(
        "bench guard: {name} {} in {:.1} s",
        arm.as_str(),
        t.elapsed().as_secs_f64()
    );
    Ok((report, (arm, rel, outcomes, evidence)))
}

/// Runs `bench guard` (see the module docs); returns the Markdown table it wrote.
pub fn cmd_guard(data_dir: &DataDir, a: &GuardArgs) -> Result<String> {
    if a.top == 0 || a.k < 5 {
        return Err(Error::Usage(format!(
            "--top must be at least 1 and --k at least 5 (recall@5 is reported), got {} and {}",
            a.top, a.k
        )));
    }
    type Make<'a> = Box<dyn Fn() -> Result<Vec<Set>> + Sync + 'a>;
    let datasets: Vec<(&str, Make)> = vec![
        (
            "hotpotqa-sample1100",
            Box::new(|| {
                Ok(vec![corpus_set(
                    data_dir,
                    Dataset::HotpotQa,
                    VariantArg::Sample1100,
                    a.max_questions,
                    a.pool,
                )?])
            }),
        ),
        (
            "multihop_rag-sample500",
            Box::new(|| {
                Ok(vec![corpus_set(
                    data_dir,
                    Dataset::MultihopRag,
                    VariantArg::Sample500,
                    a.max_questions,
                    a.pool,
                )?])
            }),
        ),
        (
            "locomo-test",
            Box::new(|| locomo_sets(data_dir, a.max_questions, a.pool)),
        ),
    ];
    let mut results = BTreeMap::new();
    for (name, make) in &datasets {
        let mut arms = serde_json::Map::new();
        let mut runs: Vec<Run> = Vec::new();
        // the arms are independent (each on fresh brains): one thread each, collected
        // in the order of ARMS, so the report does not depend on the threads
        let done: Vec<Result<(Value, Run)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = ARMS
                .into_iter()
                .map(|arm| scope.spawn(move || run_arm(make.as_ref(), arm, a, name)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Usage("a bench guard arm panicked".into())))
                })
                .collect()
        });
        for (arm, d) in ARMS.into_iter().zip(done) {
            let (report, run) = d?;
            arms.insert(arm.as_str().into(), report);
            runs.push(run);
        }
        let causes = crate::guard_causes::breakdown(&runs, a.k);
        arms.insert("causes".into(), causes);
        results.insert(name.to_string(), Value::Object(arms));
    }
    let doc = json!({
        "command": format!(
            "bench guard --top {} --k {} --max-questions {} --pool {}",
            a.top,
            a.k,
            a.max_questions,
            match a.pool {
                Pool::Test => "test",
                Pool::Dev => "dev",
            }
        ),
        "embedder": "hash-v1",
        "profile": "corrected",
        "top": a.top,
        "k": a.k,
        "guardrail_min_sim": GUARDRAIL_MIN_SIM,
        "snippet_chars": SNIPPET_CHARS,
        "max_snippets": MAX_SNIPPETS,
        "datasets": results,
    });
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let json_path = a.out.join("guard-hash-v1.json");
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    std::fs::write(&json_path, text).map_err(|e| Error::io(&json_path, e))?;
    let md = table(&doc, a.k);
    let md_path = a.out.join("GUARD.md");
    std::fs::write(&md_path, &md).map_err(|e| Error::io(&md_path, e))?;
    Ok(md)
}

/// The Markdown table of a `bench guard` result.
fn table(doc: &Value, k: usize) -> String {
    let f = |v: &Value| v.as_f64().map_or("–".into(), |x| format!("{x:.3}"));
    let mut s = format!(
        "# Corrections: veto (old), guardrail-shared (before the fix), guardrail (new)\n\n`{}` (hash-v1, corrected profile; \
         issue 31 item 4, `benchmarks/src/guard.rs`). Recall@5 and recall@{k} before → after \
         the corrections; lost / gained: questions whose recall@{k} fell / rose.\n\n\
         | dataset | rule | group | n | R@5 before → after | R@{k} before → after | lost | gained |\n\
         |---|---|---|---:|---|---|---:|---:|\n",
        doc["command"].as_str().unwrap_or("")
    );
    if let Some(ds) = doc["datasets"].as_object() {
        for (name, arms) in ds {
            for mode in ARMS {
                let arm = &arms[mode.as_str()];
                for g in ["corrected", "related", "other"] {
                    let x = &arm[g];
                    s.push_str(&format!(
                        "| {name} | {} | {g} | {} | {} → {} | {} → {} | {} | {} |\n",
                        mode.as_str(),
                        x["n"],
                        f(&x["recall_at_5_before"]),
                        f(&x["recall_at_5_after"]),
                        f(&x[format!("recall_at_{k}_before")]),
                        f(&x[format!("recall_at_{k}_after")]),
                        x["lost"],
                        x["gained"],
                    ));
                }
            }
        }
        s.push_str("\n| dataset | rule | corrections | with links | links | links to evidence |\n|---|---|---:|---:|---:|---:|\n");
        for (name, arms) in ds {
            for mode in ARMS {
                let c = &arms[mode.as_str()]["corrections"];
                s.push_str(&format!(
                    "| {name} | {} | {} | {} | {} | {} |\n",
                    mode.as_str(),
                    c["n"],
                    c["with_links"],
                    c["links"],
                    c["links_to_evidence"]
                ));
            }
        }
        s.push_str(&crate::guard_causes::table(ds));
    }
    s
}
