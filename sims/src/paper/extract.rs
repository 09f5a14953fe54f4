//! Small formatters that read one value out of a result document and print it the way
//! the tables show it. All return `None` when a field is missing, never panic.

use serde_json::Value;

use crate::data::{num, Doc};

/// A value extractor: document → formatted cell.
pub type Extract = Box<dyn Fn(&Doc) -> Option<String> + Send + Sync>;

/// Number with `prec` decimals.
pub fn fixed(d: &Doc, ptr: &str, prec: usize) -> Option<String> {
    d.opt(ptr).and_then(num).map(|v| format!("{v:.prec$}"))
}

/// Number with an explicit sign and `prec` decimals.
pub fn signed(d: &Doc, ptr: &str, prec: usize) -> Option<String> {
    d.opt(ptr).and_then(num).map(|v| format!("{v:+.prec$}"))
}

/// Share as a percentage with `prec` decimals (`0.9333` → `93.3 %`).
pub fn pct(d: &Doc, ptr: &str, prec: usize) -> Option<String> {
    d.opt(ptr).and_then(num).map(|v| pct_of(v, prec))
}

/// `v` as a percentage.
pub fn pct_of(v: f64, prec: usize) -> String {
    format!("{:.prec$} %", v * 100.0)
}

/// Integer (rounded).
pub fn int(d: &Doc, ptr: &str) -> Option<String> {
    d.opt(ptr)
        .and_then(num)
        .map(|v| thousands(v.round() as i64))
}

/// `Yes` / `No` for a boolean.
pub fn yes_no(d: &Doc, ptr: &str) -> Option<String> {
    d.opt(ptr)
        .and_then(Value::as_bool)
        .map(|b| if b { "Yes" } else { "No" }.to_string())
}

/// Integer with `,` thousands separators (`108534` → `108,534`).
pub fn thousands(v: i64) -> String {
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
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
pub fn find<'a>(d: &'a Doc, arr: &str, key: &str, value: f64) -> Option<&'a Value> {
    d.opt(arr)?
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
pub fn sum(d: &Doc, ptr: &str) -> Option<f64> {
    d.opt(ptr)?.as_array()?.iter().map(num).sum()
}

/// The object values at `ptr`, in key order, each with `prec` decimals, `, `-joined.
pub fn object_values(d: &Doc, ptr: &str, prec: usize) -> Option<String> {
    let o = d.opt(ptr)?.as_object()?;
    let v: Option<Vec<String>> = o
        .values()
        .map(|v| num(v).map(|x| format!("{x:.prec$}")))
        .collect();
    v.map(|v| v.join(", "))
}

/// A corrected-profile claim in one line: `value (comparison threshold): met`.
pub fn claim(d: &Doc) -> Option<String> {
    let c = d.opt("/claim")?;
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
pub fn seed_stats(d: &Doc, name: &str) -> Option<(f64, f64, f64)> {
    let m = d.opt(&format!(
        "/multi_seed/metrics/{}",
        crate::data::pointer_segment(name)
    ))?;
    Some((
        m.get("mean").and_then(num)?,
        m.get("ci95_low").and_then(num)?,
        m.get("ci95_high").and_then(num)?,
    ))
}

/// `mean [low, high]` of multi-seed metric `name`, each with `prec` decimals, all
/// multiplied by `scale` (a positive factor).
pub fn mean_ci_scaled(d: &Doc, name: &str, prec: usize, scale: f64) -> Option<String> {
    let (m, lo, hi) = seed_stats(d, name)?;
    let (m, lo, hi) = (m * scale, lo * scale, hi * scale);
    Some(format!("{m:.prec$} [{lo:.prec$}, {hi:.prec$}]"))
}

/// `mean [low, high]` of multi-seed metric `name` with `prec` decimals.
pub fn mean_ci(d: &Doc, name: &str, prec: usize) -> Option<String> {
    mean_ci_scaled(d, name, prec, 1.0)
}

/// The multi-seed metric whose pointer is the claim's value, as `(mean, low, high)`.
pub fn claim_stats(d: &Doc) -> Option<(f64, f64, f64)> {
    let metrics = d.opt("/multi_seed/metrics")?.as_object()?;
    let (name, _) = metrics
        .iter()
        .find(|(_, m)| m.get("pointer").and_then(Value::as_str) == Some("/claim/value"))?;
    seed_stats(d, name)
}

/// How many seeds the claim holds in, and of how many: `(k, n)`.
pub fn claim_seeds(d: &Doc) -> Option<(usize, usize)> {
    let v = d.opt("/multi_seed/claim_verdicts")?.as_array()?;
    let k = v.iter().filter(|x| x.as_str() == Some("PASS")).count();
    Some((k, v.len()))
}

/// Number of seeds of a multi-seed document and the seed of the document itself.
pub fn seed_count(d: &Doc) -> Option<(usize, i64)> {
    let n = d.opt("/multi_seed/seeds")?.as_array()?.len();
    let s = d
        .opt("/multi_seed/document_seed")
        .or_else(|| d.opt("/seed"))
        .and_then(Value::as_i64)
        .unwrap_or(42);
    Some((n, s))
}

/// Up to 4 significant decimals, scientific below 1e-3.
pub fn compact(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-3 {
        format!("{v:.2e}")
    } else {
        crate::plot::tick((v * 1e4).round() / 1e4)
    }
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
        let d = Doc::new(
            "x",
            json!({"a": 0.9333333, "b": true, "l": [{"q": 1, "v": 2}, {"q": 25, "v": 3}],
            "claim": {"value": 0.5, "comparison": ">=", "threshold": 0.9, "met": false}}),
        );
        assert_eq!(pct(&d, "/a", 1).as_deref(), Some("93.3 %"));
        assert_eq!(yes_no(&d, "/b").as_deref(), Some("Yes"));
        assert_eq!(
            find(&d, "/l", "q", 25.0).and_then(|e| inner(e, "/v")),
            Some(3.0)
        );
        assert_eq!(claim(&d).as_deref(), Some("0.5 (>= 0.9): does not hold"));
        assert_eq!(fixed(&d, "/missing", 2), None);
        let m = Doc::new(
            "m",
            json!({"claim": {"value": 0.0}, "multi_seed": {"seeds": [42, 43, 44], "document_seed": 42,
                "claim_verdicts": ["PASS", "FAIL", "PASS"],
                "metrics": {"x": {"pointer": "/claim/value", "mean": 0.25, "ci95_low": 0.1, "ci95_high": 0.4}}}}),
        );
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
            signed(&Doc::new("y", json!({"m": -0.28401})), "/m", 4).as_deref(),
            Some("-0.2840")
        );
    }
}
