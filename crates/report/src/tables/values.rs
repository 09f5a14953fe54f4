//! Numbers that are not in any result file: the paper's (OpenClawBrain v11.2.1) and
//! the reference program's timings, measured by running reference `sims/run_all.py`
//! (commit 134c676) three times; `results/reference/sims/README.md` gives the setup.
//!
//! Every other "reference program" value in the tables is a string that the same
//! extractor produces from the reference result files; `tests/reference_values.rs`
//! checks that when the files are available.

/// Paper Table 17: `(graph size, ms per traversal)` on the author's machine.
pub const PAPER_SCALING_MS: [(f64, f64); 6] = [
    (50.0, 0.0962),
    (100.0, 0.1432),
    (250.0, 0.2814),
    (500.0, 0.5169),
    (1000.0, 0.9657),
    (2000.0, 1.8766),
];

/// The reference program (CPython 3.11.7, 2-vCPU EPYC VM): median over three
/// `run_all.py` runs of the mean ms per traversal (`results/reference/sims/README.md`).
pub const REFERENCE_SCALING_MS: [(f64, f64); 6] = [
    (50.0, 0.1422),
    (100.0, 0.1940),
    (250.0, 0.4145),
    (500.0, 0.7332),
    (1000.0, 1.3805),
    (2000.0, 2.8846),
];

/// The reference program's `traverse` on the scaling_analysis graphs with a random
/// start per query, traversal only (BENCHMARKS.md "(b) Scaling", measured beside
/// `sims scaling` on the same machine): `(graph size, median µs per traversal)`.
pub const REFERENCE_TRAVERSAL_US: [(f64, f64); 8] = [
    (50.0, 195.6),
    (100.0, 282.9),
    (250.0, 552.9),
    (500.0, 1049.0),
    (1000.0, 2098.6),
    (2000.0, 4210.0),
    (10000.0, 20874.4),
    (100000.0, 464140.8),
];
