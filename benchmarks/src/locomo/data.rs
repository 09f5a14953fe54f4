//! Loader of LoCoMo's `locomo10.json` (Maharana et al., ACL 2024; `datasets/README.md`,
//! "LoCoMo"): conversations, their sessions and turns, and the questions with their
//! category and evidence turns.
//!
//! Schema (one JSON array, one object per conversation; rows counted from 0):
//!
//! | key | type | read as |
//! |---|---|---|
//! | `sample_id` | string | [`Conversation::sample_id`] (`conv-26` …) |
//! | `conversation.speaker_a`, `.speaker_b` | string | [`Conversation::speakers`] |
//! | `conversation.session_N` | array of turns | [`Session`] `N` (sessions in increasing `N`) |
//! | `conversation.session_N_date_time` | string | [`Session::date_time`] |
//! | turn `speaker`, `dia_id`, `text` | strings | [`Turn`]; `dia_id` must be a well-formed `D<N>:<t>` of its own session, unique |
//! | turn `blip_caption` | string, optional | [`Turn::caption`] (the image a speaker shared) |
//! | turn `img_url`, `query`, `re-download` | optional | not read (the image's address and the search that found it) |
//! | `qa[i].question` | string | [`Question::question`] |
//! | `qa[i].category` | integer 1–5 | [`Category`] |
//! | `qa[i].evidence` | array of strings | [`Question::evidence`], read by [`super::evidence`] |
//! | `qa[i].answer` / `adversarial_answer` | string or number, optional | [`Question::answer`] |
//! | `event_summary`, `observation`, `session_summary` | any | not read: annotations generated from the conversation, not part of it |
//!
//! Anything else that is wrong (a missing key, a wrong type, a category outside 1–5, a turn
//! id that is malformed, repeated, or of another session) is an
//! [`Error::Malformed`](crate::Error::Malformed) naming file, row and field. What the loader
//! tolerates it reports in [`Locomo::notes`] (a date key without its session, a session
//! without a date, an unknown key) and, for evidence strings, in [`Locomo::evidence_issues`].

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::{Map, Value};

use super::evidence::{read_evidence, EvidenceIssue, TurnRef};
use crate::data::json::{for_each_row, Flow, RowCtx};
use crate::error::Result;

/// A question's category (the integer `category` of the release; names as in
/// `datasets/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// 1: multi-hop — evidence from several sessions.
    MultiHop,
    /// 2: temporal reasoning.
    Temporal,
    /// 3: open-domain knowledge.
    OpenDomain,
    /// 4: single-hop.
    SingleHop,
    /// 5: adversarial — the conversation does not answer it; its evidence still names the
    /// turns it is built on.
    Adversarial,
}

impl Category {
    /// Every category, in code order.
    pub const ALL: [Category; 5] = [
        Category::MultiHop,
        Category::Temporal,
        Category::OpenDomain,
        Category::SingleHop,
        Category::Adversarial,
    ];

    /// The category of code `c` (1–5).
    pub fn from_code(c: u64) -> Option<Category> {
        match c {
            1 => Some(Category::MultiHop),
            2 => Some(Category::Temporal),
            3 => Some(Category::OpenDomain),
            4 => Some(Category::SingleHop),
            5 => Some(Category::Adversarial),
            _ => None,
        }
    }

    /// The code of the release (1–5).
    pub fn code(self) -> u8 {
        self as u8 + 1
    }

    /// `multi-hop`, `temporal`, `open-domain`, `single-hop`, `adversarial`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::MultiHop => "multi-hop",
            Category::Temporal => "temporal",
            Category::OpenDomain => "open-domain",
            Category::SingleHop => "single-hop",
            Category::Adversarial => "adversarial",
        }
    }
}

/// One turn of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Its reference (`dia_id`).
    pub id: TurnRef,
    /// Who speaks.
    pub speaker: String,
    /// What is said, verbatim.
    pub text: String,
    /// BLIP caption of the image the speaker shared, if any.
    pub caption: Option<String>,
}

