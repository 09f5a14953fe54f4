//! `maintain`'s autotune is undoable as `crabpath autotune`'s is (issue 31 item 3, "a
//! snapshot taken before an autotune makes it undoable with `rollback`"; the lead's
//! note: `maintain` took none): a maintenance whose autotuner moves a parameter takes
//! `before-autotune-<time>` first, its journal entry names it, and `rollback` restores
//! the previous tuning in `meta`; one that moves nothing copies nothing.

use crate::common;

use crabpath::profile::Profile;
use crabpath::tuning::TUNING_META_KEY;
use crabpath_brain::service::command::maintain::{parse_tasks, Flavor, MaintainOptions};
use crabpath_brain::Brain;
use pyformat::pyjson::PyValue;

fn health_task() -> MaintainOptions<'static> {
    MaintainOptions {
        requested: parse_tasks("health", true),
        dry_run: false,
        max_merges: 5,
        prune_below: 0.01,
        flavor: Flavor::Cli,
        journal: true,
        embedder: None,
    }
}

fn open(db: &std::path::Path) -> Brain {
    common::open_hash(db, Profile::Corrected, false)
}

#[test]
fn rollback_undoes_the_tuning_maintain_applied() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = common::dead_brain(dir.path());
    let mut b = open(&db);
    let defaults = b.tuning().unwrap();
    let report = b.maintain(&health_task()).unwrap();
    // dead_brain: the corrected half-life rule moves 80 -> 90 (common::dead_brain)
    let step = report.autotune.as_ref().unwrap();
    assert_eq!((step.before.half_life, step.after.half_life), (80.0, 90.0));
    let name = report.autotune_snapshot.clone().expect("a snapshot first");
    assert!(name.starts_with("before-autotune-"), "{name}");
    let names: Vec<String> = b.snapshots().unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names, vec![name.clone()]);
    // the journal's autotune entry names it
    let entries = b.journal_entries().unwrap().entries;
    let tuned = entries
        .iter()
        .find(|e| e.get("type").and_then(PyValue::as_str) == Some("autotune"))
        .expect("journaled");
    assert_eq!(
        tuned.get("snapshot").and_then(PyValue::as_str),
        Some(name.as_str())
    );
    assert_eq!(b.tuning().unwrap().half_life, 90.0);

    let restored = b.rollback(None).unwrap().snapshot;
    assert_eq!(restored.name, name);
    drop(b);
    let mut b = open(&db);
    assert_eq!(b.tuning().unwrap(), defaults);
    let meta = b.read(|_, m| m.get(TUNING_META_KEY).cloned()).unwrap();
    assert_eq!(meta, None, "the brain had no tuning before maintain");
}

#[test]
fn a_maintain_that_tunes_nothing_takes_no_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = open(&db);
    let report = b.maintain(&health_task()).unwrap();
    // the fixture's only proposal (promotion −1) is clipped at its floor 2: no change
    let step = report.autotune.as_ref().unwrap();
    assert!(!step.changes(), "{:?}", step.clipped);
    assert_eq!(step.after, step.before);
    assert_eq!(report.autotune_snapshot, None);
    assert!(b.snapshots().unwrap().is_empty());
    // a dry run never takes one either
    let dead = common::dead_brain(&dir.path().join("dead")).0;
    let mut b = open(&dead);
    let report = b
        .maintain(&MaintainOptions {
            dry_run: true,
            ..health_task()
        })
        .unwrap();
    assert!(report.autotune.as_ref().unwrap().changes());
    assert_eq!(report.autotune_snapshot, None);
    assert!(b.snapshots().unwrap().is_empty());
}

/// A rollback whose search index cannot be written afterwards (a full disk; here a
/// directory stands where `search.idx` goes) has committed: it answers success, and the
/// brain answers as if the index had been rebuilt, from a stale one too. Before, the
/// command failed although the rollback stood, inviting a second one.
#[test]
fn a_rollback_stands_when_its_index_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let brain_dir = db.parent().unwrap().to_path_buf();
    let idx = brain_dir.join("search.idx");
    let ask = |b: &mut Brain| {
        let a = b
            .query(&crabpath_brain::QueryRequest::new("deploy the service", 4))
            .unwrap();
        a.fired().iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let mut b = open(&db);
    b.snapshot("s").unwrap();
    // a change the rollback undoes: a node added (with its vector)
    b.inject(&common::teaching(
        "teaching::deploy",
        "Deploy the service only after the staging checks pass.",
        2,
    ))
    .unwrap();
    assert!(ask(&mut b).iter().any(|id| id == "teaching::deploy"));
    let stale = std::fs::read(&idx).unwrap();
    std::fs::remove_file(&idx).unwrap();
    std::fs::create_dir_all(idx.join("block")).unwrap();
    b.rollback(Some("s")).unwrap();
    assert!(!b.has_node("teaching::deploy").unwrap());
    drop(b);
    // the index of the state before the rollback is back in place: stale
    std::fs::remove_dir_all(&idx).unwrap();
    std::fs::write(&idx, stale).unwrap();
    let from_stale = ask(&mut open(&db));
    assert!(!from_stale.iter().any(|id| id == "teaching::deploy"));
    std::fs::remove_file(&idx).unwrap();
    let from_fresh = ask(&mut open(&db));
    assert_eq!(from_stale, from_fresh);
}
