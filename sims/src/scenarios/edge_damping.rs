//! edge_damping (reference `sims/edge_damping.py`): per-episode edge damping breaks the
//! A→B→C→A reflex cycle so that the weaker A→D is discovered.

use anyhow::Result;
use crabpath::{Graph, TraversalConfig, Traverser};
use results::sims::edge_damping::{Body, Doc, Paper, ReferenceClaim, Run, Step};
use results::sims::NoExtra;
use serde_json::Value;

use super::common::{add_with, edge, id, names};
use crate::claims::Verdict;
use crate::paper::extract::{join, opt, yes_no};
use crate::paper::{self, expected, sim_table, Card, Row};
use crate::predicate::{self, Claim, Cmp, Predicate};
use crate::sim::{document, Profile, Simulation};

const NAME: &str = "edge_damping";

/// Reference `sims/edge_damping.py`.
pub struct EdgeDamping;

fn one_run(g: &Graph, profile: Profile, damping: f64) -> Result<Run> {
    let config = profile.adjust_traversal(TraversalConfig {
        max_hops: 12,
        beam_width: 1,
        edge_damping: damping,
        ..TraversalConfig::default()
    });
    let result = Traverser::new().traverse(g, &[(id(g, "A")?, 1.0)], &config)?;
    let steps: Vec<Step> = result
        .steps
        .iter()
        .map(|s| Step {
            from_node: g.name(s.from).to_string(),
            to_node: g.name(s.to).to_string(),
            tier: s.tier.as_str().to_string(),
            edge_weight: s.weight,
            effective_weight: s.effective,
        })
        .collect();
    let fired = names(g, &result.fired);
    let reached = fired.iter().any(|n| n == "D");
    let discovered = result
        .steps
        .iter()
        .position(|s| g.name(s.to) == "D")
        .map(|i| i + 1);
    Ok(Run {
        damping,
        nodes_fired: fired,
        steps,
        reached_d: reached,
        d_discovered_at_step: discovered,
    })
}

impl Simulation for EdgeDamping {
    fn name(&self) -> &'static str {
        NAME
    }
    fn definition(&self) -> Card {
        Card {
            paper: paper::Paper::OpenClawBrain,
            section: "6.5",
            paper_figures: &["10"],
            description:
                "one traversal with damping 0.3 vs 1.0 on a 0.9 reflex cycle with a 0.5 exit to D",
            tables: vec![sim_table(
                3,
                "Route damping prevents cyclic lockup",
                NAME,
                true,
                "trajectory",
                vec![
                    Row::sim(NAME, "λ = 0.3", |d| trajectory(d, "damped")),
                    Row::sim(NAME, "λ = 1.0", |d| trajectory(d, "undamped")),
                ],
            )],
            summary: vec![Row::sim(NAME, "Edge damping: reaches target", |d| {
                join(
                    vec![
                        yes_no(d, "/damped/reached_D"),
                        yes_no(d, "/undamped/reached_D"),
                    ],
                    ", λ = 1.0: ",
                )
                .map(|s| format!("λ = 0.3: {s}"))
            })],
            claims: vec![
                paper::Claim {
                    section: "6.5",
                    text: "with damping λ = 0.3 the walk leaves the cycle and reaches D",
                    table: 3,
                    row: "λ = 0.3",
                },
                paper::Claim {
                    section: "6.5",
                    text: "without damping (λ = 1.0) the walk cycles",
                    table: 3,
                    row: "λ = 1.0",
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
        for n in ["A", "B", "C", "D"] {
            add_with(&mut g, n, n);
        }
        edge(&mut g, "A", "B", 0.9)?;
        edge(&mut g, "B", "C", 0.9)?;
        edge(&mut g, "C", "A", 0.9)?;
        edge(&mut g, "A", "D", 0.5)?;
        let damped = one_run(&g, profile, 0.3)?;
        let undamped = one_run(&g, profile, 1.0)?;
        let d = damped.reached_d;
        let u = !undamped.reached_d;
        let step = damped.d_discovered_at_step;
        let body = Body {
            simulation: "edge_damping".into(),
            damped,
            undamped,
        };
        let claim = ReferenceClaim {
            damped_discovers_D: d,
            undamped_loops_without_D: u,
            met: d && u,
        };
        if profile == Profile::Paper {
            return document(&Paper { body, claim });
        }
        let predicates = vec![
            Predicate::new(
                "With damping 0.3 the traversal leaves the 0.9 reflex cycle and reaches D",
                "damped.reached_D (1 = true, 0 = false)",
                u8::from(d),
                Cmp::Eq,
                1,
            ),
            Predicate::new(
                "Without damping (1.0) the traversal loops in the cycle and never reaches D",
                "undamped.reached_D (1 = true, 0 = false)",
                u8::from(!u),
                Cmp::Eq,
                0,
            ),
        ];
        let note = format!(
            "The reference's two checks, kept. D is discovered at step {} with damping 0.3 \
             (paper: {} hops). {}",
            step.map_or_else(|| "null".to_string(), |s| s.to_string()),
            paper_hops(),
            predicate::verdict(&predicates)
        );
        document(&Doc::new(
            body,
            seed,
            "none (deterministic scenario)",
            Some(claim),
            NoExtra {},
            Claim::all_of(
                "Per-episode edge damping breaks a reflex cycle so that a weaker exit is discovered",
                predicates,
                note,
            ),
        ))
    }
}

/// The paper's hop count to D with damping 0.3 (Table 3): its `damped_hops_to_d` in
/// `results/sims/expected.json`.
fn paper_hops() -> u32 {
    expected::fact(NAME, "damped_hops_to_d")
}

/// `A → B → C …` of a traversal's steps (first from_node, then every to_node).
fn trajectory(d: &Value, run: &str) -> Option<String> {
    let steps = opt(d, &format!("/{run}/steps"))?.as_array()?;
    let mut nodes = vec![steps.first()?.get("from_node")?.as_str()?.to_string()];
    for s in steps {
        nodes.push(s.get("to_node")?.as_str()?.to_string());
    }
    let reached = opt(d, &format!("/{run}/reached_D")).and_then(Value::as_bool)?;
    Some(format!(
        "{} ({} hops, D {})",
        nodes.join(" → "),
        steps.len(),
        if reached { "reached" } else { "not reached" }
    ))
}
