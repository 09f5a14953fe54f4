//! The brain database against the graph in memory: every write through the `Brain`
//! service (reading only the rows it needs, writing back only the rows it changed) must
//! leave the brain exactly as the same operations leave a graph in memory — every
//! weight, kind and metadata, and every order the reference relies on (nodes, sources,
//! each source's edges) — whether the writer holds the graph in memory or not; queries
//! that read only part of the graph must answer what the whole graph answers; and
//! `export`/`import` of the reference's `state.json` must round-trip.

use crate::common;

use std::path::Path;

use crabpath::embed::HashEmbedder;
use crabpath::graph::{Graph, Metadata};
use crabpath::profile::Profile;
use crabpath::traverse::Traverser;
use crabpath_brain::reference::embedder::EmbedderInfo;
use crabpath_brain::reference::reffiles::{graph_json, GraphShape};
use crabpath_brain::service::command::learn::learn_ids;
use crabpath_brain::service::command::query::traversal_config;
use crabpath_brain::service::{export_state, full_state, import_state, init_store, InitOptions};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{QueryRequest, Scope};

/// A corrected sync of brain `b` (a database or a state file) with folder `ws`.
fn sync(b: &Path, ws: &Path) -> crabpath_brain::source::sync::SyncReport {
    let event = |_: &crabpath_brain::source::sync::SyncReport| pyformat::pyjson::PyDict::new();
    common::open_hash(b, Profile::Corrected, false)
        .sync(ws, Vec::new(), false, None, &event, Default::default())
        .unwrap()
}

fn text(g: &Graph) -> String {
    graph_json(g, GraphShape::Bare).unwrap()
}

/// The brain's graph as the reference writes it (checking on the way that the node
/// count kept in the database is the graph's).
fn stored(db: &Path) -> String {
    let mut b = common::open_hash(db, Profile::Corrected, false);
    let g = full_state(&mut b).unwrap().graph;
    let kept = crabpath_brain::store::Store::open(db, false)
        .unwrap()
        .node_count()
        .unwrap();
    assert_eq!(kept, g.node_count(), "the node count kept in the brain row");
    text(&g)
}

/// SplitMix64: a seeded stream for the operations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn writes_leave_the_brain_as_the_graph_in_memory() {
    for profile in Profile::ALL {
        for resident in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let (mut mem, db) = common::fixture_brain(dir.path());
            let ids: Vec<String> = mem.nodes().map(|(_, n)| n.id.clone()).collect();
            let mut b = common::open_hash(&db, profile, resident);
            let mut rng = Rng(7 + resident as u64 * 31 + profile as u64);
            for step in 0..120 {
                match rng.below(10) {
                    // learn along a random path (the paper profile also on an unknown
                    // id: a dangling edge)
                    0..=6 => {
                        let len = 2 + rng.below(3);
                        let mut path: Vec<String> = (0..len)
                            .map(|_| ids[rng.below(ids.len())].clone())
                            .collect();
                        if profile == Profile::Paper && rng.below(8) == 0 {
                            path.push(format!("ghost-{step}"));
                        }
                        let outcome = if rng.below(3) == 0 { -1.0 } else { 1.0 };
                        let m = learn_ids(&mut mem, &path, outcome, profile);
                        let s = b.learn(&path, outcome);
                        assert_eq!(m.is_ok(), s.is_ok(), "step {step}");
                        if let (Ok(m), Ok(s)) = (m, s) {
                            assert_eq!(m, s, "step {step}");
                        }
                    }
                    // anything else, in one write: here decay, pruning and the removal
                    // of a node (deletions reorder nothing that survives)
                    7 => {
                        let victim = ids[rng.below(ids.len())].clone();
                        let op = |g: &mut Graph| {
                            crabpath::decay::apply_decay(g, &crabpath::DecayConfig::default());
                            crabpath::maintain::prune_edges(g, 0.3);
                            if let Some(n) = g.lookup(&victim) {
                                g.remove_node(n);
                            }
                        };
                        op(&mut mem);
                        b.write(Scope::All, |w| {
                            op(w.graph);
                            Ok(())
                        })
                        .unwrap();
                    }
                    // a node changed in place and a new node with edges both ways
                    _ => {
                        let a = ids[rng.below(ids.len())].clone();
                        let new = format!("taught-{step}");
                        let op = |g: &mut Graph| {
                            if let Some(n) = g.lookup(&a).filter(|&n| g.has_node(n)) {
                                g.node_mut(n)
                                    .unwrap()
                                    .metadata
                                    .insert("authority".into(), "canonical".into());
                                let m = g.add_node(crabpath::Node::new(&new, "new text"));
                                g.add_edge(m, n, crabpath::Edge::new(0.4)).unwrap();
                                g.add_edge(n, m, crabpath::Edge::new(0.3)).unwrap();
                            }
                        };
                        op(&mut mem);
                        let scope = [a.clone(), new.clone()];
                        b.write(Scope::Nodes(&scope), |w| {
                            op(w.graph);
                            Ok(())
                        })
                        .unwrap();
                    }
                }
                if step % 20 == 19 {
                    assert_eq!(
                        stored(&db),
                        text(&mem),
                        "{profile} resident={resident} step {step}"
                    );
                    if resident {
                        let held = b.read(|g, _| text(g)).unwrap();
                        assert_eq!(held, text(&mem), "resident copy, step {step}");
                    }
                }
            }
            assert_eq!(stored(&db), text(&mem));
        }
    }
}

