//! Queries on a full database (issue 30 item 4: "a full disk gives a clear error for
//! the write, nothing corrupt, and queries keep working"). The disk is made full
//! deterministically: [`Brain::fill_database_for_test`] compacts the file and caps it
//! at its size (`PRAGMA max_page_count`), so a write needing a new page fails with
//! `SQLITE_FULL`, as on the 64 MiB tmpfs of `bench team-load --full-disk`.

use crate::common;

use crabpath::profile::Profile;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::FeedbackRequest;
use crabpath_brain::{Brain, QueryRequest};
use pyformat::pyjson::PyValue;

const CHAT: &str = "c1";

/// A question whose journal entry is longer than `page` bytes (it quotes the text),
/// so that the entry needs a new page: the fixture's words, repeated.
fn long_question(page: usize) -> String {
    let mut q = String::new();
    while q.len() <= 2 * page {
        q.push_str("how do I deploy the service and read the notes ");
    }
    q
}

/// Asks `text` in chat [`CHAT`]; returns the ranked ids, whether it was journaled and
/// the warning.
fn ask(b: &mut Brain, text: &str) -> (Vec<String>, bool, Option<String>) {
    let mut req = QueryRequest::new(text, 3);
    req.limit = Some(5);
    req.journal_metadata = PyValue::Dict(
        [("chat_id".to_string(), PyValue::Str(CHAT.into()))]
            .into_iter()
            .collect(),
    );
    let a = b.query(&req).unwrap();
    let ranked = a.ranked().iter().map(|s| s.to_string()).collect();
    (
        ranked,
        a.journaled(),
        a.unjournaled.as_ref().map(|u| u.warning()),
    )
}

fn counts(db: &std::path::Path) -> (i64, i64) {
    let c = common::kept::open(db);
    let n = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    (
        n("SELECT count(*) FROM journal"),
        n("SELECT count(*) FROM nodes"),
    )
}

#[test]
fn a_full_database_answers_queries_unjournaled_and_refuses_writes() {
    for resident in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let (_, db) = common::fixture_brain(&tmp.path().join("full"));
        let (_, spare) = common::fixture_brain(&tmp.path().join("spare"));
        let mut full = common::open_hash(&db, Profile::Corrected, resident);
        let mut normal = common::open_hash(&spare, Profile::Corrected, resident);
        let page = full.fill_database_for_test().unwrap();
        let q = long_question(page);
        let before = counts(&db);

        // the same answer as a brain with room, marked unjournaled
        let (expected, journaled, warning) = ask(&mut normal, &q);
        assert!(journaled && warning.is_none());
        let (ranked, journaled, warning) = ask(&mut full, &q);
        assert_eq!(ranked, expected, "resident {resident}");
        assert!(!journaled);
        let warning = warning.unwrap();
        assert!(
            warning.contains(&db.display().to_string())
                && warning.contains("database or disk is full"),
            "{warning}"
        );
        // no journal entry, no question node grown (the brain with room grew one:
        // neurogenesis is on by default)
        assert_eq!(counts(&db), before, "resident {resident}");
        let grown = counts(&spare).1 - before.1;
        assert_eq!(grown, 1, "the control's question node");

        // feedback for that chat: a clear error naming the reason
        let err = full
            .feedback(&FeedbackRequest {
                outcome: 1.0,
                chat_id: Some(CHAT),
                fired_ids: None,
                turns_ago: None,
                window: Window::default(),
                used_ids: None,
            })
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("not journaled") && err.contains("database or disk is full"),
            "{err}"
        );

        // another write fails with the database's error and changes nothing
        let teach = "a teaching long enough to need its own page ".repeat(page / 40);
        let err = full
            .teach(&teach, "TEACHING", None, "test")
            .unwrap_err()
            .to_string();
        assert!(err.contains("database or disk is full"), "{err}");
        drop(full);
        assert_eq!(counts(&db), before);
        let c = common::kept::open(&db);
        let ok: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
    }
}

/// The daemon answers a query on a full database with the answer, `journaled: false`
/// and the warning; a feedback for its chat gets the error; a normal query's answer
/// has neither field.
#[test]
fn the_daemon_answers_unjournaled_on_a_full_database() {
    use crabpath_brain::serve::daemon::{Daemon, Step};
    let tmp = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(tmp.path());
    let mut brain = common::open_hash(&db, Profile::Corrected, true);
    let page = brain.fill_database_for_test().unwrap();
    let (mut d, _) = Daemon::new(brain, 0).unwrap();
    let mut answer = |line: &str| -> serde_json::Value {
        match d.handle(line) {
            Step::Answer(a) => serde_json::from_str(&a).unwrap(),
            other => panic!("{other:?}"),
        }
    };
    let short = answer(r#"{"id": 1, "method": "query", "params": {"query": "deploy"}}"#);
    let r = &short["result"];
    assert!(
        r.get("journaled").is_none() && r.get("warning").is_none(),
        "{r}"
    );
    let q = serde_json::json!({"id": 2, "method": "query",
        "params": {"query": long_question(page), "chat_id": CHAT}});
    let full = answer(&q.to_string());
    let r = &full["result"];
    assert_eq!(r["journaled"], false, "{full}");
    assert!(r["fired_nodes"].as_array().is_some_and(|f| !f.is_empty()));
    let w = r["warning"].as_str().unwrap();
    assert!(w.contains("brain.db: database or disk is full"), "{w}");
    assert!(r.get("turn").is_none(), "no turn logged: {r}");
    let fb = serde_json::json!({"id": 3, "method": "learn_by_chat_id",
        "params": {"chat_id": CHAT, "outcome": 1.0}});
    let e = answer(&fb.to_string());
    let m = e["error"]["message"].as_str().unwrap_or_default();
    assert!(m.contains("not journaled"), "{e}");
}
