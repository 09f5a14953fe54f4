//! Small formatters that read one value out of a result document and print it the way
//! the tables show it. All return `None` when a field is missing or `null`, never panic.

use serde_json::Value;

/// A JSON number (or boolean as 0/1) as `f64`.
pub fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// The value at a JSON pointer if present and not `null`.
pub fn opt<'a>(d: &'a Value, ptr: &str) -> Option<&'a Value> {
    d.pointer(ptr).filter(|v| !v.is_null())
}

/// Escapes `~` and `/` for use inside a JSON pointer segment.
pub fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Number with `prec` decimals.
pub fn fixed(d: &Value, ptr: &str, prec: usize) -> Option<String> {
    opt(d, ptr).and_then(num).map(|v| format!("{v:.prec$}"))
}

/// Number with an explicit sign and `prec` decimals.
pub fn signed(d: &Value, ptr: &str, prec: usize) -> Option<String> {
    opt(d, ptr).and_then(num).map(|v| format!("{v:+.prec$}"))
}

/// Share as a percentage with `prec` decimals (`0.9333` → `93.3 %`).
pub fn pct(d: &Value, ptr: &str, prec: usize) -> Option<String> {
    opt(d, ptr).and_then(num).map(|v| pct_of(v, prec))
}

/// `v` as a percentage.
pub fn pct_of(v: f64, prec: usize) -> String {
    format!("{:.prec$} %", v * 100.0)
}

/// Integer (rounded).
pub fn int(d: &Value, ptr: &str) -> Option<String> {
    opt(d, ptr)
        .and_then(num)
        .map(|v| thousands(v.round() as i64))
}

/// `Yes` / `No` for a boolean.
pub fn yes_no(d: &Value, ptr: &str) -> Option<String> {
    opt(d, ptr)
        .and_then(Value::as_bool)
        .map(|b| if b { "Yes" } else { "No" }.to_string())
}

/// Integer with `,` thousands separators (`108534` → `108,534`).
pub fn thousands(v: i64) -> String {
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// The element of the array at `arr` whose `key` equals `value`.
pub fn find<'a>(d: &'a Value, arr: &str, key: &str, value: f64) -> Option<&'a Value> {
    opt(d, arr)?
        .as_array()?
        .iter()
        .find(|e| e.get(key).and_then(num) == Some(value))
}

/// A number inside a JSON value by pointer.
pub fn inner(v: &Value, ptr: &str) -> Option<f64> {
    v.pointer(ptr).and_then(num)
}

/// Joins the parts with `sep` if every part is present.
pub fn join(parts: Vec<Option<String>>, sep: &str) -> Option<String> {
    let parts: Option<Vec<String>> = parts.into_iter().collect();
    parts.map(|p| p.join(sep))
}

/// Sum of a numeric array.
pub fn sum(d: &Value, ptr: &str) -> Option<f64> {
    opt(d, ptr)?.as_array()?.iter().map(num).sum()
}

/// The object values at `ptr`, in key order, each with `prec` decimals, `, `-joined.
pub fn object_values(d: &Value, ptr: &str, prec: usize) -> Option<String> {
    let o = opt(d, ptr)?.as_object()?;
    let v: Option<Vec<String>> = o
        .values()
        .map(|v| num(v).map(|x| format!("{x:.prec$}")))
        .collect();
    v.map(|v| v.join(", "))
}

/// A corrected-profile claim in one line: `value (comparison threshold): met`.
pub fn claim(d: &Value) -> Option<String> {
    let c = opt(d, "/claim")?;
    let met = c.get("met").and_then(Value::as_bool)?;
    let verdict = if met { "holds" } else { "does not hold" };
    match (
        c.get("value").and_then(num),
        c.get("comparison"),
        c.get("threshold"),
    ) {
        (Some(v), Some(Value::String(cmp)), Some(t)) => Some(format!(
            "{} ({cmp} {}): {verdict}",
            compact(v),
            num(t).map_or_else(|| t.to_string(), compact)
        )),
        _ => Some(verdict.to_string()),
    }
}

/// Mean and 95 % interval of multi-seed metric `name` (`multi_seed.metrics.<name>`).
pub fn seed_stats(d: &Value, name: &str) -> Option<(f64, f64, f64)> {
    let m = opt(d, &format!("/multi_seed/metrics/{}", pointer_segment(name)))?;
    Some((
        m.get("mean").and_then(num)?,
        m.get("ci95_low").and_then(num)?,
        m.get("ci95_high").and_then(num)?,
    ))
}

