//! `crabpath journal`: the last entries and the statistics of a journal (reference
//! `crabpath/journal.py::read_journal`, `journal_stats`, `cli.py::cmd_journal`, commit
//! 134c676).

use pyformat::pyjson::{PyDict, PyValue};

/// Python `entries[-n:]`: `n > 0` the last `n`, **`n = 0` all of them** (`-0` is `0`),
/// `n < 0` all but the first `|n|`.
pub fn last(entries: &[PyDict], n: i64) -> &[PyDict] {
    let len = entries.len();
    let start = if n > 0 {
        len.saturating_sub(n as usize)
    } else if n == 0 {
        0
    } else {
        len.min(n.unsigned_abs() as usize)
    };
    &entries[start..]
}

/// `journal --stats`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JournalStats {
    /// All entries.
    pub total_entries: usize,
    /// `query` entries.
    pub queries: usize,
    /// `learn` entries.
    pub learns: usize,
    /// `learn` entries with `outcome > 0`.
    pub positive_outcomes: usize,
    /// `learn` entries with `outcome < 0`.
    pub negative_outcomes: usize,
    /// Sum of `fired_count` over queries / max(queries, 1).
    pub avg_fired_per_query: f64,
}

fn type_is(e: &PyDict, t: &str) -> bool {
    e.get("type").and_then(PyValue::as_str) == Some(t)
}

/// The statistics of a list of entries (missing `outcome` / `fired_count` count as 0).
pub fn stats(entries: &[PyDict]) -> JournalStats {
    let queries: Vec<&PyDict> = entries.iter().filter(|e| type_is(e, "query")).collect();
    let learns: Vec<&PyDict> = entries.iter().filter(|e| type_is(e, "learn")).collect();
    let outcome = |e: &PyDict| e.get("outcome").and_then(PyValue::as_number).unwrap_or(0.0);
    let fired: f64 = queries
        .iter()
        .map(|e| {
            e.get("fired_count")
                .and_then(PyValue::as_number)
                .unwrap_or(0.0)
        })
        .sum();
    JournalStats {
        total_entries: entries.len(),
        queries: queries.len(),
        learns: learns.len(),
        positive_outcomes: learns.iter().filter(|e| outcome(e) > 0.0).count(),
        negative_outcomes: learns.iter().filter(|e| outcome(e) < 0.0).count(),
        avg_fired_per_query: fired / queries.len().max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyformat::pyjson::loads;

    fn e(s: &str) -> PyDict {
        loads(s).unwrap().as_dict().unwrap().clone()
    }

    #[test]
    fn slices_and_stats() {
        let v: Vec<PyDict> = vec![
            e(r#"{"type": "query", "fired_count": 8}"#),
            e(r#"{"type": "learn", "outcome": 1.0}"#),
            e(r#"{"type": "learn", "outcome": -1}"#),
            e(r#"{"type": "query", "fired_count": 3}"#),
        ];
        assert_eq!(last(&v, 2).len(), 2);
        assert_eq!(last(&v, 0).len(), 4);
        assert_eq!(last(&v, -1).len(), 3);
        assert_eq!(last(&v, -9).len(), 0);
        assert_eq!(last(&v, 9).len(), 4);
        let s = stats(&v);
        assert_eq!(
            (
                s.total_entries,
                s.queries,
                s.learns,
                s.positive_outcomes,
                s.negative_outcomes
            ),
            (4, 2, 2, 1, 1)
        );
        assert_eq!(s.avg_fired_per_query, 5.5);
        assert_eq!(stats(&[]).avg_fired_per_query, 0.0);
    }
}
