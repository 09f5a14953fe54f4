//! LoCoMo evidence references (`D<session>:<turn>`) and the explicit repair of the strings
//! that do not name a turn as written.
//!
//! A well-formed reference is `D`, the session number, `:`, the turn number, both decimal
//! without leading zeros (the `dia_id` of a turn, e.g. `D1:3`). The released file
//! (`datasets/README.md`, "LoCoMo") has nine evidence strings that are not; each kind of
//! defect gets one rule here, and every string a rule touches is reported
//! ([`EvidenceIssue`]) with what was done:
//!
//! | defect (released example)            | rule                 | action                           |
//! |--------------------------------------|----------------------|----------------------------------|
//! | several ids in one string (`D8:6; D9:17`, `D9:1 D4:4 D4:6`) | split on `;`, `,` and whitespace | each part read by the rules below |
//! | leading zero (`D30:05`)              | numbers read as decimal | kept as the canonical `D30:5` if that turn exists |
//! | extra colon (`D:11:26`)              | `D:` read as `D`     | kept as `D11:26` if that turn exists |
//! | no id (`D`)                          | —                    | dropped                          |
//! | a turn the conversation lacks (`D10:19`, `D4:36`) | —       | dropped (never guessed)          |
//!
//! A reference that repeats one already kept for the question is dropped as a duplicate
//! (reported too). Nothing is silently changed: a string that needs no rule produces no
//! issue, and every other string produces exactly one.

use std::fmt;

/// A turn of a conversation: session number and turn number (both 1-based, as in the
/// `dia_id`s of the release).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TurnRef {
    /// Session number (`N` of `session_N`).
    pub session: u32,
    /// Turn number within the session (1-based).
    pub turn: u32,
}

impl fmt::Display for TurnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "D{}:{}", self.session, self.turn)
    }
}

impl TurnRef {
    /// Parses a well-formed `dia_id` (`D<session>:<turn>`, decimal, no sign, no leading zero,
    /// both numbers ≥ 1); `None` for anything else.
    pub fn parse_strict(s: &str) -> Option<TurnRef> {
        let (a, b) = s.strip_prefix('D')?.split_once(':')?;
        Some(TurnRef {
            session: canonical_number(a)?,
            turn: canonical_number(b)?,
        })
    }
}

/// A decimal number ≥ 1 written without a leading zero.
fn canonical_number(s: &str) -> Option<u32> {
    if s.starts_with('0') {
        return None;
    }
    lenient_number(s)
}

/// A decimal number ≥ 1, leading zeros allowed.
fn lenient_number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&n| n >= 1)
}

/// What was done with one part of an evidence string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartAction {
    /// Well-formed and the turn exists: kept as written.
    Kept(TurnRef),
    /// Written with a leading zero (`D30:05`) or an extra colon (`D:11:26`); the turn it
    /// names exists: kept in canonical form.
    Normalised {
        /// The part as written.
        written: String,
        /// The canonical reference kept.
        kept: TurnRef,
        /// Which defect (`leading zero`, `extra colon`).
        defect: &'static str,
    },
    /// Names a turn the conversation does not have: dropped.
    NoSuchTurn {
        /// The part as written.
        written: String,
    },
    /// No turn can be read from it (`D`): dropped.
    Unreadable {
        /// The part as written.
        written: String,
    },
    /// The question already keeps this turn: dropped.
    Duplicate(TurnRef),
}

impl PartAction {
    /// The reference kept, if any.
    pub fn kept(&self) -> Option<TurnRef> {
        match self {
            PartAction::Kept(r) => Some(*r),
            PartAction::Normalised { kept, .. } => Some(*kept),
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            PartAction::Kept(r) => format!("kept {r}"),
            PartAction::Normalised {
                written,
                kept,
                defect,
            } => format!("{written:?} ({defect}) kept as {kept}"),
            PartAction::NoSuchTurn { written } => {
                format!("{written:?} dropped: no such turn in the conversation")
            }
            PartAction::Unreadable { written } => {
                format!("{written:?} dropped: names no turn")
            }
            PartAction::Duplicate(r) => format!("{r} dropped: already kept for this question"),
        }
    }
}

