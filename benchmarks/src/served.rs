//! A question asked through the product as the daemon serves a turn, and the feedback
//! that answers it (issue 31 item 5): the one home of what `bench folder-rounds`, `bench
//! folder-replay` and `bench locomo-rounds` do per question.
//!
//! * [`ask`] runs [`Brain::query`] with the caller's request and neurogenesis as asked;
//!   with a conversation id it journals `{"chat_id": ...}` and logs the answer as that
//!   conversation's turn ([`Brain::record_turn`]), as the daemon's `query` with
//!   `chat_id` does.
//! * [`feedback`] credits the newest turn of that conversation ([`Brain::feedback`],
//!   `turns_ago` 0), as the daemon's `learn_by_chat_id` does, with the outcome and
//!   `used_ids` of a [`Protocol`].
//! * [`share`] and [`lost`] are the scores every one of them reports.

use crabpath_brain::service::turns::Window;
use crabpath_brain::service::FeedbackRequest;
use crabpath_brain::{Brain, QueryRequest};
use pyformat::pyjson::{PyDict, PyValue};

use crate::error::{Error, Result};

/// How an answer is followed by feedback (issue 31 item 5, "both kinds of feedback").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// Outcome +1 with `used_ids`: the nodes the agent read to answer (those of the
    /// right page, or the evidence turns), in the answer or not.
    AgentConfirmed,
    /// Outcome +1 when a right node is in the first five, −1 otherwise; no `used_ids`.
    OutcomeOnly,
}

impl Protocol {
    /// Both, in the order reports list them.
    pub const ALL: [Protocol; 2] = [Protocol::AgentConfirmed, Protocol::OutcomeOnly];

    /// `agent-confirmed` / `outcome-only`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::AgentConfirmed => "agent-confirmed",
            Protocol::OutcomeOnly => "outcome-only",
        }
    }

    /// The feedback for an answer that was (`hit`) or was not right within five:
    /// `(outcome, used_ids)`; `used` gives the agent's nodes (read only when the
    /// protocol reports them).
    pub fn feedback(
        self,
        hit: bool,
        used: impl FnOnce() -> Option<Vec<String>>,
    ) -> (f64, Option<Vec<String>>) {
        match self {
            Protocol::AgentConfirmed => (1.0, used()),
            Protocol::OutcomeOnly => (if hit { 1.0 } else { -1.0 }, None),
        }
    }
}

/// Asks `req` with neurogenesis `neurogenesis`; with `chat`, as that conversation's turn
/// (see the module docs). Returns the answer's node ids, best first
/// ([`crabpath_brain::Answer::ranked`]).
pub fn ask(
    b: &mut Brain,
    mut req: QueryRequest<'_>,
    neurogenesis: bool,
    chat: Option<&str>,
) -> Result<Vec<String>> {
    let text = req.text;
    req.neurogenesis = Some(neurogenesis);
    if let Some(c) = chat {
        let mut m = PyDict::new();
        m.insert("chat_id".into(), PyValue::Str(c.into()));
        req.journal_metadata = PyValue::Dict(m);
    }
    let answer = b
        .query(&req)
        .map_err(|e| Error::brain(format!("asking {text:?}"), e))?;
    let ranked: Vec<String> = answer.ranked().into_iter().map(str::to_string).collect();
    let rec = answer.turn_record(text);
    if let Some(c) = chat {
        b.record_turn(c, rec)
            .map_err(|e| Error::brain(format!("logging {text:?}"), e))?;
    }
    Ok(ranked)
}

/// Credits conversation `chat`'s newest turn with `outcome` and the agent's `used_ids`
/// (see the module docs).
pub fn feedback(
    b: &mut Brain,
    chat: &str,
    outcome: f64,
    used_ids: Option<Vec<String>>,
) -> Result<()> {
    b.feedback(&FeedbackRequest {
        outcome,
        chat_id: Some(chat),
        fired_ids: None,
        turns_ago: Some(0),
        window: Window::default(),
        used_ids,
    })
    .map(|_| ())
    .map_err(|e| Error::brain(format!("feedback on the turn of {chat:?}"), e))
}

/// The share of `true` in `hits`, rounded to 3 decimals (0 for none).
pub fn share(hits: &[bool]) -> f64 {
    let n = hits.len().max(1) as f64;
    (hits.iter().filter(|&&h| h).count() as f64 / n * 1000.0).round() / 1000.0
}

/// Questions right `before` and not `after` (paired by position).
pub fn lost(before: &[bool], after: &[bool]) -> usize {
    before
        .iter()
        .zip(after)
        .filter(|(b, a)| **b && !**a)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_rounds_to_three_decimals_and_is_zero_for_nothing() {
        // 2 of 3 = 0.6667 → 0.667; 1 of 8 = 0.125 exactly
        assert_eq!(share(&[true, false, true]), 0.667);
        assert_eq!(
            share(&[true, false, false, false, false, false, false, false]),
            0.125
        );
        assert_eq!(share(&[]), 0.0);
    }

    #[test]
    fn lost_counts_right_before_and_wrong_after_only() {
        // positions: kept, lost, gained, never → one lost
        let before = [true, true, false, false];
        let after = [true, false, true, false];
        assert_eq!(lost(&before, &after), 1);
        assert_eq!(lost(&after, &before), 1);
    }

    #[test]
    fn protocols_give_their_outcomes_and_used_ids() {
        let used = || Some(vec!["a.md::0".to_string()]);
        assert_eq!(
            Protocol::AgentConfirmed.feedback(false, used),
            (1.0, Some(vec!["a.md::0".to_string()]))
        );
        assert_eq!(Protocol::OutcomeOnly.feedback(true, used), (1.0, None));
        assert_eq!(Protocol::OutcomeOnly.feedback(false, used), (-1.0, None));
    }
}
