//! A whole LoCoMo run, plan → execute: load, embed with both embedders, tune on the
//! tuning conversations ([`super::tuning`]), then score every arm on the eight test
//! conversations and learn routers across them ([`super::across`]). The result is plain
//! data ([`LocomoRun`]); the report is written from it.

use indicatif::ProgressBar;

use super::across::{candidates, choose, outcomes, Choice};
use super::arms::{Arm, Group};
use super::brain::{ConversationCorpus, Structure};
use super::compare::{QuestionKey, Table};
use super::context::Prepared;
use super::data::Locomo;
use super::embedding::embed_all;
use super::engine::Knobs;
use super::splits::{Role, WithinSplits};
use super::tuning::{tune, Grid, Tuned};
use crate::embed::{EmbedStats, EmbedderArg, TextEmbedder};
use crate::error::{Error, Result};
use crate::methods::{routed_methods, Method};

/// The structures of the ablation, in report order.
pub const ABLATION: [Structure; 4] = [
    Structure::NoEdges,
    Structure::SessionChains,
    Structure::ConversationChain,
    Structure::SessionChainsKnn(3),
];

/// The baselines: `(method, embedder)`; BM25 reads no vectors.
pub const BASELINES: [(&str, EmbedderArg); 5] = [
    ("bm25_topk", EmbedderArg::HashV1),
    ("embedding_topk", EmbedderArg::HashV1),
    ("embedding_topk", EmbedderArg::Minilm),
    ("rrf_topk", EmbedderArg::HashV1),
    ("rrf_topk", EmbedderArg::Minilm),
];

/// What a run needs besides the data and the embedders.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The within-conversation splits.
    pub splits: WithinSplits,
    /// The tuning grid.
    pub grid: Grid,
    /// Untuned knobs (see [`base_knobs`](super::tuning::base_knobs)).
    pub base: Knobs,
}

/// One conversation in a run's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationSummary {
    /// `sample_id`.
    pub sample_id: String,
    /// Tuning or test.
    pub role: Role,
    /// Sessions.
    pub sessions: usize,
    /// Turns (nodes).
    pub turns: usize,
    /// Questions in the file.
    pub questions: usize,
    /// Questions scored (with an evidence turn).
    pub scored: usize,
}

/// A LoCoMo run's results.
#[derive(Debug)]
pub struct LocomoRun {
    /// The conversations, file order.
    pub conversations: Vec<ConversationSummary>,
    /// Each conversation ready (file order): its corpus, searches and brains.
    pub prepared: Vec<Prepared>,
    /// The embedders' names and statistics, in run order (hash-v1, then MiniLM if run).
    pub embed_stats: Vec<(String, EmbedStats)>,
    /// The grid the tuning searched (the MiniLM values left out of a hash-v1-only run).
    pub grid: Grid,
    /// What the tuning chose and tried.
    pub tuned: Tuned,
    /// The arms scored on the test conversations, in report order.
    pub arms: Vec<Arm>,
    /// Their metric rows on the test questions (arm order; the transfer arm's rows come
    /// from each fold's choice).
    pub table: Table,
    /// The transfer candidates.
    pub candidates: Vec<Arm>,
    /// Per fold (test conversation), the candidate chosen.
    pub choices: Vec<Choice>,
    /// Indices (into `conversations`) of the test conversations, in `table` order.
    pub tests: Vec<usize>,
}

