//! An arm of a LoCoMo run: one of `bench`'s methods with the knobs it runs with, and how it
//! is scored — once on every question (methods that do not learn) or on the test halves of
//! the within-conversation splits (learning methods, [`super::engine::within`]).
//!
//! Arm names are the method's name in [`crate::methods`] (`bm25_topk`, `embedding_topk`,
//! `rrf_topk`, `crabpath_cold`, `crabpath_learning`, `crabpath_pg_learning`, `…@<router>`),
//! then, where one method runs in several arms, the embedder in brackets
//! (`embedding_topk[minilm]`) or the brain's structure in braces
//! (`crabpath_cold{conversation-chain}`).

use super::brain::Structure;
use super::context::Prepared;
use super::engine::{all_scored, stage, static_run, within, Knobs, Scorer};
use crate::embed::EmbedderArg;
use crate::error::Result;
use crate::methods::{Method, Stage};
use crate::splits::Split;

/// What an arm is, for tables and for choosing the best baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// BM25, dense or RRF: no graph.
    Baseline,
    /// A traversal of the frozen brain.
    Cold,
    /// A traversal that learned edge weights within the conversation.
    Learned,
    /// A cold traversal whose router parameters were learned on other conversations.
    Transfer,
    /// A cold traversal on another brain structure (the ablation).
    Ablation,
}

impl Group {
    /// `baseline`, `cold`, `learned`, `transfer`, `ablation`.
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Baseline => "baseline",
            Group::Cold => "cold",
            Group::Learned => "learned",
            Group::Transfer => "transfer",
            Group::Ablation => "ablation",
        }
    }

    /// Whether the arm traverses a brain.
    pub fn traverses(self) -> bool {
        self != Group::Baseline
    }

    /// Whether the arm is one of the traversals the report holds against the best
    /// baseline (cold, learned, transfer); the ablation's arms answer which structure,
    /// by their means.
    pub fn answers(self) -> bool {
        matches!(self, Group::Cold | Group::Learned | Group::Transfer)
    }
}

/// One arm.
#[derive(Debug, Clone)]
pub struct Arm {
    /// Name in reports (see the module docs).
    pub name: String,
    /// The method.
    pub method: &'static Method,
    /// Its knobs.
    pub knobs: Knobs,
    /// What it is.
    pub group: Group,
}

impl Arm {
    /// A baseline: `method` on `embedder`'s search, named `<method>[<embedder>]` (BM25,
    /// which reads no vectors, keeps its bare name).
    pub fn baseline(method: &'static Method, embedder: EmbedderArg, knobs: &Knobs) -> Arm {
        let name = if method.dense_depth(1, 1) == 0 {
            method.name.to_string()
        } else {
            format!("{}[{}]", method.name, embedder.slug())
        };
        Arm {
            name,
            method,
            knobs: Knobs { embedder, ..*knobs },
            group: Group::Baseline,
        }
    }

    /// A traversal with `knobs`, named after its method (a learning method is
    /// [`Group::Learned`], else `group`).
    pub fn traversal(method: &'static Method, knobs: Knobs, group: Group) -> Arm {
        let name = match group {
            Group::Ablation => format!("{}{{{}}}", method.name, knobs.structure.name()),
            Group::Transfer => format!("{}[transfer]", method.name),
            _ => method.name.to_string(),
        };
        Arm {
            name,
            method,
            knobs,
            group: if method.learns() {
                Group::Learned
            } else {
                group
            },
        }
    }

    /// The structure of the brain the arm walks (baselines read none; they get the
    /// edgeless brain, which costs nothing to build).
    pub fn structure(&self) -> Structure {
        if self.group.traverses() {
            self.knobs.structure
        } else {
            Structure::NoEdges
        }
    }

    /// The arm's metric row of every question of `p` ([`super::metrics::LOCOMO_METRICS`]
    /// order): a learning arm's is its mean over the `splits` whose test half held the
    /// question (`None` if none did); every other arm's is its one value.
    pub fn rows(&self, p: &Prepared, splits: &[Split]) -> Result<Vec<Option<Vec<f64>>>> {
        let scorer = Scorer::new(&p.cc, &self.knobs);
        if self.method.learns() {
            self.on_stage(p, |st| {
                Ok(within(st, &scorer, self.method, splits)?.per_query)
            })
        } else {
            Ok(self
                .lists(p)?
                .iter()
                .enumerate()
                .map(|(q, list)| Some(scorer.row(q, list)))
                .collect())
        }
    }

    /// The ranked list (node indices) of every question of `p`, for an arm that does not
    /// learn.
    pub fn lists(&self, p: &Prepared) -> Result<Vec<Vec<usize>>> {
        self.on_stage(p, |st| static_run(st, self.method))
    }

    /// Calls `f` with the arm's stage over `p`.
    fn on_stage<T>(&self, p: &Prepared, f: impl FnOnce(&Stage) -> Result<T>) -> Result<T> {
        let graph = p.graph(self.structure(), self.knobs.embedder)?;
        let steps = all_scored(p.cc.corpus.queries.len());
        let params = self.knobs.params();
        let st = stage(
            &p.cc,
            p.searched(self.knobs.embedder)?,
            &graph,
            &steps,
            &params,
        );
        f(&st)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::routed_methods;
    use crabpath::RouterKind;

    #[test]
    fn names_say_method_embedder_and_structure() {
        let k = crate::locomo::engine::tests::knobs();
        let by = |n| Method::by_name(n).unwrap();
        assert_eq!(
            Arm::baseline(by("bm25_topk"), EmbedderArg::Minilm, &k).name,
            "bm25_topk"
        );
        let d = Arm::baseline(by("embedding_topk"), EmbedderArg::Minilm, &k);
        assert_eq!(d.name, "embedding_topk[minilm]");
        assert_eq!(d.knobs.embedder, EmbedderArg::Minilm);
        assert_eq!(d.structure(), Structure::NoEdges);
        let a = Arm::traversal(by("crabpath_cold"), k, Group::Ablation);
        assert_eq!(a.name, "crabpath_cold{session-chains}");
        let l = Arm::traversal(&routed_methods(RouterKind::Adaptive)[2], k, Group::Cold);
        assert_eq!(
            (l.name.as_str(), l.group),
            ("crabpath_pg_learning@adaptive", Group::Learned)
        );
        let t = Arm::traversal(&routed_methods(RouterKind::EdgeSim)[0], k, Group::Transfer);
        assert_eq!(t.name, "crabpath_cold@edge+sim[transfer]");
    }
}
