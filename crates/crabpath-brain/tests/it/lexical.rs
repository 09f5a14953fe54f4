//! The lexical (BM25) index of a brain database and hybrid seeding (issue 28, items 2,
//! 3 and 6): the index is kept in step with the nodes by every writer (sync, teach, inject, remember, import,
//! rollback, plain SQL), a v2 brain is
//! migrated with every row kept, FTS5 syntax in a question never errors, and on a
//! small tldr-pages folder the hybrid search finds the page hash-v1 misses.

use crate::common;

use std::path::{Path, PathBuf};

use crabpath::profile::Profile;
use crabpath_brain::service::Seeding;
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::QueryRequest;

/// Four tldr-pages pages (tldr-pages/tldr, commit 08e345f, CC BY 4.0), cut to a few
/// examples each: the "extract a tar archive" fires asar, unp and patool but
/// not tar with hash-v1, which splits `E[x]tract` into `e`, `x`, `tract`.
const PAGES: &[(&str, &str)] = &[
    (
        "tar.md",
        "# tar\n\n> Archiving utility.\n> Often combined with a compression method, such as `gzip` or `bzip2`.\n\n- [c]reate an archive and write it to a [f]ile:\n\n`tar cf {{path/to/target.tar}} {{path/to/file1 path/to/file2 ...}}`\n\n- E[x]tract a (compressed) archive [f]ile into the current directory [v]erbosely:\n\n`tar xvf {{path/to/source.tar[.gz|.bz2|.xz]}}`\n\n- Lis[t] the contents of a tar [f]ile [v]erbosely:\n\n`tar tvf {{path/to/source.tar}}`\n",
    ),
    (
        "unp.md",
        "# unp\n\n> Extract any archive.\n> Relevant extractors need to be installed, e.g. `unrar` for RAR.\n\n- Extract an archive:\n\n`unp {{path/to/archive.zip}}`\n\n- Extract multiple archives:\n\n`unp {{path/to/archive1.zip}} {{path/to/archive2.rar}}`\n",
    ),
    (
        "asar.md",
        "# asar\n\n> A file archiver for the Electron platform.\n\n- Archive a file or directory:\n\n`asar {{[p|pack]}} {{path/to/input_file_or_directory}} {{path/to/output_archive.asar}}`\n\n- Extract an archive:\n\n`asar {{[e|extract]}} {{path/to/archive.asar}}`\n",
    ),
    (
        "patool.md",
        "# patool\n\n> Archive file manager.\n\n- Extract an archive:\n\n`patool extract {{path/to/archive}}`\n\n- Create an archive:\n\n`patool create {{path/to/archive}} {{path/to/file_or_directory1 ...}}`\n",
    ),
    (
        "ls.md",
        "# ls\n\n> List directory contents.\n\n- List files one per line:\n\n`ls -1`\n\n- List all files, including hidden files:\n\n`ls {{[-a|--all]}}`\n",
    ),
];

/// Writes the pages into `dir/pages` and a hash-v1 brain of them into `dir/brain`
/// that records them for `sync` (as `crabpath init` does); returns the pages' folder
/// and the brain's database.
fn tldr_brain(dir: &Path) -> (PathBuf, PathBuf) {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    for (name, text) in PAGES {
        std::fs::write(pages.join(name), text).unwrap();
    }
    let boot = split_workspace(&pages, &SplitOptions::new(Profile::Corrected)).unwrap();
    let mut extra = crabpath::graph::Metadata::new();
    extra.insert(
        crabpath_brain::source::sync::SYNC_FILES_KEY.into(),
        crabpath_brain::source::sync::file_records(
            &pages,
            boot.files.iter().map(|f| f.rel.as_str()),
        ),
    );
    let db = common::hash_store_meta(&dir.join("brain"), &boot.graph, extra);
    (pages, db)
}

fn ranked(db: &Path, resident: bool, text: &str, seeding: Seeding, limit: usize) -> Vec<String> {
    let mut b = common::open_hash(db, Profile::Corrected, resident);
    let mut req = QueryRequest::new(text, 3);
    req.seeding = Some(seeding);
    req.limit = Some(limit);
    // the seeding's own order, before the folder ranker (tested in folder_rank.rs)
    req.rerank = false;
    let a = b.query(&req).unwrap();
    a.ranked().iter().map(|s| s.to_string()).collect()
}