/// Runs everything (see the module docs) on `l` and its corpora `cc` (file order), with
/// hash-v1 and, unless `minilm` is `None`, all-MiniLM-L6-v2. `say` receives one line per
/// phase.
pub fn execute(
    l: &Locomo,
    cc: Vec<ConversationCorpus>,
    hash: &TextEmbedder,
    minilm: Option<&TextEmbedder>,
    opts: &Options,
    say: &mut dyn FnMut(String),
) -> Result<LocomoRun> {
    if cc.len() != l.conversations.len() {
        return Err(Error::Internal(
            "one corpus per conversation expected".into(),
        ));
    }
    let (vh, sh) = embed_all(hash, &cc, &ProgressBar::hidden())?;
    say(format!("embedded with {}: {}", hash.name(), sh.describe()));
    let mut embed_stats = vec![(hash.name().to_string(), sh)];
    let vm = match minilm {
        Some(m) => {
            let (v, s) = embed_all(m, &cc, &ProgressBar::hidden())?;
            say(format!("embedded with {}: {}", m.name(), s.describe()));
            embed_stats.push((m.name().to_string(), s));
            Some(v)
        }
        None => None,
    };
    let grid = match vm {
        Some(_) => opts.grid,
        None => Grid {
            embedders: &[EmbedderArg::HashV1],
            ..opts.grid
        },
    };
    let conversations = l
        .conversations
        .iter()
        .zip(&cc)
        .map(|(c, cc)| ConversationSummary {
            sample_id: c.sample_id.clone(),
            role: Role::of(&c.sample_id),
            sessions: c.sessions.len(),
            turns: c.turn_count(),
            questions: c.questions.len(),
            scored: cc.corpus.queries.len(),
        })
        .collect();
    let prepared: Vec<Prepared> = l
        .conversations
        .iter()
        .cloned()
        .zip(cc)
        .enumerate()
        .map(|(i, (c, cc))| Prepared::new(c, cc, &vh[i], vm.as_ref().map(|v| &v[i])))
        .collect::<Result<_>>()?;
    let tuning: Vec<&Prepared> = prepared
        .iter()
        .filter(|p| p.role() == Role::Tuning)
        .collect();
    let tests: Vec<usize> = (0..prepared.len())
        .filter(|&i| prepared[i].role() == Role::Test)
        .collect();
    if tests.is_empty() {
        return Err(Error::Usage(
            "no test conversation: every conversation is a tuning one".into(),
        ));
    }

    let mut last = 0;
    let tuned = tune(
        &tuning,
        &opts.splits,
        &grid,
        opts.base,
        &mut |done, total| {
            if done * 10 / total > last {
                last = done * 10 / total;
                say(format!("tuning: {done}/{total} cells"));
            }
        },
    )?;
    say(format!("tuned: budget {} characters", tuned.budget));

    let arms = test_arms(&tuned, vm.is_some())?;
    let cands = candidates(&grid, &tuned.cold);
    let test_refs: Vec<&Prepared> = tests.iter().map(|&i| &prepared[i]).collect();
    let outcome_table: Vec<Vec<Vec<f64>>> = cands
        .iter()
        .map(|a| test_refs.iter().map(|p| outcomes(a, p)).collect())
        .collect::<Result<_>>()?;
    let choices = choose(&outcome_table, test_refs.len())?;

    let mut questions = Vec::new();
    for (t, p) in test_refs.iter().enumerate() {
        for (q, &category) in p.cc.category.iter().enumerate() {
            questions.push(QuestionKey {
                conversation: t,
                query: q,
                category,
            });
        }
    }
    let mut rows: Vec<Vec<Option<Vec<f64>>>> = Vec::with_capacity(arms.len() + 1);
    for arm in &arms {
        let mut r = Vec::with_capacity(questions.len());
        for p in &test_refs {
            let sp = opts.splits.make(p.conv.row, p.cc.corpus.queries.len());
            r.extend(arm.rows(p, &sp)?);
        }
        say(format!("scored {}", arm.name));
        rows.push(r);
    }
    let mut transfer = Vec::with_capacity(questions.len());
    for (t, p) in test_refs.iter().enumerate() {
        let choice = choices
            .iter()
            .find(|c| c.fold.test == t)
            .ok_or_else(|| Error::Internal(format!("no transfer fold scores {t}")))?;
        transfer.extend(cands[choice.chosen].rows(p, &[])?);
    }
    rows.push(transfer);
    let transfer_arm = Arm {
        name: TRANSFER_ARM.into(),
        ..cands[0].clone()
    };
    let mut all_arms = arms;
    all_arms.push(transfer_arm);
    let table = Table {
        arms: all_arms.iter().map(|a| a.name.clone()).collect(),
        groups: all_arms.iter().map(|a| a.group).collect(),
        questions,
        rows,
    };
    Ok(LocomoRun {
        conversations,
        prepared,
        embed_stats,
        grid,
        tuned,
        arms: all_arms,
        table,
        candidates: cands,
        choices,
        tests,
    })
}

