//! One test per fix of the `corrected` profile, each checking the reference's behaviour
//! (`paper`, the "before") and the fixed one (the "after") through the program, as a
//! user meets them. The fixes are listed with the same before/after in the crate docs
//! (`src/main.rs`) and in the core modules that implement them.

use crate::common;

use std::path::Path;

use crabpath::State;

/// The whole brain at `path` (a brain directory or a file in it), whatever holds it.
fn load_state(path: impl AsRef<Path>) -> crabpath_brain::Result<State> {
    let loc = crabpath_brain::locate(path.as_ref());
    let mut brain = crabpath_brain::Brain::open(
        loc,
        crabpath_brain::OpenOptions::new(crabpath::Profile::Corrected),
    )?;
    crabpath_brain::service::full_state(&mut brain)
}

/// A brain of the fixture workspace in `dir/<out>` (as `init` makes it in `profile`).
fn init(dir: &Path, profile: &str, out: &str) {
    if !dir.join("ws").exists() {
        common::copy_tree(&common::fixtures().join("workspace"), &dir.join("ws"));
    }
    let (rc, _, err) = common::run_text(
        dir,
        profile,
        &["init", "--workspace", "ws", "--output", out],
    );
    assert_eq!(rc, 0, "{err}");
}

fn ok(dir: &Path, profile: &str, args: &[&str]) -> String {
    let (rc, out, err) = common::run_text(dir, profile, args);
    assert_eq!(rc, 0, "{profile} {args:?}: {err}");
    out
}

fn state(dir: &Path, out: &str) -> State {
    load_state(dir.join(out).join("state.json")).unwrap()
}

fn weight(st: &State, a: &str, b: &str) -> Option<f64> {
    st.graph.weight(st.graph.lookup(a)?, st.graph.lookup(b)?)
}

const CORRECTION: &str = "Never deploy to production on Fridays";

