//! Library-level tests of the loaders on the hand-made fixtures in `datasets/fixtures/`
//! (the rules of the reference's `_build_graph`; errors name file, 0-based row and field).

use crate::common;

use std::io::Write;

use bench::data::hotpotqa::{self, PaperCorpus as HotpotCorpus};
use bench::data::multihop::{self, PaperCorpus as MultihopCorpus, QuerySelection};
use bench::data::EdgeOp;
use bench::Error;
use common::fixture;

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn op(s: &str, t: &str, w: f64) -> EdgeOp {
    EdgeOp {
        source: s.into(),
        target: t.into(),
        weight: w,
    }
}

#[test]
fn hotpot_fixture_questions() {
    let qs = hotpotqa::load_questions(&fixture("hotpotqa_tiny.json"), None).unwrap();
    assert_eq!(qs.len(), 3);
    let q = &qs[0];
    assert_eq!(q.index, 0);
    assert_eq!(q.id, "fx0001");
    // Question text is kept verbatim, trailing space included.
    assert_eq!(
        q.question,
        "Which harbour is home to the crab that won the Shell Cup? "
    );
    assert_eq!(q.answer, "Tidewater");
    assert_eq!(q.qtype.as_deref(), Some("bridge"));
    assert_eq!(q.level.as_deref(), Some("hard"));
    assert_eq!(q.supporting_titles, ids(&["Shell Cup", "Pinchy (crab)"]));
    assert_eq!(q.supporting_facts.len(), 3);
    // The blank-titled paragraph is left out, as the reference skips it.
    let pairs: Vec<(&str, &str)> = q.title_texts().collect();
    assert_eq!(
        pairs,
        [
            (
                "Shell Cup",
                "The Shell Cup is a sideways-racing trophy. It was won in 2019 by Pinchy."
            ),
            (
                "Pinchy (crab)",
                "Pinchy is a racing crab. He lives in Tidewater harbour."
            ),
            (
                "Kelp Forest",
                "A kelp forest is an underwater area. Crabs hide there."
            ),
        ]
    );
    assert_eq!(q.paragraphs[1].sentences.len(), 3, "raw sentences are kept");
    assert_eq!(qs[2].paragraphs[2].title, "\u{c9}tang des Crabes");
}

#[test]
fn hotpot_fixture_reference_corpus() {
    let qs = hotpotqa::load_questions(&fixture("hotpotqa_tiny.json"), None).unwrap();
    let c = HotpotCorpus::build(&qs);
    let node_ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        node_ids,
        [
            "shell_cup",
            "pinchy_crab",
            "kelp_forest",
            "crab_path",
            "tang_des_crabes"
        ]
    );
    // First occurrence wins; the later Kelp Forest texts are ignored.
    assert_eq!(
        c.nodes.nodes["kelp_forest"].content,
        "A kelp forest is an underwater area. Crabs hide there."
    );
    assert_eq!(
        c.nodes.nodes["tang_des_crabes"].content,
        "A lagoon \u{2014} with crabs."
    );
    // "Crab-Path" collides with "Crab Path" and is not mapped.
    assert_eq!(c.nodes.id_of("Crab Path"), Some("crab_path"));
    assert_eq!(c.nodes.id_of("Crab-Path"), None);
    assert_eq!(
        c.context_ids,
        [
            ids(&["kelp_forest", "pinchy_crab", "shell_cup"]),
            ids(&["crab_path", "kelp_forest"]),
            ids(&["kelp_forest", "pinchy_crab", "tang_des_crabes"]),
        ]
    );
    assert_eq!(c.relevant(0), ids(&["shell_cup", "pinchy_crab"]).as_slice());
    assert_eq!(c.relevant(1), ids(&["crab_path"]).as_slice());
    assert_eq!(
        c.relevant(2),
        ids(&["kelp_forest", "pinchy_crab"]).as_slice()
    );

    let clean = c.edge_ops(false);
    assert_eq!(clean.len(), 14);
    assert_eq!(
        &clean[..6],
        &[
            op("kelp_forest", "pinchy_crab", 0.3),
            op("pinchy_crab", "kelp_forest", 0.3),
            op("kelp_forest", "shell_cup", 0.3),
            op("shell_cup", "kelp_forest", 0.3),
            op("pinchy_crab", "shell_cup", 0.3),
            op("shell_cup", "pinchy_crab", 0.3),
        ]
    );
    let paper = c.edge_ops(true);
    assert_eq!(paper.len(), 18);
    assert_eq!(&paper[..14], clean.as_slice());
    assert_eq!(c.label_ops().as_slice(), &paper[14..]);
    assert_eq!(
        &paper[14..],
        &[
            op("shell_cup", "pinchy_crab", 0.5),
            op("pinchy_crab", "shell_cup", 0.5),
            op("kelp_forest", "pinchy_crab", 0.5),
            op("pinchy_crab", "kelp_forest", 0.5),
        ]
    );
}

