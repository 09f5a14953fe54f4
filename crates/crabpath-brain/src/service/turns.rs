//! The conversation log and the attribution of feedback that arrives later (seed 003
//! §3.2–3.4, seed 002 §5.7–5.8).
//!
//! **The log.** Every query served with a `chat_id` appends one *turn* to that
//! conversation: its number (1, 2, … per conversation), time, query, the fired ids in
//! order with their scores, and the traversed path (each accepted `from → to` step).
//! A database keeps it in its `turns` table (schema version 2, [`crate::store::schema`]);
//! a state file, which has no room for it, keeps it in memory for as long as the brain
//! is open, as upstream v12's daemon does with its fired log (`daemon.py`,
//! `_append_fired_history`). The newest [`KEEP_PER_CHAT`] turns of a conversation are
//! kept.
//!
//! **Attribution** ([`attribute`]). Feedback addressed to a conversation reaches its
//! recent turns: those at most [`Window::turns`] − 1 turns before the newest and at most
//! [`Window::seconds`] old (both limits hold: 10 turns *or* 900 s, whichever ends the
//! window first), whose credit has not been consumed. Turn `i`, Δᵢ turns before the
//! newest, receives `outcome · exp(−Δᵢ / 5)`; every turn credited is then marked, so
//! its credit is consumed once and a second feedback never reaches it again. With
//! `turns_ago = k` the caller names the turn itself: only the turn Δ = k is credited,
//! with the whole outcome.
//!
//! **The ledger.** A correction or teaching is known by the SHA-256 of its text
//! (surrounding whitespace stripped, as upstream's `_correction_node_id` hashes it):
//! the same text harvested again is recognised and applied once.

use std::collections::VecDeque;

use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

/// Turns kept per conversation (upstream `FIRED_LOG_LIMIT_PER_CHAT`).
pub const KEEP_PER_CHAT: usize = 100;

/// The feedback window and the decay of credit with distance (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Turns the window spans, the newest included (seed 003 §3.4: 10).
    pub turns: usize,
    /// Maximum age of a credited turn, seconds (seed 003 §3.4: 900).
    pub seconds: f64,
    /// Decay length in turns: weight `exp(−Δ / decay)` (seed 003 §3.3: 5).
    pub decay: f64,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            turns: 10,
            seconds: 900.0,
            decay: 5.0,
        }
    }
}

/// One served query of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The conversation.
    pub chat_id: String,
    /// Its number in the conversation (1 for the first).
    pub turn: i64,
    /// When it was served (Unix seconds).
    pub ts: f64,
    /// The query text.
    pub query: String,
    /// The fired ids, in fired order.
    pub fired: Vec<String>,
    /// Their scores, same order.
    pub scores: Vec<f64>,
    /// The traversed path: accepted `from → to` steps in order.
    pub path: Vec<(String, String)>,
    /// Whether feedback has consumed its credit.
    pub credited: bool,
}

/// What a new turn records (its number and time are the log's).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnRecord {
    /// The query text.
    pub query: String,
    /// The fired ids, in fired order.
    pub fired: Vec<String>,
    /// Their scores.
    pub scores: Vec<f64>,
    /// The traversed path.
    pub path: Vec<(String, String)>,
}

/// One turn's share of a feedback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Credit {
    /// The turn.
    pub turn: i64,
    /// Turns between it and the newest (0 for the newest).
    pub turns_ago: usize,
    /// Its weight: `exp(−turns_ago / decay)`, or 1 for a turn named by `turns_ago`.
    pub weight: f64,
}

/// Which turns a feedback reaches.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Attribution {
    /// Turns to credit, newest first.
    pub credits: Vec<Credit>,
    /// Turns inside the window whose credit was consumed already.
    pub consumed: Vec<i64>,
}

/// The attribution of a feedback arriving at `now` to a conversation's turns
/// (`turns`, oldest first; see the module docs). Pure; cost O(window).
pub fn attribute(
    turns: &[Turn],
    now: f64,
    window: &Window,
    turns_ago: Option<usize>,
) -> Attribution {
    let mut out = Attribution::default();
    for (ago, t) in turns.iter().rev().enumerate() {
        if ago >= window.turns {
            break;
        }
        if now - t.ts > window.seconds {
            break; // older turns are older still
        }
        if turns_ago.is_some_and(|k| k != ago) {
            continue;
        }
        if t.credited {
            out.consumed.push(t.turn);
            continue;
        }
        let weight = if turns_ago.is_some() {
            1.0
        } else {
            (-(ago as f64) / window.decay).exp()
        };
        out.credits.push(Credit {
            turn: t.turn,
            turns_ago: ago,
            weight,
        });
    }
    out
}

