//! Tests of the `bench` binary: exit status 2 and one-line messages on data errors, and
//! `bench fetch` against a local HTTP server on 127.0.0.1 (no other network access).

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::{bench_cmd, fixture, sha256_hex, staged_file, TestServer};

fn run(args: &[&str]) -> Output {
    bench_cmd().args(args).output().expect("run bench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `bench inspect --dataset <dataset> --input <file>`.
fn inspect_file(dataset: &str, file: &Path) -> Output {
    run(&[
        "inspect",
        "--dataset",
        dataset,
        "--input",
        &file.to_string_lossy(),
    ])
}

/// `bench fetch --dataset <dataset> --data-dir <dir> <extra> --no-progress --timeout 10`.
fn fetch_cmd(dataset: &str, dir: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = bench_cmd();
    c.args(["fetch", "--dataset", dataset, "--data-dir"])
        .arg(dir)
        .args(extra)
        .args(["--no-progress", "--timeout", "10"]);
    c
}

/// [`fetch_cmd`], run.
fn fetch(dataset: &str, dir: &Path, extra: &[&str]) -> Output {
    fetch_cmd(dataset, dir, extra).output().expect("run bench")
}

/// Asserts exit status 2 and exactly one line on stderr; returns that stderr.
fn one_line_error(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    let e = stderr(o);
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

/// Files (recursively) under `dir`.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

#[test]
fn help_documents_every_subcommand() {
    let o = run(&["--help"]);
    assert!(o.status.success());
    let s = stdout(&o);
    for word in [
        "fetch",
        "inspect",
        "paths",
        "CRABPATH_DATA_DIR",
        "Exit status",
    ] {
        assert!(s.contains(word), "--help lacks {word}");
    }
    let o = run(&["fetch", "--help"]);
    let s = stdout(&o);
    for flag in [
        "--dataset",
        "--url",
        "--url-base",
        "--sha256",
        "--force",
        "--no-progress",
        "--timeout",
        "--data-dir",
        "CRABPATH_FETCH_URL_BASE",
    ] {
        assert!(s.contains(flag), "fetch --help lacks {flag}");
    }
    let o = run(&["inspect", "--help"]);
    let s = stdout(&o);
    for flag in ["--dataset", "--variant", "--input", "--limit", "--data-dir"] {
        assert!(s.contains(flag), "inspect --help lacks {flag}");
    }
    let s = stdout(&run(&["--help"]));
    for word in ["embed", "fetch-model", "CRABPATH_MODEL_DIR", "minilm"] {
        assert!(s.contains(word), "--help lacks {word}");
    }
    for sub in ["run", "embed"] {
        let s = stdout(&run(&[sub, "--help"]));
        for flag in [
            "--dataset",
            "--variant",
            "--input",
            "--limit",
            "--model-dir",
            "--cache-dir",
            "--no-cache",
            "--threads",
        ] {
            assert!(s.contains(flag), "{sub} --help lacks {flag}");
        }
    }
    assert!(stdout(&run(&["run", "--help"])).contains("--embedder"));
    assert!(stdout(&run(&["fetch-model", "--help"])).contains("--model-dir"));
}

#[test]
fn minilm_without_a_model_exits_2_with_the_fetch_hint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let model = dir.path().join("no-model");
    let m = model.to_str().unwrap();
    let cache = dir.path().join("cache");
    // The model is checked before any data is read (the data directory is empty as well).
    let o = run(&[
        "--data-dir",
        d,
        "run",
        "--dataset",
        "hotpotqa",
        "--embedder",
        "minilm",
        "--model-dir",
        m,
        "--cache-dir",
        cache.to_str().unwrap(),
        "--out",
        dir.path().join("r.json").to_str().unwrap(),
        "--no-progress",
    ]);
    let e = one_line_error(&o);
    assert!(e.contains(&format!("{m}/config.json")), "{e}");
    assert!(
        e.contains(&format!("bench fetch-model --model-dir {m}")),
        "{e}"
    );
    assert!(e.contains("CRABPATH_MODEL_DIR"), "{e}");
    // `bench embed`, with the model directory from the environment.
    let o = bench_cmd()
        .args(["--data-dir", d, "embed", "--dataset", "multihop-rag"])
        .args(["--cache-dir", cache.to_str().unwrap(), "--no-progress"])
        .env("CRABPATH_MODEL_DIR", m)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bench fetch-model"), "{}", stderr(&o));
    assert_eq!(files_under(dir.path()), Vec::<String>::new());
}

#[test]
fn inspect_fixture_succeeds() {
    let f = fixture("hotpotqa_tiny.json");
    let o = inspect_file("hotpotqa", &f);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("questions: 3"), "{s}");
    assert!(s.contains("nodes 5"), "{s}");
    let f = fixture("multihop_tiny.json");
    let o = inspect_file("multihop-rag", &f);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("3 non-null queries selected, nodes 3"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn malformed_hotpot_exits_2_with_one_line_naming_file_row_field() {
    let f = fixture("hotpotqa_malformed.json");
    let o = inspect_file("hotpotqa", &f);
    let e = one_line_error(&o);
    assert!(
        e.contains(&format!(
            "{}: row 1: field context[0][1][2]: expected string, found number 7",
            f.display()
        )),
        "{e}"
    );
}

#[test]
fn malformed_multihop_exits_2() {
    let f = fixture("multihop_malformed.json");
    let o = inspect_file("multihop-rag", &f);
    let e = one_line_error(&o);
    assert!(
        e.contains(
            "row 2: field evidence_list[1].fact: expected string (or null), found array of 3"
        ),
        "{e}"
    );
}

#[test]
fn invalid_json_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.json");
    std::fs::write(&p, "[{\"query\": ").unwrap();
    let o = inspect_file("multihop-rag", &p);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("row 0: invalid JSON"), "{}", stderr(&o));
}

#[test]
fn missing_file_exits_2_listing_paths_and_fetch_hint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = run(&["inspect", "--dataset", "hotpotqa", "--data-dir", d]);
    let e = one_line_error(&o);
    assert!(
        e.contains(&format!("{d}/hotpotqa/hotpot_dev_distractor_v1.json")),
        "{e}"
    );
    assert!(
        e.contains(&format!("{d}/hotpotqa/hotpot_dev_distractor_v1.json.gz")),
        "{e}"
    );
    assert!(e.contains("bench fetch --dataset hotpotqa"), "{e}");

    // Same through the environment variable.
    let o = bench_cmd()
        .args([
            "inspect",
            "--dataset",
            "multihop-rag",
            "--variant",
            "sample500",
        ])
        .env("CRABPATH_DATA_DIR", d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("{d}/multihop_rag/MultiHopRAG.sample500.json")),
        "{e}"
    );
    assert!(e.contains("../shared/datasets"), "{e}");

    let o = run(&[
        "inspect",
        "--dataset",
        "hotpotqa",
        "--input",
        "/nonexistent/x.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/x.json"));
}

