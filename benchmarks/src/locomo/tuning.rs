//! Every knob of a LoCoMo run chosen on the tuning conversations (conv-26 and conv-30,
//! [`super::splits::TUNING_CONVERSATIONS`]) by a rule declared before any test
//! conversation was run.
//!
//! **Rule.** The score of a cell is the mean evidence recall@10 over every question of the
//! tuning conversations (pooled, each question once; a learning arm's value of a question
//! is its mean over the splits that tested it). In each stage the cell with the highest
//! score wins; a tie (equal to the last bit) goes to the cell met first, and the grids list
//! cheaper values first (fewer hops, a narrower beam, fewer seeds), so a tie goes to the
//! cheaper walk.
//!
//! 1. **Cold traversal** (the router-less `crabpath_cold`): embedder × seed source ×
//!    structure × hops × beam × seeds ([`Grid`]). The winner's embedder, seeds, structure,
//!    hops and beam are every traversal's.
//! 2. **Routers**: for each router kind, its cold traversal over router top-k × α (α only
//!    for the kinds that read it).
//! 3. **Learning**: for each learning method — the heuristic rule and the policy gradient
//!    on the router-less traversal, and each router's own policy gradient
//!    (`crabpath_pg_learning@<router>`, at the router's stage-2 parameters) — the learning
//!    rate, scored on the within-conversation splits of the tuning conversations. (The
//!    heuristic rule does not read a router: with one, only its walk would change, which
//!    the routers' cold traversals already show.)
//!
//! The context budget is not searched (a budget is a setting, not a knob to win with):
//! it is [`BUDGET_TURNS`] turns of the tuning conversations' mean length, rounded to a
//! hundred characters.

use crabpath::RouterKind;

use super::arms::{Arm, Group};
use super::brain::Structure;
use super::context::{Prepared, LIST_DEPTH};
use super::engine::Knobs;
use super::metrics::column;
use super::splits::WithinSplits;
use crate::embed::EmbedderArg;
use crate::error::{Error, Result};
use crate::methods::{routed_methods, Method, SeedSource};

/// The values tried (see the module docs), cheapest first.
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    /// Stage 1: embedders of the traversal (seeds, routers, kNN).
    pub embedders: &'static [EmbedderArg],
    /// Stage 1: seed sources.
    pub seed_sources: &'static [SeedSource],
    /// Stage 1: brain structures.
    pub structures: &'static [Structure],
    /// Stage 1: hops.
    pub max_hops: &'static [usize],
    /// Stage 1: beam widths (also the number of seeds a traversal keeps).
    pub beam_width: &'static [usize],
    /// Stage 1: seeds per traversal.
    pub seed_top_k: &'static [usize],
    /// Stage 2: offers a router keeps per source.
    pub router_top_k: &'static [usize],
    /// Stage 2: α of the routers that read it.
    pub router_alpha: &'static [f64],
    /// Stage 3: learning rates.
    pub lr: &'static [f64],
}

/// The grid of the committed LoCoMo runs.
pub const GRID: Grid = Grid {
    embedders: &[EmbedderArg::HashV1, EmbedderArg::Minilm],
    seed_sources: &[SeedSource::Dense, SeedSource::Rrf],
    structures: &[
        Structure::SessionChains,
        Structure::ConversationChain,
        Structure::SessionChainsKnn(3),
    ],
    max_hops: &[1, 2, 3],
    beam_width: &[2, 4, 8],
    seed_top_k: &[2, 3, 4, 6, 8],
    router_top_k: &[1, 2, 5],
    router_alpha: &[0.5, 1.0, 2.0],
    lr: &[0.01, 0.03, 0.1, 0.3],
};

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

/// The context budget in turns of mean length (see the module docs).
pub const BUDGET_TURNS: usize = 10;

/// One cell tried.
#[derive(Debug, Clone)]
pub struct Trial {
    /// Stage (1, 2 or 3).
    pub stage: u8,
    /// The arm.
    pub arm: Arm,
    /// Its score (mean recall@10 on the tuning questions).
    pub score: f64,
}