/// `mean [low, high]` of multi-seed metric `name`, each with `prec` decimals, all
/// multiplied by `scale` (a positive factor).
pub fn mean_ci_scaled(d: &Value, name: &str, prec: usize, scale: f64) -> Option<String> {
    let (m, lo, hi) = seed_stats(d, name)?;
    let (m, lo, hi) = (m * scale, lo * scale, hi * scale);
    Some(format!("{m:.prec$} [{lo:.prec$}, {hi:.prec$}]"))
}

/// `mean [low, high]` of multi-seed metric `name` with `prec` decimals.
pub fn mean_ci(d: &Value, name: &str, prec: usize) -> Option<String> {
    mean_ci_scaled(d, name, prec, 1.0)
}

/// The multi-seed metric whose pointer is the claim's value, as `(mean, low, high)`.
pub fn claim_stats(d: &Value) -> Option<(f64, f64, f64)> {
    let metrics = opt(d, "/multi_seed/metrics")?.as_object()?;
    let (name, _) = metrics
        .iter()
        .find(|(_, m)| m.get("pointer").and_then(Value::as_str) == Some("/claim/value"))?;
    seed_stats(d, name)
}

/// How many seeds the claim holds in, and of how many: `(k, n)`.
pub fn claim_seeds(d: &Value) -> Option<(usize, usize)> {
    let v = opt(d, "/multi_seed/claim_verdicts")?.as_array()?;
    let k = v.iter().filter(|x| x.as_str() == Some("PASS")).count();
    Some((k, v.len()))
}

/// Number of seeds of a multi-seed document and the seed of the document itself.
pub fn seed_count(d: &Value) -> Option<(usize, i64)> {
    let n = opt(d, "/multi_seed/seeds")?.as_array()?.len();
    let s = opt(d, "/multi_seed/document_seed")
        .or_else(|| opt(d, "/seed"))
        .and_then(Value::as_i64)
        .unwrap_or(42);
    Some((n, s))
}

/// Up to 4 significant decimals, scientific below 1e-3.
pub fn compact(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-3 {
        format!("{v:.2e}")
    } else {
        tick((v * 1e4).round() / 1e4)
    }
}

/// A tick label: integers without decimals, otherwise up to 4 significant
/// decimals with trailing zeros removed.
pub fn tick(v: f64) -> String {
    if v.abs() < 1e-12 {
        return "0".into();
    }
    if (v - v.round()).abs() < 1e-9 {
        return format!("{}", v.round() as i64);
    }
    let mut s = format!("{v:.4}");
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats() {
        assert_eq!(thousands(108534), "108,534");
        assert_eq!(thousands(-1815), "-1,815");
        assert_eq!(thousands(24), "24");
        let d = json!({"a": 0.9333333, "b": true, "l": [{"q": 1, "v": 2}, {"q": 25, "v": 3}],
            "claim": {"value": 0.5, "comparison": ">=", "threshold": 0.9, "met": false}});
        assert_eq!(pct(&d, "/a", 1).as_deref(), Some("93.3 %"));
        assert_eq!(yes_no(&d, "/b").as_deref(), Some("Yes"));
        assert_eq!(
            find(&d, "/l", "q", 25.0).and_then(|e| inner(e, "/v")),
            Some(3.0)
        );
        assert_eq!(claim(&d).as_deref(), Some("0.5 (>= 0.9): does not hold"));
        assert_eq!(fixed(&d, "/missing", 2), None);
        let m = json!({"claim": {"value": 0.0}, "multi_seed": {"seeds": [42, 43, 44], "document_seed": 42,
                "claim_verdicts": ["PASS", "FAIL", "PASS"],
                "metrics": {"x": {"pointer": "/claim/value", "mean": 0.25, "ci95_low": 0.1, "ci95_high": 0.4}}}});
        assert_eq!(mean_ci(&m, "x", 2).as_deref(), Some("0.25 [0.10, 0.40]"));
        assert_eq!(
            mean_ci_scaled(&m, "x", 1, 10.0).as_deref(),
            Some("2.5 [1.0, 4.0]")
        );
        assert_eq!(claim_stats(&m), Some((0.25, 0.1, 0.4)));
        assert_eq!(claim_seeds(&m), Some((2, 3)));
        assert_eq!(seed_count(&m), Some((3, 42)));
        assert_eq!(mean_ci(&d, "x", 2), None);
        assert_eq!(
            signed(&json!({"m": -0.28401}), "/m", 4).as_deref(),
            Some("-0.2840")
        );
    }
}
