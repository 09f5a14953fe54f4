//! Entity edges: turns of different sessions that mention the same rare words are
//! linked, so that a traversal from one piece of a multi-hop question's evidence can
//! reach the others (issue 28, item 5: "edges between turns that mention the same
//! entities across sessions"; LoCoMo's multi-hop evidence is spread over sessions).
//!
//! **Words.** A turn's words are the maximal runs of letters and digits of its text
//! (not its speaker or time), lowercased, at least [`MIN_WORD_CHARS`] long, neither a
//! stop word ([`crate::store::lexical::is_stop_word`]) nor a speaker's name (every
//! turn of a conversation names its speaker, so a name links everything).
//!
//! **Rare.** A word is rare when at most [`MAX_DF`] turns hold it: a name, a place, a
//! book, a hobby mentioned a few times. A word of more turns is topic, not identity
//! (on LoCoMo's conv-26, "lgbtq" is in 40 turns).
//!
//! **Links.** Two turns of different sessions sharing rare words score Σ idf =
//! ln(N / df) over the shared words, N the turns. Each turn keeps its
//! [`PARTNERS`] best-scoring partners (ties: the earlier turn), and each kept pair gets
//! edges both ways with weight [`ENTITY_WEIGHT`] (an edge already there, a chain's, is
//! kept as it is).
//!
//! They are made by `crabpath init --conversation` ([`super::build_graph`]) and kept by
//! `remember` ([`crate::service::Brain::remember_turn`]): a turn added later changes
//! the links by [`link_change`], the difference between [`entity_links`] of the turns
//! before it and of the turns with it. The links are global (N, the document
//! frequencies, the speakers' names and each turn's best partners are the whole
//! conversation's), so a new turn can also unlink two earlier turns (a word now in
//! more than [`MAX_DF`] turns, a partner outscored); `remember` removes those edges
//! while they are still the entity weight (learning has not moved them). A
//! conversation remembered turn by turn therefore has the edges `init` gives the same
//! turns (test `tests/it/conversation_entities.rs`).
//!
//! **Measured** (LoCoMo through the product, hash-v1, `results/bench/LOCOMO.md` and
//! `benchmarks/README.md`, "Conversation features"): neutral. Below the chain weight
//! they change the first 50 of no question on conv-26 and conv-30 and raise multi-hop
//! recall@10 on all 1,986 questions by 0.002; above it (0.55) they displace the
//! chain neighbours and lower the default's recall@10 on the tuning conversations
//! from 0.709 to 0.602 (4 seeds, speaker seeding). They are kept as the cheap
//! structure issue 28 asks for, for the traversal and for learning to use.
//!
//! Cost: linear in the text, plus for each rare word the pairs of its turns
//! (at most [`MAX_DF`]² per word).

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use crabpath::graph::{Edge, Graph, NodeId};

use super::turn::Turn;
use crate::error::Result;
use crate::store::lexical::{alnum_runs, is_stop_word};

/// Shortest word that can link two turns (shorter ones are mostly particles: "ok",
/// "oh", "go").
pub const MIN_WORD_CHARS: usize = 3;

/// Most turns a word may be in to link them (see the module docs). Chosen on LoCoMo's
/// tuning conversations (conv-26, conv-30) through the product path: see
/// `results/bench/LOCOMO.md`, "Conversation features".
pub const MAX_DF: usize = 4;

/// Partners a turn keeps (see the module docs).
pub const PARTNERS: usize = 2;

/// The weight of an entity edge: a habitual edge (the corrected tiers' [0.2, 0.6)),
/// below a chain edge's (≈ 0.5, [`super::chain_weight`]), so the traversal takes a
/// turn's neighbours in its session before its namesakes in other sessions.
pub const ENTITY_WEIGHT: f64 = 0.45;

