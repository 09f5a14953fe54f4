//! `bench`: external retrieval benchmarks of CrabPath (HotPotQA distractor, MultiHop-RAG).
//!
//! This library holds the data side of the benchmark (BENCH.md §1): loaders for the official
//! dataset files and the staged subsets ([`data::hotpotqa`], [`data::multihop`]), the exact text
//! and node rules of the reference protocol ([`data::text`], [`data::nodes`]), data directory
//! resolution ([`data::locate`]), the catalogue of known files and checksums ([`catalog`]) and
//! the downloader behind `bench fetch` ([`fetch`]). The `bench` binary wraps it.
//!
//! The run side (`bench run`, BENCH.md §1 and §3): corpora and graph builders ([`build`]),
//! the embedders, hash-v1 and all-MiniLM-L6-v2 with its cache ([`embed`]), exact cosine
//! search (the core's index) and BM25 ([`retrieval`]), the retrieval methods ([`methods`]),
//! metrics, curves and bootstrap intervals ([`metrics`]), and the run itself ([`run`]).
//!
//! Errors ([`Error`]) are one line, name file, row (0-based) and field for malformed data, and
//! map to exit status 2 for data errors ([`Error::exit_code`]).

pub mod build;
pub mod catalog;
pub mod data;
pub mod embed;
pub mod error;
pub mod fetch;
pub mod methods;
pub mod metrics;
pub mod retrieval;
pub mod run;

pub use error::{Error, Result};
