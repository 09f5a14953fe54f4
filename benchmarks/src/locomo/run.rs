//! A whole LoCoMo run, plan → execute: load, embed with both embedders, tune on the
//! tuning conversations ([`super::tuning`]), then score every arm on the eight test
//! conversations and learn routers across them ([`super::across`]). The result is plain
//! data ([`LocomoRun`]); the report is written from it.

use indicatif::ProgressBar;

use super::across::{candidates, choose, outcomes, Choice};
use super::arms::{Arm, Group};
use super::brain::{corpora, Structure};
use super::compare::{QuestionKey, Table};
use super::context::{Prepared, LIST_DEPTH};
use super::data::Locomo;
use super::embedding::embed_all;
use super::engine::Knobs;
use super::splits::{Role, WithinSplits};
use super::tuning::{tune, Grid, Tuned};
use crate::embed::{EmbedStats, EmbedderArg, TextEmbedder};
use crate::error::{Error, Result};
use crate::methods::{routed_methods, Method, SeedSource};

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

/// The knobs that are not tuned, and the starting point of the tuning: the bench
/// defaults where they exist (`bench run`'s `--max-hops`, `--beam-width`, `--lr`,
/// `--discount`, `RouterConfig::default()`), the corrected core profile (the reference's
/// bugs fixed, `crabpath::profile`), [`LIST_DEPTH`]-long lists.
pub fn base_knobs() -> Knobs {
    use crate::plan;
    Knobs {
        embedder: EmbedderArg::Minilm,
        structure: Structure::SessionChains,
        seed_source: SeedSource::Dense,
        seed_top_k: plan::DEFAULT_SEED_TOP_K,
        max_hops: plan::DEFAULT_MAX_HOPS,
        beam_width: plan::DEFAULT_BEAM_WIDTH,
        router: crabpath::RouterConfig::default(),
        lr: plan::DEFAULT_LR,
        discount: plan::DEFAULT_DISCOUNT,
        profile: crabpath::Profile::Corrected,
        list_depth: LIST_DEPTH,
        budget: 0,
    }
}

/// What a run needs besides the data and the embedders.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The within-conversation splits.
    pub splits: WithinSplits,
    /// The tuning grid.
    pub grid: Grid,
    /// Untuned knobs (see [`base_knobs`]).
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
    /// The embedders' statistics (hash-v1, MiniLM).
    pub embed_stats: [EmbedStats; 2],
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

/// Runs everything (see the module docs). `say` receives one line per phase.
pub fn execute(
    l: &Locomo,
    hash: &TextEmbedder,
    minilm: &TextEmbedder,
    opts: &Options,
    say: &mut dyn FnMut(String),
) -> Result<LocomoRun> {
    let cc = corpora(l)?;
    let (vh, sh) = embed_all(hash, &cc, &ProgressBar::hidden())?;
    say(format!("embedded with {}: {}", hash.name(), sh.describe()));
    let (vm, sm) = embed_all(minilm, &cc, &ProgressBar::hidden())?;
    say(format!(
        "embedded with {}: {}",
        minilm.name(),
        sm.describe()
    ));
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
        .zip(vh.iter().zip(&vm))
        .map(|((c, cc), (h, m))| Prepared::new(c, cc, h, m))
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
        &opts.grid,
        opts.base,
        &mut |done, total| {
            if done * 10 / total > last {
                last = done * 10 / total;
                say(format!("tuning: {done}/{total} cells"));
            }
        },
    )?;
    say(format!(
        "tuned: budget {} characters; cold traversal {:?}",
        tuned.budget, tuned.cold
    ));

    let arms = test_arms(&tuned)?;
    let cands = candidates(&opts.grid, &tuned.cold);
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
        name: "crabpath_cold@learned[transfer]".into(),
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
        embed_stats: [sh, sm],
        tuned,
        arms: all_arms,
        table,
        candidates: cands,
        choices,
        tests,
    })
}

/// The arms scored on the test conversations (the transfer arm is added by [`execute`]):
/// the baselines, the cold traversals (router-less and each router), the learned
/// traversals, and the structure ablation of the router-less cold traversal.
pub fn test_arms(tuned: &Tuned) -> Result<Vec<Arm>> {
    let method = |name: &str| {
        Method::by_name(name).ok_or_else(|| Error::Internal(format!("no method {name}")))
    };
    let mut arms = Vec::new();
    for (name, embedder) in BASELINES {
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
        // the fixture's conversation three times: conv-26 (tuning), conv-x and conv-y
        let mut l = load(&testdata::committed("datasets/fixtures/locomo_tiny.json")).unwrap();
        let c = l.conversations.remove(0);
        for (row, id) in ["conv-26", "conv-x", "conv-y"].into_iter().enumerate() {
            let mut c = c.clone();
            c.sample_id = id.into();
            c.row = row;
            l.conversations.push(c);
        }
        let hash = TextEmbedder::open(EmbedderArg::HashV1, &ModelOpts::default()).unwrap();
        let opts = Options {
            splits: WithinSplits::new(4, 0, 0.5).unwrap(),
            grid: SMALL,
            base: base_knobs(),
        };
        let mut lines = Vec::new();
        let r = execute(&l, &hash, &hash, &opts, &mut |s| lines.push(s)).unwrap();
        assert_eq!(r.tests, [1, 2]);
        assert_eq!(r.conversations[0].role, Role::Tuning);
        assert_eq!(r.conversations[1].scored, 3);
        // 5 baselines, 4 cold, 8 learned, 4 ablation, 1 transfer
        assert_eq!(r.table.arms.len(), 22);
        assert_eq!(
            r.table.questions.len(),
            6,
            "3 scored questions in each test conversation"
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
        assert!(execute(&l, &hash, &hash, &opts, &mut |_| {}).is_err());
    }
}
