//! The LoCoMo metric table: evidence recall at turn and session level, all-evidence, MRR,
//! and recall at a fixed context budget in characters.
//!
//! Every metric is computed from a method's ranked list of turns (node indices, best
//! first) and the question's evidence turns. The turn-level metrics are entries of the
//! benchmark's metric table ([`crate::metrics::METRICS`], named in [`Formula::Table`]), so
//! their formulas have one home; the two that need more than node indices are here:
//!
//! * **session recall@5**: the share of the question's distinct evidence sessions that
//!   hold at least one of the first 5 turns (LoCoMo's evidence is per turn; a memory that
//!   returns the right sitting is partly right);
//! * **recall at a context budget**: the list is cut to its longest prefix whose turn
//!   contents sum to at most `budget` characters (code points, as the core's context
//!   budgets count), and recall is taken over that prefix. A method that returns fewer
//!   characters than the budget is not padded; one whose first turn alone exceeds it gets
//!   an empty prefix. This is the seeds' context-efficiency claim (the same evidence in
//!   less context) made measurable.
//!
//! Questions with no evidence turn are not scored (they are not queries:
//! [`super::brain::ConversationCorpus::without_evidence`]), so no metric needs a convention
//! for them.

use crate::metrics::{Judged, Metric, METRICS};

/// One question as a LoCoMo metric sees it.
#[derive(Debug, Clone, Copy)]
pub struct Scored<'a> {
    /// The method's list and the evidence turns (node indices).
    pub judged: Judged<'a>,
    /// Per node, its session.
    pub session_of: &'a [u32],
    /// Per node, its content length in code points.
    pub chars: &'a [usize],
    /// The context budget in characters.
    pub budget: usize,
}

impl Scored<'_> {
    /// The longest prefix of the list whose contents fit in the budget.
    pub fn within_budget(&self) -> &[usize] {
        let list = self.judged.retrieved;
        let mut used = 0usize;
        let n = list
            .iter()
            .take_while(|&&d| {
                used += self.chars[d];
                used <= self.budget
            })
            .count();
        &list[..n]
    }

    /// Characters of the prefix [`Scored::within_budget`].
    pub fn budget_used(&self) -> usize {
        self.within_budget().iter().map(|&d| self.chars[d]).sum()
    }

    /// Share of the distinct evidence sessions holding one of the first `k` turns.
    pub fn session_recall(&self, k: usize) -> f64 {
        let mut relevant: Vec<usize> = self
            .judged
            .relevant
            .iter()
            .map(|&d| self.session_of[d] as usize)
            .collect();
        relevant.sort_unstable();
        relevant.dedup();
        let mut retrieved: Vec<usize> = Vec::with_capacity(k);
        for &d in self.judged.top(k) {
            let s = self.session_of[d] as usize;
            if !retrieved.contains(&s) {
                retrieved.push(s);
            }
        }
        Judged {
            retrieved: &retrieved,
            relevant: &relevant,
            embed_top_k: self.judged.embed_top_k,
        }
        .recall(&retrieved)
    }
}

/// Where a metric's formula lives.
#[derive(Debug, Clone, Copy)]
pub enum Formula {
    /// The entry of [`crate::metrics::METRICS`] with this name, on the turn list.
    Table(&'static str),
    /// A LoCoMo formula (see the module docs).
    Own(fn(&Scored) -> f64),
}

/// One LoCoMo metric.
#[derive(Debug, Clone, Copy)]
pub struct LocomoMetric {
    /// Key in reports.
    pub name: &'static str,
    /// What it is called in the issue and in LoCoMo papers.
    pub label: &'static str,
    /// Its formula.
    pub formula: Formula,
}

impl LocomoMetric {
    /// The metric-table entry of a [`Formula::Table`] metric.
    pub fn table_entry(&self) -> Option<&'static Metric> {
        match self.formula {
            Formula::Table(name) => METRICS.iter().find(|m| m.name == name),
            Formula::Own(_) => None,
        }
    }

    /// Its value for one question.
    pub fn compute(&self, s: &Scored) -> f64 {
        match self.formula {
            Formula::Table(_) => self
                .table_entry()
                .map_or(f64::NAN, |m| (m.compute)(&s.judged)),
            Formula::Own(f) => f(s),
        }
    }

    /// The definition for readers of a report.
    pub fn definition(&self) -> String {
        match (self.formula, self.table_entry()) {
            (Formula::Table(_), Some(m)) => m.definition.to_string(),
            (Formula::Table(name), None) => format!("(no metric {name} in the table)"),
            (Formula::Own(_), _) if self.name == SESSION_RECALL_AT_5 => {
                "share of the distinct evidence sessions that hold at least one of the first \
                 5 turns"
                    .into()
            }
            (Formula::Own(_), _) => "fraction of the evidence turns in the longest prefix of \
                                     the list whose contents sum to at most the budget in \
                                     characters (code points)"
                .into(),
        }
    }
}