impl Turn {
    /// The text a node of the brain holds ([`super::brain`]): the turn's text, then, when
    /// the speaker shared an image, ` [image: <caption>]`.
    pub fn content(&self) -> String {
        match &self.caption {
            Some(c) => format!("{} [image: {c}]", self.text),
            None => self.text.clone(),
        }
    }
}

/// One session of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// `N` of `session_N`.
    pub number: u32,
    /// `session_N_date_time` as written (e.g. `1:56 pm on 8 May, 2023`), if present.
    pub date_time: Option<String>,
    /// Turns in order.
    pub turns: Vec<Turn>,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// 0-based position in the conversation's `qa` list.
    pub index: usize,
    /// The question, verbatim.
    pub question: String,
    /// Its category.
    pub category: Category,
    /// The evidence turns kept (distinct, in the order written; see [`super::evidence`]).
    pub evidence: Vec<TurnRef>,
    /// The evidence strings exactly as released (no repair, duplicates kept): what the
    /// paper's definition of recall compares turn ids with ([`super::paper`]).
    pub released_evidence: Vec<String>,
    /// `answer` (or `adversarial_answer`), a number written as JSON; `None` if absent.
    pub answer: Option<String>,
}

/// One conversation (one row of the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    /// 0-based row of the file.
    pub row: usize,
    /// `sample_id` (`conv-26` …).
    pub sample_id: String,
    /// `speaker_a`, `speaker_b`.
    pub speakers: [String; 2],
    /// Sessions in increasing number.
    pub sessions: Vec<Session>,
    /// Questions in file order.
    pub questions: Vec<Question>,
}

impl Conversation {
    /// Every turn with its session, in conversation order (session by session).
    pub fn turns(&self) -> impl Iterator<Item = (&Session, &Turn)> + '_ {
        self.sessions
            .iter()
            .flat_map(|s| s.turns.iter().map(move |t| (s, t)))
    }

    /// Number of turns.
    pub fn turn_count(&self) -> usize {
        self.sessions.iter().map(|s| s.turns.len()).sum()
    }
}

/// Something the loader tolerated, said once per occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadNote {
    /// The conversation.
    pub conversation: String,
    /// What was found and what was done.
    pub note: String,
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locomo {
    /// Conversations in file order.
    pub conversations: Vec<Conversation>,
    /// Every evidence string that needed a rule ([`super::evidence`]), in file order.
    pub evidence_issues: Vec<EvidenceIssue>,
    /// Everything else tolerated, in file order.
    pub notes: Vec<LoadNote>,
}

impl Locomo {
    /// The conversation with `sample_id`.
    pub fn conversation(&self, sample_id: &str) -> Option<&Conversation> {
        self.conversations.iter().find(|c| c.sample_id == sample_id)
    }

    /// Totals for summaries: conversations, sessions, turns, questions.
    pub fn counts(&self) -> [usize; 4] {
        let c = &self.conversations;
        [
            c.len(),
            c.iter().map(|c| c.sessions.len()).sum(),
            c.iter().map(Conversation::turn_count).sum(),
            c.iter().map(|c| c.questions.len()).sum(),
        ]
    }
}

/// Loads every conversation of `path` (plain JSON or gzip). Cost: one pass over the file,
/// one conversation in memory as JSON at a time.
pub fn load(path: &Path) -> Result<Locomo> {
    let mut out = Locomo {
        conversations: Vec::new(),
        evidence_issues: Vec::new(),
        notes: Vec::new(),
    };
    for_each_row(path, |row, value| {
        let ctx = RowCtx::new(path, row);
        let conv = read_conversation(&ctx, &value, &mut out)?;
        out.conversations.push(conv);
        Ok(Flow::Continue)
    })?;
    Ok(out)
}

/// Keys of a row that are read or knowingly skipped.
const ROW_KEYS: [&str; 6] = [
    "sample_id",
    "conversation",
    "qa",
    "event_summary",
    "observation",
    "session_summary",
];

