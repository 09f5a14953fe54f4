//! `crabpath doctor` on a brain database, and a damaged search index (issue 33, items
//! 4 and 6). Before: a dropped `journal` table, an unknown embedder ("gpt-9000") and an
//! edge to a missing node each scored 10/10 while `query` failed or the graph was
//! broken; a dropped `edges` table printed `edges=-1` and advised `connect`; 2,000
//! overwritten bytes of `search.idx` made `query` panic (rc 101) and doctor passed.
//!
//! Each test breaks one thing with SQLite directly (or by overwriting bytes) and
//! expects that check to FAIL with advice that fixes it; where the advice is a
//! command, the test runs it and sees doctor pass again.

use crate::common;

use std::path::Path;

/// The checks `doctor` runs on a brain database (`doctor_store`'s docs list 15).
const CHECKS: usize = 15;

fn sql(d: &Path, statements: &str) {
    let c = rusqlite::Connection::open(d.join("b/brain.db")).unwrap();
    c.execute_batch(statements).unwrap();
}

/// Runs a command in the corrected profile: (rc, stdout, stderr).
fn cli(d: &Path, args: &[&str]) -> (i32, String, String) {
    common::run_text(d, "corrected", args)
}

/// `doctor --state b`: (rc, stdout, stderr).
fn doctor(d: &Path) -> (i32, String, String) {
    cli(d, &["doctor", "--state", "b"])
}

/// The line of check `label` and the advice line after it ("" when none).
fn check<'a>(out: &'a str, label: &str) -> (&'a str, &'a str) {
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("{label}: ")))
        .unwrap_or_else(|| panic!("no check {label} in:\n{out}"));
    let advice = lines
        .get(at + 1)
        .filter(|l| l.starts_with("  what to do: "))
        .copied()
        .unwrap_or("");
    (lines[at], advice)
}

/// Asserts that `label` failed with `detail` in its line and `advice` in its advice.
fn fails(out: &str, label: &str, detail: &str, advice: &str) {
    let (line, hint) = check(out, label);
    assert!(line.starts_with(&format!("{label}: FAIL")), "{out}");
    assert!(line.contains(detail), "{line}\n{out}");
    assert!(hint.contains(advice), "{hint}\n{out}");
}

fn summary(out: &str) -> &str {
    out.lines().last().unwrap_or_default()
}

fn all_pass() -> String {
    format!("Summary: {CHECKS}/{CHECKS} checks passed")
}

fn snapshot(d: &Path) {
    let (rc, _, err) = cli(d, &["snapshot", "--state", "b", "--name", "good"]);
    assert_eq!(rc, 0, "{err}");
}

/// Takes the snapshot `good` (once), runs `statements` on the database, checks that
/// `crabpath query` fails on it when `query_fails` (the brain is really broken) and
/// returns doctor's report, which must fail.
fn broken(d: &Path, statements: &str, query_fails: bool) -> String {
    if !d.join("b/snapshots/good.db").exists() {
        snapshot(d);
    }
    sql(d, statements);
    if query_fails {
        let (rc, _, err) = cli(d, &["query", "deploy", "--state", "b"]);
        assert_ne!(rc, 0, "the brain is broken: {err}");
    }
    let (rc, out, _) = doctor(d);
    assert_eq!(rc, 1, "{statements}: {out}");
    out
}

