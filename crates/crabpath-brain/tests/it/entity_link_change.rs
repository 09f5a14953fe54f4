//! `link_change` (the entity links that one more turn adds and removes, which `remember`
//! applies) equals its definition, the difference between `entity_links` of the turns
//! without and with the new one, at every turn of a longer conversation than
//! `conversation_entities`' eight turns: 160 turns of 8 sessions, words of varied
//! frequency (so words turn common and partners get outscored as turns arrive), and a
//! third speaker, "Kiwi", who first speaks at turn 102 after "kiwi" was a word of earlier turns
//! (a new name drops that word from every turn: `link_change` splits the earlier texts
//! once and must drop it itself).

use crabpath_brain::source::conversation::entities::{entity_links, link_change};
use crabpath_brain::source::conversation::Turn;

/// A fixed pseudo-random conversation (a 64-bit LCG, Knuth's MMIX constants).
fn conversation() -> Vec<Turn> {
    let vocab: Vec<String> = (0..40).map(|k| format!("word{k:02}")).collect();
    let mut x: u64 = 42;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    (0..160)
        .map(|i| {
            let speaker = if i >= 100 && i % 3 == 0 {
                "Kiwi"
            } else if i % 2 == 0 {
                "Ann"
            } else {
                "Bo"
            };
            // words word00..word39, low indices far more often (squared draw)
            let mut text: Vec<String> = (0..3 + next(3))
                .map(|_| {
                    let r = next(40);
                    vocab[(r * r / 40) as usize].clone()
                })
                .collect();
            if i < 100 && i % 37 == 5 {
                text.push("kiwi".into());
            }
            Turn {
                id: Some(format!("t{i}")),
                session: Some((i / 20 + 1).to_string()),
                speaker: Some(speaker.into()),
                text: text.join(" "),
                ..Turn::default()
            }
        })
        .collect()
}

#[test]
fn link_change_is_the_difference_of_entity_links_at_every_turn() {
    let turns = conversation();
    let (mut added, mut removed) = (0, 0);
    for k in 1..=turns.len() {
        let (before, with) = (entity_links(&turns[..k - 1]), entity_links(&turns[..k]));
        let c = link_change(&turns[..k]);
        let want_added: Vec<_> = with
            .iter()
            .filter(|p| before.binary_search(p).is_err())
            .copied()
            .collect();
        let want_removed: Vec<_> = before
            .iter()
            .filter(|p| with.binary_search(p).is_err())
            .copied()
            .collect();
        assert_eq!(c.added, want_added, "added at turn {}", k - 1);
        assert_eq!(c.removed, want_removed, "removed at turn {}", k - 1);
        added += c.added.len();
        removed += c.removed.len();
    }
    // the conversation exercises both directions (counts of this fixed conversation)
    assert!(added > 0 && removed > 0, "added {added}, removed {removed}");
    // "kiwi" (turns 5, 42 and 79, sessions 1, 3 and 4) links turns before Kiwi speaks;
    // without dropping the new name from earlier turns, link_change misses the removal
    // of (5, 42), (5, 79), (42, 79) at turn 102 (seen failing so)
    let kiwi = |t: &Turn| t.text.contains("kiwi");
    let linked = |links: &[(usize, usize)]| {
        links
            .iter()
            .any(|&(i, j)| kiwi(&turns[i]) && kiwi(&turns[j]))
    };
    assert!(linked(&entity_links(&turns[..100])));
}
