//! `bench locomo-learn`: does learning from the training half of a conversation's
//! questions help the other half, through the product's own path (issue 28, item 5:
//! "Learning from the training half of the questions is scored on the other half (the
//! existing split design). Report it honestly, even if it does not help.")
//!
//! * **Splits**: the within-conversation splits of [`super::splits::WithinSplits`]
//!   (seeded permutations, the first half learned from, the rest scored).
//! * **Learning**: for each training question, in learning order, the brain (hash-v1,
//!   built by [`super::product::build`]) is asked as the headline asks it (default
//!   query, `top` seeds, limit 50), and then taught what a user who knows the answer
//!   would teach: `Brain::learn` along its first answer and the question's released
//!   evidence turns, outcome +1 (the path "this is where the answer was").
//! * **Scoring**: every test question of the split, asked the same way on the learned
//!   brain, against the same questions on the brain as built (paired): recall@5/10/25/50
//!   by the paper's definition ([`super::paper::recall_row`]), means over the questions
//!   of each split, then over splits; tuning (conv-26, conv-30) and test conversations
//!   apart.

use std::path::PathBuf;

use serde::Serialize;

use super::data::{load, Category};
use super::paper::recall_row;
use super::product::{self, ARMS};
use super::splits::{Role, WithinSplits};
use crate::catalog::{self, Dataset, VariantArg};
use crate::data::locate::{resolve_input, DataDir};
use crate::error::{Error, Result};

/// Arguments of `bench locomo-learn`.
#[derive(Debug, Clone, clap::Args)]
pub struct LearnArgs {
    /// Seeds of the default query (the headline's tuned `top`, `results/bench/LOCOMO.md`).
    #[arg(long, default_value_t = 4)]
    pub top: usize,
    /// Splits per conversation.
    #[arg(long, default_value_t = 5)]
    pub splits: usize,
    /// Seed of the splits' permutations.
    #[arg(long, default_value_t = 0)]
    pub split_seed: u64,
    /// Share of each conversation's questions learned from.
    #[arg(long, default_value_t = 0.5)]
    pub learn_fraction: f64,
    /// Where the JSON result goes.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Read this LoCoMo file instead of locomo/locomo10.json(.gz) in the data directory.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// Mean recall@5/10/25/50 before and after learning, of one group of questions.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Paired {
    /// Scored questions, summed over splits.
    pub questions: usize,
    /// On the brain as built.
    pub before: [f64; 4],
    /// On the brain after learning from the split's training half.
    pub after: [f64; 4],
}

/// The result of `bench locomo-learn`.
#[derive(Debug, Clone, Serialize)]
pub struct LearnReport {
    /// The command that made it.
    pub command: String,
    /// Cut-offs of the recall columns.
    pub ks: [usize; 4],
    /// `tuning` / `test` conversations, `all` / `multi-hop` questions.
    pub groups: Vec<(String, Paired)>,
}

#[derive(Default)]
struct Sums {
    n: usize,
    before: [f64; 4],
    after: [f64; 4],
}

impl Sums {
    fn add(&mut self, b: [f64; 4], a: [f64; 4]) {
        self.n += 1;
        for i in 0..4 {
            self.before[i] += b[i];
            self.after[i] += a[i];
        }
    }

    fn paired(&self) -> Paired {
        let m = |x: f64| {
            if self.n == 0 {
                0.0
            } else {
                (x / self.n as f64 * 10000.0).round() / 10000.0
            }
        };
        Paired {
            questions: self.n,
            before: self.before.map(m),
            after: self.after.map(m),
        }
    }
}

/// Runs the measurement (see the module docs) and writes its JSON to `--out`; returns
/// a Markdown table of it.
pub fn cmd_learn(data_dir: &DataDir, a: &LearnArgs) -> Result<String> {
    let file = catalog::known_file(Dataset::Locomo, VariantArg::Full)?;
    let path = resolve_input(a.input.as_deref(), data_dir, file)?;
    let data = load(&path)?;
    let splits = WithinSplits::new(a.splits, a.split_seed, a.learn_fraction)?;
    let e = crabpath::embed::HashEmbedder::new();
    let arm = &ARMS[0];
    // [role][all, multi-hop]
    let mut sums: [[Sums; 2]; 2] = Default::default();
    for conv in &data.conversations {
        let role = usize::from(Role::of(&conv.sample_id) == Role::Test);
        let qs = &conv.questions;
        let vectors: Vec<Vec<f64>> = qs
            .iter()
            .map(|q| crabpath::embed::Embedder::embed(&e, &q.question))
            .collect::<std::result::Result<_, _>>()
            .map_err(|err| Error::Internal(format!("hash-v1: {err}")))?;
        let mut fresh = product::build(conv, &e)?;
        let before: Vec<[f64; 4]> = qs
            .iter()
            .zip(&vectors)
            .map(|(q, v)| {
                let got = product::ask(&mut fresh, &q.question, v, arm, a.top)?;
                Ok(recall_row(&q.released_evidence, &got))
            })
            .collect::<Result<_>>()?;
        drop(fresh);
        for split in splits.make(conv.row, qs.len()) {
            let mut b = product::build(conv, &e)?;
            for &i in &split.train {
                let got = product::ask(&mut b, &qs[i].question, &vectors[i], arm, a.top)?;
                let mut ids: Vec<String> = got.into_iter().take(1).collect();
                for ev in &qs[i].released_evidence {
                    if !ids.contains(ev) && b.has_node(ev)? {
                        ids.push(ev.clone());
                    }
                }
                if ids.len() >= 2 {
                    b.learn(&ids, 1.0)?;
                }
            }
            for &i in &split.test {
                let got = product::ask(&mut b, &qs[i].question, &vectors[i], arm, a.top)?;
                let after = recall_row(&qs[i].released_evidence, &got);
                sums[role][0].add(before[i], after);
                if qs[i].category == Category::MultiHop {
                    sums[role][1].add(before[i], after);
                }
            }
        }
    }
    let mut groups = Vec::new();
    for (r, role) in ["tuning", "test"].iter().enumerate() {
        for (c, cat) in ["all", "multi-hop"].iter().enumerate() {
            groups.push((format!("{role} {cat}"), sums[r][c].paired()));
        }
    }
    let report = LearnReport {
        command: format!(
            "bench locomo-learn --top {} --splits {} --split-seed {} --learn-fraction {} --out {}",
            a.top,
            a.splits,
            a.split_seed,
            a.learn_fraction,
            a.out.display()
        ),
        ks: super::paper::KS,
        groups,
    };
    let text = serde_json::to_string_pretty(&report)
        .map_err(|err| Error::Internal(format!("the report: {err}")))?;
    std::fs::write(&a.out, format!("{text}\n")).map_err(|err| Error::io(&a.out, err))?;
    let mut md = String::from(
        "| questions (scored, over splits) | n | R@5 before → after | R@10 before → after | R@25 before → after | R@50 before → after |\n|---|---|---|---|---|---|\n",
    );
    for (name, p) in &report.groups {
        md.push_str(&format!("| {name} | {} ", p.questions));
        for k in 0..4 {
            md.push_str(&format!("| {:.3} → {:.3} ", p.before[k], p.after[k]));
        }
        md.push_str("|\n");
    }
    Ok(md)
}