#[test]
fn a_resident_brain_sees_other_processes_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (mut mem, db) = common::fixture_brain(dir.path());
    let ids: Vec<String> = mem.nodes().map(|(_, n)| n.id.clone()).collect();
    let mut daemon = common::open_hash(&db, Profile::Corrected, true);
    let mut other = common::open_hash(&db, Profile::Corrected, false);
    for (k, w) in ids.windows(3).take(30).enumerate() {
        let path = w.to_vec();
        // the other process learns; the daemon learns on top of it
        learn_ids(&mut mem, &path, 1.0, Profile::Corrected).unwrap();
        other.learn(&path, 1.0).unwrap();
        let back: Vec<String> = path.iter().rev().cloned().collect();
        learn_ids(
            &mut mem,
            &back,
            if k % 2 == 0 { 1.0 } else { -1.0 },
            Profile::Corrected,
        )
        .unwrap();
        daemon
            .learn(&back, if k % 2 == 0 { 1.0 } else { -1.0 })
            .unwrap();
    }
    assert_eq!(stored(&db), text(&mem));
    assert_eq!(daemon.read(|g, _| text(g)).unwrap(), text(&mem));
}

#[test]
fn a_query_reads_part_of_the_graph_and_answers_as_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(dir.path());
    // some learned edges, so that traversals go several hops
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    let ids: Vec<String> = b
        .read(|g, _| g.nodes().map(|(_, n)| n.id.clone()).collect())
        .unwrap();
    for w in ids.windows(4).step_by(3) {
        b.learn(w, 1.0).unwrap();
        b.learn(w, 1.0).unwrap();
    }
    let mut resident = common::open_hash(&db, Profile::Corrected, true);
    for q in [
        "deploy checks",
        "rollback on-call",
        "data pipeline",
        "config service",
    ] {
        // a fixed graph: a question's `auto:` node would join the second answer
        let mut req = QueryRequest::new(q, 5);
        req.neurogenesis = Some(false);
        let (lazy_fired, lazy_ctx, lazy_hits) = {
            let a = b.query(&req).unwrap();
            (
                a.fired().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                a.context(),
                a.hits.clone(),
            )
        };
        let a = resident.query(&req).unwrap();
        let fired: Vec<String> = a.fired().iter().map(|s| s.to_string()).collect();
        assert_eq!(lazy_hits, a.hits, "{q}");
        assert_eq!(lazy_fired, fired, "{q}");
        assert_eq!(lazy_ctx, a.context(), "{q}");
        // and the whole graph with the same seeds
        let st = full_state(&mut common::open_hash(&db, Profile::Corrected, false)).unwrap();
        let seeds: Vec<_> = a
            .hits
            .iter()
            .filter_map(|(id, s)| st.graph.lookup(id).map(|n| (n, *s)))
            .collect();
        let r = Traverser::new()
            .traverse(
                &st.graph,
                &seeds,
                &traversal_config(Profile::Corrected, None),
            )
            .unwrap();
        let whole: Vec<&str> = r.fired_names(&st.graph);
        assert_eq!(whole, a.fired(), "{q}");
    }
}

#[test]
fn export_and_import_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(&dir.path().join("a"));
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    let ids: Vec<String> = b
        .read(|g, _| g.nodes().map(|(_, n)| n.id.clone()).collect())
        .unwrap();
    b.learn(&ids[..3], 1.0).unwrap();
    let one = dir.path().join("one.json");
    export_state(&mut b, &one).unwrap();
    import_state(&one, &dir.path().join("b"), &[EmbedderInfo::hash_v1()]).unwrap();
    let mut b2 = common::open_hash(&dir.path().join("b/brain.db"), Profile::Corrected, false);
    let two = dir.path().join("two.json");
    export_state(&mut b2, &two).unwrap();
    let strip = |p: &Path| {
        let t = std::fs::read_to_string(p).unwrap();
        // created_at is the brain's; node_count and the rest must match exactly
        t
    };
    assert_eq!(strip(&one), strip(&two));
    // the state file opens as a brain too, with the same graph and vectors
    let mut js = common::open_hash(&one, Profile::Corrected, false);
    let st = full_state(&mut js).unwrap();
    let st2 = full_state(&mut b2).unwrap();
    assert_eq!(text(&st.graph), text(&st2.graph));
    assert_eq!(st.index, st2.index);
}

