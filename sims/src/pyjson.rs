//! Python `json.dumps(value, indent=2)` output, byte for byte (how every reference
//! script `sims/*.py` writes its result file).
//!
//! The reference writes every result file with `json.dumps(..., indent=2)` and no
//! trailing newline. To let a reviewer `diff` our paper-profile files against the
//! reference files, this writer reproduces that format exactly:
//!
//! * two-space indentation, items separated by `",\n"`, keys by `": "`; empty arrays and
//!   objects print as `[]` / `{}`;
//! * integers as integers; floats as Python `repr(float)`: the shortest round-trip
//!   digits, fixed notation when the decimal exponent `e` satisfies `-4 <= e < 16`
//!   (always with a fractional part: `1.0`), scientific otherwise with a signed,
//!   at-least-two-digit exponent (`1e-05`, `1.6132928326584306e-16`, `1e+16`);
//! * strings with `ensure_ascii=True`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, every
//!   other character outside `' '..='~'` as `\uXXXX` (lowercase hex, UTF-16 surrogate
//!   pairs above U+FFFF);
//! * object keys in the order of the `serde_json::Map` (the workspace enables
//!   `preserve_order`, so that is construction / file order).
//!
//! `serde_json::Value` cannot hold NaN or infinities, so Python's `NaN`/`Infinity`
//! tokens never occur.

use serde_json::{Number, Value};

/// Serializes `value` as Python's `json.dumps(value, indent=2)` would (no trailing
/// newline, like the reference files).
pub fn to_string(value: &Value) -> String {
    let mut out = String::with_capacity(4096);
    write_value(&mut out, value, 0);
    out
}

fn indent(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_value(out, item, level + 1);
            }
            indent(out, level);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_str(out, k);
                out.push_str(": ");
                write_value(out, v, level + 1);
            }
            indent(out, level);
            out.push('}');
        }
    }
}

/// A JSON number as Python prints it: integers verbatim, floats via [`py_float_repr`].
pub fn number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        py_float_repr(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Python's `repr(float)` (`float_repr_style = 'short'`).
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` prints the shortest round-trip digits, like Python's repr.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    }
    out
}

/// Writes a JSON string literal with Python's `ensure_ascii=True` escaping.
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_repr_matches_python() {
        // Expected strings are CPython 3.11 `repr(float)`.
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-0.94, "-0.94"),
            (0.7750000000000001, "0.7750000000000001"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (0.00012345, "0.00012345"),
            (1.6132928326584306e-16, "1.6132928326584306e-16"),
            (1e16, "1e+16"),
            (1.234e17, "1.234e+17"),
            (1e15, "1000000000000000.0"),
            (123456789012345.6, "123456789012345.6"),
            (71.19999999999993, "71.19999999999993"),
            (-28.401252246335897, "-28.401252246335897"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (100.0, "100.0"),
        ];
        for &(f, want) in cases {
            assert_eq!(py_float_repr(f), want, "{f:?}");
        }
    }

    #[test]
    fn indent_format() {
        let v = json!({"a": 1, "b": [1.0, "x"], "c": {}, "d": [], "e": {"f": null, "g": true}});
        let want = "{\n  \"a\": 1,\n  \"b\": [\n    1.0,\n    \"x\"\n  ],\n  \"c\": {},\n  \"d\": [],\n  \"e\": {\n    \"f\": null,\n    \"g\": true\n  }\n}";
        assert_eq!(to_string(&v), want);
        assert_eq!(to_string(&json!(3)), "3");
        assert_eq!(to_string(&json!(-7)), "-7");
    }

    #[test]
    fn ensure_ascii_escapes() {
        // CPython 3.11: json.dumps("a\"b\\\n\t\x08\x0c\x01\x7fé→😀")
        let v = json!("a\"b\\\n\t\u{8}\u{c}\u{1}\u{7f}é→😀");
        assert_eq!(
            to_string(&v),
            r#""a\"b\\\n\t\b\f\u0001\u007f\u00e9\u2192\ud83d\ude00""#
        );
    }
}
