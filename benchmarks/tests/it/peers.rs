//! `bench peers` (issue 29): bad adapter files, a server that dies, and the LoCoMo fixture
//! (datasets/fixtures/locomo_tiny.json: 3 conversations, 17 turns, 13 questions) through
//! the real server of every adapter of benchmarks/peers/ (issue 29, acceptance: "Each
//! adapter has a test that drives a real server, not a stand-in"): CrabPath's and the MCP
//! reference memory server's together, and each PyPI peer's alone, with the scored numbers
//! checked by hand below.
//!
//! What the fixture's evidence lets a system score, whatever it returns (the scorer
//! compares evidence ids as released, exactly): "When did Ada move to Lisbon?" has one
//! malformed id (`D2:1; D2:2`) and "What is Ada's favourite film?" two that name no stored
//! turn (`D`, `D1:9`), so both score 0; "Which pets and cities came up?" has `D1:2` and
//! `D2:02` (no such id), so at most 0.5; "Would Ada enjoy a city farm?" has no evidence and
//! scores 1. The best possible recall is 11.5 / 13 = 0.885.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The directory install.sh fills (`CRABPATH_PEERS_DIR`, else target/peers).
fn peers_dir() -> PathBuf {
    std::env::var_os("CRABPATH_PEERS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| common::workspace_root().join("target").join("peers"))
}

/// `bench peers` on the fixture with `adapters`, writing into `out`.
fn peers(adapters: &[PathBuf], out: &Path) -> std::process::Output {
    let mut c = common::bench_cmd();
    c.args(["peers", "--dataset", "locomo", "--input"])
        .arg(common::fixture("locomo_tiny.json"))
        .arg("--peers-dir")
        .arg(peers_dir())
        .arg("--crabpath")
        .arg(PathBuf::from(env!("CARGO_BIN_EXE_bench")).with_file_name("crabpath"))
        .arg("--work-dir")
        .arg(out.join("work"))
        .arg("--out")
        .arg(out)
        .args(["--bootstrap", "200", "--permutations", "1000"]);
    for a in adapters {
        c.arg("--adapter").arg(a);
    }
    c.output().expect("bench runs")
}

fn adapter(name: &str) -> PathBuf {
    common::workspace_root()
        .join("benchmarks")
        .join("peers")
        .join(name)
}

/// A fake adapter: a shell command as the server, tools that exist nowhere.
fn fake(dir: &Path, name: &str, server: &str) -> PathBuf {
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(
        &p,
        format!(
            r#"name = "{name}"
version = "0"
package = "none"
[server]
command = {server}
startup_timeout_s = 20
[store]
tool = "add"
[store.arguments]
id = "${{turn_id}}"
text = "${{text}}"
[search]
tool = "find"
[search.arguments]
q = "${{question}}"
[results]
format = "json"
items = "/hits"
id = "/id"
"#
        ),
    )
    .unwrap();
    p
}

fn system<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no system {name} in peers.json"))
}

fn read_json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("peers.json")).unwrap()).unwrap()
}

