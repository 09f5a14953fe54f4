//! `bench folder-rounds`: learning that changes the next answer (issue 31 item 5). The
//! folder question set is asked in rounds through the product's path — a writable,
//! resident hash-v1 brain built as `crabpath init` builds it, every question asked with
//! [`Brain::query`] (neurogenesis on, `--top 10`, limit 50, route `edge+sim`, as `bench
//! folder`), logged as its conversation's turn ([`Brain::record_turn`]) and answered by
//! a feedback ([`Brain::feedback`]), as the daemon's `query` and `learn_by_chat_id` do:
//!
//! * **agent-confirmed**: outcome +1 with `used_ids` = the nodes of the question's first
//!   acceptable page (what an agent that found and read the right page reports);
//! * **outcome only**: +1 when an acceptable page is among the first five, −1 otherwise,
//!   no `used_ids`.
//!
//! Each protocol runs on its own fresh brain. The questions at even positions (q001,
//! q003, …) are asked in the rounds; those at odd positions are *unrelated* questions,
//! asked without feedback before round 1 and after the last round; the hand-written
//! paraphrases of asked questions (`benchmarks/data/folder-questions/
//! tldr-08e345f-paraphrases.json`) likewise. The "before" answers are asked with
//! neurogenesis off (a fixed graph: nothing of theirs may steer a later answer), the
//! "after" answers with it on. Scores are success@5 by page ([`super::score`]).
//!
//! It took 11 minutes in a debug build at load 8 (two brains of 79k chunks; the numbers do
//! not depend on the build), so it is not part of `bench check`; its small JSON result is
//! committed in `results/bench/folder/`.

use std::path::{Path, PathBuf};

use clap::Args;
use crabpath::profile::Profile;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{locate, Brain, OpenOptions, QueryRequest};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::questions::QuestionSet;
use super::run::{build_brain, loader};
use super::score::{first_hit, page_map, ranked_pages};
use crate::embed::{EmbedderArg, ModelOpts};
use crate::error::{Error, Result};
use crate::served;

/// `bench folder-rounds`' options.
#[derive(Debug, Args)]
pub struct RoundsArgs {
    /// The folder and its questions.
    #[command(flatten)]
    pub set: super::FolderSet,
    /// The paraphrases of asked questions (JSON: `paraphrases`, each `of` a question
    /// id and its `question`).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "benchmarks/data/folder-questions/tldr-08e345f-paraphrases.json"
    )]
    pub paraphrases: PathBuf,
    /// Rounds of the asked questions.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
    /// Where to write the JSON result.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "results/bench/folder/rounds-tldr-08e345f.json"
    )]
    pub output: PathBuf,
}

/// The paraphrase file.
#[derive(Debug, Deserialize)]
struct Paraphrases {
    paraphrases: Vec<Paraphrase>,
}

#[derive(Debug, Deserialize)]
struct Paraphrase {
    of: String,
    question: String,
}

/// One protocol's scores.
#[derive(Debug, Clone, Serialize)]
pub struct Protocol {
    /// `agent-confirmed` or `outcome-only`.
    pub name: String,
    /// success@5 of the asked questions in each round.
    pub rounds: Vec<f64>,
    /// success@5 of the paraphrases before round 1 and after the last.
    pub paraphrases: [f64; 2],
    /// success@5 of the unrelated questions before round 1 and after the last.
    pub unrelated: [f64; 2],
    /// Unrelated questions answered within five pages before and not after.
    pub unrelated_lost: usize,
    /// Auto nodes after the last round: on probation, permanent.
    pub auto_nodes: [usize; 2],
}

/// The result file.
#[derive(Debug, Clone, Serialize)]
pub struct RoundsReport {
    /// How it was made.
    pub command: String,
    /// Questions asked in rounds, unrelated questions, paraphrases.
    pub counts: [usize; 3],
    /// The protocols.
    pub protocols: Vec<Protocol>,
}

/// A folder question as `bench folder` and the rounds ask it: `--top 10`, limit 50, route
/// `edge+sim` (the corrected profile's default route).
pub fn request(q: &str) -> QueryRequest<'_> {
    let mut req = QueryRequest::new(q, 10);
    req.route = RouteMode::default_for(Profile::Corrected).config();
    req.limit = Some(50);
    req
}