#[test]
fn hybrid_finds_the_tar_page_that_hash_v1_misses() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    let q = "extract a tar archive";
    let tar = |ids: &[String]| ids.iter().filter(|id| id.starts_with("tar.md")).count();
    for resident in [false, true] {
        // hash-v1: the three "Extract an archive" lines of asar, patool and unp
        let dense = ranked(&db, resident, q, Seeding::Dense, 3);
        assert_eq!(tar(&dense), 0, "{dense:?}");
        // BM25: `E[x]tract` indexed as `extract`, and tar.md's chunks match "tar"
        let lexical = ranked(&db, resident, q, Seeding::Lexical, 3);
        assert_eq!(tar(&lexical), 3, "{lexical:?}");
        // fused by reciprocal rank: the tar line joins the two best of both
        let hybrid = ranked(&db, resident, q, Seeding::Hybrid, 3);
        assert_eq!(tar(&hybrid), 1, "{hybrid:?}");
        assert_eq!(hybrid.len(), 3);
    }
}

/// Whether a `nodes` row is set aside (a question or a correction; schema 5), written
/// apart from the schema's own SQL.
const ASIDE: &str = "(id LIKE 'auto:%' OR json_extract(metadata, '$.type') IS 'CORRECTION')";

/// The lexical index's rowids and the `sym`s of the content nodes, then the aside
/// index's rowids and the `sym`s of the nodes set aside (schema 5): each pair equal when
/// the indexes are in step with the nodes.
type IndexRows = ((Vec<i64>, Vec<i64>), (Vec<i64>, Vec<i64>));

fn index_rows(db: &Path) -> IndexRows {
    let c = rusqlite::Connection::open(db).unwrap();
    let list = |sql: &str| -> Vec<i64> {
        let mut st = c.prepare(sql).unwrap();
        let v = st.query_map([], |r| r.get(0)).unwrap();
        v.map(|x| x.unwrap()).collect()
    };
    (
        (
            list("SELECT rowid FROM nodes_fts ORDER BY rowid"),
            list(&format!(
                "SELECT sym FROM nodes WHERE content IS NOT NULL AND NOT {ASIDE} ORDER BY sym"
            )),
        ),
        (
            list("SELECT rowid FROM aside_fts ORDER BY rowid"),
            list(&format!(
                "SELECT sym FROM nodes WHERE content IS NOT NULL AND {ASIDE} ORDER BY sym"
            )),
        ),
    )
}

fn assert_in_step(db: &Path, when: &str) {
    let ((index, nodes), (autos_index, autos)) = index_rows(db);
    assert!(!nodes.is_empty(), "{when}: no nodes");
    assert_eq!(index, nodes, "{when}: the lexical index against the nodes");
    assert_eq!(
        autos_index, autos,
        "{when}: the aside index against the questions and corrections"
    );
}

/// The syms of the `k` nodes the aside index finds for `text`.
fn aside_syms(c: &rusqlite::Connection, text: &str, k: usize) -> Vec<i64> {
    crabpath_brain::store::lexical::search_aside(c, text, k)
        .unwrap()
        .into_iter()
        .map(|h| h.sym)
        .collect()
}

/// The ids of the nodes the lexical index finds for `word`.
fn finds(db: &Path, word: &str) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let hits = crabpath_brain::store::lexical::search(&c, word, 100).unwrap();
    hits.iter()
        .map(|(sym, _)| {
            c.query_row("SELECT id FROM nodes WHERE sym = ?1", [sym], |r| r.get(0))
                .unwrap()
        })
        .collect()
}

