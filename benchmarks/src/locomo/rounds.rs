//! `bench locomo-rounds`: LoCoMo questions asked again (issue 31 item 5: "Measure it in
//! rounds … on LoCoMo questions asked again, both protocols, through the product path").
//!
//! * **Brains**: one per test conversation ([`super::splits::Role::Test`]) and protocol,
//!   built as `crabpath init --conversation` builds it ([`super::product::build`],
//!   hash-v1), fresh for each protocol.
//! * **Questions**: those with released evidence; the ones at even positions (0, 2, …)
//!   are *asked* in `--rounds` rounds, the ones at odd positions are *unrelated*
//!   (held out: asked without feedback before round 1, neurogenesis off — a fixed graph
//!   — and after the last round, neurogenesis on).
//! * **Asking**: as the headline asks ([`super::product::request`]: the default query,
//!   `--top` seeds, limit 50), as a served turn of the question's own conversation with
//!   neurogenesis on ([`crate::served::ask`]), followed by feedback
//!   ([`crate::served::feedback`]) of one [`Protocol`]: agent-confirmed (+1, `used_ids`
//!   = the question's evidence turns) or outcome-only (+1 when an evidence turn is among
//!   the first five ids, −1 otherwise).
//! * **Scores**: success@5 (an evidence turn among the first five ids) and recall@10 by
//!   the paper's definition ([`super::paper::recall_row`]), per round and conversation,
//!   pooled over conversations by question ([`pooled`]). The targets ([`targets`]):
//!   agent-confirmed success@5 ≥ 0.95 from round 2; outcome-only never below round 1 and
//!   higher at the last round than at the first.
//!
//! The data is CC BY-NC 4.0: the result holds numbers only, no question text.
//!
//! `--held-out-answers FILE` also writes, for reading losses one by one, each held-out
//! question's first ten ids before and after the rounds (JSON Lines: `conversation`,
//! `protocol`, `question` — its position in the conversation's released `qa` list —,
//! `evidence`, `before`, `after`; ids and positions only). It is how the losses that an
//! asked question's +1 caused through its seeds' links were found
//! (`crates/crabpath-brain/src/service/feedback.rs`, `used_path`).

use std::path::PathBuf;

use crabpath::embed::{Embedder, HashEmbedder};
use serde::Serialize;

use super::data::{load, Conversation};
use super::paper::recall_row;
use super::product::{self, ARMS};
use super::splits::Role;
use crate::catalog::{self, Dataset, VariantArg};
use crate::data::locate::{resolve_input, DataDir};
use crate::error::{Error, Result};
use crate::served::{self, Protocol};

/// `bench locomo-rounds`' options.
#[derive(Debug, Clone, clap::Args)]
pub struct RoundsArgs {
    /// Seeds of the default query (the headline's tuned `top` for hash-v1,
    /// `results/bench/LOCOMO.md`).
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..))]
    pub top: u64,
    /// Rounds of the asked questions.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
    /// Only this test conversation (repeat for several) [default: every test
    /// conversation].
    #[arg(long = "conversation", value_name = "SAMPLE_ID")]
    pub conversations: Vec<String>,
    /// Where to write the JSON result.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "results/bench/learn/locomo-rounds-hash-v1.json"
    )]
    pub output: PathBuf,
    /// Where to write the Markdown table [default: the JSON result's path with `.md`].
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Read this LoCoMo file instead of locomo/locomo10.json(.gz) in the data directory.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Also write each held-out question's first ten ids before and after the rounds,
    /// one JSON object a line (see the module docs): to read the losses one by one.
    #[arg(long, value_name = "FILE")]
    pub held_out_answers: Option<PathBuf>,
}

/// success@5 and recall@10 of a group of questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scored {
    /// Questions scored.
    pub questions: usize,
    /// Share with an evidence turn among the first five ids.
    pub success_at_5: f64,
    /// Mean recall@10 (the paper's definition).
    pub recall_at_10: f64,
}

/// One question's answer: (success@5, recall@10).
pub type Row = (bool, f64);

fn round4(x: f64) -> f64 {
    (x * 10000.0).round() / 10000.0
}

