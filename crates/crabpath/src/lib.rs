//! # crabpath
//!
//! Learned graph traversal for retrieval routing, after the CrabPath / OpenClawBrain
//! papers (Gu, Feb 2026), with the exact semantics of the public reference
//! implementation v11.2.1 (see `shared/spec/CORE.md`).
//!
//! Memory is a directed [`graph::Graph`] of document chunks with signed edge weights
//! in [-1, 1]. A query is seeded and [`traverse`]d for a few hops; edges are classified
//! into [`tier`]s; after the episode an outcome updates the weights ([`learn`]), and
//! [`decay`], [`health`], [`maintain`] and [`inject`] keep the graph in shape.
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
pub use learn::{apply_outcome, apply_outcome_pg, Episode, LearningConfig, PgArgs, Updates};
pub use index::{cosine, VectorIndex};
pub use io::write_atomic;
pub use profile::Profile;
pub use state::{load_state, save_state, State};
pub use tier::{Tier, TierThresholds};
pub use traverse::{traverse, TraversalConfig, TraversalResult, Traverser};
