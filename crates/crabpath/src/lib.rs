//! # crabpath
//!
//! Learned graph traversal for retrieval routing, after the CrabPath / OpenClawBrain
//! papers (Gu, Feb 2026), with the exact semantics of the public reference
//! implementation v11.2.1 (`jonathangu/crabpath`, commit 134c676). Doc comments cite
//! the paper section and the reference module and function they implement, e.g.
//! "reference `crabpath/traverse.py::traverse`", always at that commit.
//!
//! Memory is a directed [`graph::Graph`] of document chunks with signed edge weights
//! in [-1, 1]. A query is seeded and [traversed](mod@traverse) for a few hops; edges are classified
//! into [`tier`]s; after the episode an outcome updates the weights ([`learn`],
//! [`trajectory`]), and [`decay`], [`health`], [`maintain`] and [`inject`] keep the
//! graph in shape. [`embed`] and [`index`] seed queries; [`state`] holds a brain's data in
//! memory.
//!
//! | paper concept (OpenClawBrain paper unless noted) | module | reference (commit 134c676) |
//! |---|---|---|
//! | nodes, signed edges, insertion order (§2) | [`graph`] ([`node`], [`edge`], [`bucket`]: one source's edges) | `crabpath/graph.py` |
//! | reflex / habitual / dormant / inhibitory (§2, Table 1) | [`tier`] | `crabpath/traverse.py::_tier` |
//! | seeding, beam, hops, inhibition, damping, budgets (§2.1, §4.3) | [`traverse`](mod@traverse) | `crabpath/traverse.py::traverse` |
//! | heuristic rule, Hebbian co-firing, PG with STOP (§3) | [`learn`] | `crabpath/learn.py` |
//! | CrabPath paper Algorithm 1, myopic / corrected (seed 000 §4) | [`trajectory`] | — (not in the reference) |
//! | decay (§4.2) | [`decay`] | `crabpath/decay.py` |
//! | health, autotune (§5.1, §5.2) | [`health`] | `crabpath/autotune.py` |
//! | prune, merge, connect, maintenance order (§5.9) | [`maintain`] | `crabpath/maintain.py`, `merge.py`, `connect.py` |
//! | node and correction injection (§5.7, §5.8) | [`inject`] | `crabpath/inject.py` |
//! | neurogenesis: novelty gate, `auto:` ids, probation (seed 000 §5, seed 001 §2.7–2.8) | [`neurogenesis`] | `crabpath/neurogenesis.py` (commit b028ad9) |
//! | hash-v1 embedder, exact cosine index | [`embed`], [`index`] | `crabpath/hasher.py`, `index.py` |
//! | query-aware routers, PG over a router's softmax | [`router`], [`router_pg`] | OpenClawBrain `daemon.py` / `policy.py` (commits 3902ac6, bfd1cec) |
//! | unit `f32` node vectors, `f32` exact search by matrix products | [`vectors`], [`search_f32`] | — |
//! | a brain's data in memory (graph, vectors, metadata) | [`state`] | `crabpath/store.py` (its document) |
//! | exact sparse search over posting lists | [`postings`] | — |
//! | query explanations (why each node fired) | [`explain`] | — |
//! | keyword seeds, the replay learning path | [`keyword`] | `_util.py::_tokenize`, `replay.py::default_keyword_seed_fn` |
//! | random graphs for tests, sims and benchmarks | [`synth`] | — |
//! | `paper` vs `corrected` semantics | [`profile`] | REPRODUCE.md, discrepancies C1–C23 |
//!
//! The `paper` profile keeps every quirk of the reference (listed in `REPRODUCE.md`,
//! discrepancies C1–C23); the `corrected` profile fixes the bugs among them. Each fix
//! and its reason is listed in the [`profile`] module docs.
//!
//! # Example: build a graph, traverse it, learn from the outcome
//!
//! ```
//! use crabpath::{apply_outcome, traverse, Edge, Episode, Graph, Node, Profile};
//!
//! // Three document chunks linked by habitual edges a → b → c (weights in [-1, 1]).
//! let mut g = Graph::new();
//! let a = g.add_node(Node::new("deploy", "Deploy: run the checks first."));
//! let b = g.add_node(Node::new("checks", "Checks: CI must be green."));
//! let c = g.add_node(Node::new("ci", "CI: rerun flaky jobs once."));
//! g.add_edge(a, b, Edge::new(0.5))?;
//! g.add_edge(b, c, Edge::new(0.5))?;
//!
//! // A query seeded at `a` (score 1.0) follows the edges for a few hops.
//! let profile = Profile::Corrected;
//! let result = traverse(&g, &[(a, 1.0)], &profile.traversal())?;
//! assert_eq!(result.fired, [a, b, c]);
//! let context = result.context(&g, None); // the chunks, best activation first
//! assert!(context.starts_with("Deploy: run the checks first."));
//!
//! // The answer helped (+1): the traversed edges are reinforced.
//! apply_outcome(&mut g, &Episode::from_result(&result), 1.0, &profile.learning(), None)?;
//! assert!(g.weight(a, b).unwrap() > 0.5 && g.weight(b, c).unwrap() > 0.5);
//! # Ok::<(), crabpath::Error>(())
//! ```
//!
//! # What is not here
//!
//! This crate is the algorithm only: no file system, no locks, no process. Building a
//! brain from a folder, its store, sessions, the journal and the command-line program's
//! use cases are the application's (crate `crabpath-brain`); the Python-compatible
//! formats the `paper` profile writes are crate `pyformat`.
//!
//! Modules are layered: [`error`], [`node`] and [`tier`] import nothing from the crate;
//! every other module imports only modules below it (the workspace's `.ci/module-cycles`
//! checks that no module imports one that imports it back).
#![warn(missing_docs)]

pub mod autotuner;
pub mod bucket;
pub mod decay;
pub mod edge;
pub mod embed;
pub mod error;
pub mod explain;
pub mod graph;
pub mod health;
pub mod index;
pub mod inject;
pub mod keyword;
pub mod learn;
pub mod maintain;
pub mod neurogenesis;
pub mod node;
pub mod postings;
pub mod profile;
pub mod router;
pub mod router_pg;
pub mod search_f32;
pub mod state;
pub mod synth;
pub mod tier;
pub mod trajectory;
pub mod traverse;
pub mod tuning;
pub mod vectors;

pub use decay::{apply_decay, DecayConfig};
pub use embed::{Embedder, HashEmbedder};
pub use error::{Error, Result};
pub use graph::{Edge, EdgeKind, Graph, Node, NodeId};
pub use health::{autotune, measure_health, AutotuneConfig, GraphHealth};
pub use index::{cosine, VectorIndex};
pub use learn::{apply_outcome, apply_outcome_pg, Episode, LearningConfig, PgArgs, Updates};
pub use profile::Profile;
pub use router::{QueryRouter, RouterConfig, RouterKind};
pub use router_pg::apply_outcome_router_pg;
pub use state::State;
pub use tier::{Tier, TierThresholds};
pub use traverse::{traverse, TraversalConfig, TraversalResult, TraversalStats, Traverser};
pub use vectors::{NodeVectors, UnitVectors};
