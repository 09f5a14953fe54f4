//! Routers: who picks the next node among the habitual candidates (seed 000 §2–3, the
//! "LLM activation function"; reference `crabpath/router.py::Router.fallback`, commit
//! a424df5, and `experiments/run_deploy_sim.py::DeployRouter`, commit cc70b59).
//!
//! No experiment of the paper calls an LLM: the default router always takes its
//! deterministic fallback, an arg-max over weights ([`ArgmaxRouter`]). The deploy
//! simulation uses a keyword-scripted router ([`DeployRouter`]). The corrected profile
//! adds [`SoftmaxRouter`], which samples from the softmax policy with a seeded ChaCha
//! generator so that learning changes behaviour.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::graph::{Graph, Id};
use crate::numeric::softmax;
use crate::tier::Tier;

/// One outgoing option: target and current edge weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Target node.
    pub target: Id,
    /// Edge weight when the candidate list was built.
    pub weight: f64,
}

/// How exact weight ties are broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// The lexicographically largest target id wins (the reference: it sorts by the pair
    /// (weight, id) descending). Deploy: `skip_tests` beats `check_tests` by name.
    LargestId,
    /// The first candidate in list order wins, i.e. the edge added first (corrected).
    FirstListed,
}

/// The best candidate by weight, ties broken by `ties`. `None` for an empty list.
pub fn best(graph: &Graph, candidates: &[Candidate], ties: TieBreak) -> Option<Candidate> {
    let mut it = candidates.iter();
    let mut top = *it.next()?;
    for c in it {
        let better = match c.weight.partial_cmp(&top.weight) {
            Some(std::cmp::Ordering::Greater) => true,
            Some(std::cmp::Ordering::Equal) => {
                ties == TieBreak::LargestId && graph.name(c.target) > graph.name(top.target)
            }
            _ => false,
        };
        if better {
            top = *c;
        }
    }
    Some(top)
}

/// What a router is told about the decision.
#[derive(Debug, Clone, Copy)]
pub struct RouteContext<'a> {
    /// The query text.
    pub query: &'a str,
    /// The graph.
    pub graph: &'a Graph,
    /// The node being left.
    pub current: Id,
    /// The tier of the candidates (always habitual in v2 traversal).
    pub tier: Tier,
}