/// Copies a directory tree.
fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to);
        } else if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

#[test]
fn a_sync_that_reads_only_the_changed_files_does_what_a_full_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_tree(&common::fixtures(), &ws);
    let boot = split_workspace(&ws, &SplitOptions::new(Profile::Corrected)).unwrap();
    let e = HashEmbedder::new();
    let opts = InitOptions {
        embedder: &e,
        info: EmbedderInfo::hash_v1(),
        parallel: false,
        progress: None,
    };
    let mut extra = Metadata::new();
    extra.insert(
        crabpath_brain::source::sync::SYNC_FILES_KEY.into(),
        crabpath_brain::source::sync::file_records(&ws, boot.files.iter().map(|f| f.rel.as_str())),
    );
    let db_dir = dir.path().join("brain");
    init_store(&db_dir, &boot.graph, &opts, extra, Vec::new()).unwrap();
    let db = db_dir.join("brain.db");
    // a state file of the same brain, synced with the whole graph in memory
    let json = dir.path().join("state.json");
    export_state(
        &mut common::open_hash(&db, Profile::Corrected, false),
        &json,
    )
    .unwrap();
    // some learning across files, then edits: a changed file, a new one, a deleted one
    let ids = ["README.md::1", "docs/runbook.md::0", "notes.txt::1"].map(String::from);
    for b in [db.as_path(), json.as_path()] {
        common::open_hash(b, Profile::Corrected, false)
            .learn(&ids, 1.0)
            .unwrap();
    }
    std::fs::write(
        ws.join("README.md"),
        "# Orchard Notes\n\nShorter now.\n\n## Deploy\n\nRun the deploy checklist.\n",
    )
    .unwrap();
    std::fs::write(ws.join("new.md"), "# New\n\nA new page.\n").unwrap();
    std::fs::remove_file(ws.join("notes.txt")).unwrap();
    let reports = [db.as_path(), json.as_path()].map(|b| sync(b, &ws));
    assert_eq!(reports[0], reports[1]);
    assert!(
        reports[0].nodes_removed > 0 && reports[0].nodes_added > 0,
        "{:?}",
        reports[0]
    );
    let a = full_state(&mut common::open_hash(&db, Profile::Corrected, false)).unwrap();
    let b = full_state(&mut common::open_hash(&json, Profile::Corrected, false)).unwrap();
    assert_eq!(text(&a.graph), text(&b.graph));
    assert_eq!(a.meta.get("sync_files"), b.meta.get("sync_files"));
    // an unchanged folder: nothing re-split, nothing written
    let again = sync(&db, &ws);
    assert_eq!(
        (again.files_resplit, again.nodes_unchanged),
        (0, a.graph.node_count())
    );
}

/// A brain without the record of its files (made before it was kept, or by another
/// tool) whose folder lost a file: its first sync removes the file's chunks in a
/// database brain, which reads only part of the graph, as in the whole graph of its
/// state file. Before, the database brain kept them (the deleted file was neither
/// re-split nor recorded, and no edge led from it into a re-split one).
#[test]
fn a_first_sync_without_a_record_removes_a_deleted_files_chunks_as_a_full_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_tree(&common::fixtures(), &ws);
    let boot = split_workspace(&ws, &SplitOptions::new(Profile::Corrected)).unwrap();
    let db = common::hash_store(&dir.path().join("brain"), &boot.graph);
    let json = dir.path().join("state.json");
    export_state(
        &mut common::open_hash(&db, Profile::Corrected, false),
        &json,
    )
    .unwrap();
    std::fs::remove_file(ws.join("notes.txt")).unwrap();
    let reports = [db.as_path(), json.as_path()].map(|b| sync(b, &ws));
    assert!(reports[0].nodes_removed > 0, "{:?}", reports[0]);
    assert_eq!(reports[0], reports[1]);
    let a = full_state(&mut common::open_hash(&db, Profile::Corrected, false)).unwrap();
    let b = full_state(&mut common::open_hash(&json, Profile::Corrected, false)).unwrap();
    assert_eq!(text(&a.graph), text(&b.graph));
}
