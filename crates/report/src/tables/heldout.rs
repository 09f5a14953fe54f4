//! `results/bench/HELDOUT.md`: the tables that answer issue 15's two questions — does
//! learning generalise to held-out queries, and does any learned (routed) traversal beat the
//! best simple baseline — rendered from the bench runs' JSON (`bench run --protocol related |
//! unrelated | repeat`, module `benchmarks/src/heldout.rs`; and the `clean` runs with
//! `--router`). Every number is read from the report it names, never typed by hand.
//!
//! Sources inside a report: `method_intervals_over_splits` (mean and 95 % t-interval over the
//! splits), `split_differences.pairs[].per_split` (paired difference per split, its interval
//! and its minimum detectable difference), `paired_tests.pairs[]` (pooled per query:
//! bootstrap interval, Holm-adjusted randomization test), `repeat` (first ask and re-ask) and
//! `method_metrics` (means over the scored queries).

use std::fmt::Write as _;

use serde_json::Value;

use super::md;
use super::paired::marks;
use crate::data::{num, Doc, Results};
use crate::figures::heldout::{escape, BASELINES, METRIC};

/// `crabpath_learning@edge` → `heur@edge`, `crabpath_pg_learning@…` → `pg@…`.
fn short(m: &str) -> String {
    m.replace("crabpath_pg_learning", "pg")
        .replace("crabpath_learning", "heur")
        .replace("crabpath_cold", "cold")
}

/// A signed number to 3 decimals.
fn sg(x: f64) -> String {
    format!("{x:+.3}")
}

/// A difference with its interval, `a − b`, read from a list of `{a, b, …}` pairs whichever
/// way round it is stored.
struct Diff {
    mean: f64,
    lo: f64,
    hi: f64,
    /// Minimum detectable difference (per-split differences only).
    mdd: Option<f64>,
    /// Holm-adjusted p-value (pooled tests only).
    p_holm: Option<f64>,
}

impl Diff {
    fn from(v: &Value, flip: bool, keys: [&str; 3]) -> Option<Self> {
        let g = |k: &str| v.get(k).and_then(num);
        let (m, lo, hi) = (g(keys[0])?, g(keys[1])?, g(keys[2])?);
        Some(if flip {
            Diff {
                mean: -m,
                lo: -hi,
                hi: -lo,
                mdd: g("mdd80"),
                p_holm: g("p_holm"),
            }
        } else {
            Diff {
                mean: m,
                lo,
                hi,
                mdd: g("mdd80"),
                p_holm: g("p_holm"),
            }
        })
    }

    fn interval(&self) -> String {
        format!("{} [{}, {}]", sg(self.mean), sg(self.lo), sg(self.hi))
    }
}

/// The stored pair of `a` and `b` under `pointer` (an array of `{a, b, …}`), and whether it
/// is stored as `b − a`.
fn pair<'a>(d: &'a Doc, pointer: &str, a: &str, b: &str) -> Option<(&'a Value, bool)> {
    d.opt(pointer)?.as_array()?.iter().find_map(|p| {
        let (x, y) = (p.get("a")?.as_str()?, p.get("b")?.as_str()?);
        if (x, y) == (a, b) {
            Some((p, false))
        } else if (x, y) == (b, a) {
            Some((p, true))
        } else {
            None
        }
    })
}

/// `a − b` per split (mean over splits, t-interval, MDD).
fn per_split(d: &Doc, a: &str, b: &str) -> Option<Diff> {
    let (p, flip) = pair(d, "/split_differences/pairs", a, b)?;
    Diff::from(p.get("per_split")?, flip, ["mean", "ci95_low", "ci95_high"])
}

/// `a − b` pooled per query (bootstrap interval, Holm-adjusted p).
fn pooled(d: &Doc, a: &str, b: &str) -> Option<Diff> {
    let (p, flip) = pair(d, "/paired_tests/pairs", a, b)?;
    Diff::from(p, flip, ["diff", "ci95_low", "ci95_high"])
}

/// Mean and 95 % interval over the splits of `m`'s metric.
fn over_splits(d: &Doc, m: &str) -> Option<(f64, f64, f64)> {
    let v = d.opt(&format!(
        "/method_intervals_over_splits/{}/{METRIC}",
        escape(m)
    ))?;
    let g = |k: &str| v.get(k).and_then(num);
    Some((g("mean")?, g("ci95_low")?, g("ci95_high")?))
}

fn over_splits_text(d: &Doc, m: &str) -> String {
    over_splits(d, m).map_or_else(
        || "—".into(),
        |(m, lo, hi)| format!("{m:.3} [{lo:.3}, {hi:.3}]"),
    )
}

