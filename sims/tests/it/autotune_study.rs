//! The brain-death autotune study (issue 31 item 3, `sims::autotune_study`): the same
//! document for the same seeds, a verdict computed from its own numbers, and the
//! committed file's claim consistent with its per-seed values.

use sims::autotune_study::{run, text, Study, ARMS, REPORT_ROUNDS, THRESHOLD};

#[test]
fn study_is_deterministic_and_its_verdict_follows_its_values() {
    let a = run(4).unwrap();
    let b = run(4).unwrap();
    assert_eq!(text(&a).unwrap(), text(&b).unwrap());
    assert_eq!(a.seeds, [42, 43, 44, 45]);
    let arms: Vec<&str> = a.arms.iter().map(|x| x.arm.as_str()).collect();
    assert_eq!(arms, ARMS);
    for arm in &a.arms {
        let rounds: Vec<usize> = arm.rounds.iter().map(|r| r.round).collect();
        assert_eq!(rounds, REPORT_ROUNDS);
        // round 1 of a dead brain: an edge starts below 0.02 and one +1 adds at most
        // η·γ = 0.1 · 0.95 = 0.095 (heuristic rule) plus one Hebbian increment (0.06,
        // or 0.08 after the applied arm's first autotune): < 0.02 + 0.095 + 0.08 =
        // 0.195 < 0.2, the habitual floor, so every edge is still dormant
        assert_eq!(arm.rounds[0].dormant.mean, 1.0);
    }
    // the applied arm's parameters stay in the bounds (seed 002 §5.3)
    assert!(a.arms[1].final_tuning.within_bounds());
    let c = &a.claim;
    assert_eq!(c.threshold, THRESHOLD);
    assert_eq!(
        c.holds_in,
        c.values.iter().filter(|&&v| v > THRESHOLD).count()
    );
    assert_eq!(c.met, c.holds_in == c.n);
}

#[test]
fn committed_study_is_consistent() {
    let path = testdata::committed(format!("results/sims/{}", sims::autotune_study::FILE));
    let stored: Study = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = &stored.claim;
    assert_eq!(stored.seeds.len(), 200);
    assert_eq!(c.n, 200);
    assert_eq!(
        c.holds_in,
        c.values.iter().filter(|&&v| v > c.threshold).count()
    );
    assert_eq!(c.met, c.holds_in == c.n);
}
