//! One turn of a conversation: its fields and their validation. The same function
//! checks a line of a conversation file ([`super::parse`]) and the arguments of
//! `remember` (daemon and MCP), so that both accept exactly the same turns.

use serde_json::{Map, Value};

/// The fields a turn may have, in the order messages list them.
pub const FIELDS: [&str; 5] = ["id", "session", "time", "speaker", "text"];

/// One turn: `{"id": "D1:3", "session": "1", "time": "1:56 pm on 8 May, 2023",
/// "speaker": "Caroline", "text": "..."}`. Only `text` is required.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Turn {
    /// The node id (absent: generated, [`super::generated_id`]).
    pub id: Option<String>,
    /// The session it belongs to (turns are chained within a session); an integer
    /// session is read as its decimal text.
    pub session: Option<String>,
    /// When it was said, as written (any text: it is shown, not parsed).
    pub time: Option<String>,
    /// Who said it.
    pub speaker: Option<String>,
    /// What was said (not blank).
    pub text: String,
}

/// The kind of a JSON value, for messages ("got a number"; also the MCP tools'
/// argument errors).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An optional string field: absent, null or blank is `None`.
fn opt_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!(
            "`{key}` must be a string (or absent), got {}",
            json_kind(v)
        )),
    }
}

impl Turn {
    /// Reads a turn from a JSON object. The message of an error says what was wrong
    /// and what is accepted: an unknown field (naming [`FIELDS`], to catch a typo),
    /// `text` missing, blank or not a string, `id`/`time`/`speaker` not strings,
    /// `session` neither a string nor an integer. Null, blank and absent optional
    /// fields are the same (absent); an `id`, when given, must not be blank.
    pub fn from_object(obj: &Map<String, Value>) -> Result<Turn, String> {
        if let Some(k) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(format!(
                "unknown field `{k}` (the fields are: {}; only text is required)",
                FIELDS.join(", ")
            ));
        }
        let text = match obj.get("text") {
            None | Some(Value::Null) => {
                return Err("`text` is missing: every turn needs a non-empty string `text`".into())
            }
            Some(Value::String(s)) if s.trim().is_empty() => {
                return Err("`text` is blank: it must be a non-empty string".into())
            }
            Some(Value::String(s)) => s.clone(),
            Some(v) => {
                return Err(format!(
                    "`text` must be a non-empty string, got {}",
                    json_kind(v)
                ))
            }
        };
        let id =
            match obj.get("id") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s.trim().is_empty() => return Err(
                    "`id` is blank: give a non-empty string, or leave it out to have one generated"
                        .into(),
                ),
                Some(Value::String(s)) => Some(s.clone()),
                Some(v) => return Err(format!("`id` must be a string, got {}", json_kind(v))),
            };
        let session = match obj.get("session") {
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) => Some(i.to_string()),
                None => {
                    return Err(format!(
                        "`session` must be a string or an integer, got the number {n}"
                    ))
                }
            },
            Some(v @ (Value::Bool(_) | Value::Array(_) | Value::Object(_))) => {
                return Err(format!(
                    "`session` must be a string or an integer, got {}",
                    json_kind(v)
                ))
            }
            _ => opt_string(obj, "session")?,
        };
        Ok(Turn {
            id,
            session,
            time: opt_string(obj, "time")?,
            speaker: opt_string(obj, "speaker")?,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<Turn, String> {
        Turn::from_object(v.as_object().expect("an object"))
    }

    #[test]
    fn only_text_is_required_and_an_integer_session_is_its_text() {
        let t = read(json!({"text": "hi", "session": 3})).unwrap();
        assert_eq!(t.session.as_deref(), Some("3"));
        assert_eq!(t.id, None);
        assert!(read(json!({"session": 1}))
            .unwrap_err()
            .contains("`text` is missing"));
        assert!(read(json!({"text": 1}))
            .unwrap_err()
            .contains("got a number"));
        assert!(read(json!({"text": "x", "session": 1.5}))
            .unwrap_err()
            .contains("string or an integer"));
        assert!(read(json!({"text": "x", "speeker": "A"}))
            .unwrap_err()
            .contains("unknown field `speeker`"));
    }
}
