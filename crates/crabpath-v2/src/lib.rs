//! # crabpath-v2
//!
//! The CrabPath "v2" engine (Feb 2026) that produced the numbers of the CrabPath paper
//! (seed 000 §4.5 and §7: Tables 3, 6 and 7), re-implemented bit for bit, plus a
//! `corrected` profile with the engine's bugs fixed, stochastic routing, and the
//! experiment the paper never ran: corrected versus myopic policy gradient where the
//! reward depends on an early hop.
//!
//! It is a different data model and algorithm from the v11 core (`crabpath`): a
//! trajectory is one simple path chosen by weight tiers and an arg-max "router", and
//! learning is a softmax policy gradient over all outgoing edges. It shares with the
//! core its atomic file writer and its `Profile` type.
//!
//! | concept (seed 000) | module | reference (jonathangu/crabpath) |
//! |---|---|---|
//! | nodes, edges, insertion order, tie-deciding container rules | [`graph`] | `crabpath/graph.py`, a424df5 |
//! | graph and scenario files | [`io`], [`data`] | `Graph.load/save`, `simulator.load_scenarios` |
//! | keyword "embedding" (seeding, RAG) | [`embed`] | `experiments/run_comparison.py`, 73444b2 |
//! | reflex / habitual / dormant (0.8 / 0.3) | [`tier`] | `crabpath/traversal.py` |
//! | router: LLM fallback, deploy router, softmax policy | [`router`] | `crabpath/router.py`, `run_deploy_sim.py` |
//! | three-tier traversal | [`traverse`](mod@traverse) | `crabpath/traversal.py`, 3ef70df |
//! | corrected (Gu) and myopic policy gradient, baselines | [`learning`] | `crabpath/learning.py`, 799419b |
//! | decay | [`decay`] | `crabpath/decay.py`, 799419b |
//! | simulator | [`simulator`] | `crabpath/simulator.py`, a424df5 |
//! | four-arm comparison (Tables 3, 7) | [`runner`] | `experiments/run_comparison.py`, 73444b2 |
//! | deploy simulation (Table 6) | [`deploy`] | `experiments/run_deploy_sim.py`, cc70b59 |
//! | neurogenesis (§5): novelty gate, auto ids, seed connection | [`neurogenesis`], [`lif`] | `crabpath/neurogenesis.py`, `adapter.py`, b028ad9 |
//! | death | [`graph::Graph::consolidate`] | `Graph.consolidate` |
//! | paper / corrected switches | [`profile`] | — |
//! | corrected vs myopic, multi-seed | [`experiments`], [`stats`] | not in the reference |
//!
//! ## Exactness
//!
//! The `paper` profile reproduces every weight of the reference runs bit for bit. The
//! reference outputs were produced by Python 3.12, whose built-in `sum` of floats uses
//! Neumaier compensation; the softmax denominators here are summed the same way
//! ([`learning::neumaier_sum`]). `exp` and `powf` are the platform libm's, which matched
//! glibc's bit for bit on Linux.
//!
//! ## The corrected profile
//!
//! [`profile::EngineConfig::corrected`] fixes these bugs of the reference; each has a
//! test in `tests/it/corrected.rs` that shows the before and after number.
//!
//! | bug | fix and reason | before → after |
//! |---|---|---|
//! | weight ties go to the lexicographically largest id | ties go to the edge added first: a node's name must not decide a route | deploy 4-arm, episode 2: `deploy_root > skip_tests > …` → `deploy_root > check_tests > …` |
//! | the softmax of learning covers every outgoing edge, including dormant, negative and visited targets the walk could not take | the softmax covers the options the policy chose among ([`traverse::Step::choice_set`]): the gradient of the policy that acted | a dormant 0.1 edge beside the followed one: 0.1 → 0.087924 (paper) vs unchanged |
//! | `follow_count` grows on every candidate, `skip_count` never | followed edge +1 follow, other options +1 skip | counts (a 1,0) (b 1,0) (c 1,0) → (a 1,0) (b 0,1) (c 0,0) |
//! | the baseline is updated by calls without any step | a call that made no decision leaves the baseline alone | 3 empty calls: 0.1426… → 0.0 |
//! | one process-global baseline table couples the arms (myopic inherits corrected's baselines) | one table per arm | a query repeated twice: myopic's first baseline 0.0975 → 0.0 (gate_bloat myopic episode 1: 0.05 in the reference trace) |
//! | the keyword vocabulary comes from contents but vectors from summaries, so summary-only words vanish | vocabulary from the embedded texts | gate_bloat: zero-vector nodes 20 → 0 |
//! | the configured temperature 0.2 is never used (τ = 1) | policy softmax(w/τ) and Algorithm 1's ∇/τ with τ = 0.2 | deploy simulation, episode 1: w(check_tests) 0.5363 → 0.6444 |
//! | rewards are scripted, never from what was retrieved | the 4-arm runner rewards +1 when the expected fragments were loaded, else −1 | a +1-scripted walk to the wrong node is repeated (accuracy 0.0) → avoided (0.5); whole profile on stale_context: CrabPath accuracy 0.2 → 0.367 |
//! | the novelty gate's dead band 0.58 < top1 < 0.60 | novel up to the known threshold | top1 0.59: novelty_miss → novel |
//! | the blocked-phrase rule is unreachable | checked before the token count | "hello": too_few_tokens → blocked_phrase |
//!
//! Not changed, with reasons: only one reflex edge is followed and there is no STOP
//! action (the learning rule is defined on a single path; changing it is a different
//! algorithm); the router sees only the beam (its cost model); single-candidate steps
//! get zero gradient and per-source weight sums are conserved (correct softmax
//! arithmetic); the negation builder's overwritten guard edges, the procedure fragments
//! that occur in no node and the stale-context recall queries are properties of the
//! normative input data; RAG = static at k = 8 on 8-node graphs and "tokens" being
//! characters are properties of the harness, reported as such; the adapter's
//! auto-learning that can never create an edge, the Python 3.11 syntax error, the
//! batch runner that skips five experiments and the modules without entry points do not
//! concern a Rust engine.
#![warn(missing_docs)]

pub mod data;
pub mod decay;
pub mod deploy;
pub mod embed;
pub mod error;
pub mod experiments;
pub mod graph;
pub mod io;
pub mod learning;
pub mod lif;
pub mod neurogenesis;
pub mod numeric;
pub mod profile;
pub mod router;
pub mod runner;
pub mod simulator;
pub mod stats;
pub mod tier;
pub mod trace;
pub mod traverse;

pub use crabpath::Profile;
pub use error::{Error, Result};
pub use graph::{Edge, Graph, Id, Node};
pub use io::{load_graph, load_scenarios, save_graph, Scenario};
pub use learning::{Baselines, Credit, LearningConfig};
pub use profile::EngineConfig;
pub use runner::{Arm, CompareOptions, ComparisonResult, ComparisonRun};
