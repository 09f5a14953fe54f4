//! `--embedder minilm` end to end on a tiny fixture: `bench embed` fills an empty cache and a
//! second `bench embed` embeds nothing; `bench run` with the warm cache and with `--no-cache`
//! writes the same report byte for byte. Needs the all-MiniLM-L6-v2 model, so it is
//! `#[ignore]`d (run it with `cargo test --workspace -- --ignored`) and fails, naming the
//! model directory and the command that fetches it, when the model is absent.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{bench_cmd, fixture};

/// `(embedded, from the cache)` from the summary line of `bench embed`.
fn embed_counts(o: &Output) -> (usize, usize) {
    let s = String::from_utf8_lossy(&o.stdout);
    let line = s
        .lines()
        .find(|l| l.starts_with("bench embed:"))
        .unwrap_or_else(|| panic!("no summary in {s}"));
    let num_before = |word: &str| -> usize {
        let head = &line[..line
            .find(word)
            .unwrap_or_else(|| panic!("{word} in {line}"))];
        let digits = head.trim_end().rsplit(' ').next().unwrap_or("");
        digits
            .parse()
            .unwrap_or_else(|_| panic!("count before {word} in {line}"))
    };
    (num_before("embedded"), num_before("from the cache"))
}

fn run_report(model: &Path, cache: &[&str], out: &Path) -> Vec<u8> {
    let input = fixture("multihop_tiny.json");
    let o = bench_cmd()
        .args(["run", "--dataset", "multihop-rag", "--embedder", "minilm"])
        .args([
            "--limit",
            "0",
            "--no-timings",
            "--no-progress",
            "--bootstrap",
            "20",
        ])
        .arg("--input")
        .arg(&input)
        .arg("--model-dir")
        .arg(model)
        .args(cache)
        .arg("--out")
        .arg(out)
        .output()
        .expect("bench runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out).expect("report written")
}

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model (cargo run -q -p crabpath-embed -- fetch-model); run with: cargo test --workspace -- --ignored"]
fn cache_fills_once_and_does_not_change_the_report() {
    let model = crabpath_embed::resolve_model_dir(None);
    if let Err(e) = crabpath_embed::model::check_model_dir(&model) {
        panic!(
            "this test needs the all-MiniLM-L6-v2 model in {} ({e}); fetch it with `cargo run \
             -q -p crabpath-embed -- fetch-model` or set CRABPATH_MODEL_DIR",
            model.display()
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let embed = || {
        let o = bench_cmd()
            .args(["embed", "--dataset", "multihop-rag", "--limit", "0"])
            .arg("--input")
            .arg(fixture("multihop_tiny.json"))
            .arg("--model-dir")
            .arg(&model)
            .arg("--cache-dir")
            .arg(&cache)
            .arg("--no-progress")
            .output()
            .expect("bench embed runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        embed_counts(&o)
    };
    let (cold, hits) = embed();
    assert!(cold > 0 && hits == 0, "cold: {cold} embedded, {hits} hits");
    assert_eq!(embed(), (0, cold), "the warm run embeds nothing");

    let c = cache.to_str().unwrap();
    // Same file name (the report names its run files), different directories.
    let out = |sub: &str| {
        let d = dir.path().join(sub);
        std::fs::create_dir_all(&d).unwrap();
        d.join("r.json")
    };
    let warm = run_report(&model, &["--cache-dir", c], &out("warm"));
    let fresh = run_report(&model, &["--no-cache"], &out("fresh"));
    assert!(
        warm == fresh,
        "cached and fresh vectors give different reports"
    );
    let report: serde_json::Value = serde_json::from_slice(&warm).unwrap();
    assert_eq!(report["embedder"], "all-MiniLM-L6-v2");
}
