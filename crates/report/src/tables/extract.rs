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
        assert_eq!(
            signed(&Doc::new("y", json!({"m": -0.28401})), "/m", 4).as_deref(),
            Some("-0.2840")
        );
    }
}