/// What the tuning chose, and every cell it tried.
#[derive(Debug, Clone)]
pub struct Tuned {
    /// The context budget in characters.
    pub budget: usize,
    /// The cold traversal's knobs (stage 1).
    pub cold: Knobs,
    /// Per router kind, its cold traversal's knobs (stage 2).
    pub routers: Vec<(RouterKind, Knobs)>,
    /// Per learning method, its knobs (stage 3).
    pub learners: Vec<(&'static Method, Knobs)>,
    /// Every cell, in the order tried.
    pub trials: Vec<Trial>,
}

impl Tuned {
    /// The knobs of the cold traversal with router `kind` (`None`: the router-less one).
    pub fn router_knobs(&self, kind: Option<RouterKind>) -> Knobs {
        kind.and_then(|k| self.routers.iter().find(|r| r.0 == k).map(|r| r.1))
            .unwrap_or(self.cold)
    }
}

/// The budget of [`BUDGET_TURNS`] mean turns of `tuning` (see the module docs).
pub fn budget(tuning: &[&Prepared]) -> usize {
    let (sum, n) = tuning
        .iter()
        .flat_map(|p| &p.cc.chars)
        .fold((0usize, 0usize), |(s, n), &c| (s + c, n + 1));
    if n == 0 {
        return 0;
    }
    let mean = sum as f64 / n as f64;
    ((BUDGET_TURNS as f64 * mean / 100.0).round() as usize) * 100
}

/// Mean recall@10 of `arm` over every question of `tuning` (see the module docs).
pub fn score(arm: &Arm, tuning: &[&Prepared], splits: &WithinSplits) -> Result<f64> {
    let col = column("recall_at_10")
        .ok_or_else(|| Error::Internal("recall_at_10 is not a LoCoMo metric".into()))?;
    let (mut sum, mut n) = (0.0, 0usize);
    for p in tuning {
        let sp = splits.make(p.conv.row, p.cc.corpus.queries.len());
        for row in arm.rows(p, &sp)?.into_iter().flatten() {
            sum += row[col];
            n += 1;
        }
    }
    Ok(if n == 0 { 0.0 } else { sum / n as f64 })
}

/// Runs the three stages of the module docs from `base` (whose list depth, profile and
/// discount are kept) on `tuning`, calling `progress(done, total)` after each cell.
pub fn tune(
    tuning: &[&Prepared],
    splits: &WithinSplits,
    grid: &Grid,
    base: Knobs,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Tuned> {
    if tuning.is_empty() {
        return Err(Error::Usage(
            "tuning needs the tuning conversations conv-26 and conv-30".into(),
        ));
    }
    let base = Knobs {
        budget: budget(tuning),
        ..base
    };
    let method = |name: &str| {
        Method::by_name(name).ok_or_else(|| Error::Internal(format!("no method {name}")))
    };
    let cold = method("crabpath_cold")?;
    let learners: Vec<&'static Method> = vec![
        method("crabpath_learning")?,
        method("crabpath_pg_learning")?,
    ]
    .into_iter()
    .chain(RouterKind::ALL.iter().map(|&k| &routed_methods(k)[2]))
    .collect();
    let stage1 = grid.embedders.len()
        * grid.seed_sources.len()
        * grid.structures.len()
        * grid.max_hops.len()
        * grid.beam_width.len()
        * grid.seed_top_k.len();
    let stage2: usize = RouterKind::ALL
        .iter()
        .map(|k| grid.router_top_k.len() * alphas(grid, *k, &base).len())
        .sum();
    let total = stage1 + stage2 + learners.len() * grid.lr.len();
    let mut trials: Vec<Trial> = Vec::with_capacity(total);
    let mut try_cell = |stage: u8, arm: Arm, trials: &mut Vec<Trial>| -> Result<f64> {
        let s = score(&arm, tuning, splits)?;
        trials.push(Trial {
            stage,
            arm,
            score: s,
        });
        progress(trials.len(), total);
        Ok(s)
    };

    let mut best: Option<(f64, Knobs)> = None;
    for &embedder in grid.embedders {
        for &seed_source in grid.seed_sources {
            for &structure in grid.structures {
                for &max_hops in grid.max_hops {
                    for &beam_width in grid.beam_width {
                        for &seed_top_k in grid.seed_top_k {
                            let k = Knobs {
                                embedder,
                                seed_source,
                                structure,
                                max_hops,
                                beam_width,
                                seed_top_k,
                                ..base
                            };
                            let s = try_cell(1, Arm::traversal(cold, k, Group::Cold), &mut trials)?;
                            if best.is_none_or(|(b, _)| s > b) {
                                best = Some((s, k));
                            }
                        }
                    }
                }
            }
        }
    }
    let cold_knobs = best
        .ok_or_else(|| Error::Usage("the tuning grid's stage 1 is empty".into()))?
        .1;

    let mut routers = Vec::new();
    for kind in RouterKind::ALL {
        let mut best: Option<(f64, Knobs)> = None;
        for &top_k in grid.router_top_k {
            for alpha in alphas(grid, kind, &base) {
                let mut k = cold_knobs;
                k.router.top_k = top_k;
                k.router.alpha = alpha;
                let arm = Arm::traversal(&routed_methods(kind)[0], k, Group::Cold);
                let s = try_cell(2, arm, &mut trials)?;
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, k));
                }
            }
        }
        if let Some((_, k)) = best {
            routers.push((kind, k));
        }
    }

    let mut learned = Vec::new();
    for m in learners {
        let start = routers
            .iter()
            .find(|r| Some(r.0) == m.router())
            .map_or(cold_knobs, |r| r.1);
        let mut best: Option<(f64, Knobs)> = None;
        for &lr in grid.lr {
            let k = Knobs { lr, ..start };
            let s = try_cell(3, Arm::traversal(m, k, Group::Learned), &mut trials)?;
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, k));
            }
        }
        if let Some((_, k)) = best {
            learned.push((m, k));
        }
    }
    Ok(Tuned {
        budget: base.budget,
        cold: cold_knobs,
        routers,
        learners: learned,
        trials,
    })
}

