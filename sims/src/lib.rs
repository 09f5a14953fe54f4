//! # sims — the 15 CrabPath simulations
//!
//! Reproduces the simulation scripts of the reference implementation (crabpath v11.2.1,
//! `sims/*.py` at commit 134c676) on top of the `crabpath` core: the **paper** profile
//! reproduces every deterministic field of the reference result files bit for bit; the
//! **corrected** profile runs the same scenarios with the core's bug fixes and, for the
//! RNG-built scenarios, over several seeds.
//!
//! * [`sim::Simulation`] — the trait each scenario implements (one file per sim under
//!   `src/scenarios/`), [`scenarios::registry`] — the list, in run_all order.
//! * [`paper`] — each simulation's card: paper tables and values, summary rows, claims,
//!   figures, the reference's verdict (read by `sims claims` and the `report` crate).
//! * [`claims`] — verdicts exactly as reference `sims/run_all.py`.
//! * [`pyjson`] — Python `json.dumps(indent=2)` output, byte for byte (the core's
//!   [`pyformat::pyjson`], re-exported).
//! * [`mod@reference`] — where the reference program's result files are (tests).
//! * [`compare`] — path-reporting JSON comparison (exact, timing fields tolerated).
//! * [`predicate`] — the corrected profile's machine-checked claim shape.
//! * [`runner`] — parallel multi-seed execution, aggregation, atomic output files.
//! * [`shard`] — `--shard I/N` partial runs and `merge`.
//! * [`stats`] — mean, sample std, 95 % Student-t interval, log-log slopes.
//! * [`scaling`] — the scaling study (`sims scaling`), 50 to 10^6+ nodes.
//! * [`alloc`] — the counting allocator behind its memory-per-edge figures.
//! * [`v2`] — the CrabPath paper's (seed 000) experiments on the v2 engine
//!   (`crabpath-v2`): `sims v2 run|check|compare`, results under `results/v2/`, the
//!   paper's Tables 3–7.
#![warn(missing_docs)]

pub mod alloc;
pub mod autotune_study;
pub mod claims;
pub mod compare;
pub mod paper;
pub mod predicate;
pub use pyformat::pyjson;
pub mod reference;
pub mod runner;
pub mod scaling;
pub mod scenarios;
pub mod shard;
pub mod sim;
pub mod stats;
pub mod v2;
