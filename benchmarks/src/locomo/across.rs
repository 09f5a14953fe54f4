//! Learning across conversations: the router's parameters, learned from the outcomes of
//! other conversations and used cold on a new one.
//!
//! Two conversations' brains share no node, so no edge weight can carry over; what can is
//! the router (its kind, how many offers it keeps, α). Each candidate router ([`candidates`]:
//! every kind × top-k × α of the tuning grid's stage 2, on the stage-1 knobs) walks the
//! frozen brain of every test conversation once; its **outcome rate** on a conversation is
//! the share of questions whose outcome is +1 — an evidence turn fires, the rule the
//! within-conversation learning applies ([`crate::catalog::Dataset::outcome_metric`]).
//! Fold `j` of [`super::splits::leave_one_out`] picks the candidate with the highest
//! outcome rate pooled over the other test conversations' questions (the first on a tie,
//! in candidate order) and scores it on conversation `j`. Nothing of conversation `j` —
//! not even its outcomes — informs its own router.

use crabpath::RouterKind;

use super::arms::{Arm, Group};
use super::context::Prepared;
use super::engine::Knobs;
use super::splits::{leave_one_out, Fold};
use super::tuning::{alphas, Grid};
use crate::catalog::Dataset;
use crate::error::Result;
use crate::methods::{outcome_metric, routed_methods};
use crate::metrics::Judged;

/// The candidate routers: every kind × the grid's router top-k × α (α only where read),
/// on `base`'s other knobs; cold traversals.
pub fn candidates(grid: &Grid, base: &Knobs) -> Vec<Arm> {
    let mut out = Vec::new();
    for kind in RouterKind::ALL {
        for &top_k in grid.router_top_k {
            for alpha in alphas(grid, kind, base) {
                let mut k = *base;
                k.router.top_k = top_k;
                k.router.alpha = alpha;
                out.push(Arm::traversal(&routed_methods(kind)[0], k, Group::Transfer));
            }
        }
    }
    out
}

/// Per question of `p`, the outcome of `arm` (+1 → 1.0, −1 → 0.0).
pub fn outcomes(arm: &Arm, p: &Prepared) -> Result<Vec<f64>> {
    let metric = outcome_metric(Dataset::Locomo)?;
    let lists = arm.lists(p)?;
    Ok(lists
        .iter()
        .zip(&p.cc.corpus.queries)
        .map(|(l, q)| {
            let j = Judged {
                retrieved: l,
                relevant: &q.relevant,
                embed_top_k: arm.knobs.list_depth,
            };
            if (metric.compute)(&j) >= 1.0 {
                1.0
            } else {
                0.0
            }
        })
        .collect())
}

/// One fold's choice.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The fold.
    pub fold: Fold,
    /// Index of the chosen candidate.
    pub chosen: usize,
    /// Its pooled outcome rate on the learn conversations.
    pub learn_rate: f64,
}

/// The leave-one-out choices over `tests` (see the module docs), from `outcomes[c][t]`:
/// candidate `c`'s per-question outcomes on test conversation `t`.
pub fn choose(outcomes: &[Vec<Vec<f64>>], tests: usize) -> Result<Vec<Choice>> {
    leave_one_out(tests)?
        .into_iter()
        .map(|fold| {
            let mut best: Option<(usize, f64)> = None;
            for (c, per_conv) in outcomes.iter().enumerate() {
                let (sum, n) = fold.learn.iter().fold((0.0, 0usize), |(s, n), &t| {
                    (s + per_conv[t].iter().sum::<f64>(), n + per_conv[t].len())
                });
                let rate = if n == 0 { 0.0 } else { sum / n as f64 };
                if best.is_none_or(|(_, b)| rate > b) {
                    best = Some((c, rate));
                }
            }
            let (chosen, learn_rate) = best.unwrap_or((0, 0.0));
            Ok(Choice {
                fold,
                chosen,
                learn_rate,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fold_picks_by_the_other_conversations_only() {
        // two candidates, three conversations; candidate 1 is better on conversations 1
        // and 2, candidate 0 on conversation 0 by a wide margin
        let outcomes = vec![
            vec![vec![1.0; 10], vec![0.0; 10], vec![0.0; 10]],
            vec![vec![0.0; 10], vec![1.0, 0.0], vec![1.0; 10]],
        ];
        let c = choose(&outcomes, 3).unwrap();
        // fold 0 learns on 1 and 2: candidate 1 (11/12) beats candidate 0 (0/20)
        assert_eq!((c[0].fold.test, c[0].chosen), (0, 1));
        assert_eq!(c[0].learn_rate, 11.0 / 12.0);
        // fold 1 learns on 0 and 2: 10/20 each — a tie goes to the first candidate
        assert_eq!((c[1].chosen, c[1].learn_rate), (0, 0.5));
        // fold 2 learns on 0 and 1: candidate 0 10/20, candidate 1 1/12
        assert_eq!(c[2].chosen, 0);
    }

    #[test]
    fn candidates_cover_every_router_and_read_alpha_only_where_used() {
        let g = crate::locomo::tuning::GRID;
        let k = crate::locomo::engine::tests::knobs();
        let c = candidates(&g, &k);
        let per_kind =
            |kind: RouterKind| c.iter().filter(|a| a.method.router() == Some(kind)).count();
        assert_eq!(per_kind(RouterKind::Edge), g.router_top_k.len());
        assert_eq!(
            per_kind(RouterKind::EdgeSim),
            g.router_top_k.len() * g.router_alpha.len()
        );
        assert!(c
            .iter()
            .all(|a| a.group == Group::Transfer && !a.method.learns()));
    }
}
