//! The answer's statistics: every traversal against the best baseline, per metric and per
//! slice of the questions (all, or one category), with the conventions `results/bench/`
//! already follows.
//!
//! * **Values.** One metric value per question per arm ([`Table`]); a learning arm's is
//!   its mean over the splits that tested the question. A question enters a comparison
//!   when both arms have a value for it.
//! * **Best baseline.** Per metric and slice, the baseline (BM25, dense, RRF) with the
//!   highest mean on the compared questions. It is picked on the reported questions, which
//!   favours the baseline: a traversal that beats it beats every baseline.
//! * **Tests.** Per traversal arm that answers the question — cold, learned, transfer;
//!   the structure ablation answers another ([`Group::answers`]) — the paired randomization test of its per-question
//!   differences from the best baseline ([`crate::significance::permutation_p`]), a paired
//!   bootstrap 95 % interval ([`crate::metrics::paired_bootstrap`]), Cohen's d_z, and
//!   Holm's correction across the traversal arms of the same metric and slice (one family
//!   per question asked). The arm of index `i` draws from permutation stream `i`.
//! * **Minimum detectable difference** at 80 % power, two-sided α = 0.05
//!   ([`crate::significance::summarize`]): `(t(0.975, n−1) + t(0.80, n−1)) · sd(d) / √n` of the
//!   per-question differences — the true mean difference this many questions would show
//!   four times in five. Questions of one conversation are not independent (they share a
//!   brain and a speaker pair); the report gives every arm's mean per conversation beside
//!   it, so that a reader can see whether one conversation carries an effect.

use super::arms::Group;
use super::data::Category;
use super::metrics::column;
use crate::error::{Error, Result};
use crate::metrics::paired_bootstrap;
use crate::significance::{effect_size_dz, holm, permutation_p, summarize, PairTest};

/// Which questions a number is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slice {
    /// Every scored question.
    All,
    /// One category.
    Category(Category),
}

impl Slice {
    /// `all`, then the five categories.
    pub fn every() -> Vec<Slice> {
        std::iter::once(Slice::All)
            .chain(Category::ALL.map(Slice::Category))
            .collect()
    }

    /// `all` or the category's name.
    pub fn name(self) -> &'static str {
        match self {
            Slice::All => "all",
            Slice::Category(c) => c.as_str(),
        }
    }

    fn holds(self, c: Category) -> bool {
        match self {
            Slice::All => true,
            Slice::Category(x) => x == c,
        }
    }
}

/// One scored question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionKey {
    /// Index of its conversation in the run's list.
    pub conversation: usize,
    /// Its query index in the conversation's corpus.
    pub query: usize,
    /// Its category.
    pub category: Category,
}

/// Every arm's metric rows on the same questions.
#[derive(Debug, Clone)]
pub struct Table {
    /// Arm names.
    pub arms: Vec<String>,
    /// Arm groups.
    pub groups: Vec<Group>,
    /// The questions, in run order.
    pub questions: Vec<QuestionKey>,
    /// `rows[arm][question]`: the metric row, `None` if the arm has no value there.
    pub rows: Vec<Vec<Option<Vec<f64>>>>,
}

impl Table {
    /// Arm `a`'s values of metric column `col` on `slice`, as `(question, value)`.
    fn values(&self, a: usize, col: usize, slice: Slice) -> Vec<(usize, f64)> {
        self.questions
            .iter()
            .enumerate()
            .filter(|(_, q)| slice.holds(q.category))
            .filter_map(|(i, _)| self.rows[a][i].as_ref().map(|r| (i, r[col])))
            .collect()
    }

    /// Mean and count of arm `a`'s metric `metric` on `slice`.
    pub fn mean(&self, a: usize, metric: &str, slice: Slice) -> Result<(f64, usize)> {
        self.mean_where(a, metric, |q| slice.holds(q.category))
    }

    /// Mean and count of arm `a`'s metric `metric` over the questions `keep` selects
    /// (those without a value left out).
    pub fn mean_where(
        &self,
        a: usize,
        metric: &str,
        keep: impl Fn(&QuestionKey) -> bool,
    ) -> Result<(f64, usize)> {
        let c = col(metric)?;
        let v: Vec<f64> = self
            .questions
            .iter()
            .zip(&self.rows[a])
            .filter(|(q, _)| keep(q))
            .filter_map(|(_, r)| r.as_ref().map(|r| r[c]))
            .collect();
        Ok((mean(&v), v.len()))
    }

    /// The baseline with the highest mean of `metric` on `slice` (first on a tie).
    pub fn best_baseline(&self, metric: &str, slice: Slice) -> Result<usize> {
        let mut best: Option<(usize, f64)> = None;
        for a in (0..self.arms.len()).filter(|&a| self.groups[a] == Group::Baseline) {
            let (m, _) = self.mean(a, metric, slice)?;
            if best.is_none_or(|(_, b)| m > b) {
                best = Some((a, m));
            }
        }
        best.map(|b| b.0)
            .ok_or_else(|| Error::Internal("a LoCoMo table without baselines".into()))
    }
}

fn col(metric: &str) -> Result<usize> {
    column(metric).ok_or_else(|| Error::Internal(format!("{metric} is not a LoCoMo metric")))
}

/// One traversal arm against the best baseline on one metric and slice: the paired test
/// of the benchmark's other protocols (`a` the arm, `b` the baseline, indices into the
/// table's arms) with the means and the minimum detectable difference.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The test (`diff` = arm − baseline; `p_holm` across the family).
    pub test: PairTest,
    /// Questions compared.
    pub n: usize,
    /// The arm's mean.
    pub mean: f64,
    /// The baseline's mean.
    pub baseline_mean: f64,
    /// Minimum detectable difference at 80 % power.
    pub mdd80: f64,
}

