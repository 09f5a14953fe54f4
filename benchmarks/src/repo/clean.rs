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
use results::repo::{Against, Best, Ci, Paired, Report, TraversalVsRetriever, Verdict};

use super::metrics::{budget_score_names, ScoreRows};
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

fn ci(c: crate::metrics::PairedCi) -> Ci {
    Ci {
        diff: c.diff,
        ci95_low: c.lo,
        ci95_high: c.hi,
    }
}

/// Paired comparisons of every method of `methods` against `baseline` for every headline
/// metric.
fn against(
    methods: &IndexMap<String, ScoreRows>,
    baseline: &[Vec<f64>],
    resamples: usize,
    seed: u64,
) -> Against {
    let names = budget_score_names();
    let mut out = Against::new();
    for (m, (_, bud)) in methods {
        let mut per = IndexMap::new();
        for h in HEADLINE {
            let Some(k) = names.iter().position(|n| *n == h) else {
                continue;
            };
            let a = column(bud, k);
            let b = column(baseline, k);
            per.insert(
                h.to_string(),
                ci(paired_bootstrap(&[(&a, &b)], resamples, seed)[0]),
            );
        }
        out.insert(m.clone(), per);
    }
    out
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
) -> (Paired, Verdict) {
    let names = budget_score_names();
    let vs = |base: &str| {
        methods
            .get(base)
            .map(|(_, b)| against(methods, b, resamples, seed))
    };
    let mut learning = Against::new();
    for (m, (_, cold_bud)) in cold {
        if let Some(rows) = methods.get(m) {
            let one: IndexMap<String, ScoreRows> =
                std::iter::once((m.clone(), rows.clone())).collect();
            learning.extend(against(&one, cold_bud, resamples, seed));
        }
    }
    let paired = Paired {
        resamples,
        seed,
        statistic: "mean(method) - mean(other) over the evaluated queries (budget-matched \
                    scores); paired bootstrap 95% interval (ChaCha8, the bench harness's \
                    percentile rule)"
            .to_string(),
        metrics: HEADLINE.iter().map(|h| h.to_string()).collect(),
        vs_bm25: vs("bm25"),
        vs_minilm_embed_similarity: vs("minilm_embed_similarity"),
        learning_vs_cold: (!learning.is_empty()).then(|| learning.clone()),
    };

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
    let mut verdict = Verdict {
        metric: VERDICT_METRIC.to_string(),
        ranking: ranking.iter().map(|(m, v, _)| (m.clone(), *v)).collect(),
        winner: None,
        tied_with_winner: None,
        runner_up: None,
        winner_minus_runner_up: None,
        clear_winner: None,
        best_traversal_vs_best_retriever: None,
        learning_on_heldout_queries: None,
        best_per_metric: IndexMap::new(),
        summary: String::new(),
    };
    let mut summary = String::new();
    if let Some((w, wm, wc)) = ranking.first() {
        let tied: Vec<&str> = ranking
            .iter()
            .skip(1)
            .filter(|(_, _, c)| c == wc)
            .map(|(m, _, _)| m.as_str())
            .collect();
        verdict.winner = Some(w.clone());
        verdict.tied_with_winner = Some(tied.iter().map(|t| t.to_string()).collect());
        let runner = ranking.iter().skip(1).find(|(_, _, c)| c != wc);
        if let Some((r, rm, rc)) = runner {
            let c = paired_bootstrap(&[(wc, rc)], resamples, seed)[0];
            let clear = c.lo > 0.0;
            verdict.runner_up = Some(r.clone());
            verdict.winner_minus_runner_up = Some(ci(c));
            verdict.clear_winner = Some(clear);
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
        verdict.best_traversal_vs_best_retriever = Some(TraversalVsRetriever {
            traversal: g.clone(),
            traversal_mean: *gm,
            retriever: b.clone(),
            retriever_mean: *bm,
            difference: ci(c),
            result: word.to_string(),
        });
        summary.push_str(&format!(
            ". Best traversal method {g} ({gm:.3}) vs best retriever {b} ({bm:.3}): {:+.3} \
             [{:+.3}, {:+.3}], {word}",
            c.diff, c.lo, c.hi
        ));
    }
    let helps: IndexMap<String, String> = learning
        .iter()
        .map(|(m, v)| {
            let (lo, hi) = v
                .get(VERDICT_METRIC)
                .map_or((0.0, 0.0), |d| (d.ci95_low, d.ci95_high));
            let word = if lo > 0.0 {
                "helps"
            } else if hi < 0.0 {
                "hurts"
            } else {
                "no significant effect"
            };
            (m.clone(), word.to_string())
        })
        .collect();
    if !helps.is_empty() {
        verdict.learning_on_heldout_queries = Some(helps);
    }
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
                verdict.best_per_metric.insert(
                    h.to_string(),
                    Best {
                        method: m.clone(),
                        mean: v,
                    },
                );
            }
        }
    }
    verdict.summary = summary;
    (paired, verdict)
}

/// The clean protocol's extra printout: budget-matched means, the learning effect and the
/// verdict.
pub fn summary<R>(report: &Report<R>) -> String {
    let cols = [
        "recall_at_5",
        "recall_at_10",
        "mrr_at_10",
        "ndcg_at_10",
        "files_returned",
    ];
    let mut s = String::from("\nBudget-matched (first k files)\n");
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
    if let Some(o) = report
        .paired
        .as_ref()
        .and_then(|p| p.learning_vs_cold.as_ref())
    {
        s.push_str("\nLearning vs cold traversal on held-out queries (recall_at_5, 95% CI)\n");
        for (m, v) in o {
            let d = v.get(VERDICT_METRIC);
            let f = |x: Option<f64>| x.unwrap_or(f64::NAN);
            s.push_str(&format!(
                "{m:<24} {:+.3} [{:+.3}, {:+.3}]\n",
                f(d.map(|d| d.diff)),
                f(d.map(|d| d.ci95_low)),
                f(d.map(|d| d.ci95_high))
            ));
        }
    }
    if let Some(v) = &report.verdict {
        s.push_str(&format!("\nVerdict: {}\n", v.summary));
    }
    s
}
