//! `import_state` checks the whole state file (issue 33, item 7): the first problem is
//! named by its JSON path, and nothing is written then. The command-line cases (the
//! issue's eight files) are in `crabpath-cli/tests/it/validation.rs`; these are the other
//! shapes a hand-edited or foreign file takes.

use crate::common;

use crabpath::profile::Profile;
use crabpath_brain::reference::embedder::EmbedderInfo;
use crabpath_brain::service::{export_state, import_state};
use serde_json::{json, Value};

#[test]
fn every_shape_a_brain_relies_on_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(&dir.path().join("a"));
    let mut brain = common::open_hash(&db, Profile::Corrected, false);
    let good_file = dir.path().join("good.json");
    export_state(&mut brain, &good_file).unwrap();
    let good: Value = serde_json::from_slice(&std::fs::read(&good_file).unwrap()).unwrap();
    let known = [EmbedderInfo::hash_v1()];
    let ids: Vec<String> = good["index"].as_object().unwrap().keys().cloned().collect();
    let (first, last) = (ids[0].clone(), ids[ids.len() - 1].clone());
    // (edit, the message's start): each edit breaks one thing of a valid export
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Edit, String)> = vec![
        (
            Box::new(|v| v["graph"] = json!([])),
            "graph: not an object".into(),
        ),
        (
            Box::new(|v| v["graph"]["nodes"] = json!({})),
            "graph.nodes: not an array".into(),
        ),
        (
            Box::new(|v| {
                v["graph"]["nodes"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("content");
            }),
            "graph.nodes[1].content: missing or not a string".into(),
        ),
        (
            Box::new(|v| v["graph"]["nodes"][2]["id"] = json!(7)),
            "graph.nodes[2].id: not a string".into(),
        ),
        (
            Box::new(|v| {
                v["graph"]["edges"][3]
                    .as_object_mut()
                    .unwrap()
                    .remove("source");
            }),
            "graph.edges[3].source: missing".into(),
        ),
        (
            Box::new(|v| v["graph"]["edges"][0]["weight"] = json!("heavy")),
            "graph.edges[0].weight: not a number".into(),
        ),
        (
            {
                let last = last.clone();
                Box::new(move |v| {
                    v["index"][&last].as_array_mut().unwrap().pop();
                })
            },
            // the last vector is 1023 numbers long, the others hash-v1's 1024
            format!("index[\"{last}\"]: 1023 numbers, but index[\"{first}\"] has 1024"),
        ),
        (
            Box::new(|v| v["meta"]["embedder_dim"] = json!(384)),
            "meta.embedder_dim: 384, but hash-v1 has 1024 dimensions".into(),
        ),
        (
            Box::new(|v| v["index"] = json!({})),
            // an empty index is fine: this edit must pass (checked below)
            String::new(),
        ),
    ];
    for (i, (edit, want)) in cases.iter().enumerate() {
        let mut doc = good.clone();
        edit(&mut doc);
        let file = dir.path().join(format!("case{i}.json"));
        std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
        let out = dir.path().join(format!("out{i}"));
        let r = import_state(&file, &out, &known);
        if want.is_empty() {
            assert!(r.is_ok(), "case {i}: {r:?}");
            continue;
        }
        let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            msg.starts_with(&format!("{}: {want}", file.display())),
            "case {i}: {msg:?}, want {want:?}"
        );
        assert!(!out.exists(), "case {i}: wrote {}", out.display());
    }
}