/// One evidence string that needed a rule, and what was done with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceIssue {
    /// The conversation (`sample_id`).
    pub conversation: String,
    /// The question's 0-based position in the conversation's `qa` list.
    pub question: usize,
    /// The evidence string as released.
    pub written: String,
    /// Whether it held several ids (split before the parts were read).
    pub split: bool,
    /// One action per part, in order.
    pub parts: Vec<PartAction>,
}

impl EvidenceIssue {
    /// One line for humans, e.g.
    /// `conv-50 qa[69]: "D30:05": "D30:05" (leading zero) kept as D30:5`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self.parts.iter().map(PartAction::describe).collect();
        let how = if self.split {
            format!("{} ids in one string, split: ", self.parts.len())
        } else {
            String::new()
        };
        format!(
            "{} qa[{}]: {:?}: {how}{}",
            self.conversation,
            self.question,
            self.written,
            parts.join("; ")
        )
    }

    /// How many references were kept from the string.
    pub fn kept(&self) -> usize {
        self.parts.iter().filter(|p| p.kept().is_some()).count()
    }
}

/// Reads one evidence string of a question, given the turns the conversation has
/// (`exists`) and the references already kept for the question (`kept`, extended in place).
/// Returns the issue to report, or `None` when the string was one well-formed, new,
/// existing reference.
pub fn read_evidence(
    written: &str,
    exists: impl Fn(TurnRef) -> bool,
    kept: &mut Vec<TurnRef>,
    conversation: &str,
    question: usize,
) -> Option<EvidenceIssue> {
    let parts: Vec<&str> = written
        .split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    let split = parts.len() > 1;
    let parts: Vec<&str> = if parts.is_empty() {
        vec![written]
    } else {
        parts
    };
    let mut actions = Vec::with_capacity(parts.len());
    for p in parts {
        let action = read_part(p, &exists);
        let action = match action.kept() {
            Some(r) if kept.contains(&r) => PartAction::Duplicate(r),
            Some(r) => {
                kept.push(r);
                action
            }
            None => action,
        };
        actions.push(action);
    }
    let clean = !split && matches!(actions.as_slice(), [PartAction::Kept(_)]);
    (!clean).then(|| EvidenceIssue {
        conversation: conversation.to_string(),
        question,
        written: written.to_string(),
        split,
        parts: actions,
    })
}

