//! Mechanics of the corrected-vs-myopic study (the multi-seed results themselves are
//! produced by the `corrected_vs_myopic` example and committed by the follow-up).

use crabpath_v2::experiments::{corrected_vs_myopic, myopic::run_one, Design, MyopicOptions};
use crabpath_v2::learning::Credit;

fn small() -> MyopicOptions {
    MyopicOptions {
        seeds: 12,
        episodes: 30,
        ..MyopicOptions::default()
    }
}

#[test]
fn output_is_identical_for_any_thread_count() {
    let opts = small();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| corrected_vs_myopic(&opts).unwrap().to_json().to_string())
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one, run(8));
}

#[test]
fn arms_are_paired_by_seed_and_differ_only_in_credit() {
    let opts = small();
    // Same seed, same arm: same run. Myopic never moves an edge whose step is never
    // the last one: in the giraffe design the last step (-> guard) has one option, so
    // the first hop's weights stay at the builder's 0.7 / 0.68.
    let a = run_one(Design::GiraffeElephant, 3, Credit::Myopic, &opts);
    assert_eq!(
        a,
        run_one(Design::GiraffeElephant, 3, Credit::Myopic, &opts)
    );
    assert_eq!(a.final_weights, [0.7, 0.68]);
    let c = run_one(Design::GiraffeElephant, 3, Credit::Corrected, &opts);
    assert_ne!(c.final_weights, [0.7, 0.68]);
    // Different seeds sample different walks.
    let runs: Vec<_> = (0..6)
        .map(|s| run_one(Design::Control, s, Credit::Myopic, &opts).success)
        .collect();
    assert!(runs.windows(2).any(|w| w[0] != w[1]));
}

#[test]
fn early_hop_designs_separate_the_arms_and_the_control_does_not() {
    let study = corrected_vs_myopic(&small()).unwrap();
    for d in &study.designs {
        let diff = d.diff_mean_success.diff.mean;
        match d.design {
            Design::Control => assert!(diff.abs() < 0.1, "control: {diff}"),
            _ => assert!(diff > 0.1, "{}: {diff}", d.design.as_str()),
        }
        assert_eq!(d.arms[0].curve.len(), 30);
        let (rate, lo, hi) = d.arms[0].curve[29];
        assert!(lo <= rate && rate <= hi);
    }
    let doc = study.to_json();
    assert_eq!(doc["designs"].as_array().unwrap().len(), 4);
    assert!(doc["designs"][0]["corrected_minus_myopic"]["mean_success"]["ci95"].is_array());
}

#[test]
fn bad_options_are_refused() {
    let mut o = small();
    o.seeds = 1;
    assert!(corrected_vs_myopic(&o).is_err());
    o.seeds = 4;
    o.window = 31;
    assert!(corrected_vs_myopic(&o).is_err());
}
