//! `bench`: external retrieval benchmarks of CrabPath (HotPotQA distractor, MultiHop-RAG).
//!
//! The protocol, its defects and what each option changes are described in
//! `benchmarks/README.md`; the committed results and how to read them in
//! `results/bench/README.md`.
//!
//! Data side: loaders for the official dataset files and the staged subsets
//! ([`data::hotpotqa`], [`data::multihop`]), the exact text and node rules of the reference
//! protocol ([`data::text`], [`data::nodes`]), data directory resolution ([`data::locate`]),
//! the catalogue of known files with the checksums of `datasets/SHA256SUMS` ([`catalog`]) and
//! the downloader behind `bench fetch` ([`fetch`]).
//!
//! Run side: every benchmark protocol implements one trait, plan → execute → report
//! ([`protocol::Protocol`]), and writes its document (a type of the `results` crate)
//! through one writer ([`report`]). The protocols: the reference's stream, prequential or
//! split ([`standard`]); the held-out designs ([`heldout`], their splits in [`splits`]);
//! MultiHop-RAG's official protocol ([`official_run`]); the repository benchmark (`bench
//! repo`, seed 002 Tables 24/25 and a fair version, [`repo`]); LoCoMo ([`locomo`]). [`run`] picks the protocol
//! of a `bench run` command line. Below them: the options resolved into a [`plan::Plan`]
//! and its [`schedule`]; loading, embedding, search and graph building shared by every
//! protocol ([`engine`]); corpora and graph builders ([`build`]); the embedders, hash-v1
//! and all-MiniLM-L6-v2 with its cache ([`embed`]); exact cosine search and BM25
//! ([`retrieval`], [`dense`]); the method table and the engine that runs it ([`methods`]);
//! the metric table, curves and bootstrap intervals ([`metrics`]); paired significance
//! tests between every pair of methods ([`significance`]); TREC run files and qrels
//! ([`trec`]); and `bench check`, which re-runs committed reports and compares them
//! ([`check`]).
//!
//! The agent-memory benchmark LoCoMo (one brain per conversation) is [`locomo`].
//!
//! Errors ([`Error`]) are one line, name file, row (0-based) and field for malformed data, and
//! map to exit status 2 for data and usage errors, 1 otherwise ([`Error::exit_code`]).

#![warn(missing_docs)]

pub mod build;
pub mod catalog;
pub mod check;
pub mod chunk;
pub mod data;
pub mod dense;
pub mod embed;
pub mod engine;
pub mod error;
pub mod expectations;
pub mod fetch;
pub mod folder;
pub mod guard;
pub mod guard_arm;
pub mod guard_causes;
pub mod heldout;
pub mod locomo;
pub mod methods;
pub mod metrics;
pub mod neurogenesis;
pub mod official;
pub mod official_run;
pub mod peers;
pub mod plan;
pub mod protocol;
pub mod repo;
pub mod report;
pub mod retrieval;
pub mod run;
pub mod schedule;
pub mod served;
pub mod significance;
pub mod splits;
pub mod standard;
pub mod stat_args;
pub mod team_faults;
pub mod team_load;
pub mod team_proc;
pub mod trec;

pub use error::{Error, Result};
