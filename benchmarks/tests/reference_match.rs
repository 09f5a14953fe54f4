//! The `paper` protocol with `hash-v1` and `--shared-edge-state` reproduces the reference
//! program's numbers exactly (BENCH.md §1, §2 defect 2): every metric of every method and
//! every learning-curve point, compared bit for bit.
//!
//! How the expected numbers were produced (Python 3.11.7, standard library only):
//!
//! 1. Reference checkout: `git -C <mirror of jonathangu/crabpath> archive 134c676 | tar -x -C
//!    /tmp/ref` (commit 134c67673979aeae6c5033cf411e9cc2a08bb9a3, package 11.2.1).
//! 2. The scripts `benchmarks/external/run_hotpotqa.py` and `run_multihop_rag.py` were run
//!    unmodified through a small wrapper that (a) puts `/tmp/ref` on `sys.path`, (b) installs
//!    a stub `openai` module whose `OpenAI()` raises (it is never called), (c) loads the script
//!    with `importlib`, and (d) replaces its `_load_cache` by one returning a dict subclass
//!    whose `__contains__` is true for every string and whose `get`/`__getitem__` return
//!    (and memoise) `crabpath.HashEmbedder().embed(text)`, and `_save_cache` by a no-op; then
//!    calls the script's `main()`. So every text, including an empty node content, is
//!    embedded with the reference's own `hash-v1`.
//! 3. Inputs: the staged files gunzipped —
//!    `python3 wrapper.py hotpotqa --input hotpot_dev_distractor_v1.first103.json --limit 0`
//!    and `python3 wrapper.py multihop --input MultiHopRAG.sample500.json --limit 100` (and
//!    `--limit 0`, all 500 queries)
//!    (all other flags at the reference defaults: seed_top_k 8, embed_top_k 10, max_hops 3,
//!    beam_width 4; lr 0.3 and discount 0.9 are constants of the scripts).
//! 4. The values below were printed from the output JSON with `repr(float)` (shortest
//!    round-trip), so they are the exact binary64 values.
//!
//! Means are plain left-to-right sums (CPython ≤ 3.11 `sum`); a CPython ≥ 3.12 rerun may
//! differ in the last digit because `sum` became compensated there.
//!
//! The tests pass with a note when the staged files are absent (see `common::staged_dir`).

mod common;

use std::process::Command;

use serde_json::Value;

