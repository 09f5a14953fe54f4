//! The corrected profile's machine-checked claims.
//!
//! Every corrected-profile document states its claim as one predicate
//!
//! ```json
//! "claim": {"statement": "...", "metric": "...", "value": 0.93, "threshold": 0.9,
//!           "comparison": ">=", "met": true, "note": "..."}
//! ```
//!
//! or, when the claim has several parts, as
//!
//! ```json
//! "claim": {"statement": "...", "predicates": [<predicate>, ...], "met": <all met>, "note": "..."}
//! ```
//!
//! The types are the `results` crate's ([`Claim`], [`Predicate`], [`Cmp`]): `met` is
//! always `value <comparison> threshold` (all of them for a compound claim), so the
//! verdict of the reference runner (every boolean inside `claim`, reference
//! `sims/run_all.py`) is exactly the conjunction of the predicates. [`validate`] checks
//! a stored document's claim.

use serde_json::Value;

pub use results::sims::{verdict_word as verdict, AllOf, Claim, Cmp, Predicate};

/// The claim of a corrected-profile document (`None` when `claim` is absent or has
/// neither shape).
pub fn claim_of(doc: &Value) -> Option<Claim> {
    serde_json::from_value(doc.get("claim")?.clone()).ok()
}

/// Checks that `doc.claim` is a [`Claim`] written exactly as the type writes it (no other
/// key, keys in order) and that every `met` agrees with its predicate (and the compound
/// `met` with all of them); returns the problems.
pub fn validate(doc: &Value) -> Vec<String> {
    let Some(stored) = doc.get("claim") else {
        return vec!["claim: missing".into()];
    };
    let claim: Claim = match serde_json::from_value(stored.clone()) {
        Ok(c) => c,
        Err(e) => {
            return vec![format!(
                "claim: not a predicate or a list of predicates: {e}"
            )]
        }
    };
    let mut out = claim.problems();
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let rewritten = serde_json::to_value(&claim).unwrap_or(Value::Null);
    if keys(&rewritten) != keys(stored) {
        out.push(format!(
            "claim: keys {:?}, expected {:?}",
            keys(stored),
            keys(&rewritten)
        ));
    }
    out
}

/// Compact number formatting for tables: integers as integers, tiny or huge values in
/// scientific notation, otherwise at most 4 decimals without trailing zeros.
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    if x.abs() < 1e-3 || x.abs() >= 1e6 {
        return format!("{x:.2e}");
    }
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn single_predicate_shape_and_met() {
        let p = Predicate::new("s", "m", 0.5, Cmp::Lt, 1).note("n");
        let v = json!({"claim": Claim::one(p)});
        assert_eq!(v["claim"]["met"], json!(true));
        assert!(validate(&v).is_empty(), "{:?}", validate(&v));
        assert_eq!(claim_of(&v).map(|c| c.predicates().len()), Some(1));
        let mut bad = v.clone();
        bad["claim"]["value"] = json!(2.0);
        assert_eq!(validate(&bad).len(), 1);
        assert_eq!(crate::claims::verdict(&v), crate::claims::Verdict::Pass);
        let mut reordered = v.clone();
        let note = reordered["claim"]
            .as_object_mut()
            .unwrap()
            .shift_remove("note");
        reordered["claim"]
            .as_object_mut()
            .unwrap()
            .shift_insert(0, "note".into(), note.unwrap());
        assert_eq!(validate(&reordered).len(), 1);
    }

    #[test]
    fn compound_claim() {
        let ps = vec![
            Predicate::new("a", "m", 3, Cmp::Ge, 2),
            Predicate::new("b", "m", 3, Cmp::Le, 2),
        ];
        let v = json!({"claim": Claim::all_of("both", ps, "")});
        assert_eq!(v["claim"]["met"], json!(false));
        assert!(validate(&v).is_empty(), "{:?}", validate(&v));
        assert_eq!(crate::claims::verdict(&v), crate::claims::Verdict::Fail);
        let mut bad = v.clone();
        bad["claim"]["met"] = json!(true);
        assert_eq!(validate(&bad).len(), 1);
        assert!(!validate(&json!({"claim": {"x": 1}})).is_empty());
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(5.0), "5");
        assert_eq!(short(0.93333), "0.9333");
        assert_eq!(short(5e-15), "5.00e-15");
        assert_eq!(short(-28.4), "-28.4");
    }
}