/// The scores of `rows` (0 everywhere for none).
pub fn scored(rows: &[Row]) -> Scored {
    let n = rows.len();
    if n == 0 {
        return Scored::default();
    }
    Scored {
        questions: n,
        success_at_5: round4(rows.iter().filter(|r| r.0).count() as f64 / n as f64),
        recall_at_10: round4(rows.iter().map(|r| r.1).sum::<f64>() / n as f64),
    }
}

/// Parts pooled by question: means weighted by each part's questions (from the
/// rounded part means, so a pooled value may differ from the unrounded one in the
/// fourth decimal).
pub fn pooled(parts: &[Scored]) -> Scored {
    let n: usize = parts.iter().map(|p| p.questions).sum();
    if n == 0 {
        return Scored::default();
    }
    let w = |f: fn(&Scored) -> f64| {
        round4(parts.iter().map(|p| f(p) * p.questions as f64).sum::<f64>() / n as f64)
    };
    Scored {
        questions: n,
        success_at_5: w(|p| p.success_at_5),
        recall_at_10: w(|p| p.recall_at_10),
    }
}

/// Whether the issue's targets hold, from success@5 per round: agent-confirmed ≥ 0.95
/// from round 2 on (`None` with fewer than 2 rounds); outcome-only never below round 1
/// and higher at the last round than at the first (`None` with fewer than 2 rounds).
pub fn targets(agent: &[f64], outcome: &[f64]) -> (Option<bool>, Option<bool>) {
    let a = (agent.len() >= 2).then(|| agent[1..].iter().all(|&x| x >= 0.95));
    let o = (outcome.len() >= 2).then(|| {
        let first = outcome[0];
        outcome.iter().all(|&x| x >= first) && outcome[outcome.len() - 1] > first
    });
    (a, o)
}

/// One protocol on one conversation, or pooled.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolScores {
    /// The asked questions, per round.
    pub rounds: Vec<Scored>,
    /// The unrelated questions before round 1 and after the last.
    pub unrelated: [Scored; 2],
    /// Unrelated questions with an evidence turn in the first five before and not after.
    pub unrelated_lost: usize,
    /// Unrelated questions whose recall@10 fell.
    pub unrelated_recall_fell: usize,
    /// Auto nodes at the end: on probation, permanent (0 when pooled over
    /// conversations: summed).
    pub auto_nodes: [usize; 2],
}

/// One conversation.
#[derive(Debug, Clone, Serialize)]
pub struct ConversationScores {
    /// Its `sample_id`.
    pub sample_id: String,
    /// Asked and unrelated questions.
    pub counts: [usize; 2],
    /// Per protocol, in [`Protocol::ALL`] order.
    pub protocols: Vec<(String, ProtocolScores)>,
}

/// The result file.
#[derive(Debug, Clone, Serialize)]
pub struct RoundsReport {
    /// How it was made.
    pub command: String,
    /// Seeds per query.
    pub top: usize,
    /// Questions left out for having no evidence.
    pub without_evidence: usize,
    /// Pooled over the conversations, per protocol.
    pub pooled: Vec<(String, ProtocolScores)>,
    /// Agent-confirmed success@5 ≥ 0.95 from round 2; outcome-only never below round 1
    /// and rising ([`targets`]).
    pub targets: (Option<bool>, Option<bool>),
    /// Per conversation.
    pub conversations: Vec<ConversationScores>,
}

fn row(evidence: &[String], got: &[String]) -> Row {
    let hit = got.iter().take(5).any(|g| evidence.contains(g));
    (hit, recall_row(evidence, got)[1])
}

/// A conversation's questions as the rounds use them: positions in its `qa` list.
struct Questions<'a> {
    /// Asked in the rounds.
    asked: &'a [usize],
    /// Held out: asked before round 1 and after the last.
    unrelated: &'a [usize],
    /// Every question's hash-v1 vector, by position.
    vectors: &'a [Vec<f64>],
}

