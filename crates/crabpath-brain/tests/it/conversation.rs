//! A conversation as a source of memory (issue 28, item 1): the JSON Lines parser (good
//! files, and each bad line reported with its number and reason), the graph of a
//! conversation (a node per turn in order, chain edges within sessions with the core's
//! sibling weights), and `remember` through the `Brain` service (appended, embedded,
//! chained to the last turn with its `session` value, refused when its id exists, found
//! by a query).

use crate::common;

use std::path::Path;

use crabpath::profile::Profile;
use crabpath_brain::source::bootstrap::sibling_weight;
use crabpath_brain::source::conversation::entities::ENTITY_WEIGHT;
use crabpath_brain::source::conversation::{build_graph, parse_jsonl, read_jsonl, Turn};
use crabpath_brain::QueryRequest;
use serde_json::json;

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/fixtures/conversation.jsonl")
}

fn parse_err(text: &str) -> String {
    parse_jsonl(text, Path::new("chat.jsonl"))
        .unwrap_err()
        .to_string()
}

#[test]
fn the_fixture_parses_in_order_with_integer_sessions_as_text() {
    let turns = read_jsonl(&fixture()).unwrap();
    // datasets/fixtures/conversation.jsonl: 6 turns, one blank line skipped
    assert_eq!(turns.len(), 6);
    assert_eq!(turns[0].id.as_deref(), Some("S1:1"));
    assert_eq!(turns[0].session.as_deref(), Some("1"), "the integer 1");
    assert_eq!(turns[4].id, None);
    assert_eq!(turns[4].speaker.as_deref(), Some("Maya"));
    assert_eq!(
        parse_jsonl("{\"text\": \"only text\"}\n", Path::new("x")).unwrap(),
        vec![Turn {
            text: "only text".into(),
            ..Turn::default()
        }]
    );
}

/// An empty file (or blank lines only) is no turns, not an error: `init --conversation`
/// of it starts an empty conversation brain that `remember` fills (issue 29: a memory
/// driven only through MCP starts that way).
#[test]
fn a_file_without_turns_is_an_empty_conversation() {
    assert_eq!(parse_jsonl("", Path::new("x")).unwrap(), Vec::<Turn>::new());
    assert_eq!(
        parse_jsonl("\n  \n", Path::new("x")).unwrap(),
        Vec::<Turn>::new()
    );
    let c = build_graph(&[]).unwrap();
    assert_eq!((c.graph.node_count(), c.sessions), (0, 0));
}

#[test]
fn every_bad_line_is_named_with_its_number_and_reason() {
    let good = r#"{"id": "a", "text": "hi"}"#;
    let cases = [
        (format!("{good}\nnot json"), "chat.jsonl:2: not JSON"),
        (format!("{good}\n[1, 2]"), "chat.jsonl:2: not a JSON object"),
        (format!("{good}\n\n{{\"speaker\": \"A\"}}"), "chat.jsonl:3: `text` is missing"),
        (format!("{good}\n{{\"text\": 5}}"), "chat.jsonl:2: `text` must be a non-empty string, got a number"),
        (format!("{good}\n{{\"text\": \"  \"}}"), "chat.jsonl:2: `text` is blank"),
        (format!("{good}\n{{\"text\": \"x\", \"session\": [1]}}"), "chat.jsonl:2: `session` must be a string or an integer, got an array"),
        (format!("{good}\n{{\"text\": \"x\", \"time\": 1700000000}}"), "chat.jsonl:2: `time` must be a string (or absent), got a number"),
        (format!("{good}\n{{\"text\": \"x\", \"id\": 3}}"), "chat.jsonl:2: `id` must be a string, got a number"),
        (format!("{good}\n{{\"text\": \"x\", \"speeker\": \"A\"}}"), "chat.jsonl:2: unknown field `speeker` (the fields are: id, session, time, speaker, text; only text is required)"),
        (format!("{good}\n{{\"text\": \"x\"}}\n{good}"), "chat.jsonl:3: duplicate id `a` (line 1 has it already)"),
    ];
    for (text, want) in cases {
        let got = parse_err(&text);
        assert!(got.starts_with(want), "{text:?}: {got}");
        assert!(!got.contains('\n'), "one line: {got}");
    }
}

