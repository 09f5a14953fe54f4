//! Graph sizes shared by the benchmarks (included with `mod common;`).

/// The largest graph size: `CRABPATH_BENCH_MAX_NODES`, default 10^6.
pub fn max_nodes() -> usize {
    std::env::var("CRABPATH_BENCH_MAX_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

/// Graph sizes 10^3 … 10^6, up to [`max_nodes`].
#[allow(dead_code)] // traverse.rs extends the list itself
pub fn sizes() -> Vec<usize> {
    [1_000usize, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&n| n <= max_nodes())
        .collect()
}
