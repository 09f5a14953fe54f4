//! The workspace bootstrap's profile differences and edge cases. Each fix of the
//! `corrected` profile (tables in the `workspace` and `chunk` module docs) is checked
//! with its before (paper) and after (corrected) value; edge cases that cannot live in
//! a committed fixture (file-system order, invalid UTF-8, symbolic links, non-UTF-8
//! names) are built in temporary directories.

use std::path::{Path, PathBuf};

use crabpath::{Profile, VectorIndex};
use crabpath_brain::reference::reffiles::{write_init, EmbedderInfo};
use crabpath_brain::reference::statefile::{load_state, save_state};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::{walk, SkipReason, SplitOptions};
use crabpath_brain::Error;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crabpath/tests/fixtures/workspace")
}

fn files(dir: &Path, profile: Profile) -> Vec<String> {
    walk(dir, &SplitOptions::new(profile))
        .unwrap()
        .files
        .into_iter()
        .map(|c| c.rel)
        .collect()
}

fn ids(dir: &Path, profile: Profile) -> Vec<String> {
    let b = split_workspace(dir, &SplitOptions::new(profile)).unwrap();
    b.texts().map(|(id, _)| id.to_string()).collect()
}

#[test]
fn walking_rules_on_the_fixture() {
    let paper = files(&fixture(), Profile::Paper);
    let fixed = files(&fixture(), Profile::Corrected);
    let has = |v: &[String], f: &str| v.iter().any(|x| x == f);
    // both: hidden, default excludes, no suffix, binary suffixes, depth limit, dir patterns
    for f in [
        ".env.md",
        ".hidden.md",
        "README",
        "logo.png",
        "data.bin",
        "build/out.md",
        "__pycache__/x.py",
        "venv/lib.py",
        "env/settings.md",
        "logs/today.md",
        "docs/private/p.md",
        "docs/deep/deeper/toodeep/d.md",
        "secret_keys.md",
        "app.log.md",
        "kept-not.md",
    ] {
        assert!(!has(&paper, f) && !has(&fixed, f), "{f} must be skipped");
    }
    for f in [
        "UP.MD",
        "README.md",
        "docs/deep/deeper/c.md",
        "docs/deep/deeper/sibling.txt",
        "code.py",
        "empty.md",
    ] {
        assert!(has(&paper, f) && has(&fixed, f), "{f} must be walked");
    }
    // W2: the reference's gitignore bugs (before) and git's rules (after)
    assert!(has(&paper, "ign.md") && !has(&fixed, "ign.md"));
    assert!(!has(&paper, "gn.md") && has(&fixed, "gn.md"));
    assert!(!has(&paper, "env.md") && has(&fixed, "env.md"));
    assert!(!has(&paper, "keep.md") && has(&fixed, "keep.md"));
    assert!(has(&paper, "queries.json") && !has(&fixed, "queries.json"));
    // files first (code-point order), then subdirectories
    let top: Vec<&String> = paper.iter().take_while(|f| !f.contains('/')).collect();
    let mut sorted = top.clone();
    sorted.sort();
    assert_eq!(top, sorted);
    assert_eq!(top[0], "README.md");
    assert_eq!(top[1], "UP.MD");
}

/// A dependency folder is skipped in both profiles. It is made here rather than kept in
/// the committed fixture: a tracked `node_modules/` looks like an installed package.
#[test]
fn a_dependency_folder_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("node_modules/pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("readme.md"), "# dependency\n").unwrap();
    std::fs::write(dir.path().join("notes.md"), "# notes\n\nKept.\n").unwrap();
    for profile in [Profile::Paper, Profile::Corrected] {
        assert_eq!(files(dir.path(), profile), ["notes.md"], "{profile:?}");
    }
}