#[test]
fn every_writer_keeps_the_index_in_step() {
    use crabpath_brain::service::{export_state, import_state, InjectRequest};
    let dir = tempfile::tempdir().unwrap();
    let (pages, db) = tldr_brain(dir.path());
    assert_in_step(&db, "init");
    assert_eq!(finds(&db, "bzip2").len(), 1);
    assert!(finds(&db, "extracting")
        .iter()
        .any(|id| id.starts_with("tar.md")));
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    b.snapshot("first").unwrap();
    let event = |_: &crabpath_brain::source::sync::SyncReport| pyformat::pyjson::PyDict::new();
    // sync: a changed file and a deleted one
    let tar = std::fs::read_to_string(pages.join("tar.md")).unwrap();
    std::fs::write(pages.join("tar.md"), tar.replace("bzip2", "zebrafish")).unwrap();
    std::fs::remove_file(pages.join("ls.md")).unwrap();
    b.sync(&pages, Vec::new(), false, None, &event, Default::default())
        .unwrap();
    assert_in_step(&db, "sync");
    assert!(finds(&db, "zebrafish")
        .iter()
        .all(|id| id.starts_with("tar.md")));
    assert_eq!(finds(&db, "zebrafish").len(), 1);
    assert!(finds(&db, "bzip2").is_empty());
    assert!(finds(&db, "hidden").is_empty(), "ls.md was deleted");
    // teach and inject
    let t = b
        .teach("Use bsdtar for quokka archives.", "TEACHING", None, "test")
        .unwrap();
    assert_eq!(finds(&db, "quokka"), [t.node_id]);
    let inject = |b: &mut crabpath_brain::Brain, id: &str, content: &str, kind: &str| {
        b.inject(&InjectRequest {
            id: id.into(),
            content: content.into(),
            node_type: kind.into(),
            summary: None,
            vector: None,
            connect_top_k: 3,
            connect_min_sim: 0.0,
            source: "test".into(),
        })
        .unwrap();
    };
    inject(&mut b, "note::wombat", "A wombat digs burrows.", "TEACHING");
    assert_eq!(finds(&db, "wombats"), ["note::wombat"]);
    // a correction goes to the aside index (schema 5): set aside from the content's
    inject(
        &mut b,
        "fix::numbat",
        "Numbats are not archivers.",
        "CORRECTION",
    );
    assert_eq!(finds(&db, "numbats"), Vec::<String>::new());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let aside = aside_syms(&conn, "numbats", 5);
    let sym: i64 = conn
        .query_row("SELECT sym FROM nodes WHERE id = 'fix::numbat'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(aside, [sym]);
    drop(conn);
    assert_in_step(&db, "teach and inject");
    // remember (a conversation's turn)
    b.remember_turn(&crabpath_brain::source::conversation::Turn {
        id: Some("D1:1".into()),
        session: Some("1".into()),
        time: None,
        speaker: Some("Caroline".into()),
        text: "I adopted a capybara.".into(),
    })
    .unwrap();
    assert_eq!(finds(&db, "capybaras"), ["D1:1"]);
    assert_in_step(&db, "remember");
    // export and import into a new brain
    let state = dir.path().join("state.json");
    export_state(&mut b, &state).unwrap();
    let known = [crabpath_brain::reference::embedder::EmbedderInfo::hash_v1()];
    import_state(&state, &dir.path().join("imported"), &known).unwrap();
    let imported = dir.path().join("imported/brain.db");
    assert_in_step(&imported, "import");
    assert_eq!(finds(&imported, "wombat"), ["note::wombat"]);
    // rollback to the first snapshot
    b.rollback(Some("first")).unwrap();
    assert_in_step(&db, "rollback");
    assert!(finds(&db, "wombat").is_empty() && finds(&db, "zebrafish").is_empty());
    assert!(finds(&db, "capybara").is_empty());
    assert!(!finds(&db, "hidden").is_empty(), "ls.md is back");
    // a write through the sqlite3 shell's SQL keeps it too
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute(
        "UPDATE nodes SET content = 'platypus' WHERE id = 'ls.md::0'",
        [],
    )
    .unwrap();
    c.execute("DELETE FROM nodes WHERE id = 'ls.md::1'", [])
        .unwrap();
    drop(c);
    assert_in_step(&db, "SQL");
    assert_eq!(finds(&db, "platypus"), ["ls.md::0"]);
}

/// Dumps every row of the tables a brain had before schema 3, in a fixed order.
fn rows_of(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut out = Vec::new();
    for t in [
        "brain",
        "meta",
        "nodes",
        "edges",
        "vectors",
        "vector_gone",
        "journal",
        "turns",
        "ledger",
    ] {
        let mut st = c
            .prepare(&format!("SELECT * FROM {t} ORDER BY 1, 2"))
            .unwrap();
        let n = st.column_count();
        let rows = st
            .query_map([], |r| {
                let mut line = String::from(t);
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    line.push_str(&format!(" {v:?}"));
                }
                Ok(line)
            })
            .unwrap();
        out.extend(rows.map(|x| x.unwrap()));
    }
    out
}

