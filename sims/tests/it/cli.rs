//! The `sims` binary end to end: sharded runs merge into exactly the bytes of a
//! single-machine run, `merge` rejects incomplete or inconsistent shard sets, and
//! `check` passes on fresh results and fails, naming the file and the JSON path, after
//! a stored number is edited. Everything runs in temporary directories.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_sims");

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sims-cli-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn sims(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("running the sims binary")
}

fn ok(args: &[&str]) -> Output {
    let out = sims(args);
    assert!(
        out.status.success(),
        "sims {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Relative path → bytes of every file under `dir`.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in fs::read_dir(dir).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("prefix").to_path_buf();
                out.push((rel, fs::read(&p).expect("read")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

// Deterministic sims only: scaling_analysis's timing fields differ between any two runs.
const SELECTION: [&str; 10] = [
    "--sim",
    "pg_vs_heuristic",
    "--sim",
    "static_vs_learning",
    "--sim",
    "noise_robustness",
    "--sim",
    "negation",
    "--sim",
    "merge_compression",
];

fn run_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--seeds",
        "7",
        "--seed",
        "100",
        "--threads",
        "2",
        "--out",
        out,
    ];
    a.extend(SELECTION);
    a.extend(extra);
    a
}

#[test]
fn shards_merge_to_the_bytes_of_a_single_run() {
    let base = tmp("shards");
    let single = base.join("single");
    let parts = base.join("parts");
    let merged = base.join("merged");
    ok(&run_args(single.to_str().unwrap(), &[]));
    for i in 0..3 {
        let shard = format!("{i}/3");
        ok(&run_args(parts.to_str().unwrap(), &["--shard", &shard]));
    }
    let partials: Vec<String> = [2, 0, 1]
        .iter()
        .map(|i| {
            parts
                .join(format!("shard-{i}-of-3.json"))
                .display()
                .to_string()
        })
        .collect();
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(partials.iter().map(String::as_str));
    ok(&args);
    let (a, b) = (files(&single), files(&merged));
    assert_eq!(a.len(), 10, "5 sims × 2 profiles");
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (x, y) in a.iter().zip(&b) {
        assert!(x.1 == y.1, "{} differs after merge", x.0.display());
    }
    // The multi-seed document records the seeds 100..106.
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(merged.join("corrected/pg_vs_heuristic.json")).unwrap())
            .unwrap();
    assert_eq!(
        doc["multi_seed"]["seeds"],
        serde_json::json!([100, 101, 102, 103, 104, 105, 106])
    );

    // A missing shard, a duplicated shard and mismatched parameters are refused.
    let out = sims(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        &partials[0],
        &partials[1],
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing shard(s): 1/3"));
    let out = sims(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        &partials[0],
        &partials[1],
        &partials[1],
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("given twice"));
    let other = base.join("other");
    let mut a = run_args(other.to_str().unwrap(), &["--shard", "1/3"]);
    a[2] = "8";
    ok(&a);
    let other_part = other.join("shard-1-of-3.json").display().to_string();
    let out = sims(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        &partials[0],
        &partials[1],
        &other_part,
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("parameters"));
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn check_passes_then_names_an_edited_number() {
    let base = tmp("check");
    let dir = base.to_str().unwrap();
    ok(&[
        "run",
        "--sim",
        "negation",
        "--sim",
        "pg_vs_heuristic",
        "--seeds",
        "2",
        "--out",
        dir,
    ]);
    // An extra result set (multi-seed) is checked too.
    let extra = base.join("seeds-3");
    ok(&[
        "run",
        "--profile",
        "corrected",
        "--sim",
        "pg_vs_heuristic",
        "--seeds",
        "3",
        "--out",
        extra.to_str().unwrap(),
    ]);
    let check = [
        "check",
        "--dir",
        dir,
        "--sim",
        "negation",
        "--sim",
        "pg_vs_heuristic",
    ];
    let out = ok(&check);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("5 file(s), 5 ok, 0 differ"), "{text}");

    // Edit one stored number by hand.
    let path = base.join("corrected/negation.json");
    let original = fs::read_to_string(&path).unwrap();
    let edited = original.replacen("\"threshold\": 0.75", "\"threshold\": 0.7", 1);
    assert_ne!(original, edited);
    fs::write(&path, edited).unwrap();
    let out = sims(&check);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "{}: claim.predicates[1].threshold",
            path.display()
        )),
        "{text}"
    );

    // A multi-seed aggregate edited by hand is caught as well.
    fs::write(&path, original).unwrap();
    let path = extra.join("corrected/pg_vs_heuristic.json");
    let text = fs::read_to_string(&path).unwrap();
    let edited = text.replacen("\"n\": 3", "\"n\": 4", 1);
    assert_ne!(text, edited);
    fs::write(&path, edited).unwrap();
    let out = sims(&check);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("multi_seed.metrics"), "{text}");
    let _ = fs::remove_dir_all(&base);
}

/// `check` compares every deterministic field, including the 50 snapshots of
/// deploy_pipeline's `edge_weights_over_time` (a key whose name merely contains "time"):
/// one edited weight in a copy of the committed file fails the check, naming its path.
#[test]
fn check_sees_an_edited_weight_in_edge_weights_over_time() {
    let base = tmp("edge-weights");
    let committed = testdata::committed("results/sims/paper/deploy_pipeline.json");
    let copy = base.join("paper/deploy_pipeline.json");
    fs::create_dir_all(copy.parent().unwrap()).unwrap();
    fs::copy(&committed, &copy).unwrap();
    let dir = base.to_str().unwrap();
    let check = [
        "check",
        "--dir",
        dir,
        "--profile",
        "paper",
        "--sim",
        "deploy_pipeline",
    ];
    let out = ok(&check);
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 file(s), 1 ok, 0 differ"));

    // Query 20's weight of the last chain edge: 1.0 in the committed file.
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&copy).unwrap()).unwrap();
    let w = &mut doc["edge_weights_over_time"][19]["edge_weights"]["rollback->verify"];
    assert_eq!(*w, serde_json::json!(1.0));
    *w = serde_json::json!(0.99);
    fs::write(&copy, sims::pyjson::to_string(&doc)).unwrap();
    let out = sims(&check);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "{}: edge_weights_over_time[19].edge_weights.rollback->verify: 0.99 → 1.0",
            copy.display()
        )),
        "{text}"
    );

    // Fresh documents go to --fresh-dir; the stored file is left alone.
    let edited = fs::read(&copy).unwrap();
    let fresh = base.join("fresh");
    let mut with_fresh = check.to_vec();
    with_fresh.extend(["--fresh-dir", fresh.to_str().unwrap()]);
    assert_eq!(sims(&with_fresh).status.code(), Some(1));
    assert_eq!(fs::read(&copy).unwrap(), edited);
    assert_eq!(
        fs::read(fresh.join("paper/deploy_pipeline.json")).unwrap(),
        fs::read(&committed).unwrap()
    );
    // Only --update replaces it, with the fresh run.
    let mut update = check.to_vec();
    update.push("--update");
    let out = ok(&update);
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 differ, 1 updated"));
    assert_eq!(fs::read(&copy).unwrap(), fs::read(&committed).unwrap());
    ok(&check);
    let _ = fs::remove_dir_all(&base);
}
