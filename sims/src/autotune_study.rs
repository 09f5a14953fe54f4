//! Brain-death recovery with the autotuner applied (issue 31 item 3, "Measured";
//! seed 002 §5.3 and seed 004 §4.7: "the autotuner partially recovers" a dead brain).
//! Corrected profile, 200 seeds, two arms paired by seed; `sims autotune run` writes
//! `results/sims/`[`FILE`], and `sims check` (and `sims autotune check`) re-runs it and compares it
//! exactly. The paper profile's brain_death (Table 5) is a separate simulation and is
//! not touched.
//!
//! **Scenario** (seed s): the 16-node complete digraph of brain_death (240 edges), every
//! weight drawn uniformly from [0.005, 0.02) (a "dead" brain: every edge dormant), then
//! 30 rounds of: health → (arm *applied*: autotune → guardrails → apply,
//! [`crabpath::autotuner::tune`]) → a query seeded at a node drawn uniformly → traversal
//! (brain_death's config: 2 hops, beam 3, reflex tier from 0.001, damping 0.6) → learn +1
//! with the arm's Hebbian increment and promotion threshold → one decay step with the
//! arm's half-life. The arm *suggestions only* records the suggestions and keeps the
//! defaults (half-life 80, promotion 2, Hebbian 0.06). Both arms draw the same query
//! nodes (ChaCha8 stream 1 of seed s; stream 0 draws the weights). Reflex threshold and
//! damping are the scenario's traversal constants in both arms (the reference's rules
//! never move them). Measured: the post-round dormant / habitual / reflex shares at
//! rounds 1, 10 and 30 (mean and 95 % t-interval over seeds).
//!
//! The first run failed the claim (it held in 122/200 seeds). The cause was a bug in
//! the reference's first rule: it answers "many dormant edges" with half-life −10 while
//! its reason reads "slow decay to preserve low-signal paths longer" (reference
//! `crabpath/autotune.py::autotune`); shortening the half-life speeds decay, so a dead
//! brain's half-life is driven to its floor. The corrected profile applies that rule as
//! +10, the way its reason states ([`crabpath::AutotuneConfig::dormant_slows_decay`],
//! fix 12 of `crabpath::profile`). The arm *applied* runs the corrected rules; the third
//! arm, *applied_reference_rule*, keeps the reference's direction (everything else as in
//! *applied*) so the before/after of the fix stays measured here.
//!
//! **Claim, with its threshold stated before the first run** ([`THRESHOLD`]): applying
//! the autotuner lowers the round-30 dormant share by more than 0.01 (one percentage
//! point) against suggestions only, seed by seed. Verdict over seeds as elsewhere in
//! `sims`: PASS only when the claim holds in every seed; the document gives the count.

use anyhow::{Context, Result};
use crabpath::autotuner::{tune, tune_with_rules};
use crabpath::tuning::Tuning;
use crabpath::{
    apply_decay, apply_outcome, measure_health, AutotuneConfig, DecayConfig, Episode, GraphHealth,
    LearningConfig, Profile, Traverser,
};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::scenarios::brain_death::{complete_digraph, traversal, N, ROUNDS};
use crate::stats::summarize;

/// The committed result file, relative to the sims results directory (`results/sims`).
pub const FILE: &str = "autotune/brain_death_autotune.json";
/// Seeds of the committed run (42 … 241).
pub const SEEDS: usize = 200;
/// First seed.
pub const BASE_SEED: u64 = 42;
/// Rounds reported.
pub const REPORT_ROUNDS: [usize; 3] = [1, 10, 30];
/// Dead weights are drawn from `[DEAD.0, DEAD.1)`.
const DEAD: (f64, f64) = (0.005, 0.02);
/// The claim's threshold: round-30 dormant share, suggestions only − applied, per seed.
pub const THRESHOLD: f64 = 0.01;
/// The arms, in document order (the third keeps the reference's half-life rule, see
/// the module docs).
pub const ARMS: [&str; 3] = ["suggestions_only", "applied", "applied_reference_rule"];

/// How an arm treats the suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Recorded, never applied.
    Suggest,
    /// Applied as the corrected profile's rules give them (the served brain's autotuner).
    Apply,
    /// Applied, with the dead-brain half-life rule in the reference's direction (−10).
    ApplyReferenceRule,
}

const MODES: [Mode; 3] = [Mode::Suggest, Mode::Apply, Mode::ApplyReferenceRule];

/// Tier shares after a round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    /// Dormant share.
    pub dormant: f64,
    /// Habitual share.
    pub habitual: f64,
    /// Reflex share.
    pub reflex: f64,
}

impl From<GraphHealth> for Shares {
    fn from(h: GraphHealth) -> Self {
        Shares {
            dormant: h.dormant_pct,
            habitual: h.habitual_pct,
            reflex: h.reflex_pct,
        }
    }
}

/// Mean and 95 % t-interval of a share over seeds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Mean.
    pub mean: f64,
    /// Lower end of the 95 % t-interval.
    pub ci95_low: f64,
    /// Upper end.
    pub ci95_high: f64,
}