/// The ids of the turns' fired nodes, newest turn first, each id once (upstream
/// `daemon.py::_recent_fired_nodes`: the last `lookback` turns, no window, nothing
/// consumed).
pub fn recent_fired(turns: &[Turn], lookback: usize) -> Vec<String> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    for t in turns.iter().rev().take(lookback) {
        for id in &t.fired {
            if seen.insert(id.as_str()) {
                out.push(id.clone());
            }
        }
    }
    out
}

/// The ledger key of a text: SHA-256 (hex) of the text with surrounding whitespace
/// stripped.
pub fn content_hash(content: &str) -> String {
    hex::encode(Sha256::digest(content.trim().as_bytes()))
}

/// The node id of a correction, teaching or directive: `<kind>::` and the first 12 hex
/// digits of its [`content_hash`] (upstream `daemon.py::_feedback_node_id`).
pub fn feedback_node_id(kind: &str, content: &str) -> String {
    format!(
        "{}::{}",
        kind.to_ascii_lowercase(),
        &content_hash(content)[..12]
    )
}

/// The current time, Unix seconds.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A ledger entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    /// [`content_hash`] of the text.
    pub hash: String,
    /// `CORRECTION`, `TEACHING` or `DIRECTIVE`.
    pub kind: String,
    /// The conversation it came from, if any.
    pub chat_id: Option<String>,
    /// The node it made.
    pub node_id: String,
    /// When (Unix seconds).
    pub ts: f64,
}

/// The log and ledger of a brain held in memory (state files).
#[derive(Debug, Default)]
pub struct MemoryLog {
    chats: FxHashMap<String, VecDeque<Turn>>,
    next: FxHashMap<String, i64>,
    ledger: FxHashMap<String, LedgerEntry>,
}

impl MemoryLog {
    /// Appends a turn; returns its number.
    pub fn append(&mut self, chat_id: &str, ts: f64, rec: TurnRecord) -> i64 {
        let n = self.next.entry(chat_id.to_string()).or_insert(0);
        *n += 1;
        let turn = *n;
        let q = self.chats.entry(chat_id.to_string()).or_default();
        q.push_back(Turn {
            chat_id: chat_id.to_string(),
            turn,
            ts,
            query: rec.query,
            fired: rec.fired,
            scores: rec.scores,
            path: rec.path,
            credited: false,
        });
        while q.len() > KEEP_PER_CHAT {
            q.pop_front();
        }
        turn
    }

    /// The newest `limit` turns of a conversation, oldest first.
    pub fn recent(&self, chat_id: &str, limit: usize) -> Vec<Turn> {
        self.chats.get(chat_id).map_or_else(Vec::new, |q| {
            q.iter()
                .skip(q.len().saturating_sub(limit))
                .cloned()
                .collect()
        })
    }

    /// Marks turns credited; returns those that were not yet.
    pub fn claim(&mut self, chat_id: &str, turns: &[i64]) -> Vec<i64> {
        let mut out = Vec::new();
        if let Some(q) = self.chats.get_mut(chat_id) {
            for t in q.iter_mut() {
                if turns.contains(&t.turn) && !t.credited {
                    t.credited = true;
                    out.push(t.turn);
                }
            }
        }
        out
    }

    /// Gives back the credit of `turns`, claimed by [`Self::claim`] for a feedback
    /// whose write was then refused: a retry can credit them again.
    pub fn release(&mut self, chat_id: &str, turns: &[i64]) {
        if let Some(q) = self.chats.get_mut(chat_id) {
            for t in q.iter_mut().filter(|t| turns.contains(&t.turn)) {
                t.credited = false;
            }
        }
    }

    /// The ledger entry of a hash.
    pub fn ledger(&self, hash: &str) -> Option<LedgerEntry> {
        self.ledger.get(hash).cloned()
    }

    /// Deletes the ledger entry of a hash (if any).
    pub fn drop_ledger(&mut self, hash: &str) {
        self.ledger.remove(hash);
    }

    /// Records a ledger entry; false if the hash was there already.
    pub fn add_ledger(&mut self, e: LedgerEntry) -> bool {
        if self.ledger.contains_key(&e.hash) {
            return false;
        }
        self.ledger.insert(e.hash.clone(), e);
        true
    }
}

/// The log and ledger in a brain database (tables `turns` and `ledger`).
pub mod sql {
    use super::*;

