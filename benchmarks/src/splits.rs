//! The held-out designs' resolved parameters and their splits (`--protocol related |
//! unrelated | repeat`, `--splits`, `--split-seed`, `--train-fraction`, `--dev-fraction`,
//! `--dev`): plain data, read by the plan ([`crate::plan`]) and run by the held-out protocol
//! ([`crate::heldout`], whose module docs describe the design).

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Result};

/// Default `--splits`.
pub const DEFAULT_SPLITS: usize = 20;
/// Default `--train-fraction`.
pub const DEFAULT_TRAIN_FRACTION: f64 = 0.5;
/// Default `--dev-fraction`.
pub const DEFAULT_DEV_FRACTION: f64 = 0.2;
/// Seed of the dev-pool draw (fixed: the dev pool must not move with `--split-seed`).
pub const DEV_SEED: u64 = 0x00de_5eed;
/// Checkpoints of training, in percent of the train queries.
pub const CHECKPOINT_PERCENT: [usize; 5] = [0, 25, 50, 75, 100];
/// Which held-out protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldoutKind {
    /// Test queries share a relevant document with some train query.
    Related,
    /// Test queries share no relevant document with any train query.
    Unrelated,
    /// Every query learned from, then asked again.
    Repeat,
}

impl HeldoutKind {
    /// `related` / `unrelated` / `repeat`.
    pub fn as_str(self) -> &'static str {
        match self {
            HeldoutKind::Related => "related",
            HeldoutKind::Unrelated => "unrelated",
            HeldoutKind::Repeat => "repeat",
        }
    }
}

/// A resolved held-out protocol.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Heldout {
    /// Which protocol.
    pub kind: HeldoutKind,
    /// Number of random splits.
    pub splits: usize,
    /// Seed of the splits.
    pub split_seed: u64,
    /// Share of the queries in train (related / unrelated).
    pub train_fraction: f64,
    /// Share of the queries in the dev pool.
    pub dev_fraction: f64,
    /// Score the dev pool instead of the test pool.
    pub dev: bool,
}

impl Heldout {
    /// Checks the parameters (`Error::Usage` naming the option).
    pub fn new(
        kind: HeldoutKind,
        splits: usize,
        split_seed: u64,
        train_fraction: f64,
        dev_fraction: f64,
        dev: bool,
    ) -> Result<Heldout> {
        if splits < 2 {
            return Err(Error::Usage(format!(
                "--splits must be at least 2 (an interval over splits needs two), got {splits}"
            )));
        }
        for (name, f) in [
            ("--train-fraction", train_fraction),
            ("--dev-fraction", dev_fraction),
        ] {
            if !(f > 0.0 && f < 1.0) {
                return Err(Error::Usage(format!("{name} must be in (0, 1), got {f}")));
            }
        }
        Ok(Heldout {
            kind,
            splits,
            split_seed,
            train_fraction,
            dev_fraction,
            dev,
        })
    }

    /// The report-name part of the non-default parameters (`-dev`, `-splitsN`, ...).
    pub fn name_part(&self) -> String {
        let mut s = String::new();
        if self.splits != DEFAULT_SPLITS {
            s.push_str(&format!("-splits{}", self.splits));
        }
        if self.split_seed != 0 {
            s.push_str(&format!("-sseed{}", self.split_seed));
        }
        if self.kind != HeldoutKind::Repeat && self.train_fraction != DEFAULT_TRAIN_FRACTION {
            s.push_str(&format!("-train{}", self.train_fraction));
        }
        if self.dev_fraction != DEFAULT_DEV_FRACTION {
            s.push_str(&format!("-devpool{}", self.dev_fraction));
        }
        if self.dev {
            s.push_str("-dev");
        }
        s
    }

    /// Which queries are in the dev pool (see the module docs).
    pub fn dev_pool(&self, n: usize) -> Vec<bool> {
        let mut perm: Vec<usize> = (0..n).collect();
        perm.shuffle(&mut ChaCha8Rng::seed_from_u64(DEV_SEED));
        let k = ((n as f64) * self.dev_fraction).round() as usize;
        let mut dev = vec![false; n];
        for &q in &perm[..k.min(n)] {
            dev[q] = true;
        }
        dev
    }

