//! individuation (reference `sims/individuation.py`): two copies of one complete graph
//! trained on different workloads end structurally different.

use anyhow::Result;
use crabpath::{
    apply_decay, apply_outcome, DecayConfig, Episode, Graph, TraversalConfig, Traverser,
};
use results::sims::individuation::{
    Body, Difference, Distinctness, Doc, Paper, ReferenceClaim, ReflexCounts, Size, WeightedEdge,
    Workloads,
};
use results::sims::NoExtra;
use serde_json::Value;

use super::common::{add_with, edge, id};
use crate::claims::Verdict;
use crate::paper::extract::{fixed, int, join};
use crate::paper::{self, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Profile, Simulation};

const NAME: &str = "individuation";

/// Reference `sims/individuation.py`.
pub struct Individuation;

const NODES: usize = 18;
const QUERIES: usize = 50;

fn base_graph() -> Result<Graph> {
    let name = |i: usize| format!("n{i:02}");
    let mut g = Graph::new();
    for i in 0..NODES {
        add_with(&mut g, &name(i), format!("shared node {i}"));
    }
    for s in 0..NODES {
        for t in 0..NODES {
            if s != t {
                edge(&mut g, &name(s), &name(t), 0.36)?;
            }
        }
    }
    Ok(g)
}

fn train(g: &mut Graph, pattern: &[&str], profile: Profile) -> Result<()> {
    let config = profile.adjust_traversal(TraversalConfig {
        max_hops: 2,
        beam_width: 2,
        ..TraversalConfig::default()
    });
    let learning = profile.learning();
    let decay = DecayConfig {
        half_life: 20.0,
        min_weight: 0.01,
    };
    let mut traverser = Traverser::new();
    for q in 0..QUERIES {
        let source = id(g, pattern[q % pattern.len()])?;
        let result = traverser.traverse(g, &[(source, 1.0)], &config)?;
        apply_outcome(g, &Episode::from_result(&result), 1.0, &learning, None)?;
        apply_decay(g, &decay);
    }
    Ok(())
}

/// (source, target, weight) in graph order.
fn edge_list(g: &Graph) -> Vec<(String, String, f64)> {
    g.edges()
        .map(|(s, t, e)| (g.name(s).to_string(), g.name(t).to_string(), e.weight))
        .collect()
}

fn sorted_edges(edges: &[(String, String, f64)]) -> Vec<WeightedEdge> {
    let mut sorted: Vec<&(String, String, f64)> = edges.iter().collect();
    sorted.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    sorted
        .into_iter()
        .map(|(s, t, w)| WeightedEdge {
            source: s.clone(),
            target: t.clone(),
            weight: *w,
        })
        .collect()
}

