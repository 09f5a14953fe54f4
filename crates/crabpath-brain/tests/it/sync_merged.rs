//! A sync after maintenance merged chunks of a file: a chunk a merged node holds
//! unchanged is not added again (`source::sync::held_by_merges`). Before, any sync that
//! re-split the file (an edit anywhere in it) added every merged chunk back beside the
//! merged node, and the brain held and answered the same text twice.

use crate::common;
use crate::forget::{sync, Step};

use std::path::Path;

use crabpath::profile::Profile;
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::Brain;

const FIRST: &str = "Run the deploy script on the staging host first.";
const SECOND: &str = "Then promote the build to production after the checks pass.";

fn write_a(ws: &Path, second: &str) {
    std::fs::write(
        ws.join("a.md"),
        format!("# Deploy\n\n{FIRST}\n\n{second}\n"),
    )
    .unwrap();
}

/// The ids of the nodes whose text holds `text`, and whether every edge joins two nodes.
fn holding(b: &mut Brain, text: &str) -> (Vec<String>, bool) {
    b.read(|g, _| {
        let ids = g
            .nodes()
            .filter(|(_, n)| n.content.contains(text))
            .map(|(_, n)| n.id.clone())
            .collect();
        let whole = g.edges().all(|(s, t, _)| g.has_node(s) && g.has_node(t));
        (ids, whole)
    })
    .unwrap()
}

#[test]
fn a_sync_does_not_add_back_the_chunks_a_merge_holds() {
    for resident in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        write_a(&ws, SECOND);
        std::fs::write(ws.join("d.md"), "Dogs bark at the mail carrier.\n").unwrap();
        let boot = split_workspace(&ws, &SplitOptions::new(Profile::Corrected)).unwrap();
        let db = common::hash_store(&dir.path().join("brain"), &boot.graph);
        let mut b = common::open_hash(&db, Profile::Corrected, resident);
        common::learn_until_mergeable(&mut b, "a.md::1", "a.md::2");
        Step::Maintain("merge").apply(&mut b);
        let (merged, _) = holding(&mut b, FIRST);
        assert!(
            merged.len() == 1 && merged[0].starts_with("merged:"),
            "{merged:?}"
        );

        // the brain records no sync yet: every file is re-split, nothing changed
        let r = sync(&mut b, &ws);
        assert_eq!((r.nodes_added, r.nodes_unchanged), (0, 4), "{r:?}");
        for text in [FIRST, SECOND] {
            assert_eq!(holding(&mut b, text), (merged.clone(), true), "{text}");
        }

        // an edit of the file's second paragraph: its new text is added, the first
        // paragraph stays in the merged node alone
        let edited = "Then promote the build to production once QA signs off.";
        write_a(&ws, edited);
        let r = sync(&mut b, &ws);
        let changes = r.changes.clone().unwrap();
        assert_eq!(changes.added, ["a.md::2"], "{r:?}");
        assert_eq!(holding(&mut b, FIRST), (merged.clone(), true));
        assert_eq!(holding(&mut b, edited), (vec!["a.md::2".to_string()], true));
        assert!(!b.has_node("a.md::1").unwrap());

        // a chunk cut short is not taken for the merged node's longer text
        let short = "Run the deploy script";
        std::fs::write(
            ws.join("a.md"),
            format!("# Deploy\n\n{short}\n\n{edited}\n"),
        )
        .unwrap();
        let r = sync(&mut b, &ws);
        assert_eq!(r.changes.unwrap().added, ["a.md::1"], "resident {resident}");
        let (ids, whole) = holding(&mut b, short);
        assert!(ids.contains(&"a.md::1".to_string()) && whole, "{ids:?}");
    }
}
