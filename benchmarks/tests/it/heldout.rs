//! The held-out protocols and the routers end to end on the repository's MultiHop-RAG
//! fixture: the report is the same bytes for one and for two worker threads (timings and
//! provenance aside), every split's test queries are disjoint from its train queries, and
//! `bench check` re-runs the report from the command line it records.

use crate::common;

use std::path::Path;

use common::{bench_cmd, fixture};
use serde_json::Value;

fn run(out: &Path, threads: &str, protocol: &str) {
    let o = bench_cmd()
        .args([
            "run",
            "--dataset",
            "multihop-rag",
            "--limit",
            "0",
            "--protocol",
            protocol,
            "--router",
            "edge,edge+sim,adaptive",
            "--core-profile",
            "corrected",
            "--splits",
            "4",
            "--dev-fraction",
            "0.1",
            "--bootstrap",
            "50",
            "--permutations",
            "200",
            "--no-progress",
            "--no-timings",
            "--threads",
            threads,
        ])
        .arg("--input")
        .arg(fixture("multihop_tiny.json"))
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn read(p: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("provenance");
    v
}

#[test]
fn heldout_reports_do_not_depend_on_threads_and_check_re_runs_them() {
    let tmp = tempfile::tempdir().unwrap();
    for protocol in ["related", "unrelated", "repeat"] {
        let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
        let name = format!("{protocol}.json");
        run(&one.join(&name), "1", protocol);
        run(&two.join(&name), "2", protocol);
        let (a, b) = (read(&one.join(&name)), read(&two.join(&name)));
        assert_eq!(a, b, "{protocol}: one thread and two differ");
        assert_eq!(a["protocol"], protocol);
        assert!(a["files"].is_null());
        let mm = a["method_metrics"].as_object().unwrap();
        for m in [
            "crabpath_cold@edge",
            "crabpath_learning@edge+sim",
            "crabpath_pg_learning@adaptive",
            "rrf_topk",
        ] {
            assert!(mm.contains_key(m), "{protocol}: {m} missing");
        }
        let h = &a["heldout"];
        assert_eq!(h["splits"], 4);
        let sizes = h["test_queries_per_split"].as_array().unwrap();
        assert_eq!(sizes.len(), 4);
        let curves = &a["learning_curves"]["methods"]["crabpath_learning@edge"]["recall_at_10"];
        assert_eq!(curves["mean"].as_array().unwrap().len(), 5);
        // checkpoint 0 is the cold graph: the cold method's mean over the same splits
        if sizes.iter().all(|s| s.as_u64() > Some(0)) {
            let c0 = curves["mean"][0].as_f64().unwrap();
            let cold = mm["crabpath_cold@edge"]["recall_at_10"].as_f64().unwrap();
            assert!((c0 - cold).abs() < 1e-6, "{protocol}: {c0} vs {cold}");
        }
        if protocol == "repeat" {
            assert!(a["repeat"]["crabpath_learning@edge"]["first_ask"].is_object());
        }
    }
    // bench check re-runs a held-out report from its recorded command line
    let results = tmp.path().join("one");
    let o = bench_cmd()
        .arg("--data-dir")
        .arg(fixture(""))
        .args(["check", "--results"])
        .arg(&results)
        .arg("--fresh-dir")
        .arg(tmp.path().join("fresh"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(out.matches("ok: ").count(), 3, "{out}");
}
