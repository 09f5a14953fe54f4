//! Multi-seed runs are identical for any thread count, and their aggregate has the
//! documented shape. Uses a test-only simulation (not in the registry).

use anyhow::Result;
use serde_json::{json, Value};
use sims::claims::Verdict;
use sims::paper::{Card, Paper};
use sims::runner;
use sims::sim::{Metric, Profile, Simulation};

struct Dice;

impl Simulation for Dice {
    fn name(&self) -> &'static str {
        "dice_test_only"
    }
    fn uses_rng(&self) -> bool {
        true
    }
    fn definition(&self) -> Card {
        Card {
            paper: Paper::OpenClawBrain,
            section: "0",
            paper_figures: &[],
            description: "test double: draws from pyrand",
            tables: vec![],
            summary: vec![],
            claims: vec![],
            figures: &[],
            reference_verdict: Verdict::NotApplicable,
            reference_note: None,
        }
    }
    fn headline(&self) -> &'static [Metric] {
        &[
            Metric {
                name: "mean_draw",
                pointer: "/mean_draw",
                label: "mean of the draws",
                condition: "",
            },
            Metric {
                name: "high",
                pointer: "/claim/high",
                label: "share of draws above the threshold",
                condition: "",
            },
        ]
    }
    fn run(&self, _profile: Profile, seed: u64) -> Result<Value> {
        let mut r = pyrand::Random::new(seed);
        // Some work so that threads interleave.
        let n = 20_000;
        let mean = (0..n).map(|_| r.random()).sum::<f64>() / n as f64;
        Ok(json!({"simulation": "dice", "mean_draw": mean, "claim": {"high": mean > 0.5}}))
    }
}

static DICE: Dice = Dice;

fn run_with(threads: usize, seeds: usize) -> Value {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let out = pool
        .install(|| {
            runner::execute(
                &[&DICE],
                &[Profile::Corrected],
                |s, p| runner::seeds_for(s, p, seeds),
                false,
            )
        })
        .expect("runs");
    out.into_iter().next().expect("one output").doc
}

#[test]
fn identical_for_any_thread_count() {
    let one = sims::pyjson::to_string(&run_with(1, 24));
    for threads in [2, 3, 8] {
        assert_eq!(
            one,
            sims::pyjson::to_string(&run_with(threads, 24)),
            "threads {threads}"
        );
    }
}

#[test]
fn aggregate_shape() {
    let doc = run_with(2, 5);
    let ms = &doc["multi_seed"];
    assert_eq!(ms["seeds"], json!([42, 43, 44, 45, 46]));
    assert_eq!(ms["document_seed"], json!(42));
    let m = &ms["metrics"]["mean_draw"];
    assert_eq!(m["n"], json!(5));
    let values: Vec<f64> = m["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect();
    let mean = values.iter().sum::<f64>() / 5.0;
    assert_eq!(m["mean"].as_f64(), Some(mean));
    assert!(m["ci95_low"].as_f64().expect("low") < mean);
    assert!(m["ci95_high"].as_f64().expect("high") > mean);
    // The document itself is seed 42's.
    assert_eq!(doc["mean_draw"].as_f64(), Some(values[0]));
    let verdicts = ms["claim_verdicts"].as_array().expect("verdicts");
    let pass = verdicts.iter().filter(|v| *v == "PASS").count();
    assert_eq!(ms["claim_holds_share"].as_f64(), Some(pass as f64 / 5.0));
    // Paper profile ignores --seeds.
    assert_eq!(runner::seeds_for(&DICE, Profile::Paper, 5), vec![42]);
}

/// A multi-seed claim's verdict is over the seeds (PASS only where it holds in every
/// seed); the document seed's own verdict is kept beside it, labelled. The committed
/// noise_robustness document passes in its seed (42) and holds in 157 of 200 seeds.
#[test]
fn claims_row_of_a_multi_seed_claim_is_its_verdict_over_the_seeds() {
    let path = testdata::committed("results/sims/corrected/noise_robustness.json");
    let doc = runner::read_json(&path).expect("committed document");
    let sim = sims::scenarios::find("noise_robustness").expect("registered");
    let row = runner::claim_row(sim, "corrected", Some(&doc));
    assert_eq!(row.verdict, Some(Verdict::Fail));
    assert_eq!(row.document_seed, Some((42, Verdict::Pass)));
    assert_eq!(row.seed_share.as_deref(), Some("157/200 seeds"));
    // a deterministic claim: the document's verdict, no document-seed label
    let path = testdata::committed("results/sims/corrected/negation.json");
    let doc = runner::read_json(&path).expect("committed document");
    let sim = sims::scenarios::find("negation").expect("registered");
    let row = runner::claim_row(sim, "corrected", Some(&doc));
    assert_eq!(
        (row.verdict, row.document_seed),
        (Some(Verdict::Pass), None)
    );
}
