//! The text a node is embedded as (issue 28, "On a real folder";
//! `crabpath_brain::source::embedtext`): a folder chunk of the corrected profile is embedded with
//! its document's header and without tldr-pages' bracket mnemonics, the paper profile
//! embeds the content bit for bit, and `sync` embeds a changed chunk with the same text
//! as `init`.

use crate::common;

use std::path::Path;

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::profile::Profile;
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::embedtext::{demnemonise, embedded_text, HEADER_KEY};
use crabpath_brain::source::workspace::SplitOptions;

/// A tldr-pages page cut to two examples (tldr-pages/tldr 08e345f `pages/common/tar.md`,
/// CC BY 4.0).
const TAR: &str = "# tar\n\n> Archiving utility.\n> Often combined with a compression method, such as `gzip` or `bzip2`.\n\n- [c]reate a g[z]ipped archive and write it to a [f]ile:\n\n`tar czf {{path/to/target.tar.gz}} {{path/to/file1}}`\n\n- E[x]tract a (compressed) archive [f]ile into the current directory [v]erbosely:\n\n`tar xvf {{path/to/source.tar[.gz|.bz2|.xz]}}`\n";

/// A page with sections (`## `): each chunk's header names its section.
const GUIDE: &str = "# Deploy guide\n\nHow we ship.\n\n## Rollback\n\nRun `rollback.sh`.\n";

fn folder(dir: &Path) -> std::path::PathBuf {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    std::fs::write(pages.join("tar.md"), TAR).unwrap();
    std::fs::write(pages.join("guide.md"), GUIDE).unwrap();
    pages
}

#[test]
fn a_tldr_chunk_is_embedded_with_its_page_header_and_without_mnemonics() {
    let dir = tempfile::tempdir().unwrap();
    let boot = split_workspace(folder(dir.path()), &SplitOptions::new(Profile::Corrected)).unwrap();
    let g = &boot.graph;
    // chunk 4: the fifth blank-line paragraph of TAR
    let n = g.get_node("tar.md::4").unwrap();
    assert_eq!(
        n.content,
        "- E[x]tract a (compressed) archive [f]ile into the current directory [v]erbosely:",
        "content (what an agent reads) is unchanged"
    );
    // the header: the file's name (the title `tar` is the same name, so once), the
    // first line of the first paragraph, then the chunk demnemonised
    assert_eq!(
        embedded_text(n),
        "tar\nArchiving utility.\n- Extract a (compressed) archive file into the current directory verbosely:"
    );
    assert_eq!(
        embedded_text(g.get_node("tar.md::2").unwrap()),
        "tar\nArchiving utility.\n- create a gzipped archive and write it to a file:"
    );
    // a document whose title differs from its name, and a section heading (`## `
    // splits into one chunk per section; the title's chunk holds the first paragraph
    // too, so no chunk after the title starts with a paragraph: no lead line)
    assert_eq!(
        embedded_text(g.get_node("guide.md::1").unwrap()),
        "guide\nDeploy guide\nRollback\n## Rollback\n\nRun `rollback.sh`."
    );
    // the rule is the lexical index's: every `[` and `]` removed
    assert_eq!(
        demnemonise("Lis[t] g[z]ip [c]reate a[b]c"),
        "List gzip create abc"
    );
}

#[test]
fn the_paper_profile_embeds_the_content_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let boot = split_workspace(folder(dir.path()), &SplitOptions::new(Profile::Paper)).unwrap();
    assert!(boot.graph.node_count() > 0);
    for (_, n) in boot.graph.nodes() {
        assert!(n.metadata.get(HEADER_KEY).is_none(), "{}", n.id);
        assert_eq!(embedded_text(n), n.content.as_str(), "{}", n.id);
    }
}

fn vector_blob(db: &Path, id: &str) -> Vec<u8> {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row(
        "SELECT v.v FROM vectors v JOIN nodes n ON n.sym = v.sym WHERE n.id = ?1",
        [id],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn sync_embeds_a_changed_chunk_with_the_text_init_embeds() {
    let dir = tempfile::tempdir().unwrap();
    let pages = folder(dir.path());
    let boot = split_workspace(&pages, &SplitOptions::new(Profile::Corrected)).unwrap();
    let mut extra = crabpath::graph::Metadata::new();
    extra.insert(
        crabpath_brain::source::sync::SYNC_FILES_KEY.into(),
        crabpath_brain::source::sync::file_records(
            &pages,
            boot.files.iter().map(|f| f.rel.as_str()),
        ),
    );
    let db = common::hash_store_meta(&dir.path().join("brain"), &boot.graph, extra);
    let id = "tar.md::4";
    let at_init = vector_blob(&db, id);
    // init embedded the header text, not the content
    let e = HashEmbedder::new();
    let node = boot.graph.get_node(id).unwrap();
    assert_ne!(
        e.embed(&node.content).unwrap(),
        e.embed(&embedded_text(node)).unwrap()
    );
    let mut b = common::open_hash(&db, Profile::Corrected, false);
    let event = |_: &crabpath_brain::source::sync::SyncReport| pyformat::pyjson::PyDict::new();
    let changed = TAR.replace("[v]erbosely", "[v]erbosely and quietly");
    std::fs::write(pages.join("tar.md"), &changed).unwrap();
    b.sync(&pages, Vec::new(), false, None, &event, Default::default())
        .unwrap();
    assert_ne!(
        vector_blob(&db, id),
        at_init,
        "the changed chunk is re-embedded"
    );
    std::fs::write(pages.join("tar.md"), TAR).unwrap();
    b.sync(&pages, Vec::new(), false, None, &event, Default::default())
        .unwrap();
    assert_eq!(
        vector_blob(&db, id),
        at_init,
        "changed back: init's vector again"
    );
}
