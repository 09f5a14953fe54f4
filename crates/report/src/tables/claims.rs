//! The corrected profile's machine-checked claims, one row per simulation: the
//! statement, the measured value (mean [95 % CI] over seeds for multi-seed runs), the
//! comparison and threshold, the verdict, the share of seeds the claim holds in, and
//! the sim's note. Shape of `claim`: `sims/src/predicate.rs`.

use results::sims::{Claim, Envelope, Predicate};
use serde_json::Value;

use super::markdown::md;
use crate::data::{sim_names, Profile, Results};
use sims::paper::extract::compact;

/// One corrected-profile claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRow {
    /// Simulation name.
    pub sim: String,
    /// The claim as stated.
    pub statement: String,
    /// Measured value; for multi-seed runs `mean [low, high] (seed 42: v)`.
    pub value: String,
    /// Comparison operator(s).
    pub comparison: String,
    /// Threshold(s).
    pub threshold: String,
    /// `PASS` / `FAIL` (of the document's seed for multi-seed runs).
    pub verdict: String,
    /// `k/N seeds`, or `deterministic` for single-run sims.
    pub seeds: String,
    /// The sim's note.
    pub note: String,
}

fn number(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::Number(n) => n.as_f64().map_or_else(|| v.to_string(), compact),
        other => other.to_string(),
    }
}

fn text(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `value`, `comparison`, `threshold` of one predicate, or of every predicate of a
/// compound claim (`; `-joined, each prefixed by its number).
fn parts(c: &Claim) -> (String, String, String) {
    let row = |p: &Predicate, tag: &str| {
        (
            format!("{tag}{}", number(&p.value)),
            format!("{tag}{}", text(p.comparison.as_str())),
            format!("{tag}{}", number(&p.threshold)),
        )
    };
    match c {
        Claim::All(a) => {
            let (mut v, mut cmp, mut t) = (Vec::new(), Vec::new(), Vec::new());
            for (i, p) in a.predicates.iter().enumerate() {
                let tag = if a.predicates.len() > 1 {
                    format!("({}) ", i + 1)
                } else {
                    String::new()
                };
                let (x, y, z) = row(p, &tag);
                v.push(x);
                cmp.push(y);
                t.push(z);
            }
            (v.join("; "), cmp.join("; "), t.join("; "))
        }
        Claim::One(p) => row(p, ""),
    }
}

/// Every corrected-profile claim found, in the runner's order.
pub fn build(results: &Results) -> Vec<ClaimRow> {
    let mut rows = Vec::new();
    for sim in sim_names() {
        let Some(d) = results.sim(Profile::Corrected, sim) else {
            continue;
        };
        let Ok(Envelope {
            claim: Some(c),
            multi_seed,
        }) = d.parse::<Envelope>()
        else {
            continue;
        };
        let (mut value, comparison, threshold) = parts(&c);
        let mut verdict = if c.met() { "PASS" } else { "FAIL" }.to_string();
        let mut seeds = "deterministic (1 run)".to_string();
        if let Some(m) = &multi_seed {
            let seed = m.document_seed.unwrap_or(42);
            let claim_metric = m.metrics.values().find(|x| x.is_claim_value());
            if let Some((mean, lo, hi)) =
                claim_metric.and_then(|x| Some((x.mean?, x.ci95_low?, x.ci95_high?)))
            {
                value = format!(
                    "{} [{}, {}] (seed {seed}: {value})",
                    compact(mean),
                    compact(lo),
                    compact(hi)
                );
            }
            verdict = format!("{verdict} (seed {seed})");
            let (k, total) = m.claim_holds();
            seeds = format!("{k}/{total} seeds");
        }
        let (statement, note) = match &c {
            Claim::All(a) => (&a.statement, &a.note),
            Claim::One(p) => (&p.statement, &p.note),
        };
        rows.push(ClaimRow {
            sim: sim.to_string(),
            statement: text(statement),
            value,
            comparison,
            threshold,
            verdict,
            seeds,
            note: text(note),
        });
    }
    rows
}

/// The Markdown section.
pub fn markdown(rows: &[ClaimRow]) -> String {
    let mut s = String::from(
        "### Corrected-profile claims\n\n\
         Each corrected-profile result restates its sim's claim as a machine-checked predicate\n\
         (`value comparison threshold`; compound claims list their predicates as (1), (2), …).\n\
         For the multi-seed sims the value is the mean [95 % CI] over seeds of the claim's\n\
         metric, followed by the document seed's own value; the verdict is that seed's, and\n\
         \"seeds\" counts the seeds in which the claim holds. CSV\n\
         `figures/csv/tables/corrected_claims.csv`.\n\n\
         | sim | statement | measured value | comparison | threshold | verdict | seeds | note |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            md(&r.sim),
            md(&r.statement),
            md(&r.value),
            md(&r.comparison),
            md(&r.threshold),
            md(&r.verdict),
            md(&r.seeds),
            md(&r.note)
        ));
    }
    s
}