/// Links turns `a` and `b` of `graph`: an entity edge ([`ENTITY_WEIGHT`]) each way
/// where there is no edge yet (a chain's or a learned one is kept as it is). Returns
/// the edges added, `(from, to)`. The one rule of both `init` ([`super::build_graph`])
/// and `remember`.
pub fn link(graph: &mut Graph, a: NodeId, b: NodeId) -> Result<Vec<(NodeId, NodeId)>> {
    let mut added = Vec::new();
    for (from, to) in [(a, b), (b, a)] {
        if graph.edge(from, to).is_none() {
            graph.add_edge(from, to, Edge::new(ENTITY_WEIGHT))?;
            added.push((from, to));
        }
    }
    Ok(added)
}

/// Unlinks turns `a` and `b` of `graph` (a pair [`link_change`] removed): each way, the
/// edge is removed while it is still the one [`link`] made (weight [`ENTITY_WEIGHT`],
/// kind sibling, no metadata); an edge learning has moved is kept. Returns the edges
/// removed, `(from, to)`.
pub fn unlink(graph: &mut Graph, a: NodeId, b: NodeId) -> Vec<(NodeId, NodeId)> {
    let mut removed = Vec::new();
    for (from, to) in [(a, b), (b, a)] {
        if graph
            .edge(from, to)
            .is_some_and(|e| *e == Edge::new(ENTITY_WEIGHT))
        {
            graph.remove_edge(from, to);
            removed.push((from, to));
        }
    }
    removed
}

/// The words of `text` that may link turns before speakers' names are left out, in
/// order, repeats kept: the letter-and-digit runs of at least [`MIN_WORD_CHARS`]
/// characters, lowercased, that are not stop words (see the module docs).
fn candidate_words(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    alnum_runs(text).filter_map(|w| {
        let long = if w.is_ascii() {
            w.len() >= MIN_WORD_CHARS
        } else {
            w.chars().count() >= MIN_WORD_CHARS
        };
        if !long {
            return None;
        }
        let w: Cow<'_, str> = if w.bytes().any(|b| b.is_ascii_uppercase()) || !w.is_ascii() {
            Cow::Owned(w.to_lowercase())
        } else {
            Cow::Borrowed(w)
        };
        (!is_stop_word(&w)).then_some(w)
    })
}

/// The entity links of `turns`: pairs `(i, j)` of turn positions, `i < j`, each once,
/// in increasing order (see the module docs).
pub fn entity_links(turns: &[Turn]) -> Vec<(usize, usize)> {
    WordIndex::default().links(turns)
}

/// How the entity links change when the last of `turns` is added to the ones before
/// it: [`entity_links`] of `turns` against [`entity_links`] of all but the last (see
/// the module docs). Empty `turns`: no change. [`WordIndex::change`] with a new index.
pub fn link_change(turns: &[Turn]) -> LinkChange {
    WordIndex::default().change(turns)
}

/// What adding one turn does to the entity links ([`link_change`]): pairs `(i, j)` of
/// turn positions, `i < j`, in increasing order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkChange {
    /// Pairs linked with the new turn and not before it.
    pub added: Vec<(usize, usize)>,
    /// Pairs linked before the new turn and not with it.
    pub removed: Vec<(usize, usize)>,
}

/// The link words of turn texts, each distinct text split once and its words kept as
/// numbers: what makes [`entity_links`] and [`link_change`] cheap to compute again
/// and again over a growing conversation (`remember` on a served brain, which keeps
/// one index between requests, and the unlearning replay of a conversation's
/// remembered turns, which keeps one for the whole replay).
///
/// The links do not depend on the index: a word's number only names it, the rare
/// words' idf are summed in the order of their text, and the result is the module
/// docs' definition whatever texts the index has seen before. An index only grows;
/// [`WordIndex::trim`] empties it when it holds far more texts than the conversation
/// it serves.
#[derive(Debug, Default)]
pub struct WordIndex {
    /// Word → its number.
    numbers: FxHashMap<Box<str>, u32>,
    /// Number → its word.
    words: Vec<Box<str>>,
    /// Text → its place in `split`.
    texts: FxHashMap<Box<str>, usize>,
    /// Per text: its [`candidate_words`], each once (first place), as numbers.
    split: Vec<Box<[u32]>>,
}

impl WordIndex {
    /// The number of `word`, given one if new.
    fn number(&mut self, word: &str) -> u32 {
        if let Some(&n) = self.numbers.get(word) {
            return n;
        }
        let n = self.words.len() as u32;
        self.words.push(word.into());
        self.numbers.insert(word.into(), n);
        n
    }

