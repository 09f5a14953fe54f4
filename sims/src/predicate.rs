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
//! `met` is always `value <comparison> threshold` (all of them for a compound claim), so
//! the verdict of the reference runner (every boolean inside `claim`, reference
//! `sims/run_all.py`) is exactly the conjunction of the predicates. [`validate`] checks the
//! shape and that every stored `met` agrees with its value and threshold.

use std::fmt;

use serde_json::{json, Map, Value};

/// The comparison of a predicate: `value <cmp> threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
}

impl Cmp {
    /// The operator as written in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Eq => "==",
        }
    }

    /// Parses an operator written by [`Cmp::as_str`].
    pub fn parse(s: &str) -> Option<Cmp> {
        Some(match s {
            ">" => Cmp::Gt,
            ">=" => Cmp::Ge,
            "<" => Cmp::Lt,
            "<=" => Cmp::Le,
            "==" => Cmp::Eq,
            _ => return None,
        })
    }

    /// Whether `value <self> threshold` holds (false when either is NaN).
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Cmp::Gt => value > threshold,
            Cmp::Ge => value >= threshold,
            Cmp::Lt => value < threshold,
            Cmp::Le => value <= threshold,
            Cmp::Eq => value == threshold,
        }
    }
}

impl fmt::Display for Cmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One machine-checked predicate `value <comparison> threshold`.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    /// What is claimed, in words.
    pub statement: String,
    /// Which measurement `value` is (document fields, how it is reduced).
    pub metric: String,
    /// The measured value (a JSON number: integers stay integers).
    pub value: Value,
    /// The threshold it is compared with.
    pub threshold: Value,
    /// The comparison.
    pub comparison: Cmp,
    /// Why the claim is stated this way, what was measured beside it.
    pub note: String,
}

impl Predicate {
    /// `value <comparison> threshold`, with an empty note.
    pub fn new(
        statement: impl Into<String>,
        metric: impl Into<String>,
        value: impl Into<Value>,
        comparison: Cmp,
        threshold: impl Into<Value>,
    ) -> Self {
        Predicate {
            statement: statement.into(),
            metric: metric.into(),
            value: value.into(),
            threshold: threshold.into(),
            comparison,
            note: String::new(),
        }
    }

    /// Sets the note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }

    /// Whether the predicate holds (false for a non-numeric value or threshold).
    pub fn met(&self) -> bool {
        match (self.value.as_f64(), self.threshold.as_f64()) {
            (Some(v), Some(t)) => self.comparison.holds(v, t),
            _ => false,
        }
    }

    /// The predicate object, keys in the documented order.
    pub fn to_json(&self) -> Value {
        json!({
            "statement": self.statement,
            "metric": self.metric,
            "value": self.value,
            "threshold": self.threshold,
            "comparison": self.comparison.as_str(),
            "met": self.met(),
            "note": self.note,
        })
    }
}

/// A single-predicate claim: the predicate object itself.
pub fn single(p: Predicate) -> Value {
    p.to_json()
}

/// The closing word of a claim note: `"Holds."` when every predicate is met,
/// `"FAILS."` otherwise.
pub fn verdict(predicates: &[Predicate]) -> &'static str {
    if predicates.iter().all(Predicate::met) {
        "Holds."
    } else {
        "FAILS."
    }
}

/// A compound claim: `{"statement", "predicates": [...], "met": all, "note"}`.
pub fn all_of(
    statement: impl Into<String>,
    predicates: &[Predicate],
    note: impl Into<String>,
) -> Value {
    json!({
        "statement": statement.into(),
        "predicates": predicates.iter().map(Predicate::to_json).collect::<Vec<_>>(),
        "met": predicates.iter().all(Predicate::met),
        "note": note.into(),
    })
}

/// The predicates of a harmonized claim with their JSON pointers (`/claim` for a
/// single predicate, `/claim/predicates/<i>` for a compound claim); empty when `claim`
/// has neither shape.
pub fn predicates(doc: &Value) -> Vec<(String, &Value)> {
    let Some(claim) = doc.get("claim") else {
        return Vec::new();
    };
    if let Some(list) = claim.get("predicates").and_then(Value::as_array) {
        return list
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("/claim/predicates/{i}"), p))
            .collect();
    }
    if claim.get("comparison").is_some() {
        return vec![("/claim".to_string(), claim)];
    }
    Vec::new()
}

const KEYS: [&str; 7] = [
    "statement",
    "metric",
    "value",
    "threshold",
    "comparison",
    "met",
    "note",
];

fn check_predicate(p: &Value, at: &str, out: &mut Vec<String>) {
    let Some(map) = p.as_object() else {
        out.push(format!("{at}: not an object"));
        return;
    };
    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
    if keys != KEYS {
        out.push(format!("{at}: keys {keys:?}, expected {KEYS:?}"));
    }
    for k in ["statement", "metric", "note"] {
        if !map.get(k).is_some_and(Value::is_string) {
            out.push(format!("{at}.{k}: not a string"));
        }
    }
    let num = |k: &str| map.get(k).and_then(Value::as_f64);
    let cmp = map
        .get("comparison")
        .and_then(Value::as_str)
        .and_then(Cmp::parse);
    match (num("value"), num("threshold"), cmp, map.get("met").and_then(Value::as_bool)) {
        (Some(v), Some(t), Some(c), Some(met)) => {
            if c.holds(v, t) != met {
                out.push(format!(
                    "{at}.met: stored {met} but {v} {c} {t} is {}",
                    c.holds(v, t)
                ));
            }
        }
        _ => out.push(format!(
            "{at}: value and threshold must be numbers, comparison one of > >= < <= ==, met a boolean"
        )),
    }
}

