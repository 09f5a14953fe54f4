//! `maintain`'s prune never deletes what a user gave the brain (data safety): the
//! reference removes every node without edges, and so a `crabpath maintain` on a new
//! conversation brain deleted a turn that sat alone in its session with no rare word
//! (no chain edge, no entity edge), and one on any brain deleted a teaching injected
//! with no node similar enough to link to. The corrected profile keeps them; it still
//! removes the question nodes the brain grew itself, and the paper profile still
//! removes every orphan, as the reference does.

use crate::common;

use crabpath::graph::Node;
use crabpath::profile::Profile;
use crabpath_brain::service::Scope;

/// Three turns: two chained (`"session": "1"`), one alone (`"session": "2"`)
/// sharing no rare word with them (so it has no edge at all).
const CHAT: &str = r#"{"id": "a1", "session": "1", "speaker": "Ann", "text": "I adopted a greyhound named Pixel."}
{"id": "a2", "session": "1", "speaker": "Bo", "text": "Lovely, what a dog."}
{"id": "b1", "session": "2", "speaker": "Ann", "text": "My passport number is in the blue folder."}"#;

/// The brain after: the turns, a teaching linked to nothing (its similarity floor
/// above any node's) and a question node with no edge, then `maintain` with the
/// default tasks in `profile`; the ids of its nodes.
fn maintained(profile: Profile) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    drop(common::chat_brain(dir.path(), CHAT, true));
    let mut b = common::open_hash(&dir.path().join("brain.db"), profile, false);
    let mut teaching = common::teaching("teaching::tax", "Quarterly taxes are due in April.", 3);
    teaching.connect_min_sim = 0.99;
    let r = b.inject(&teaching).unwrap();
    assert!(r.connected_to.is_empty(), "{r:?}");
    b.write(Scope::All, |w| {
        w.graph.add_node(Node::new(
            "auto:where is my passport",
            "where is my passport",
        ));
        Ok(())
    })
    .unwrap();
    let orphan = |b: &mut crabpath_brain::Brain, id: &str| {
        b.read(|g, _| {
            let n = g.lookup(id).unwrap();
            g.outgoing(n).next().is_none() && g.edges().all(|(_, t, _)| t != n)
        })
        .unwrap()
    };
    for id in ["b1", "teaching::tax", "auto:where is my passport"] {
        assert!(
            orphan(&mut b, id),
            "{id} has an edge: the test needs an orphan"
        );
    }
    b.maintain(&common::daemon_maintain(&[
        "health", "decay", "merge", "prune",
    ]))
    .unwrap();
    let mut ids = b
        .read(|g, _| g.nodes().map(|(_, n)| n.id.clone()).collect::<Vec<_>>())
        .unwrap();
    ids.sort();
    ids
}

#[test]
fn prune_keeps_a_lone_turn_and_an_unlinked_teaching() {
    // before the fix: ["a1", "a2"], the turn b1 and the teaching deleted
    assert_eq!(
        maintained(Profile::Corrected),
        ["a1", "a2", "b1", "teaching::tax"]
    );
}

#[test]
fn the_paper_profile_prunes_every_orphan_as_the_reference_does() {
    assert_eq!(maintained(Profile::Paper), ["a1", "a2"]);
}
