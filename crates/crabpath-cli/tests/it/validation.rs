//! Issue 33, items 7, 9 and 10: `import` checks the whole state file and names the JSON
//! path of its first problem; option values are checked (finite, in range, known names,
//! not empty), naming the option; and the words a user reads say one thing once
//! (`inject` of an existing id, `save` of a deleted brain, a read-only brain, doubled
//! OS errors). Each case ran on the code before the fix and passed (rc 0, or the
//! wrong words); the comment above each says what it did.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

/// A corrected brain of the fixture workspace in `d/b`, and its export `d/s.json`.
fn brain_and_export(d: &Path) -> Value {
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &["init", "--workspace", "ws", "--output", "b"],
    );
    assert_eq!(rc, 0, "{err}");
    let (rc, _, err) = common::run_text(
        d,
        "corrected",
        &["export", "--state", "b", "--output", "s.json"],
    );
    assert_eq!(rc, 0, "{err}");
    serde_json::from_slice(&std::fs::read(d.join("s.json")).unwrap()).unwrap()
}

/// Runs `import` of `doc` into a fresh directory: (exit status, stderr, whether the
/// output directory exists afterwards).
fn import(d: &Path, profile: &str, doc: &Value, name: &str) -> (i32, String, bool) {
    let file = format!("{name}.json");
    std::fs::write(d.join(&file), serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    let out = format!("out-{name}");
    let (rc, _, err) =
        common::run_text(d, profile, &["import", "--state", &file, "--output", &out]);
    (rc, err, d.join(&out).exists())
}

#[test]
fn import_refuses_broken_state_files_naming_the_json_path() {
    // before: every case imported with rc 0 ("Imported 0 nodes" without `graph`; the
    // last duplicate node won; "gpt-9000" imported, then every query failed)
    let dir = common::scratch();
    let d = dir.path();
    let good = brain_and_export(d);
    let nodes = good["graph"]["nodes"].as_array().unwrap().len();
    let edges = good["graph"]["edges"].as_array().unwrap().len();
    let first = good["graph"]["nodes"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(edges > 17, "the fixture brain has {edges} edges");
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit, String)> = vec![
        (
            "no-graph",
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("graph");
            }),
            "graph: missing".into(),
        ),
        (
            "dup-node",
            Box::new(|v| {
                let n = v["graph"]["nodes"][0].clone();
                v["graph"]["nodes"].as_array_mut().unwrap().push(n);
            }),
            // the copy is appended after the export's `nodes` nodes
            format!("graph.nodes[{nodes}].id: duplicate of graph.nodes[0].id \"{first}\""),
        ),
        (
            "dup-edge",
            Box::new(|v| {
                let e = v["graph"]["edges"][0].clone();
                v["graph"]["edges"].as_array_mut().unwrap().push(e);
            }),
            format!("graph.edges[{edges}]: duplicate of graph.edges[0]"),
        ),
        (
            "dim",
            Box::new(|v| v["meta"]["embedder_dim"] = json!(-1)),
            "meta.embedder_dim: -1 is not a positive integer".into(),
        ),
        (
            "empty-id",
            Box::new(|v| v["graph"]["nodes"][0]["id"] = json!("")),
            "graph.nodes[0].id: empty".into(),
        ),
        (
            "wormhole",
            Box::new(|v| v["graph"]["edges"][0]["kind"] = json!("wormhole")),
            "graph.edges[0].kind: \"wormhole\" is not an edge kind".into(),
        ),
        (
            "ghost-vector",
            Box::new(|v| {
                let x = v["index"][first_id(v)].clone();
                v["index"]["ghost::0"] = x;
            }),
            "index[\"ghost::0\"]: no node \"ghost::0\"".into(),
        ),
        (
            "gpt-9000",
            Box::new(|v| v["meta"]["embedder_name"] = json!("gpt-9000")),
            "meta.embedder_name: \"gpt-9000\" is not an embedder this program has".into(),
        ),
        (
            "dangling",
            Box::new(|v| v["graph"]["edges"][17]["target"] = json!("x::3")),
            "graph.edges[17].target: no node \"x::3\"".into(),
        ),
    ];
    for profile in ["corrected", "paper"] {
        for (name, edit, want) in &cases {
            let mut doc = good.clone();
            edit(&mut doc);
            let (rc, err, wrote) = import(d, profile, &doc, &format!("{profile}-{name}"));
            let what = format!("{profile} {name}: rc {rc}, stderr {err:?}");
            assert_eq!(rc, 1, "{what}");
            assert!(err.contains(want.as_str()), "{what}, want {want:?}");
            assert!(err.contains(&format!("{profile}-{name}.json")), "{what}");
            assert_eq!(err.trim_end().lines().count(), 1, "{what}");
            assert!(!wrote, "{what}: the output directory was made");
        }
    }
}

