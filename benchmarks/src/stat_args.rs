//! The statistics options that `bench run`, `bench neurogenesis` and `bench peers` share:
//! the paired bootstrap's resamples and seed and the paired randomization test's rounds
//! (issue 29's review: the three flags were declared once per command, with three
//! wordings of the same help). Each command flattens [`StatArgs`] into its own options,
//! so the flags, their defaults and their `--help` live here once.
//!
//! `bench repo` keeps its own `--bootstrap` and `--bootstrap-seed`: it runs no
//! randomization test, and its default is 10,000 resamples, not these commands' 1,000.

use clap::Args;

/// `--bootstrap`, `--bootstrap-seed`, `--permutations` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub struct StatArgs {
    /// Paired bootstrap resamples of the 95% intervals (0 = none).
    #[arg(long, value_name = "B", default_value_t = 1000)]
    pub bootstrap: usize,

    /// Seed of the ChaCha8 generators of the bootstrap and of the permutation tests.
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub bootstrap_seed: u64,

    /// Rounds of the paired randomization (sign-flip) test between every pair of methods
    /// (0 = no test; p-values then read 1).
    #[arg(long, value_name = "R", default_value_t = crate::significance::DEFAULT_PERMUTATIONS)]
    pub permutations: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        stats: StatArgs,
    }

    #[test]
    fn defaults_and_values() {
        // the defaults the three commands declared before they shared this struct:
        // 1,000 resamples, seed 0, significance::DEFAULT_PERMUTATIONS (10,000) rounds
        let d = Cmd::try_parse_from(["x"]).unwrap().stats;
        assert_eq!(
            (d.bootstrap, d.bootstrap_seed, d.permutations),
            (1000, 0, 10_000)
        );
        let a = Cmd::try_parse_from([
            "x",
            "--bootstrap",
            "7",
            "--bootstrap-seed",
            "3",
            "--permutations",
            "0",
        ])
        .unwrap()
        .stats;
        assert_eq!((a.bootstrap, a.bootstrap_seed, a.permutations), (7, 3, 0));
        assert!(Cmd::try_parse_from(["x", "--bootstrap", "-1"]).is_err());
    }
}
