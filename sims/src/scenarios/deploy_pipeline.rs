//! deploy_pipeline (reference `sims/deploy_pipeline.py`): a 4-edge procedure chain compiled
//! to reflex by 50 identical positive queries.

use anyhow::Result;
use crabpath::{apply_outcome, Episode, Graph, Traverser};
use serde_json::{json, Map, Value};

use super::common::{add_titled, edge, id, query_config, weight};
use crate::predicate::{self, Cmp, Predicate};
use crate::sim::{Profile, Simulation};

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

fn chain_weights(g: &Graph) -> Map<String, Value> {
    NODES
        .windows(2)
        .map(|w| {
            (
                format!("{}->{}", w[0], w[1]),
                json!(weight(g, w[0], w[1]).unwrap_or(0.0)),
            )
        })
        .collect()
}

impl Simulation for DeployPipeline {
    fn name(&self) -> &'static str {
        "deploy_pipeline"
    }
    fn paper_ref(&self) -> &'static str {
        "Table 8, Fig. 7"
    }
    fn description(&self) -> &'static str {
        "5-node deploy chain at 0.27 reinforced by 50 identical +1 queries until reflex"
    }
    fn uses_rng(&self) -> bool {
        false
    }
    fn paper_value(&self) -> &'static str {
        "Q1 0.425/0.420/0.416/0.411; reflex 1.0 by Q10"
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
            if all_reflex_at.is_none()
                && weights
                    .values()
                    .all(|w| w.as_f64().is_some_and(|w| w > 0.8))
            {
                all_reflex_at = Some(q);
            }
            if TRACKED.contains(&q) {
                let mut snap = Map::new();
                snap.insert("query".into(), json!(q));
                snap.extend(weights.clone());
                snapshots.push(Value::Object(snap));
            }
            over_time.push(json!({
                "query": q,
                "query_text": QUERY_TEXT,
                "edge_weights": weights,
            }));
        }
        let finals = chain_weights(&g);
        let last = weight(&g, "rollback", "verify").unwrap_or(0.0);
        let met = finals.values().all(|w| w.as_f64().is_some_and(|w| w > 0.8));
        let doc = json!({
            "simulation": "deploy_pipeline",
            "query_count": QUERIES,
            "query_text": QUERY_TEXT,
            "tracked_queries": TRACKED,
            "tracked_edge_snapshots": snapshots,
            "edge_weights_over_time": over_time,
            "final_edge_weights": finals,
            "claim": {
                "edge_growth_to_reflex": {
                    "from": 0.27,
                    "to_query_50": last,
                    "reflex_threshold": 0.8,
                    "met": met,
                }
            },
            "notes": "All four pipeline edges compile from habitual to reflex through repeated deploy intent outcomes.",
        });
        if profile == Profile::Paper {
            return Ok(doc);
        }
        let min_final = finals
            .values()
            .filter_map(Value::as_f64)
            .fold(f64::INFINITY, f64::min);
        // Never reaching reflex counts as one query past the run.
        let reached = all_reflex_at.unwrap_or(QUERIES + 1);
        let predicates = [
            Predicate::new(
                "All four pipeline edges compile from 0.27 to reflex (weight > 0.8) within the 50 queries",
                "min over the 4 chain edges of final_edge_weights",
                min_final,
                Cmp::Gt,
                0.8,
            ),
            Predicate::new(
                "The chain is reflex by query 10 (the paper's 'reflex by Q10')",
                "first query after which all 4 chain edges have weight > 0.8 (51 = never)",
                reached,
                Cmp::Le,
                10,
            ),
        ];
        let note = format!(
            "The reference's claim (every chain edge > 0.8 after Q50) is kept and reported by its \
             weakest edge instead of the last one; the paper's 'reflex by Q10' is added as a \
             second predicate (all four edges pass 0.8 at query {}). {}",
            all_reflex_at.map_or("never".to_string(), |q| q.to_string()),
            predicate::verdict(&predicates)
        );
        Ok(predicate::restate(
            doc,
            seed,
            "none (deterministic scenario)",
            vec![("queries_until_all_reflex", json!(all_reflex_at))],
            predicate::all_of(
                "Repeated positive outcomes compile the deploy chain from habitual to reflex",
                &predicates,
                note,
            ),
        ))
    }
}
