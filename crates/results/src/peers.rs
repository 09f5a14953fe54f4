//! The part of a `bench peers` report (`results/bench/peers/peers.json`, issue 29) that
//! the report crate draws: each system's recall by question category. The writer is
//! `benchmarks/src/peers/report.rs`, which also holds the fields read here; the other
//! fields (configuration, timings, paired tests) are left unread.

use indexmap::IndexMap;
use serde::Deserialize;

/// A `bench peers` report, as far as the figure reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Peers {
    /// The cut-offs of every recall list (`[5, 10, 25, 50]`).
    pub ks: Vec<usize>,
    /// The systems, in the order they ran (CrabPath first).
    pub systems: Vec<System>,
}

/// One system's row.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct System {
    /// The adapter's name.
    pub name: String,
    /// Whether every conversation finished (a FAILED row has partial or no recall).
    pub complete: bool,
    /// Slice (`all`, then the categories as released) → recall at each of [`Peers::ks`].
    pub recall: IndexMap<String, Vec<f64>>,
}

impl Peers {
    /// The recall of `system` on `slice` at cut-off `k`, if the report has it.
    pub fn recall(&self, system: &System, slice: &str, k: usize) -> Option<f64> {
        let i = self.ks.iter().position(|&x| x == k)?;
        system.recall.get(slice)?.get(i).copied()
    }
}