    /// The place in `split` of `text`'s numbered words, split now unless it was
    /// before.
    ///
    /// Cost: a hash of the text; the first time, linear in it.
    fn text(&mut self, text: &str) -> usize {
        if let Some(&k) = self.texts.get(text) {
            return k;
        }
        let mut out: Vec<u32> = Vec::new();
        for w in candidate_words(text) {
            let n = self.number(&w);
            if !out.contains(&n) {
                out.push(n);
            }
        }
        let k = self.split.len();
        self.split.push(out.into_boxed_slice());
        self.texts.insert(text.into(), k);
        k
    }

    /// The place in `split` of each turn's text, in order.
    fn texts_of(&mut self, turns: &[Turn]) -> Vec<usize> {
        turns.iter().map(|t| self.text(&t.text)).collect()
    }

    /// The numbers of the speakers' names of `turns` that are words of the index
    /// (a name no text holds leaves no word out).
    ///
    /// Cost: a pass over the turns; each distinct speaker split once.
    fn names(&self, turns: &[Turn]) -> FxHashSet<u32> {
        let speakers: FxHashSet<&str> = turns.iter().filter_map(|t| t.speaker.as_deref()).collect();
        speakers
            .into_iter()
            .flat_map(alnum_runs)
            .filter_map(|n| self.numbers.get(n.to_lowercase().as_str()).copied())
            .collect()
    }

    /// [`entity_links`] of `turns`.
    ///
    /// Cost: a hash of every text (a split of those not seen before), then the
    /// document frequencies, idf sums and rankings: linear in the turns and their
    /// words, plus for each rare word the pairs of its turns (at most [`MAX_DF`]² per
    /// word) and a sort of the rare words.
    pub fn links(&mut self, turns: &[Turn]) -> Vec<(usize, usize)> {
        let texts = self.texts_of(turns);
        self.links_of(turns, &texts, &self.names(turns))
    }

    /// [`link_change`] of `turns`: the links of all but the last against those of all.
    ///
    /// Cost: that of [`Self::links`], twice, on words split once. Not less: every idf
    /// is ln(N / df) with N the number of turns, so one more turn can reorder the
    /// partners of turns that share no word with it (a partner sharing one word of df
    /// 2 against one sharing two words of df 4: ln(N/2) against 2·ln(N/4), which swap
    /// at N = 8), and the rankings of every turn are recomputed.
    pub fn change(&mut self, turns: &[Turn]) -> LinkChange {
        let Some((_, before)) = turns.split_last() else {
            return LinkChange::default();
        };
        let texts = self.texts_of(turns);
        let old = self.links_of(before, &texts[..before.len()], &self.names(before));
        let new = self.links_of(turns, &texts, &self.names(turns));
        LinkChange {
            added: new
                .iter()
                .filter(|p| old.binary_search(p).is_err())
                .copied()
                .collect(),
            removed: old
                .iter()
                .filter(|p| new.binary_search(p).is_err())
                .copied()
                .collect(),
        }
    }

    /// Empties the index when it holds more than twice `live` texts and a thousand
    /// more (texts of turns since forgotten or rolled back): memory bounded by the
    /// conversation it serves.
    pub fn trim(&mut self, live: usize) {
        if self.split.len() > 2 * live + 1000 {
            *self = WordIndex::default();
        }
    }

