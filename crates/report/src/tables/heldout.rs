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

use results::bench::{AnyReport, PairTest, SplitDifference};

use super::markdown::md;
use super::paired::marks;
use crate::data::Results;
use crate::heldout_view::{best, best_baseline_over_splits, over_splits, BASELINES, METRIC};

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
    /// `(mean, low, high)` read `a − b` or, with `flip`, `b − a`.
    fn new(
        flip: bool,
        (m, lo, hi): (f64, f64, f64),
        mdd: Option<f64>,
        p_holm: Option<f64>,
    ) -> Self {
        if flip {
            Diff {
                mean: -m,
                lo: -hi,
                hi: -lo,
                mdd,
                p_holm,
            }
        } else {
            Diff {
                mean: m,
                lo,
                hi,
                mdd,
                p_holm,
            }
        }
    }

    fn interval(&self) -> String {
        format!("{} [{}, {}]", sg(self.mean), sg(self.lo), sg(self.hi))
    }
}

/// The pair of `a` and `b` in `pairs`, and whether it is stored as `b − a`.
fn pair<'p, P>(
    pairs: &'p [P],
    ab: fn(&P) -> (&str, &str),
    a: &str,
    b: &str,
) -> Option<(&'p P, bool)> {
    pairs.iter().find_map(|p| {
        let (x, y) = ab(p);
        if (x, y) == (a, b) {
            Some((p, false))
        } else if (x, y) == (b, a) {
            Some((p, true))
        } else {
            None
        }
    })
}

fn split_names(p: &SplitDifference) -> (&str, &str) {
    (&p.a, &p.b)
}

fn test_names(p: &PairTest) -> (&str, &str) {
    (&p.a, &p.b)
}

/// `a − b` per split (mean over splits, t-interval, MDD).
fn per_split(d: &AnyReport, a: &str, b: &str) -> Option<Diff> {
    let pairs = &d.heldout()?.split_differences.pairs;
    let (p, flip) = pair(pairs, split_names, a, b)?;
    let s = &p.per_split;
    Some(Diff::new(
        flip,
        (s.mean?, s.ci95_low?, s.ci95_high?),
        s.mdd80,
        None,
    ))
}

/// `a − b` pooled per query (bootstrap interval, Holm-adjusted p).
fn pooled(d: &AnyReport, a: &str, b: &str) -> Option<Diff> {
    let pairs = &d.paired_tests()?.pairs;
    let (p, flip) = pair(pairs, test_names, a, b)?;
    Some(Diff::new(
        flip,
        (p.diff, p.ci95_low, p.ci95_high),
        None,
        Some(p.p_holm),
    ))
}

fn over_splits_text(d: &AnyReport, m: &str) -> String {
    over_splits(d, m).map_or_else(
        || "—".into(),
        |(m, lo, hi)| format!("{m:.3} [{lo:.3}, {hi:.3}]"),
    )
}

/// Mean of `m`'s metric over the scored queries.
fn mean(d: &AnyReport, m: &str) -> Option<f64> {
    d.method_metrics()?.get(m)?.get(METRIC).copied()
}

/// The methods of a report, in its order.
fn methods(d: &AnyReport) -> Vec<String> {
    d.method_metrics()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn learned(d: &AnyReport) -> Vec<String> {
    methods(d)
        .into_iter()
        .filter(|m| m.contains("learning@"))
        .collect()
}

/// The cold traversal with the router of learned method `m`.
fn cold_of(m: &str) -> String {
    format!("crabpath_cold@{}", m.split('@').nth(1).unwrap_or(""))
}

fn test_queries(d: &AnyReport) -> String {
    d.heldout().map_or_else(
        || "—".into(),
        |h| format!("{}", h.heldout.test_queries_per_split_mean.round()),
    )
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
        let rel = &rel.report;
        if rel.protocol != "related" {
            continue;
        }
        let control = results
            .bench
            .get(&stem.replace("-related-", "-unrelated-"))
            .map(|b| &b.report);
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
        let d = &d.report;
        if d.protocol != "repeat" {
            continue;
        }
        let bb = best(BASELINES.into_iter(), |m| mean(d, m));
        for m in learned(d) {
            let cold = cold_of(&m);
            let r = d
                .heldout()
                .and_then(|h| h.repeat.as_ref())
                .and_then(|rep| rep.get(&m));
            let first = r.and_then(|r| r.first_ask.get(METRIC)).copied();
            let diff = r.and_then(|r| r.re_ask_minus_first_ask.as_ref());
            let p = diff.map(|v| v.p_value);
            let num3 = |x: Option<f64>| x.map_or_else(|| "—".into(), |x| format!("{x:.3}"));
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} | {} | {} |",
                md(stem),
                short(&m),
                num3(mean(d, &cold)),
                num3(first),
                num3(mean(d, &m)),
                diff.map(|v| Diff::new(false, (v.diff, v.ci95_low, v.ci95_high), None, None))
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
        let d = &d.report;
        if d.protocol != "related" {
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
        let d = &d.report;
        let names = learned(d);
        if d.protocol != "clean" || names.is_empty() {
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
        let d = &d.report;
        matches!(d.protocol.as_str(), "related" | "unrelated" | "repeat") || !learned(d).is_empty()
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
    use crate::data::{Bench, Doc};

    /// A committed `related` run: its learned − cold row and its best-learned row show the
    /// numbers the report holds, read independently here.
    #[test]
    fn held_out_rows_read_the_reports() {
        let name = "hotpotqa-sample1100-related-minilm.json";
        let path = testdata::committed(format!("results/bench/{name}"));
        let value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let b = Bench::new(Doc::new(name, value)).unwrap();
        let r = b.report.clone();
        let mut results = Results::default();
        results.bench.insert("x-related-m".into(), b);
        let m = markdown(&results).unwrap();
        let h = r.heldout().unwrap();
        let learned = "crabpath_learning@edge";
        let split = h
            .split_differences
            .pairs
            .iter()
            .find(|p| p.a == learned && p.b == "crabpath_cold@edge")
            .unwrap();
        let want = format!(
            "| x-related-m | `heur@edge` | {} | {:+.3} [{:+.3}, {:+.3}] ({:.3}) |",
            h.heldout.test_queries_per_split_mean.round(),
            split.per_split.mean.unwrap(),
            split.per_split.ci95_low.unwrap(),
            split.per_split.ci95_high.unwrap(),
            split.per_split.mdd80.unwrap(),
        );
        assert!(m.contains(&want), "{want}\n{m}");
        assert!(markdown(&Results::default()).is_none());
    }
}
