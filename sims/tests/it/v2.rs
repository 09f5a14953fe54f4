//! The CrabPath paper's group (`sims v2`, results under `results/v2/`): the committed
//! files agree with the reference program's outputs and with a fresh run, the
//! multi-seed study is the same bytes for one and two threads, the tables' reference
//! columns are what the reference files hold, and `sims v2 check` fails naming the
//! differing JSON path after a stored number is edited.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sims::paper::Source;
use sims::sim::Profile;
use sims::v2::{self, Checked, Item, Job};

const BIN: &str = env!("CARGO_BIN_EXE_sims");

fn committed(job: Job) -> String {
    let path = testdata::committed(Path::new(v2::DIR).join(job.rel()));
    sims::runner::read_text(&path).unwrap()
}

/// The reference runner's output of each four-arm experiment, committed with its
/// provenance in results/reference/v2/README.md.
fn reference_file(name: &str) -> PathBuf {
    let rel = match name {
        "giraffe_test" | "forbidden_door" => format!("v2/73444b2/run_all/{name}.json.gz"),
        "deploy_pipeline" => "v2/e752b95/run_all_deploy/deploy_pipeline.json.gz".into(),
        _ => format!("v2/73444b2/comparison/{name}.json.gz"),
    };
    testdata::reference(rel)
}

fn data_dir() -> PathBuf {
    let dir = testdata::data_dir();
    testdata::external_dir(
        "the seed-000 datasets (crabpath-v2/)",
        "set CRABPATH_DATA_DIR to a directory holding crabpath-v2/ (see datasets/README.md)",
        dir.join("crabpath-v2"),
    );
    dir
}

#[test]
fn paper_four_arm_results_are_the_reference_runner_bytes() {
    for name in v2::EXPERIMENTS {
        let job = Job {
            item: Item::FourArm(name),
            profile: Profile::Paper,
        };
        let want = sims::runner::read_text(&reference_file(name)).unwrap();
        assert!(
            committed(job) == want,
            "results/v2/{} differs from {}",
            job.rel().display(),
            reference_file(name).display()
        );
    }
}

#[test]
fn study_is_the_committed_bytes_for_one_and_two_threads() {
    let job = Job {
        item: Item::Study,
        profile: Profile::Corrected,
    };
    let stored = committed(job);
    let doc: Value = serde_json::from_str(&stored).unwrap();
    let seeds = v2::stored_seeds(&doc).unwrap();
    assert_eq!(seeds, v2::STUDY_SEEDS);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            // The study reads no data file; the directory is never opened.
            .install(|| v2::run_job(job, Path::new("unused"), seeds).unwrap())
    };
    let one = run(1);
    assert_eq!(v2::text(&one), v2::text(&run(2)), "1 vs 2 threads");
    match v2::compare_text(&stored, &one).unwrap() {
        Checked::Same => {}
        Checked::Differs(d) => panic!("committed study differs: {}", d.join("\n")),
    }
}

/// Every CrabPath table row read from a four-arm result has as its reference column
/// what its extractor reads from the reference runner's file; the deploy rows match
/// our committed paper-profile deploy simulation (itself re-run by `sims v2 check`).
#[test]
fn table_reference_columns_match_the_reference_files() {
    let mut checked = 0;
    for table in v2::tables() {
        for row in &table.rows {
            let Source::V2(name) = row.source else {
                panic!("{}: row {} is not a v2 row", table.name(), row.label);
            };
            if row.kind != sims::paper::Kind::Exact {
                continue;
            }
            let doc: Value = if name == v2::DEPLOY_SIM {
                serde_json::from_str(&committed(Job {
                    item: Item::DeploySim,
                    profile: Profile::Paper,
                }))
                .unwrap()
            } else {
                sims::runner::read_json(&reference_file(name)).unwrap()
            };
            assert_eq!(
                (row.extract)(&doc).as_deref(),
                Some(row.reference.as_str()),
                "{}: row {}",
                table.name(),
                row.label
            );
            checked += 1;
        }
    }
    // Tables 3 (25 rows), 4 (2 exact), 6 (14) and 7 (12).
    assert_eq!(checked, 53);
}

#[test]
#[ignore = "needs ../shared/datasets/crabpath-v2 (or CRABPATH_DATA_DIR); run with: cargo test --workspace -- --ignored"]
fn every_committed_v2_result_reproduces_from_the_data() {
    let data = data_dir();
    for job in v2::jobs(&Profile::ALL) {
        if job.item == Item::Study {
            continue; // covered above without data
        }
        let fresh = v2::run_job(job, &data, v2::STUDY_SEEDS).unwrap();
        match v2::compare_text(&committed(job), &fresh).unwrap() {
            Checked::Same => {}
            Checked::Differs(d) => panic!(
                "results/v2/{} differs; first: {}",
                job.rel().display(),
                d[0]
            ),
        }
    }
}

#[test]
#[ignore = "needs ../shared/datasets/crabpath-v2 (or CRABPATH_DATA_DIR); run with: cargo test --workspace -- --ignored"]
fn check_fails_naming_the_edited_path() {
    let data = data_dir();
    let dir = std::env::temp_dir().join(format!("sims-v2-check-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let run = Command::new(BIN)
        .args(["v2", "run", "--seeds", "4", "--out"])
        .arg(&dir)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let check = |dir: &Path| {
        Command::new(BIN)
            .args(["v2", "check", "--dir"])
            .arg(dir)
            .arg("--data-dir")
            .arg(&data)
            .output()
            .unwrap()
    };
    let out = check(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let path = dir.join("paper/deploy_simulation.json");
    let text = fs::read_to_string(&path).unwrap();
    let edited = text.replacen("0.536254150067188", "0.536254150067189", 1);
    assert_ne!(edited, text);
    fs::write(&path, edited).unwrap();
    let out = check(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("deploy_simulation.json: episodes[0].w_check_tests"),
        "{stdout}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compare_runs_on_a_graph_of_our_own_and_missing_data_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("sims-v2-compare-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let graph = r#"{"nodes": [
        {"id": "start", "content": "how do I release the app"},
        {"id": "tests", "content": "run the test suite before a release"},
        {"id": "ship", "content": "ship the release to the store"}],
      "edges": [
        {"source": "start", "target": "tests", "weight": 0.6},
        {"source": "tests", "target": "ship", "weight": 0.5}]}"#;
    fs::write(dir.join("g.json"), graph).unwrap();
    fs::write(
        dir.join("mine.jsonl"),
        "{\"query\": \"release the app\", \"feedback\": {\"reward\": 1.0}, \"expected_answer_fragments\": [\"test suite\"]}\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["v2", "compare", "--graph"])
        .arg(dir.join("g.json"))
        .arg("--scenario")
        .arg(dir.join("mine.jsonl"))
        .arg("--out")
        .arg(dir.join("r.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(doc["experiment"], "mine");
    let arms: Vec<&String> = doc["arms"].as_object().unwrap().keys().collect();
    assert_eq!(
        arms,
        ["static", "rag", "crabpath_corrected", "crabpath_myopic"]
    );
    // 24 + 35 + 29 characters of node content.
    assert_eq!(doc["arms"]["static"]["avg_tokens"], 88.0);
    let out = Command::new(BIN)
        .args(["v2", "check", "--data-dir"])
        .arg(dir.join("nowhere"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no crabpath-v2/"));
    fs::remove_dir_all(&dir).unwrap();
}
