//! Who may be looked at when: the tuning and test conversations, the seeded
//! learn/test splits of the questions inside a conversation, and the leave-one-out folds of
//! the test conversations for what transfers across conversations.
//!
//! * **Tuning and test conversations.** Every knob (α, learning rate, `k`, router, budget,
//!   structure) is chosen on [`TUNING_CONVERSATIONS`] (conv-26 and conv-30) only; results
//!   are reported on the other eight ([`Role`]). conv-26 and conv-30 are the first two rows
//!   of the release; nothing else about them was looked at to pick them.
//! * **Within a conversation** ([`WithinSplits`]): split `i` of a conversation is a
//!   ChaCha8 permutation of its questions (seed `seed`, stream `row · 2³² + i`, `row` the
//!   conversation's row in the file, so conversations of equal size get different splits and
//!   a split does not depend on which other conversations run). Its first
//!   `floor(n · learn_fraction)` questions, in permutation order, are learned from; the
//!   others are the test half, scored on the frozen graph. Every method is scored on the
//!   same test halves, so the differences between methods are paired.
//! * **Across conversations** ([`leave_one_out`]): what can transfer between two
//!   conversations is not an edge weight (their graphs share no node) but the router's
//!   parameters. Fold `j` learns them on every test conversation but the `j`-th and is
//!   scored on the `j`-th, so no question of a scored conversation ever informs its own
//!   parameters.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Result};
use crate::splits::Split;

/// The conversations every knob is tuned on; never reported as results.
pub const TUNING_CONVERSATIONS: [&str; 2] = ["conv-26", "conv-30"];

/// Whether a conversation is for tuning or for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// One of [`TUNING_CONVERSATIONS`].
    Tuning,
    /// Any other conversation.
    Test,
}

impl Role {
    /// The role of conversation `sample_id`.
    pub fn of(sample_id: &str) -> Role {
        if TUNING_CONVERSATIONS.contains(&sample_id) {
            Role::Tuning
        } else {
            Role::Test
        }
    }

    /// `tuning` / `test`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Tuning => "tuning",
            Role::Test => "test",
        }
    }
}

/// Default number of splits per conversation.
pub const DEFAULT_SPLITS: usize = 20;
/// Default share of a conversation's questions learned from.
pub const DEFAULT_LEARN_FRACTION: f64 = 0.5;

/// The within-conversation splits (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WithinSplits {
    /// Splits per conversation (at least 2).
    pub splits: usize,
    /// Seed of the permutations.
    pub seed: u64,
    /// Share of the questions learned from, in (0, 1).
    pub learn_fraction: f64,
}

impl WithinSplits {
    /// Checks the parameters (`Error::Usage` naming the option).
    pub fn new(splits: usize, seed: u64, learn_fraction: f64) -> Result<WithinSplits> {
        if splits < 2 {
            return Err(Error::Usage(format!(
                "--splits must be at least 2 (an interval over splits needs two), got {splits}"
            )));
        }
        if !(learn_fraction > 0.0 && learn_fraction < 1.0) {
            return Err(Error::Usage(format!(
                "--learn-fraction must be in (0, 1), got {learn_fraction}"
            )));
        }
        Ok(WithinSplits {
            splits,
            seed,
            learn_fraction,
        })
    }

    /// The splits of the `n` questions (queries) of the conversation in file row `row`:
    /// `train` = learned from, in learning order; `test` = scored, in question order.
    pub fn make(&self, row: usize, n: usize) -> Vec<Split> {
        let learn = ((n as f64) * self.learn_fraction).floor() as usize;
        (0..self.splits)
            .map(|i| {
                let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
                rng.set_stream(((row as u64) << 32) | i as u64);
                let mut perm: Vec<usize> = (0..n).collect();
                perm.shuffle(&mut rng);
                let (train, rest) = perm.split_at(learn);
                let mut test = rest.to_vec();
                test.sort_unstable();
                Split {
                    train: train.to_vec(),
                    test,
                }
            })
            .collect()
    }
}

/// One fold of [`leave_one_out`]: learn on `learn`, score `test` (indices into the list
/// given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// Conversations the parameters are learned on.
    pub learn: Vec<usize>,
    /// The conversation scored.
    pub test: usize,
}

/// Leave-one-conversation-out folds over `n` conversations: fold `j` scores `j` and learns
/// on the others. Needs at least two conversations.
pub fn leave_one_out(n: usize) -> Result<Vec<Fold>> {
    if n < 2 {
        return Err(Error::Usage(format!(
            "learning across conversations needs at least two test conversations, got {n}"
        )));
    }
    Ok((0..n)
        .map(|j| Fold {
            learn: (0..n).filter(|&i| i != j).collect(),
            test: j,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(Role::of("conv-26"), Role::Tuning);
        assert_eq!(Role::of("conv-30"), Role::Tuning);
        assert_eq!(Role::of("conv-41"), Role::Test);
    }

    #[test]
    fn splits_partition_deterministically_and_differ_by_row_and_index() {
        let w = WithinSplits::new(20, 0, 0.5).unwrap();
        let s = w.make(3, 11);
        assert_eq!(s.len(), 20);
        for sp in &s {
            assert_eq!(sp.train.len(), 5);
            assert_eq!(sp.test.len(), 6);
            let mut all: Vec<usize> = sp.train.iter().chain(&sp.test).copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..11).collect::<Vec<_>>());
            assert!(sp.test.windows(2).all(|w| w[0] < w[1]));
        }
        assert_eq!(s, w.make(3, 11), "deterministic");
        assert_ne!(s[0], s[1], "splits differ");
        assert_ne!(s[0], w.make(4, 11)[0], "conversations differ");
        assert!(WithinSplits::new(1, 0, 0.5).is_err());
        assert!(WithinSplits::new(20, 0, 1.0).is_err());
    }

    #[test]
    fn folds_leave_one_out() {
        let f = leave_one_out(3).unwrap();
        assert_eq!(
            f,
            [
                Fold {
                    learn: vec![1, 2],
                    test: 0
                },
                Fold {
                    learn: vec![0, 2],
                    test: 1
                },
                Fold {
                    learn: vec![0, 1],
                    test: 2
                },
            ]
        );
        assert!(leave_one_out(1).is_err());
    }
}
