//! A sync after maintenance merged chunks of a file: a chunk a merged node holds is
//! not added again, and the merged node takes its parts' new texts
//! (`source::sync::merged_in_sync`). Before, any sync that re-split the file (an edit
//! anywhere in it) added every merged chunk back beside the merged node, so the brain
//! held and answered the same text twice, and the merged node kept the text the user
//! had edited out or deleted.

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
fn a_merged_node_follows_its_chunks_through_edits_and_deletion() {
    for resident in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        write_a(&ws, SECOND);
        // other files, so that deleting a.md is no mass delete
        for (f, text) in [
            ("d.md", "Dogs bark at the mail carrier."),
            ("e.md", "Eels hide under river stones."),
            ("f.md", "Foxes dig dens in the hillside."),
        ] {
            std::fs::write(ws.join(f), format!("{text}\n")).unwrap();
        }
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
        assert_eq!((r.nodes_added, r.nodes_unchanged), (0, 6), "{r:?}");
        for text in [FIRST, SECOND] {
            assert_eq!(holding(&mut b, text), (merged.clone(), true), "{text}");
        }

        // an edit of the file's second paragraph: the merged node takes the new text
        // in the old one's place (its edges stay); nothing is added
        let edited = "Then promote the build to production once QA signs off.";
        write_a(&ws, edited);
        let r = sync(&mut b, &ws);
        let changes = r.changes.clone().unwrap();
        assert!(changes.added.is_empty(), "{r:?}");
        assert_eq!(changes.updated, merged, "{r:?}");
        assert_eq!(holding(&mut b, FIRST), (merged.clone(), true));
        assert_eq!(holding(&mut b, edited), (merged.clone(), true));
        assert_eq!(
            holding(&mut b, SECOND),
            (vec![], true),
            "the old text is gone"
        );
        let (content, edges) = b
            .read(|g, _| {
                let m = g.lookup(&merged[0]).unwrap();
                (g.node(m).unwrap().content.clone(), g.outgoing(m).count())
            })
            .unwrap();
        assert_eq!(content, format!("{FIRST}\n\n{edited}"));
        assert!(edges > 0);

        // a chunk cut short replaces the longer text the merged node had
        let short = "Run the deploy script";
        std::fs::write(
            ws.join("a.md"),
            format!("# Deploy\n\n{short}\n\n{edited}\n"),
        )
        .unwrap();
        let r = sync(&mut b, &ws);
        assert!(r.changes.unwrap().added.is_empty(), "resident {resident}");
        assert_eq!(holding(&mut b, FIRST), (vec![], true));
        assert_eq!(holding(&mut b, short), (merged.clone(), true));

        // the file deleted: the merged node holds nothing of the folder any more, and goes
        std::fs::remove_file(ws.join("a.md")).unwrap();
        let r = sync(&mut b, &ws);
        assert!(r.changes.unwrap().removed.contains(&merged[0]));
        assert_eq!(holding(&mut b, edited), (vec![], true));
        assert!(!b.has_node(&merged[0]).unwrap());
    }
}