impl Simulation for Individuation {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.7",
            paper_figures: &["1", "12"],
            description:
                "two copies of an 18-node complete graph trained on 'coding' vs 'safety' workloads",
            tables: vec![sim_table(
                12,
                "Twin-brain individuation across experiences",
                NAME,
                true,
                "graph A / graph B",
                vec![
                    Row::sim(NAME, "Nodes", |d| {
                        join(
                            vec![int(d, "/graph_a_size/nodes"), int(d, "/graph_b_size/nodes")],
                            " / ",
                        )
                    }),
                    Row::sim(NAME, "Edges", |d| {
                        join(
                            vec![int(d, "/graph_a_size/edges"), int(d, "/graph_b_size/edges")],
                            " / ",
                        )
                    }),
                    Row::sim(NAME, "Reflex edges", |d| {
                        join(
                            vec![
                                int(d, "/structural_distinctness/reflex_counts/graph_a"),
                                int(d, "/structural_distinctness/reflex_counts/graph_b"),
                            ],
                            " / ",
                        )
                    }),
                    Row::sim(NAME, "Mean abs diff", |d| {
                        fixed(d, "/structural_distinctness/mean_abs_weight_diff", 4)
                    }),
                    Row::sim(NAME, "Edges differing by > 0.05 (§6.7)", |d| {
                        int(d, "/structural_distinctness/edges_differ_by_gt_0_05")
                    }),
                ],
            )],
            summary: vec![Row::sim(NAME, "Twin individuation: drift", |d| {
                join(
                    vec![
                        fixed(d, "/structural_distinctness/mean_abs_weight_diff", 4),
                        int(d, "/structural_distinctness/edges_differ_by_gt_0_05"),
                    ],
                    "; ",
                )
            })],
            claims: vec![
                Claim {
                    section: "6.7",
                    text: "twin graphs drift apart in mean absolute weight",
                    table: 12,
                    row: "Mean abs diff",
                },
                Claim {
                    section: "6.7",
                    text: "twin graphs differ in many edges",
                    table: 12,
                    row: "Edges differing by > 0.05 (§6.7)",
                },
            ],
            figures: &[NAME],
            reference_verdict: Verdict::Pass,
            reference_note: None,
        }
    }
    fn uses_rng(&self) -> bool {
        false
    }

    fn run(&self, profile: Profile, seed: u64) -> Result<Value> {
        let mut a = base_graph()?;
        let mut b = base_graph()?;
        train(&mut a, &["n00", "n01", "n02", "n03", "n04", "n05"], profile)?;
        train(&mut b, &["n10", "n11", "n12", "n13", "n14"], profile)?;
        let ea = edge_list(&a);
        let eb = edge_list(&b);
        let lookup = |list: &[(String, String, f64)], s: &str, t: &str| {
            list.iter()
                .find(|(x, y, _)| x == s && y == t)
                .map_or(0.0, |e| e.2)
        };
        let mut keys: Vec<(String, String)> = ea
            .iter()
            .chain(&eb)
            .map(|(s, t, _)| (s.clone(), t.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        let diffs: Vec<(&str, &str, f64)> = keys
            .iter()
            .map(|(s, t)| {
                (
                    s.as_str(),
                    t.as_str(),
                    (lookup(&ea, s, t) - lookup(&eb, s, t)).abs(),
                )
            })
            .collect();
        let differ = diffs.iter().filter(|d| d.2 > 0.05).count();
        let mean = if diffs.is_empty() {
            0.0
        } else {
            diffs.iter().map(|d| d.2).sum::<f64>() / diffs.len() as f64
        };
        let reflex_a = ea.iter().filter(|e| e.2 >= 0.8).count();
        let reflex_b = eb.iter().filter(|e| e.2 >= 0.8).count();
        let overlap = ea
            .iter()
            .zip(&eb)
            .filter(|(x, y)| x.2 >= 0.8 && y.2 >= 0.8)
            .count();
        let mut top = diffs.clone();
        top.sort_by(|x, y| y.2.total_cmp(&x.2));
        let top: Vec<Difference> = top
            .iter()
            .take(20)
            .map(|&(s, t, d)| Difference {
                source: s.to_string(),
                target: t.to_string(),
                diff: d,
            })
            .collect();
        let mut nodes: Vec<String> = a.nodes().map(|(_, n)| n.id.clone()).collect();
        nodes.sort();
        let distinct = differ > 10;
        let body = Body {
            simulation: "individuation".into(),
            query_count: QUERIES,
            workloads: Workloads {
                agent_a: "coding".into(),
                agent_b: "safety".into(),
            },
            nodes,
            graph_a_size: Size {
                nodes: a.node_count(),
                edges: a.edge_count(),
            },
            graph_b_size: Size {
                nodes: b.node_count(),
                edges: b.edge_count(),
            },
            graph_a_edges: sorted_edges(&ea),
            graph_b_edges: sorted_edges(&eb),
            structural_distinctness: Distinctness {
                edge_count: keys.len(),
                mean_abs_weight_diff: mean,
                edges_differ_by_gt_0_05: differ,
                reflex_overlap_count: overlap,
                reflex_counts: ReflexCounts {
                    graph_a: reflex_a,
                    graph_b: reflex_b,
                },
                top_differences: top,
            },
        };
        let claim = ReferenceClaim {
            met: distinct,
            distinct_graphs: distinct,
        };
        if profile == Profile::Paper {
            return document(&Paper { body, claim });
        }
        let p = Predicate::new(
            "Two copies of one graph trained on different workloads end structurally different: more than 10 edges differ by more than 0.05",
            "structural_distinctness.edges_differ_by_gt_0_05",
            differ,
            Cmp::Gt,
            10,
        );
        let note = format!(
            "The reference's check (distinct_graphs = more than 10 edges differ by > 0.05), kept. \
             {differ} of {} edges differ, mean |dw| {mean:?}, reflex edges {reflex_a} vs \
             {reflex_b} ({overlap} shared). {}",
            keys.len(),
            if p.met { "Holds." } else { "FAILS." }
        );
        document(&Doc::new(
            body,
            seed,
            "none (deterministic scenario)",
            Some(claim),
            NoExtra {},
            predicate::Claim::one(p.note(note)),
        ))
    }
}
