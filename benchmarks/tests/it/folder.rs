//! `bench folder` (issue 28, "A question set on a real folder"): the committed question
//! set's shape (without the pages), the checks of a question file, and a run on a tiny
//! folder written here.

use std::path::{Path, PathBuf};

use bench::embed::{EmbedderArg, ModelOpts};
use bench::folder::questions::QuestionSet;
use bench::folder::run::{run, FolderPlan, ARMS};

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/folder-questions/tldr-08e345f.json")
}

#[test]
fn the_committed_question_set_has_the_shape_the_issue_asks() {
    let set = QuestionSet::load(&committed()).unwrap();
    // issue 28: "Write ≥ 100 questions ... each with its acceptable files"
    assert!(
        set.questions.len() >= 100,
        "{} questions",
        set.questions.len()
    );
    assert!(set.questions.iter().all(|q| !q.acceptable.is_empty()));
    // the folder BENCHMARKS.md "A brain as a database" measures: tldr-pages/tldr at
    // 08e345f, pages/, 7,425 files
    assert_eq!(set.about.repository, "tldr-pages/tldr");
    assert_eq!(set.about.commit, "08e345f42639f67d99282813247ac670dc6e87cb");
    assert_eq!(set.about.folder, "pages/");
    assert_eq!(set.about.files, 7425);
    // "Cover many areas": at least ten
    let mut areas: Vec<&str> = set.questions.iter().map(|q| q.area.as_str()).collect();
    areas.sort_unstable();
    areas.dedup();
    assert!(areas.len() >= 10, "areas: {areas:?}");
    // every acceptable file is a Markdown page under one of tldr's platform folders
    for q in &set.questions {
        for f in &q.acceptable {
            assert!(f.ends_with(".md") && f.contains('/'), "{}: {f}", q.id);
        }
    }
}

/// A question set of `questions` (JSON values) in `dir`.
fn write_set(dir: &Path, questions: serde_json::Value) -> PathBuf {
    let doc = serde_json::json!({
        "about": {"repository": "example/folder", "commit": "0000000", "folder": "docs/",
                  "files": 4, "written_by": "this test", "how": "by hand",
                  "scoring": "by page"},
        "questions": questions,
    });
    let p = dir.join("questions.json");
    std::fs::write(&p, serde_json::to_string(&doc).unwrap()).unwrap();
    p
}

fn q(id: &str, text: &str, acceptable: &[&str]) -> serde_json::Value {
    serde_json::json!({"id": id, "area": "test", "question": text, "acceptable": acceptable})
}

#[test]
fn a_question_file_that_breaks_a_rule_is_refused_naming_the_question_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            vec![
                q("a", "how to unpack", &["x.md"]),
                q("b", "How  to UNPACK", &["y.md"]),
            ],
            "row 1: field question: expected a question no other asks",
        ),
        (
            vec![q("a", "how to unpack", &[])],
            "row 0: field acceptable: expected at least one acceptable file",
        ),
        (
            vec![q("a", "one", &["x.md"]), q("a", "two", &["y.md"])],
            "row 1: field id: expected an id no other question has",
        ),
        (
            vec![q("a", "one", &["x.md", "../secret.md"])],
            "row 0: field acceptable[1]: expected a relative path inside the folder",
        ),
        (
            vec![q("a", "one", &["x.md", "x.md"])],
            "row 0: field acceptable[1]: expected a file listed once",
        ),
    ];
    for (questions, expected) in cases {
        let p = write_set(dir.path(), serde_json::Value::Array(questions));
        let e = QuestionSet::load(&p).unwrap_err().to_string();
        assert!(e.contains(expected), "{e}");
        assert!(e.starts_with(&p.display().to_string()), "{e}");
    }
    let p = write_set(dir.path(), serde_json::json!([q("a", "one", &["x.md"])]));
    let set = QuestionSet::load(&p).unwrap();
    let e = set.check_files(&p, dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("row 0: field acceptable[0]: expected a file of") && e.contains("`x.md`"),
        "{e}"
    );
}

/// A folder of four pages (two sections each, so two chunks a page).
fn tiny_folder(dir: &Path) -> PathBuf {
    let ws = dir.join("docs");
    std::fs::create_dir_all(ws.join("common")).unwrap();
    let pages = [
        ("common/tar.md", "# tar\n\nArchiving utility for tarballs.\n\n## extract\n\nExtract a gzipped tarball: `tar xzf archive.tar.gz`\n"),
        ("common/ss.md", "# ss\n\nInvestigate sockets.\n\n## listening\n\nShow listening TCP sockets and their processes: `ss -ltnp`\n"),
        ("common/git-stash.md", "# git stash\n\nStash local Git changes in a temporary area.\n\n## save\n\nStash uncommitted modifications: `git stash push`\n"),
        ("common/ffmpeg.md", "# ffmpeg\n\nVideo conversion tool.\n\n## gif\n\nConvert a video clip into an animated gif: `ffmpeg -i video.mp4 out.gif`\n"),
    ];
    for (rel, text) in pages {
        std::fs::write(ws.join(rel), text).unwrap();
    }
    ws
}

#[test]
fn a_run_on_a_tiny_folder_asks_every_question_in_every_arm_and_scores_by_page() {
    let dir = tempfile::tempdir().unwrap();
    let ws = tiny_folder(dir.path());
    let questions = write_set(
        dir.path(),
        serde_json::json!([
            q("q1", "extract gzipped tarball", &["common/tar.md"]),
            q("q2", "listening sockets processes", &["common/ss.md"]),
            q(
                "q3",
                "stash uncommitted modifications",
                &["common/git-stash.md"]
            ),
            q("q4", "animated gif from video clip", &["common/ffmpeg.md"]),
            q("q5", "zzz nothing matches qqq", &["common/tar.md"]),
        ]),
    );
    let plan = FolderPlan {
        workspace: ws,
        questions,
        embedders: vec![EmbedderArg::HashV1],
        model: ModelOpts::default(),
        top: 10,
        limit: 50,
        work: dir.path().join("work"),
        progress: false,
    };
    let r = run(&plan, "bench folder (test)".into()).unwrap();
    assert_eq!((r.questions, r.files), (5, 4));
    // two sections a page: the page's title section and its `##` section
    assert_eq!(r.chunks, 8);
    assert_eq!(r.brains.len(), 1);
    let b = &r.brains[0];
    assert_eq!(b.embedder, "hash-v1");
    assert!(b.brain_bytes > 0);
    let names: Vec<&str> = b.arms.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ARMS.map(|a| a.name));
    for a in &b.arms {
        assert_eq!(a.ranks.len(), 5, "{}", a.name);
        assert_eq!(a.scores.questions, 5);
        // pages are deduplicated: 4 pages at most, so a hit is at rank 1..=4
        assert!(a.ranks.iter().flatten().all(|&r| (1..=4).contains(&r)));
    }
    // page-level BM25: each of the first four questions shares its words with one page
    // only, so that page comes first; the fifth shares none, and BM25 lists no page
    assert_eq!(
        r.page_bm25.ranks,
        vec![Some(1), Some(1), Some(1), Some(1), None]
    );
    assert_eq!(r.page_bm25.scores.success_at_1, 0.8);
    // the table names every arm and the reference
    let md = bench::folder::run::markdown(&r);
    for a in ARMS {
        assert!(md.contains(a.label), "{md}");
    }
    assert!(md.contains("plain page-level BM25"));
}