/// Checks that `doc.claim` has the harmonized shape and that every `met` agrees with
/// its predicate (and the compound `met` with all of them); returns the problems.
pub fn validate(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(claim) = doc.get("claim") else {
        return vec!["claim: missing".into()];
    };
    match claim.get("predicates") {
        Some(Value::Array(list)) => {
            let Some(map) = claim.as_object() else {
                return vec!["claim: not an object".into()];
            };
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            if keys != ["statement", "predicates", "met", "note"] {
                out.push(format!(
                    "claim: keys {keys:?}, expected [\"statement\", \"predicates\", \"met\", \"note\"]"
                ));
            }
            if list.is_empty() {
                out.push("claim.predicates: empty".into());
            }
            for (i, p) in list.iter().enumerate() {
                check_predicate(p, &format!("claim.predicates[{i}]"), &mut out);
            }
            let all = list
                .iter()
                .all(|p| p.get("met").and_then(Value::as_bool) == Some(true));
            if map.get("met").and_then(Value::as_bool) != Some(all) {
                out.push(format!("claim.met: must be {all} (all predicates met)"));
            }
        }
        Some(_) => out.push("claim.predicates: not a list".into()),
        None => check_predicate(claim, "claim", &mut out),
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

/// `value cmp threshold` of each predicate of a document, joined by `; `.
pub fn measured(doc: &Value) -> Option<String> {
    let preds = predicates(doc);
    if preds.is_empty() {
        return None;
    }
    let parts: Vec<String> = preds
        .iter()
        .map(|(_, p)| {
            let n = |k: &str| p.get(k).and_then(Value::as_f64).map_or("?".into(), short);
            let c = p.get("comparison").and_then(Value::as_str).unwrap_or("?");
            format!("{} {c} {}", n("value"), n("threshold"))
        })
        .collect();
    Some(parts.join("; "))
}

/// A JSON object from `(key, value)` pairs, in order.
pub fn object<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Map<String, Value>>(),
    )
}

/// Turns a reference-shaped document into a corrected-profile one: its `claim` is
/// moved (in place order of the other keys) to `reference_claim`, then `profile`,
/// `seed`, `rng`, the `extra` fields and the harmonized `claim` are appended.
pub fn restate(doc: Value, seed: u64, rng: &str, extra: Vec<(&str, Value)>, claim: Value) -> Value {
    let Value::Object(map) = doc else {
        return doc;
    };
    let mut out = Map::new();
    let mut reference = None;
    for (k, v) in map {
        if k == "claim" {
            reference = Some(v);
        } else {
            out.insert(k, v);
        }
    }
    out.insert("profile".into(), json!("corrected"));
    out.insert("seed".into(), json!(seed));
    out.insert("rng".into(), json!(rng));
    if let Some(r) = reference {
        out.insert("reference_claim".into(), r);
    }
    for (k, v) in extra {
        out.insert(k.to_string(), v);
    }
    out.insert("claim".into(), claim);
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_predicate_shape_and_met() {
        let p = Predicate::new("s", "m", 0.5, Cmp::Lt, 1).note("n");
        let v = json!({"claim": single(p)});
        assert_eq!(v["claim"]["met"], json!(true));
        assert!(validate(&v).is_empty(), "{:?}", validate(&v));
        assert_eq!(predicates(&v).len(), 1);
        assert_eq!(measured(&v).as_deref(), Some("0.5 < 1"));
        let mut bad = v.clone();
        bad["claim"]["value"] = json!(2.0);
        assert_eq!(validate(&bad).len(), 1);
        assert_eq!(crate::claims::verdict(&v), crate::claims::Verdict::Pass);
    }

    #[test]
    fn compound_claim() {
        let ps = [
            Predicate::new("a", "m", 3, Cmp::Ge, 2),
            Predicate::new("b", "m", 3, Cmp::Le, 2),
        ];
        let v = json!({"claim": all_of("both", &ps, "")});
        assert_eq!(v["claim"]["met"], json!(false));
        assert!(validate(&v).is_empty(), "{:?}", validate(&v));
        assert_eq!(predicates(&v)[1].0, "/claim/predicates/1");
        assert_eq!(crate::claims::verdict(&v), crate::claims::Verdict::Fail);
        let mut bad = v.clone();
        bad["claim"]["met"] = json!(true);
        assert_eq!(validate(&bad).len(), 1);
    }

    #[test]
    fn nan_never_meets() {
        assert!(!Predicate::new("s", "m", f64::NAN, Cmp::Ge, 0.0).met());
        assert!(!Cmp::Eq.holds(f64::NAN, f64::NAN));
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(5.0), "5");
        assert_eq!(short(0.93333), "0.9333");
        assert_eq!(short(5e-15), "5.00e-15");
        assert_eq!(short(-28.4), "-28.4");
    }

    #[test]
    fn restate_moves_the_reference_claim() {
        let doc = json!({"a": 1, "claim": {"x": true}, "b": 2});
        let out = restate(
            doc,
            7,
            "none",
            vec![("extra", json!(3))],
            json!({"met": true}),
        );
        let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "a",
                "b",
                "profile",
                "seed",
                "rng",
                "reference_claim",
                "extra",
                "claim"
            ]
        );
    }
}