/// `rollback --to good`, then doctor passes every check.
fn rollback_heals(d: &Path) {
    let (rc, _, err) = cli(d, &["rollback", "--state", "b", "--to", "good"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, out, _) = doctor(d);
    assert_eq!((rc, summary(&out)), (0, all_pass().as_str()), "{out}");
}

/// The advice of an incomplete schema: export the brain (`from`: itself, or a snapshot
/// when it cannot be exported), then import over it; doctor passes every check after.
fn reexport_heals(d: &Path, from: &str) {
    let (rc, _, err) = cli(d, &["export", "--state", from, "--output", "b.json"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, _, err) = cli(d, &["import", "--state", "b.json", "--output", "b"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, out, _) = doctor(d);
    assert_eq!((rc, summary(&out)), (0, all_pass().as_str()), "{out}");
}

#[test]
fn a_sound_brain_passes_every_check() {
    let dir = common::scratch_brain();
    let (rc, out, err) = doctor(dir.path());
    assert_eq!((rc, summary(&out)), (0, all_pass().as_str()), "{out}{err}");
    assert_eq!(out.matches(": PASS").count(), CHECKS, "{out}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_dropped_journal_fails_the_schema_check() {
    // before: 10/10 PASS, while `query` failed "no such table: journal"
    let dir = common::scratch_brain();
    let d = dir.path();
    let out = broken(d, "DROP TABLE journal", true);
    fails(
        &out,
        "schema_complete",
        "(missing table journal)",
        "crabpath import --state <file>.json --output <brain>",
    );
    reexport_heals(d, "b");
    let (rc, _, err) = cli(d, &["query", "deploy", "--state", "b"]);
    assert_eq!(rc, 0, "{err}");
}

#[test]
fn a_dropped_column_fails_the_schema_check() {
    let dir = common::scratch_brain();
    let d = dir.path();
    let out = broken(d, "ALTER TABLE nodes DROP COLUMN summary", true);
    // the export reads every column of the nodes: the repair goes through a snapshot
    fails(
        &out,
        "schema_complete",
        "nodes: missing column summary",
        "crabpath export --state <brain>/snapshots/<name>.db",
    );
    fails(
        &out,
        "query_works",
        "no such column: summary",
        "schema_complete",
    );
    reexport_heals(d, "b/snapshots/good.db");
}

#[test]
fn a_dropped_edges_table_is_reported_not_counted() {
    // before: `graph_has_edges: FAIL (edges=-1)`, advising `crabpath connect`
    let dir = common::scratch_brain();
    let d = dir.path();
    let out = broken(d, "DROP TABLE edges", true);
    assert!(
        !out.contains("edges=-1") && !out.contains("connect"),
        "{out}"
    );
    // the export reads the edges: the repair goes through a snapshot
    fails(
        &out,
        "schema_complete",
        "missing table edges",
        "crabpath export --state <brain>/snapshots/<name>.db",
    );
    fails(
        &out,
        "graph_has_edges",
        "cannot be read: no such table: edges",
        "see schema_complete",
    );
    fails(
        &out,
        "query_works",
        "no such table: edges",
        "schema_complete",
    );
    reexport_heals(d, "b/snapshots/good.db");
}

#[test]
fn an_unknown_embedder_fails() {
    // before: 9/9 (10/10) PASS, while `query` failed
    let dir = common::scratch_brain();
    let d = dir.path();
    let out = broken(
        d,
        "UPDATE meta SET value = '\"gpt-9000\"' WHERE key = 'embedder_name'",
        true,
    );
    fails(
        &out,
        "embedder_available",
        "built with gpt-9000 (dim=1024)",
        "restore a snapshot (`crabpath rollback --state <brain>`)",
    );
    fails(&out, "query_works", "gpt-9000", "see embedder_available");
    rollback_heals(d);
}

#[test]
fn an_edge_to_a_missing_node_fails() {
    // before: 10/10 PASS
    let dir = common::scratch_brain();
    let d = dir.path();
    let out = broken(
        d,
        "INSERT INTO edges(src, tgt, seq, weight, kind, metadata, rev)
         SELECT sym, 99999, 999, 0.5, 'sibling', NULL, 0 FROM nodes WHERE id = 'README.md::1'",
        false,
    );
    fails(
        &out,
        "edges_end_at_nodes",
        "1 edges end at no node, e.g. README.md::1 -> #99999",
        "crabpath rollback",
    );
    rollback_heals(d);
}

#[test]
fn counts_that_disagree_fail() {
    let dir = common::scratch_brain();
    let d = dir.path();
    // the fixture brain: 79 nodes, each with a vector and a text (init's report)
    let cases = [
        (
            "DELETE FROM vectors WHERE seq = (SELECT MIN(seq) FROM vectors)",
            "vectors=78, texts=79, nodes without a vector=1",
        ),
        (
            "UPDATE brain SET nodes = nodes + 1",
            "the brain row says nodes=80",
        ),
        (
            "UPDATE nodes SET content = NULL WHERE id = 'README.md::1'",
            "texts=78, nodes without a text=1",
        ),
        (
            "INSERT INTO vectors(seq, sym, v, rev) SELECT MAX(seq) + 1, 99999, x'', 0 FROM vectors",
            "vectors=80, texts=79, vectors without a node=1",
        ),
    ];
    for (break_it, detail) in cases {
        let out = broken(d, break_it, false);
        fails(&out, "counts_agree", detail, "crabpath rollback");
        rollback_heals(d);
    }
}

#[test]
fn a_query_that_fails_fails_the_query_check() {
    // every other check passes: only a real query sees a weight that is not a number
    let dir = common::scratch_brain();
    let d = dir.path();
    let out = broken(d, "UPDATE edges SET weight = 'heavy'", true);
    fails(
        &out,
        "query_works",
        "Invalid column type Text",
        "crabpath rollback",
    );
    assert_eq!(
        summary(&out),
        format!("Summary: {}/{CHECKS} checks passed", CHECKS - 1)
    );
    rollback_heals(d);
}

/// Overwrites 2,000 bytes of `b/search.idx` at byte 3,000 (inside the posting lists
/// of the fixture brain's 115 KB index) with bytes of a fixed pseudo-random sequence.
fn damage_index(d: &Path) {
    let path = d.join("b/search.idx");
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 5_000, "{}", bytes.len());
    let mut x: u32 = 0x2545_f491;
    for b in &mut bytes[3_000..5_000] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn a_damaged_index_fails_the_index_check_and_is_rebuilt() {
    // before: doctor 10/10 PASS on this file
    let dir = common::scratch_brain();
    let d = dir.path();
    damage_index(d);
    let (rc, out, err) = doctor(d);
    assert_eq!(rc, 1, "{out}");
    fails(
        &out,
        "search_index",
        "search.idx: checksum mismatch",
        "rebuilt automatically",
    );
    // the query check answers from the database and rebuilds the file
    let (line, _) = check(&out, "query_works");
    assert!(line.starts_with("query_works: PASS"), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (rc, out, err) = doctor(d);
    assert_eq!((rc, summary(&out)), (0, all_pass().as_str()), "{out}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_query_on_a_damaged_index_answers_with_one_warning() {
    // before: rc 101, "panicked at crates/crabpath-brain/src/store/search.rs:194"
    let dir = common::scratch_brain();
    let d = dir.path();
    let query = ["query", "deploy the canary", "--state", "b", "--json"];
    let (rc, want, err) = cli(d, &query);
    assert_eq!(rc, 0, "{err}");
    damage_index(d);
    let (rc, got, err) = cli(d, &query);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(common::normalize(&got), common::normalize(&want));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with("crabpath: warning: b/search.idx: search index unusable (checksum mismatch); rebuilt from the database"),
        "{err}"
    );
    // rebuilt: the next query is silent
    let (rc, again, err) = cli(d, &query);
    assert_eq!((rc, err.as_str()), (0, ""));
    assert_eq!(common::normalize(&again), common::normalize(&want));
}

#[test]
fn every_dropped_table_is_reported_without_a_crash() {
    // the tables of schema 2 (crabpath-brain `store/schema.rs`: SCHEMA_V1 and the
    // conversations migration); `brain` holds the layout, so without it the database
    // does not open and the run stops there
    let tables = [
        "brain",
        "meta",
        "nodes",
        "edges",
        "vectors",
        "vector_gone",
        "journal",
        "turns",
        "ledger",
    ];
    let dir = common::scratch_brain();
    let d = dir.path();
    let good = d.join("good");
    common::copy_tree(&d.join("b"), &good);
    for t in tables {
        std::fs::remove_dir_all(d.join("b")).unwrap();
        common::copy_tree(&good, &d.join("b"));
        sql(d, &format!("DROP TABLE {t}"));
        let (rc, out, err) = doctor(d);
        assert_eq!(rc, 1, "{t}: {out}{err}");
        assert!(!err.contains("panicked"), "{t}: {err}");
        if t == "brain" {
            fails(
                &out,
                "brain_database_opens",
                "no such table: brain",
                "crabpath export --state <brain>/snapshots/<name>.db",
            );
        } else {
            fails(&out, "schema_complete", &format!("missing table {t}"), "");
        }
    }
}

#[test]
fn a_daemon_on_a_damaged_index_answers() {
    // before: the daemon's first query panicked on the damaged file (issue 33, item 4:
    // "it kills the daemon"), leaving the request unanswered
    let dir = common::scratch_brain();
    let d = dir.path();
    damage_index(d);
    let input = "{\"id\": 1, \"method\": \"query\", \"params\": {\"query\": \"deploy the canary\"}}\n{\"id\": 2, \"method\": \"shutdown\"}\n";
    let o = common::run(d, "corrected", &["daemon", "--state", "b"], input);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let answers: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{out}");
    assert!(
        answers[0]["result"]["fired_nodes"]
            .as_array()
            .is_some_and(|f| !f.is_empty()),
        "{out}"
    );
    assert!(
        err.contains("search index unusable (checksum mismatch); rebuilt"),
        "{err}"
    );
}

/// After a sync that rewrites a file and adds one, the search index serves fewer vectors
/// than before and the database holds the rewritten ones: `doctor` counted those served
/// from the index as `len − unindexed`, where `unindexed` counted a rewritten vector
/// twice, and panicked on the subtraction in debug builds ("attempt to subtract with
/// overflow"; found by `sequences.rs`, seed 33). `info` made the same count.
#[test]
fn doctor_and_info_after_a_sync_that_rewrites_and_adds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ws = d.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for (name, text) in [
        ("a.md", "# A\n\n## One\nalpha one\n\n## Two\nalpha two\n"),
        ("b.md", "# B\n\nbravo only\n"),
        ("c.md", "# C\n\ncharlie only\n"),
    ] {
        std::fs::write(ws.join(name), text).unwrap();
    }
    let (rc, _, err) = cli(d, &["init", "--workspace", "ws", "--output", "b"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, _, err) = cli(d, &["query", "alpha", "--state", "b"]);
    assert_eq!(rc, 0, "{err}");
    std::fs::write(
        ws.join("a.md"),
        "# A\n\n## One\nnew one\n\n## Two\nnew two\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("d.md"),
        "# D\n\n## One\nfirst section\n\n## Two\nsecond section\n\n## Three\nthird section\n",
    )
    .unwrap();
    let (rc, _, err) = cli(d, &["sync", "--state", "b", "--workspace", "ws"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, out, err) = doctor(d);
    assert_eq!(rc, 0, "{out}{err}");
    assert_eq!(summary(&out), all_pass(), "{out}");
    let (rc, out, err) = cli(d, &["info", "--state", "b"]);
    assert_eq!(rc, 0, "{out}{err}");
}

/// A state file's journal ending in a torn line (a crash or a full disk mid-append):
/// readers skip it, and the corrected doctor names it on the journal's line (before:
/// nothing said; the paper profile's line stays the reference's).
#[test]
fn a_torn_journal_line_is_named_by_the_corrected_doctor() {
    let dir = common::scratch();
    let d = dir.path();
    let (rc, _, err) = common::run_text(
        d,
        "paper",
        &[
            "init",
            "--workspace",
            &common::fixtures().join("workspace").to_string_lossy(),
            "--output",
            "s",
        ],
    );
    assert_eq!(rc, 0, "{err}");
    let (rc, _, err) =
        common::run_text(d, "paper", &["query", "--state", "s/state.json", "deploy"]);
    assert_eq!(rc, 0, "{err}");
    let journal = d.join("s/journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str(r#"{"type": "query", "q"#);
    std::fs::write(&journal, text).unwrap();
    let (_, out, _) = cli(d, &["doctor", "--state", "s/state.json"]);
    let (line, _) = check(&out, "journal_writable");
    assert!(line.starts_with("journal_writable: PASS"), "{out}");
    assert!(
        line.contains("readers skip 1 malformed line(s): 2"),
        "{line}"
    );
    let (_, out, _) = common::run_text(d, "paper", &["doctor", "--state", "s/state.json"]);
    assert!(
        !check(&out, "journal_writable").0.contains("malformed"),
        "{out}"
    );
}

/// A forget that stopped after its content left the brain (here the search index could
/// not be written) fails `forget_finished`, naming what to run; running it again
/// finishes it, the command line says so, and doctor passes. Before, nothing said so,
/// and the same forget answered that the file was unknown while the snapshot kept it.
#[test]
fn an_unfinished_forget_is_named_by_doctor() {
    let dir = common::scratch_brain();
    let d = dir.path();
    snapshot(d);
    let idx = d.join("b/search.idx");
    std::fs::remove_file(&idx).unwrap();
    std::fs::create_dir_all(idx.join("block")).unwrap();
    let (rc, _, err) = cli(d, &["forget", "--state", "b", "--file", "README.md"]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("run the same forget again"), "{err}");
    std::fs::remove_dir_all(&idx).unwrap();
    let (rc, out, _) = doctor(d);
    assert_eq!(rc, 1, "{out}");
    fails(
        &out,
        "forget_finished",
        "file `README.md`",
        "crabpath forget --state <brain> --file README.md",
    );
    let (rc, out, err) = cli(d, &["forget", "--state", "b", "--file", "README.md"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("Finished an interrupted forget"), "{out}");
    let (rc, out, err) = doctor(d);
    assert_eq!(rc, 0, "{out}{err}");
    assert_eq!(summary(&out), all_pass(), "{out}");
}
