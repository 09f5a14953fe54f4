//! The `brain-death-autotune` block of `REPRODUCE.md` (issue 31 item 3, "Measured"):
//! the study of [`sims::autotune_study`] as a paragraph, the dormant / habitual / reflex
//! shares of both arms at rounds 1, 10 and 30, and the claim with its verdict over seeds.

use sims::autotune_study::{Band, Study};

use crate::data::Results;

fn pct(b: &Band) -> String {
    format!(
        "{:.1} [{:.1}, {:.1}]",
        b.mean * 100.0,
        b.ci95_low * 100.0,
        b.ci95_high * 100.0
    )
}

/// The block's text.
pub fn block(results: &Results) -> String {
    let Some(study) = results
        .autotune_study
        .as_ref()
        .and_then(|d| d.parse::<Study>().ok())
    else {
        return "_No result yet: run `cargo run --release -p sims -- autotune`._\n".into();
    };
    let c = &study.claim;
    let mut s = format!(
        "Corrected profile, {} seeds ({}…{}), {} rounds: {}. Arm **applied** runs health → \
         autotune → guardrails → apply before each round's query, with the corrected rules; \
         arm **suggestions only** records the suggestions and keeps the defaults; arm \
         **applied reference rule** (measured, not claimed) applies them with the reference's \
         dead-brain half-life rule, −10, although its reason (\"slow decay to preserve \
         low-signal paths longer\") asks for +10 — the first run, with that rule, failed the \
         claim (corrected profile fix 12). {}. Shares in % after the round, mean \
         [95 % t-interval] over seeds; data: `results/sims/{}`.\n\n\
         | arm | round | dormant | habitual | reflex |\n|---|---|---|---|---|\n",
        study.seeds.len(),
        study.seeds.first().copied().unwrap_or_default(),
        study.seeds.last().copied().unwrap_or_default(),
        study.round_count,
        study.scenario,
        study.rng,
        sims::autotune_study::FILE,
    );
    for arm in &study.arms {
        for r in &arm.rounds {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                arm.arm.replace('_', " "),
                r.round,
                pct(&r.dormant),
                pct(&r.habitual),
                pct(&r.reflex)
            ));
        }
    }
    let tuned = study
        .arms
        .iter()
        .find(|a| a.arm == "applied")
        .map(|a| a.final_tuning);
    if let Some(t) = tuned {
        s.push_str(&format!(
            "\nParameters after round 30 (applied, seed {}): half-life {}, promotion threshold {}, \
             Hebbian increment {}, reflex threshold {}, damping {}.\n",
            study.seeds.first().copied().unwrap_or_default(),
            t.half_life,
            t.promotion_threshold,
            t.hebbian_increment,
            t.reflex_threshold,
            t.damping
        ));
    }
    s.push_str(&format!(
        "\n**Claim** (threshold fixed before the run): {}. Metric: {} {} {}. Verdict over seeds \
         (PASS only when it holds in every seed): **{}**, holds in {}/{} seeds. {}\n",
        c.statement,
        c.metric,
        c.comparison,
        c.threshold,
        if c.met { "PASS" } else { "FAIL" },
        c.holds_in,
        c.n,
        c.note
    ));
    s
}