/// Name of the arm whose router each transfer fold chose.
pub const TRANSFER_ARM: &str = "crabpath_cold@learned[transfer]";

/// The arms scored on the test conversations (the transfer arm is added by [`execute`]):
/// the baselines (those of MiniLM only with `minilm`), the cold traversals (router-less and each router), the learned
/// traversals, and the structure ablation of the router-less cold traversal.
pub fn test_arms(tuned: &Tuned, minilm: bool) -> Result<Vec<Arm>> {
    let method = |name: &str| {
        Method::by_name(name).ok_or_else(|| Error::Internal(format!("no method {name}")))
    };
    let mut arms = Vec::new();
    for (name, embedder) in BASELINES
        .into_iter()
        .filter(|&(_, e)| minilm || e == EmbedderArg::HashV1)
    {
        arms.push(Arm::baseline(method(name)?, embedder, &tuned.cold));
    }
    let cold = method("crabpath_cold")?;
    arms.push(Arm::traversal(cold, tuned.cold, Group::Cold));
    for (kind, k) in &tuned.routers {
        arms.push(Arm::traversal(&routed_methods(*kind)[0], *k, Group::Cold));
    }
    for (m, k) in &tuned.learners {
        arms.push(Arm::traversal(m, *k, Group::Learned));
    }
    for s in ABLATION {
        let k = Knobs {
            structure: s,
            ..tuned.cold
        };
        arms.push(Arm::traversal(cold, k, Group::Ablation));
    }
    Ok(arms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::ModelOpts;
    use crate::locomo::compare::Slice;
    use crate::locomo::data::load;
    use crate::locomo::tuning::tests::SMALL;

    #[test]
    fn a_run_tunes_on_the_tuning_conversations_and_scores_the_others() {
        // the fixture: conv-26 (tuning) and two test conversations
        let mut l = load(&testdata::committed("datasets/fixtures/locomo_tiny.json")).unwrap();
        let hash = TextEmbedder::open(EmbedderArg::HashV1, &ModelOpts::default()).unwrap();
        let opts = Options {
            splits: WithinSplits::new(4, 0, 0.5).unwrap(),
            grid: SMALL,
            base: crate::locomo::tuning::base_knobs(),
        };
        let mut lines = Vec::new();
        let cc = crate::locomo::brain::corpora(&l).unwrap();
        let r = execute(&l, cc, &hash, None, &opts, &mut |s| lines.push(s)).unwrap();
        assert_eq!(r.tests, [1, 2]);
        assert_eq!(r.conversations[0].role, Role::Tuning);
        assert_eq!(r.conversations[1].scored, 4);
        // 3 hash-v1 baselines, 4 cold, 5 learned, 4 ablation, 1 transfer
        assert_eq!(r.table.arms.len(), 17);
        assert_eq!(r.grid.embedders, [EmbedderArg::HashV1]);
        assert_eq!(
            r.table.questions.len(),
            8,
            "4 scored questions in each test conversation"
        );
        assert_eq!(r.choices.len(), 2);
        assert_eq!(
            r.table.arms.last().map(String::as_str),
            Some("crabpath_cold@learned[transfer]")
        );
        for a in 0..r.table.arms.len() {
            let (m, n) = r.table.mean(a, "recall_at_10", Slice::All).unwrap();
            assert!((0.0..=1.0).contains(&m), "{}", r.table.arms[a]);
            assert!(n >= 4, "{}: {n} questions with a value", r.table.arms[a]);
        }
        assert!(lines
            .iter()
            .any(|s| s.starts_with("tuned: budget 400 characters")));
        // no test conversation: refused
        l.conversations.truncate(1);
        let cc = crate::locomo::brain::corpora(&l).unwrap();
        assert!(execute(&l, cc, &hash, None, &opts, &mut |_| {}).is_err());
    }
}
