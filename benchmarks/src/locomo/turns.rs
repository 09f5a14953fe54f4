//! LoCoMo conversations as the product's conversation turns (issue 28, item 1): the JSON
//! Lines `crabpath init --conversation FILE` reads, one turn a line, in conversation
//! order — `{"id": "D1:3", "session": "1", "time": "1:56 pm on 8 May, 2023", "speaker":
//! "Caroline", "text": "..."}` — with a shared image's BLIP caption appended to the text
//! as ` [image: CAPTION]` ([`super::data::Turn::content`]).
//!
//! `bench locomo-turns --out DIR` writes one `<sample_id>.jsonl` per conversation. The
//! data is CC BY-NC 4.0: these files hold its text and are never committed.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::data::{Conversation, Locomo};
use crate::error::{Error, Result};

/// One turn as the product's conversation format writes it (keys in this order; `time`
/// left out when the release gives the session no date).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnLine {
    /// The turn's `dia_id` (`D1:3`): the node id of the brain.
    pub id: String,
    /// The session number, as a string.
    pub session: String,
    /// The dialogue's date and time (LoCoMo's `session_N_date_time`), as released.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// Who speaks.
    pub speaker: String,
    /// The text, then ` [image: CAPTION]` when the speaker shared an image.
    pub text: String,
}

/// Every turn of `conv`, in conversation order.
pub fn conversation_turns(conv: &Conversation) -> Vec<TurnLine> {
    conv.turns()
        .map(|(s, t)| TurnLine {
            id: t.id.to_string(),
            session: s.number.to_string(),
            time: s.date_time.clone(),
            speaker: t.speaker.clone(),
            text: t.content(),
        })
        .collect()
}

/// `turns` as JSON Lines (one object a line, each line ending in `\n`).
pub fn jsonl(turns: &[TurnLine]) -> Result<String> {
    let mut s = String::new();
    for t in turns {
        s.push_str(&serde_json::to_string(t).map_err(|e| Error::Internal(format!("a turn: {e}")))?);
        s.push('\n');
    }
    Ok(s)
}

/// Writes `<dir>/<sample_id>.jsonl` for every conversation of `data` (creating `dir`);
/// returns the files in file order.
pub fn write_all(data: &Locomo, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut out = Vec::with_capacity(data.conversations.len());
    for c in &data.conversations {
        let path = dir.join(format!("{}.jsonl", c.sample_id));
        std::fs::write(&path, jsonl(&conversation_turns(c))?).map_err(|e| Error::io(&path, e))?;
        out.push(path);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomo::data::{Session, Turn};
    use crate::locomo::evidence::TurnRef;

    #[test]
    fn a_turn_is_one_line_with_its_session_date_and_caption() {
        let conv = Conversation {
            row: 0,
            sample_id: "conv-x".into(),
            speakers: ["Ann".into(), "Bo".into()],
            sessions: vec![Session {
                number: 2,
                date_time: Some("1:56 pm on 8 May, 2023".into()),
                turns: vec![Turn {
                    id: TurnRef {
                        session: 2,
                        turn: 1,
                    },
                    speaker: "Ann".into(),
                    text: "Look!".into(),
                    caption: Some("a photo of a dog".into()),
                }],
            }],
            questions: Vec::new(),
        };
        let s = jsonl(&conversation_turns(&conv)).unwrap();
        // the format, keys in its order (issue 28, item 1)
        assert_eq!(
            s,
            "{\"id\":\"D2:1\",\"session\":\"2\",\"time\":\"1:56 pm on 8 May, 2023\",\
             \"speaker\":\"Ann\",\"text\":\"Look! [image: a photo of a dog]\"}\n"
        );
    }
}

/// Arguments of `bench locomo-turns`.
#[derive(Debug, Clone, clap::Args)]
pub struct TurnsArgs {
    /// Directory to write `<sample_id>.jsonl` into, one file per conversation (created if
    /// missing; the files hold the dataset's text, CC BY-NC 4.0: never commit them).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Read this LoCoMo file (plain JSON or gzip) instead of locomo/locomo10.json(.gz) in
    /// the data directory.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// `bench locomo-turns`: writes every conversation of the release as the product's
/// conversation JSON Lines ([`write_all`]); returns the files written.
pub fn cmd_turns(data_dir: &crate::data::locate::DataDir, a: &TurnsArgs) -> Result<Vec<PathBuf>> {
    let file = crate::catalog::known_file(
        crate::catalog::Dataset::Locomo,
        crate::catalog::VariantArg::Full,
    )?;
    let path = crate::data::locate::resolve_input(a.input.as_deref(), data_dir, file)?;
    write_all(&super::data::load(&path)?, &a.out)
}
