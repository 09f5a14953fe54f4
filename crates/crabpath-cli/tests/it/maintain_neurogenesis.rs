//! `maintain` reports the deaths and merges of auto nodes (issue 31 item 1, the lead's
//! note: they were only journaled): an orphan probationary node that dies is in
//! maintain's `--json` (`neurogenesis.died`, `died_ids`) and its text report.

use crate::common;

use serde_json::Value;

/// A question the fixture brain keeps as an auto node (hash-v1: its nearest chunk lies
/// in the novelty band, seed 001 §2.7; checked below through `info`).
const NOVEL: &str = "settings for the environment";

fn run(d: &std::path::Path, args: &[&str]) -> String {
    let (rc, out, err) = common::run_text(d, "corrected", args);
    assert_eq!(rc, 0, "{args:?}: {err}");
    out
}

fn maintain_json(d: &std::path::Path) -> Value {
    let out = run(
        d,
        &["maintain", "--state", "b", "--tasks", "prune", "--json"],
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
fn an_orphan_that_dies_is_in_maintains_report() {
    let dir = common::scratch_brain();
    let d = dir.path();
    run(d, &["query", NOVEL, "--state", "b"]);
    let info: Value = serde_json::from_str(&run(d, &["info", "--state", "b", "--json"])).unwrap();
    assert_eq!(info["auto_probation"], 1, "the question was kept: {info}");
    // other queries, growing nothing; seed 001 §2.8: it dies once 14 queries have
    // passed since its last use (ORPHAN_TURNS), so not after 13
    let other = |n: usize| {
        for _ in 0..n {
            run(
                d,
                &[
                    "query",
                    "rollback steps",
                    "--state",
                    "b",
                    "--neurogenesis",
                    "off",
                ],
            );
        }
    };
    other(13);
    let r = maintain_json(d);
    assert_eq!(r["neurogenesis"]["died"], 0, "{r}");
    assert_eq!(r["neurogenesis"]["died_ids"], Value::Array(vec![]));
    other(1);
    let r = maintain_json(d);
    let died = &r["neurogenesis"];
    assert_eq!(died["died"], 1, "{r}");
    assert_eq!(died["merged"], 0, "{r}");
    let id = died["died_ids"][0].as_str().unwrap();
    assert_eq!(id, crabpath::neurogenesis::auto_id(NOVEL));
    assert_eq!(died["merged_ids"], Value::Array(vec![]));
    // the text report says it too, and a run with nothing to do says 0
    let text = run(d, &["maintain", "--state", "b", "--tasks", "prune"]);
    assert!(text.contains("auto nodes: 0 died, 0 merged"), "{text}");
    // the paper profile has no neurogenesis and keeps the reference's report
    let (rc, out, err) =
        common::run_text(d, "paper", &["init", "--workspace", "ws", "--output", "p"]);
    assert_eq!(rc, 0, "{err}");
    let _ = out;
    let (rc, out, err) = common::run_text(
        d,
        "paper",
        &[
            "maintain",
            "--state",
            "p/state.json",
            "--tasks",
            "prune",
            "--json",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    assert!(!out.contains("neurogenesis"), "{out}");
}