/// How the tests are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draws {
    /// Randomization-test rounds.
    pub permutations: usize,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Seed of both.
    pub seed: u64,
}

/// Every traversal arm of `t` against the best baseline on `metric` and `slice` (see the
/// module docs), in arm order.
pub fn against_best_baseline(
    t: &Table,
    metric: &str,
    slice: Slice,
    draws: Draws,
) -> Result<Vec<Comparison>> {
    let c = col(metric)?;
    let base = t.best_baseline(metric, slice)?;
    let base_values: std::collections::HashMap<usize, f64> =
        t.values(base, c, slice).into_iter().collect();
    let mut out = Vec::new();
    for a in (0..t.arms.len()).filter(|&a| t.groups[a].answers()) {
        let pairs: Vec<(usize, f64, f64)> = t
            .values(a, c, slice)
            .into_iter()
            .filter_map(|(q, x)| base_values.get(&q).map(|&y| (q, x, y)))
            .collect();
        let xs: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let ys: Vec<f64> = pairs.iter().map(|p| p.2).collect();
        let d: Vec<f64> = pairs.iter().map(|p| p.1 - p.2).collect();
        let ci = paired_bootstrap(&[(&xs, &ys)], draws.resamples, draws.seed)
            .pop()
            .ok_or_else(|| Error::Internal("no bootstrap interval".into()))?;
        out.push(Comparison {
            test: PairTest {
                a,
                b: base,
                diff: ci.diff,
                ci_low: ci.lo,
                ci_high: ci.hi,
                p: permutation_p(&d, draws.permutations, draws.seed, a as u64),
                p_holm: 1.0,
                effect_size_dz: effect_size_dz(&d),
                a_better: d.iter().filter(|&&x| x > 0.0).count(),
                b_better: d.iter().filter(|&&x| x < 0.0).count(),
            },
            n: d.len(),
            mean: mean(&xs),
            baseline_mean: mean(&ys),
            mdd80: summarize(&d).mdd,
        });
    }
    let adjusted = holm(&out.iter().map(|c| c.test.p).collect::<Vec<_>>());
    for (c, p) in out.iter_mut().zip(adjusted) {
        c.test.p_holm = p;
    }
    Ok(out)
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two baselines, one traversal better than both by 0.5 on every multi-hop question
    /// and equal elsewhere.
    fn table() -> Table {
        let n = 40;
        let questions: Vec<QuestionKey> = (0..n)
            .map(|i| QuestionKey {
                conversation: i % 2,
                query: i,
                category: if i < 20 {
                    Category::MultiHop
                } else {
                    Category::SingleHop
                },
            })
            .collect();
        let width = crate::locomo::metrics::LOCOMO_METRICS.len();
        let row = |x: f64| Some(vec![x; width]);
        let weak: Vec<_> = (0..n).map(|_| row(0.1)).collect();
        let strong: Vec<_> = (0..n)
            .map(|i| row(if i % 2 == 0 { 0.5 } else { 0.3 }))
            .collect();
        let walk: Vec<_> = (0..n)
            .map(|i| {
                let b = if i % 2 == 0 { 0.5 } else { 0.3 };
                if i < 20 {
                    row(b + 0.5)
                } else if i == 39 {
                    None
                } else {
                    row(b)
                }
            })
            .collect();
        Table {
            arms: vec!["weak".into(), "strong".into(), "walk".into()],
            groups: vec![Group::Baseline, Group::Baseline, Group::Cold],
            questions,
            rows: vec![weak, strong, walk],
        }
    }

    const DRAWS: Draws = Draws {
        permutations: 2000,
        resamples: 200,
        seed: 0,
    };

    #[test]
    fn the_best_baseline_is_chosen_per_slice_and_the_effect_found_where_it_is() {
        let t = table();
        assert_eq!(t.best_baseline("recall_at_10", Slice::All).unwrap(), 1);
        let (m, n) = t.mean(1, "recall_at_10", Slice::All).unwrap();
        assert!((m - 0.4).abs() < 1e-12 && n == 40, "{m} {n}");
        let mh = against_best_baseline(
            &t,
            "recall_at_10",
            Slice::Category(Category::MultiHop),
            DRAWS,
        )
        .unwrap();
        assert_eq!(mh.len(), 1);
        let c = &mh[0];
        let pt = &c.test;
        assert_eq!((pt.a, pt.b, c.n), (2, 1, 20));
        assert!((pt.diff - 0.5).abs() < 1e-12 && pt.ci_low > 0.49 && pt.p < 0.01);
        assert_eq!(
            pt.effect_size_dz, None,
            "constant differences: infinite d_z"
        );
        assert_eq!((pt.a_better, pt.b_better), (20, 0));
        assert!(c.mdd80 == 0.0, "no spread, no detectable-difference floor");
        let sh = against_best_baseline(
            &t,
            "recall_at_10",
            Slice::Category(Category::SingleHop),
            DRAWS,
        )
        .unwrap();
        assert_eq!(sh[0].n, 19, "question 39 has no traversal value");
        assert_eq!((sh[0].test.diff, sh[0].test.p), (0.0, 1.0));
        assert!(against_best_baseline(&t, "no_such_metric", Slice::All, DRAWS).is_err());
    }

    #[test]
    fn slices_name_the_categories() {
        let names: Vec<&str> = Slice::every().iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "all",
                "multi-hop",
                "temporal",
                "open-domain",
                "single-hop",
                "adversarial"
            ]
        );
    }
}
