//! Reading tool arguments (a JSON object) with messages a model can act on: which
//! argument, what was expected, what came.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The arguments of one tool call.
pub struct Args<'a> {
    tool: &'a str,
    map: &'a Map<String, Value>,
}

/// The kind of a JSON value, for messages ("got a string").
pub(crate) use crabpath_brain::source::conversation::turn::json_kind as kind;

impl<'a> Args<'a> {
    /// The arguments of `tool`; unknown keys are refused (a misspelt argument must
    /// not be silently ignored).
    pub fn new(tool: &'a str, map: &'a Map<String, Value>, known: &[&str]) -> Result<Self> {
        if let Some(k) = map.keys().find(|k| !known.contains(&k.as_str())) {
            let expected = if known.is_empty() {
                "it takes no arguments".to_string()
            } else {
                format!("expected: {}", known.join(", "))
            };
            return Err(Error::Argument(format!(
                "{tool}: unknown argument `{k}` ({expected})"
            )));
        }
        Ok(Args { tool, map })
    }

    /// The arguments of `tool` without the check of their names (a handler that checks
    /// them itself, see [`crate::tools::ToolDef::own_check`]).
    pub fn unchecked(tool: &'a str, map: &'a Map<String, Value>) -> Self {
        Args { tool, map }
    }

    /// The arguments as the client sent them.
    pub fn map(&self) -> &'a Map<String, Value> {
        self.map
    }

    fn bad(&self, key: &str, want: &str, got: &Value) -> Error {
        Error::Argument(format!(
            "{}: `{key}` must be {want}, got {}",
            self.tool,
            kind(got)
        ))
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// An optional string; blank counts as absent when `blank_is_none`.
    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(self.bad(key, "a string", v)),
        }
    }

    /// A required string that is not blank.
    pub fn text(&self, key: &str) -> Result<&'a str> {
        match self.opt_str(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            Some(_) => Err(Error::Argument(format!(
                "{}: `{key}` must not be empty",
                self.tool
            ))),
            None => Err(Error::Argument(format!(
                "{}: `{key}` is required",
                self.tool
            ))),
        }
    }

    /// An optional non-blank string (a blank one is absent).
    pub fn opt_text(&self, key: &str) -> Result<Option<&'a str>> {
        Ok(self.opt_str(key)?.filter(|s| !s.trim().is_empty()))
    }

    /// An optional integer in `[min, max]`.
    pub fn opt_int(&self, key: &str, min: i64, max: i64) -> Result<Option<i64>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let want = format!("an integer from {min} to {max}");
        let n = match v {
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
            _ => None,
        }
        .ok_or_else(|| self.bad(key, &want, v))?;
        if n < min || n > max {
            return Err(Error::Argument(format!(
                "{}: `{key}` must be {want}, got {n}",
                self.tool
            )));
        }
        Ok(Some(n))
    }

    /// A required number in `[min, max]`.
    pub fn number(&self, key: &str, min: f64, max: f64) -> Result<f64> {
        let want = format!("a number from {min} to {max}");
        let Some(v) = self.get(key) else {
            return Err(Error::Argument(format!(
                "{}: `{key}` is required ({want})",
                self.tool
            )));
        };
        let x = v.as_f64().ok_or_else(|| self.bad(key, &want, v))?;
        if !(min..=max).contains(&x) {
            return Err(Error::Argument(format!(
                "{}: `{key}` must be {want}, got {x}",
                self.tool
            )));
        }
        Ok(x)
    }

    /// An optional boolean.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.bad(key, "true or false", v)),
        }
    }

    /// An optional non-empty list of non-blank strings.
    pub fn opt_strs(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let want = "a non-empty array of node ids";
        let Value::Array(items) = v else {
            return Err(self.bad(key, want, v));
        };
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            match it {
                Value::String(s) if !s.trim().is_empty() => out.push(s.clone()),
                other => return Err(self.bad(key, want, other)),
            }
        }
        if out.is_empty() {
            return Err(Error::Argument(format!(
                "{}: `{key}` must be {want}",
                self.tool
            )));
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn messages_name_the_argument_and_the_expectation() {
        let m = map(json!({"query": "", "top_k": 0, "outcome": "bad"}));
        let a = Args::new("query", &m, &["query", "top_k", "outcome"]).unwrap();
        assert_eq!(
            a.text("query").unwrap_err().to_string(),
            "query: `query` must not be empty"
        );
        assert_eq!(
            a.opt_int("top_k", 1, 50).unwrap_err().to_string(),
            "query: `top_k` must be an integer from 1 to 50, got 0"
        );
        assert_eq!(
            a.number("outcome", -1.0, 1.0).unwrap_err().to_string(),
            "query: `outcome` must be a number from -1 to 1, got a string"
        );
        let m = map(json!({"qurey": "x"}));
        let e = Args::new("query", &m, &["query"])
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e, "query: unknown argument `qurey` (expected: query)");
    }

    #[test]
    fn lists_and_numbers() {
        let m = map(json!({"ids": ["a", " "], "x": 1.5, "n": 3.0}));
        let a = Args::new("t", &m, &["ids", "x", "n"]).unwrap();
        assert!(a.opt_strs("ids").is_err());
        assert_eq!(a.number("x", -2.0, 2.0).unwrap(), 1.5);
        assert!(a.number("x", -1.0, 1.0).is_err());
        assert_eq!(a.opt_int("n", 0, 9).unwrap(), Some(3));
        assert_eq!(a.opt_bool("missing").unwrap(), None);
    }
}
