//! deploy_pipeline (reference `sims/deploy_pipeline.py`): a 4-edge procedure chain compiled
//! to reflex by 50 identical positive queries.

use anyhow::Result;
use crabpath::{apply_outcome, Episode, Graph, Traverser};
use results::sims::deploy_pipeline::{
    Body, ChainWeights, Doc, Extra, Growth, Noted, Paper, ReferenceClaim, Snapshot, WeightsAt,
};
use serde_json::Value;

use super::common::{add_titled, edge, id, query_config, weight};
use crate::claims::Verdict;
use crate::paper::extract::{find, num, opt};
use crate::paper::{self, expected, sim_table, Card, Claim, Row};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{document, Profile, Simulation};

const NAME: &str = "deploy_pipeline";

/// The query by which the paper says the chain is reflex ("reflex 1.0 by Q10", §6.2,
/// Table 6): its `reflex_by_query` in `results/sims/expected.json`.
fn paper_reflex_by() -> usize {
    expected::fact(NAME, "reflex_by_query")
}

/// Reference `sims/deploy_pipeline.py`.
pub struct DeployPipeline;

const NODES: [&str; 5] = [
    "deploy_query",
    "check_ci",
    "inspect_manifest",
    "rollback",
    "verify",
];
const QUERY_TEXT: &str = "deploy to production";
const QUERIES: usize = 50;
const TRACKED: [usize; 4] = [1, 10, 25, 50];

fn chain_weights(g: &Graph) -> ChainWeights {
    NODES
        .windows(2)
        .map(|w| {
            (
                format!("{}->{}", w[0], w[1]),
                weight(g, w[0], w[1]).unwrap_or(0.0),
            )
        })
        .collect()
}

impl Simulation for DeployPipeline {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.2",
            paper_figures: &["7"],
            description:
                "5-node deploy chain at 0.27 reinforced by 50 identical +1 queries until reflex",
            tables: vec![sim_table(
                8,
                "Deployment chain convergence",
                NAME,
                true,
                "the four chain edge weights",
                vec![
                    Row::sim(NAME, "Q1", |d| deploy_weights(d, 1.0)),
                    Row::sim(NAME, "Q10", |d| deploy_weights(d, 10.0)),
                    Row::sim(NAME, "Q50", |d| deploy_weights(d, 50.0)),
                    Row::sim(NAME, "all four at 1.0 from", deploy_reflex_query),
                ],
            )],
            summary: vec![Row::sim(
                NAME,
                "Procedural memory: chain at reflex 1.0",
                deploy_reflex_query,
            )],
            claims: vec![
                Claim {
                    section: "6.2",
                    text: "the deployment chain's first-query weights",
                    table: 8,
                    row: "Q1",
                },
                Claim {
                    section: "6.2",
                    text: "the deployment chain compiles to reflex",
                    table: 8,
                    row: "all four at 1.0 from",
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
        let mut g = Graph::new();
        for n in NODES {
            add_titled(&mut g, n);
        }
        for w in NODES.windows(2) {
            edge(&mut g, w[0], w[1], 0.27)?;
        }
        let config = query_config(profile, 6, 1);
        let learning = profile.learning();
        let seeds = [(id(&g, NODES[0])?, 1.0)];
        let mut traverser = Traverser::new();
        let mut over_time = Vec::with_capacity(QUERIES);
        let mut snapshots = Vec::new();
        let mut all_reflex_at = None;
        for q in 1..=QUERIES {
            let result = traverser.traverse(&g, &seeds, &config)?;
            apply_outcome(&mut g, &Episode::from_result(&result), 1.0, &learning, None)?;
            let weights = chain_weights(&g);
            if all_reflex_at.is_none() && weights.values().all(|&w| w > 0.8) {
                all_reflex_at = Some(q);
            }
            if TRACKED.contains(&q) {
                snapshots.push(Snapshot {
                    query: q,
                    weights: weights.clone(),
                });
            }
            over_time.push(WeightsAt {
                query: q,
                query_text: QUERY_TEXT.into(),
                edge_weights: weights,
            });
        }
        let finals = chain_weights(&g);
        let last = weight(&g, "rollback", "verify").unwrap_or(0.0);
        let met = finals.values().all(|&w| w > 0.8);
        let min_final = finals.values().copied().fold(f64::INFINITY, f64::min);
        let body = Body {
            simulation: "deploy_pipeline".into(),
            query_count: QUERIES,
            query_text: QUERY_TEXT.into(),
            tracked_queries: TRACKED.to_vec(),
            tracked_edge_snapshots: snapshots,
            edge_weights_over_time: over_time,
            final_edge_weights: finals,
        };
        let claim = ReferenceClaim {
            edge_growth_to_reflex: Growth {
                from: 0.27,
                to_query_50: last,
                reflex_threshold: 0.8,
                met,
            },
        };
        let notes = "All four pipeline edges compile from habitual to reflex through repeated \
                     deploy intent outcomes."
            .to_string();
        if profile == Profile::Paper {
            return document(&Paper { body, claim, notes });
        }
        // Never reaching reflex counts as one query past the run.
        let reached = all_reflex_at.unwrap_or(QUERIES + 1);
        let reflex_by = paper_reflex_by();
        let predicates = vec![
            Predicate::new(
                "All four pipeline edges compile from 0.27 to reflex (weight > 0.8) within the 50 queries",
                "min over the 4 chain edges of final_edge_weights",
                min_final,
                Cmp::Gt,
                0.8,
            ),
            Predicate::new(
                format!(
                    "The chain is reflex by query {reflex_by} (the paper's 'reflex by \
                     Q{reflex_by}')"
                ),
                "first query after which all 4 chain edges have weight > 0.8 (51 = never)",
                reached,
                Cmp::Le,
                reflex_by,
            ),
        ];
        let note = format!(
            "The reference's claim (every chain edge > 0.8 after Q50) is kept and reported by its \
             weakest edge instead of the last one; the paper's 'reflex by Q{reflex_by}' is \
             added as a second predicate (all four edges pass 0.8 at query {}). {}",
            all_reflex_at.map_or("never".to_string(), |q| q.to_string()),
            predicate::verdict(&predicates)
        );
        document(&Doc::new(
            Noted { body, notes },
            seed,
            "none (deterministic scenario)",
            Some(claim),
            Extra {
                queries_until_all_reflex: all_reflex_at,
            },
            predicate::Claim::all_of(
                "Repeated positive outcomes compile the deploy chain from habitual to reflex",
                predicates,
                note,
            ),
        ))
    }
}

/// The four deploy_pipeline chain weights after query `q`, 3 decimals.
fn deploy_weights(d: &Value, q: f64) -> Option<String> {
    let e = find(d, "/edge_weights_over_time", "query", q)?;
    let w = e.get("edge_weights")?.as_object()?;
    let v: Option<Vec<String>> = w
        .values()
        .map(|x| num(x).map(|x| format!("{x:.3}")))
        .collect();
    v.map(|v| v.join(", "))
}

/// First query at which every deploy_pipeline chain weight is 1.0.
fn deploy_reflex_query(d: &Value) -> Option<String> {
    let rows = opt(d, "/edge_weights_over_time")?.as_array()?;
    rows.iter().find_map(|r| {
        let w = r.get("edge_weights")?.as_object()?;
        let all = !w.is_empty() && w.values().all(|x| num(x) == Some(1.0));
        all.then(|| format!("Q{}", r.get("query").and_then(num).unwrap_or(0.0)))
    })
}