/// Mean of `m`'s metric over the scored queries.
fn mean(d: &Doc, m: &str) -> Option<f64> {
    d.opt(&format!("/method_metrics/{m}/{METRIC}"))
        .and_then(num)
}

/// The methods of a report, in its order.
fn methods(d: &Doc) -> Vec<String> {
    d.opt("/method_metrics")
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// The first method of `names` with the highest `score` (`None` when none has one).
fn best<'a>(
    names: impl Iterator<Item = &'a str>,
    score: impl Fn(&str) -> Option<f64>,
) -> Option<&'a str> {
    let mut top: Option<(&str, f64)> = None;
    for n in names {
        if let Some(s) = score(n) {
            if top.is_none_or(|(_, t)| s > t) {
                top = Some((n, s));
            }
        }
    }
    top.map(|t| t.0)
}

/// The static baseline with the highest mean over splits, with that mean: what the
/// held-out table compares the best learned traversal with, and the guide line of the
/// held-out figure (`figures::heldout`).
pub(crate) fn best_baseline_over_splits(d: &Doc) -> Option<(&'static str, f64)> {
    let b = best(BASELINES.into_iter(), |m| over_splits(d, m).map(|x| x.0))?;
    Some((b, over_splits(d, b)?.0))
}

fn text<'a>(d: &'a Doc, p: &str) -> &'a str {
    d.opt(p).and_then(Value::as_str).unwrap_or("?")
}

fn learned(d: &Doc) -> Vec<String> {
    methods(d)
        .into_iter()
        .filter(|m| m.contains("learning@"))
        .collect()
}

/// The cold traversal with the router of learned method `m`.
fn cold_of(m: &str) -> String {
    format!("crabpath_cold@{}", m.split('@').nth(1).unwrap_or(""))
}

fn test_queries(d: &Doc) -> String {
    d.opt("/heldout/test_queries_per_split_mean")
        .and_then(num)
        .map_or_else(|| "—".into(), |q| format!("{}", q.round()))
}

