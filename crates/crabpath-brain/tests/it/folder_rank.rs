//! A folder brain's answer is re-ordered by the ranker of
//! `crabpath_brain::service::folder_rank` (issue 28, "Target success@5 ≥ 0.9"): a page
//! whose file name the question says comes before pages BM25 prefers for repeated
//! words; asked with `rerank: false`, the answer keeps the order before it.

use crate::common;

use crabpath::graph::{Graph, Node};
use crabpath::profile::Profile;
use crabpath_brain::service::Seeding;
use crabpath_brain::QueryRequest;

/// `unp.md` and `ark.md` repeat every word of the question, so BM25 ranks them above
/// `tar.md`, which says "tar" once; the question names `tar` (every word of its name).
fn graph() -> Graph {
    let mut g = Graph::new();
    for (id, text, file) in [
        (
            "unp.md::0",
            "extract a tar archive: unp extracts any tar archive, extract archive",
            "unp.md",
        ),
        (
            "ark.md::0",
            "extract an archive, tar or zip: extract every tar archive",
            "ark.md",
        ),
        (
            "tar.md::0",
            "tar: the archiving utility of old tapes and many other things besides",
            "tar.md",
        ),
        ("cat.md::0", "print a file to the terminal", "cat.md"),
        ("ls.md::0", "list the files of a directory", "ls.md"),
    ] {
        g.add_node(Node::new(id, text).with_meta("file", file));
    }
    g
}

fn ranked(rerank: bool) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let db = common::hash_store(dir.path(), &graph());
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    let mut req = QueryRequest::new("how do I extract a tar archive", 3);
    req.limit = Some(5);
    req.seeding = Some(Seeding::Lexical);
    req.rerank = rerank;
    let a = b.query(&req).unwrap();
    a.ranked().into_iter().map(str::to_string).collect()
}

#[test]
fn a_page_the_question_names_comes_first() {
    // before the ranker: BM25's order, unp and ark (two terms each, repeated) first
    let before = ranked(false);
    assert_ne!(
        before.first().map(String::as_str),
        Some("tar.md::0"),
        "{before:?}"
    );
    // tar.md's features: every word of its name ("tar") is a question term, +1 + 1 × -0.05
    // (WEIGHTS [1, -0.05, 1]) = +0.95, more than the 1 - 1/3 that place 0 has over place 2
    let after = ranked(true);
    assert_eq!(
        after.first().map(String::as_str),
        Some("tar.md::0"),
        "{after:?}"
    );
    let (mut a, mut b) = (before.clone(), after.clone());
    a.sort();
    b.sort();
    assert_eq!(a, b, "the ranker re-orders, it neither adds nor drops");
}
