//! The clean protocol's comparisons: paired bootstrap intervals between methods on the
//! same queries (the bench harness's [`crate::metrics::paired_bootstrap`]) and a verdict
//! saying which method wins and whether the win is larger than the noise.
//!
//! Comparisons, on the budget-matched scores of the evaluated queries (those with a
//! relevant file), for the headline metrics [`HEADLINE`]:
//!
//! * every method against `bm25` and against `minilm_embed_similarity` (when run);
//! * every learning method against its own cold traversal (the held-out rankings after
//!   0 training queries): does learning from real outcomes help on unseen queries?
//! * the verdict: methods ranked by mean `recall_at_5`; the winner against the runner-up
//!   (a win is "clear" when the 95 % interval of the difference lies above 0; methods
//!   with identical per-query scores are reported as tied), and the best traversal
//!   method against the best retriever (keyword, hash, BM25, MiniLM).

use indexmap::IndexMap;
use serde_json::{json, Map, Value};

use super::metrics::budget_score_names;
use super::output::Report;
use super::run::ScoreRows;
use crate::metrics::paired_bootstrap;

/// Metrics compared with paired tests.
pub const HEADLINE: [&str; 4] = ["recall_at_5", "recall_at_10", "mrr_at_10", "ndcg_at_10"];

/// The metric the verdict ranks by.
pub const VERDICT_METRIC: &str = "recall_at_5";

