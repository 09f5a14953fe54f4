//! `bench check` on `peers.json` (issue 29 acceptance: "`bench check` covers the committed
//! JSON"): the numbers re-derived from the per-question record beside it, a changed
//! number and a missing record each a failure. A record built by hand, no server.

use bench::check::{check_peers, Verdict};
use bench::locomo::data::Category;
use bench::peers::record::{Record, SystemRecord, RECORD_FILE};
use serde_json::{json, Value};

/// Three questions: multi-hop with 2 evidence ids, single-hop with 1, open-domain with
/// none. crabpath finds 1 of 2 at 5 and both from 10, and the single-hop one from 5;
/// peer finds nothing.
fn record() -> Record {
    let sys = |name: &str, hits: Vec<[u8; 4]>, chars| SystemRecord {
        name: name.into(),
        complete: true,
        conversations: 1,
        chars,
        hits,
    };
    Record {
        categories: vec![
            Category::MultiHop,
            Category::SingleHop,
            Category::OpenDomain,
        ],
        evidence: vec![2, 1, 0],
        systems: vec![
            sys(
                "crabpath",
                vec![[1, 2, 2, 2], [1, 1, 1, 1], [0, 0, 0, 0]],
                300,
            ),
            sys("peer", vec![[0; 4]; 3], 0),
        ],
    }
}

/// peers.json as `bench peers` writes it from `rec` (the derived fields) plus the
/// environment's numbers.
fn report(rec: &Record) -> Value {
    let tests = (100, 50, 7);
    let scores: Vec<_> = (0..rec.systems.len()).map(|s| rec.scores(s)).collect();
    let systems: Vec<Value> = scores
        .iter()
        .enumerate()
        .map(|(s, sc)| {
            let mut m = rec.system_json(s, sc);
            for k in [
                "ingest_turns_per_s",
                "query_ms_p50",
                "query_ms_p95",
                "peak_rss_mib",
                "seconds",
            ] {
                m.insert(k.into(), json!(1.5));
            }
            m.insert("version".into(), json!("1"));
            m.insert("reported_by_server".into(), json!("x 1"));
            Value::Object(m)
        })
        .collect();
    json!({
        "input": {"questions": rec.questions()},
        "systems": systems,
        "paired_tests": rec.tests_json(rec.paired_tests(&scores, tests), tests),
    })
}

fn write(dir: &std::path::Path, j: &Value, rec: Option<&Record>) -> std::path::PathBuf {
    let p = dir.join("peers.json");
    std::fs::write(&p, serde_json::to_string_pretty(j).unwrap()).unwrap();
    if let Some(r) = rec {
        r.write(&dir.join(RECORD_FILE)).unwrap();
    }
    p
}

#[test]
fn the_record_round_trips_and_gives_the_hand_computed_recall() {
    let rec = record();
    assert_eq!(Record::parse(&rec.to_text().unwrap()).unwrap(), rec);
    // all at 5: (1/2 + 1 + 1) / 3 = 0.833; at 10: (1 + 1 + 1) / 3 = 1
    let j = report(&rec);
    assert_eq!(
        j["systems"][0]["recall"]["all"],
        json!([0.833, 1.0, 1.0, 1.0])
    );
    // the peer: only the question without evidence counts, 1/3
    assert_eq!(j["systems"][1]["recall"]["all"][1], json!(0.333));
    // 300 characters over 3 questions
    assert_eq!(j["systems"][0]["mean_chars_per_question"], json!(100.0));
}

#[test]
fn check_passes_on_the_report_and_fails_on_one_changed_number_or_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let rec = record();
    let j = report(&rec);
    let p = write(dir.path(), &j, Some(&rec));
    assert_eq!(check_peers(&p).unwrap(), Verdict::Ok);

    // one recall number changed
    let mut bad = j.clone();
    bad["systems"][0]["recall"]["multi-hop"][0] = json!(0.6);
    let p = write(dir.path(), &bad, None);
    match check_peers(&p).unwrap() {
        Verdict::Differs(d) => assert_eq!(d, ["systems[0].recall.multi-hop[0]: 0.6 → 0.5"]),
        v => panic!("expected a difference, got {v:?}"),
    }

    // a paired test's interval changed
    let mut bad = j.clone();
    bad["paired_tests"]["pairs"][0]["diff"] = json!(0.5);
    let p = write(dir.path(), &bad, None);
    assert!(
        matches!(check_peers(&p).unwrap(), Verdict::Differs(d) if d[0].starts_with("paired_tests.pairs[0].diff: 0.5 → "))
    );

    // an environment number missing
    let mut bad = j.clone();
    bad["systems"][1]
        .as_object_mut()
        .unwrap()
        .remove("query_ms_p50");
    let p = write(dir.path(), &bad, None);
    assert!(
        matches!(check_peers(&p).unwrap(), Verdict::Differs(d) if d[0].contains("systems[1].query_ms_p50: expected a number"))
    );

    // no record beside it
    std::fs::remove_file(dir.path().join(RECORD_FILE)).unwrap();
    let p = write(dir.path(), &j, None);
    assert!(matches!(check_peers(&p).unwrap(), Verdict::Differs(d) if d[0].contains("missing")));
}