/// The α values tried for `kind`: the grid's for the routers that read α, `base`'s alone
/// for `edge` (whose logits ignore it).
pub fn alphas(grid: &Grid, kind: RouterKind, base: &Knobs) -> Vec<f64> {
    if kind.uses_vectors() {
        grid.router_alpha.to_vec()
    } else {
        vec![base.router.alpha]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::embed::{ModelOpts, TextEmbedder};
    use crate::locomo::brain::corpora;
    use crate::locomo::data::load;
    use crate::locomo::embedding::embed_all;
    use indicatif::ProgressBar;

    /// The fixture's conversation renamed conv-26, hash-v1 vectors standing in for both
    /// embedders.
    fn tuning_conversation() -> Prepared {
        let mut l = load(&testdata::committed("datasets/fixtures/locomo_tiny.json")).unwrap();
        l.conversations[0].sample_id = "conv-26".into();
        let cc = corpora(&l).unwrap().remove(0);
        let e = TextEmbedder::open(EmbedderArg::HashV1, &ModelOpts::default()).unwrap();
        let (v, _) = embed_all(&e, std::slice::from_ref(&cc), &ProgressBar::hidden()).unwrap();
        Prepared::new(l.conversations.remove(0), cc, &v[0], None).unwrap()
    }

    /// A grid small enough for unit tests.
    pub(crate) const SMALL: Grid = Grid {
        embedders: &[EmbedderArg::HashV1],
        seed_sources: &[SeedSource::Dense],
        structures: &[Structure::NoEdges, Structure::SessionChains],
        max_hops: &[1],
        beam_width: &[1, 2],
        seed_top_k: &[1, 2],
        router_top_k: &[1, 5],
        router_alpha: &[1.0],
        lr: &[0.1, 0.3],
    };

    #[test]
    fn every_stage_keeps_the_best_cell_and_ties_go_to_the_first() {
        let p = tuning_conversation();
        let splits = WithinSplits::new(2, 0, 0.5).unwrap();
        let base = base_knobs();
        let mut calls = 0;
        let t = tune(&[&p], &splits, &SMALL, base, &mut |done, total| {
            calls += 1;
            assert!(done <= total);
        })
        .unwrap();
        let stage1 = 2 * 2 * 2;
        let stage2 = 2 + 2 + 2;
        let stage3 = 5 * 2;
        assert_eq!(t.trials.len(), stage1 + stage2 + stage3);
        assert_eq!(calls, t.trials.len());
        // stage 1: the winner scores the maximum, and no earlier cell scores as much
        let s1: Vec<&Trial> = t.trials.iter().filter(|x| x.stage == 1).collect();
        let max = s1.iter().map(|x| x.score).fold(f64::MIN, f64::max);
        let first = s1.iter().position(|x| x.score == max).unwrap();
        assert_eq!(s1[first].arm.knobs, t.cold);
        assert_eq!(t.routers.len(), 3);
        assert_eq!(t.learners.len(), 5);
        assert!(t.learners.iter().all(|(_, k)| SMALL.lr.contains(&k.lr)));
        // the fixture's turns average 35 characters: 10 turns make 350, rounded to 400
        assert_eq!(t.budget, 400);
        assert_eq!(t.cold.budget, 400);
        assert!(tune(&[], &splits, &SMALL, base, &mut |_, _| {}).is_err());
    }
}
