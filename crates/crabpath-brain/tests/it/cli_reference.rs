//! The `paper` profile against the reference program's outputs on our own fixtures
//! (`crates/crabpath/tests/fixtures/`, kept there because the reference run records that
//! path), committed under `results/reference/cli/` (see its README for
//! the program, commit and command). Every comparison is byte for byte.

use std::path::{Path, PathBuf};

use crabpath::keyword::{keyword_ranking, keyword_seeds};
use crabpath::{Embedder, Graph, HashEmbedder, NodeId, Profile, VectorIndex};
use crabpath_brain::reference::reffiles::{graph_json, write_init, EmbedderInfo, GraphShape};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::replay::{replay_queries, ReplayOptions};
use crabpath_brain::source::session::{
    collect_interactions, collect_queries, extract_interactions, extract_queries, Interaction,
};
use crabpath_brain::source::workspace::SplitOptions;
use pyformat::pyjson::{self, PyDict, PyValue, Style};
use sha2::{Digest, Sha256};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crabpath/tests/fixtures")
}

/// `results/reference/cli/<name>`'s text (plain or `.xz`, `testdata::reference_text`).
fn reference_text(name: &str) -> String {
    testdata::reference_text(Path::new("cli").join(name))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `results/reference/cli/SHA256SUMS` as (name, hash).
fn sums() -> Vec<(String, String)> {
    reference_text("SHA256SUMS")
        .lines()
        .map(|l| {
            let (h, n) = l.split_once("  ").expect("sha256sum line");
            (n.to_string(), h.to_string())
        })
        .collect()
}

fn sum_of(name: &str) -> String {
    sums()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} not in SHA256SUMS"))
        .1
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `state.json` with `created_at` replaced, as the reference hashes were taken.
fn normalize_state(text: &str) -> String {
    let key = "\"created_at\": \"";
    let start = text.find(key).expect("created_at") + key.len();
    let end = start + text[start..].find('"').expect("closing quote");
    format!("{}CREATED_AT{}", &text[..start], &text[end..])
}

fn embed_all(graph: &Graph) -> VectorIndex {
    let e = HashEmbedder::new();
    let mut index = VectorIndex::new();
    for (_, n) in graph.nodes() {
        index.upsert(&n.id, e.embed(&n.content).unwrap()).unwrap();
    }
    index
}

fn paper() -> SplitOptions {
    SplitOptions::new(Profile::Paper)
}

/// Writes the `init` files and checks them against `results/reference/cli/<name>/`.
fn check_init(name: &str, graph: &Graph) {
    let out = tempfile::tempdir().unwrap();
    let files = write_init(
        out.path(),
        graph,
        &embed_all(graph),
        &EmbedderInfo::hash_v1(),
    )
    .unwrap();
    let graph_bytes = read(&files.graph);
    assert_eq!(
        graph_bytes,
        reference_text(&format!("{name}/graph.json")),
        "{name}/graph.json"
    );
    assert_eq!(
        sha256_hex(graph_bytes.as_bytes()),
        sum_of(&format!("{name}/graph.json"))
    );
    let texts = read(&files.texts);
    assert_eq!(
        sha256_hex(texts.as_bytes()),
        sum_of(&format!("{name}/texts.json"))
    );
    let index = std::fs::read(&files.index).unwrap();
    assert_eq!(
        sha256_hex(&index),
        sum_of(&format!("{name}/index.json")),
        "{name}/index.json"
    );
    let state = normalize_state(&read(&files.state));
    assert_eq!(
        sha256_hex(state.as_bytes()),
        sum_of(&format!("{name}/state.json")),
        "{name}/state.json"
    );
}

#[test]
fn init_matches_the_reference() {
    let b = split_workspace(fixtures().join("workspace"), &paper()).unwrap();
    assert!(b.skipped.is_empty());
    // texts.json = node contents in node order
    let texts = crabpath_brain::reference::reffiles::texts_json(b.texts()).unwrap();
    assert_eq!(texts, reference_text("init/texts.json"));
    check_init("init", &b.graph);
}

#[test]
fn init_with_sessions_matches_the_reference() {
    let mut b = split_workspace(fixtures().join("workspace"), &paper()).unwrap();
    let queries =
        collect_queries(&[fixtures().join("sessions/flat.jsonl")], Profile::Paper).unwrap();
    let records: Vec<Interaction> = queries.into_iter().map(Interaction::query).collect();
    replay_queries(
        &mut b.graph,
        &records,
        &ReplayOptions::new(Profile::Paper),
        &mut |_, _| {},
        None,
    )
    .unwrap();
    check_init("init-sessions", &b.graph);
}

fn seeds_json(graph: &Graph, seeds: &[(NodeId, f64)]) -> PyValue {
    PyValue::List(
        seeds
            .iter()
            .map(|&(n, s)| {
                PyValue::List(vec![PyValue::Str(graph.name(n).into()), PyValue::Float(s)])
            })
            .collect(),
    )
}

#[test]
fn keyword_seeding_matches_the_reference() {
    let b = split_workspace(fixtures().join("workspace"), &paper()).unwrap();
    let want = reference_text("keyword.json");
    let parsed = pyjson::loads(&want).unwrap();
    let queries: Vec<String> = parsed.as_dict().unwrap()["replay_seeds"]
        .as_dict()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert!(queries.len() >= 5);
    let mut replay = PyDict::new();
    let mut ranking = PyDict::new();
    for q in &queries {
        replay.insert(q.clone(), seeds_json(&b.graph, &keyword_seeds(&b.graph, q)));
        ranking.insert(
            q.clone(),
            seeds_json(&b.graph, &keyword_ranking(&b.graph, q, 5)),
        );
    }
    let mut doc = PyDict::new();
    doc.insert("replay_seeds".into(), PyValue::Dict(replay));
    doc.insert("query_ranking_top5".into(), PyValue::Dict(ranking));
    assert_eq!(
        pyjson::to_string_with(&PyValue::Dict(doc), Style::PRETTY).unwrap(),
        want
    );
}

fn opt_str(s: &Option<String>) -> PyValue {
    s.as_ref()
        .map_or(PyValue::Null, |v| PyValue::Str(v.clone()))
}

fn interactions_json(v: &[Interaction]) -> PyValue {
    PyValue::List(
        v.iter()
            .map(|i| {
                let mut d = PyDict::new();
                d.insert("query".into(), opt_str(&i.query));
                d.insert("response".into(), opt_str(&i.response));
                d.insert(
                    "tool_calls".into(),
                    PyValue::List(i.tool_calls.iter().cloned().map(PyValue::Dict).collect()),
                );
                d.insert("ts".into(), i.ts.map_or(PyValue::Null, PyValue::Float));
                PyValue::Dict(d)
            })
            .collect(),
    )
}

#[test]
fn session_logs_match_the_reference() {
    let want = reference_text("sessions.json");
    let parsed = pyjson::loads(&want).unwrap();
    let files: Vec<String> = parsed.as_dict().unwrap()["interactions"]
        .as_dict()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert!(files.len() >= 4);
    let dir = fixtures().join("sessions");
    let mut all = PyDict::new();
    let mut since = PyDict::new();
    let mut queries = PyDict::new();
    for f in &files {
        let p = dir.join(f);
        all.insert(
            f.clone(),
            interactions_json(&extract_interactions(&p, None, Profile::Paper).unwrap()),
        );
        since.insert(
            f.clone(),
            interactions_json(&extract_interactions(&p, Some(150.0), Profile::Paper).unwrap()),
        );
        let q = extract_queries(&p, Profile::Paper).unwrap();
        queries.insert(
            f.clone(),
            PyValue::List(q.into_iter().map(PyValue::Str).collect()),
        );
    }
    let mut doc = PyDict::new();
    doc.insert("interactions".into(), PyValue::Dict(all));
    doc.insert("interactions_since_150".into(), PyValue::Dict(since));
    doc.insert("queries".into(), PyValue::Dict(queries));
    let d = [dir.join("dir")];
    doc.insert(
        "dir_interactions".into(),
        interactions_json(&collect_interactions(&d, None, Profile::Paper).unwrap()),
    );
    let dq = collect_queries(&d, Profile::Paper).unwrap();
    doc.insert(
        "dir_queries".into(),
        PyValue::List(dq.into_iter().map(PyValue::Str).collect()),
    );
    assert_eq!(
        pyjson::to_string_with(&PyValue::Dict(doc), Style::PRETTY).unwrap(),
        want
    );
}

#[test]
fn replay_matches_the_reference() {
    let mut b = split_workspace(fixtures().join("workspace"), &paper()).unwrap();
    let s = fixtures().join("sessions");
    let args = [
        s.join("flat.jsonl"),
        s.join("openclaw.jsonl"),
        s.join("plain.txt"),
        s.join("dir"),
    ];
    let records = collect_interactions(&args, None, Profile::Paper).unwrap();
    let mut progress = 0;
    let stats = replay_queries(
        &mut b.graph,
        &records,
        &ReplayOptions::new(Profile::Paper),
        &mut |_, _| progress += 1,
        None,
    )
    .unwrap();
    assert_eq!(progress, stats.queries_replayed);
    let mut d = PyDict::new();
    d.insert(
        "queries_replayed".into(),
        PyValue::Int((stats.queries_replayed as i64).into()),
    );
    d.insert(
        "edges_reinforced".into(),
        PyValue::Int((stats.edges_reinforced as i64).into()),
    );
    d.insert(
        "cross_file_edges_created".into(),
        PyValue::Int((stats.cross_file_edges_created as i64).into()),
    );
    d.insert(
        "last_replayed_ts".into(),
        stats.last_replayed_ts.map_or(PyValue::Null, PyValue::Float),
    );
    assert_eq!(
        pyjson::to_string_with(&PyValue::Dict(d), Style::PRETTY).unwrap(),
        reference_text("replay-stats.json")
    );
    assert_eq!(
        graph_json(&b.graph, GraphShape::Bare).unwrap(),
        reference_text("replay-graph.json")
    );
}
