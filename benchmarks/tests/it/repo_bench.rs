//! `bench repo` against the reference program (`benchmarks/run_benchmark.py` of
//! jonathangu/crabpath, commit 134c676, identical at 70f0065): the reference's outputs are
//! committed under `results/reference/repo-bench/` (README.md there: program, commit,
//! command) and compared field by field, apart from timing, machine and path fields
//! (`bench::repo::output::strip_volatile`), and line by line on stdout.
//!
//! * On this repository's fixture (`benchmarks/tests/fixtures/repo-bench`): default
//!   flags, the edge-case queries file, and non-default flags — always run.
//! * On the reference repository itself (seed 002 Tables 24/25 at 70f0065; v11.2.1 at
//!   134c676), on its sample workspace with the edge-case queries of `edge-sample/`, and
//!   without its queries file: `#[ignore]`d, they need clean checkouts named by
//!   `CRABPATH_REPO_70F0065` and `CRABPATH_REPO_134C676` (datasets/crabpath-repo/README.md).
//! * The clean protocol on the fixture: determinism, exclusions, the cold/static identity.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bench::repo::output::{read_json, strip_volatile, strip_volatile_stdout};
use serde_json::Value;

fn reference_dir(name: &str) -> PathBuf {
    common::workspace_root()
        .join("results/reference/repo-bench")
        .join(name)
}

fn fixture() -> PathBuf {
    common::workspace_root().join("benchmarks/tests/fixtures/repo-bench")
}

/// Runs `bench repo <args> --out <tmp>/results.json --no-progress`; returns the process
/// output and the report (if written).
fn bench_repo(args: &[&str]) -> (Output, Option<Value>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out_file = tmp.path().join("results.json");
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("repo")
        .args(args)
        .arg("--out")
        .arg(&out_file)
        .arg("--no-progress")
        .output()
        .expect("bench runs");
    let report = out_file
        .is_file()
        .then(|| read_json(&out_file).expect("the report is JSON"));
    (out, report)
}

