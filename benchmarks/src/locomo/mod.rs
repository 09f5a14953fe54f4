//! LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
//! Agents", ACL 2024): the agent-memory benchmark, scored without an LLM by evidence
//! recall — every question names the turns that hold its evidence.
//!
//! The data is CC BY-NC 4.0: evaluated with, never committed (`datasets/README.md`,
//! "LoCoMo"); `bench fetch --dataset locomo` downloads it and checks its SHA-256.
//!
//! One concept per module:
//!
//! * [`evidence`]: turn references and the explicit repair of the malformed evidence
//!   strings of the release, each reported;
//! * [`data`]: the loader (conversations, sessions, turns, questions);
//! * [`brain`]: one brain per conversation — a node per turn, the core's consecutive-chunk
//!   edges over sessions, and the structures of the ablation;
//! * [`metrics`]: evidence recall@5/@10, session recall@5, all-evidence@10, MRR@10 and
//!   recall at a context budget;
//! * [`embedding`]: every conversation's turns and questions embedded in one call;
//! * [`context`]: the conversations of a run searched with both embedders, their brains
//!   built once;
//! * [`engine`]: `bench`'s methods run on one conversation's brain and scored, and the
//!   within-conversation learn-then-test protocol;
//! * [`splits`]: tuning and test conversations, the seeded within-conversation splits and
//!   the across-conversation folds;
//! * [`arms`]: a method with its knobs, scored once or on the within-conversation splits;
//! * [`tuning`]: every knob chosen on the tuning conversations by a declared rule;
//! * [`across`]: router parameters learned from other conversations' outcomes;
//! * [`compare`]: every traversal against the best baseline — paired tests, Holm,
//!   intervals, minimum detectable differences — per metric and category;
//! * [`run`]: a whole run, plan → execute, as plain data;
//! * [`turns`]: a conversation as the product's conversation turns (JSON Lines);
//! * [`product`]: the product's path — a conversation's brain built by `init
//!   --conversation`'s code, a question asked through `Brain::query`;
//! * [`paper`]: recall by the LoCoMo paper's definition (evidence as released);
//! * [`headline`]: `bench run --dataset locomo --protocol product`, the headline row
//!   through the product's path (issue 28);
//! * [`protocol`]: `bench run --dataset locomo`, the [`crate::protocol::Protocol`] that
//!   plans, opens, executes and reports it through the one report writer;
//! * [`manifest`]: what a LoCoMo report records of the file it read and the ids it
//!   scored (shared by [`protocol`] and [`headline`]);
//! * [`rounds`]: `bench locomo-rounds`, each test conversation's questions asked again in
//!   rounds with feedback through the product's path (issue 31 item 5).

pub mod across;
pub mod arms;
pub mod brain;
pub mod compare;
pub mod context;
pub mod data;
pub mod embedding;
pub mod engine;
pub mod evidence;
pub mod headline;
pub mod manifest;
pub mod metrics;
pub mod paper;
pub mod product;
pub mod product_learning;
pub mod protocol;
pub mod rounds;
pub mod run;
pub mod splits;
pub mod tuning;
pub mod turns;
