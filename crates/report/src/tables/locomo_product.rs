//! The LoCoMo product-path tables of `results/bench/LOCOMO.md` (`bench run --dataset
//! locomo --protocol product`, `benchmarks/src/locomo/headline.rs`; issue 28): the paper's
//! definition in Table 3's layout with DRAGON's published row beside it, the mean
//! characters of the first 10 nodes, and the test conversations' means and paired tests.
//! Every number is the report's (or, for DRAGON, [`results::locomo_product::DRAGON`]'s).

use std::fmt::Write as _;

use results::bench::{AnyReport, PairedTests, Sections};
use results::locomo_product::{Product, DRAGON};

use super::md;
use super::paired::marks;
use crate::data::Results;

/// Every product-path report, in name order.
pub fn reports(results: &Results) -> Vec<(&str, &AnyReport)> {
    results
        .bench
        .iter()
        .filter(|(_, b)| matches!(b.report.sections, Sections::Product(_)))
        .map(|(name, b)| (name.as_str(), &b.report))
        .collect()
}

fn num(x: Option<f64>) -> String {
    x.map_or(String::new(), |x| format!("{x:.3}"))
}

/// The Markdown of every product-path report (empty without one).
pub fn markdown(results: &Results) -> String {
    let mut out = String::new();
    for (name, r) in reports(results) {
        if let Sections::Product(p) = &r.sections {
            one(&mut out, name, r, p);
        }
    }
    out
}

fn one(out: &mut String, name: &str, r: &AnyReport, p: &Product<PairedTests>) {
    let d = &p.locomo_product;
    let t = &p.paper_definition;
    let slices: Vec<&String> = t.questions.keys().collect();
    let _ = write!(
        out,
        "\n## `{name}.json`: the product's path\n\n`{}`\n\nEvery conversation built by \
         `crabpath init --conversation`'s code (one node per turn), every question asked \
         through `Brain::query` with limit 50, embedder {}. Knob `{}` tuned on {}: {} (rule: \
         {}).\n",
        md(r.command()),
        md(&r.embedder),
        md(&d.tuning.knob),
        d.tuning.conversations.join(" and "),
        d.tuning
            .scores
            .iter()
            .map(|(k, v)| {
                let mark = if *k == d.tuning.chosen {
                    " (chosen)"
                } else {
                    ""
                };
                format!("{k}: {v:.3}{mark}")
            })
            .collect::<Vec<_>>()
            .join(", "),
        md(&d.tuning.rule),
    );
    let _ = write!(
        out,
        "\n### The paper's definition, all ten conversations (Table 3's layout)\n\n{}. \
         DRAGON: Maharana et al., ACL 2024, Table 3, as issue 28 quotes it (empty cells are \
         not given there).\n\n| arm | k |",
        md(&t.definition)
    );
    for s in &slices {
        let _ = write!(out, " {s} ({}) |", t.questions[*s]);
    }
    out.push_str(" mean chars of the first 10 |\n|---|---|");
    for _ in &slices {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    for (i, k) in t.ks.iter().enumerate() {
        let _ = write!(out, "| DRAGON (published) | {k} |");
        for s in &slices {
            let v = DRAGON
                .iter()
                .find(|(n, _)| n == s)
                .and_then(|(_, row)| row.get(i).copied().flatten());
            let _ = write!(out, " {} |", num(v));
        }
        out.push_str("  |\n");
    }
    for (arm, by) in &t.recall {
        for (i, k) in t.ks.iter().enumerate() {
            let _ = write!(out, "| {} | {k} |", md(arm));
            for s in &slices {
                let _ = write!(
                    out,
                    " {} |",
                    num(by.get(*s).and_then(|v| v.get(i)).copied())
                );
            }
            let chars = if i == 0 {
                t.mean_chars_first10
                    .get(arm)
                    .map_or(String::new(), |c| format!("{c:.0}"))
            } else {
                String::new()
            };
            let _ = writeln!(out, " {chars} |");
        }
    }
    let tp = &p.test_paired;
    let _ = write!(
        out,
        "\n### The eight test conversations ({}; {} questions)\n\nMeans (paper definition):\n\n\
         | arm | recall@5 | recall@10 | recall@25 | recall@50 |\n|---|---|---|---|---|\n",
        d.test_conversations.join(", "),
        tp.queries
    );
    for (arm, m) in &p.method_metrics {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            md(arm),
            num(m.get("recall_at_5").copied()),
            num(m.get("recall_at_10").copied()),
            num(m.get("recall_at_25").copied()),
            num(m.get("recall_at_50").copied()),
        );
    }
    let _ = write!(
        out,
        "\nThe headline arm (`{}`) against every other arm on recall@10 (paired bootstrap 95 % \
         interval, randomization test, {}; minimum detectable difference at 80 % power):\n\n\
         | against | headline | other | difference (95 % CI) | p (Holm) | MDD |\n\
         |---|---|---|---|---|---|\n",
        md(&d.headline),
        md(&tp.correction),
    );
    for pt in tp
        .pairs
        .iter()
        .filter(|pt| pt.a == d.headline || pt.b == d.headline)
    {
        let (other, sign, head_mean, other_mean) = if pt.a == d.headline {
            (&pt.b, 1.0, pt.mean_a, pt.mean_b)
        } else {
            (&pt.a, -1.0, pt.mean_b, pt.mean_a)
        };
        let (lo, hi) = if sign > 0.0 {
            (pt.ci95_low, pt.ci95_high)
        } else {
            (-pt.ci95_high, -pt.ci95_low)
        };
        let _ = writeln!(
            out,
            "| {} | {head_mean:.3} | {other_mean:.3} | {:+.3} [{lo:+.3}, {hi:+.3}] | {:.4} {} | {} |",
            md(other),
            sign * pt.diff,
            pt.p_holm,
            marks(pt.p_holm),
            num(p.test_mdd80.get(other).copied()),
        );
    }
}