fn band(xs: &[f64]) -> Band {
    let s = summarize(xs);
    let mean = s.mean.unwrap_or(f64::NAN);
    Band {
        mean,
        ci95_low: s.ci95_low.unwrap_or(mean),
        ci95_high: s.ci95_high.unwrap_or(mean),
    }
}

/// One reported round of one arm, over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundBands {
    /// The round (1-based).
    pub round: usize,
    /// Dormant share.
    pub dormant: Band,
    /// Habitual share.
    pub habitual: Band,
    /// Reflex share.
    pub reflex: Band,
}

/// One arm over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arm {
    /// `suggestions_only` or `applied`.
    pub arm: String,
    /// The reported rounds.
    pub rounds: Vec<RoundBands>,
    /// The parameters after round 30 in seed [`BASE_SEED`].
    pub final_tuning: Tuning,
}

/// The claim and its verdict over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyClaim {
    /// What is claimed.
    pub statement: String,
    /// Per-seed metric.
    pub metric: String,
    /// Its threshold (stated before the first run).
    pub threshold: f64,
    /// `>`.
    pub comparison: String,
    /// The metric per seed, in seed order.
    pub values: Vec<f64>,
    /// Its mean and 95 % t-interval.
    pub mean: Band,
    /// Seeds where it holds.
    pub holds_in: usize,
    /// Seeds.
    pub n: usize,
    /// PASS only when it holds in every seed.
    pub met: bool,
    /// What the numbers say.
    pub note: String,
}

/// The study's document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// `brain_death_autotune`.
    pub study: String,
    /// `corrected`.
    pub profile: String,
    /// The scenario in one sentence.
    pub scenario: String,
    /// How seeds drive the draws.
    pub rng: String,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// Rounds per run.
    pub round_count: usize,
    /// Both arms.
    pub arms: Vec<Arm>,
    /// The claim.
    pub claim: StudyClaim,
}

/// One seed's run of one arm: the shares at [`REPORT_ROUNDS`] and the final tuning.
fn run_arm(seed: u64, mode: Mode) -> Result<(Vec<Shares>, Tuning)> {
    let profile = Profile::Corrected;
    let mut weights = ChaCha8Rng::seed_from_u64(seed);
    weights.set_stream(0);
    let mut queries = ChaCha8Rng::seed_from_u64(seed);
    queries.set_stream(1);
    let (mut g, ids) = complete_digraph(|| weights.gen_range(DEAD.0..DEAD.1))?;
    let cfg = traversal(profile);
    let learning = profile.adjust_learning(LearningConfig::default());
    let decay = DecayConfig::default();
    let defaults = profile.traversal();
    let mut tuning = Tuning::of(&decay, &learning, &defaults);
    let mut trav = Traverser::new();
    let mut out = Vec::new();
    for round in 1..=ROUNDS {
        match mode {
            Mode::Suggest => {}
            Mode::Apply => tuning = tune(&g, &tuning).after,
            Mode::ApplyReferenceRule => {
                let health = measure_health(&g);
                tuning = tune_with_rules(&g, &health, &tuning, &AutotuneConfig::default()).after;
            }
        }
        let start = ids[queries.gen_range(0..N)];
        let r = trav.traverse(&g, &[(start, 1.0)], &cfg)?;
        apply_outcome(
            &mut g,
            &Episode::from_result(&r),
            1.0,
            &tuning.learning(&learning),
            None,
        )?;
        apply_decay(&mut g, &tuning.decay(&decay));
        if REPORT_ROUNDS.contains(&round) {
            out.push(Shares::from(measure_health(&g)));
        }
    }
    Ok((out, tuning))
}

