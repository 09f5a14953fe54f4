//! # crabpath
//!
//! Learned graph traversal for retrieval routing, after the CrabPath / OpenClawBrain
//! papers (Gu, Feb 2026), with the exact semantics of the public reference
//! implementation v11.2.1 (`shared/spec/CORE.md`).
//!
//! Memory is a directed [`graph::Graph`] of document chunks with signed edge weights
//! in [-1, 1]. A query is seeded and [traversed](mod@traverse) for a few hops; edges are classified
//! into [`tier`]s; after the episode an outcome updates the weights ([`learn`],
//! [`trajectory`]), and [`decay`], [`health`], [`maintain`] and [`inject`] keep the
//! graph in shape. [`embed`] and [`index`] seed queries; [`state`] persists everything.
//!
//! | paper concept | module | spec |
//! |---|---|---|
//! | nodes, signed edges, insertion order | [`graph`], [`bucket`] (one source's edges) | CORE.md §1 |
//! | reflex / habitual / dormant / inhibitory | [`tier`] | §2 |
//! | seeding, beam, hops, inhibition, damping, budgets | [`traverse`](mod@traverse) | §3–4 |
//! | heuristic rule, Hebbian co-firing, PG with STOP | [`learn`] | §5 |
//! | CrabPath paper Algorithm 1 (myopic / corrected) | [`trajectory`] | seed 000 §4 |
//! | decay | [`decay`] | §6 |
//! | health, autotune | [`health`] | §7 |
//! | prune, merge, connect, maintenance order | [`maintain`] | §8 |
//! | node and correction injection | [`inject`] | §9 |
//! | hash-v1 embedder, exact cosine index | [`embed`], [`index`] | §10 |
//! | state files (atomic writes) | [`state`], [`io`] | §1.4 |
//! | `paper` vs `corrected` semantics | [`profile`] | §14 |
//!
//! The `paper` profile keeps every quirk listed in CORE.md §14; the `corrected` profile
//! fixes them. Each fix and its reason is listed in the [`profile`] module docs.
pub mod bucket;
pub mod decay;
pub mod embed;
pub mod error;
pub mod graph;
pub mod health;
pub mod index;
pub mod inject;
pub mod io;
pub mod learn;
pub mod maintain;
pub mod profile;
pub mod state;
pub mod synth;
pub mod tier;
pub mod trajectory;
pub mod traverse;

pub use decay::{apply_decay, DecayConfig};
pub use embed::{Embedder, HashEmbedder};
pub use error::{Error, Result};
pub use graph::{Edge, EdgeKind, Graph, Node, NodeId};
pub use health::{autotune, measure_health, GraphHealth};
pub use index::{cosine, VectorIndex};
pub use io::write_atomic;
pub use learn::{apply_outcome, apply_outcome_pg, Episode, LearningConfig, PgArgs, Updates};
pub use profile::Profile;
pub use state::{load_state, save_state, State};
pub use tier::{Tier, TierThresholds};
pub use traverse::{traverse, TraversalConfig, TraversalResult, TraversalStats, Traverser};