fn read_conversation(ctx: &RowCtx, value: &Value, out: &mut Locomo) -> Result<Conversation> {
    let row = ctx.object(value)?;
    let sample_id = ctx.req_string(row, "sample_id")?;
    let note = |out: &mut Locomo, note: String| {
        out.notes.push(LoadNote {
            conversation: sample_id.clone(),
            note,
        })
    };
    for k in row.keys().filter(|k| !ROW_KEYS.contains(&k.as_str())) {
        note(out, format!("unknown key `{k}` ignored"));
    }
    let conv = ctx.required(row, "conversation").and_then(|v| {
        v.as_object()
            .ok_or_else(|| ctx.err("conversation", "object", v))
    })?;
    let speaker = |k: &str| -> Result<String> {
        let field = format!("conversation.{k}");
        ctx.string(
            conv.get(k)
                .ok_or_else(|| ctx.err_text(&field, "a value", "no such key"))?,
            &field,
        )
    };
    let speakers = [speaker("speaker_a")?, speaker("speaker_b")?];

    // session_N and session_N_date_time, by N
    let mut lists: BTreeMap<u32, &Vec<Value>> = BTreeMap::new();
    let mut dates: BTreeMap<u32, String> = BTreeMap::new();
    for (k, v) in conv {
        let field = format!("conversation.{k}");
        if k == "speaker_a" || k == "speaker_b" {
            continue;
        }
        match session_key(k) {
            Some((n, false)) => {
                lists.insert(n, ctx.array(v, &field)?);
            }
            Some((n, true)) => {
                dates.insert(n, ctx.string(v, &field)?);
            }
            None => note(out, format!("unknown key `{field}` ignored")),
        }
    }
    let dangling: Vec<String> = dates
        .keys()
        .filter(|n| !lists.contains_key(n))
        .map(u32::to_string)
        .collect();
    if !dangling.is_empty() {
        note(
            out,
            format!(
                "`session_N_date_time` without `session_N` ignored for N = {}",
                dangling.join(", ")
            ),
        );
    }
    let mut sessions = Vec::with_capacity(lists.len());
    let mut seen: HashMap<TurnRef, String> = HashMap::new();
    for (&n, turns) in &lists {
        let date_time = dates.get(&n).cloned();
        if date_time.is_none() {
            note(out, format!("`session_{n}` has no date"));
        }
        let turns = turns
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let field = format!("conversation.session_{n}[{i}]");
                let turn = read_turn(ctx, t, &field, n)?;
                if let Some(prev) = seen.insert(turn.id, field.clone()) {
                    return Err(ctx.err_text(
                        &format!("{field}.dia_id"),
                        "a turn id not used before",
                        format!("{} (also at {prev})", turn.id),
                    ));
                }
                Ok(turn)
            })
            .collect::<Result<Vec<_>>>()?;
        sessions.push(Session {
            number: n,
            date_time,
            turns,
        });
    }

    let qa = ctx.array(ctx.required(row, "qa")?, "qa")?;
    let questions = qa
        .iter()
        .enumerate()
        .map(|(i, q)| read_question(ctx, q, i, &sample_id, &|r| seen.contains_key(&r), out))
        .collect::<Result<Vec<_>>>()?;
    Ok(Conversation {
        row: ctx.row,
        sample_id,
        speakers,
        sessions,
        questions,
    })
}

/// `session_N` → `(N, false)`, `session_N_date_time` → `(N, true)`.
fn session_key(k: &str) -> Option<(u32, bool)> {
    let rest = k.strip_prefix("session_")?;
    let (num, date) = match rest.strip_suffix("_date_time") {
        Some(n) => (n, true),
        None => (rest, false),
    };
    if num.is_empty() || num.starts_with('0') || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((num.parse().ok()?, date))
}