/// Runs the study over `seeds` seeds from [`BASE_SEED`] (parallel over seeds, collected
/// in seed order: the same document for any thread count).
pub fn run(seeds: usize) -> Result<Study> {
    let list: Vec<u64> = (0..seeds as u64).map(|i| BASE_SEED + i).collect();
    let runs: Vec<Vec<(Vec<Shares>, Tuning)>> = list
        .par_iter()
        .map(|&s| MODES.iter().map(|&m| run_arm(s, m)).collect())
        .collect::<Result<_>>()?;
    let mut arms = Vec::new();
    for (a, name) in ARMS.iter().enumerate() {
        let rounds = REPORT_ROUNDS
            .iter()
            .enumerate()
            .map(|(i, &round)| {
                let col = |f: fn(&Shares) -> f64| -> Vec<f64> {
                    runs.iter().map(|r| f(&r[a].0[i])).collect()
                };
                RoundBands {
                    round,
                    dormant: band(&col(|s| s.dormant)),
                    habitual: band(&col(|s| s.habitual)),
                    reflex: band(&col(|s| s.reflex)),
                }
            })
            .collect();
        arms.push(Arm {
            arm: (*name).into(),
            rounds,
            final_tuning: runs.first().context("no seeds")?[a].1,
        });
    }
    let last = REPORT_ROUNDS.len() - 1;
    let values: Vec<f64> = runs
        .iter()
        .map(|r| r[0].0[last].dormant - r[1].0[last].dormant)
        .collect();
    let holds_in = values.iter().filter(|&&v| v > THRESHOLD).count();
    let n = values.len();
    let met = holds_in == n && n > 0;
    let mean = band(&values);
    let at30 = |a: &Arm| a.rounds.last().map_or(f64::NAN, |r| r.reflex.mean);
    let reference_holds = runs
        .iter()
        .filter(|r| r[0].0[last].dormant - r[2].0[last].dormant > THRESHOLD)
        .count();
    let note = format!(
        "Round-30 dormant share, suggestions only − applied: mean {:.4} [{:.4}, {:.4}]; more than {THRESHOLD} in {holds_in}/{n} seeds. Measured, not claimed: round-30 reflex share {:.4} applied vs {:.4} suggestions only; with the reference's half-life rule (applied_reference_rule: −10 on many dormant edges, which speeds decay) dormant {:.4} and reflex {:.4}, dormant lower by more than {THRESHOLD} in {reference_holds}/{n} seeds. {}",
        mean.mean,
        mean.ci95_low,
        mean.ci95_high,
        at30(&arms[1]),
        at30(&arms[0]),
        arms[2].rounds.last().map_or(f64::NAN, |r| r.dormant.mean),
        at30(&arms[2]),
        if met {
            "Holds in every seed."
        } else if mean.mean > 0.0 {
            "FAILS: applying the autotuner does not lower the dormant share by the threshold in every seed."
        } else {
            "FAILS: applying the autotuner does not lower the dormant share; it leaves as many or more edges dormant."
        }
    );
    Ok(Study {
        study: "brain_death_autotune".into(),
        profile: "corrected".into(),
        scenario: "16-node complete digraph, weights uniform in [0.005, 0.02); 30 rounds of health, autotune (applied or suggestions only), a query from a random node, learning +1, decay".into(),
        rng: "ChaCha8Rng::seed_from_u64(seed): stream 0 draws the weights, stream 1 the query nodes (the same in both arms)".into(),
        seeds: list,
        round_count: ROUNDS,
        arms,
        claim: StudyClaim {
            statement: "Applying the autotuner (health → autotune → guardrails → apply) lowers a dead brain's round-30 dormant share by more than 0.01 against suggestions only (seed 002 §5.3: the autotuner partially recovers)".into(),
            metric: "round-30 dormant share, suggestions only − applied".into(),
            threshold: THRESHOLD,
            comparison: ">".into(),
            values,
            mean,
            holds_in,
            n,
            met,
            note,
        },
    })
}

/// The study's row of the claims table (`sims claims`): verdict over the seeds, the
/// mean paired difference with its interval against the threshold, and the share of
/// seeds where the claim holds.
pub fn claim_row(study: &Study) -> crate::runner::ClaimRow {
    let c = &study.claim;
    crate::runner::ClaimRow {
        name: study.study.clone(),
        profile: study.profile.clone(),
        verdict: Some(if c.met {
            crate::claims::Verdict::Pass
        } else {
            crate::claims::Verdict::Fail
        }),
        document_seed: None,
        measured: format!(
            "{} [{}, {}] {} {}",
            crate::predicate::short(c.mean.mean),
            crate::predicate::short(c.mean.ci95_low),
            crate::predicate::short(c.mean.ci95_high),
            c.comparison,
            c.threshold
        ),
        paper: "\"partially recovers\" (§5.3, no number)".into(),
        seed_share: Some(format!("{}/{} seeds", c.holds_in, c.n)),
        note: if c.met { String::new() } else { c.note.clone() },
    }
}

/// The document as committed: Python `json.dumps(indent=2)` text, newline-terminated.
pub fn text(study: &Study) -> Result<String> {
    let v = serde_json::to_value(study)?;
    Ok(format!("{}\n", crate::pyjson::to_string(&v)))
}

/// Re-runs the study with the stored seeds and lists the differences with the stored
/// text (empty: identical).
pub fn check(stored: &str) -> Result<Vec<String>> {
    let doc: Study = serde_json::from_str(stored).context("parsing the stored study")?;
    let expected: Vec<u64> = (0..doc.seeds.len() as u64).map(|i| BASE_SEED + i).collect();
    if doc.seeds != expected {
        anyhow::bail!(
            "seeds are not {BASE_SEED}…: {:?}",
            &doc.seeds[..doc.seeds.len().min(3)]
        );
    }
    let fresh = text(&run(doc.seeds.len())?)?;
    if fresh == stored {
        return Ok(Vec::new());
    }
    let a: serde_json::Value = serde_json::from_str(stored)?;
    let b: serde_json::Value = serde_json::from_str(&fresh)?;
    let diffs = crate::compare::compare(&a, &b, &[]);
    Ok(if diffs.is_empty() {
        vec!["same values but different text".into()]
    } else {
        diffs.iter().map(|d| d.to_string()).collect()
    })
}