#[test]
fn corrections_inhibit() {
    // before: correction edges end at 0.0, are never inhibitory in traversal, and the
    // targets of an active correction still fire; after: −0.5 × similarity, vetoed
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for p in ["paper", "corrected"] {
        init(d, p, p);
        let s = format!("{p}/state.json");
        ok(
            d,
            p,
            &[
                "inject",
                "--state",
                &s,
                "--id",
                "fix::1",
                "--content",
                CORRECTION,
                "--type",
                "CORRECTION",
            ],
        );
    }
    let (paper, corrected) = (state(d, "paper"), state(d, "corrected"));
    let fix = paper.graph.lookup("fix::1").unwrap();
    let targets: Vec<String> = paper
        .graph
        .outgoing(fix)
        .map(|(t, _)| paper.graph.name(t).to_string())
        .collect();
    assert_eq!(targets.len(), 3);
    for t in &targets {
        assert_eq!(weight(&paper, "fix::1", t), Some(0.0));
        let sim = weight(&corrected, t, "fix::1").unwrap();
        assert_eq!(weight(&corrected, "fix::1", t), Some(-0.5 * sim));
        assert!(-0.5 * sim <= -0.01, "{t}: {sim}");
    }
    // a query the correction answers: it seeds, and its targets are vetoed
    let fired = |p: &str| -> Vec<String> {
        let out = ok(
            d,
            p,
            &[
                "query",
                CORRECTION,
                "--state",
                &format!("{p}/state.json"),
                "--top",
                "5",
                "--json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["fired"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let (before, after) = (fired("paper"), fired("corrected"));
    assert!(before.contains(&"fix::1".to_string()) && after.contains(&"fix::1".to_string()));
    let vetoed_before = targets.iter().filter(|t| !before.contains(t)).count();
    let vetoed_after = targets.iter().filter(|t| !after.contains(t)).count();
    assert!(vetoed_after > vetoed_before, "{before:?} vs {after:?}");
    // --explain names the veto
    let out = ok(
        d,
        "corrected",
        &[
            "query",
            CORRECTION,
            "--state",
            "corrected/state.json",
            "--top",
            "5",
            "--explain",
        ],
    );
    assert!(
        out.contains("-[inhibitory -0.") && out.contains("(vetoed)"),
        "{out}"
    );
    // and maintenance no longer prunes the corrections away
    let pruned = |p: &str| {
        let out = ok(
            d,
            p,
            &[
                "maintain",
                "--state",
                &format!("{p}/state.json"),
                "--dry-run",
                "--json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["pruned_edges"].as_u64().unwrap()
    };
    assert!(pruned("paper") >= 3);
    assert_eq!(pruned("corrected"), 0);
}

fn daily_notes(d: &Path) {
    std::fs::create_dir_all(d.join("mem")).unwrap();
    let mut note = String::from(
        "# Rollback\nIf error rates climb above two percent, roll back with `orchard rollback` and page the on-call engineer.\n# Incidents\npager went off\n",
    );
    for i in 0..20 {
        note.push_str(&format!("line {i}\n"));
    }
    std::fs::write(d.join("mem/2020-01-01.md"), note).unwrap();
}

#[test]
fn maintain_connect_task_works() {
    // before: NameError once learning nodes and vectors exist; after: they are connected
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    daily_notes(d);
    for p in ["paper", "corrected"] {
        init(d, p, p);
        let s = format!("{p}/state.json");
        std::fs::copy(d.join("mem/2020-01-01.md"), d.join(format!("{p}-note.md"))).unwrap();
        ok(d, p, &["compact", "--state", &s, "--memory-dir", "mem"]);
        std::fs::copy(d.join(format!("{p}-note.md")), d.join("mem/2020-01-01.md")).unwrap();
        let (rc, out, err) = common::run_text(
            d,
            p,
            &["maintain", "--state", &s, "--tasks", "connect", "--json"],
        );
        if p == "paper" {
            assert_eq!(rc, 1);
            assert_eq!(
                err.trim(),
                "NameError: name 'apply_connections' is not defined"
            );
        } else {
            assert_eq!(rc, 0, "{err}");
            assert!(!out.contains("connect skipped"), "{out}");
            // the learning nodes are linked to their nearest workspace nodes by the
            // connect task (weight max(0.35, similarity), metadata source `connect`)
            let st = state(d, p);
            let linked = st
                .graph
                .edges()
                .filter(|(s, _, e)| {
                    st.graph.name(*s).starts_with("learning::")
                        && e.weight >= 0.35
                        && e.metadata.get("source").and_then(|v| v.as_str()) == Some("connect")
                })
                .count();
            assert!(linked > 0, "{out}");
        }
    }
}

#[test]
fn sync_keeps_learned_weights() {
    // before: an unchanged sync resets a learned sibling edge to its initial weight;
    // after: kept, and no file is re-read on the second sync
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = ("README.md::1", "README.md::2");
    for p in ["paper", "corrected"] {
        init(d, p, p);
        let s = format!("{p}/state.json");
        let initial = weight(&state(d, p), a, b).unwrap();
        ok(
            d,
            p,
            &[
                "learn",
                "--state",
                &s,
                "--outcome",
                "1",
                "--fired-ids",
                &format!("{a},{b}"),
            ],
        );
        let learned = weight(&state(d, p), a, b).unwrap();
        // the outcome's +0.095, plus Hebbian co-firing's +0.06 in the paper profile
        // only (corrected: co-firing stops at 0.4, `crabpath::profile` fix 11)
        let step = if p == "paper" { 0.155 } else { 0.095 };
        assert!(
            (learned - (initial + step)).abs() < 1e-12,
            "{p}: {initial} -> {learned}"
        );
        let out = ok(d, p, &["sync", "--state", &s, "--workspace", "ws"]);
        let after = weight(&state(d, p), a, b).unwrap();
        if p == "paper" {
            assert_eq!(after, initial, "{out}");
        } else {
            assert_eq!(after, learned, "{out}");
            let out = ok(
                d,
                p,
                &["sync", "--state", &s, "--workspace", "ws", "--json"],
            );
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["files_resplit"], 0, "{out}");
            assert_eq!(v["embeddings_computed"], 0, "{out}");
        }
    }
}

#[test]
fn directories_are_sorted() {
    // before: subdirectories in the order the file system lists them; after: sorted
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("ws")).unwrap();
    for name in ["zz", "aa", "mm", "kk", "bb"] {
        std::fs::create_dir_all(d.join("ws").join(name)).unwrap();
        std::fs::write(
            d.join("ws").join(name).join("n.md"),
            format!("note {name}\n"),
        )
        .unwrap();
    }
    let listed: Vec<String> = std::fs::read_dir(d.join("ws"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    for p in ["paper", "corrected"] {
        init(d, p, p);
        let ids: Vec<String> = state(d, p)
            .graph
            .nodes()
            .map(|(_, n)| n.id.split('/').next().unwrap().to_string())
            .collect();
        if p == "paper" {
            assert_eq!(ids, listed);
        } else {
            let mut sorted = listed.clone();
            sorted.sort();
            assert_eq!(ids, sorted);
        }
    }
}

#[test]
fn tilde_is_expanded_everywhere() {
    // before: `health --state ~/b/state.json` fails (FileNotFoundError); after: works
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "paper", "b");
    for p in ["paper", "corrected"] {
        let o = std::process::Command::new(common::bin())
            .args(["health", "--state", "~/b/state.json"])
            .current_dir(d)
            .env("HOME", d)
            .env("CRABPATH_PROFILE", p)
            .output()
            .unwrap();
        assert_eq!(o.status.success(), p == "corrected", "{p}: {o:?}");
    }
}

/// A brain in `dir/<profile>` where `README.md::0` and `README.md::1` always fire
/// together, four successes in each order: a merge candidate (both edges ≥ 0.8) in
/// both profiles (corrected: +0.095 per success, Hebbian co-firing stops at 0.4,
/// `crabpath::profile` fix 11); its state path.
fn co_fired(d: &Path, p: &str) -> String {
    init(d, p, p);
    let s = format!("{p}/state.json");
    let orders = ["README.md::0,README.md::1", "README.md::1,README.md::0"];
    for ids in orders.iter().flat_map(|o| [o; 4]) {
        ok(
            d,
            p,
            &["learn", "--state", &s, "--outcome", "1", "--fired-ids", ids],
        );
    }
    s
}

#[test]
fn maintain_merges_keep_the_index_fresh() {
    // fix M2 of `maintain` (as G1 of `merge`): before, the merged ids keep their
    // vectors and the merged node has none; after, the index follows the merge
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for p in ["paper", "corrected"] {
        let s = co_fired(d, p);
        let out = ok(
            d,
            p,
            &["maintain", "--state", &s, "--tasks", "merge", "--json"],
        );
        let st = state(d, p);
        assert!(
            st.graph.lookup("README.md::0").is_none(),
            "{p}: no merge: {out}"
        );
        let stale = st.index.contains("README.md::0") || st.index.contains("README.md::1");
        assert_eq!(stale, p == "paper", "{p}: {out}");
        let orphans = st
            .graph
            .nodes()
            .filter(|(_, n)| !st.index.contains(&n.id))
            .count();
        assert_eq!(orphans, if p == "paper" { 1 } else { 0 }, "{p}: {out}");
    }
}

#[test]
fn merge_keeps_the_index_fresh() {
    // before: the merged node has no vector and the merged ids keep theirs (2 of 3
    // seeds survive); after: the index follows the merge
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for p in ["paper", "corrected"] {
        let s = co_fired(d, p);
        let out = ok(d, p, &["merge", "--state", &s, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let merged = v["applied"][0]["to"][0].as_str().unwrap().to_string();
        let st = state(d, p);
        let stale = st.index.contains("README.md::0") || st.index.contains("README.md::1");
        assert_eq!(stale, p == "paper");
        assert_eq!(st.index.contains(&merged), p == "corrected");
        assert_eq!(
            st.index.len(),
            st.graph.node_count() + if p == "paper" { 1 } else { 0 }
        );
    }
}

#[test]
fn gitignore_follows_git() {
    // before: `/ign.md` skips `gn.md` and keeps `ign.md`, `.env.md` skips `env.md`;
    // after: git's rules (the fixture's .gitignore)
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for p in ["paper", "corrected"] {
        init(d, p, p);
        let st = state(d, p);
        let has = |id: &str| st.graph.get_node(id).is_some();
        if p == "paper" {
            assert!(has("ign.md::0") && !has("gn.md::0") && !has("env.md::0"));
        } else {
            assert!(!has("ign.md::0") && has("gn.md::0") && has("env.md::0"));
        }
    }
}

#[test]
fn learn_refuses_unknown_ids_and_non_finite_outcomes() {
    // before: `zzz` gets a dangling edge, NaN drives the edge to 1.0; after: errors
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for p in ["paper", "corrected"] {
        init(d, p, p);
        let s = format!("{p}/state.json");
        let edges = state(d, p).graph.edge_count();
        let (rc, _, _) = common::run_text(
            d,
            p,
            &[
                "learn",
                "--state",
                &s,
                "--outcome",
                "1",
                "--fired-ids",
                "README.md::2,zzz",
            ],
        );
        let (rc2, _, _) = common::run_text(
            d,
            p,
            &[
                "learn",
                "--state",
                &s,
                "--outcome",
                "nan",
                "--fired-ids",
                "README.md::0,README.md::1",
            ],
        );
        let st = state(d, p);
        if p == "paper" {
            assert_eq!((rc, rc2), (0, 0));
            assert_eq!(st.graph.edge_count(), edges + 1);
            assert_eq!(weight(&st, "README.md::0", "README.md::1"), Some(1.0));
        } else {
            assert_eq!((rc, rc2), (1, 1));
            assert_eq!(st.graph.edge_count(), edges);
        }
    }
}

#[test]
fn doctor_counts_and_explains() {
    // before: a healthy state scores 8/9, a bare-graph state fails graph_has_nodes;
    // after: 9/9 (10/10 with the index coverage check), bare graphs pass, failures
    // say what to do
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "paper", "b");
    let summary = |p: &str, s: &str| {
        let (rc, out, _) = common::run_text(d, p, &["doctor", "--state", s]);
        (rc, out.lines().last().unwrap_or_default().to_string(), out)
    };
    assert_eq!(
        summary("paper", "b/state.json").1,
        "Summary: 8/9 checks passed"
    );
    assert_eq!(
        summary("corrected", "b/state.json").1,
        "Summary: 10/10 checks passed"
    );
    let st = state(d, "b");
    let bare = serde_json::to_string(&st.graph.to_file()).unwrap();
    std::fs::write(d.join("bare.json"), bare).unwrap();
    let (rc, _, out) = summary("paper", "bare.json");
    assert_eq!(rc, 1);
    assert!(out.contains("graph_has_nodes: FAIL (nodes=80)"), "{out}");
    let (_, _, out) = summary("corrected", "bare.json");
    assert!(out.contains("graph_has_nodes: PASS (nodes=80)"), "{out}");
    assert!(out.contains("what to do:"), "{out}");
}

#[test]
fn info_reports_this_program() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "paper", "b");
    assert!(ok(d, "paper", &["info", "--state", "b/state.json"]).starts_with("version: 10.4.0\n"));
    assert!(
        ok(d, "corrected", &["info", "--state", "b/state.json"]).starts_with("version: crabpath ")
    );
}

#[test]
fn snapshot_and_rollback_undo_learning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected", "b");
    let s = "b/state.json";
    let edges = |d: &Path| {
        let st = state(d, "b");
        st.graph
            .edges()
            .map(|(a, b, e)| {
                (
                    st.graph.name(a).to_string(),
                    st.graph.name(b).to_string(),
                    e.weight,
                )
            })
            .collect::<Vec<_>>()
    };
    let original = edges(d);
    ok(
        d,
        "corrected",
        &["snapshot", "--state", s, "--name", "fresh"],
    );
    ok(
        d,
        "corrected",
        &[
            "learn",
            "--state",
            s,
            "--outcome",
            "-1",
            "--fired-ids",
            "README.md::0,README.md::1",
        ],
    );
    assert_ne!(edges(d), original);
    let out = ok(d, "corrected", &["snapshot", "--state", s, "--list"]);
    assert!(out.starts_with("fresh"), "{out}");
    ok(d, "corrected", &["rollback", "--state", s, "--to", "fresh"]);
    assert_eq!(edges(d), original);
}

#[test]
fn every_flag_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let subcommands = [
        "init",
        "query",
        "learn",
        "merge",
        "anchor",
        "connect",
        "maintain",
        "compact",
        "daemon",
        "inject",
        "replay",
        "health",
        "journal",
        "doctor",
        "info",
        "sync",
        "snapshot",
        "rollback",
        "fetch-model",
    ];
    for sub in subcommands {
        let out = ok(dir.path(), "corrected", &[sub, "--help"]);
        let mut lines = out.lines().peekable();
        while let Some(l) = lines.next() {
            let t = l.trim_start();
            if !t.starts_with("--") || t.starts_with("--help") {
                continue;
            }
            // clap puts the description on the same line or on the next, indented
            let same = t.split_once("  ").map(|x| x.1.trim()).unwrap_or("");
            let next = lines.peek().map(|n| n.trim()).unwrap_or("");
            assert!(
                !same.is_empty() || (!next.is_empty() && !next.starts_with('-')),
                "{sub}: `{t}` has no explanation\n{out}"
            );
        }
    }
}

#[test]
fn another_embedder_is_a_clear_error() {
    // before: the reference embeds with whatever `--embedder` says and scores vectors
    // of another model (or of another length: every score 0.0, nothing fires); after:
    // a state records its embedder and a mismatch is refused
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected", "b");
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "query",
            "deploy",
            "--state",
            "b/state.json",
            "--embedder",
            "minilm",
        ],
    );
    assert_eq!(rc, 1);
    assert!(
        err.contains("hash-v1 (dim=1024)") && err.contains("all-MiniLM-L6-v2 (dim=384)"),
        "{err}"
    );
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &[
            "query",
            "deploy",
            "--state",
            "b/state.json",
            "--embedder",
            "openai",
        ],
    );
    assert_eq!(rc, 1);
    assert!(err.contains("offline"), "{err}");
}

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 weights (cargo run -p crabpath-embed -- fetch-model); run with: cargo test --workspace -- --ignored"]
fn minilm_brains_work_end_to_end() {
    let model = crabpath_embed::resolve_model_dir(None);
    testdata::external(
        "the all-MiniLM-L6-v2 weights",
        "cargo run -p crabpath-embed -- fetch-model (or set CRABPATH_MODEL_DIR)",
        crabpath_embed::model::check_model_dir(&model),
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::copy_tree(&common::fixtures().join("workspace"), &d.join("ws"));
    let run = |args: &[&str]| {
        let o = std::process::Command::new(common::bin())
            .args(args)
            .current_dir(d)
            .env("CRABPATH_MODEL_DIR", &model)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (_, err) = run(&[
        "init",
        "--workspace",
        "ws",
        "--output",
        "b",
        "--embedder",
        "minilm",
    ]);
    assert!(err.contains("all-MiniLM-L6-v2, dim=384"), "{err}");
    let st = state(d, "b");
    assert_eq!(st.index.dim(), Some(384));
    assert_eq!(st.meta["embedder_name"], "all-MiniLM-L6-v2");
    // the state's embedder is used by default
    let (out, _) = run(&[
        "query",
        "how do I roll back a release",
        "--state",
        "b/state.json",
        "--top",
        "3",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["fired"].as_array().is_some_and(|f| !f.is_empty()),
        "{out}"
    );
    // and hash-v1 is refused
    let o = std::process::Command::new(common::bin())
        .args([
            "query",
            "x",
            "--state",
            "b/state.json",
            "--embedder",
            "hash",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(!o.status.success());
}

/// `compact` keeps each note as it was before rewriting it (corrected profile). Before,
/// a 40-line note was cut to its first 15 lines and only its first 20 became nodes:
/// the other 20 lines were gone, from the note and from the brain, with no way back.
#[test]
fn compact_keeps_each_note_it_rewrites() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init(d, "corrected", "brain");
    std::fs::create_dir_all(d.join("mem")).unwrap();
    let note: String = (0..40)
        .map(|i| format!("- meeting {i}: we decided to ship release {i} on Friday\n"))
        .collect();
    std::fs::write(d.join("mem/2020-01-01.md"), &note).unwrap();
    let args = ["compact", "--state", "brain", "--memory-dir", "mem"];
    ok(d, "corrected", &args);
    let compacted = std::fs::read_to_string(d.join("mem/2020-01-01.md")).unwrap();
    assert!(compacted.lines().count() < 40, "{compacted}");
    let kept = std::fs::read_to_string(d.join("mem/.compacted/2020-01-01.md"))
        .expect("the note as it was is kept");
    assert_eq!(kept, note);
    // compacted again (a longer target), the first copy stays and the second is beside it
    std::fs::write(d.join("mem/2020-01-01.md"), &note).unwrap();
    ok(
        d,
        "corrected",
        &[&args[..], &["--target-lines", "30"]].concat(),
    );
    assert_eq!(
        std::fs::read_to_string(d.join("mem/.compacted/2020-01-01.md.2")).unwrap(),
        note
    );
    assert_eq!(
        std::fs::read_to_string(d.join("mem/.compacted/2020-01-01.md")).unwrap(),
        note
    );
}

/// The three files of the forget tests below: b.md shares no word with the others.
const FORGET_FILES: [(&str, &str); 3] = [
    ("a.md", "# Ship\n\nWe ship the release on Friday after the checks.\n\nThe release notes go to the team list.\n"),
    ("b.md", "# Vault\n\nZebra vault combination stays offline.\n\nRotate the zebra vault yearly.\n"),
    ("c.md", "# Meetings\n\nThe weekly meeting decides the release scope.\n\nMeeting notes live in the wiki.\n"),
];

/// X (`d/x`: files a, b, c) and Y (`d/y`: a and c), each built by `build(root, with_b)`
/// from its `ws` and then taught `learns` (those naming b.md in X only); X then forgets
/// b.md. Returns the forget's JSON report and the two exported graphs.
fn forget_b_cli(
    d: &Path,
    build: impl Fn(&Path, bool),
    learns: &[&str],
) -> (serde_json::Value, serde_json::Value, serde_json::Value) {
    for (name, with_b) in [("x", true), ("y", false)] {
        let root = d.join(name);
        std::fs::create_dir_all(root.join("ws")).unwrap();
        for (f, text) in FORGET_FILES {
            if with_b || f != "b.md" {
                std::fs::write(root.join("ws").join(f), text).unwrap();
            }
        }
        build(&root, with_b);
        for fired in learns.iter().filter(|f| with_b || !f.contains("b.md")) {
            let args = [
                "learn",
                "--state",
                "b",
                "--outcome",
                "1",
                "--fired-ids",
                fired,
            ];
            ok(&root, "corrected", &args);
        }
    }
    let args = ["forget", "--state", "b", "--file", "b.md", "--json"];
    let r = serde_json::from_str(&ok(&d.join("x"), "corrected", &args)).unwrap();
    let export = |name: &str| -> serde_json::Value {
        let root = d.join(name);
        ok(
            &root,
            "corrected",
            &["export", "--state", "b", "--output", "out.json"],
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("out.json")).unwrap()).unwrap();
        v["graph"].clone()
    };
    (r, export("x"), export("y"))
}

/// `compact` journals each fact node it injects (with its neighbours), so that
/// `forget`'s replay brings them back where they were made: X (files a, b, c) and Y (a
/// and c) compact the same note and learn the same, X through b too; X forgets b and
/// equals Y edge for edge. Before, the `compact_daily_notes` entry stopped the replay
/// (weights kept).
#[test]
fn forget_replays_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let note: String = (0..24)
        .map(|i| format!("- meeting {i}: we decided to ship release {i} on Friday\n"))
        .collect();
    let build = |root: &Path, _: bool| {
        std::fs::create_dir_all(root.join("mem")).unwrap();
        std::fs::write(root.join("mem/2020-01-01.md"), &note).unwrap();
        ok(
            root,
            "corrected",
            &["init", "--workspace", "ws", "--output", "b"],
        );
        let args = ["compact", "--state", "b", "--memory-dir", "mem"];
        let out = ok(root, "corrected", &args);
        assert!(!out.contains("nodes_injected: 0"), "{out}");
    };
    let learns = [
        "a.md::1,c.md::1",
        "b.md::1,a.md::1",
        "c.md::2,a.md::2,a.md::1",
    ];
    let (r, gx, gy) = forget_b_cli(dir.path(), build, &learns);
    assert!(r["replayed"].as_u64().is_some(), "{r}");
    assert!(
        gx["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["id"].as_str().unwrap().starts_with("learning::compact::")),
        "the facts are nodes"
    );
    assert_eq!(gx, gy);
}

/// `init --sessions` and `replay` learn from session logs the journal does not hold;
/// the corrected profile journals their learning updates (episodes), so `forget`'s
/// replay repeats them: X (a, b, c; built with sessions, then a replay) forgets b and
/// equals Y (a, c; the same). Before, `init --sessions` journaled nothing (a forget
/// silently rebuilt the weights without what init learned) and a `replay` entry
/// stopped the replay.
#[test]
fn forget_replays_session_learning() {
    let dir = tempfile::tempdir().unwrap();
    let log = |queries: &[&str]| -> String {
        queries
            .iter()
            .map(|q| format!("{{\"role\": \"user\", \"content\": \"{q}\"}}\n"))
            .collect()
    };
    let build = |root: &Path, _: bool| {
        let s1 = log(&["release notes friday", "weekly meeting release scope"]);
        let s2 = log(&["meeting notes wiki", "ship release checks", "rotate vault"]);
        std::fs::write(root.join("s1.jsonl"), s1).unwrap();
        std::fs::write(root.join("s2.jsonl"), s2).unwrap();
        let init = [
            "init",
            "--workspace",
            "ws",
            "--output",
            "b",
            "--sessions",
            "s1.jsonl",
        ];
        ok(root, "corrected", &init);
        ok(
            root,
            "corrected",
            &["replay", "--state", "b", "--sessions", "s2.jsonl"],
        );
    };
    let (r, gx, gy) = forget_b_cli(dir.path(), build, &["a.md::1,c.md::1", "b.md::1,a.md::1"]);
    // the init's replay, the replay command (less its episode through b, "rotate
    // vault", which Y's replay learned nothing from: no node of Y has those words), one
    // learn
    assert_eq!(r["replayed"], 3, "{r}");
    // the sessions learned something beyond init's chains
    let learned = gx["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["source"].as_str().unwrap().starts_with("a.md")
                && e["target"].as_str().unwrap().starts_with("c.md")
        })
        .count();
    assert!(learned > 0, "{gx}");
    assert_eq!(gx, gy);
}