fn read_turn(ctx: &RowCtx, v: &Value, field: &str, session: u32) -> Result<Turn> {
    let t = v
        .as_object()
        .ok_or_else(|| ctx.err(field, "a turn object", v))?;
    let s = |k: &str| -> Result<String> {
        let f = format!("{field}.{k}");
        ctx.string(
            t.get(k)
                .ok_or_else(|| ctx.err_text(&f, "a value", "no such key"))?,
            &f,
        )
    };
    let dia = s("dia_id")?;
    let id = TurnRef::parse_strict(&dia)
        .filter(|r| r.session == session)
        .ok_or_else(|| {
            ctx.err_text(
                &format!("{field}.dia_id"),
                &format!("D{session}:<turn> (a turn id of session {session})"),
                format!("{dia:?}"),
            )
        })?;
    Ok(Turn {
        id,
        speaker: s("speaker")?,
        text: s("text")?,
        caption: ctx.opt_string(t, "blip_caption", &format!("{field}.blip_caption"))?,
    })
}

fn read_question(
    ctx: &RowCtx,
    v: &Value,
    index: usize,
    sample_id: &str,
    exists: &dyn Fn(TurnRef) -> bool,
    out: &mut Locomo,
) -> Result<Question> {
    let field = format!("qa[{index}]");
    let q: &Map<String, Value> = v
        .as_object()
        .ok_or_else(|| ctx.err(&field, "a question object", v))?;
    let get = |k: &str| {
        q.get(k)
            .ok_or_else(|| ctx.err_text(&format!("{field}.{k}"), "a value", "no such key"))
    };
    let question = ctx.string(get("question")?, &format!("{field}.question"))?;
    let cat_field = format!("{field}.category");
    let cat = get("category")?;
    let category = cat
        .as_u64()
        .and_then(Category::from_code)
        .ok_or_else(|| ctx.err(&cat_field, "an integer 1-5", cat))?;
    let ev_field = format!("{field}.evidence");
    let ev = ctx.array(get("evidence")?, &ev_field)?;
    let mut evidence = Vec::with_capacity(ev.len());
    let mut released_evidence = Vec::with_capacity(ev.len());
    for (j, e) in ev.iter().enumerate() {
        let written = ctx.string(e, &format!("{ev_field}[{j}]"))?;
        released_evidence.push(written.to_string());
        if let Some(issue) = read_evidence(&written, exists, &mut evidence, sample_id, index) {
            out.evidence_issues.push(issue);
        }
    }
    let answer = match q.get("answer").or_else(|| q.get("adversarial_answer")) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(n @ Value::Number(_)) => Some(n.to_string()),
        Some(other) => {
            return Err(ctx.err(&format!("{field}.answer"), "string or number", other));
        }
    };
    Ok(Question {
        index,
        question,
        category,
        evidence,
        released_evidence,
        answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(v: &Value) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), serde_json::to_vec(v).unwrap()).unwrap();
        f
    }

    fn turn(id: &str, speaker: &str, text: &str) -> Value {
        json!({"speaker": speaker, "dia_id": id, "text": text})
    }

    /// A conversation of two sessions (and a dangling third date), four questions.
    fn tiny() -> Value {
        json!([{
            "sample_id": "conv-t",
            "conversation": {
                "speaker_a": "Ann", "speaker_b": "Bo",
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_1": [
                    turn("D1:1", "Ann", "I adopted a dog."),
                    {"speaker": "Bo", "dia_id": "D1:2", "text": "Cute!",
                     "img_url": ["http://x/y.jpg"], "blip_caption": "a photo of a dog",
                     "query": "dog"}
                ],
                "session_2_date_time": "2:00 pm on 9 May, 2023",
                "session_2": [turn("D2:1", "Bo", "How is the dog?")],
                "session_3_date_time": "3:00 pm on 1 June, 2023"
            },
            "qa": [
                {"question": "What did Ann adopt?", "answer": "a dog",
                 "evidence": ["D1:1"], "category": 4},
                {"question": "When?", "answer": 2023, "evidence": ["D1:1; D2:1"],
                 "category": 2},
                {"question": "Why?", "adversarial_answer": "x", "evidence": ["D", "D2:01"],
                 "category": 5},
                {"question": "Who?", "answer": "Ann", "evidence": [], "category": 3}
            ],
            "event_summary": {}, "observation": {}, "session_summary": {}
        }])
    }

    #[test]
    fn reads_sessions_turns_questions_and_reports_what_it_tolerated() {
        let f = write(&tiny());
        let l = load(f.path()).unwrap();
        assert_eq!(l.counts(), [1, 2, 3, 4]);
        let c = &l.conversations[0];
        assert_eq!(c.speakers, ["Ann".to_string(), "Bo".to_string()]);
        assert_eq!(
            c.sessions[1].date_time.as_deref(),
            Some("2:00 pm on 9 May, 2023")
        );
        let t = &c.sessions[0].turns[1];
        assert_eq!(t.content(), "Cute! [image: a photo of a dog]");
        assert_eq!(c.sessions[0].turns[0].content(), "I adopted a dog.");
        let q = &c.questions;
        assert_eq!(q[1].category, Category::Temporal);
        assert_eq!(q[1].answer.as_deref(), Some("2023"));
        assert_eq!(q[1].evidence.len(), 2);
        assert_eq!(q[2].answer.as_deref(), Some("x"));
        assert_eq!(
            q[2].evidence,
            [TurnRef {
                session: 2,
                turn: 1
            }]
        );
        assert!(q[3].evidence.is_empty());
        // three strings needed a rule: the split, the `D`, the leading zero
        let issues: Vec<String> = l.evidence_issues.iter().map(|i| i.describe()).collect();
        assert_eq!(issues.len(), 3, "{issues:?}");
        assert!(issues[0].starts_with("conv-t qa[1]: \"D1:1; D2:1\": 2 ids in one string"));
        assert!(issues[1].contains("\"D\" dropped: names no turn"));
        assert!(issues[2].contains("(leading zero) kept as D2:1"));
        assert_eq!(
            l.notes,
            [LoadNote {
                conversation: "conv-t".into(),
                note: "`session_N_date_time` without `session_N` ignored for N = 3".into()
            }]
        );
    }

    fn malformed(edit: impl FnOnce(&mut Value)) -> String {
        let mut v = tiny();
        edit(&mut v);
        let f = write(&v);
        load(f.path()).unwrap_err().to_string()
    }

    #[test]
    fn malformed_rows_name_row_and_field() {
        let e = malformed(|v| v[0]["qa"][2]["category"] = json!(7));
        assert!(
            e.contains("row 0: field qa[2].category: expected an integer 1-5, found number 7"),
            "{e}"
        );
        let e = malformed(|v| v[0]["conversation"]["session_2"][0]["dia_id"] = json!("D1:2"));
        assert!(
            e.contains("field conversation.session_2[0].dia_id: expected D2:<turn>"),
            "{e}"
        );
        let e = malformed(|v| v[0]["conversation"]["session_1"][1]["dia_id"] = json!("D1:1"));
        assert!(e.contains("expected a turn id not used before"), "{e}");
        let e = malformed(|v| v[0]["conversation"]["session_1"][0]["text"] = json!(null));
        assert!(
            e.contains("field conversation.session_1[0].text: expected string"),
            "{e}"
        );
        let e = malformed(|v| {
            v[0]["qa"][0].as_object_mut().unwrap().remove("evidence");
        });
        assert!(
            e.contains("field qa[0].evidence: expected a value, found no such key"),
            "{e}"
        );
        let e = malformed(|v| v[0]["conversation"]["speaker_b"] = json!(3));
        assert!(
            e.contains("field conversation.speaker_b: expected string"),
            "{e}"
        );
    }

    #[test]
    fn session_keys() {
        assert_eq!(session_key("session_12"), Some((12, false)));
        assert_eq!(session_key("session_3_date_time"), Some((3, true)));
        for k in [
            "session_",
            "session_01",
            "session_x",
            "speaker_a",
            "session_2_date",
        ] {
            assert_eq!(session_key(k), None, "{k}");
        }
    }

    #[test]
    fn category_codes_round_trip() {
        for c in Category::ALL {
            assert_eq!(Category::from_code(u64::from(c.code())), Some(c));
        }
        assert_eq!(Category::from_code(0), None);
        assert_eq!(Category::MultiHop.as_str(), "multi-hop");
    }
}