#[test]
fn hotpot_limit_stops_before_a_bad_row() {
    let p = fixture("hotpotqa_malformed.json");
    let qs = hotpotqa::load_questions(&p, Some(1)).unwrap();
    assert_eq!(qs.len(), 1);
    assert!(hotpotqa::load_questions(&p, Some(0)).unwrap().is_empty());
}

#[test]
fn hotpot_malformed_names_file_row_and_field() {
    let p = fixture("hotpotqa_malformed.json");
    let e = hotpotqa::load_questions(&p, None).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Malformed { row: 1, .. }), "{msg}");
    assert_eq!(
        msg,
        format!(
            "{}: row 1: field context[0][1][2]: expected string, found number 7",
            p.display()
        )
    );
    assert_eq!(e.exit_code(), 2);
    assert!(!msg.contains('\n'));
}

#[test]
fn gzip_is_read_transparently() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read(fixture("hotpotqa_tiny.json")).unwrap();
    // Deliberately without a .gz suffix: detection is by magic bytes.
    let gz = dir.path().join("tiny.json");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::best(),
    );
    enc.write_all(&src).unwrap();
    enc.finish().unwrap();
    let a = hotpotqa::load_questions(&fixture("hotpotqa_tiny.json"), None).unwrap();
    let b = hotpotqa::load_questions(&gz, None).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        bench::data::json::sha256_of_content(&gz).unwrap(),
        common::sha256_hex(&src)
    );
}

#[test]
fn syntax_errors_and_wrong_top_level() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("broken.json");
    std::fs::write(&p, "[\n{\"_id\":\"a\"},\n{\"_id\": }\n]").unwrap();
    let e = bench::data::json::for_each_row(&p, |_, _| Ok(bench::data::json::Flow::Continue))
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(
            e,
            Error::Json {
                row: Some(1),
                line: 3,
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.starts_with(&format!("{}: row 1: invalid JSON at line 3", p.display())),
        "{msg}"
    );

    std::fs::write(&p, "  {\"query\": \"x\"}").unwrap();
    let e = multihop::load_queries(&p, QuerySelection::all()).unwrap_err();
    assert!(matches!(e, Error::NotAnArray { .. }), "{e}");
    assert!(e.to_string().contains("found an object"), "{e}");

    std::fs::write(&p, "[] x").unwrap();
    let e = multihop::load_queries(&p, QuerySelection::all()).unwrap_err();
    assert!(matches!(e, Error::Json { row: None, .. }), "{e}");

    std::fs::write(&p, "[]").unwrap();
    assert!(multihop::load_queries(&p, QuerySelection::all())
        .unwrap()
        .is_empty());
}