/// `bench run --dataset <dataset> --variant <variant> --limit <limit> <flags>` on the
/// staged data, or `None` (with a note) when `<staged>/<file>` is absent.
fn run_staged(
    file: &str,
    dataset: &str,
    variant: &str,
    limit: &str,
    flags: &[&str],
) -> Option<Value> {
    let dir = common::staged_dir()?;
    if !dir.join(file).is_file() {
        eprintln!("note: {file} not staged; skipping");
        return None;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("report.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("--data-dir")
        .arg(&dir)
        .args([
            "run",
            "--dataset",
            dataset,
            "--variant",
            variant,
            "--limit",
            limit,
        ])
        .args(flags)
        .arg("--out")
        .arg(&out)
        .args(["--no-progress", "--no-timings", "--bootstrap", "50"])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("bench runs");
    assert!(st.success(), "bench run failed: {st}");
    let text = std::fs::read_to_string(&out).expect("report written");
    Some(serde_json::from_str(&text).expect("report is JSON"))
}

fn check(
    report: &Value,
    sizes: (u64, u64, u64),
    metrics: &[(&str, &str, f64)],
    curves: &[(&str, &str, &str, f64)],
) {
    assert_eq!(report["graph_nodes"].as_u64(), Some(sizes.0), "graph_nodes");
    assert_eq!(report["graph_edges"].as_u64(), Some(sizes.1), "graph_edges");
    assert_eq!(
        report["dataset_queries"].as_u64(),
        Some(sizes.2),
        "dataset_queries"
    );
    check_subset(report, metrics);
    for &(m, q, k, want) in curves {
        let got = report["learning_curves"][m][q][k]
            .as_f64()
            .unwrap_or_else(|| panic!("missing learning_curves.{m}.{q}.{k}"));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "curve {m}@{q}.{k}: got {got:?}, want {want:?}"
        );
    }
    // Same shape as the reference: exactly these methods, checkpoints and keys.
    let n_curve_points: usize = report["learning_curves"]
        .as_object()
        .map(|o| {
            o.values()
                .filter_map(Value::as_object)
                .map(|c| c.len())
                .sum()
        })
        .unwrap_or(0);
    let want_points: std::collections::BTreeSet<(&str, &str)> =
        curves.iter().map(|&(m, q, _, _)| (m, q)).collect();
    assert_eq!(
        n_curve_points,
        want_points.len(),
        "learning-curve checkpoints"
    );
}

#[test]
fn hotpotqa_first103_paper_shared_matches_reference() {
    let Some(r) = run_staged(
        "hotpotqa/hotpot_dev_distractor_v1.first103.json.gz",
        "hotpotqa",
        "first103",
        "0",
        &[
            "--protocol",
            "paper",
            "--embedder",
            "hash-v1",
            "--shared-edge-state",
        ],
    ) else {
        return;
    };
    check(&r, HOTPOT103_SIZES, HOTPOT103_METRICS, HOTPOT103_CURVES);
}

#[test]
fn hotpotqa_first103_deep_copies_change_only_pg() {
    let Some(r) = run_staged(
        "hotpotqa/hotpot_dev_distractor_v1.first103.json.gz",
        "hotpotqa",
        "first103",
        "0",
        &[],
    ) else {
        return;
    };
    let not_pg: Vec<(&str, &str, f64)> = HOTPOT103_METRICS
        .iter()
        .copied()
        .filter(|&(m, _, _)| m != "crabpath_pg_learning")
        .collect();
    check_subset(&r, &not_pg);
    let pg_same = HOTPOT103_METRICS
        .iter()
        .filter(|&&(m, _, _)| m == "crabpath_pg_learning")
        .all(|&(m, k, v)| r["method_metrics"][m][k].as_f64() == Some(v));
    assert!(
        !pg_same,
        "with deep copies the PG numbers differ from the reference's (defect 2)"
    );
}

/// Every `(method, metric, value)` equals the report's `method_metrics`, bit for bit.
fn check_subset(report: &Value, metrics: &[(&str, &str, f64)]) {
    for &(m, k, want) in metrics {
        let got = report["method_metrics"][m][k]
            .as_f64()
            .unwrap_or_else(|| panic!("missing method_metrics.{m}.{k}"));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{m}.{k}: got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn multihop_sample500_limit100_paper_shared_matches_reference() {
    let Some(r) = run_staged(
        "multihop_rag/MultiHopRAG.sample500.json.gz",
        "multihop-rag",
        "sample500",
        "100",
        &[
            "--protocol",
            "paper",
            "--embedder",
            "hash-v1",
            "--shared-edge-state",
        ],
    ) else {
        return;
    };
    check(
        &r,
        MULTIHOP100_SIZES,
        MULTIHOP100_METRICS,
        MULTIHOP100_CURVES,
    );
}

/// graph_nodes, graph_edges, dataset_queries of the reference run.
const HOTPOT103_SIZES: (u64, u64, u64) = (1020, 9164, 103);
/// method_metrics of the reference run: (method, metric, value).
const HOTPOT103_METRICS: &[(&str, &str, f64)] = &[
    ("embedding_topk", "sp_recall_at_5", 0.17475728155339806),
    ("embedding_topk", "sp_recall_at_10", 0.3592233009708738),
    ("embedding_topk", "single_sp_hit_at_5", 0.7281553398058253),
    (
        "embedding_topk",
        "distractor_suppression",
        0.8776699029126214,
    ),
    ("embedding_topk", "mrr", 0.5595006934812761),
    ("embedding_topk", "nodes_fired", 10.0),
    ("crabpath_cold", "sp_recall_at_5", 0.6893203883495146),
    ("crabpath_cold", "sp_recall_at_10", 0.8932038834951457),
    ("crabpath_cold", "single_sp_hit_at_5", 0.8058252427184466),
    (
        "crabpath_cold",
        "distractor_suppression",
        0.7886731391585755,
    ),
    ("crabpath_cold", "mrr", 0.5685043920480815),
    ("crabpath_cold", "nodes_fired", 8.883495145631068),
    ("crabpath_learning", "sp_recall_at_5", 0.6407766990291263),
    ("crabpath_learning", "sp_recall_at_10", 0.8640776699029126),
    (
        "crabpath_learning",
        "single_sp_hit_at_5",
        0.8058252427184466,
    ),
    (
        "crabpath_learning",
        "distractor_suppression",
        0.7963014331946364,
    ),
    ("crabpath_learning", "mrr", 0.565499306518724),
    ("crabpath_learning", "nodes_fired", 9.116504854368932),
    ("crabpath_pg_learning", "sp_recall_at_5", 0.5728155339805825),
    (
        "crabpath_pg_learning",
        "sp_recall_at_10",
        0.8446601941747572,
    ),
    (
        "crabpath_pg_learning",
        "single_sp_hit_at_5",
        0.8058252427184466,
    ),
    (
        "crabpath_pg_learning",
        "distractor_suppression",
        0.7886615811373089,
    ),
    ("crabpath_pg_learning", "mrr", 0.565499306518724),
    ("crabpath_pg_learning", "nodes_fired", 8.737864077669903),
];
/// learning_curves of the reference run: (method, checkpoint, metric, value).
const HOTPOT103_CURVES: &[(&str, &str, &str, f64)] = &[
    ("crabpath_learning", "50", "sp_recall_at_5", 0.74),
    ("crabpath_learning", "50", "sp_recall_at_10", 0.82),
    ("crabpath_learning", "50", "single_sp_hit_at_5", 0.78),
    (
        "crabpath_learning",
        "50",
        "distractor_suppression",
        0.803666666666667,
    ),
    ("crabpath_learning", "50", "mrr", 0.5545476190476191),
    ("crabpath_learning", "50", "nodes_fired", 9.04),
    ("crabpath_learning", "100", "sp_recall_at_5", 0.66),
    ("crabpath_learning", "100", "sp_recall_at_10", 0.86),
    ("crabpath_learning", "100", "single_sp_hit_at_5", 0.81),
    (
        "crabpath_learning",
        "100",
        "distractor_suppression",
        0.7966349206349201,
    ),
    ("crabpath_learning", "100", "mrr", 0.567702380952381),
    ("crabpath_learning", "100", "nodes_fired", 9.1),
    ("crabpath_pg_learning", "50", "sp_recall_at_5", 0.68),
    ("crabpath_pg_learning", "50", "sp_recall_at_10", 0.8),
    ("crabpath_pg_learning", "50", "single_sp_hit_at_5", 0.78),
    (
        "crabpath_pg_learning",
        "50",
        "distractor_suppression",
        0.800404761904762,
    ),
    ("crabpath_pg_learning", "50", "mrr", 0.552047619047619),
    ("crabpath_pg_learning", "50", "nodes_fired", 8.76),
    ("crabpath_pg_learning", "100", "sp_recall_at_5", 0.59),
    ("crabpath_pg_learning", "100", "sp_recall_at_10", 0.85),
    ("crabpath_pg_learning", "100", "single_sp_hit_at_5", 0.81),
    (
        "crabpath_pg_learning",
        "100",
        "distractor_suppression",
        0.7877936507936505,
    ),
    ("crabpath_pg_learning", "100", "mrr", 0.567702380952381),
    ("crabpath_pg_learning", "100", "nodes_fired", 8.73),
];

/// graph_nodes, graph_edges, dataset_queries of the reference run.
const MULTIHOP100_SIZES: (u64, u64, u64) = (144, 5522, 100);
/// method_metrics of the reference run: (method, metric, value).
const MULTIHOP100_METRICS: &[(&str, &str, f64)] = &[
    ("embedding_topk", "full_hit_rate", 0.2),
    ("embedding_topk", "partial_hit_rate", 0.81),
    ("embedding_topk", "evidence_recall_at_10", 0.5075),
    ("embedding_topk", "mrr", 0.5710396825396827),
    ("embedding_topk", "nodes_fired", 10.0),
    ("crabpath_cold", "full_hit_rate", 0.51),
    ("crabpath_cold", "partial_hit_rate", 0.7),
    ("crabpath_cold", "evidence_recall_at_10", 0.6),
    ("crabpath_cold", "mrr", 0.5540833333333335),
    ("crabpath_cold", "nodes_fired", 10.76),
    ("crabpath_learning", "full_hit_rate", 0.45),
    ("crabpath_learning", "partial_hit_rate", 0.74),
    ("crabpath_learning", "evidence_recall_at_10", 0.575),
    ("crabpath_learning", "mrr", 0.5596666666666669),
    ("crabpath_learning", "nodes_fired", 12.26),
    ("crabpath_pg_learning", "full_hit_rate", 0.28),
    ("crabpath_pg_learning", "partial_hit_rate", 0.73),
    (
        "crabpath_pg_learning",
        "evidence_recall_at_10",
        0.49249999999999994,
    ),
    ("crabpath_pg_learning", "mrr", 0.5650674603174602),
    ("crabpath_pg_learning", "nodes_fired", 12.45),
];
/// learning_curves of the reference run: (method, checkpoint, metric, value).
const MULTIHOP100_CURVES: &[(&str, &str, &str, f64)] = &[
    ("crabpath_learning", "100", "full_hit_rate", 0.45),
    ("crabpath_learning", "100", "partial_hit_rate", 0.74),
    ("crabpath_learning", "100", "evidence_recall_at_10", 0.575),
    ("crabpath_learning", "100", "mrr", 0.5596666666666669),
    ("crabpath_learning", "100", "nodes_fired", 12.26),
    ("crabpath_pg_learning", "100", "full_hit_rate", 0.28),
    ("crabpath_pg_learning", "100", "partial_hit_rate", 0.73),
    (
        "crabpath_pg_learning",
        "100",
        "evidence_recall_at_10",
        0.49249999999999994,
    ),
    ("crabpath_pg_learning", "100", "mrr", 0.5650674603174602),
    ("crabpath_pg_learning", "100", "nodes_fired", 12.45),
];

#[test]
fn multihop_sample500_all_paper_shared_matches_reference() {
    let Some(r) = run_staged(
        "multihop_rag/MultiHopRAG.sample500.json.gz",
        "multihop-rag",
        "sample500",
        "0",
        &["--shared-edge-state"],
    ) else {
        return;
    };
    check(
        &r,
        MULTIHOP500_SIZES,
        MULTIHOP500_METRICS,
        MULTIHOP500_CURVES,
    );
}

/// graph_nodes, graph_edges, dataset_queries of the reference run.
const MULTIHOP500_SIZES: (u64, u64, u64) = (326, 29142, 429);
/// method_metrics of the reference run: (method, metric, value).
const MULTIHOP500_METRICS: &[(&str, &str, f64)] = &[
    ("embedding_topk", "full_hit_rate", 0.10256410256410256),
    ("embedding_topk", "partial_hit_rate", 0.62004662004662),
    (
        "embedding_topk",
        "evidence_recall_at_10",
        0.3459595959595961,
    ),
    ("embedding_topk", "mrr", 0.4253172753172752),
    ("embedding_topk", "nodes_fired", 10.0),
    ("crabpath_cold", "full_hit_rate", 0.3543123543123543),
    ("crabpath_cold", "partial_hit_rate", 0.5617715617715617),
    ("crabpath_cold", "evidence_recall_at_10", 0.4378399378399379),
    ("crabpath_cold", "mrr", 0.41724672633763515),
    ("crabpath_cold", "nodes_fired", 11.258741258741258),
    ("crabpath_learning", "full_hit_rate", 0.22144522144522144),
    ("crabpath_learning", "partial_hit_rate", 0.5617715617715617),
    (
        "crabpath_learning",
        "evidence_recall_at_10",
        0.36907536907536914,
    ),
    ("crabpath_learning", "mrr", 0.3898553305021835),
    ("crabpath_learning", "nodes_fired", 12.244755244755245),
    ("crabpath_pg_learning", "full_hit_rate", 0.19813519813519814),
    (
        "crabpath_pg_learning",
        "partial_hit_rate",
        0.5734265734265734,
    ),
    (
        "crabpath_pg_learning",
        "evidence_recall_at_10",
        0.35470085470085466,
    ),
    ("crabpath_pg_learning", "mrr", 0.4044640479955166),
    ("crabpath_pg_learning", "nodes_fired", 12.988344988344988),
];
/// learning_curves of the reference run: (method, checkpoint, metric, value).
const MULTIHOP500_CURVES: &[(&str, &str, &str, f64)] = &[
    ("crabpath_learning", "100", "full_hit_rate", 0.26),
    ("crabpath_learning", "100", "partial_hit_rate", 0.58),
    (
        "crabpath_learning",
        "100",
        "evidence_recall_at_10",
        0.3999999999999999,
    ),
    ("crabpath_learning", "100", "mrr", 0.40044455544455554),
    ("crabpath_learning", "100", "nodes_fired", 12.68),
    ("crabpath_learning", "250", "full_hit_rate", 0.244),
    ("crabpath_learning", "250", "partial_hit_rate", 0.568),
    (
        "crabpath_learning",
        "250",
        "evidence_recall_at_10",
        0.39133333333333337,
    ),
    ("crabpath_learning", "250", "mrr", 0.4078128871128872),
    ("crabpath_learning", "250", "nodes_fired", 12.64),
    ("crabpath_pg_learning", "100", "full_hit_rate", 0.2),
    ("crabpath_pg_learning", "100", "partial_hit_rate", 0.55),
    ("crabpath_pg_learning", "100", "evidence_recall_at_10", 0.34),
    ("crabpath_pg_learning", "100", "mrr", 0.35550804750804743),
    ("crabpath_pg_learning", "100", "nodes_fired", 13.38),
    ("crabpath_pg_learning", "250", "full_hit_rate", 0.208),
    ("crabpath_pg_learning", "250", "partial_hit_rate", 0.568),
    (
        "crabpath_pg_learning",
        "250",
        "evidence_recall_at_10",
        0.3533333333333333,
    ),
    ("crabpath_pg_learning", "250", "mrr", 0.39842668442668444),
    ("crabpath_pg_learning", "250", "nodes_fired", 13.32),
];
