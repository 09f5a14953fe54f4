//! `crabpath autotune` and the autotuner in `maintain`, through the program (issue 31
//! item 3): the JSON fields of both, a dry run that leaves the database as it was, and
//! the paper profile, which never applies the autotuner.

use crate::common;

use std::path::Path;

use serde_json::Value;

fn run(dir: &Path, profile: &str, args: &[&str]) -> (i32, String, String) {
    common::run_text(dir, profile, args)
}

fn json(dir: &Path, profile: &str, args: &[&str]) -> Value {
    let (rc, out, err) = run(dir, profile, args);
    assert_eq!(rc, 0, "{args:?}: {out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// A three-file workspace and its brain in `dir/brain`.
fn init(dir: &Path, profile: &str) {
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for i in 1..=3 {
        std::fs::write(
            ws.join(format!("d{i}.md")),
            format!("# Doc {i}\n\nalpha beta {i}\n\n## Part\n\ndeploy notes {i}\n"),
        )
        .unwrap();
    }
    let (rc, out, err) = run(
        dir,
        profile,
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{out}{err}");
}

#[test]
fn autotune_json_dry_run_and_maintain_report() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path(), "corrected");
    let db = std::fs::read(dir.path().join("brain/brain.db")).unwrap();
    let d = json(
        dir.path(),
        "corrected",
        &["autotune", "--state", "brain", "--dry-run", "--json"],
    );
    for k in [
        "before", "after", "applied", "clipped", "health", "dry_run", "snapshot",
    ] {
        assert!(d.get(k).is_some(), "no {k}: {d}");
    }
    assert_eq!(d["dry_run"], Value::Bool(true));
    assert_eq!(d["snapshot"], Value::Null);
    // corrected defaults (DecayConfig 80, LearningConfig 2 / 0.06, tiers 0.6, damping 0.3)
    assert_eq!(d["before"]["half_life"], 80.0);
    assert_eq!(d["before"]["damping"], 0.3);
    assert_eq!(
        std::fs::read(dir.path().join("brain/brain.db")).unwrap(),
        db,
        "a dry run changed brain.db"
    );
    assert!(!dir.path().join("brain/snapshots").exists());
    let m = json(
        dir.path(),
        "corrected",
        &["maintain", "--state", "brain", "--json"],
    );
    let a = m
        .get("autotune")
        .unwrap_or_else(|| panic!("no autotune: {m}"));
    for k in ["before", "after", "applied", "clipped"] {
        assert!(a.get(k).is_some(), "maintain autotune lacks {k}: {m}");
    }
}

#[test]
fn paper_profile_never_applies_the_autotuner() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path(), "paper");
    let (rc, out, err) = run(dir.path(), "paper", &["autotune", "--state", "brain"]);
    assert_ne!(rc, 0, "{out}");
    assert!(err.contains("paper profile"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let m = json(
        dir.path(),
        "paper",
        &["maintain", "--state", "brain", "--json"],
    );
    assert!(m.get("autotune").is_none(), "{m}");
}