#[test]
fn chunking_fixes_on_the_fixture() {
    let opts = |p| SplitOptions::new(p);
    let paper = split_workspace(fixture(), &opts(Profile::Paper)).unwrap();
    let fixed = split_workspace(fixture(), &opts(Profile::Corrected)).unwrap();
    let content = |b: &crabpath_brain::source::bootstrap::Bootstrap, id: &str| {
        b.graph.get_node(id).map(|n| n.content.clone())
    };
    // C1: the decorator ends the module chunk (before) or starts the function's (after)
    assert_eq!(
        content(&paper, "code.py::0").unwrap(),
        "\"\"\"Orchard helpers.\"\"\"\nimport os\n\n@cache"
    );
    assert_eq!(
        content(&fixed, "code.py::0").unwrap(),
        "\"\"\"Orchard helpers.\"\"\"\nimport os"
    );
    assert!(content(&fixed, "code.py::1")
        .unwrap()
        .starts_with("@cache\ndef load_config(path):"));
    // C2: a file kept whole keeps its trailing newline (before) or is stripped (after)
    assert_eq!(
        content(&paper, "docs/small.json::0").unwrap(),
        "{\"a\": 1}\n"
    );
    assert_eq!(content(&fixed, "docs/small.json::0").unwrap(), "{\"a\": 1}");
    // C3: metadata kind
    let kind = |b: &crabpath_brain::source::bootstrap::Bootstrap, id: &str| {
        b.graph.get_node(id).unwrap().metadata["kind"].clone()
    };
    assert_eq!(kind(&paper, "code.py::1"), "markdown");
    assert_eq!(kind(&fixed, "code.py::1"), "python");
    assert_eq!(kind(&fixed, "docs/big.json::0"), "json");
    assert_eq!(kind(&fixed, "docs/config.yaml::0"), "config");
    // W4: a file with NUL bytes is indexed (before) or skipped and reported (after)
    assert!(paper.graph.get_node("nul.txt::0").is_some());
    assert!(fixed.graph.get_node("nul.txt::0").is_none());
    assert!(fixed
        .skipped
        .iter()
        .any(|s| s.rel == "nul.txt" && s.reason == SkipReason::Binary));
    // the chunkers at work: sections, splits, blank files
    let count = |prefix: &str| {
        paper
            .texts()
            .filter(|(id, _)| id.starts_with(prefix))
            .count()
    };
    assert_eq!(count("docs/runbook.md::"), 13);
    assert_eq!(count("docs/big.json::"), 7);
    assert_eq!(count("docs/array.json::"), 1);
    assert_eq!(count("docs/config.yaml::"), 7);
    assert_eq!(count("docs/settings.toml::"), 6);
    assert_eq!(count("docs/setup.cfg::"), 1);
    assert_eq!(count("empty.md::"), 0);
    assert_eq!(count("blank.txt::"), 0);
    let f = paper.files.iter().find(|f| f.rel == "blank.txt").unwrap();
    assert_eq!((f.chunks, f.nodes), (1, 0));
    // duplicate JSON keys keep the first position and the last value
    assert_eq!(
        content(&paper, "docs/big.json::0").unwrap(),
        "service:\n{\n  \"name\": \"orchard-v2\",\n  \"dup\": true\n}"
    );
}

#[test]
fn directory_order_follows_the_file_system_or_is_sorted() {
    let dir = tempfile::tempdir().unwrap();
    for d in ["zz", "aa", "mm"] {
        std::fs::create_dir(dir.path().join(d)).unwrap();
        std::fs::write(dir.path().join(d).join("f.md"), format!("# {d}\n")).unwrap();
    }
    // W1: paper walks subdirectories in `read_dir` order, corrected sorts them
    let listed: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let paper = ids(dir.path(), Profile::Paper);
    let want: Vec<String> = listed.iter().map(|d| format!("{d}/f.md::0")).collect();
    assert_eq!(paper, want);
    assert_eq!(
        ids(dir.path(), Profile::Corrected),
        ["aa/f.md::0", "mm/f.md::0", "zz/f.md::0"]
    );
}

#[test]
fn invalid_utf8_is_an_error_or_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.md"), "# good\n").unwrap();
    std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
    // W3: the reference aborts (UnicodeDecodeError); corrected skips and reports
    match split_workspace(dir.path(), &SplitOptions::new(Profile::Paper)) {
        Err(Error::InvalidUtf8 {
            path,
            offset,
            byte,
            reason,
        }) => {
            assert!(path.ends_with("latin1.txt"));
            assert_eq!(
                (offset, byte, reason),
                (3, 0xe9, "invalid continuation byte")
            );
        }
        other => panic!("expected InvalidUtf8, got {other:?}"),
    }
    let b = split_workspace(dir.path(), &SplitOptions::new(Profile::Corrected)).unwrap();
    assert_eq!(b.graph.node_count(), 1);
    assert_eq!(b.skipped[0].rel, "latin1.txt");
    assert_eq!(b.skipped[0].reason, SkipReason::InvalidUtf8 { offset: 3 });
}

#[test]
fn workspace_that_is_a_file_or_missing() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("one.md");
    std::fs::write(&f, "# one\n").unwrap();
    // W5: the reference builds an empty brain from a file; corrected says what is wrong
    let b = split_workspace(&f, &SplitOptions::new(Profile::Paper)).unwrap();
    assert_eq!(b.graph.node_count(), 0);
    let e = split_workspace(&f, &SplitOptions::new(Profile::Corrected)).unwrap_err();
    assert!(matches!(e, Error::NotADirectory(_)), "{e}");
    for p in Profile::ALL {
        let e = split_workspace(dir.path().join("missing"), &SplitOptions::new(p)).unwrap_err();
        assert!(e.to_string().starts_with("workspace not found: "), "{e}");
    }
}

