//! `bench check`: a committed report is re-run from the command line it records and compared
//! field by field; an edited number, an edited run file or a missing dataset is reported by
//! name, and `--update` replaces the committed files.
//!
//! The first test builds its "committed" report from a fixture of this repository, so it
//! runs everywhere; the second checks a copy of a real committed report and needs the staged
//! dataset subsets (`#[ignore]`d).

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{bench_cmd, fixture, staged_dir, workspace_root};
use serde_json::Value;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `bench --data-dir <data> check --results <results> --fresh-dir <fresh> <extra>`.
fn check(data: &Path, results: &Path, fresh: &Path, extra: &[&str]) -> Output {
    bench_cmd()
        .arg("--data-dir")
        .arg(data)
        .arg("check")
        .arg("--results")
        .arg(results)
        .arg("--fresh-dir")
        .arg(fresh)
        .args(extra)
        .output()
        .expect("bench check runs")
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// Adds `delta` to the number at `pointer` of the report `p`; returns (old, new) as written
/// in the JSON.
fn nudge(p: &Path, pointer: &str, delta: f64) -> (String, String) {
    let mut v = read(p);
    let x = v.pointer_mut(pointer).unwrap();
    let old = x.clone();
    *x = serde_json::json!(old.as_f64().unwrap() + delta);
    let new = x.clone();
    write(p, &v);
    (old.to_string(), new.to_string())
}

#[test]
fn check_names_an_edited_number_and_an_edited_run_file_and_update_restores() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let fresh = tmp.path().join("fresh");
    let report = results.join("tiny.json");
    let o = bench_cmd()
        .args([
            "run",
            "--dataset",
            "hotpotqa",
            "--limit",
            "0",
            "--bootstrap",
            "20",
        ])
        .arg("--input")
        .arg(fixture("hotpotqa_tiny.json"))
        .arg("--out")
        .arg(&report)
        .arg("--no-progress")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let data = workspace_root().join("datasets/fixtures");

    let o = check(&data, &results, &fresh, &[]);
    assert!(
        o.status.success(),
        "{}{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout(&o).contains("ok: tiny.json"), "{}", stdout(&o));

    // Timing fields are not compared; every other field is.
    nudge(&report, "/timings_s/total", 100.0);
    assert!(check(&data, &results, &fresh, &[]).status.success());
    let (old, new) = nudge(&report, "/method_metrics/crabpath_cold/mrr", 0.001);
    let o = check(&data, &results, &fresh, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!(
            "differs: tiny.json: method_metrics.crabpath_cold.mrr: {new} → {old}"
        )),
        "{}",
        stdout(&o)
    );

    // --update replaces the report; the next check passes.
    let o = check(&data, &results, &fresh, &["--update"]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("updated: tiny.json"), "{}", stdout(&o));
    assert!(check(&data, &results, &fresh, &[]).status.success());

    // An edited run file is named with its first differing line.
    let run = read(&report)["files"]["runs"]["crabpath_cold"]
        .as_str()
        .unwrap()
        .to_string();
    let path = results.join(&run);
    let text = bench::trec::read_text(&path).unwrap();
    std::fs::write(&path, text.replacen(" 1 ", " 9 ", 1)).unwrap();
    let o = check(&data, &results, &fresh, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!("differs: tiny.json: {run}: line 1: ")),
        "{}",
        stdout(&o)
    );

    // Without the input file the report is skipped, and that fails with --require-data.
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = check(&empty, &results, &fresh, &[]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("skipped: tiny.json: needs the input file hotpotqa_tiny.json"),
        "{}",
        stdout(&o)
    );
    let o = check(&empty, &results, &fresh, &["--require-data"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));

    // --only must match something.
    let o = check(&data, &results, &fresh, &["--only", "nothing-*.json"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
#[ignore = "needs the staged dataset subsets (CRABPATH_DATA_DIR or ../shared/datasets); run with: cargo test --workspace -- --ignored"]
fn check_fails_on_an_edited_committed_number() {
    let name = "hotpotqa-first103-paper-hash-v1.json";
    let committed = workspace_root().join("results/bench");
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    std::fs::create_dir_all(results.join("runs")).unwrap();
    std::fs::copy(committed.join(name), results.join(name)).unwrap();
    let report = read(&results.join(name));
    for rel in report["files"]["runs"]
        .as_object()
        .unwrap()
        .values()
        .chain([
            &report["files"]["qrels"],
            &report["manifest"]["query_ids_file"],
        ])
    {
        let rel = rel.as_str().unwrap();
        std::fs::copy(committed.join(rel), results.join(rel)).unwrap();
    }
    let fresh = tmp.path().join("fresh");
    let data = staged_dir();
    let o = check(&data, &results, &fresh, &[]);
    assert!(
        o.status.success(),
        "the committed report reproduces: {}",
        stdout(&o)
    );
    let (old, new) = nudge(
        &results.join(name),
        "/method_metrics/crabpath_pg_learning/sp_recall_at_10",
        0.01,
    );
    let o = check(&data, &results, &fresh, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let line = format!(
        "differs: {name}: method_metrics.crabpath_pg_learning.sp_recall_at_10: {new} → {old}"
    );
    assert!(stdout(&o).contains(&line), "{}", stdout(&o));
}

/// The committed expectations pin every committed report, each report passes them, and no
/// expectation names a report that is not committed.
#[test]
fn committed_expectations_cover_and_pass_every_committed_report() {
    let dir = workspace_root().join("results/bench");
    let e = bench::expectations::Expectations::load(&dir.join("expectations.json")).unwrap();
    let mut reports = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !bench::expectations::NOT_REPORTS.contains(&name.as_str()) {
            reports.push(name);
        }
    }
    reports.sort();
    let mut pinned: Vec<String> = e.reports.keys().cloned().collect();
    pinned.sort();
    assert_eq!(pinned, reports);
    for name in &reports {
        // every committed report reads as a typed report (results::bench)
        let report: results::bench::AnyReport =
            serde_json::from_value(read(&dir.join(name))).unwrap();
        let failures = e.failures(name, &report);
        assert!(failures.is_empty(), "{failures:#?}");
        assert!(!e.reports[name].metrics.is_empty(), "{name}");
    }
}

/// An edited expectation fails `bench check` (here without the data: the committed report is
/// skipped and its stored numbers are checked), naming the report, its dataset, protocol,
/// graph and embedder, the method, the metric, the expected value, the tolerance and the
/// value it got; the unedited file passes.
#[test]
fn check_fails_on_an_edited_expectation() {
    let name = "hotpotqa-first103-paper-hash-v1.json";
    let committed = workspace_root().join("results/bench");
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::copy(committed.join(name), results.join(name)).unwrap();
    let exp_path = results.join("expectations.json");
    std::fs::copy(committed.join("expectations.json"), &exp_path).unwrap();
    let empty = tmp.path().join("no-data");
    std::fs::create_dir_all(&empty).unwrap();
    let fresh = tmp.path().join("fresh");
    let only = ["--only", name];

    let o = check(&empty, &results, &fresh, &only);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!("skipped: {name}")),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("expectations ("), "{}", stdout(&o));

    let mut e = read(&exp_path);
    let slot = &mut e["reports"][name]["metrics"]["bm25_topk"]["recall_at_10"];
    let stored = slot.as_f64().unwrap();
    *slot = serde_json::json!(stored + 0.01);
    let edited = slot.as_f64().unwrap();
    let tol = e["reports"][name]["tolerance"].as_f64().unwrap();
    write(&exp_path, &e);
    let o = check(&empty, &results, &fresh, &only);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let got = read(&results.join(name))["method_metrics"]["bm25_topk"]["recall_at_10"]
        .as_f64()
        .unwrap();
    let line = format!(
        "expectation failed: {name}: HotPotQA / paper / reference / hash-v1: bm25_topk \
         recall_at_10: expected {edited} ± {tol}, got {got:.6}"
    );
    assert!(stdout(&o).contains(&line), "{}", stdout(&o));

    // Without --only, an expectation naming a report that is not there fails too.
    write(&exp_path, &read(&committed.join("expectations.json")));
    let o = check(&empty, &results, &fresh, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("names hotpotqa-sample1100-paper-minilm.json, which is not in"),
        "{}",
        stdout(&o)
    );
}
