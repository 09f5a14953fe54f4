//! The autotuner applied to a brain (issue 31 item 3; seed 002 §5.2–5.3): a dry run
//! writes nothing, an applied run is journaled with before / after / applied / clipped
//! and undone by `rollback`, and `maintain` applies it after its health task and decays
//! with the tuned half-life.

use crate::common;

use std::path::Path;

use crabpath::graph::Graph;
use crabpath::profile::Profile;
use crabpath::tuning::TUNING_META_KEY;
use crabpath_brain::service::command::maintain::{parse_tasks, Flavor, MaintainOptions};
use crabpath_brain::Brain;
use pyformat::pyjson::PyValue;

fn open(db: &Path) -> Brain {
    common::open_hash(db, Profile::Corrected, false)
}

fn weight(b: &mut Brain, (s, t): &(String, String)) -> f64 {
    b.read(|g: &Graph, _| {
        g.weight(g.lookup(s).unwrap(), g.lookup(t).unwrap())
            .unwrap()
    })
    .unwrap()
}

#[test]
fn dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = common::dead_brain(dir.path());
    let before = common::kept::kept(&db);
    let mut b = open(&db);
    let out = b.autotune(true).unwrap();
    assert!(out.step.changes() && !out.applied && out.snapshot.is_none());
    assert_eq!(out.step.after.half_life, 90.0);
    drop(b);
    assert_eq!(
        common::kept::kept(&db),
        before,
        "a dry run changed the database"
    );
    assert!(!db.parent().unwrap().join("snapshots").exists());
}

#[test]
fn apply_journals_and_rollback_restores() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = common::dead_brain(dir.path());
    let mut b = open(&db);
    let defaults = b.tuning().unwrap();
    // corrected defaults: DecayConfig 80, LearningConfig 2 / 0.06, tiers 0.6, damping 0.3
    assert_eq!(
        (
            defaults.half_life,
            defaults.promotion_threshold,
            defaults.hebbian_increment
        ),
        (80.0, 2, 0.06)
    );
    let out = b.autotune(false).unwrap();
    assert!(out.applied);
    let snap = out.snapshot.expect("a snapshot before applying");
    assert!(snap.name.starts_with("before-autotune-"), "{}", snap.name);
    let t = b.tuning().unwrap();
    assert_eq!(t.half_life, 90.0);
    assert!((t.hebbian_increment - 0.08).abs() < 1e-12);
    assert_eq!(t.promotion_threshold, 2);

    let journal = b.journal_entries().unwrap().entries;
    let e = journal.last().unwrap();
    assert_eq!(e.get("type").and_then(PyValue::as_str), Some("autotune"));
    for k in ["before", "after", "applied", "clipped", "health", "dry_run"] {
        assert!(e.contains_key(k), "journal entry lacks {k}: {e:?}");
    }
    let half = |k: &str| {
        e.get(k)
            .and_then(PyValue::as_dict)
            .and_then(|d| d.get("half_life"))
            .and_then(PyValue::as_number)
    };
    assert_eq!((half("before"), half("after")), (Some(80.0), Some(90.0)));
    let clipped = e.get("clipped").and_then(PyValue::as_list).unwrap();
    let knob = clipped[0]
        .as_dict()
        .unwrap()
        .get("knob")
        .and_then(PyValue::as_str);
    assert_eq!(knob, Some("promotion_threshold"));

    b.rollback(None).unwrap();
    let mut b = open(&db);
    assert_eq!(b.tuning().unwrap(), defaults);
    let meta = b.read(|_, m| m.get(TUNING_META_KEY).cloned()).unwrap();
    assert_eq!(meta, None, "rollback left the tuning in meta");
}

#[test]
fn maintain_applies_the_autotuner_and_decays_with_its_half_life() {
    let dir = tempfile::tempdir().unwrap();
    let (db, live) = common::dead_brain(dir.path());
    let mut b = open(&db);
    let report = b
        .maintain(&MaintainOptions {
            requested: parse_tasks("health,decay", true),
            dry_run: false,
            max_merges: 5,
            prune_below: 0.01,
            flavor: Flavor::Cli,
            journal: true,
            embedder: None,
        })
        .unwrap();
    let step = report
        .autotune
        .expect("corrected maintain runs the autotuner");
    assert_eq!(step.after.half_life, 90.0);
    drop(b);
    let mut b = open(&db);
    assert_eq!(b.tuning().unwrap().half_life, 90.0, "not persisted");
    // one decay step with the tuned half-life: 0.5 · 0.5^(1/90) (80 would give 0.5 · 0.5^(1/80))
    let w = weight(&mut b, &live);
    assert!((w - 0.5 * 0.5f64.powf(1.0 / 90.0)).abs() < 1e-12, "{w}");
    let types: Vec<String> = b
        .journal_entries()
        .unwrap()
        .entries
        .iter()
        .filter_map(|e| e.get("type").and_then(PyValue::as_str).map(String::from))
        .collect();
    let i = types
        .iter()
        .position(|t| t == "autotune")
        .expect("journaled");
    assert_eq!(types[i - 1], "health", "health, then autotune: {types:?}");
}