/// Held-out generalisation: learned − cold with the same router, on the `related` run and
/// on its `unrelated` control.
fn generalisation(results: &Results, out: &mut String) {
    let _ = writeln!(
        out,
        "## Learned − cold (same router) on held-out queries\n\n\
         Per split: mean over the splits of each split's paired difference, Student-t 95 %\n\
         interval, in brackets the minimum difference detectable at 80 % power. Pooled: each\n\
         query's mean over the splits that tested it, paired bootstrap 95 % interval, Holm-\n\
         adjusted randomization test.\n\n\
         | report | method | related: test queries / split | related: per split [95 % CI] (MDD) | related: pooled [95 % CI] | unrelated: test queries / split | unrelated: per split [95 % CI] (MDD) | unrelated: pooled [95 % CI] |\n\
         |---|---|---|---|---|---|---|---|"
    );
    for (stem, rel) in &results.bench {
        if text(rel, "/protocol") != "related" {
            continue;
        }
        let control = results.bench.get(&stem.replace("-related-", "-unrelated-"));
        for m in learned(rel) {
            let cold = cold_of(&m);
            let mut cells = vec![md(stem), format!("`{}`", short(&m))];
            for d in [Some(rel), control] {
                match d {
                    Some(d) => {
                        let ps = per_split(d, &m, &cold);
                        let pq = pooled(d, &m, &cold);
                        cells.push(test_queries(d));
                        cells.push(ps.map_or_else(
                            || "—".into(),
                            |x| format!("{} ({:.3})", x.interval(), x.mdd.unwrap_or(f64::NAN)),
                        ));
                        cells.push(pq.map_or_else(
                            || "—".into(),
                            |x| format!("{} {}", x.interval(), marks(x.p_holm.unwrap_or(1.0))),
                        ));
                    }
                    None => cells.extend(["—".to_string(), "—".into(), "—".into()]),
                }
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    out.push('\n');
}

/// Repeat (memorisation): first ask, re-ask, their paired difference.
fn repeat(results: &Results, out: &mut String) {
    let _ = writeln!(
        out,
        "## Repeat: first ask and re-ask\n\n\
         First ask = before the query's own update; re-ask = on the frozen graph after every\n\
         query was learned from (leaks by design). Re-ask − first ask is paired per query\n\
         (bootstrap 95 % interval, randomization-test p); re-ask − cold is per split.\n\n\
         | report | method | cold | first ask | re-ask | re-ask − first ask [95 % CI] (p) | re-ask − cold per split [95 % CI] | best baseline |\n\
         |---|---|---|---|---|---|---|---|"
    );
    for (stem, d) in &results.bench {
        if text(d, "/protocol") != "repeat" {
            continue;
        }
        let bb = best(BASELINES.into_iter(), |m| mean(d, m));
        for m in learned(d) {
            let cold = cold_of(&m);
            let r = d.opt(&format!("/repeat/{}", escape(&m)));
            let first = r
                .and_then(|r| r.pointer(&format!("/first_ask/{METRIC}")))
                .and_then(num);
            let diff = r.and_then(|r| r.get("re_ask_minus_first_ask"));
            let p = diff.and_then(|v| v.get("p_value")).and_then(num);
            let num3 = |x: Option<f64>| x.map_or_else(|| "—".into(), |x| format!("{x:.3}"));
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} | {} | {} |",
                md(stem),
                short(&m),
                num3(mean(d, &cold)),
                num3(first),
                num3(mean(d, &m)),
                diff.and_then(|v| Diff::from(v, false, ["diff", "ci95_low", "ci95_high"]))
                    .map_or_else(
                        || "—".into(),
                        |x| format!("{} (p {:.4})", x.interval(), p.unwrap_or(f64::NAN))
                    ),
                per_split(d, &m, &cold).map_or_else(|| "—".into(), |x| x.interval()),
                bb.map_or_else(|| "—".into(), |b| format!("`{b}` {}", num3(mean(d, b)))),
            );
        }
    }
    out.push('\n');
}

/// Does any learned traversal beat the best baseline on held-out queries?
fn versus_baselines(results: &Results, out: &mut String) {
    let _ = writeln!(
        out,
        "## Best learned traversal against the best baseline, held out (`related`)\n\n\
         \"Best\" is chosen by the mean over splits — a choice made on the test queries, which\n\
         favours the learned side. Per split: Student-t 95 % interval and MDD; pooled: paired\n\
         bootstrap interval and Holm-adjusted randomization test (p).\n\n\
         | report | best baseline | cold@edge | cold@edge+sim | best learned | best learned − best baseline, per split [95 % CI] (MDD) | pooled [95 % CI], Holm (p) |\n\
         |---|---|---|---|---|---|---|"
    );
    for (stem, d) in &results.bench {
        if text(d, "/protocol") != "related" {
            continue;
        }
        let score = |m: &str| over_splits(d, m).map(|x| x.0);
        let names = learned(d);
        let (Some((bb, _)), Some(bl)) = (
            best_baseline_over_splits(d),
            best(names.iter().map(String::as_str), score),
        ) else {
            continue;
        };
        let ps = per_split(d, bl, bb);
        let pq = pooled(d, bl, bb);
        let _ = writeln!(
            out,
            "| {} | `{bb}` {} | {} | {} | `{}` {} | {} | {} |",
            md(stem),
            over_splits_text(d, bb),
            over_splits_text(d, "crabpath_cold@edge"),
            over_splits_text(d, "crabpath_cold@edge+sim"),
            short(bl),
            over_splits_text(d, bl),
            ps.map_or_else(
                || "—".into(),
                |x| format!("{} ({:.3})", x.interval(), x.mdd.unwrap_or(f64::NAN))
            ),
            pq.map_or_else(
                || "—".into(),
                |x| {
                    let p = x.p_holm.unwrap_or(1.0);
                    format!("{} {} (p {p:.4})", x.interval(), marks(p))
                }
            ),
        );
    }
    out.push('\n');
}

/// The routers under `clean`: every query learned from after it is scored.
fn clean_routers(results: &Results, out: &mut String) {
    let _ = writeln!(
        out,
        "## The routers under `clean`\n\n\
         Every query scored, then learned from, in stream order; means over all queries;\n\
         best learned − best baseline with its paired bootstrap 95 % interval and the\n\
         Holm-adjusted randomization test.\n\n\
         | report | best baseline | cold@edge | cold@edge+sim | cold@adaptive | best learned | best learned − best baseline [95 % CI], Holm (p) |\n\
         |---|---|---|---|---|---|---|"
    );
    for (stem, d) in &results.bench {
        let names = learned(d);
        if text(d, "/protocol") != "clean" || names.is_empty() {
            continue;
        }
        let score = |m: &str| mean(d, m);
        let (Some(bb), Some(bl)) = (
            best(BASELINES.into_iter(), score),
            best(names.iter().map(String::as_str), score),
        ) else {
            continue;
        };
        let num3 = |m: &str| mean(d, m).map_or_else(|| "—".into(), |x| format!("{x:.3}"));
        let _ = writeln!(
            out,
            "| {} | `{bb}` {} | {} | {} | {} | `{}` {} | {} |",
            md(stem),
            num3(bb),
            num3("crabpath_cold@edge"),
            num3("crabpath_cold@edge+sim"),
            num3("crabpath_cold@adaptive"),
            short(bl),
            num3(bl),
            pooled(d, bl, bb).map_or_else(
                || "—".into(),
                |x| {
                    let p = x.p_holm.unwrap_or(1.0);
                    format!("{} {} (p {p:.4})", x.interval(), marks(p))
                }
            ),
        );
    }
    out.push('\n');
}

/// The whole file, `None` when no bench run has a held-out protocol or routers.
pub fn markdown(results: &Results) -> Option<String> {
    let any = results.bench.values().any(|d| {
        matches!(text(d, "/protocol"), "related" | "unrelated" | "repeat") || !learned(d).is_empty()
    });
    if !any {
        return None;
    }
    let mut out = String::from(
        "# Held-out learning and routed traversal against the baselines\n\n\
         Generated by `cargo run -q -p report -- tables` from `results/bench/*.json` (the\n\
         `related`, `unrelated` and `repeat` runs, and the `clean` runs with routers); do not\n\
         edit by hand (`cargo run -q -p report -- check` fails when this file is stale).\n\
         Metric: recall@10. Methods: `cold`, `heur` (heuristic rule) and `pg` (the router's own\n\
         policy gradient), each `@` its router (`edge`, `edge+sim`, `adaptive`). Marks: `*` <\n\
         0.05, `**` < 0.01, `***` < 0.001 after Holm's correction, n.s. otherwise. What the\n\
         numbers say: `results/bench/README.md`.\n\n",
    );
    generalisation(results, &mut out);
    repeat(results, &mut out);
    versus_baselines(results, &mut out);
    clean_routers(results, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A related run and its control, by hand: heur@edge − cold@edge is stored as
    /// cold − heur (so the table must flip it), the pooled test as heur − cold.
    #[test]
    fn held_out_rows_read_the_reports() {
        let mut r = Results::default();
        let intervals = |m: f64| json!({"recall_at_10": {"mean": m, "ci95_low": m - 0.01, "ci95_high": m + 0.01}});
        let rel = json!({
            "protocol": "related",
            "heldout": {"test_queries_per_split_mean": 135.85},
            "method_metrics": {"bm25_topk": {}, "crabpath_cold@edge": {}, "crabpath_learning@edge": {}},
            "method_intervals_over_splits": {
                "bm25_topk": intervals(0.6), "crabpath_cold@edge": intervals(0.5),
                "crabpath_learning@edge": intervals(0.52)},
            "split_differences": {"pairs": [
                {"a": "crabpath_cold@edge", "b": "crabpath_learning@edge",
                 "per_split": {"mean": -0.02, "ci95_low": -0.03, "ci95_high": -0.01, "mdd80": 0.009}},
                {"a": "crabpath_learning@edge", "b": "bm25_topk",
                 "per_split": {"mean": -0.08, "ci95_low": -0.09, "ci95_high": -0.07, "mdd80": 0.011}}]},
            "paired_tests": {"pairs": [
                {"a": "crabpath_learning@edge", "b": "crabpath_cold@edge", "diff": 0.018,
                 "ci95_low": 0.01, "ci95_high": 0.025, "p_holm": 0.0066},
                {"a": "bm25_topk", "b": "crabpath_learning@edge", "diff": 0.07,
                 "ci95_low": 0.05, "ci95_high": 0.09, "p_holm": 0.0066}]}
        });
        r.bench
            .insert("x-related-m".into(), Doc::new("x-related-m.json", rel));
        let m = markdown(&r).unwrap();
        assert!(
            m.contains("| x-related-m | `heur@edge` | 136 | +0.020 [+0.010, +0.030] (0.009) | +0.018 [+0.010, +0.025] ** | — | — | — |"),
            "{m}"
        );
        assert!(
            m.contains("| x-related-m | `bm25_topk` 0.600 [0.590, 0.610] | 0.500 [0.490, 0.510] | — | `heur@edge` 0.520 [0.510, 0.530] | -0.080 [-0.090, -0.070] (0.011) | -0.070 [-0.090, -0.050] ** (p 0.0066) |"),
            "{m}"
        );
        assert!(markdown(&Results::default()).is_none());
    }
}