#[test]
fn a_conversation_graph_is_its_turns_in_order_chained_within_sessions() {
    let turns = read_jsonl(&fixture()).unwrap();
    let c = build_graph(&turns).unwrap();
    let g = &c.graph;
    assert_eq!(c.sessions, 2);
    let ids: Vec<&str> = g.nodes().map(|(_, n)| n.id.as_str()).collect();
    // the fifth turn has no id: the 2nd with `session` 2
    assert_eq!(ids, ["S1:1", "S1:2", "S1:3", "S2:1", "turn:2:2", "S2:3"]);
    let n = g.get_node("S1:2").unwrap();
    assert_eq!(
        n.content,
        "Tom (9:02 am on 3 March, 2024): Nice! Which day do you leave?"
    );
    assert_eq!(n.metadata["kind"], json!("conversation"));
    assert_eq!(n.metadata["session"], json!("1"));
    assert_eq!(n.metadata["speaker"], json!("Tom"));
    assert_eq!(n.metadata["time"], json!("9:02 am on 3 March, 2024"));
    assert_eq!(n.metadata["turn"], json!(1));
    assert!(
        n.metadata.get("file").is_none(),
        "sync never touches a turn"
    );
    // two pairs per session, both ways: 8 chain edges; across sessions only the entity
    // edges of "Lisbon" (S1:1 and S2:1, the one word of 3+ letters both sessions share;
    // crabpath_brain::source::conversation::entities), both ways: 10
    assert_eq!(g.edge_count(), 10);
    let w = |a: &str, b: &str| {
        let (a, b) = (g.lookup(a).unwrap(), g.lookup(b).unwrap());
        g.edge(a, b).map(|e| e.weight)
    };
    // the core's sibling weights, the session as the "file", k the pair's index
    assert_eq!(w("S1:1", "S1:2"), Some(sibling_weight("session:1", 0)));
    assert_eq!(w("S1:3", "S1:2"), Some(sibling_weight("session:1", 1)));
    assert_eq!(w("turn:2:2", "S2:3"), Some(sibling_weight("session:2", 1)));
    assert_eq!(w("S1:3", "S2:1"), None);
    assert_eq!(w("S1:1", "S2:1"), Some(ENTITY_WEIGHT));
    assert_eq!(w("S2:1", "S1:1"), Some(ENTITY_WEIGHT));
}

#[test]
fn a_generated_id_never_takes_a_given_one() {
    let text = "{\"session\": 1, \"text\": \"a\"}\n{\"id\": \"turn:1:1\", \"session\": 2, \"text\": \"b\"}\n";
    let turns = parse_jsonl(text, Path::new("x")).unwrap();
    let g = build_graph(&turns).unwrap().graph;
    let ids: Vec<&str> = g.nodes().map(|(_, n)| n.id.as_str()).collect();
    assert_eq!(ids, ["turn:1:1~2", "turn:1:1"]);
}

fn turn(v: serde_json::Value) -> Turn {
    Turn::from_object(v.as_object().unwrap()).unwrap()
}