/// Compares a run with a committed reference output (`<name>/results.stripped.json.gz`
/// and `<name>/stdout.txt`), naming the first difference.
fn assert_matches_reference(name: &str, out: &Output, report: Option<Value>) {
    assert!(
        out.status.success(),
        "bench repo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ours = report.expect("report written");
    strip_volatile(&mut ours);
    let want = read_json(&reference_dir(name).join("results.stripped.json.gz")).unwrap();
    if ours != want {
        let (a, b) = (&ours["methods"], &want["methods"]);
        for (m, wm) in b.as_object().unwrap() {
            for (i, (x, y)) in a[m]["per_query"]
                .as_array()
                .unwrap()
                .iter()
                .zip(wm["per_query"].as_array().unwrap())
                .enumerate()
            {
                assert_eq!(x, y, "{name}: method {m}, query {i}");
            }
            assert_eq!(a[m], *wm, "{name}: method {m}");
        }
        assert_eq!(ours, want, "{name}: top-level fields");
    }
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let want_stdout = std::fs::read_to_string(reference_dir(name).join("stdout.txt")).unwrap();
    assert_eq!(
        strip_volatile_stdout(&stdout),
        strip_volatile_stdout(&want_stdout),
        "{name}: stdout"
    );
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `bench repo` on the fixture workspace with the queries file `queries` (relative to
/// the fixture directory) and `extra` flags.
fn on_fixture(queries: &str, extra: &[&str]) -> (Output, Option<Value>) {
    let ws = s(&fixture().join("workspace"));
    let q = s(&fixture().join(queries));
    let mut args = vec!["--workspace", &ws, "--queries", &q];
    args.extend_from_slice(extra);
    bench_repo(&args)
}

/// The fixture's own queries file.
const FIXTURE_QUERIES: &str = "workspace/benchmarks/queries.json";

#[test]
fn fixture_matches_the_reference() {
    let (out, report) = on_fixture(FIXTURE_QUERIES, &[]);
    assert_matches_reference("fixture", &out, report);
}

#[test]
fn fixture_edge_cases_match_the_reference() {
    // "", null, missing, true, 42, 1e16, a list and an object as query; a string,
    // duplicates, non-string items, a big integer and a missing file as relevant
    let (out, report) = on_fixture("queries-edge.json", &[]);
    assert_matches_reference("fixture-edge", &out, report);
}

#[test]
fn fixture_flags_match_the_reference() {
    let ws = s(&fixture().join("workspace"));
    let q = s(&fixture().join("workspace/benchmarks/queries.json"));
    let (out, report) = bench_repo(&[
        "--workspace",
        &ws,
        "--queries-path",
        &q,
        "--seed-top-k",
        "-40",
        "--hash-top-k",
        "3",
        "--traverse-seed-k",
        "3",
        "--traverse-max-hops",
        "3",
        "--traverse-beam-width",
        "2",
        "--replay-max-hops",
        "1",
    ]);
    assert_matches_reference("fixture-flags", &out, report);
}

#[test]
fn graph_out_records_the_split_and_the_learned_graph() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("graph.json.gz");
    let (out, report) = on_fixture(FIXTURE_QUERIES, &["--graph-out", &s(&g)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // the graph file changes nothing in the report (reference output fixture/)
    assert_matches_reference("fixture", &out, report);
    let doc = read_json(&g).unwrap();
    let nodes = doc["node_file"].as_array().unwrap().len();
    // 46 nodes: reference output fixture/stdout.txt ("Graph nodes: 46")
    assert_eq!(nodes, 46);
    let boot = doc["bootstrap_edges"].as_array().unwrap();
    let learned = doc["learned"]["edges"].as_array().unwrap();
    assert_eq!(doc["learned"]["method"], "crabpath_traverse");
    assert!(learned.len() >= boot.len(), "learning only adds edges");
    for e in boot {
        // bootstrap edges are intra-file siblings of weight 0.49-0.51
        let (a, b) = (
            e[0].as_u64().unwrap() as usize,
            e[1].as_u64().unwrap() as usize,
        );
        assert_eq!(doc["node_file"][a], doc["node_file"][b]);
        let w = e[2].as_f64().unwrap();
        assert!((0.49..=0.51).contains(&w), "{w}");
    }
}

#[test]
fn empty_query_list_gives_zeros() {
    let tmp = tempfile::tempdir().unwrap();
    let q = tmp.path().join("q.json");
    std::fs::write(&q, "[]").unwrap();
    let ws = s(&fixture().join("workspace"));
    let (out, report) = bench_repo(&["--workspace", &ws, "--queries", &s(&q)]);
    assert!(out.status.success());
    let r = report.unwrap();
    assert_eq!(r["query_count"], 0);
    for m in r["methods"].as_object().unwrap().values() {
        assert_eq!(m["per_query"], serde_json::json!([]));
        assert_eq!(m["learning_curve"], serde_json::json!({}));
        assert_eq!(m["scores"]["MRR"], 0.0);
    }
}

#[test]
fn input_errors_exit_as_the_reference() {
    let ws = s(&fixture().join("workspace"));
    let tmp = tempfile::tempdir().unwrap();
    // missing queries file: the reference's message, exit 1, before the workspace
    let missing = s(&tmp.path().join("nope.json"));
    let (out, report) = bench_repo(&["--workspace", &ws, "--queries", &missing]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("queries file missing: {missing}")),
        "{err}"
    );
    assert!(report.is_none());
    // not a list
    let obj = tmp.path().join("obj.json");
    std::fs::write(&obj, "{\"query\": \"x\"}").unwrap();
    let (out, _) = bench_repo(&["--workspace", &ws, "--queries", &s(&obj)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("queries.json must contain a list"));
    // a row that is not an object: 1 under --profile paper, 2 otherwise
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "[{\"query\": \"x\", \"relevant\": []}, \"y\"]").unwrap();
    let (out, _) = bench_repo(&["--workspace", &ws, "--queries", &s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json: row 1: expected an object"), "{err}");
    let (out, _) = bench_repo(&[
        "--workspace",
        &ws,
        "--queries",
        &s(&bad),
        "--profile",
        "corrected",
        "--dense",
        "none",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // a missing workspace: the first line is printed, then exit 1
    let q = s(&fixture().join("workspace/benchmarks/queries.json"));
    let gone = s(&tmp.path().join("gone"));
    let (out, _) = bench_repo(&["--workspace", &gone, "--queries", &q]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("Splitting workspace: {gone}\n")
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("workspace not found"));
    // a tree that does not match
    let (out, _) = bench_repo(&[
        "--workspace",
        &ws,
        "--queries",
        &q,
        "--expect-tree",
        "70f0065",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected 54540ab3a8eb62c96841a65c0f9a99229ed5696b (commit 70f0065"),
        "{err}"
    );
}

/// `bench repo --protocol clean --dense none` on the fixture, with `extra` flags.
fn clean_fixture(extra: &[&str]) -> (Output, Value, String) {
    let ws = s(&fixture().join("workspace"));
    let q = s(&fixture().join("workspace/benchmarks/queries.json"));
    let mut args = vec![
        "--workspace",
        &ws,
        "--queries",
        &q,
        "--protocol",
        "clean",
        "--dense",
        "none",
        "--no-timings",
        "--workspace-label",
        "fixture",
        "--bootstrap",
        "500",
    ];
    args.extend_from_slice(extra);
    let tmp = tempfile::tempdir().unwrap();
    let out_file = tmp.path().join("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("repo")
        .args(&args)
        .arg("--out")
        .arg(&out_file)
        .arg("--no-progress")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_file).unwrap();
    (out, serde_json::from_str(&text).unwrap(), text)
}

#[test]
fn clean_protocol_on_the_fixture() {
    let (out, r, text) = clean_fixture(&["--threads", "1"]);
    let (_, _, text2) = clean_fixture(&["--threads", "2"]);
    assert_eq!(text, text2, "same bytes whatever the thread count");
    // the queries file is not in the corpus (46 nodes with it, reference output
    // fixture/stdout.txt)
    assert_eq!(r["graph_nodes"], 45);
    assert_eq!(
        r["protocol"]["corpus"]["excluded"][0]["file"],
        "benchmarks/queries.json"
    );
    assert_eq!(r["protocol"]["outcome"]["rule"], "relevance");
    assert_eq!(r["protocol"]["evaluation"]["design"], "heldout");
    let m = r["methods"].as_object().unwrap();
    assert!(m.contains_key("bm25"));
    // hash-seeded learning methods after 0 training queries are static_traverse
    for name in ["crabpath_traverse", "crabpath_no_inhibition", "crabpath_pg"] {
        // (equal up to the rounding of averaging over the repetitions)
        for k in ["Recall@3", "Recall@5", "Precision@3", "MRR"] {
            let cold = m[name]["learning_curve"]["0"][k].as_f64().unwrap();
            let stat = m["static_traverse"]["scores"][k].as_f64().unwrap();
            assert!(
                (cold - stat).abs() < 1e-12,
                "{name} {k}: cold {cold} vs static {stat}"
            );
        }
        assert!(m[name]["heldout_curve"]["all"]["recall_at_5"].is_number());
    }
    for (name, v) in m {
        let b = &v["budget_scores"];
        assert!(b["files_returned"].as_f64().unwrap() <= 10.0, "{name}");
        for k in ["recall_at_5", "recall_at_10", "mrr_at_10", "ndcg_at_10"] {
            let x = b[k].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&x), "{name} {k} = {x}");
        }
    }
    let learn = r["paired"]["learning_vs_cold"].as_object().unwrap();
    assert_eq!(learn.len(), 5);
    assert!(r["verdict"]["winner"].is_string());
    assert!(r["verdict"]["best_traversal_vs_best_retriever"]["result"].is_string());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\nVerdict: "), "{stdout}");
    // without the queries file keyword overlap no longer wastes a slot on it
    // (R@3 0.708 with it: reference output fixture/stdout.txt)
    assert!(m["keyword_overlap"]["scores"]["Recall@3"].as_f64().unwrap() > 0.708);
}

/// The committed results of `bench repo` on the reference repository
/// (`results/repo-bench/`, README.md there: program, command, checkouts) against the
/// reference program's outputs on the same trees: `paper-70f0065` is seed 002 Tables 24
/// and 25 (reference `paper-70f0065/`), `paper-134c676` the v11.2.1 tree (reference
/// `134c676/`). Every field apart from timing, machine and path fields, and stdout line
/// by line without the latency columns. (The `#[ignore]`d tests below re-run `bench repo`
/// on the checkouts themselves.)
#[test]
fn committed_results_equal_the_reference_outputs() {
    for (ours, reference) in [
        ("paper-70f0065", "paper-70f0065"),
        ("paper-134c676", "134c676"),
    ] {
        let dir = common::workspace_root().join("results/repo-bench");
        let mut got = read_json(&dir.join(format!("{ours}.json.gz"))).unwrap();
        strip_volatile(&mut got);
        let want = read_json(&reference_dir(reference).join("results.stripped.json.gz")).unwrap();
        assert_eq!(
            got, want,
            "results/repo-bench/{ours}.json.gz vs reference {reference}"
        );
        let stdout = std::fs::read_to_string(dir.join(format!("{ours}.stdout.txt"))).unwrap();
        let want_stdout =
            std::fs::read_to_string(reference_dir(reference).join("stdout.txt")).unwrap();
        assert_eq!(
            strip_volatile_stdout(&stdout),
            strip_volatile_stdout(&want_stdout),
            "results/repo-bench/{ours}.stdout.txt"
        );
    }
}

fn checkout(var: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "{var} is not set: point it at a clean checkout of the reference repository \
             (git clone https://github.com/jonathangu/crabpath; git checkout <commit>; see \
             datasets/crabpath-repo/README.md)"
        ),
    }
}

#[test]
#[ignore = "needs a checkout of jonathangu/crabpath at 70f0065 in CRABPATH_REPO_70F0065; run with: cargo test --workspace -- --ignored"]
fn paper_tables_at_70f0065() {
    on_checkout("CRABPATH_REPO_70F0065", "70f0065", "paper-70f0065");
}

/// `bench repo` on the checkout named by `var`, with its own queries file and the
/// tree check of `commit`, compared with the reference output `reference`.
fn on_checkout(var: &str, commit: &str, reference: &str) {
    let ws = checkout(var);
    let q = s(&ws.join("benchmarks/queries.json"));
    let (out, report) = bench_repo(&[
        "--workspace",
        &s(&ws),
        "--queries",
        &q,
        "--expect-tree",
        commit,
    ]);
    assert_matches_reference(reference, &out, report);
}

#[test]
#[ignore = "needs a checkout of jonathangu/crabpath at 134c676 in CRABPATH_REPO_134C676; run with: cargo test --workspace -- --ignored"]
fn reference_run_at_134c676() {
    on_checkout("CRABPATH_REPO_134C676", "134c676", "134c676");
}

#[test]
#[ignore = "needs a checkout of jonathangu/crabpath at 134c676 in CRABPATH_REPO_134C676; run with: cargo test --workspace -- --ignored"]
fn edge_sample_on_the_reference_sample_workspace() {
    let ws = checkout("CRABPATH_REPO_134C676").join("examples/sample_workspace");
    let q = s(&reference_dir("edge-sample").join("q10.json"));
    let (out, report) = bench_repo(&["--workspace", &s(&ws), "--queries", &q]);
    assert_matches_reference("edge-sample", &out, report);
}

#[test]
#[ignore = "needs checkouts of jonathangu/crabpath at 70f0065 and 134c676 in CRABPATH_REPO_70F0065 and CRABPATH_REPO_134C676; run with: cargo test --workspace -- --ignored"]
fn clean_corpus_equals_the_reference_without_its_queries_file() {
    for (var, name) in [
        ("CRABPATH_REPO_70F0065", "no-queries-json-70f0065"),
        ("CRABPATH_REPO_134C676", "no-queries-json-134c676"),
    ] {
        let ws = checkout(var);
        let q = s(&ws.join("benchmarks/queries.json"));
        let (out, report) =
            bench_repo(&["--workspace", &s(&ws), "--queries", &q, "--corpus", "clean"]);
        assert!(out.status.success());
        let mut ours = report.unwrap();
        strip_volatile(&mut ours);
        let want = read_json(&reference_dir(name).join("results.stripped.json.gz")).unwrap();
        assert_eq!(ours["graph_nodes"], want["graph_nodes"], "{name}");
        assert_eq!(ours["methods"], want["methods"], "{name}");
    }
}