fn column(rows: &[Vec<f64>], k: usize) -> Vec<f64> {
    rows.iter().map(|r| r[k]).collect()
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn ci_json(diff: f64, lo: f64, hi: f64) -> Value {
    json!({"diff": diff, "ci95_low": lo, "ci95_high": hi})
}

/// Paired comparisons of `a[name]` against `b` for every headline metric.
fn against(
    methods: &IndexMap<String, ScoreRows>,
    baseline: &[Vec<f64>],
    resamples: usize,
    seed: u64,
) -> Value {
    let names = budget_score_names();
    let mut out = Map::new();
    for (m, (_, bud)) in methods {
        let mut per = Map::new();
        for h in HEADLINE {
            let Some(k) = names.iter().position(|n| *n == h) else {
                continue;
            };
            let a = column(bud, k);
            let b = column(baseline, k);
            let c = paired_bootstrap(&[(&a, &b)], resamples, seed)[0];
            per.insert(h.to_string(), ci_json(c.diff, c.lo, c.hi));
        }
        out.insert(m.clone(), Value::Object(per));
    }
    Value::Object(out)
}

/// The `paired` and `verdict` objects of a clean report. `methods` holds every method's
/// per-query (reference, budget) score rows; `cold` the cold (0 training queries) rows
/// of the learning methods under held-out evaluation; `graph_methods` names the
/// traversal methods (the others are retrievers).
pub fn compare(
    methods: &IndexMap<String, ScoreRows>,
    cold: &IndexMap<String, ScoreRows>,
    graph_methods: &[&str],
    resamples: usize,
    seed: u64,
) -> (Value, Value) {
    let names = budget_score_names();
    let mut paired = Map::new();
    paired.insert("resamples".into(), json!(resamples));
    paired.insert("seed".into(), json!(seed));
    paired.insert(
        "statistic".into(),
        json!("mean(method) - mean(other) over the evaluated queries (budget-matched scores); paired bootstrap 95% interval (ChaCha8, the bench harness's percentile rule)"),
    );
    paired.insert("metrics".into(), json!(HEADLINE));
    for base in ["bm25", "minilm_embed_similarity"] {
        if let Some((_, b)) = methods.get(base) {
            paired.insert(format!("vs_{base}"), against(methods, b, resamples, seed));
        }
    }
    let mut learning = Map::new();
    for (m, (_, cold_bud)) in cold {
        if let Some(rows) = methods.get(m) {
            let one: IndexMap<String, ScoreRows> =
                std::iter::once((m.clone(), rows.clone())).collect();
            if let Value::Object(o) = against(&one, cold_bud, resamples, seed) {
                learning.extend(o);
            }
        }
    }
    if !learning.is_empty() {
        paired.insert("learning_vs_cold".into(), Value::Object(learning.clone()));
    }

    // verdict
    let k = names.iter().position(|n| *n == VERDICT_METRIC).unwrap_or(0);
    let mut ranking: Vec<(String, f64, Vec<f64>)> = methods
        .iter()
        .map(|(m, (_, bud))| {
            let c = column(bud, k);
            (m.clone(), mean(&c), c)
        })
        .collect();
    // stable: equal means keep method order
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut verdict = Map::new();
    verdict.insert("metric".into(), json!(VERDICT_METRIC));
    verdict.insert(
        "ranking".into(),
        Value::Object(
            ranking
                .iter()
                .map(|(m, v, _)| (m.clone(), json!(v)))
                .collect(),
        ),
    );
    let mut summary = String::new();
    if let Some((w, wm, wc)) = ranking.first() {
        let tied: Vec<&str> = ranking
            .iter()
            .skip(1)
            .filter(|(_, _, c)| c == wc)
            .map(|(m, _, _)| m.as_str())
            .collect();
        verdict.insert("winner".into(), json!(w));
        verdict.insert("tied_with_winner".into(), json!(tied));
        let runner = ranking.iter().skip(1).find(|(_, _, c)| c != wc);
        if let Some((r, rm, rc)) = runner {
            let c = paired_bootstrap(&[(wc, rc)], resamples, seed)[0];
            let clear = c.lo > 0.0;
            verdict.insert("runner_up".into(), json!(r));
            verdict.insert("winner_minus_runner_up".into(), ci_json(c.diff, c.lo, c.hi));
            verdict.insert("clear_winner".into(), json!(clear));
            let verb = if c.diff > 0.0 {
                "leads"
            } else {
                "ties in mean with"
            };
            summary = format!(
                "{w} {verb} {r} on {VERDICT_METRIC} ({wm:.3} vs {rm:.3}): difference \
                 {:+.3} [{:+.3}, {:+.3}] — {}",
                c.diff,
                c.lo,
                c.hi,
                if clear {
                    "a clear win"
                } else {
                    "within the noise of this query set"
                }
            );
        } else {
            summary = format!("every method ties on {VERDICT_METRIC} ({wm:.3})");
        }
        if !tied.is_empty() {
            summary.push_str(&format!(" (tied with {})", tied.join(", ")));
        }
    }
    // The question of the paper: does the best graph method beat the best retriever?
    let is_graph = |m: &str| graph_methods.contains(&m);
    let best_graph = ranking.iter().find(|(m, _, _)| is_graph(m));
    let best_base = ranking.iter().find(|(m, _, _)| !is_graph(m));
    if let (Some((g, gm, gc)), Some((b, bm, bc))) = (best_graph, best_base) {
        let c = paired_bootstrap(&[(gc, bc)], resamples, seed)[0];
        let word = if c.lo > 0.0 {
            "better"
        } else if c.hi < 0.0 {
            "worse"
        } else {
            "not significantly different"
        };
        verdict.insert(
            "best_traversal_vs_best_retriever".into(),
            json!({
                "traversal": g, "traversal_mean": gm,
                "retriever": b, "retriever_mean": bm,
                "difference": ci_json(c.diff, c.lo, c.hi),
                "result": word,
            }),
        );
        summary.push_str(&format!(
            ". Best traversal method {g} ({gm:.3}) vs best retriever {b} ({bm:.3}): {:+.3} \
             [{:+.3}, {:+.3}], {word}",
            c.diff, c.lo, c.hi
        ));
    }
    let mut helps = Map::new();
    for (m, v) in &learning {
        let d = &v[VERDICT_METRIC];
        let lo = d["ci95_low"].as_f64().unwrap_or(0.0);
        let hi = d["ci95_high"].as_f64().unwrap_or(0.0);
        let word = if lo > 0.0 {
            "helps"
        } else if hi < 0.0 {
            "hurts"
        } else {
            "no significant effect"
        };
        helps.insert(m.clone(), json!(word));
    }
    if !helps.is_empty() {
        verdict.insert("learning_on_heldout_queries".into(), Value::Object(helps));
    }
    let mut per_metric = Map::new();
    for h in HEADLINE {
        if let Some(k) = names.iter().position(|n| *n == h) {
            let best = methods
                .iter()
                .map(|(m, (_, b))| (m, mean(&column(b, k))))
                .fold(None::<(&String, f64)>, |acc, (m, v)| match acc {
                    Some((_, bv)) if bv >= v => acc,
                    _ => Some((m, v)),
                });
            if let Some((m, v)) = best {
                per_metric.insert(h.to_string(), json!({"method": m, "mean": v}));
            }
        }
    }
    verdict.insert("best_per_metric".into(), Value::Object(per_metric));
    verdict.insert("summary".into(), json!(summary));
    (Value::Object(paired), Value::Object(verdict))
}

/// The clean protocol's extra printout: budget-matched means, the learning effect and the
/// verdict.
pub fn summary(report: &Report) -> String {
    let cols = [
        "recall_at_5",
        "recall_at_10",
        "mrr_at_10",
        "ndcg_at_10",
        "files_returned",
    ];
    let mut s = String::from("\nBudget-matched (first k files)");
    s.push_str(&" ".repeat(0));
    s.push('\n');
    s.push_str(&format!("{:<24}", "Method"));
    for c in cols {
        s.push_str(&format!("{c:>15}"));
    }
    s.push('\n');
    for (m, r) in &report.methods {
        s.push_str(&format!("{m:<24}"));
        for c in cols {
            let v = r
                .budget_scores
                .as_ref()
                .and_then(|b| b.get(c).copied())
                .unwrap_or(f64::NAN);
            s.push_str(&format!("{v:>15.3}"));
        }
        s.push('\n');
    }
    if let Some(p) = report
        .paired
        .as_ref()
        .and_then(|p| p.get("learning_vs_cold"))
    {
        if let Some(o) = p.as_object() {
            s.push_str("\nLearning vs cold traversal on held-out queries (recall_at_5, 95% CI)\n");
            for (m, v) in o {
                let d = &v[VERDICT_METRIC];
                s.push_str(&format!(
                    "{m:<24} {:+.3} [{:+.3}, {:+.3}]\n",
                    d["diff"].as_f64().unwrap_or(f64::NAN),
                    d["ci95_low"].as_f64().unwrap_or(f64::NAN),
                    d["ci95_high"].as_f64().unwrap_or(f64::NAN)
                ));
            }
        }
    }
    if let Some(v) = report.verdict.as_ref().and_then(|v| v.get("summary")) {
        s.push_str(&format!("\nVerdict: {}\n", v.as_str().unwrap_or("")));
    }
    s
}