    fn ids_json(ids: &[String]) -> String {
        serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())
    }

    /// Appends a turn in its own transaction; returns its number. Older turns of the
    /// conversation beyond [`KEEP_PER_CHAT`] are dropped.
    pub fn append(
        conn: &Connection,
        chat_id: &str,
        ts: f64,
        rec: &TurnRecord,
    ) -> rusqlite::Result<i64> {
        let tx = conn.unchecked_transaction()?;
        let last: Option<i64> = tx
            .prepare_cached("SELECT MAX(turn) FROM turns WHERE chat_id = ?1")?
            .query_row([chat_id], |r| r.get(0))?;
        let turn = last.unwrap_or(0) + 1;
        let path: Vec<[&str; 2]> = rec
            .path
            .iter()
            .map(|(a, b)| [a.as_str(), b.as_str()])
            .collect();
        tx.prepare_cached(
            "INSERT INTO turns(chat_id, turn, ts, query, fired, scores, path, credited) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0)",
        )?
        .execute(params![
            chat_id,
            turn,
            ts,
            rec.query,
            ids_json(&rec.fired),
            serde_json::to_string(&rec.scores).unwrap_or_else(|_| "[]".into()),
            serde_json::to_string(&path).unwrap_or_else(|_| "[]".into()),
        ])?;
        tx.prepare_cached("DELETE FROM turns WHERE chat_id = ?1 AND turn <= ?2")?
            .execute(params![chat_id, turn - KEEP_PER_CHAT as i64])?;
        tx.commit()?;
        Ok(turn)
    }

    /// The newest `limit` turns of a conversation, oldest first.
    pub fn recent(conn: &Connection, chat_id: &str, limit: usize) -> rusqlite::Result<Vec<Turn>> {
        let mut stmt = conn.prepare_cached(
            "SELECT turn, ts, query, fired, scores, path, credited FROM turns \
             WHERE chat_id = ?1 ORDER BY turn DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![chat_id, limit as i64], |r| {
            let fired: String = r.get(3)?;
            let scores: String = r.get(4)?;
            let path: String = r.get(5)?;
            Ok(Turn {
                chat_id: chat_id.to_string(),
                turn: r.get(0)?,
                ts: r.get(1)?,
                query: r.get(2)?,
                fired: serde_json::from_str(&fired).unwrap_or_default(),
                scores: serde_json::from_str(&scores).unwrap_or_default(),
                path: serde_json::from_str::<Vec<(String, String)>>(&path).unwrap_or_default(),
                credited: r.get::<_, i64>(6)? != 0,
            })
        })?;
        let mut out = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        out.reverse();
        Ok(out)
    }

    /// Marks turns credited, each in one statement that only succeeds while it is
    /// not: returns those this call consumed (two processes never both do).
    pub fn claim(conn: &Connection, chat_id: &str, turns: &[i64]) -> rusqlite::Result<Vec<i64>> {
        let tx = conn.unchecked_transaction()?;
        let mut out = Vec::new();
        for &t in turns {
            let n = tx.execute(
                "UPDATE turns SET credited = 1 WHERE chat_id = ?1 AND turn = ?2 AND credited = 0",
                params![chat_id, t],
            )?;
            if n == 1 {
                out.push(t);
            }
        }
        tx.commit()?;
        Ok(out)
    }

    /// Gives back the credit of `turns`, claimed by [`claim`] for a feedback whose write
    /// was then refused (one statement: the claim was this caller's alone).
    pub fn release(conn: &Connection, chat_id: &str, turns: &[i64]) -> rusqlite::Result<()> {
        let tx = conn.unchecked_transaction()?;
        for &t in turns {
            tx.execute(
                "UPDATE turns SET credited = 0 WHERE chat_id = ?1 AND turn = ?2",
                params![chat_id, t],
            )?;
        }
        tx.commit()
    }

    /// The ledger entry of a hash.
    pub fn ledger(conn: &Connection, hash: &str) -> rusqlite::Result<Option<LedgerEntry>> {
        conn.query_row(
            "SELECT kind, chat_id, node_id, ts FROM ledger WHERE hash = ?1",
            [hash],
            |r| {
                Ok(LedgerEntry {
                    hash: hash.to_string(),
                    kind: r.get(0)?,
                    chat_id: r.get(1)?,
                    node_id: r.get(2)?,
                    ts: r.get(3)?,
                })
            },
        )
        .optional()
    }

    /// Deletes the ledger entry of a hash (if any).
    pub fn drop_ledger(conn: &Connection, hash: &str) -> rusqlite::Result<()> {
        conn.execute("DELETE FROM ledger WHERE hash = ?1", [hash])?;
        Ok(())
    }

    /// Records a ledger entry; false if the hash was there already.
    pub fn add_ledger(conn: &Connection, e: &LedgerEntry) -> rusqlite::Result<bool> {
        let n = conn.execute(
            "INSERT OR IGNORE INTO ledger(hash, kind, chat_id, node_id, ts) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![e.hash, e.kind, e.chat_id, e.node_id, e.ts],
        )?;
        Ok(n == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: i64, ts: f64) -> Turn {
        Turn {
            chat_id: "c".into(),
            turn: n,
            ts,
            query: format!("q{n}"),
            fired: vec![format!("a{n}"), format!("b{n}")],
            scores: vec![1.0, 0.5],
            path: vec![(format!("a{n}"), format!("b{n}"))],
            credited: false,
        }
    }

    /// Twelve turns, one a minute; feedback one minute after the last.
    fn log() -> Vec<Turn> {
        (1..=12).map(|n| turn(n, 60.0 * n as f64)).collect()
    }

    #[test]
    fn the_window_spans_ten_turns_with_decaying_weights() {
        let a = attribute(&log(), 13.0 * 60.0, &Window::default(), None);
        // turns 12 (Δ 0) down to 3 (Δ 9); 2 and 1 are outside the window
        let turns: Vec<i64> = a.credits.iter().map(|c| c.turn).collect();
        assert_eq!(turns, (3..=12).rev().collect::<Vec<_>>());
        for c in &a.credits {
            // seed 003 §3.3: weight = exp(−Δturns / 5)
            let want = (-(c.turns_ago as f64) / 5.0).exp();
            assert!((c.weight - want).abs() < 1e-15, "{c:?}");
            assert_eq!(c.turns_ago as i64, 12 - c.turn);
        }
        assert_eq!(a.credits[0].weight, 1.0);
        assert!((a.credits[5].weight - (-1.0f64).exp()).abs() < 1e-15);
    }

    #[test]
    fn the_window_ends_after_900_seconds() {
        // ten minutes after turn 12 (t = 1320 s): turns served before 420 s are out,
        // so only turns 12 down to 7 (ts 720 … 420) are reached
        let a = attribute(&log(), 1320.0, &Window::default(), None);
        let turns: Vec<i64> = a.credits.iter().map(|c| c.turn).collect();
        assert_eq!(turns, vec![12, 11, 10, 9, 8, 7]);
        // more than 900 s after the newest turn: nothing is reached
        let late = attribute(&log(), 12.0 * 60.0 + 901.0, &Window::default(), None);
        assert!(late.credits.is_empty());
    }

    #[test]
    fn consumed_turns_are_not_credited_again() {
        let mut l = log();
        for t in l.iter_mut().filter(|t| t.turn >= 11) {
            t.credited = true;
        }
        let a = attribute(&l, 13.0 * 60.0, &Window::default(), None);
        assert_eq!(a.consumed, vec![12, 11]);
        assert_eq!(a.credits[0].turn, 10);
        // its weight still follows its distance from the newest turn
        assert!((a.credits[0].weight - (-2.0f64 / 5.0).exp()).abs() < 1e-15);
    }

    #[test]
    fn turns_ago_names_one_turn_with_full_weight() {
        let a = attribute(&log(), 13.0 * 60.0, &Window::default(), Some(2));
        assert_eq!(
            a.credits,
            vec![Credit {
                turn: 10,
                turns_ago: 2,
                weight: 1.0
            }]
        );
        // outside the window: nothing
        let a = attribute(&log(), 13.0 * 60.0, &Window::default(), Some(10));
        assert!(a.credits.is_empty());
    }

    #[test]
    fn memory_log_claims_each_turn_once_and_keeps_the_newest() {
        let mut m = MemoryLog::default();
        for i in 0..(KEEP_PER_CHAT + 5) {
            let rec = TurnRecord {
                query: format!("q{i}"),
                ..Default::default()
            };
            m.append("c", i as f64, rec);
        }
        let r = m.recent("c", 1000);
        assert_eq!(r.len(), KEEP_PER_CHAT);
        assert_eq!(r.last().unwrap().turn, KEEP_PER_CHAT as i64 + 5);
        assert_eq!(m.claim("c", &[104, 105]), vec![104, 105]);
        assert_eq!(m.claim("c", &[104, 105]), Vec::<i64>::new());
        assert!(m.recent("other", 5).is_empty());
    }

    #[test]
    fn ledger_and_ids_follow_the_stripped_text() {
        assert_eq!(content_hash("  do X  "), content_hash("do X"));
        assert_ne!(content_hash("do X"), content_hash("do Y"));
        // upstream: "correction::" + sha256(content.strip())[:12]
        let id = feedback_node_id("CORRECTION", " abc ");
        assert_eq!(id, "correction::ba7816bf8f01");
        let mut m = MemoryLog::default();
        let e = LedgerEntry {
            hash: content_hash("abc"),
            kind: "CORRECTION".into(),
            chat_id: None,
            node_id: id,
            ts: 0.0,
        };
        assert!(m.add_ledger(e.clone()));
        assert!(!m.add_ledger(e));
    }

    #[test]
    fn recent_fired_is_upstreams_lookback_union() {
        let l = log();
        assert_eq!(recent_fired(&l, 1), vec!["a12", "b12"]);
        assert_eq!(recent_fired(&l, 2), vec!["a12", "b12", "a11", "b11"]);
    }
}