/// The rules of the module docs for one part (no duplicate check).
fn read_part(p: &str, exists: &impl Fn(TurnRef) -> bool) -> PartAction {
    let unreadable = || PartAction::Unreadable {
        written: p.to_string(),
    };
    if let Some(r) = TurnRef::parse_strict(p) {
        return if exists(r) {
            PartAction::Kept(r)
        } else {
            PartAction::NoSuchTurn {
                written: p.to_string(),
            }
        };
    }
    let Some(rest) = p.strip_prefix('D') else {
        return unreadable();
    };
    let (rest, defect) = match rest.strip_prefix(':') {
        Some(r) => (r, "extra colon"),
        None => (rest, "leading zero"),
    };
    let Some((a, b)) = rest.split_once(':') else {
        return unreadable();
    };
    let (Some(session), Some(turn)) = (lenient_number(a), lenient_number(b)) else {
        return unreadable();
    };
    let r = TurnRef { session, turn };
    if exists(r) {
        PartAction::Normalised {
            written: p.to_string(),
            kept: r,
            defect,
        }
    } else {
        PartAction::NoSuchTurn {
            written: p.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(session: u32, turn: u32) -> TurnRef {
        TurnRef { session, turn }
    }

    /// Dialogues D1–D30 with turns 1–25 exist, except turn 19 of dialogue D10.
    fn exists(r: TurnRef) -> bool {
        (1..=30).contains(&r.session) && (1..=25).contains(&r.turn) && r != t(10, 19)
    }

    fn read(written: &str, kept: &mut Vec<TurnRef>) -> Option<EvidenceIssue> {
        read_evidence(written, exists, kept, "conv-x", 7)
    }

    #[test]
    fn strict_parse_accepts_only_canonical_ids() {
        assert_eq!(TurnRef::parse_strict("D1:3"), Some(t(1, 3)));
        assert_eq!(TurnRef::parse_strict("D12:140"), Some(t(12, 140)));
        for bad in [
            "D", "D1", "D:1:3", "D30:05", "D0:1", "d1:3", "D1:3 ", "D1:+3", "D1:3:4",
        ] {
            assert_eq!(TurnRef::parse_strict(bad), None, "{bad}");
        }
        assert_eq!(t(30, 5).to_string(), "D30:5");
    }

    #[test]
    fn a_clean_reference_is_kept_without_an_issue() {
        let mut kept = Vec::new();
        assert_eq!(read("D1:3", &mut kept), None);
        assert_eq!(kept, [t(1, 3)]);
    }

    #[test]
    fn each_released_defect_gets_its_rule() {
        // The nine strings of the release (datasets/README.md, "LoCoMo"), in kind order.
        let mut kept = Vec::new();
        let i = read("D8:6; D9:17", &mut kept).unwrap();
        assert!(i.split);
        assert_eq!(kept, [t(8, 6), t(9, 17)]);
        assert_eq!(i.kept(), 2);

        let mut kept = Vec::new();
        let i = read("D21:18 D21:22 D11:15 D11:19", &mut kept).unwrap();
        assert_eq!((i.split, i.kept()), (true, 4));

        let mut kept = Vec::new();
        let i = read("D30:05", &mut kept).unwrap();
        assert_eq!(
            i.parts,
            [PartAction::Normalised {
                written: "D30:05".into(),
                kept: t(30, 5),
                defect: "leading zero"
            }]
        );
        assert_eq!(kept, [t(30, 5)]);

        let mut kept = Vec::new();
        let i = read("D:11:26", &mut kept).unwrap();
        // dialogue D11 has no turn 26 in this fixture: read, then dropped as missing
        assert_eq!(
            i.parts,
            [PartAction::NoSuchTurn {
                written: "D:11:26".into()
            }]
        );
        let i = read("D:11:16", &mut kept).unwrap();
        assert_eq!(i.parts[0].kept(), Some(t(11, 16)));
        assert!(i.describe().contains("(extra colon) kept as D11:16"));

        let mut kept = Vec::new();
        let i = read("D", &mut kept).unwrap();
        assert_eq!(
            i.parts,
            [PartAction::Unreadable {
                written: "D".into()
            }]
        );
        assert!(kept.is_empty());

        let i = read("D10:19", &mut kept).unwrap();
        assert_eq!(i.kept(), 0);
        assert!(
            i.describe()
                .ends_with("dropped: no such turn in the conversation"),
            "{}",
            i.describe()
        );
    }

    #[test]
    fn duplicates_are_dropped_and_reported() {
        let mut kept = vec![t(1, 3)];
        let i = read("D1:3", &mut kept).unwrap();
        assert_eq!(i.parts, [PartAction::Duplicate(t(1, 3))]);
        assert_eq!(kept, [t(1, 3)]);
        let i = read("D1:4;D1:4", &mut kept).unwrap();
        assert_eq!(
            i.parts,
            [PartAction::Kept(t(1, 4)), PartAction::Duplicate(t(1, 4))]
        );
    }

    #[test]
    fn empty_and_odd_strings_are_unreadable() {
        for s in ["", " ", "X1:2", "D1:", "D:", "D1:2:3"] {
            let mut kept = Vec::new();
            let i = read(s, &mut kept).unwrap();
            assert_eq!(i.kept(), 0, "{s:?}");
        }
    }
}