    /// The splits over queries with these relevant sets (`nodes` documents).
    pub fn make_splits(&self, relevant: &[Vec<usize>], nodes: usize) -> Vec<Split> {
        let n = relevant.len();
        let dev = self.dev_pool(n);
        let scorable = |q: usize| dev[q] == self.dev && !relevant[q].is_empty();
        (0..self.splits)
            .map(|i| {
                let mut rng = ChaCha8Rng::seed_from_u64(self.split_seed);
                rng.set_stream(i as u64);
                let mut perm: Vec<usize> = (0..n).collect();
                perm.shuffle(&mut rng);
                match self.kind {
                    HeldoutKind::Repeat => Split {
                        test: (0..n).filter(|&q| scorable(q)).collect(),
                        train: perm,
                    },
                    HeldoutKind::Related | HeldoutKind::Unrelated => {
                        let k = ((n as f64) * self.train_fraction).floor() as usize;
                        let (train, rest) = perm.split_at(k);
                        let mut seen = vec![false; nodes];
                        for &q in train {
                            for &d in &relevant[q] {
                                seen[d] = true;
                            }
                        }
                        let want = self.kind == HeldoutKind::Related;
                        let mut test: Vec<usize> = rest
                            .iter()
                            .copied()
                            .filter(|&q| scorable(q))
                            .filter(|&q| relevant[q].iter().any(|&d| seen[d]) == want)
                            .collect();
                        test.sort_unstable();
                        Split {
                            train: train.to_vec(),
                            test,
                        }
                    }
                }
            })
            .collect()
    }
}

/// One split: the train queries in learning order, the test queries in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Learned from, in this order.
    pub train: Vec<usize>,
    /// Scored.
    pub test: Vec<usize>,
}

/// Queries that share at least one relevant document with another query.
pub fn queries_with_partner(relevant: &[Vec<usize>], nodes: usize) -> usize {
    let mut count = vec![0usize; nodes];
    for r in relevant {
        for &d in r {
            count[d] += 1;
        }
    }
    relevant
        .iter()
        .filter(|r| r.iter().any(|&d| count[d] > 1))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn related_and_unrelated_splits_partition_the_test_part() {
        // 6 queries over 6 documents; 0-1 share doc 0, 2-3 share doc 2, 4 and 5 alone
        let relevant = vec![vec![0], vec![0, 1], vec![2], vec![2, 3], vec![4], vec![5]];
        let h = |kind| Heldout::new(kind, 4, 7, 0.5, 0.2, false).unwrap();
        let rel = h(HeldoutKind::Related).make_splits(&relevant, 6);
        let unrel = h(HeldoutKind::Unrelated).make_splits(&relevant, 6);
        let dev = h(HeldoutKind::Related).dev_pool(6);
        for (r, u) in rel.iter().zip(&unrel) {
            assert_eq!(r.train, u.train);
            assert_eq!(r.train.len(), 3);
            for &q in r.test.iter().chain(&u.test) {
                assert!(!r.train.contains(&q) && !dev[q]);
            }
            for &q in &r.test {
                assert!(r
                    .train
                    .iter()
                    .any(|t| relevant[*t].iter().any(|d| relevant[q].contains(d))));
            }
            for &q in &u.test {
                assert!(!r
                    .train
                    .iter()
                    .any(|t| relevant[*t].iter().any(|d| relevant[q].contains(d))));
            }
            let mut all: Vec<usize> = r.test.iter().chain(&u.test).copied().collect();
            all.sort_unstable();
            let mut want: Vec<usize> = (0..6)
                .filter(|q| !r.train.contains(q) && !dev[*q])
                .collect();
            want.sort_unstable();
            assert_eq!(all, want);
        }
        assert_eq!(queries_with_partner(&relevant, 6), 4);
        // the same seed gives the same splits
        assert_eq!(rel, h(HeldoutKind::Related).make_splits(&relevant, 6));
        let rep = h(HeldoutKind::Repeat).make_splits(&relevant, 6);
        assert!(rep.iter().all(|s| s.train.len() == 6));
    }
}