#[test]
fn a_bad_adapter_file_is_one_line_naming_the_file_and_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(fake(dir.path(), "f", r#"["true"]"#)).unwrap();
    for (bad, want) in [
        // a misspelt key
        (
            good.replace("command =", "comand ="),
            "line 5: unknown field `comand`",
        ),
        // no search tool
        (
            good.replace("tool = \"find\"\n", ""),
            "missing field `tool`",
        ),
        // a placeholder the store cannot fill
        (
            good.replace("${text}", "${words}"),
            "store.arguments.text: unknown placeholder `${words}`",
        ),
        // the turn's text never stored
        (
            good.replace("${text}", "x"),
            "store.arguments: no argument uses `${text}`",
        ),
    ] {
        let p = dir.path().join("bad.toml");
        std::fs::write(&p, bad).unwrap();
        let o = peers(std::slice::from_ref(&p), &dir.path().join("out"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(
            err.contains(&format!("{}: ", p.display())) && err.contains(want),
            "{err} should name the file and `{want}`"
        );
    }
}

#[test]
fn a_server_that_exits_is_reported_with_its_last_error() {
    let dir = tempfile::tempdir().unwrap();
    let exits = fake(
        dir.path(),
        "exits",
        r#"["sh", "-c", "echo gone >&2; exit 3"]"#,
    );
    let out = dir.path().join("out");
    let o = peers(&[exits], &out);
    // the run itself succeeds: a failing system is a result, written in the report
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = read_json(&out);
    let s = system(&j, "exits");
    assert_eq!(s["complete"], false);
    assert_eq!(s["conversations_finished"], 0);
    let status = s["status"].as_str().unwrap();
    assert!(
        status.starts_with("FAILED in conv-26 after 0 of 3 conversations: MCP initialize failed")
            && status.contains("exit status: 3")
            && status.contains("its stderr ends: gone"),
        "{status}"
    );
    let md = std::fs::read_to_string(out.join("PEERS.md")).unwrap();
    assert!(md.contains("| exits (FAILED) |"), "{md}");
}

/// CI (`.ci/run`): both real servers on the fixture, with three failing systems beside
/// them whose failures must not touch the others' numbers.
#[test]
#[ignore = "needs benchmarks/peers/install.sh (npm) and the crabpath binary"]
fn fixture_through_crabpath_and_the_reference_memory_server() {
    let server = peers_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    assert!(
        server.is_file(),
        "this test needs the MCP reference memory server: run benchmarks/peers/install.sh npm (not found: {})",
        server.display()
    );
    let crabpath = PathBuf::from(env!("CARGO_BIN_EXE_bench")).with_file_name("crabpath");
    assert!(
        crabpath.is_file(),
        "this test needs the crabpath binary beside bench: cargo build -p crabpath-cli (not found: {})",
        crabpath.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(adapter("crabpath.toml")).unwrap();
    // crabpath's adapter asking for a tool its server lacks, and one whose calls time out
    let unknown = dir.path().join("unknown-tool.toml");
    std::fs::write(
        &unknown,
        text.replace("name = \"crabpath\"", "name = \"unknown-tool\"")
            .replace("tool = \"query\"", "tool = \"recall\""),
    )
    .unwrap();
    let slow = dir.path().join("slow.toml");
    std::fs::write(
        &slow,
        text.replace("name = \"crabpath\"", "name = \"slow\"")
            .replace("call_timeout_s = 60", "call_timeout_s = 0.000001"),
    )
    .unwrap();
    let exits = fake(dir.path(), "exits", r#"["sh", "-c", "exit 3"]"#);
    // <results>/peers/, where `bench check --results <results>` looks
    let out = dir.path().join("results").join("peers");
    let o = peers(
        &[
            adapter("crabpath.toml"),
            exits,
            unknown.clone(),
            slow,
            adapter("mcp-server-memory.toml"),
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = read_json(&out);

    // CrabPath (the hash-v1 brain; the turn ids each question got, best first, checked by
    // hand from the server's answers):
    // conv-26  adopt [D1:2] rank 1: 1 | Lisbon ["D2:1; D2:2"] one malformed string: 0 |
    //          pets and cities ["D1:2", "D2:02"]: nothing returned (no word in common): 0 |
    //          film ["D", "D1:9"] names no stored turn: 0 | city farm []: no evidence, 1
    // conv-t1  marathon [D1:2] rank 2: 1 | sister [D2:1] rank 1: 1 |
    //          Dan suggest [D2:2, D2:3] ranks 4 and 6: 0.5 at 5, 1 from 10 | when [D1:2] rank 2: 1
    // conv-t2  bread [D1:2] rank 2: 1 | second baker [D2:1, D2:3] ranks 3 and 1: 1 |
    //          open [D1:2] rank 2: 1 | Finn buy [D1:3] rank 3: 1
    // all: 9.5 / 13 = 0.731 at 5, 10 / 13 = 0.769 from 10 on
    let c = system(&j, "crabpath");
    assert_eq!(c["complete"], true, "{}", c["status"]);
    assert_eq!(c["questions"], 13);
    assert_eq!(
        c["recall"]["all"],
        serde_json::json!([0.731, 0.769, 0.769, 0.769])
    );
    // by category at 10: multi-hop (pets 0, Dan 1, baker 1), temporal (Lisbon 0, when 1,
    // open 1), open-domain (city farm 1), single-hop (4 of 4), adversarial (film 0, Finn 1)
    for (cat, r10) in [
        ("multi-hop", 0.667),
        ("temporal", 0.667),
        ("open-domain", 1.0),
        ("single-hop", 1.0),
        ("adversarial", 0.5),
    ] {
        assert_eq!(c["recall"][cat][1], r10, "{cat}");
    }
    assert!(c["reported_by_server"]
        .as_str()
        .unwrap()
        .starts_with("crabpath "));

    // The reference server: no whole question is a substring of a stored observation, so
    // every search returns no entity; only the question without evidence (city farm,
    // open-domain) counts: 1 / 13 = 0.077 at every k
    let m = system(&j, "mcp-server-memory");
    assert_eq!(m["complete"], true, "{}", m["status"]);
    assert_eq!(
        m["recall"]["all"],
        serde_json::json!([0.077, 0.077, 0.077, 0.077])
    );
    assert_eq!(m["recall"]["open-domain"][1], 1.0);
    assert_eq!(m["recall"]["single-hop"][1], 0.0);
    assert_eq!(m["reported_by_server"], "memory-server 0.6.3");
    // `{"entities": [], "relations": []}` pretty-printed by the server: 39 characters
    assert_eq!(m["mean_chars_per_question"], 39.0);

    // the failures, each its one line
    let status = |n: &str| system(&j, n)["status"].as_str().unwrap().to_string();
    assert!(
        status("exits").contains("exit status: 3"),
        "{}",
        status("exits")
    );
    assert!(
        status("unknown-tool").contains(&format!(
            "{}: search.tool: the server has no tool `recall`",
            unknown.display()
        )),
        "{}",
        status("unknown-tool")
    );
    assert!(
        status("slow")
            .contains("storing turn D1:1: remember: no answer within 0.000001 s (timed out)"),
        "{}",
        status("slow")
    );
    // CrabPath against the one peer that finished
    let pairs = j["paired_tests"]["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1);
    assert_eq!(pairs[0]["b"], "mcp-server-memory");
    // 0.769 - 0.077 on the same 13 questions: (10 - 1) / 13
    assert!((pairs[0]["diff"].as_f64().unwrap() - 9.0 / 13.0).abs() < 1e-9);

    // `bench check` re-derives this run's numbers from the record written beside it
    // (issue 29: "`bench check` covers the committed JSON"), and fails on one altered number
    let check = || {
        let mut c = common::bench_cmd();
        c.args(["check", "--results"])
            .arg(dir.path().join("results"))
            .args(["--only", "peers.json"]);
        c.output().expect("bench runs")
    };
    let o = check();
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(said.contains("ok: peers/peers.json"), "{said}");
    let jp = out.join("peers.json");
    let text = std::fs::read_to_string(&jp).unwrap();
    std::fs::write(&jp, text.replacen("0.769", "0.770", 1)).unwrap();
    let o = check();
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(!o.status.success(), "{said}");
    assert!(
        said.contains("differs: peers/peers.json: systems[0].recall.all[1]: 0.77 → 0.769"),
        "{said}"
    );
}

/// A PyPI peer's adapter (`benchmarks/peers/<peer>.toml`) alone on the fixture, through its
/// real server as `benchmarks/peers/install.sh python` installs it; returns its row of
/// peers.json, checked complete (every conversation, all 13 questions). Fails, saying how
/// to install it, when a file of `needs` (relative to the install cache) is missing.
fn pypi_peer_on_the_fixture(peer: &str, needs: &[&str]) -> Value {
    for n in needs {
        let p = peers_dir().join(peer).join(n);
        assert!(
            p.is_file(),
            "this test needs the PyPI peer {peer}: run benchmarks/peers/install.sh python \
             (installs into $CRABPATH_PEERS_DIR, else target/peers; not found: {})",
            p.display()
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("peers");
    let o = peers(&[adapter(&format!("{peer}.toml"))], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = system(&read_json(&out), peer).clone();
    assert_eq!(s["complete"], true, "{}", s["status"]);
    assert_eq!(s["conversations_finished"], 3);
    assert_eq!(s["questions"], 13);
    s
}

/// basic-memory 0.24.1 (keyword search, `search_type = "text"`): every number derived by
/// hand from its search rules (the package's `search_query.py` and `sqlite_search_query.py`):
/// - a note is indexed as its title, its content `SPEAKER said, "TEXT"` and its permalink and
///   file paths (`main/session-1/d1-2`, `session-1`, `D1-2.md`, ...), one per line, tokenized
///   by FTS5 `unicode61` with `/` a token character, no stemming;
/// - a question is first a strict query: every word, as a prefix, must match. Every fixture
///   question has a word no note holds (what, when, which, where, why, would), so each falls
///   back to the relaxed query: its words minus stopwords (what, did, is, in, the, for, at,
///   ...), each a prefix, any one matching; `Ada's` is the phrase `ada` then a word starting
///   with `s`, which `Ada said` matches.
///
/// No question matches more than 4 notes, so each recall is the same at 5, 10, 25 and 50 and
/// only which notes match counts, not their BM25 order (the run's order in brackets):
/// conv-26  adopt (ada, adopt, may) [D1:2, D1:1, D2:1]: D1:2 found, 1 | Lisbon (ada, move,
///          lisbon) [D2:1, D2:2, D1:1, D1:2]: malformed evidence, 0 | pets (pets, cities,
///          came, up): nothing, 0 | film (ada's, favourite, film) [D2:1, D1:2]: 0 | city farm
///          (ada, enjoy, city, farm) [D1:3, D1:1, D2:1, D1:2]: no evidence, 1
/// conv-t1  marathon (marathon, cleo, run) [D1:1, D1:2, D2:3, D2:1]: 1 | sister (cleo's,
///          sister, live) [D2:1, D2:3, D1:2] (and D1:1 under another hash seed, below): 1 | Dan suggest (dan,
///          suggest, sister's, visit) [D2:1, D1:3, D1:1, D2:2]: D2:2 yes, D2:3 (`She loves
///          boats, good idea`) holds none of the words: 0.5 | when (cleo, run, marathon): the
///          same four as marathon, 1
/// conv-t2  bread (bread, eve's, bakery, sell) [D1:2, D1:1, D2:1, D2:3]: 1 | second baker
///          (eve, hire, second, baker) [D2:3, D1:1, D1:2, D2:1]: both, 1 | open (bakery, open)
///          [D1:1, D1:2]: 1 | Finn buy (finn, buy, bakery) [D1:1, D1:2, D1:3, D2:2]: 1
/// all: 9.5 / 13 = 0.731 at every k.
///
/// The lines after a note's content come from a Python set, whose order follows the
/// process's hash seed; the adapter fixes it (`PYTHONHASHSEED = "0"`). `cleo's` matches
/// D1:1 (`... marathon, Cleo?"`) only when the line after it starts with `session` (no other
/// note's content ends in a name the questions put before `'s`). Under seed 0 it does not,
/// so "Where does Cleo's sister live?" returns 3 notes (1,562 characters; 4 notes and 2,041
/// under a seed that puts `session` next, as some runs did before the seed was fixed; the
/// recall is the same either way, D1:1 is not its evidence). Characters per question, from
/// the runs (a JSON object of the notes found, with their content, score and paths): 1572,
/// 2056, 95, 1097, 2037 | 2038, 1562, 2007, 2038 | 2020, 2025, 1066, 2011; the sum 21,624 /
/// 13 = 1,663.4 (three runs alike).
#[test]
#[ignore = "needs benchmarks/peers/install.sh python (basic-memory)"]
fn fixture_through_basic_memory() {
    let s = pypi_peer_on_the_fixture("basic-memory", &["bin/basic-memory"]);
    assert_eq!(
        s["recall"]["all"],
        serde_json::json!([0.731, 0.731, 0.731, 0.731])
    );
    // multi-hop: pets 0, Dan 0.5, baker 1; temporal: Lisbon 0, when 1, open 1; open-domain:
    // city farm 1; single-hop: adopt, marathon, sister, bread; adversarial: film 0, Finn 1
    for (cat, r) in [
        ("multi-hop", 0.5),
        ("temporal", 0.667),
        ("open-domain", 1.0),
        ("single-hop", 1.0),
        ("adversarial", 0.5),
    ] {
        assert_eq!(s["recall"][cat], serde_json::json!([r, r, r, r]), "{cat}");
    }
    let chars = s["mean_chars_per_question"].as_f64().unwrap();
    assert_eq!(chars, 1663.4);
    // the MCP server is FastMCP's, and reports FastMCP's version (fastmcp==4.1.3 in
    // benchmarks/peers/python/basic-memory.txt)
    assert_eq!(s["reported_by_server"], "Basic Memory 4.1.3");
}

/// mcp-memory-service 12.4.0 (sqlite_vec, hybrid BM25 0.3 + MiniLM 0.7): a search returns
/// every turn of the conversation (5 in conv-26, 6 in the others; limit 50), so every
/// evidence id that names a stored turn is found by 10; only rank 6 misses the top 5. The
/// ranks of the evidence, read from the run's answers (the same in two runs):
/// conv-26  adopt D1:2 rank 1: 1 | Lisbon: malformed, 0 | pets D1:2 rank 1 (D2:02 no such
///          id): 0.5 | film: 0 | city farm: no evidence, 1
/// conv-t1  marathon D1:2 rank 1 | sister D2:1 rank 1 | Dan suggest D2:2 rank 2, D2:3 rank 5
///          | when D1:2 rank 1: 1 each
/// conv-t2  bread D1:2 rank 2: 1 | second baker D2:3 rank 1, D2:1 rank 4: 1 | open D1:2
///          rank 2: 1 | Finn buy D1:3 rank 6: 0 at 5, 1 from 10
/// all: 9.5 / 13 = 0.731 at 5, 10.5 / 13 = 0.808 from 10 on.
/// Characters per question (its markdown: a header naming the question, then per turn its
/// content, hash and creation time), from the run: 961, 963, 965, 964, 963 | 1112, 1114,
/// 1128, 1115 | 1105, 1104, 1097, 1104; the sum 13,695 / 13 = 1,053.5. (The creation time
/// is Python's `isoformat`, which drops its microseconds when they are exactly 0: one turn
/// in a million would make a run 7 characters shorter per question listing it.)
#[test]
#[ignore = "needs benchmarks/peers/install.sh python (mcp-memory-service)"]
fn fixture_through_mcp_memory_service() {
    let s = pypi_peer_on_the_fixture(
        "mcp-memory-service",
        &[
            "bin/memory",
            "home/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx/model.onnx",
        ],
    );
    assert_eq!(
        s["recall"]["all"],
        serde_json::json!([0.731, 0.808, 0.808, 0.808])
    );
    // multi-hop: pets 0.5, Dan 1, baker 1; temporal: Lisbon 0, when 1, open 1; adversarial:
    // film 0, Finn 0 at 5 and 1 from 10
    for (cat, r) in [
        ("multi-hop", [0.833; 4]),
        ("temporal", [0.667; 4]),
        ("open-domain", [1.0; 4]),
        ("single-hop", [1.0; 4]),
        ("adversarial", [0.0, 0.5, 0.5, 0.5]),
    ] {
        assert_eq!(s["recall"][cat], serde_json::json!(r), "{cat}");
    }
    assert_eq!(s["mean_chars_per_question"], 1053.5);
    assert_eq!(s["reported_by_server"], "memory 12.4.0");
}

/// mcp-server-qdrant 0.8.1 (embedded Qdrant, MiniLM cosine only): a search returns every
/// turn of the conversation (QDRANT_SEARCH_LIMIT 50), so every evidence id that names a
/// stored turn is found by 10. The ranks of the evidence, read from the run's answers (the
/// same in two runs):
/// conv-26  adopt D1:2 rank 3: 1 | Lisbon: malformed, 0 | pets D1:2 rank 1 (D2:02 no such
///          id): 0.5 | film: 0 | city farm: no evidence, 1
/// conv-t1  marathon D1:2 rank 1 | sister D2:1 rank 1 | Dan suggest D2:2 rank 1, D2:3 rank 5
///          | when D1:2 rank 1: 1 each
/// conv-t2  bread D1:2 rank 1 | second baker D2:3 rank 1, D2:1 rank 4 | open D1:2 rank 1 |
///          Finn buy D1:3 rank 4: 1 each
/// all: 10.5 / 13 = 0.808 at every k.
/// Characters per question (a JSON array: a header naming the question, then one
/// `<entry>` per turn), from the run: 1005, 1007, 1009, 1008, 1007 | 1171, 1173, 1187,
/// 1174 | 1164, 1163, 1156, 1163; within a conversation they differ by the questions'
/// lengths alone. The sum 14,387 / 13 = 1,106.7.
#[test]
#[ignore = "needs benchmarks/peers/install.sh python (mcp-server-qdrant)"]
fn fixture_through_mcp_server_qdrant() {
    let s = pypi_peer_on_the_fixture(
        "mcp-server-qdrant",
        &[
            "bin/mcp-server-qdrant",
            "fastembed_cache/fast-all-MiniLM-L6-v2/model.onnx",
        ],
    );
    assert_eq!(
        s["recall"]["all"],
        serde_json::json!([0.808, 0.808, 0.808, 0.808])
    );
    // multi-hop: pets 0.5, Dan 1, baker 1; temporal: Lisbon 0, when 1, open 1; adversarial:
    // film 0, Finn 1
    for (cat, r) in [
        ("multi-hop", 0.833),
        ("temporal", 0.667),
        ("open-domain", 1.0),
        ("single-hop", 1.0),
        ("adversarial", 0.5),
    ] {
        assert_eq!(s["recall"][cat], serde_json::json!([r, r, r, r]), "{cat}");
    }
    assert_eq!(s["mean_chars_per_question"], 1106.7);
    // its FastMCP server reports the MCP SDK's version (mcp==1.30.0 in
    // benchmarks/peers/python/mcp-server-qdrant.txt)
    assert_eq!(s["reported_by_server"], "mcp-server-qdrant 1.30.0");
}