/// Turns a brain into the schema-2 brain today's main branch writes: the lexical
/// index and its triggers dropped, `user_version` 2.
fn downgrade_to_v2(db: &Path) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch(
        "DROP TRIGGER nodes_fts_insert; DROP TRIGGER nodes_fts_delete; DROP TRIGGER nodes_fts_update;
         DROP TABLE nodes_fts; PRAGMA user_version = 2;",
    )
    .unwrap();
}

#[test]
fn a_v2_brain_is_migrated_with_every_row_and_the_index() {
    use crabpath_brain::store::{schema, Store};
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    common::open_hash(&db, Profile::Corrected, false)
        .learn(&["tar.md::0".to_string(), "unp.md::0".to_string()], 1.0)
        .unwrap();
    downgrade_to_v2(&db);
    let before = rows_of(&db);
    assert!(
        schema::schema_problems(&rusqlite::Connection::open(&db).unwrap())
            .unwrap()
            .iter()
            .any(|p| p == "missing table nodes_fts")
    );
    // read-only: a v2 brain is read as it is, and its queries are seeded densely
    let ro = Store::open(&db, false).unwrap();
    assert_eq!((ro.schema_version(), ro.has_lexical()), (2, false));
    drop(ro);
    // opened for writing: migrated, every row kept, the index made
    let rw = Store::open(&db, true).unwrap();
    assert_eq!(rw.schema_version(), schema::SCHEMA_VERSION);
    drop(rw);
    assert_eq!(rows_of(&db), before);
    assert_in_step(&db, "migration");
    let c = rusqlite::Connection::open(&db).unwrap();
    assert_eq!(schema::schema_problems(&c).unwrap(), Vec::<String>::new());
    let v: i32 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, schema::SCHEMA_VERSION);
    assert!(finds(&db, "extract tar")
        .iter()
        .any(|id| id.starts_with("tar.md")));
}

/// A question the tldr brain grows an auto node for (neurogenesis on, the default).
const GROWING_QUESTION: &str = "list the files inside an electron archive";

#[test]
fn a_v4_brain_moves_its_auto_nodes_out_of_the_lexical_index() {
    use crabpath_brain::service::AUTO_PREFIX;
    use crabpath_brain::store::{schema, Store};
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    let before = b.node_count().unwrap();
    drop(b.query(&QueryRequest::new(GROWING_QUESTION, 2)).unwrap());
    assert_eq!(b.node_count().unwrap(), before + 1, "an auto node was born");
    drop(b);
    // schema 5: the question is in the auto nodes' index only (the SQL's prefix is
    // neurogenesis' own)
    assert_in_step(&db, "birth");
    let auto = |db: &Path| -> Vec<String> {
        finds(db, "electron")
            .into_iter()
            .filter(|id| id.starts_with(AUTO_PREFIX))
            .collect()
    };
    assert_eq!(auto(&db), Vec::<String>::new());
    let c = rusqlite::Connection::open(&db).unwrap();
    let autos = aside_syms(&c, GROWING_QUESTION, 10);
    assert_eq!(autos.len(), 1);
    // the schema-4 form: the auto node in the lexical index, no index of its own
    let text: String = c
        .query_row(
            "SELECT content FROM nodes WHERE sym = ?1",
            [autos[0]],
            |r| r.get(0),
        )
        .unwrap();
    c.execute_batch(
        "DROP TRIGGER aside_fts_insert; DROP TRIGGER aside_fts_delete; DROP TRIGGER aside_fts_update;
         DROP TABLE aside_fts; PRAGMA user_version = 4;",
    )
    .unwrap();
    c.execute(
        "INSERT INTO nodes_fts(rowid, text, file) VALUES (?1, ?2, '')",
        rusqlite::params![autos[0], text],
    )
    .unwrap();
    drop(c);
    assert_eq!(auto(&db).len(), 1, "a schema-4 brain finds its question");
    let rows = rows_of(&db);
    // read-only: read as it is
    let ro = Store::open(&db, false).unwrap();
    assert_eq!((ro.schema_version(), ro.has_aside_lexical()), (4, false));
    drop(ro);
    // opened for writing: migrated, every row kept, the question moved
    let rw = Store::open(&db, true).unwrap();
    assert_eq!(rw.schema_version(), schema::SCHEMA_VERSION);
    drop(rw);
    assert_eq!(rows_of(&db), rows);
    assert_in_step(&db, "migration");
    assert_eq!(auto(&db), Vec::<String>::new());
    let c = rusqlite::Connection::open(&db).unwrap();
    assert_eq!(schema::schema_problems(&c).unwrap(), Vec::<String>::new());
    assert_eq!(aside_syms(&c, GROWING_QUESTION, 10), autos);
}