/// Runs one protocol on a fresh brain of `conv`; with `--held-out-answers`, adds a line
/// per held-out question to `answers`.
fn run_protocol(
    conv: &Conversation,
    e: &HashEmbedder,
    q: &Questions<'_>,
    protocol: Protocol,
    a: &RoundsArgs,
    answers: &mut Vec<String>,
) -> Result<ProtocolScores> {
    let Questions {
        asked,
        unrelated,
        vectors,
    } = *q;
    let qs = &conv.questions;
    let arm = &ARMS[0];
    let top = a.top as usize;
    let mut b = product::build(conv, e)?;
    // served as the daemon serves it: with its embedder (feedback may embed)
    b.brain_mut().put_embedder(Box::new(HashEmbedder::new()));
    let ask = |b: &mut product::ProductBrain, i: usize, neuro: bool, chat: Option<&str>| {
        let req = product::request(&qs[i].question, &vectors[i], arm, top);
        served::ask(b.brain_mut(), req, neuro, chat)
    };
    let mut before = Vec::with_capacity(unrelated.len());
    let mut first_ten = Vec::with_capacity(unrelated.len());
    for &i in unrelated {
        let got = ask(&mut b, i, false, None)?;
        before.push(row(&qs[i].released_evidence, &got));
        first_ten.push(got.into_iter().take(10).collect::<Vec<_>>());
    }
    let mut rounds = Vec::new();
    for _ in 0..a.rounds {
        let mut rows = Vec::with_capacity(asked.len());
        for &i in asked {
            let chat = format!("{}:q{i}", conv.sample_id);
            let got = ask(&mut b, i, true, Some(&chat))?;
            let r = row(&qs[i].released_evidence, &got);
            rows.push(r);
            let mut used = Vec::new();
            if protocol == Protocol::AgentConfirmed {
                for ev in &qs[i].released_evidence {
                    if !used.contains(ev) && b.has_node(ev)? {
                        used.push(ev.clone());
                    }
                }
            }
            let (outcome, used_ids) = protocol.feedback(r.0, || (!used.is_empty()).then_some(used));
            served::feedback(b.brain_mut(), &chat, outcome, used_ids)?;
        }
        rounds.push(scored(&rows));
    }
    let mut after = Vec::with_capacity(unrelated.len());
    for (&i, was) in unrelated.iter().zip(&first_ten) {
        let got = ask(&mut b, i, true, None)?;
        after.push(row(&qs[i].released_evidence, &got));
        if a.held_out_answers.is_some() {
            let line = serde_json::json!({
                "conversation": conv.sample_id,
                "protocol": protocol.as_str(),
                "question": i,
                "evidence": qs[i].released_evidence,
                "before": was,
                "after": &got[..got.len().min(10)],
            });
            answers.push(line.to_string());
        }
    }
    let counts = b
        .brain_mut()
        .neurogenesis_counts()
        .map_err(|err| Error::brain("counting auto nodes", err))?;
    let hits = |v: &[Row]| v.iter().map(|r| r.0).collect::<Vec<_>>();
    Ok(ProtocolScores {
        rounds,
        unrelated: [scored(&before), scored(&after)],
        unrelated_lost: served::lost(&hits(&before), &hits(&after)),
        unrelated_recall_fell: before.iter().zip(&after).filter(|(x, y)| y.1 < x.1).count(),
        auto_nodes: [counts.probation, counts.permanent],
    })
}

/// Pools one protocol's scores over conversations.
fn pool(parts: &[&ProtocolScores]) -> ProtocolScores {
    let rounds = parts.first().map_or(0, |p| p.rounds.len());
    let col = |f: &dyn Fn(&ProtocolScores) -> Scored| {
        pooled(&parts.iter().map(|p| f(p)).collect::<Vec<_>>())
    };
    ProtocolScores {
        rounds: (0..rounds).map(|r| col(&|p| p.rounds[r])).collect(),
        unrelated: [col(&|p| p.unrelated[0]), col(&|p| p.unrelated[1])],
        unrelated_lost: parts.iter().map(|p| p.unrelated_lost).sum(),
        unrelated_recall_fell: parts.iter().map(|p| p.unrelated_recall_fell).sum(),
        auto_nodes: [
            parts.iter().map(|p| p.auto_nodes[0]).sum(),
            parts.iter().map(|p| p.auto_nodes[1]).sum(),
        ],
    }
}