#[cfg(unix)]
#[test]
fn symlinks_and_non_utf8_names() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("inner.md"), "# inner\n").unwrap();
    std::fs::write(dir.path().join("target.md"), "# target\n").unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("linkdir")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("target.md"), dir.path().join("link.md")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("nowhere.md"), dir.path().join("broken.md"))
        .unwrap();
    // links to files count as files, links to directories are not entered, broken links are skipped
    assert_eq!(
        files(dir.path(), Profile::Paper),
        ["link.md", "target.md", "real/inner.md"]
    );
    // W6: a candidate whose name is not UTF-8
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    std::fs::write(dir.path().join(name), "# bad name\n").unwrap();
    let e = walk(dir.path(), &SplitOptions::new(Profile::Paper)).unwrap_err();
    assert!(matches!(e, Error::NonUtf8Path(_)), "{e}");
    let w = walk(dir.path(), &SplitOptions::new(Profile::Corrected)).unwrap();
    assert_eq!(w.skipped.len(), 1);
    assert_eq!(w.skipped[0].reason, SkipReason::NonUtf8Path);
}

#[test]
fn links_out_of_the_workspace_are_not_read_when_corrected() {
    // W7: `ln -s /etc/passwd notes/passwd.txt`, with a file of the test's own outside
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("passwd");
    std::fs::write(&secret, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("inside.md"), "# inside\n").unwrap();
    std::os::unix::fs::symlink(&secret, notes.join("passwd.txt")).unwrap();
    // a link that stays inside is read in both profiles
    std::os::unix::fs::symlink(notes.join("inside.md"), notes.join("alias.md")).unwrap();
    assert_eq!(
        files(dir.path(), Profile::Paper),
        ["notes/alias.md", "notes/inside.md", "notes/passwd.txt"]
    );
    let w = walk(dir.path(), &SplitOptions::new(Profile::Corrected)).unwrap();
    let rels: Vec<&str> = w.files.iter().map(|c| c.rel.as_str()).collect();
    assert_eq!(rels, ["notes/alias.md", "notes/inside.md"]);
    assert_eq!(w.skipped.len(), 1);
    assert_eq!(w.skipped[0].rel, "notes/passwd.txt");
    let real = std::fs::canonicalize(&secret).unwrap();
    assert_eq!(
        w.skipped[0].reason,
        SkipReason::OutsideWorkspace(real.clone())
    );
    // the message is plain words
    assert_eq!(
        w.skipped[0].reason.to_string(),
        format!(
            "a symbolic link to {}, outside the workspace (not read)",
            real.display()
        )
    );
    let b = split_workspace(dir.path(), &SplitOptions::new(Profile::Corrected)).unwrap();
    assert!(b.graph.nodes().all(|(_, n)| !n.content.contains("root:x")));
}

#[test]
fn options_depth_extensions_and_excludes() {
    let mut o = SplitOptions::new(Profile::Paper);
    o.max_depth = 0;
    let top = walk(fixture(), &o).unwrap().files;
    assert!(top.iter().all(|c| !c.rel.contains('/')));
    o.max_depth = 3;
    o.extensions = Some(vec!["PY".into()]);
    let py: Vec<String> = walk(fixture(), &o)
        .unwrap()
        .files
        .into_iter()
        .map(|c| c.rel)
        .collect();
    assert_eq!(py, ["code.py", "script.py"]);
    o.extensions = None;
    o.exclude = vec!["docs/".into(), "*.txt".into(), "UP.MD".into()];
    let rest: Vec<String> = walk(fixture(), &o)
        .unwrap()
        .files
        .into_iter()
        .map(|c| c.rel)
        .collect();
    assert!(rest
        .iter()
        .all(|f| !f.starts_with("docs/") && !f.ends_with(".txt") && f != "UP.MD"));
    assert!(rest.iter().any(|f| f == "README.md"));
}

#[test]
fn a_reference_state_opens_and_saves_unchanged() {
    // a state written in the reference's bytes loads, and saving it again (same
    // created_at, kept from the file) reproduces every byte
    let b = split_workspace(fixture(), &SplitOptions::new(Profile::Paper)).unwrap();
    let out = tempfile::tempdir().unwrap();
    let files = write_init(
        out.path(),
        &b.graph,
        &VectorIndex::new(),
        &EmbedderInfo::hash_v1(),
    )
    .unwrap();
    let before = std::fs::read(&files.state).unwrap();
    let state = load_state(&files.state).unwrap();
    assert_eq!(
        EmbedderInfo::from_meta(&state.meta),
        Some(EmbedderInfo::hash_v1())
    );
    save_state(&files.state, &state, None, None).unwrap();
    assert_eq!(std::fs::read(&files.state).unwrap(), before);
    let other = EmbedderInfo {
        name: "all-MiniLM-L6-v2".into(),
        dim: 384,
    };
    assert!(matches!(
        EmbedderInfo::from_meta(&state.meta)
            .unwrap()
            .check_compatible(&other, Path::new("b")),
        Err(Error::EmbedderMismatch { .. })
    ));
}