    /// The links of `turns` given the place in `split` of each turn's text
    /// (`texts[i]` of `turns[i]`) with the speakers' `names` left out: document
    /// frequencies, postings of the rare words, idf sums over them, each turn's
    /// [`PARTNERS`] best.
    ///
    /// The maps hash with `FxHash`: the result does not depend on their order, since
    /// the rare words are summed in the order of their text and the partners ranked
    /// by a total order.
    fn links_of(
        &self,
        turns: &[Turn],
        texts: &[usize],
        names: &FxHashSet<u32>,
    ) -> Vec<(usize, usize)> {
        let words = |i: usize| {
            self.split[texts[i]]
                .iter()
                .copied()
                .filter(|w| !names.contains(w))
        };
        // document frequencies, then postings of the rare words only
        let mut df = vec![0u32; self.words.len()];
        for i in 0..turns.len() {
            for w in words(i) {
                df[w as usize] += 1;
            }
        }
        let is_rare = |w: u32| (2..=MAX_DF as u32).contains(&df[w as usize]);
        let mut postings: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for i in 0..turns.len() {
            for w in words(i).filter(|&w| is_rare(w)) {
                postings.entry(w).or_default().push(i);
            }
        }
        let n = turns.len() as f64;
        // score[i]: partner → Σ idf of the shared rare words
        let mut score: Vec<FxHashMap<usize, f64>> = vec![FxHashMap::default(); turns.len()];
        // words in a fixed order, so that the sums are the same on every run
        let mut rare: Vec<(&str, &Vec<usize>)> = postings
            .iter()
            .map(|(w, p)| (&*self.words[*w as usize], p))
            .collect();
        rare.sort_unstable_by_key(|x| x.0);
        for (_, p) in rare {
            let idf = (n / p.len() as f64).ln();
            for (a, &i) in p.iter().enumerate() {
                for &j in &p[a + 1..] {
                    if turns[i].session == turns[j].session {
                        continue;
                    }
                    *score[i].entry(j).or_insert(0.0) += idf;
                    *score[j].entry(i).or_insert(0.0) += idf;
                }
            }
        }
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (i, s) in score.iter().enumerate() {
            let mut best: Vec<(usize, f64)> = s.iter().map(|(&j, &v)| (j, v)).collect();
            best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            for &(j, _) in best.iter().take(PARTNERS) {
                pairs.push((i.min(j), i.max(j)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(session: &str, speaker: &str, text: &str) -> Turn {
        Turn {
            session: Some(session.into()),
            speaker: Some(speaker.into()),
            text: text.into(),
            ..Turn::default()
        }
    }

    #[test]
    fn names_stop_words_and_short_words_do_not_link() {
        // "ok" is short, "the"/"with" stop words, "Ann" the speaker's name
        let turns = vec![t("1", "Ann", "OK Ann, the Pixel walk with Pixel!")];
        let mut ix = WordIndex::default();
        let k = ix.text(&turns[0].text);
        let names = ix.names(&turns);
        let words: Vec<&str> = ix.split[k]
            .iter()
            .filter(|w| !names.contains(w))
            .map(|w| &*ix.words[*w as usize])
            .collect();
        assert_eq!(words, ["pixel", "walk"]);
    }

    #[test]
    fn a_rare_word_links_sessions_a_common_one_does_not() {
        // "greyhound" is in 2 turns (rare); "today" in 6 > MAX_DF (common)
        let turns = vec![
            t("1", "Ann", "I adopted a greyhound today"),
            t("1", "Bo", "today was sunny"),
            t("2", "Ann", "today the greyhound ran"),
            t("2", "Bo", "today I cooked"),
            t("3", "Ann", "today I read"),
            t("3", "Bo", "today I slept"),
        ];
        assert_eq!(entity_links(&turns), [(0, 2)]);
    }

    #[test]
    fn a_turn_that_makes_a_word_common_unlinks_its_turns() {
        // "greyhound" in 4 turns of 4 sessions: each turn links to its 2 best partners
        // (all tie at ln(4/4) = 0: the earlier ones), so 0-1, 0-2, 1-2, 0-3 … ; a fifth
        // turn makes it common (5 > MAX_DF): every link goes, none comes
        let mut turns: Vec<Turn> = (1..=4)
            .map(|k| t(&k.to_string(), "Ann", "a greyhound"))
            .collect();
        let before = entity_links(&turns);
        assert!(!before.is_empty());
        turns.push(t("5", "Bo", "my greyhound"));
        let c = link_change(&turns);
        assert!(c.added.is_empty());
        assert_eq!(c.removed, before);
    }

    #[test]
    fn turns_of_one_session_are_not_linked() {
        let turns = vec![t("1", "Ann", "the greyhound"), t("1", "Bo", "a greyhound")];
        assert!(entity_links(&turns).is_empty());
    }
}