/// Runs `bench locomo-rounds` (see the module docs), writes the JSON result and the
/// Markdown table; returns the table.
pub fn cmd_rounds(data_dir: &DataDir, a: &RoundsArgs) -> Result<String> {
    let markdown = a
        .markdown
        .clone()
        .unwrap_or_else(|| a.output.with_extension("md"));
    for (opt, p) in [("--output", &a.output), ("--markdown", &markdown)]
        .into_iter()
        .chain(a.held_out_answers.iter().map(|p| ("--held-out-answers", p)))
    {
        pyformat::io::check_output(opt, p).map_err(|e| Error::Usage(e.to_string()))?;
    }
    let file = catalog::known_file(Dataset::Locomo, VariantArg::Full)?;
    let path = resolve_input(a.input.as_deref(), data_dir, file)?;
    let data = load(&path)?;
    let test: Vec<&Conversation> = data
        .conversations
        .iter()
        .filter(|c| Role::of(&c.sample_id) == Role::Test)
        .collect();
    for want in &a.conversations {
        if !test.iter().any(|c| &c.sample_id == want) {
            let ids: Vec<&str> = test.iter().map(|c| c.sample_id.as_str()).collect();
            return Err(Error::Usage(format!(
                "--conversation: expected a test conversation ({}), found {want:?}",
                ids.join(", ")
            )));
        }
    }
    let e = HashEmbedder::new();
    let mut without_evidence = 0;
    let mut convs = Vec::new();
    let mut answers = Vec::new();
    for conv in test
        .into_iter()
        .filter(|c| a.conversations.is_empty() || a.conversations.contains(&c.sample_id))
    {
        let qs = &conv.questions;
        let scorable: Vec<usize> = (0..qs.len())
            .filter(|&i| !qs[i].released_evidence.is_empty())
            .collect();
        without_evidence += qs.len() - scorable.len();
        let asked: Vec<usize> = scorable.iter().copied().step_by(2).collect();
        let unrelated: Vec<usize> = scorable.iter().copied().skip(1).step_by(2).collect();
        let vectors: Vec<Vec<f64>> = qs
            .iter()
            .map(|q| e.embed(&q.question))
            .collect::<std::result::Result<_, _>>()
            .map_err(|err| Error::Internal(format!("hash-v1: {err}")))?;
        let mut protocols = Vec::new();
        for p in Protocol::ALL {
            let q = Questions {
                asked: &asked,
                unrelated: &unrelated,
                vectors: &vectors,
            };
            let s = run_protocol(conv, &e, &q, p, a, &mut answers)?;
            protocols.push((p.as_str().to_string(), s));
        }
        convs.push(ConversationScores {
            sample_id: conv.sample_id.clone(),
            counts: [asked.len(), unrelated.len()],
            protocols,
        });
    }
    let pooled_scores: Vec<(String, ProtocolScores)> = Protocol::ALL
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let parts: Vec<&ProtocolScores> = convs.iter().map(|c| &c.protocols[k].1).collect();
            (p.as_str().to_string(), pool(&parts))
        })
        .collect();
    let s5 = |k: usize| -> Vec<f64> {
        pooled_scores
            .get(k)
            .map(|(_, p)| p.rounds.iter().map(|r| r.success_at_5).collect())
            .unwrap_or_default()
    };
    let mut command = format!("bench locomo-rounds --top {} --rounds {}", a.top, a.rounds);
    for c in &a.conversations {
        command.push_str(&format!(" --conversation {c}"));
    }
    let report = RoundsReport {
        command,
        top: a.top as usize,
        without_evidence,
        targets: targets(&s5(0), &s5(1)),
        pooled: pooled_scores,
        conversations: convs,
    };
    let table = markdown_of(&report);
    // one line: the file stays small (the Markdown table is the reading copy)
    let text = serde_json::to_string(&report)
        .map_err(|err| Error::Internal(format!("the report: {err}")))?;
    crate::report::save(&a.output, (text + "\n").as_bytes())?;
    crate::report::save(&markdown, table.as_bytes())?;
    if let Some(p) = &a.held_out_answers {
        let mut text = answers.join("\n");
        text.push('\n');
        crate::report::save(p, text.as_bytes())?;
    }
    Ok(table)
}

fn verdict(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "met",
        Some(false) => "**not met**",
        None => "n/a (one round)",
    }
}