/// The first id of a document's index.
fn first_id(v: &Value) -> String {
    v["index"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone()
}

#[test]
fn import_takes_reference_state_files_and_they_answer_queries() {
    // the reference's own files (the paper profile writes them byte for byte, as
    // reference_flow.rs checks): after init, after learn, after inject
    let dir = common::scratch();
    let d = dir.path();
    let steps: [&[&str]; 3] = [
        &["init", "--workspace", "ws", "--output", "ref"],
        &[
            "learn",
            "--state",
            "ref/state.json",
            "--outcome",
            "1",
            "--fired-ids",
            "README.md::0,README.md::1",
        ],
        &[
            "inject",
            "--state",
            "ref/state.json",
            "--id",
            "fix::1",
            "--content",
            "Never deploy on Fridays",
            "--type",
            "CORRECTION",
        ],
    ];
    let good = brain_and_export(d);
    for (i, step) in steps.iter().enumerate() {
        let (rc, _, err) = common::run_text(d, "paper", step);
        assert_eq!(rc, 0, "{step:?}: {err}");
        for profile in ["paper", "corrected"] {
            let out = format!("imp-{i}-{profile}");
            let (rc, stdout, err) = common::run_text(
                d,
                profile,
                &["import", "--state", "ref/state.json", "--output", &out],
            );
            assert_eq!(rc, 0, "{step:?} {profile}: {err}");
            assert!(stdout.starts_with("Imported "), "{stdout}");
            let (rc, stdout, err) =
                common::run_text(d, profile, &["query", "deploy", "--state", &out]);
            assert_eq!(rc, 0, "{step:?} {profile}: {err}");
            assert!(stdout.contains("README.md::"), "{stdout}");
        }
    }
    // and this program's export, and a bare graph (the reference's load_state reads it)
    let (rc, _, err) = import(d, "corrected", &good, "export");
    assert_eq!(rc, 0, "{err}");
    let bare = json!({"nodes": good["graph"]["nodes"], "edges": good["graph"]["edges"]});
    let (rc, _, err) = import(d, "corrected", &bare, "bare");
    assert_eq!(rc, 0, "{err}");
}

/// Runs a command that must fail with one line on stderr naming `name`; returns it.
fn refused(d: &Path, profile: &str, args: &[&str], name: &str) -> String {
    let (rc, out, err) = common::run_text(d, profile, args);
    let what = format!("{profile} {args:?}: rc {rc}, stdout {out:?}, stderr {err:?}");
    assert!(rc == 1 || rc == 2, "{what}");
    assert!(err.contains(name), "{what}: does not name {name}");
    assert!(out.is_empty(), "{what}");
    if rc == 1 {
        assert_eq!(err.trim_end().lines().count(), 1, "{what}");
    }
    err
}

#[test]
fn numeric_options_are_finite_and_in_range() {
    // before: each ran with rc 0 (NaN prunes nothing, -1 merges all but one, -5
    // budgets nothing, NaN similarity connects nothing)
    let dir = common::scratch_brain();
    let d = dir.path();
    for profile in ["corrected", "paper"] {
        // nonsense in both profiles: a usage error naming the option
        refused(
            d,
            profile,
            &["maintain", "--state", "b", "--prune-below", "NaN"],
            "--prune-below",
        );
        refused(
            d,
            profile,
            &[
                "inject",
                "--state",
                "b",
                "--id",
                "n::1",
                "--content",
                "x",
                "--connect-min-sim",
                "NaN",
            ],
            "--connect-min-sim",
        );
    }
    // out of range (corrected; the paper profile keeps the reference's readings)
    let cases: [(&[&str], &str); 6] = [
        (
            &["maintain", "--state", "b", "--max-merges", "-1"],
            "--max-merges",
        ),
        (
            &["maintain", "--state", "b", "--prune-below", "2"],
            "--prune-below",
        ),
        (
            &[
                "query",
                "deploy",
                "--state",
                "b",
                "--max-context-chars",
                "-5",
            ],
            "--max-context-chars",
        ),
        (&["journal", "--state", "b", "--last", "-3"], "--last"),
        (
            &[
                "learn",
                "--state",
                "b",
                "--outcome",
                "2",
                "--fired-ids",
                "README.md::0,README.md::1",
            ],
            "--outcome",
        ),
        (
            &[
                "inject",
                "--state",
                "b",
                "--id",
                "n::1",
                "--content",
                "x",
                "--connect-min-sim",
                "3",
            ],
            "--connect-min-sim",
        ),
    ];
    for (args, name) in cases {
        refused(d, "corrected", args, name);
    }
    // the paper profile still reads `--max-merges -1` as the reference's slice
    let (rc, _, err) = common::run_text(
        d,
        "paper",
        &[
            "maintain",
            "--state",
            "b",
            "--max-merges",
            "-1",
            "--dry-run",
        ],
    );
    assert_eq!(rc, 0, "{err}");
}

#[test]
fn unknown_tasks_and_empty_texts_are_refused() {
    // before: `--tasks bogus` ran nothing with rc 0; `--id ""` and `--content ""`
    // injected a node
    let dir = common::scratch_brain();
    let d = dir.path();
    let err = refused(
        d,
        "corrected",
        &["maintain", "--state", "b", "--tasks", "health,bogus"],
        "--tasks",
    );
    assert!(err.contains("\"bogus\""), "{err}");
    for profile in ["corrected", "paper"] {
        refused(
            d,
            profile,
            &["inject", "--state", "b", "--id", "", "--content", "x"],
            "--id",
        );
        refused(
            d,
            profile,
            &["inject", "--state", "b", "--id", "n::1", "--content", " "],
            "--content",
        );
    }
}

#[test]
fn authority_map_names_the_option_and_the_authorities() {
    // before: `godlike` was stored as given (rc 0); `nope` answered
    // `json.decoder.JSONDecodeError: Expecting value: ...` without the option
    let dir = common::scratch_brain();
    let d = dir.path();
    let sync = |map: &'static str| -> Vec<&'static str> {
        vec![
            "sync",
            "--state",
            "b",
            "--workspace",
            "ws",
            "--dry-run",
            "--authority-map",
            map,
        ]
    };
    let err = refused(
        d,
        "corrected",
        &sync(r#"{"README.md":"godlike"}"#),
        "--authority-map",
    );
    assert!(
        err.contains("godlike") && err.contains("constitutional, canonical or overlay"),
        "{err}"
    );
    let err = refused(d, "corrected", &sync("nope"), "--authority-map");
    assert!(!err.contains("json.decoder"), "{err}");
    // paper: the reference's traceback line
    let (rc, _, err) = common::run_text(d, "paper", &sync("nope"));
    assert_eq!(rc, 1);
    assert!(err.starts_with("json.decoder.JSONDecodeError: "), "{err}");
}

/// Starts a corrected daemon on `d/b`; returns it with its stdin and stdout.
fn daemon(
    d: &Path,
    profile: &str,
    state: &str,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    let mut c = common::spawn_piped(d, profile, &["daemon", "--state", state]);
    let stdin = c.stdin.take().unwrap();
    let stdout = BufReader::new(c.stdout.take().unwrap());
    (c, stdin, stdout)
}

/// Sends one request line and reads the answer.
fn ask(
    stdin: &mut std::process::ChildStdin,
    stdout: &mut BufReader<std::process::ChildStdout>,
    line: &str,
) -> Value {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
    let mut answer = String::new();
    stdout.read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap()
}

#[test]
fn daemon_checks_outcome_and_tasks_and_a_deleted_brain_is_not_saved() {
    // before: `outcome 2` and `tasks "bogus"` were answered as done; after `rm -rf` of
    // the brain, `save` answered {"saved": true} and the learn was lost
    let dir = common::scratch_brain();
    let d = dir.path();
    let (mut child, mut stdin, mut stdout) = daemon(d, "corrected", "b");
    let learn = |o: &str| {
        format!(
            r#"{{"id": 1, "method": "learn", "params": {{"fired_nodes": ["README.md::0", "README.md::1"], "outcome": {o}}}}}"#
        )
    };
    let a = ask(&mut stdin, &mut stdout, &learn("2"));
    let msg = a["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("outcome") && msg.contains("-1 to 1"), "{a}");
    let a = ask(
        &mut stdin,
        &mut stdout,
        r#"{"id": 2, "method": "maintain", "params": {"tasks": "bogus", "dry_run": true}}"#,
    );
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("bogus"),
        "{a}"
    );
    let a = ask(&mut stdin, &mut stdout, &learn("1"));
    assert_eq!(a["result"]["edges_updated"], json!(1), "{a}");
    std::fs::remove_dir_all(d.join("b")).unwrap();
    let a = ask(&mut stdin, &mut stdout, r#"{"id": 3, "method": "save"}"#);
    let msg = a["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("b/brain.db") && msg.contains("no longer exists"),
        "{a}"
    );
    drop(stdin);
    child.wait().unwrap();
}

#[test]
fn a_state_file_whose_directory_was_deleted_is_named_in_words() {
    // before: `save` answered `pj/state.json: entity not found` (the bare error kind)
    let dir = common::scratch();
    let d = dir.path();
    let (rc, _, err) =
        common::run_text(d, "paper", &["init", "--workspace", "ws", "--output", "pj"]);
    assert_eq!(rc, 0, "{err}");
    let (mut child, mut stdin, mut stdout) = daemon(d, "paper", "pj/state.json");
    let a = ask(
        &mut stdin,
        &mut stdout,
        r#"{"id": 1, "method": "learn", "params": {"fired_nodes": ["README.md::0", "README.md::1"], "outcome": 1}}"#,
    );
    assert_eq!(a["result"]["edges_updated"], json!(1), "{a}");
    std::fs::remove_dir_all(d.join("pj")).unwrap();
    let a = ask(&mut stdin, &mut stdout, r#"{"id": 2, "method": "save"}"#);
    let msg = a["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        msg, "pj/state.json: the directory pj does not exist (deleted or moved?)",
        "{a}"
    );
    drop(stdin);
    child.wait().unwrap();
}

#[test]
fn replay_reports_a_broken_json_line() {
    // before: the broken line was replayed as a plain-text query: "Replayed 1/1"
    let dir = common::scratch_brain();
    let d = dir.path();
    std::fs::write(
        d.join("broken.jsonl"),
        "{\"role\": \"user\", \"content\": \"how do I deploy\", \"ts\": 1}\n{\"role\": \"user\", \"content\": \n",
    )
    .unwrap();
    let before = std::fs::read(d.join("b/brain.db")).unwrap();
    let err = refused(
        d,
        "corrected",
        &["replay", "--state", "b", "--sessions", "broken.jsonl"],
        "broken.jsonl:2:",
    );
    assert!(err.contains("broken JSON record"), "{err}");
    assert_eq!(
        std::fs::read(d.join("b/brain.db")).unwrap(),
        before,
        "replay wrote"
    );
}

#[test]
fn inject_of_an_existing_id_says_one_thing() {
    // before: "already exists: nothing injected" on stderr, "Injected README.md::0" on
    // stdout, rc 0
    let dir = common::scratch_brain();
    let d = dir.path();
    let err = refused(
        d,
        "corrected",
        &[
            "inject",
            "--state",
            "b",
            "--id",
            "README.md::0",
            "--content",
            "x",
        ],
        "README.md::0",
    );
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn os_errors_are_said_once() {
    // before: `nowhere/b: No such file or directory (os error 2): No such file or
    // directory (os error 2)`
    let dir = tempfile::tempdir().unwrap();
    let err = refused(
        dir.path(),
        "corrected",
        &["query", "x", "--state", "nowhere/b"],
        "nowhere/b",
    );
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

#[test]
fn a_read_only_brain_answers_queries() {
    // before: `brain.db: not a readable SQLite database: attempt to write a readonly
    // database`. The brain is made read-only for the user running the query: as root
    // (who writes whatever the mode bits say) the query runs as `nobody`.
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = common::scratch_brain();
    let d = dir.path();
    for p in [d, &d.join("b")] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    for f in ["brain.db", "search.idx"] {
        std::fs::set_permissions(d.join("b").join(f), std::fs::Permissions::from_mode(0o444))
            .unwrap();
    }
    let before = std::fs::read(d.join("b/brain.db")).unwrap();
    let run = |args: &[&str]| {
        let mut c = Command::new(common::bin());
        c.args(args)
            .current_dir(d)
            .env("CRABPATH_PROFILE", "corrected");
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            c.uid(65534).gid(65534);
        }
        c.output().unwrap()
    };
    let out = run(&["query", "deploy", "--state", "b", "--top", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("README.md::"));
    assert!(
        err.contains("read-only") && err.contains("not journaled"),
        "{err}"
    );
    let out = run(&[
        "learn",
        "--state",
        "b",
        "--outcome",
        "1",
        "--fired-ids",
        "README.md::0,README.md::1",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(std::fs::read(d.join("b/brain.db")).unwrap(), before);
    // the commands that only read answer too (before, `info`, `health` and `journal`
    // failed: "not a readable SQLite database: attempt to write a readonly database")
    for args in [
        &["info", "--state", "b"][..],
        &["health", "--state", "b"],
        &["journal", "--state", "b"],
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(d.join("b/brain.db")).unwrap(), before);
    for p in [d, &d.join("b")] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