#[test]
fn remember_appends_embeds_and_chains_to_the_sessions_last_turn() {
    for resident in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let turns = read_jsonl(&fixture()).unwrap();
        let g = build_graph(&turns).unwrap().graph;
        let db = common::hash_store(dir.path(), &g);
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        let r = b
            .remember_turn(&turn(json!({"session": 1, "speaker": "Tom", "text": "Send me the talk slides about sourdough."})))
            .unwrap();
        // the 4th turn with `session` 1 (3 in the fixture); the 7th conversation turn
        assert_eq!(r.node_id, "turn:1:4");
        assert_eq!(r.turn, 6);
        // the chain edges, then the entity edges to the session-2 turn that shares its
        // rare words ("talk", "sourdough")
        let w = sibling_weight("session:1", 2);
        let e = ENTITY_WEIGHT;
        assert_eq!(
            r.edges,
            vec![
                ("S1:3".to_string(), "turn:1:4".to_string(), w),
                ("turn:1:4".to_string(), "S1:3".to_string(), w),
                ("turn:2:2".to_string(), "turn:1:4".to_string(), e),
                ("turn:1:4".to_string(), "turn:2:2".to_string(), e)
            ]
        );
        // a new session starts a chain of its own
        let r = b
            .remember_turn(&turn(
                json!({"id": "S3:1", "session": "3", "text": "New topic."}),
            ))
            .unwrap();
        assert!(r.edges.is_empty());
        // a taken id is refused, nothing written
        let e = b
            .remember_turn(&turn(json!({"id": "S1:1", "text": "again"})))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`S1:1` exists already"), "{e}");
        assert_eq!(b.node_count().unwrap(), 8, "6 + 2");
        assert_eq!(b.vector_count().unwrap(), 8);
        // a query finds the remembered turn
        let a = b
            .query(&QueryRequest::new("talk slides sourdough", 4))
            .unwrap();
        let fired: Vec<String> = a.fired().iter().map(|s| s.to_string()).collect();
        assert!(fired.contains(&"turn:1:4".to_string()), "{fired:?}");
        drop(a);
        // and another process sees it, with its edges
        drop(b);
        let mut b = common::open_hash(&db, Profile::Corrected, false);
        let (content, edges) = b
            .read(|g, _| {
                let n = g.lookup("turn:1:4").unwrap();
                (
                    g.get_node("turn:1:4").unwrap().content.clone(),
                    g.bucket(n).map_or(0, |x| x.iter().count()),
                )
            })
            .unwrap();
        assert_eq!(content, "Tom: Send me the talk slides about sourdough.");
        assert_eq!(edges, 2, "to S1:3 and turn:2:2");
    }
}

#[test]
fn remember_is_refused_by_the_paper_profile() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fixture_brain(dir.path()).1;
    let mut b = common::open_hash(&db, Profile::Paper, false);
    let e = b
        .remember_turn(&turn(json!({"text": "x"})))
        .unwrap_err()
        .to_string();
    assert!(e.contains("corrected profile"), "{e}");
}

/// After maintenance merged two turns (their positions gone, the later turns not moved
/// up), a remembered turn still comes after every turn heard before it, and the next
/// turn of its session chains to it. Before, a new turn took the number of turns as its
/// position: a later turn's, so it sorted before that turn, and the next turn of the
/// session chained to the older one.
#[test]
fn a_turn_remembered_after_a_merge_comes_last() {
    let lines: Vec<String> = (0..6)
        .map(|k| {
            let speaker = ["Ann", "Bo"][k % 2];
            json!({"id": format!("t{k}"), "session": "1", "speaker": speaker, "text": format!("turn number {k} of the chat")})
                .to_string()
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    drop(common::chat_brain(dir.path(), &lines.join("\n"), true));
    let mut b = common::open_hash(&dir.path().join("brain.db"), Profile::Corrected, false);
    // t2 and t3 learned together both ways until their edges pass the merge bar (0.8)
    common::learn_until_mergeable(&mut b, "t2", "t3");
    b.maintain(&common::daemon_maintain(&["merge"])).unwrap();
    assert!(!b.has_node("t2").unwrap() && !b.has_node("t3").unwrap());
    let turn = |id: &str, text: &str| Turn {
        id: Some(id.into()),
        session: Some("1".into()),
        speaker: Some("Ann".into()),
        text: text.into(),
        ..Turn::default()
    };
    let r6 = b.remember_turn(&turn("t6", "a new turn")).unwrap();
    // positions 0, 1, 4, 5 are taken: one past the last
    assert_eq!(r6.turn, 6);
    assert_eq!(r6.edges[0].0, "t5", "{r6:?}");
    let r7 = b.remember_turn(&turn("t7", "and the next one")).unwrap();
    assert_eq!(r7.turn, 7);
    // before: t7 chained to t5 (t6 had position 4 and sorted before t5)
    assert_eq!(r7.edges[0].0, "t6", "{r7:?}");
}
