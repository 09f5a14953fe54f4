//! The reference's own worked example, on its own sample workspace: `crabpath --profile
//! paper` runs init, doctor, info, health, query, learn, inject, query, maintain
//! --dry-run and journal on `examples/sample_workspace` of a reference checkout, and
//! every output is compared with the reference's recorded run (the project's spec
//! directory, `cli-sample/`), the `init` files byte for byte.
//!
//! Neither the sample workspace nor that run is committed (they are the reference's),
//! so this test needs both:
//!
//! ```text
//! CRABPATH_REFERENCE_CHECKOUT=<checkout of jonathangu/crabpath at 134c676> \
//! CRABPATH_CLI_SAMPLE=<spec directory>/cli-sample \
//!     cargo test -p crabpath-cli --test it sample_workspace:: -- --ignored
//! ```
//!
//! (`CRABPATH_CLI_SAMPLE` defaults to `../shared/spec/cli-sample` beside the repository.)

use crate::common;

use std::path::PathBuf;

/// The directory an environment variable names (or `default`), or a panic naming
/// `what` is missing and how to provide it.
fn input(var: &str, default: Option<PathBuf>, what: &str) -> PathBuf {
    let dir = testdata::external(
        what,
        &format!("set {var} (see this file's docs)"),
        std::env::var_os(var)
            .map(PathBuf::from)
            .or(default)
            .ok_or_else(|| format!("{var} is not set")),
    );
    testdata::external_dir(what, &format!("set {var} (see this file's docs)"), dir)
}

#[test]
#[ignore = "needs a checkout of the reference (CRABPATH_REFERENCE_CHECKOUT) and its recorded run (CRABPATH_CLI_SAMPLE); run with: cargo test --workspace -- --ignored"]
fn the_reference_flow_on_its_sample_workspace() {
    let checkout = input(
        "CRABPATH_REFERENCE_CHECKOUT",
        None,
        "a checkout of the reference program at commit 134c676",
    );
    let sample = input(
        "CRABPATH_CLI_SAMPLE",
        Some(testdata::workspace_root().join("../shared/spec/cli-sample")),
        "the reference's recorded run on its sample workspace (cli-sample)",
    );
    let workspace = testdata::external_dir(
        "the reference's sample workspace",
        "CRABPATH_REFERENCE_CHECKOUT must be a checkout of jonathangu/crabpath at 134c676",
        checkout.join("examples/sample_workspace"),
    );
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    common::copy_tree(&workspace, &work.join("ws"));
    let s = "brain/state.json";
    let q = [
        "query",
        "how do I deploy",
        "--state",
        s,
        "--top",
        "3",
        "--json",
    ];
    let flow: Vec<(&str, Vec<&str>)> = vec![
        (
            "01_init",
            vec!["init", "--workspace", "ws", "--output", "brain"],
        ),
        ("02_doctor", vec!["doctor", "--state", s]),
        ("03_info", vec!["info", "--state", s]),
        ("04_health", vec!["health", "--state", s]),
        ("05_query", q.to_vec()),
        (
            "06_learn",
            vec![
                "learn",
                "--state",
                s,
                "--outcome",
                "1.0",
                "--fired-ids",
                "deploy.md::0,deploy.md::1",
            ],
        ),
        (
            "07_inject",
            vec![
                "inject",
                "--state",
                s,
                "--id",
                "fix::1",
                "--content",
                "Never skip CI for hotfixes",
                "--type",
                "CORRECTION",
            ],
        ),
        ("08_query", q.to_vec()),
        (
            "09_maintain",
            vec!["maintain", "--state", s, "--dry-run", "--json"],
        ),
        ("10_journal", vec!["journal", "--state", s]),
    ];
    // the recorded run printed its paths as `<sample>/brain/...`
    let unpath = |t: &str| t.replace("<sample>/brain/", "brain/");
    for (name, args) in &flow {
        let out = common::run(work, "paper", args, "");
        let read = |ext: &str| {
            let p = sample.join(format!("{name}.{ext}"));
            std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let rc: i32 = read("rc").trim().parse().unwrap();
        assert_eq!(out.status.code(), Some(rc), "{name}: exit status");
        assert_eq!(
            common::normalize(&String::from_utf8_lossy(&out.stdout)),
            common::normalize(&unpath(&read("stdout"))),
            "{name}: stdout"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            read("stderr"),
            "{name}: stderr"
        );
        if *name == "01_init" {
            // byte-identical init files; SHA-256 of the reference's init of its sample
            // workspace (cli-sample/brain)
            for (f, sha) in [
                (
                    "graph.json",
                    "bef31e5b1eb9a52df9275df870db4ea46c4beed85835e1216d103c21b3d427a7",
                ),
                (
                    "index.json",
                    "1a6eae81da72d08433ba89dd293e85900027d34e73c556dd596c918cd51cb67d",
                ),
                (
                    "texts.json",
                    "a9e01662a6e7a10df6224c9df812147f39ba9aa0a5e9910bc7d78fbd914cefbe",
                ),
            ] {
                let ours = std::fs::read(work.join("brain").join(f)).unwrap();
                let theirs = std::fs::read(sample.join("brain").join(f)).unwrap();
                assert_eq!(ours, theirs, "{f} differs from the reference's");
                use sha2::{Digest, Sha256};
                assert_eq!(hex::encode(Sha256::digest(&ours)), sha, "{f}");
            }
        }
        let snapshot = match *name {
            "01_init" => Some("state.after_init.json"),
            "06_learn" => Some("state.after_learn.json"),
            "07_inject" => Some("state.after_inject.json"),
            _ => None,
        };
        if let Some(snap) = snapshot {
            let ours = std::fs::read_to_string(work.join(s)).unwrap();
            let theirs = std::fs::read_to_string(sample.join(snap)).unwrap();
            assert_eq!(
                common::normalize(&ours),
                common::normalize(&theirs),
                "{name}: state.json differs from {snap} (created_at aside)"
            );
        }
    }
}