/// Name of session recall@5.
pub const SESSION_RECALL_AT_5: &str = "session_recall_at_5";
/// Name of recall at the context budget.
pub const RECALL_AT_BUDGET: &str = "recall_at_budget";

/// Every LoCoMo metric, in report order.
pub const LOCOMO_METRICS: [LocomoMetric; 6] = [
    LocomoMetric {
        name: "recall_at_5",
        label: "evidence recall@5",
        formula: Formula::Table("recall_at_5"),
    },
    LocomoMetric {
        name: "recall_at_10",
        label: "evidence recall@10",
        formula: Formula::Table("recall_at_10"),
    },
    LocomoMetric {
        name: SESSION_RECALL_AT_5,
        label: "session recall@5",
        formula: Formula::Own(|s| s.session_recall(5)),
    },
    LocomoMetric {
        name: "full_support_at_10",
        label: "all-evidence@10",
        formula: Formula::Table("full_support_at_10"),
    },
    LocomoMetric {
        name: "mrr_at_10",
        label: "MRR@10",
        formula: Formula::Table("mrr_at_10"),
    },
    LocomoMetric {
        name: RECALL_AT_BUDGET,
        label: "recall at the context budget",
        formula: Formula::Own(|s| s.judged.recall(s.within_budget())),
    },
];

/// Column of the metric named `name` in [`LOCOMO_METRICS`].
pub fn column(name: &str) -> Option<usize> {
    LOCOMO_METRICS.iter().position(|m| m.name == name)
}

/// Every metric of one question, in [`LOCOMO_METRICS`] order.
pub fn row(s: &Scored) -> Vec<f64> {
    LOCOMO_METRICS.iter().map(|m| m.compute(s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored<'a>(
        retrieved: &'a [usize],
        relevant: &'a [usize],
        session_of: &'a [u32],
        chars: &'a [usize],
        budget: usize,
    ) -> Scored<'a> {
        Scored {
            judged: Judged {
                retrieved,
                relevant,
                embed_top_k: 10,
            },
            session_of,
            chars,
            budget,
        }
    }

    #[test]
    fn every_table_metric_exists() {
        for m in LOCOMO_METRICS {
            if let Formula::Table(name) = m.formula {
                assert!(m.table_entry().is_some(), "{name} is not in METRICS");
            }
            assert!(!m.definition().starts_with("(no metric"));
        }
        assert_eq!(column(RECALL_AT_BUDGET), Some(5));
    }

    #[test]
    fn values_on_a_hand_case() {
        // 8 turns in sessions 1,1,1,2,2,3,3,3 of 100 characters each except turn 0 (250).
        let sessions = [1, 1, 1, 2, 2, 3, 3, 3];
        let chars = [250, 100, 100, 100, 100, 100, 100, 100];
        // evidence: turn 1 (dialogue 1), turn 3 (dialogue 2), turn 6 (dialogue 3)
        let relevant = [1, 3, 6];
        let list = [0, 2, 3, 5, 7, 1, 4, 6];
        let s = scored(&list, &relevant, &sessions, &chars, 500);
        let r = row(&s);
        // first 5 turns 0 2 3 5 7 hold evidence 3 only; sessions 1, 2, 3 all appear
        assert_eq!(r[0], 1.0 / 3.0, "recall@5");
        assert_eq!(r[1], 1.0, "recall@10");
        assert_eq!(r[2], 1.0, "session recall@5");
        assert_eq!(r[3], 1.0, "all-evidence@10");
        assert_eq!(r[4], 1.0 / 3.0, "MRR@10: first evidence at rank 3");
        // budget 500: 250 + 100 + 100 = 450 fits, + 100 = 550 does not → turns 0 2 3
        assert_eq!(s.within_budget(), [0, 2, 3]);
        assert_eq!(s.budget_used(), 450);
        assert_eq!(r[5], 1.0 / 3.0);
        // a first turn over the budget leaves nothing
        let s = scored(&list, &relevant, &sessions, &chars, 200);
        assert!(s.within_budget().is_empty());
        assert_eq!(row(&s)[5], 0.0);
        // dialogues counted once: two evidence turns of dialogue 1, list reaches only dialogue 2
        let s = scored(&[3, 4], &[0, 1], &sessions, &chars, 500);
        assert_eq!(s.session_recall(5), 0.0);
        let s = scored(&[2], &[0, 1, 3], &sessions, &chars, 500);
        assert_eq!(s.session_recall(5), 0.5);
    }
}
