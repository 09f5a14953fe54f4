//! `results`: every result document the workspace writes, as serde types.
//!
//! The writers (`sims`, `bench`, `crabpath-v2`) build these types and serialize them; the
//! reader (`report`) deserializes them and reads fields by name — no JSON pointer into a
//! result document. Key order is the order of the fields (the workspace's `serde_json` keeps
//! insertion order), so the bytes of every committed result are the bytes these types
//! serialize to; optional keys are `Option` fields skipped when `None`, and a key that a
//! document may hold as `null` or leave out is a [`Slot`].
//!
//! * [`bench`] — the report of `bench run` (configuration, manifest, evaluation, methods,
//!   paired tests, provenance), one type with a section per protocol;
//! * [`locomo`] — the sections of a LoCoMo report (one brain per conversation);
//! * [`repo`] — the report of `bench repo` (seed 002 Tables 24/25 and the fair protocol)
//!   and its workspace graph;
//! * [`slot`] — the tri-state field (absent, `null`, value).

#![warn(missing_docs)]

pub mod bench;
pub mod locomo;
pub mod repo;
pub mod slot;

pub use slot::Slot;