/// CSV rows.
pub fn csv(rows: &[ClaimRow]) -> Vec<Vec<String>> {
    let mut out = vec![[
        "sim",
        "statement",
        "value",
        "comparison",
        "threshold",
        "verdict",
        "seeds",
        "note",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>()];
    for r in rows {
        out.push(vec![
            r.sim.clone(),
            r.statement.clone(),
            r.value.clone(),
            r.comparison.clone(),
            r.threshold.clone(),
            r.verdict.clone(),
            r.seeds.clone(),
            r.note.clone(),
        ]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Doc;
    use serde_json::json;

    #[test]
    fn single_compound_and_multi_seed_claims() {
        let mut r = Results::default();
        let put = |r: &mut Results, sim: &str, v: Value| {
            r.sims
                .insert((Profile::Corrected, sim.to_string()), Doc::new(sim, v));
        };
        put(
            &mut r,
            "negation",
            json!({"claim": {"statement": "s", "metric": "m", "value": 0.5,
            "threshold": 0.9, "comparison": ">=", "met": false, "note": "a | b"}}),
        );
        put(
            &mut r,
            "prune_health",
            json!({"claim": {"statement": "p", "predicates": [
                {"statement": "a", "metric": "m", "value": 1, "threshold": 2,
                 "comparison": "<", "met": true, "note": ""},
                {"statement": "b", "metric": "m", "value": 20, "threshold": 20,
                 "comparison": "==", "met": true, "note": ""}], "met": true, "note": ""}}),
        );
        put(
            &mut r,
            "scaling_analysis",
            json!({"claim": {"statement": "t", "metric": "m", "value": 0.02,
            "threshold": 0.5, "comparison": "<", "met": true, "note": "n"},
            "multi_seed": {"seeds": [42, 43], "document_seed": 42, "interval": "t",
              "claim_verdicts": ["PASS", "FAIL"], "claim_holds_share": 0.5,
              "metrics": {"slope": {"pointer": "/claim/value", "values": [0.02, 0.48], "n": 2,
                                    "mean": 0.25, "std": 0.32, "ci95_low": 0.1,
                                    "ci95_high": 0.4}}}}),
        );
        let rows = build(&r);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].sim, "negation");
        assert_eq!(
            (
                rows[0].value.as_str(),
                rows[0].verdict.as_str(),
                rows[0].seeds.as_str()
            ),
            ("0.5", "FAIL", "deterministic (1 run)")
        );
        assert_eq!(rows[1].sim, "prune_health");
        assert_eq!(rows[1].value, "(1) 1; (2) 20");
        assert_eq!(rows[1].comparison, "(1) <; (2) ==");
        assert_eq!(rows[2].value, "0.25 [0.1, 0.4] (seed 42: 0.02)");
        assert_eq!(rows[2].verdict, "PASS (seed 42)");
        assert_eq!(rows[2].seeds, "1/2 seeds");
        let md = markdown(&rows);
        assert!(md.contains("a \\| b"), "{md}");
        assert_eq!(csv(&rows).len(), 4);
    }
}