#[test]
fn fts_syntax_in_a_question_never_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    let questions = [
        "what's `tar` -x (a|b) AND OR NOT *",
        "\"unbalanced quote",
        "NEAR(tar archive, 2)",
        "tar* ^archive col:text {a b} + - : ;",
        "AND",
        "()",
        "",
        "   ",
        "ünïcödé ärchive ☃ 中文",
    ];
    for resident in [false, true] {
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        for q in questions {
            for seeding in Seeding::ALL {
                let mut req = QueryRequest::new(q, 3);
                req.seeding = Some(seeding);
                req.limit = Some(5);
                let a = b.query(&req);
                assert!(a.is_ok(), "{q:?} {seeding}: {:?}", a.err());
                assert!(a.unwrap().ranked().len() <= 5);
            }
        }
    }
}

#[test]
fn limit_bounds_the_ranking_and_keeps_the_seeds_first() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    for resident in [false, true] {
        for seeding in Seeding::ALL {
            for limit in [1, 2, 5, 40, 1000] {
                let mut b = common::open_hash(&db, Profile::Corrected, resident);
                let mut req = QueryRequest::new("extract a tar archive", 3);
                req.seeding = Some(seeding);
                req.limit = Some(limit);
                // the same question asked again would grow and seed its `auto:` node
                req.neurogenesis = Some(false);
                // the base order's rule, before the folder ranker (folder_rank.rs)
                req.rerank = false;
                let a = b.query(&req).unwrap();
                let r = a.ranked();
                assert!(r.len() <= limit, "{seeding} {limit}: {r:?}");
                let mut uniq = r.clone();
                uniq.sort_unstable();
                uniq.dedup();
                assert_eq!(uniq.len(), r.len(), "each id once: {r:?}");
                // the seeds first, in their order
                let seeds: Vec<&str> = a.seeds.iter().map(|(n, _)| a.graph.name(*n)).collect();
                let k = seeds.len().min(limit);
                assert_eq!(r[..k], seeds[..k], "{seeding} {limit}");
                // without traversal: the search's ranking alone
                req.traverse = false;
                let alone = b.query(&req).unwrap();
                assert!(alone.result.steps.is_empty());
                assert!(alone.ranked().len() <= limit);
            }
        }
    }
}

