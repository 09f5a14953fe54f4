//! Three-tier traversal (seed 000 §3; reference `crabpath/traversal.py::traverse`,
//! commit a424df5).
//!
//! A trajectory is one simple path of at most `max_hops + 1` nodes from the single
//! best seed. At each hop the candidates are all outgoing edges, stable-sorted by weight
//! descending. If an unvisited candidate is reflex, the best unvisited reflex candidate
//! is followed (only one: the paper's listing follows all of them). Otherwise the first
//! `branch_beam` unvisited habitual candidates go to the router. Otherwise (only dormant
//! or visited targets remain) the walk stops. There is no STOP action.

use rustc_hash::FxHashSet;

use crate::graph::{Graph, Id};
use crate::router::{best, Candidate, RouteContext, Router, TieBreak};
use crate::tier::{Tier, TierThresholds};

/// Traversal settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraversalConfig {
    /// Maximum number of hops (steps).
    pub max_hops: usize,
    /// How many unvisited habitual candidates the router sees.
    pub branch_beam: usize,
    /// Tier boundaries (0.8 / 0.3).
    pub tiers: TierThresholds,
    /// Tie rule of the reflex choice and of the fallback when the router answers
    /// nothing usable.
    pub ties: TieBreak,
}

impl Default for TraversalConfig {
    /// The reference defaults: 3 hops, beam 3, tiers 0.8 / 0.3, largest-id ties.
    fn default() -> Self {
        TraversalConfig {
            max_hops: 3,
            branch_beam: 3,
            tiers: TierThresholds::default(),
            ties: TieBreak::LargestId,
        }
    }
}

/// One hop.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Node left.
    pub from: Id,
    /// Node entered.
    pub to: Id,
    /// Weight of the followed edge.
    pub edge_weight: f64,
    /// Tier of the decision (reflex or habitual).
    pub tier: Tier,
    /// Every outgoing edge of `from`, weight-descending (stable): what the reference's
    /// learning rule takes the softmax over.
    pub candidates: Vec<Candidate>,
    /// The options the policy actually chose among: for a habitual hop the beam handed
    /// to the router; for a reflex hop the unvisited reflex candidates followed by that
    /// beam. The corrected learning rule takes the softmax over this set.
    pub choice_set: Vec<Candidate>,
}

/// A traversal's result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trajectory {
    /// Hops in order.
    pub steps: Vec<Step>,
    /// Start node, then each step's target.
    pub visit_order: Vec<Id>,
}

/// Longest context the reference renders, in characters (never reached here).
pub const MAX_CONTEXT_CHARS: usize = 1_000_000;

impl Trajectory {
    /// The contents of `visit_order` joined with a blank line, truncated to
    /// [`MAX_CONTEXT_CHARS`] characters.
    pub fn context(&self, graph: &Graph) -> String {
        let parts: Vec<&str> = self
            .visit_order
            .iter()
            .filter_map(|&id| graph.node_by_id(id))
            .map(|n| n.content.as_str())
            .collect();
        let text = parts.join("\n\n");
        match text.char_indices().nth(MAX_CONTEXT_CHARS) {
            Some((cut, _)) => text[..cut].to_string(),
            None => text,
        }
    }

    /// The visited node ids as names.
    pub fn visit_names(&self, graph: &Graph) -> Vec<String> {
        self.visit_order
            .iter()
            .map(|&i| graph.name(i).to_string())
            .collect()
    }
}

/// Seeds by node name, each with score 1.0 (a bare-id seed in the reference).
pub fn seeds_by_name(graph: &Graph, names: &[&str]) -> Vec<(Id, f64)> {
    names
        .iter()
        .filter_map(|n| graph.id(n))
        .map(|i| (i, 1.0))
        .collect()
}

