//! `bench`: external retrieval benchmarks of CrabPath (HotPotQA distractor, MultiHop-RAG).
//!
//! This library holds the data side of the benchmark (BENCH.md §1): loaders for the official
//! dataset files and the staged subsets ([`data::hotpotqa`], [`data::multihop`]), the exact text
//! and node rules of the reference protocol ([`data::text`], [`data::nodes`]), data directory
//! resolution ([`data::locate`]), the catalogue of known files and checksums ([`catalog`]) and
//! the downloader behind `bench fetch` ([`fetch`]). The `bench` binary wraps it.
//!
//! Errors ([`Error`]) are one line, name file, row (0-based) and field for malformed data, and
//! map to exit status 2 for data errors ([`Error::exit_code`]).

pub mod catalog;
pub mod data;
pub mod error;
pub mod fetch;

pub use error::{Error, Result};
