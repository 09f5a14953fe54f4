//! The corrected profile's machine-checked claims: every claim is one [`Predicate`]
//! `value <comparison> threshold`, or [`AllOf`] several, and its `met` is exactly that
//! (so the reference runner's verdict — every boolean inside `claim`, reference
//! `sims/run_all.py` — is the conjunction of the predicates).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The comparison of a predicate: `value <cmp> threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    /// `>`
    #[serde(rename = ">")]
    Gt,
    /// `>=`
    #[serde(rename = ">=")]
    Ge,
    /// `<`
    #[serde(rename = "<")]
    Lt,
    /// `<=`
    #[serde(rename = "<=")]
    Le,
    /// `==`
    #[serde(rename = "==")]
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

/// One machine-checked predicate `value <comparison> threshold`, keys in this order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Predicate {
    /// What is claimed, in words.
    pub statement: String,
    /// Which measurement `value` is (document fields, how it is reduced).
    pub metric: String,
    /// The measured value (a JSON number: integers stay integers; `null` when not finite).
    pub value: Value,
    /// The threshold it is compared with.
    pub threshold: Value,
    /// The comparison.
    pub comparison: Cmp,
    /// Whether `value <comparison> threshold` holds (as written; [`Predicate::holds`]
    /// recomputes it).
    pub met: bool,
    /// Why the claim is stated this way, what was measured beside it.
    pub note: String,
}

impl Predicate {
    /// `value <comparison> threshold`, with an empty note; `met` computed.
    pub fn new(
        statement: impl Into<String>,
        metric: impl Into<String>,
        value: impl Into<Value>,
        comparison: Cmp,
        threshold: impl Into<Value>,
    ) -> Self {
        let mut p = Predicate {
            statement: statement.into(),
            metric: metric.into(),
            value: value.into(),
            threshold: threshold.into(),
            comparison,
            met: false,
            note: String::new(),
        };
        p.met = p.holds();
        p
    }

    /// Sets the note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }

    /// Whether `value <comparison> threshold` holds (false for a non-numeric value or
    /// threshold).
    pub fn holds(&self) -> bool {
        match (self.value.as_f64(), self.threshold.as_f64()) {
            (Some(v), Some(t)) => self.comparison.holds(v, t),
            _ => false,
        }
    }
}

/// A compound claim: every predicate must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllOf {
    /// What is claimed, in words.
    pub statement: String,
    /// The parts.
    pub predicates: Vec<Predicate>,
    /// Whether every part holds.
    pub met: bool,
    /// Why the claim is stated this way.
    pub note: String,
}

/// A corrected-profile claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Claim {
    /// Several predicates, all of which must hold.
    All(AllOf),
    /// One predicate.
    One(Predicate),
}

impl Claim {
    /// A single-predicate claim.
    pub fn one(p: Predicate) -> Claim {
        Claim::One(p)
    }

    /// A compound claim over `predicates` (`met` = all of them).
    pub fn all_of(
        statement: impl Into<String>,
        predicates: Vec<Predicate>,
        note: impl Into<String>,
    ) -> Claim {
        Claim::All(AllOf {
            statement: statement.into(),
            met: predicates.iter().all(Predicate::holds),
            predicates,
            note: note.into(),
        })
    }

    /// Its predicates, in order.
    pub fn predicates(&self) -> &[Predicate] {
        match self {
            Claim::All(a) => &a.predicates,
            Claim::One(p) => std::slice::from_ref(p),
        }
    }

    /// Its `met`, as written.
    pub fn met(&self) -> bool {
        match self {
            Claim::All(a) => a.met,
            Claim::One(p) => p.met,
        }
    }

    /// The JSON pointer, inside its document, of predicate `i`'s value — `/claim/value`
    /// for a single predicate, `/claim/predicates/<i>/value` for a compound claim: what a
    /// multi-seed metric that aggregates the predicate records as its `pointer`.
    pub fn value_pointer(&self, i: usize) -> String {
        match self {
            Claim::All(_) => format!("/claim/predicates/{i}/value"),
            Claim::One(_) => "/claim/value".to_string(),
        }
    }

    /// The problems of the claim: a `met` that disagrees with its value and threshold,
    /// a compound `met` that is not the conjunction, an empty compound claim.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let check = |p: &Predicate, at: &str, out: &mut Vec<String>| match (
            p.value.as_f64(),
            p.threshold.as_f64(),
        ) {
            (Some(v), Some(t)) => {
                if p.comparison.holds(v, t) != p.met {
                    out.push(format!(
                        "{at}.met: stored {} but {v} {} {t} is {}",
                        p.met,
                        p.comparison,
                        p.comparison.holds(v, t)
                    ));
                }
            }
            _ => out.push(format!("{at}: value and threshold must be numbers")),
        };
        match self {
            Claim::One(p) => check(p, "claim", &mut out),
            Claim::All(a) => {
                if a.predicates.is_empty() {
                    out.push("claim.predicates: empty".into());
                }
                for (i, p) in a.predicates.iter().enumerate() {
                    check(p, &format!("claim.predicates[{i}]"), &mut out);
                }
                let all = a.predicates.iter().all(|p| p.met);
                if a.met != all {
                    out.push(format!("claim.met: must be {all} (all predicates met)"));
                }
            }
        }
        out
    }
}

/// The closing word of a claim note: `"Holds."` when every predicate holds, `"FAILS."`
/// otherwise.
pub fn verdict_word(predicates: &[Predicate]) -> &'static str {
    if predicates.iter().all(Predicate::holds) {
        "Holds."
    } else {
        "FAILS."
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_round_trip_and_met_is_computed() {
        let p = Predicate::new("s", "m", 0.5, Cmp::Lt, 1).note("n");
        assert!(p.met);
        let text = serde_json::to_string(&Claim::one(p.clone())).unwrap();
        assert_eq!(
            text,
            r#"{"statement":"s","metric":"m","value":0.5,"threshold":1,"comparison":"<","met":true,"note":"n"}"#
        );
        assert_eq!(
            serde_json::from_str::<Claim>(&text).unwrap(),
            Claim::one(p.clone())
        );
        let all = Claim::all_of("both", vec![p, Predicate::new("b", "m", 3, Cmp::Le, 2)], "");
        assert!(!all.met());
        let back: Claim = serde_json::from_str(&serde_json::to_string(&all).unwrap()).unwrap();
        assert_eq!(back, all);
        assert!(all.problems().is_empty());
        assert_eq!(all.value_pointer(1), "/claim/predicates/1/value");
    }

    #[test]
    fn a_stored_met_that_disagrees_is_a_problem() {
        let mut p = Predicate::new("s", "m", 2.0, Cmp::Ge, 1.0);
        p.met = false;
        assert_eq!(Claim::one(p).problems().len(), 1);
        assert!(!Predicate::new("s", "m", f64::NAN, Cmp::Ge, 0.0).met);
        assert_eq!(
            verdict_word(&[Predicate::new("s", "m", 1, Cmp::Eq, 2)]),
            "FAILS."
        );
    }
}