/// Walks the graph from the best of `seeds` (ids that are not nodes are dropped; ties
/// keep seed order), asking `router` at every habitual hop. O(hops · out-degree).
pub fn traverse(
    graph: &Graph,
    query: &str,
    seeds: &[(Id, f64)],
    router: &mut dyn Router,
    config: &TraversalConfig,
) -> Trajectory {
    let mut seeds: Vec<(Id, f64)> = seeds
        .iter()
        .copied()
        .filter(|(id, _)| graph.contains(*id))
        .collect();
    if seeds.is_empty() {
        return Trajectory::default();
    }
    seeds.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    let start = seeds[0].0;
    let mut traj = Trajectory {
        steps: Vec::new(),
        visit_order: vec![start],
    };
    let mut visited: FxHashSet<Id> = FxHashSet::default();
    visited.insert(start);
    let mut current = start;
    let tiers = config.tiers;
    for _ in 0..config.max_hops {
        let mut cands: Vec<Candidate> = graph
            .outgoing(current)
            .map(|e| Candidate {
                target: e.target,
                weight: e.weight,
            })
            .collect();
        if cands.is_empty() {
            break;
        }
        cands.sort_by(|a, b| {
            b.weight
                .partial_cmp(&a.weight)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let unvisited: Vec<Candidate> = cands
            .iter()
            .copied()
            .filter(|c| !visited.contains(&c.target))
            .collect();
        if unvisited.is_empty() {
            break;
        }
        let of_tier = |t: Tier| -> Vec<Candidate> {
            unvisited
                .iter()
                .copied()
                .filter(|c| tiers.classify(c.weight) == t)
                .collect()
        };
        let reflex = of_tier(Tier::Reflex);
        let habitual = of_tier(Tier::Habitual);
        let beam: Vec<Candidate> = habitual.iter().copied().take(config.branch_beam).collect();
        let (chosen, tier, choice_set) = if !reflex.is_empty() {
            let c = best(graph, &reflex, config.ties).expect("non-empty");
            let mut set = reflex.clone();
            set.extend(beam.iter().copied());
            (c, Tier::Reflex, set)
        } else if !habitual.is_empty() {
            let ctx = RouteContext {
                query,
                graph,
                current,
                tier: Tier::Habitual,
            };
            let answer = if beam.is_empty() {
                None
            } else {
                router.choose(&ctx, &beam)
            };
            let c = answer
                .and_then(|t| unvisited.iter().copied().find(|c| c.target == t))
                .unwrap_or_else(|| best(graph, &habitual, config.ties).expect("non-empty"));
            (c, Tier::Habitual, beam)
        } else {
            break;
        };
        traj.steps.push(Step {
            from: current,
            to: chosen.target,
            edge_weight: chosen.weight,
            tier,
            candidates: cands,
            choice_set,
        });
        traj.visit_order.push(chosen.target);
        visited.insert(chosen.target);
        current = chosen.target;
    }
    traj
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Node;
    use crate::router::ArgmaxRouter;

    fn star(edges: &[(&str, &str, f64)]) -> Graph {
        let mut g = Graph::new();
        for (s, t, _) in edges {
            for n in [s, t] {
                if g.node(n).is_none() {
                    g.add_node(Node::new(*n, *n));
                }
            }
        }
        for (s, t, w) in edges {
            g.add_edge(s, t, *w);
        }
        g
    }

    fn walk(g: &Graph, beam: usize) -> Vec<String> {
        let mut r = ArgmaxRouter {
            ties: TieBreak::LargestId,
        };
        let cfg = TraversalConfig {
            branch_beam: beam,
            ..TraversalConfig::default()
        };
        traverse(g, "q", &seeds_by_name(g, &["r"]), &mut r, &cfg).visit_names(g)
    }

    #[test]
    fn only_one_reflex_edge_is_followed() {
        // Quirks log Q-REFLEX-ONE: r->{a 0.9, b 0.95} -> [r, b].
        let g = star(&[("r", "a", 0.9), ("r", "b", 0.95)]);
        assert_eq!(walk(&g, 3), ["r", "b"]);
    }

    #[test]
    fn beam_hides_candidates_from_the_router() {
        // Quirks log Q-BEAM: four 0.5 edges a, b, c, z: beam 3 -> c, beam 4 -> z.
        let g = star(&[
            ("r", "a", 0.5),
            ("r", "b", 0.5),
            ("r", "c", 0.5),
            ("r", "z", 0.5),
        ]);
        assert_eq!(walk(&g, 3), ["r", "c"]);
        assert_eq!(walk(&g, 4), ["r", "z"]);
    }

    #[test]
    fn dormant_edges_stop_the_walk() {
        // Quirks log Q-BOUNDARY: 0.2999 -> no step.
        assert_eq!(walk(&star(&[("r", "a", 0.2999)]), 3), ["r"]);
        assert_eq!(walk(&star(&[("r", "a", 0.3)]), 3), ["r", "a"]);
    }

    #[test]
    fn visited_targets_are_candidates_but_never_chosen() {
        let g = star(&[("r", "a", 0.9), ("a", "r", 0.95), ("a", "b", 0.4)]);
        let mut router = ArgmaxRouter {
            ties: TieBreak::LargestId,
        };
        let t = traverse(
            &g,
            "q",
            &seeds_by_name(&g, &["r"]),
            &mut router,
            &TraversalConfig::default(),
        );
        assert_eq!(t.visit_names(&g), ["r", "a", "b"]);
        assert_eq!(t.steps[1].candidates.len(), 2);
        assert_eq!(t.steps[1].choice_set.len(), 1);
        assert_eq!(t.context(&g), "r\n\na\n\nb");
    }
}