#[test]
fn multihop_fixture_queries() {
    let p = fixture("multihop_tiny.json");
    let all = multihop::load_queries(&p, QuerySelection::all()).unwrap();
    assert_eq!(all.len(), 4);
    assert!(all[2].is_null_query());
    assert_eq!(all[0].evidence[1].author, None);
    assert_eq!(all[0].evidence[1].fact, "");
    // Facts are stripped, as the reference strips them.
    assert_eq!(
        all[1].evidence[0].fact,
        "Marshals checked every shell with an app made by ShellSoft."
    );
    let sel = multihop::load_queries(&p, QuerySelection::paper(None)).unwrap();
    let idx: Vec<usize> = sel.iter().map(|q| q.index).collect();
    assert_eq!(idx, [0, 1, 3], "null query dropped, file positions kept");
    let two = multihop::load_queries(&p, QuerySelection::paper(Some(2))).unwrap();
    assert_eq!(two.len(), 2);
}

#[test]
fn multihop_fixture_reference_corpus() {
    let sel = multihop::load_queries(&fixture("multihop_tiny.json"), QuerySelection::paper(None))
        .unwrap();
    let c = MultihopCorpus::build(&sel);
    let crab = "crab_racing_is_back_in_tidewater";
    let tide = "tidewater_welcomes_the_crabs_home";
    let shell = "shellsoft_ships_version_2_of_its_scanner";
    let node_ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(node_ids, [crab, tide, shell]);
    // Empty content filled by the later non-empty fact; non-empty content never changes.
    assert_eq!(
        c.nodes.nodes[tide].content,
        "Marshals checked every shell with an app made by ShellSoft."
    );
    assert_eq!(
        c.nodes.nodes[crab].content,
        "Sideways racing returned to Tidewater harbour on Saturday after a two-year pause."
    );
    assert_eq!(
        c.nodes.id_of("ShellSoft ships version 2 of its scanner!"),
        None
    );
    let sources: Vec<(&str, Vec<String>)> = c
        .source_groups
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    assert_eq!(
        sources,
        [
            ("Reef Daily", ids(&[crab])),
            ("The Tide Times", ids(&[tide])),
            ("Kelp Tech", ids(&[shell])),
        ]
    );
    assert_eq!(c.category_groups["sports"], ids(&[crab, tide]));
    assert_eq!(c.category_groups["technology"], ids(&[shell]));
    assert_eq!(c.relevant(0), ids(&[crab, tide]).as_slice());
    assert_eq!(c.relevant(1), ids(&[crab, shell, tide]).as_slice());
    // The unmapped colliding title is not relevant.
    assert_eq!(c.relevant(2), ids(&[crab]).as_slice());

    assert_eq!(
        c.edge_ops(false),
        [op(crab, tide, 0.35), op(tide, crab, 0.35)]
    );
    let paper = c.edge_ops(true);
    assert_eq!(paper.len(), 10);
    assert_eq!(
        &paper[2..],
        &[
            op(crab, tide, 0.5),
            op(tide, crab, 0.5),
            op(crab, shell, 0.5),
            op(shell, crab, 0.5),
            op(crab, tide, 0.5),
            op(tide, crab, 0.5),
            op(shell, tide, 0.5),
            op(tide, shell, 0.5),
        ]
    );
}

#[test]
fn multihop_malformed_names_file_row_and_field() {
    let p = fixture("multihop_malformed.json");
    let e = multihop::load_queries(&p, QuerySelection::all()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: row 2: field evidence_list[1].fact: expected string (or null), found array of 3",
            p.display()
        )
    );
}

#[test]
fn multihop_corpus_fixture() {
    let arts = multihop::load_corpus(&fixture("multihop_corpus_tiny.json")).unwrap();
    assert_eq!(arts.len(), 3);
    assert_eq!(arts[1].author, None);
    assert_eq!(arts[2].source.as_deref(), Some("Kelp Tech"));
    assert!(arts[0].body.starts_with("Sideways racing"));
}

#[test]
fn missing_required_key_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("q.json");
    std::fs::write(
        &p,
        r#"[{"answer": "x", "question_type": "inference_query", "evidence_list": []}]"#,
    )
    .unwrap();
    let e = multihop::load_queries(&p, QuerySelection::all()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: row 0: field query: expected a value, found no such key",
            p.display()
        )
    );
}