/// Runs `bench folder-rounds` and writes its result; returns a short table.
pub fn cmd_rounds(a: &RoundsArgs) -> Result<String> {
    let set = QuestionSet::load(&a.set.questions)?;
    set.check_files(&a.set.questions, &a.set.workspace)?;
    let text = std::fs::read_to_string(&a.paraphrases).map_err(|e| Error::io(&a.paraphrases, e))?;
    let para: Paraphrases = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: expected {{\"paraphrases\": [{{\"of\", \"question\"}}]}}: {e}",
            a.paraphrases.display()
        ))
    })?;
    let asked: Vec<_> = set.questions.iter().step_by(2).collect();
    let unrelated: Vec<_> = set.questions.iter().skip(1).step_by(2).collect();
    let mut paraphrases = Vec::new();
    for p in &para.paraphrases {
        let Some(q) = asked.iter().find(|q| q.id == p.of) else {
            return Err(Error::Usage(format!(
                "{}: paraphrase of `{}`, which is not an asked question (even position)",
                a.paraphrases.display(),
                p.of
            )));
        };
        paraphrases.push((p.question.clone(), q.acceptable.clone()));
    }
    let boot = crabpath_brain::source::bootstrap::split_workspace(
        &a.set.workspace,
        &SplitOptions::new(Profile::Corrected),
    )
    .map_err(|e| Error::brain(format!("{}: split", a.set.workspace.display()), e))?;
    let graph = &boot.graph;
    let page = page_map(graph);
    let mut nodes_of: FxHashMap<&str, Vec<String>> = FxHashMap::default();
    for (id, p) in &page {
        nodes_of.entry(p.as_str()).or_default().push(id.clone());
    }
    for v in nodes_of.values_mut() {
        v.sort();
    }
    let page_of = |id: &str| page.get(id).cloned();
    let model = ModelOpts::default();
    let mut protocols = Vec::new();
    for protocol in served::Protocol::ALL {
        let work = tempfile::tempdir().map_err(|e| Error::io(&std::env::temp_dir(), e))?;
        let dir = work.path().join("brain");
        build_brain(&dir, graph, EmbedderArg::HashV1, &model, false)?;
        let mut o = OpenOptions::new(Profile::Corrected);
        o.resident = true;
        o.embedder = Some(loader(EmbedderArg::HashV1, &model));
        let mut brain = Brain::open(locate(&dir), o)
            .map_err(|e| Error::brain(format!("{}: open", dir.display()), e))?;
        let ask = |b: &mut Brain,
                   q: &str,
                   neuro: bool,
                   chat: Option<&str>,
                   acceptable: &[String]|
         -> Result<bool> {
            let ranked = served::ask(b, request(q), neuro, chat)?;
            let pages = ranked_pages(ranked.iter().map(String::as_str), page_of);
            Ok(first_hit(&pages, acceptable).is_some_and(|r| r <= 5))
        };
        let before_para: Vec<bool> = paraphrases
            .iter()
            .map(|(q, acc)| ask(&mut brain, q, false, None, acc))
            .collect::<Result<_>>()?;
        let before_unrel: Vec<bool> = unrelated
            .iter()
            .map(|q| ask(&mut brain, &q.question, false, None, &q.acceptable))
            .collect::<Result<_>>()?;
        let mut rounds = Vec::new();
        for _ in 0..a.rounds {
            let mut hits = Vec::new();
            for q in &asked {
                let hit = ask(&mut brain, &q.question, true, Some(&q.id), &q.acceptable)?;
                hits.push(hit);
                let (outcome, used_ids) = protocol.feedback(hit, || {
                    q.acceptable
                        .first()
                        .and_then(|p| nodes_of.get(p.as_str()))
                        .cloned()
                });
                served::feedback(&mut brain, &q.id, outcome, used_ids)?;
            }
            rounds.push(served::share(&hits));
        }
        let after_para: Vec<bool> = paraphrases
            .iter()
            .map(|(q, acc)| ask(&mut brain, q, true, None, acc))
            .collect::<Result<_>>()?;
        let after_unrel: Vec<bool> = unrelated
            .iter()
            .map(|q| ask(&mut brain, &q.question, true, None, &q.acceptable))
            .collect::<Result<_>>()?;
        let counts = brain
            .neurogenesis_counts()
            .map_err(|e| Error::brain("counting auto nodes", e))?;
        protocols.push(Protocol {
            name: protocol.as_str().into(),
            rounds,
            paraphrases: [served::share(&before_para), served::share(&after_para)],
            unrelated: [served::share(&before_unrel), served::share(&after_unrel)],
            unrelated_lost: served::lost(&before_unrel, &after_unrel),
            auto_nodes: [counts.probation, counts.permanent],
        });
    }
    let report = RoundsReport {
        command: format!(
            "bench folder-rounds --workspace <tldr-pages 08e345f>/pages --rounds {}",
            a.rounds
        ),
        counts: [asked.len(), unrelated.len(), paraphrases.len()],
        protocols,
    };
    write_json(&a.output, &report)?;
    let mut t = String::from("| protocol | success@5 by round | paraphrases before → after | unrelated before → after (lost) |\n|---|---|---|---|\n");
    for p in &report.protocols {
        let r: Vec<String> = p.rounds.iter().map(|x| format!("{x:.3}")).collect();
        t.push_str(&format!(
            "| {} | {} | {:.3} → {:.3} | {:.3} → {:.3} ({}) |\n",
            p.name,
            r.join(" / "),
            p.paraphrases[0],
            p.paraphrases[1],
            p.unrelated[0],
            p.unrelated[1],
            p.unrelated_lost
        ));
    }
    Ok(t)
}

fn write_json(path: &Path, report: &RoundsReport) -> Result<()> {
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}