#[test]
fn dense_seeding_answers_as_before_and_state_files_refuse_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    // the paper profile's default is dense: the same answer as asking for it
    for profile in Profile::ALL {
        let mut b = common::open_hash(&db, profile, false);
        let plain = b.query(&QueryRequest::new("list hidden files", 4)).unwrap();
        let (fired, hits) = (
            plain
                .fired()
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            plain.hits.clone(),
        );
        drop(plain);
        let mut req = QueryRequest::new("list hidden files", 4);
        req.seeding = Some(Seeding::Dense);
        let dense = b.query(&req).unwrap();
        let same = dense.fired() == fired && dense.hits == hits;
        assert_eq!(
            same,
            profile == Profile::Paper || fired.is_empty(),
            "{profile}"
        );
    }
    let state = dir.path().join("state.json");
    crabpath_brain::service::export_state(
        &mut common::open_hash(&db, Profile::Corrected, false),
        &state,
    )
    .unwrap();
    let mut js = common::open_hash(&state, Profile::Corrected, false);
    let mut req = QueryRequest::new("extract", 3);
    req.seeding = Some(Seeding::Lexical);
    let e = js.query(&req).err().expect("refused").to_string();
    assert!(e.contains("seeding lexical needs a brain database"), "{e}");
    req.seeding = None;
    assert!(js.query(&req).is_ok());
}

/// A brain with hash-v1 vectors is seeded by BM25 alone by default, a brain with another
/// embedder's by hybrid search, the paper profile and state files by the vectors
/// ([`Seeding::default_for`], issue 28 items 3 and 7); and the traversal puts at most
/// [`crabpath_brain::service::ADDED_PER_SEED`] nodes per seed before the rest of the
/// seeding's list (item 6: it adds, it does not push the seeding's ranks far down).
#[test]
fn a_hash_v1_brain_defaults_to_bm25_and_the_traversal_adds_a_bounded_number() {
    use crabpath_brain::service::ADDED_PER_SEED;
    assert_eq!(
        Seeding::default_for(Profile::Corrected, true, true),
        Seeding::Lexical
    );
    assert_eq!(
        Seeding::default_for(Profile::Corrected, true, false),
        Seeding::Hybrid
    );
    assert_eq!(
        Seeding::default_for(Profile::Paper, true, true),
        Seeding::Dense
    );
    assert_eq!(
        Seeding::default_for(Profile::Corrected, false, true),
        Seeding::Dense
    );
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    for resident in [false, true] {
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        // (the ranked ids, whether the traversal took a step)
        let mut ask = |req: &QueryRequest| -> (Vec<String>, bool) {
            let a = b.query(req).unwrap();
            let ids = a.ranked().iter().map(|s| s.to_string()).collect();
            (ids, !a.result.steps.is_empty())
        };
        let mut req = QueryRequest::new("extract a tar archive", 2);
        req.limit = Some(40);
        let (by_default, stepped) = ask(&req);
        assert!(stepped, "the traversal ran");
        req.seeding = Some(Seeding::Lexical);
        let (lexical, _) = ask(&req);
        assert_eq!(by_default, lexical, "resident {resident}");
        req.traverse = false;
        let (alone, _) = ask(&req);
        // the two seeds first, then at most ADDED_PER_SEED nodes each, then the
        // seeding's third node
        assert_eq!(by_default[..2], alone[..2]);
        let third = by_default.iter().position(|id| *id == alone[2]).unwrap();
        assert!(third <= 2 + 2 * ADDED_PER_SEED, "{by_default:?} {alone:?}");
    }
}

/// Every query binds new text to the same two cached FTS5 statements; with the
/// brain's connections holding SQLite's query planner stability guarantee, neither is
/// compiled again (before: once per query, about a fifth of a served LoCoMo query's
/// time, `BENCHMARKS.md`, "Query plans that stay compiled").
#[test]
fn the_lexical_statements_are_not_compiled_again_for_each_query() {
    use crabpath_brain::store::{lexical, Store};
    use rusqlite::StatementStatus;
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    for write in [false, true] {
        let store = Store::open(&db, write).unwrap();
        let c = store.conn();
        for q in ["extract a tar archive", "list all files", "archive manager"] {
            assert!(!lexical::search(c, q, 10).unwrap().is_empty(), "{q}");
            for term in lexical::query_terms(q) {
                lexical::matching(c, &term).unwrap();
            }
        }
        for (sql, runs) in [(lexical::search_sql(), 3), (lexical::matching_sql(), 8)] {
            let st = c.prepare_cached(&sql).unwrap();
            assert_eq!(st.get_status(StatementStatus::Run), runs, "{sql}");
            assert_eq!(st.get_status(StatementStatus::RePrepare), 0, "{sql}");
        }
    }
}
