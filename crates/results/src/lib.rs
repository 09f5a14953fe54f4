//! `results`: every result document the workspace writes, as serde types.
//!
//! The writers (`sims`, `bench`, `crabpath-v2`) build these types and serialize them; the
//! reader (`report`) deserializes them and reads fields by name — no JSON pointer into a
//! result document. Key order is the order of the fields (the workspace's `serde_json` keeps
//! insertion order), so the bytes of every committed result are the bytes these types
//! serialize to; optional keys are `Option` fields skipped when `None`, and a key that a
//! document may hold as `null` or leave out is a [`Slot`].
//!
//! * [`expected`] — the papers' numbers that the simulations and the v2 tables are
//!   compared with (`results/sims/expected.json`, `results/v2/expected.json`);
//! * [`mod@bench`] — the report of `bench run` (configuration, manifest, evaluation, methods,
//!   paired tests, provenance), one type with a section per protocol;
//! * [`locomo`] — the sections of a LoCoMo report (one brain per conversation);
//! * [`peers`] — the part of a `bench peers` report that the report crate draws;
//! * [`repo`] — the report of `bench repo` (seed 002 Tables 24/25 and the fair protocol)
//!   and its workspace graph;
//! * [`scaling`] — the scaling study (`sims scaling`);
//! * [`sims`] — the simulations' documents: each scenario's body, the corrected profile's
//!   machine-checked claim ([`sims::Claim`], [`sims::Predicate`]) and the multi-seed
//!   aggregate;
//! * [`v2`] — the CrabPath paper's experiments on the v2 engine;
//! * [`slot`] — the tri-state field (absent, `null`, value).

#![warn(missing_docs)]

pub mod bench;
pub mod expected;
pub mod locomo;
pub mod locomo_product;
pub mod peers;
pub mod repo;
pub mod scaling;
pub mod sims;
pub mod slot;
pub mod v2;

pub use slot::Slot;