/// The Markdown table of a report.
pub fn markdown_of(r: &RoundsReport) -> String {
    let rounds = r.pooled.first().map_or(0, |(_, p)| p.rounds.len());
    let (asked, unrel): (usize, usize) = r
        .conversations
        .iter()
        .fold((0, 0), |(x, y), c| (x + c.counts[0], y + c.counts[1]));
    let mut s = format!(
        "# LoCoMo questions asked again (`bench locomo-rounds`)\n\n\
         Generated by `{}`.\n\n\
         {} test conversations, hash-v1, the product's default query (top {}, limit 50), \
         neurogenesis on; {asked} asked questions (even positions) in {rounds} rounds, {unrel} \
         unrelated questions (odd positions) before round 1 and after the last; {} questions \
         without evidence left out. success@5 / recall@10, pooled by question:\n\n\
         | protocol |",
        r.command,
        r.conversations.len(),
        r.top,
        r.without_evidence
    );
    for i in 0..rounds {
        s.push_str(&format!(" round {} |", i + 1));
    }
    s.push_str(" unrelated before → after (lost at 5, recall@10 fell) | auto nodes (probation / permanent) |\n|---|");
    s.push_str(&"---|".repeat(rounds + 2));
    s.push('\n');
    for (name, p) in &r.pooled {
        s.push_str(&format!("| {name} |"));
        for x in &p.rounds {
            s.push_str(&format!(" {:.3} / {:.3} |", x.success_at_5, x.recall_at_10));
        }
        s.push_str(&format!(
            " {:.3} / {:.3} → {:.3} / {:.3} ({}, {}) | {} / {} |\n",
            p.unrelated[0].success_at_5,
            p.unrelated[0].recall_at_10,
            p.unrelated[1].success_at_5,
            p.unrelated[1].recall_at_10,
            p.unrelated_lost,
            p.unrelated_recall_fell,
            p.auto_nodes[0],
            p.auto_nodes[1]
        ));
    }
    s.push_str(&format!(
        "\nTargets (issue 31 item 5): agent-confirmed success@5 ≥ 0.95 from round 2: {}; \
         outcome-only never below round 1 and rising: {}.\n",
        verdict(r.targets.0),
        verdict(r.targets.1)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_score_success_at_5_and_recall_at_10() {
        let got: Vec<String> = (1..=12).map(|i| format!("D1:{i}")).collect();
        let ev = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // D1:3 at rank 3: hit; D1:7 at 7 and D1:20 absent: no hit, recall@10 1/2
        assert_eq!(row(&ev(&["D1:3"]), &got), (true, 1.0));
        assert_eq!(row(&ev(&["D1:7", "D1:20"]), &got), (false, 0.5));
    }

    #[test]
    fn scores_and_pooling_weigh_by_question() {
        let a = scored(&[(true, 1.0), (false, 0.5), (false, 0.0)]);
        // 1/3 → 0.3333; (1 + 0.5 + 0) / 3 = 0.5
        assert_eq!(
            a,
            Scored {
                questions: 3,
                success_at_5: 0.3333,
                recall_at_10: 0.5
            }
        );
        let b = scored(&[(true, 1.0)]);
        // (0.3333·3 + 1·1) / 4 = 0.499975 → 0.5; (0.5·3 + 1) / 4 = 0.625
        assert_eq!(
            pooled(&[a, b]),
            Scored {
                questions: 4,
                success_at_5: 0.5,
                recall_at_10: 0.625
            }
        );
        assert_eq!(pooled(&[]), Scored::default());
        assert_eq!(scored(&[]), Scored::default());
    }

    #[test]
    fn targets_read_the_rounds_as_the_issue_states_them() {
        assert_eq!(
            targets(&[0.6, 0.95, 1.0], &[0.5, 0.5, 0.6]),
            (Some(true), Some(true))
        );
        // a round below 0.95 after round 1; outcome-only dips below round 1
        assert_eq!(
            targets(&[0.6, 0.94, 1.0], &[0.5, 0.49, 0.6]),
            (Some(false), Some(false))
        );
        // flat is not rising
        assert_eq!(targets(&[0.6, 1.0], &[0.5, 0.5]).1, Some(false));
        assert_eq!(targets(&[0.6], &[0.5]), (None, None));
    }
}
