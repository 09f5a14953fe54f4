//! Claim verdicts exactly as the reference's `sims/run_all.py` computes them
//! (`_extract_claim`), and its summary column (`_summary_value`). The reference's verdict
//! on each simulation, and why it is not PASS, are on the simulation's card
//! ([`crate::paper::Card`]).

use std::fmt;

use serde_json::Value;

/// PASS / FAIL / N/A of one result document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Every boolean inside `claim` is true.
    Pass,
    /// At least one boolean inside `claim` is false.
    Fail,
    /// No `claim` key, or no boolean inside it.
    NotApplicable,
}

impl Verdict {
    /// The verdict printed as `s` (`PASS`, `FAIL`; anything else is `N/A`).
    pub fn parse(s: &str) -> Self {
        match s {
            "PASS" => Verdict::Pass,
            "FAIL" => Verdict::Fail,
            _ => Verdict::NotApplicable,
        }
    }

    /// `PASS`, `FAIL` or `N/A`, as the reference runner prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::NotApplicable => "N/A",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Every boolean inside a `claim` value with its path (`claim.a.b[2]`), in document
/// order — one walk for the verdict and for naming what failed.
///
/// The reference's `_extract_claim` collects, for a map, its `met` value, all its values
/// if they are all booleans, then recursively every value (lists element-wise, a bare
/// boolean itself), so a boolean may be collected several times; since only the
/// conjunction matters, that is exactly "every boolean anywhere inside `claim`".
pub fn booleans(claim: &Value) -> Vec<(String, bool)> {
    fn walk(v: &Value, path: String, out: &mut Vec<(String, bool)>) {
        match v {
            Value::Bool(b) => out.push((path, *b)),
            Value::Object(m) => {
                for (k, x) in m {
                    walk(x, format!("{path}.{k}"), out);
                }
            }
            Value::Array(xs) => {
                for (i, x) in xs.iter().enumerate() {
                    walk(x, format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(claim, "claim".into(), &mut out);
    out
}

/// The verdict of a result document as reference `sims/run_all.py` computes it: N/A
/// without a top-level `claim` key or without any boolean in it, else PASS iff every
/// boolean inside it is true (informational booleans count too).
pub fn verdict(doc: &Value) -> Verdict {
    let Some(claim) = doc.get("claim") else {
        return Verdict::NotApplicable;
    };
    let bools = booleans(claim);
    if bools.is_empty() {
        Verdict::NotApplicable
    } else if bools.iter().all(|(_, b)| *b) {
        Verdict::Pass
    } else {
        Verdict::Fail
    }
}

/// Paths of the booleans inside `claim` that are false.
pub fn false_claims(doc: &Value) -> Vec<String> {
    doc.get("claim")
        .map(booleans)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, b)| !b)
        .map(|(p, _)| p)
        .collect()
}

fn at<'a>(doc: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(doc, |v, k| v.get(*k))
}

fn fixed(v: Option<&Value>, prec: usize) -> String {
    match v.and_then(Value::as_f64) {
        Some(x) => format!("{x:.prec$}"),
        None => "?".into(),
    }
}

fn py_str(v: Option<&Value>) -> String {
    match v {
        Some(Value::Bool(true)) => "True".into(),
        Some(Value::Bool(false)) => "False".into(),
        Some(Value::Null) => "None".into(),
        Some(Value::Number(n)) => crate::pyjson::number(n),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "?".into(),
    }
}

/// The reference runner's summary column (reference `sims/run_all.py::_summary_value`),
/// dispatching like it on the document's `simulation` field; `-` where it prints none.
pub fn summary(doc: &Value) -> String {
    if doc.get("final_health").is_some() {
        return format!(
            "dormant={}",
            fixed(at(doc, &["final_health", "dormant_pct"]), 3)
        );
    }
    let simulation = doc.get("simulation").and_then(Value::as_str).unwrap_or("");
    match simulation {
        "edge_damping" => format!(
            "dr={} ur={}",
            py_str(at(doc, &["damped", "reached_D"])),
            py_str(at(doc, &["undamped", "reached_D"]))
        ),
        "individuation" => format!(
            "diff_edges={}",
            py_str(at(
                doc,
                &["structural_distinctness", "edges_differ_by_gt_0_05"]
            ))
        ),
        "deploy_pipeline" => format!(
            "final={}",
            fixed(
                at(doc, &["claim", "edge_growth_to_reflex", "to_query_50"]),
                3
            )
        ),
        "negation" => format!(
            "bad={}",
            fixed(at(doc, &["final_weights", "skip_tests_for_hotfix"]), 3)
        ),
        "context_reduction" => format!(
            "{}->{}",
            fixed(
                at(doc, &["claim", "reduction_to_few_nodes", "from_query1"]),
                1
            ),
            fixed(
                at(doc, &["claim", "reduction_to_few_nodes", "to_last_10_avg"]),
                1
            )
        ),
        "selective_forgetting" => format!(
            "dormant={}",
            fixed(at(doc, &["final_tier_distribution", "dormant_pct"]), 3)
        ),
        "domain_separation" => format!("cross={}", py_str(doc.get("final_cross_file_edge_count"))),
        _ => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn no_claim_key_is_na() {
        assert_eq!(
            verdict(&json!({"results": [true, false]})),
            Verdict::NotApplicable
        );
    }

    #[test]
    fn claim_without_booleans_is_na() {
        assert_eq!(
            verdict(&json!({"claim": {"value": 3, "label": "x"}})),
            Verdict::NotApplicable
        );
        assert_eq!(verdict(&json!({"claim": []})), Verdict::NotApplicable);
    }

    #[test]
    fn met_and_nested() {
        let doc = json!({"claim": {"a": {"from": 0.27, "to": 1.0, "met": true}}});
        assert_eq!(booleans(&doc["claim"]), [("claim.a.met".to_string(), true)]);
        assert_eq!(verdict(&doc), Verdict::Pass);
        let doc = json!({"claim": {"a": {"value": 1, "met": false}, "b": true}});
        assert_eq!(verdict(&doc), Verdict::Fail);
    }

    #[test]
    fn every_boolean_once_with_its_path() {
        let doc = json!({"claim": {"x": true, "y": [1, {"z": false}]}});
        assert_eq!(
            booleans(&doc["claim"]),
            [
                ("claim.x".to_string(), true),
                ("claim.y[1].z".to_string(), false)
            ]
        );
        assert_eq!(verdict(&doc), Verdict::Fail);
        assert_eq!(false_claims(&doc), ["claim.y[1].z"]);
    }

    #[test]
    fn informational_booleans_count() {
        // A boolean that is not `met` and sits next to non-booleans still counts.
        let doc = json!({"claim": {
            "met": true,
            "detail": {"count": 5, "informational_flag": false}
        }});
        assert_eq!(verdict(&doc), Verdict::Fail);
        // Inside a list as well.
        let doc = json!({"claim": {"met": true, "checks": [1, {"ok": false, "n": 2}]}});
        assert_eq!(verdict(&doc), Verdict::Fail);
        let doc = json!({"claim": {"met": true, "checks": [1, {"ok": true, "n": 2}]}});
        assert_eq!(verdict(&doc), Verdict::Pass);
    }

    #[test]
    fn bare_boolean_claim() {
        assert_eq!(verdict(&json!({"claim": false})), Verdict::Fail);
        assert_eq!(verdict(&json!({"claim": true})), Verdict::Pass);
        // A non-boolean `met` is ignored.
        assert_eq!(
            verdict(&json!({"claim": {"met": "yes"}})),
            Verdict::NotApplicable
        );
    }

    #[test]
    fn summary_column() {
        let doc = json!({"simulation": "edge_damping", "damped": {"reached_D": true}, "undamped": {"reached_D": false}});
        assert_eq!(summary(&doc), "dr=True ur=False");
        let doc =
            json!({"simulation": "brain_death_recovery", "final_health": {"dormant_pct": 0.975}});
        assert_eq!(summary(&doc), "dormant=0.975");
        let doc = json!({"simulation": "context_reduction", "claim": {"reduction_to_few_nodes": {"from_query1": 30, "to_last_10_avg": 2.6}}});
        assert_eq!(summary(&doc), "30.0->2.6");
        assert_eq!(summary(&json!({"simulation": "static_vs_learning"})), "-");
    }
}