/// Chooses one of the candidates handed over by traversal.
pub trait Router {
    /// The chosen target among `candidates` (non-empty, weight-descending), or `None` to
    /// let traversal fall back to the best habitual candidate.
    fn choose(&mut self, ctx: &RouteContext<'_>, candidates: &[Candidate]) -> Option<Id>;
}

/// The default router's deterministic fallback: the largest weight.
#[derive(Debug, Clone, Copy)]
pub struct ArgmaxRouter {
    /// Tie rule.
    pub ties: TieBreak,
}

impl Router for ArgmaxRouter {
    fn choose(&mut self, ctx: &RouteContext<'_>, candidates: &[Candidate]) -> Option<Id> {
        best(ctx.graph, candidates, self.ties).map(|c| c.target)
    }
}

/// The deploy simulation's scripted router: if the lower-cased query contains `out now`
/// or `asap` and `skip_tests` is a candidate, `skip_tests`; otherwise the largest
/// weight with ties going to `check_tests` (any other tie keeps list order).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeployRouter;

impl Router for DeployRouter {
    fn choose(&mut self, ctx: &RouteContext<'_>, candidates: &[Candidate]) -> Option<Id> {
        let q = ctx.query.to_lowercase();
        let name = |c: &Candidate| ctx.graph.name(c.target);
        if q.contains("out now") || q.contains("asap") {
            if let Some(c) = candidates.iter().find(|c| name(c) == "skip_tests") {
                return Some(c.target);
            }
        }
        let mut top = *candidates.first()?;
        for c in &candidates[1..] {
            let better = match c.weight.partial_cmp(&top.weight) {
                Some(std::cmp::Ordering::Greater) => true,
                Some(std::cmp::Ordering::Equal) => {
                    name(c) == "check_tests" && name(&top) != "check_tests"
                }
                _ => false,
            };
            if better {
                top = *c;
            }
        }
        Some(top.target)
    }
}

/// Samples the next node from the softmax policy `softmax(w / temperature)` over the
/// candidates it is handed (corrected profile). Seeded, so runs are reproducible.
#[derive(Debug, Clone)]
pub struct SoftmaxRouter {
    /// The generator (one per run; seed it with `SeedableRng::seed_from_u64`).
    pub rng: ChaCha8Rng,
    /// Policy temperature τ.
    pub temperature: f64,
}

impl Router for SoftmaxRouter {
    fn choose(&mut self, _ctx: &RouteContext<'_>, candidates: &[Candidate]) -> Option<Id> {
        let weights: Vec<f64> = candidates.iter().map(|c| c.weight).collect();
        let p = softmax(&weights, self.temperature);
        let u: f64 = self.rng.gen();
        let mut acc = 0.0;
        for (c, pi) in candidates.iter().zip(&p) {
            acc += pi;
            if u < acc {
                return Some(c.target);
            }
        }
        candidates.last().map(|c| c.target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;
    use rand::SeedableRng;

    fn graph() -> (Graph, Vec<Candidate>) {
        let mut g = Graph::new();
        let mut c = Vec::new();
        for (id, w) in [("check_tests", 0.5), ("skip_tests", 0.5), ("rollback", 0.3)] {
            let i = g.add_node(Node::new(id, id));
            c.push(Candidate {
                target: i,
                weight: w,
            });
        }
        (g, c)
    }

    fn ctx<'a>(g: &'a Graph, q: &'a str) -> RouteContext<'a> {
        RouteContext {
            query: q,
            graph: g,
            current: g.id("rollback").unwrap(),
            tier: Tier::Habitual,
        }
    }

    #[test]
    fn fallback_tie_goes_to_largest_id_and_corrected_to_first() {
        // Quirks log Q-TIE: root->{check_tests 0.5, skip_tests 0.5} -> skip_tests.
        let (g, c) = graph();
        let mut paper = ArgmaxRouter {
            ties: TieBreak::LargestId,
        };
        assert_eq!(
            g.name(paper.choose(&ctx(&g, "q"), &c).unwrap()),
            "skip_tests"
        );
        let mut fixed = ArgmaxRouter {
            ties: TieBreak::FirstListed,
        };
        assert_eq!(
            g.name(fixed.choose(&ctx(&g, "q"), &c).unwrap()),
            "check_tests"
        );
    }

    #[test]
    fn deploy_router_rules() {
        let (g, c) = graph();
        let mut r = DeployRouter;
        assert_eq!(
            g.name(r.choose(&ctx(&g, "Ship it"), &c).unwrap()),
            "check_tests"
        );
        assert_eq!(
            g.name(r.choose(&ctx(&g, "We need to deploy ASAP"), &c).unwrap()),
            "skip_tests"
        );
        assert_eq!(
            g.name(r.choose(&ctx(&g, "rollback now"), &c).unwrap()),
            "check_tests"
        );
    }

    #[test]
    fn softmax_router_is_seeded_and_follows_the_policy() {
        let (g, c) = graph();
        let draw = |seed| {
            let mut r = SoftmaxRouter {
                rng: ChaCha8Rng::seed_from_u64(seed),
                temperature: 1.0,
            };
            (0..2000)
                .map(|_| r.choose(&ctx(&g, "q"), &c).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        let picks = draw(7);
        let share =
            |name| picks.iter().filter(|&&i| g.name(i) == name).count() as f64 / picks.len() as f64;
        // p = e^0.5 / (2 e^0.5 + e^0.3) = 0.3548 for each 0.5 edge, 0.2905 for rollback.
        assert!((share("check_tests") - 0.3548).abs() < 0.03);
        assert!((share("rollback") - 0.2905).abs() < 0.03);
    }
}
