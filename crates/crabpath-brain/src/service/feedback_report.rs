//! How a [`FeedbackReport`] is shown, in one place for every interface (issue 31 item
//! 5): the `credited` list that the daemon's `learn_by_chat_id` and `correction` and the
//! command line's `learn --chat-id --json` return, and the note a conversation's
//! feedback gives when it learned nothing (also MCP `feedback`'s `note`).

use pyformat::pyjson::{PyDict, PyInt, PyValue};

use super::feedback::FeedbackReport;

impl FeedbackReport {
    /// `credited`: one `{turn, turns_ago, weight, outcome, fired}` per credited turn,
    /// newest first.
    pub fn credited_json(&self) -> PyValue {
        let count = |n: usize| PyValue::Int(PyInt::from(n as i64));
        PyValue::List(
            self.credited
                .iter()
                .map(|c| {
                    let mut d = PyDict::new();
                    d.insert("turn".into(), count(c.turn.max(0) as usize));
                    d.insert("turns_ago".into(), count(c.turns_ago));
                    d.insert("weight".into(), PyValue::Float(c.weight));
                    d.insert("outcome".into(), PyValue::Float(c.outcome));
                    d.insert(
                        "fired".into(),
                        PyValue::List(c.fired.iter().map(|s| PyValue::Str(s.clone())).collect()),
                    );
                    PyValue::Dict(d)
                })
                .collect(),
        )
    }

    /// Why a conversation's feedback learned nothing (`None` when it credited a turn):
    /// no turn inside the window (seed 003 §3.4: 10 turns, 15 minutes), or every turn
    /// inside it already credited.
    pub fn nothing_learned_note(&self) -> Option<&'static str> {
        if !self.credited.is_empty() {
            return None;
        }
        Some(if self.already_credited.is_empty() {
            "no turn of this conversation is inside the feedback window (10 turns, 15 minutes): nothing learned"
        } else {
            "the turns inside the window were credited by earlier feedback: nothing learned"
        })
    }
}