/// Asserts that `bench <args>` exits 2 with `needle` in its message.
fn assert_usage_error(args: &[&str], needle: &str) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(needle), "{}", stderr(&o));
}

#[test]
fn wrong_variant_is_a_usage_error() {
    let args = [
        "inspect",
        "--dataset",
        "multihop-rag",
        "--variant",
        "first103",
    ];
    assert_usage_error(&args, "does not exist");
}

#[test]
fn fetch_success_writes_verified_file_and_then_keeps_it() {
    let body = std::fs::read(fixture("multihop_tiny.json")).unwrap();
    let sha = sha256_hex(&body);
    let routes = HashMap::from([("/data/MultiHopRAG.json".to_string(), body.clone())]);
    let server = TestServer::start(routes, 4, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let url = format!("{}/data/MultiHopRAG.json", server.base);
    let args = ["--url", &url, "--sha256", &sha];
    let o = fetch("multihop-rag-queries", dir.path(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let dest = dir.path().join("multihop_rag/MultiHopRAG.json");
    assert_eq!(std::fs::read(&dest).unwrap(), body);
    assert!(stdout(&o).contains("SHA-256 verified"), "{}", stdout(&o));
    assert_eq!(files_under(dir.path()).len(), 1, "no temporary file left");

    // Second run: already present and verified, no download.
    let o = fetch("multihop-rag-queries", dir.path(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("already present"), "{}", stdout(&o));
    assert_eq!(server.requested(), ["/data/MultiHopRAG.json"]);

    // And it loads.
    let o = run(&["inspect", "--dataset", "multihop-rag", "--data-dir", d]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn fetch_checksum_mismatch_exits_2_and_leaves_nothing() {
    // The built-in SHA-256 of MultiHopRAG.json cannot match these bytes.
    let routes = HashMap::from([("/MultiHopRAG.json".to_string(), b"[]".to_vec())]);
    let server = TestServer::start(routes, 2, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let o = fetch_cmd("multihop-rag-queries", dir.path(), &[])
        .env("CRABPATH_FETCH_URL_BASE", &server.base)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("SHA-256 mismatch"), "{e}");
    assert!(
        e.contains(bench::catalog::MULTIHOP_QUERIES.sha256().expect("recorded")),
        "{e}"
    );
    assert!(e.contains(&sha256_hex(b"[]")), "{e}");
    assert!(
        files_under(dir.path()).is_empty(),
        "left behind: {:?}",
        files_under(dir.path())
    );
    assert_eq!(server.requested(), ["/MultiHopRAG.json"]);
}

#[test]
fn fetch_http_error_exits_1_and_leaves_nothing() {
    let server = TestServer::start(HashMap::new(), 2, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let base = format!("{}/base", server.base);
    let o = fetch("multihop-rag-corpus", dir.path(), &["--url-base", &base]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("404"), "{}", stderr(&o));
    assert_eq!(server.requested(), ["/base/corpus.json"]);
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn fetch_url_with_several_files_is_refused() {
    let url = "http://127.0.0.1:9/x";
    let args = [
        "fetch",
        "--dataset",
        "multihop-rag",
        "--url",
        url,
        "--no-progress",
    ];
    assert_usage_error(&args, "apply to one file");
}

#[test]
#[ignore = "needs the staged dataset subsets (CRABPATH_DATA_DIR or ../shared/datasets); run with: cargo test --workspace -- --ignored"]
fn fetch_hotpot_uses_prefix_check() {
    // The staged first-103 file is exactly the 665,487-byte prefix of the dev file plus "]",
    // so serving it as the "full" file passes the prefix check; flipping a byte inside the
    // prefix fails it.
    let p = staged_file("hotpotqa/hotpot_dev_distractor_v1.first103.json.gz");
    let mut good = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap()),
        &mut good,
    )
    .unwrap();
    let mut bad = good.clone();
    bad[1000] ^= 0x20;
    let routes = HashMap::from([
        (
            "/good/hotpot_dev_distractor_v1.json".to_string(),
            good.clone(),
        ),
        ("/bad/hotpot_dev_distractor_v1.json".to_string(), bad),
    ]);
    let server = TestServer::start(routes, 4, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let base = |sub: &str| format!("{}/{sub}", server.base);

    let o = fetch("hotpotqa", dir.path(), &["--url-base", &base("bad")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("prefix check"), "{}", stderr(&o));
    assert!(files_under(dir.path()).is_empty());

    let o = fetch("hotpotqa", dir.path(), &["--url-base", &base("good")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("prefix check passed"), "{s}");
    assert!(
        s.contains(&sha256_hex(&good)),
        "computed hash is printed: {s}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("hotpotqa/hotpot_dev_distractor_v1.json")).unwrap(),
        good
    );
}

#[test]
fn fetch_locomo_places_the_file_and_inspect_reports_its_repairs() {
    // The invented fixture in the release's layout, served as locomo10.json with its own
    // checksum given by --sha256 (the built-in one is the real file's).
    let body = std::fs::read(fixture("locomo_tiny.json")).unwrap();
    let sha = sha256_hex(&body);
    let routes = HashMap::from([("/m/locomo10.json".to_string(), body.clone())]);
    let server = TestServer::start(routes, 2, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let base = format!("{}/m", server.base);
    let o = fetch(
        "locomo",
        dir.path(),
        &["--url-base", &base, "--sha256", &sha],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("SHA-256 verified"), "{}", stdout(&o));
    assert!(stderr(&o).contains("CC BY-NC 4.0"), "{}", stderr(&o));
    let dest = dir.path().join("locomo/locomo10.json");
    assert_eq!(std::fs::read(&dest).unwrap(), body);
    assert_eq!(server.requested(), ["/m/locomo10.json"]);

    let d = dir.path().to_str().unwrap();
    let o = run(&["inspect", "--dataset", "locomo", "--data-dir", d]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for want in [
        "conversations: 3, sessions: 6, turns: 17, questions: 13",
        "turns with an image caption: 1",
        "category: 1 multi-hop 3, 2 temporal 3, 3 open-domain 1, 4 single-hop 4, 5 adversarial 2",
        "questions without an evidence turn (not scored): 2",
        "evidence strings repaired or dropped: 4",
        "conv-26 qa[1]: \"D2:1; D2:2\": 2 ids in one string, split: kept D2:1; kept D2:2",
        "conv-26 qa[2]: \"D2:02\": \"D2:02\" (leading zero) kept as D2:2",
        "conv-26 qa[3]: \"D\": \"D\" dropped: names no turn",
        "conv-26 qa[3]: \"D1:9\": \"D1:9\" dropped: no such turn in the conversation",
        "conv-26: `session_N_date_time` without `session_N` ignored for N = 3",
    ] {
        assert!(s.contains(want), "missing {want:?} in:\n{s}");
    }
}

#[test]
fn fetch_locomo_refuses_bytes_that_are_not_the_release() {
    let routes = HashMap::from([("/locomo10.json".to_string(), b"[]".to_vec())]);
    let server = TestServer::start(routes, 2, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let o = fetch("locomo", dir.path(), &["--url-base", &server.base]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("SHA-256 mismatch"), "{e}");
    assert!(
        e.contains(bench::catalog::LOCOMO.sha256().expect("recorded")),
        "{e}"
    );
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn bench_run_locomo_writes_a_report_that_bench_check_reproduces() {
    // The invented fixture: conv-26 (tuning) and two test conversations; hash-v1 only.
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture("locomo_tiny.json");
    let out = dir.path().join("results/locomo-hash-v1.json");
    let o = run(&[
        "run",
        "--dataset",
        "locomo",
        "--input",
        fx.to_str().unwrap(),
        "--splits",
        "4",
        "--permutations",
        "200",
        "--bootstrap",
        "100",
        "--no-progress",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("LoCoMo, eight test conversations"), "{s}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(report["protocol"], "locomo");
    assert_eq!(
        report["dataset_queries"], 11,
        "13 questions, 2 without evidence"
    );
    assert_eq!(report["locomo"]["conversations"][0]["role"], "tuning");
    assert_eq!(
        report["locomo"]["evidence_repairs"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    let runs = dir.path().join("results/runs");
    assert!(runs.join("locomo-multi-hop.qrels.xz").is_file());
    assert!(runs
        .join("locomo-hash-v1-splits4.crabpath_cold.run.xz")
        .is_file());
    // bench check re-runs it from its recorded command (the fixture found in the data
    // directory by its file name) and finds every number the same
    std::fs::copy(&fx, dir.path().join("locomo_tiny.json")).unwrap();
    let o = run(&[
        "--data-dir",
        dir.path().to_str().unwrap(),
        "check",
        "--results",
        dir.path().join("results").to_str().unwrap(),
        "--fresh-dir",
        dir.path().join("fresh").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("ok"), "{}", stdout(&o));
}

#[test]
fn bench_run_locomo_refuses_the_knobs_it_tunes() {
    let o = run(&["run", "--dataset", "locomo", "--max-hops", "2"]);
    let e = one_line_error(&o);
    assert!(
        e.contains("--max-hops does not apply to --dataset locomo"),
        "{e}"
    );
}
