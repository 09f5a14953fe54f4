//! Python's `json` module, byte for byte: the writer of `json.dumps` and the parser of
//! `json.loads` (CPython 3.11), so that files and outputs of the reference program can be
//! reproduced and read exactly.
//!
//! Every file the reference writes (`state.json`, `graph.json`, `index.json`,
//! `texts.json`, the journal, the simulations' results) comes from `json.dumps`. This
//! module reproduces that format:
//!
//! * [`Style::PRETTY`] = `json.dumps(x, indent=2)`: newline plus two spaces per level,
//!   items separated by `","` at line end, keys by `": "`; empty arrays and objects
//!   print as `[]` / `{}`; no trailing newline.
//! * [`Style::COMPACT`] = `json.dumps(x)`: one line, separators `", "` and `": "`.
//! * `ensure_ascii=True` (the default of both styles): `\"`, `\\`, `\n`, `\r`, `\t`,
//!   `\b`, `\f`, and every other character outside `' '..='~'` as `\uXXXX` (lowercase hex,
//!   UTF-16 surrogate pairs above U+FFFF), so the output is pure ASCII.
//!   [`Style::ensure_ascii`]`(false)` escapes only `"`, `\` and the C0 controls.
//! * floats as Python `repr(float)` ([`push_float_repr`]): the shortest round-trip digits,
//!   fixed notation when the decimal exponent `e` satisfies `-4 <= e < 16` (always with a
//!   fractional part: `1.0`), scientific otherwise with a signed, at-least-two-digit
//!   exponent (`1e-05`, `1e+16`); NaN and infinities as `NaN`, `Infinity`, `-Infinity`
//!   (Python emits them although they are not JSON).
//! * object keys in the order the value gives them (`serde_json::Map` keeps insertion
//!   order in this workspace, like a Python `dict`).
//!
//! Any `serde::Serialize` value can be written ([`to_string_with`]); [`to_string`] is the
//! infallible shortcut for a `serde_json::Value`.
//!
//! [`loads`] parses text with `json.loads` semantics into a [`PyValue`]: `NaN`,
//! `Infinity`, `-Infinity` accepted; integers kept exactly (any length up to CPython
//! 3.11's 4300-digit limit); duplicate keys keep their first position and their last
//! value; only `' '`, `\t`, `\n`, `\r` count as whitespace; a leading byte-order mark is
//! an error; errors carry Python's message and its `line L column C (char P)` position
//! (character offsets). Python `str` can hold lone UTF-16 surrogates (`"\ud800"`) and
//! Rust strings cannot: [`loads`] rejects them ([`LoadsErrorKind::LoneSurrogate`]),
//! [`loads_lossy`] replaces each by U+FFFD.
//!
//! Cost: writing and parsing are linear in the size of the document.

use std::fmt::{self, Write as _};

use indexmap::IndexMap;
use serde::ser::{self, Serialize};
use serde_json::{Number, Value};

use crate::error::{Error, Result};

// ===== writer ==================================================================

/// Output layout of [`to_string_with`]: Python's `indent` and `ensure_ascii` arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// `Some(n)`: `indent=n` (newlines, `","` item separator); `None`: one line with
    /// `", "` and `": "`.
    pub indent: Option<usize>,
    /// Escape every character outside `' '..='~'` (Python's default).
    pub ensure_ascii: bool,
}

impl Style {
    /// `json.dumps(x, indent=2)` — every file the reference writes.
    pub const PRETTY: Style = Style {
        indent: Some(2),
        ensure_ascii: true,
    };
    /// `json.dumps(x)` — journal lines and one-line `--json` outputs.
    pub const COMPACT: Style = Style {
        indent: None,
        ensure_ascii: true,
    };

    /// The same style with `ensure_ascii` set.
    pub const fn ensure_ascii(self, on: bool) -> Style {
        Style {
            indent: self.indent,
            ensure_ascii: on,
        }
    }
}

/// `json.dumps(value, indent=2)` of a JSON value (no trailing newline).
pub fn to_string(value: &Value) -> String {
    let mut w = Writer::new(Style::PRETTY);
    // a `Value` has string keys and finite numbers: serialization cannot fail
    let _ = value.serialize(&mut w);
    w.out
}

/// `json.dumps(value, indent=..., ensure_ascii=...)` of any serializable value.
///
/// Errors (`Error::Serialize`) only for map keys Python could not write either (arrays,
/// objects) or a value's own `Serialize` failure.
pub fn to_string_with<T: Serialize + ?Sized>(value: &T, style: Style) -> Result<String> {
    let mut w = Writer::new(style);
    value.serialize(&mut w).map_err(|e| Error::Serialize(e.0))?;
    Ok(w.out)
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

/// Python's `repr(float)` (`float_repr_style = 'short'`), with `json.dumps`'s spelling
/// of the non-finite values (`NaN`, `Infinity`, `-Infinity`).
pub fn py_float_repr(f: f64) -> String {
    let mut s = String::new();
    push_float_repr(&mut s, f);
    s
}

/// Appends [`py_float_repr`]`(f)` to `out` without allocating.
pub fn push_float_repr(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // The shortest round-trip digits (as Python's repr) from `ryu`, normalised to
    // (digits, decimal exponent of the first digit).
    let mut rb = ryu::Buffer::new();
    let text = rb.format_finite(f.abs());
    let (mantissa, exp_part) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits = [0u8; 32];
    let mut n = 0;
    let exp;
    let int_trim = int_part.trim_start_matches('0');
    if !int_trim.is_empty() {
        exp = exp_part + int_trim.len() as i32 - 1;
        for b in int_trim.bytes().chain(frac_part.bytes()) {
            if n < digits.len() {
                digits[n] = b;
                n += 1;
            }
        }
    } else {
        let zeros = frac_part.len() - frac_part.trim_start_matches('0').len();
        exp = exp_part - zeros as i32 - 1;
        for b in frac_part[zeros..].bytes() {
            if n < digits.len() {
                digits[n] = b;
                n += 1;
            }
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = std::str::from_utf8(&digits[..n]).unwrap_or("0");
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
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        let _ = write!(out, "{e}");
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
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
        out.push_str(digits);
    }
}

/// Appends a JSON string literal with Python's escaping rules.
pub fn push_str_literal(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let plain = if ensure_ascii {
            (' '..='~').contains(&c) && c != '"' && c != '\\'
        } else {
            c >= ' ' && c != '"' && c != '\\'
        };
        if plain {
            continue;
        }
        out.push_str(&s[start..i]);
        start = i + c.len_utf8();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Serialization error (a message).
#[derive(Debug)]
pub struct SerError(String);

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerError(msg.to_string())
    }
}

/// Name of the newtype struct through which [`PyInt`] hands its exact digits to the
/// writer (the same device `serde_json` uses for arbitrary-precision numbers).
const RAW_TOKEN: &str = "$crabpath::pyjson::RawNumber";

/// The `json.dumps` serializer. Use [`to_string_with`].
struct Writer {
    out: String,
    style: Style,
    level: usize,
}

impl Writer {
    fn new(style: Style) -> Self {
        Writer {
            out: String::with_capacity(4096),
            style,
            level: 0,
        }
    }

    fn newline(&mut self) {
        if let Some(n) = self.style.indent {
            self.out.push('\n');
            for _ in 0..n * self.level {
                self.out.push(' ');
            }
        }
    }

    fn item_separator(&mut self) {
        self.out.push_str(if self.style.indent.is_some() {
            ","
        } else {
            ", "
        });
    }

    fn open(&mut self, c: char) {
        self.out.push(c);
        self.level += 1;
    }

    fn close(&mut self, c: char, had_items: bool) {
        self.level -= 1;
        if had_items {
            self.newline();
        }
        self.out.push(c);
    }

    fn str(&mut self, s: &str) {
        push_str_literal(&mut self.out, s, self.style.ensure_ascii);
    }
}

/// Opens an array (`'['`) or object (`'{'`), inside `{"variant": ...}` for enum
/// variants.
fn begin<'a>(w: &'a mut Writer, c: char, variant: Option<&str>) -> Compound<'a> {
    if let Some(v) = variant {
        w.open('{');
        w.newline();
        w.str(v);
        w.out.push_str(": ");
    }
    w.open(c);
    Compound {
        w,
        first: true,
        variant: variant.is_some(),
    }
}

/// An array or object being written.
struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    /// For struct/tuple variants: the outer `{"variant": ...}` to close as well.
    variant: bool,
}

impl Compound<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> std::result::Result<(), SerError> {
        if !self.first {
            self.w.item_separator();
        }
        self.first = false;
        self.w.newline();
        value.serialize(&mut *self.w)
    }

    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> std::result::Result<(), SerError> {
        if !self.first {
            self.w.item_separator();
        }
        self.first = false;
        self.w.newline();
        let k = key.serialize(KeySerializer)?;
        self.w.str(&k);
        self.w.out.push_str(": ");
        Ok(())
    }

    fn finish(self, c: char) -> std::result::Result<(), SerError> {
        self.w.close(c, !self.first);
        if self.variant {
            self.w.close('}', true);
        }
        Ok(())
    }
}

/// Integers print in decimal.
macro_rules! writer_ints {
    ($($m:ident: $t:ty),*) => {$(
        fn $m(self, v: $t) -> std::result::Result<(), SerError> {
            let _ = write!(self.out, "{v}");
            Ok(())
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> std::result::Result<(), SerError> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    writer_ints!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128
    );
    fn serialize_f32(self, v: f32) -> std::result::Result<(), SerError> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> std::result::Result<(), SerError> {
        push_float_repr(&mut self.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> std::result::Result<(), SerError> {
        self.str(v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> std::result::Result<(), SerError> {
        self.str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> std::result::Result<(), SerError> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> std::result::Result<(), SerError> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> std::result::Result<(), SerError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> std::result::Result<(), SerError> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<(), SerError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> std::result::Result<(), SerError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        if name == RAW_TOKEN {
            let raw = value.serialize(KeySerializer)?;
            self.out.push_str(&raw);
            return Ok(());
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        use ser::SerializeMap;
        let mut map = self.serialize_map(Some(1))?;
        map.serialize_entry(variant, value)?;
        map.end()
    }
    fn serialize_seq(self, _: Option<usize>) -> std::result::Result<Compound<'a>, SerError> {
        Ok(begin(self, '[', None))
    }
    fn serialize_tuple(self, len: usize) -> std::result::Result<Compound<'a>, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> std::result::Result<Compound<'a>, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> std::result::Result<Compound<'a>, SerError> {
        Ok(begin(self, '[', Some(variant)))
    }
    fn serialize_map(self, _: Option<usize>) -> std::result::Result<Compound<'a>, SerError> {
        Ok(begin(self, '{', None))
    }
    fn serialize_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> std::result::Result<Compound<'a>, SerError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> std::result::Result<Compound<'a>, SerError> {
        Ok(begin(self, '{', Some(variant)))
    }
}

/// The array-like `Serialize*` traits: each element is a list item.
macro_rules! seq_impls {
    ($($tr:ident :: $m:ident),*) => {$(
        impl ser::$tr for Compound<'_> {
            type Ok = ();
            type Error = SerError;
            fn $m<T: Serialize + ?Sized>(&mut self, v: &T) -> std::result::Result<(), SerError> {
                self.element(v)
            }
            fn end(self) -> std::result::Result<(), SerError> {
                self.finish(']')
            }
        }
    )*};
}

seq_impls!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The struct-like `Serialize*` traits: each field is a key and its value.
macro_rules! struct_impls {
    ($($tr:ident),*) => {$(
        impl ser::$tr for Compound<'_> {
            type Ok = ();
            type Error = SerError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> std::result::Result<(), SerError> {
                self.key(key)?;
                v.serialize(&mut *self.w)
            }
            fn end(self) -> std::result::Result<(), SerError> {
                self.finish('}')
            }
        }
    )*};
}

struct_impls!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> std::result::Result<(), SerError> {
        self.key(k)
    }
    fn serialize_value<T: Serialize + ?Sized>(
        &mut self,
        v: &T,
    ) -> std::result::Result<(), SerError> {
        v.serialize(&mut *self.w)
    }
    fn end(self) -> std::result::Result<(), SerError> {
        self.finish('}')
    }
}

/// Turns a map key (or a raw number) into its text, the way `json.dumps` converts
/// dict keys: strings as they are, integers and floats as printed, `True` → `true`,
/// `None` → `null`.
struct KeySerializer;

fn key_error<T>() -> std::result::Result<T, SerError> {
    Err(SerError(
        "keys must be str, int, float, bool or None".to_string(),
    ))
}

/// Integer keys print as `str(int)`.
macro_rules! key_ints {
    ($($m:ident: $t:ty),*) => {$(
        fn $m(self, v: $t) -> std::result::Result<String, SerError> {
            Ok(v.to_string())
        }
    )*};
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = SerError;
    type SerializeSeq = ser::Impossible<String, SerError>;
    type SerializeTuple = ser::Impossible<String, SerError>;
    type SerializeTupleStruct = ser::Impossible<String, SerError>;
    type SerializeTupleVariant = ser::Impossible<String, SerError>;
    type SerializeMap = ser::Impossible<String, SerError>;
    type SerializeStruct = ser::Impossible<String, SerError>;
    type SerializeStructVariant = ser::Impossible<String, SerError>;

    fn serialize_bool(self, v: bool) -> std::result::Result<String, SerError> {
        Ok(if v { "true" } else { "false" }.to_string())
    }
    key_ints!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128
    );
    fn serialize_f32(self, v: f32) -> std::result::Result<String, SerError> {
        Ok(py_float_repr(v.into()))
    }
    fn serialize_f64(self, v: f64) -> std::result::Result<String, SerError> {
        Ok(py_float_repr(v))
    }
    fn serialize_char(self, v: char) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> std::result::Result<String, SerError> {
        key_error()
    }
    fn serialize_none(self) -> std::result::Result<String, SerError> {
        Ok("null".to_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> std::result::Result<String, SerError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> std::result::Result<String, SerError> {
        Ok("null".to_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<String, SerError> {
        Ok("null".to_string())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> std::result::Result<String, SerError> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> std::result::Result<String, SerError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> std::result::Result<String, SerError> {
        key_error()
    }
    fn serialize_seq(self, _: Option<usize>) -> std::result::Result<Self::SerializeSeq, SerError> {
        key_error()
    }
    fn serialize_tuple(self, _: usize) -> std::result::Result<Self::SerializeTuple, SerError> {
        key_error()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeTupleStruct, SerError> {
        key_error()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeTupleVariant, SerError> {
        key_error()
    }
    fn serialize_map(self, _: Option<usize>) -> std::result::Result<Self::SerializeMap, SerError> {
        key_error()
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeStruct, SerError> {
        key_error()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeStructVariant, SerError> {
        key_error()
    }
}

// ===== values ==================================================================

/// A Python integer read from JSON, kept exactly (canonical decimal digits, `-0` → `0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyInt(String);

impl PyInt {
    /// The decimal digits as Python's `str(int)` prints them.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value if it fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }

    /// Python's `float(int)`: correctly rounded; `None` where Python raises
    /// `OverflowError` (magnitude above `f64::MAX`).
    pub fn to_f64(&self) -> Option<f64> {
        self.0.parse::<f64>().ok().filter(|f| f.is_finite())
    }
}

impl From<i64> for PyInt {
    fn from(v: i64) -> Self {
        PyInt(v.to_string())
    }
}

impl Serialize for PyInt {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.as_i64() {
            Some(v) => s.serialize_i64(v),
            None => s.serialize_newtype_struct(RAW_TOKEN, &self.0),
        }
    }
}

/// A Python `dict` read from JSON: string keys in first-insertion order.
pub type PyDict = IndexMap<String, PyValue>;

/// A value as `json.loads` returns it (Python types).
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// `None`.
    Null,
    /// `bool` (a subclass of `int` in Python: see [`PyValue::as_number`]).
    Bool(bool),
    /// `int`, exact.
    Int(PyInt),
    /// `float`, including NaN and infinities.
    Float(f64),
    /// `str`.
    Str(String),
    /// `list`.
    List(Vec<PyValue>),
    /// `dict`.
    Dict(PyDict),
}

impl PyValue {
    /// The string, if this is a `str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The dict, if this is a `dict`.
    pub fn as_dict(&self) -> Option<&PyDict> {
        match self {
            PyValue::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The list, if this is a `list`.
    pub fn as_list(&self) -> Option<&[PyValue]> {
        match self {
            PyValue::List(l) => Some(l),
            _ => None,
        }
    }

    /// `float(x)` for the values with `isinstance(x, (int, float))` — integers, floats
    /// and, as in Python, booleans. `None` for other types and for integers too large
    /// for a float (Python raises `OverflowError` there).
    pub fn as_number(&self) -> Option<f64> {
        match self {
            PyValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            PyValue::Int(i) => i.to_f64(),
            PyValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Whether Python can hash the value (everything but `list` and `dict`); `x in
    /// {set}` raises `TypeError` for unhashable values.
    pub fn is_hashable(&self) -> bool {
        !matches!(self, PyValue::List(_) | PyValue::Dict(_))
    }

    /// The equivalent `serde_json::Value`, or `None` if it holds a non-finite float.
    /// Integers beyond `u64`/`i64` become floats (as `serde_json` reads them).
    pub fn to_json(&self) -> Option<Value> {
        Some(match self {
            PyValue::Null => Value::Null,
            PyValue::Bool(b) => Value::Bool(*b),
            PyValue::Int(i) => match (i.as_i64(), i.0.parse::<u64>()) {
                (Some(v), _) => Value::from(v),
                (None, Ok(v)) => Value::from(v),
                _ => Value::from(Number::from_f64(i.to_f64()?)?),
            },
            PyValue::Float(f) => Value::from(Number::from_f64(*f)?),
            PyValue::Str(s) => Value::String(s.clone()),
            PyValue::List(l) => {
                Value::Array(l.iter().map(PyValue::to_json).collect::<Option<_>>()?)
            }
            PyValue::Dict(d) => Value::Object(
                d.iter()
                    .map(|(k, v)| Some((k.clone(), v.to_json()?)))
                    .collect::<Option<_>>()?,
            ),
        })
    }
}

impl From<&Value> for PyValue {
    fn from(v: &Value) -> Self {
        match v {
            Value::Null => PyValue::Null,
            Value::Bool(b) => PyValue::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => PyValue::Int(i.into()),
                (None, Some(u)) => PyValue::Int(PyInt(u.to_string())),
                _ => PyValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => PyValue::Str(s.clone()),
            Value::Array(a) => PyValue::List(a.iter().map(PyValue::from).collect()),
            Value::Object(o) => PyValue::Dict(
                o.iter()
                    .map(|(k, v)| (k.clone(), PyValue::from(v)))
                    .collect(),
            ),
        }
    }
}

impl Serialize for PyValue {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            PyValue::Null => s.serialize_unit(),
            PyValue::Bool(b) => s.serialize_bool(*b),
            PyValue::Int(i) => i.serialize(s),
            PyValue::Float(f) => s.serialize_f64(*f),
            PyValue::Str(v) => s.serialize_str(v),
            PyValue::List(l) => l.serialize(s),
            PyValue::Dict(d) => {
                use ser::SerializeMap;
                let mut map = s.serialize_map(Some(d.len()))?;
                for (k, v) in d {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

// ===== parser ==================================================================

/// What went wrong in [`loads`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadsErrorKind {
    /// A `json.JSONDecodeError`: the text is not JSON (Python's message in
    /// [`LoadsError::message`]).
    Decode,
    /// An integer of more than 4300 digits: CPython 3.11 raises `ValueError` (not a
    /// `JSONDecodeError`).
    IntTooLong,
    /// Nesting deeper than Python's recursion limit allows (`RecursionError`).
    TooDeep,
    /// A `\uXXXX` escape of a lone UTF-16 surrogate, which a Rust string cannot hold
    /// (Python accepts it). Only from [`loads`]; [`loads_lossy`] substitutes U+FFFD.
    LoneSurrogate,
}

/// A parse failure with Python's message and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadsError {
    /// The kind of failure.
    pub kind: LoadsErrorKind,
    /// Python's message without the position (`Expecting value`, `Extra data`, ...).
    pub message: String,
    /// Character (code point) offset of the error.
    pub pos: usize,
    /// 1-based line of `pos`.
    pub line: usize,
    /// 1-based column of `pos` (in characters).
    pub column: usize,
}

impl fmt::Display for LoadsError {
    /// `Expecting value: line 1 column 1 (char 0)`, as `str(JSONDecodeError)` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: line {} column {} (char {})",
            self.message, self.line, self.column, self.pos
        )
    }
}

impl std::error::Error for LoadsError {}

/// CPython 3.11's `sys.int_info.default_max_str_digits`.
const MAX_INT_DIGITS: usize = 4300;
/// Nesting depth at which Python's C scanner runs out of recursion (limit 1000 minus
/// the frames of the caller; deeper documents raise `RecursionError`).
const MAX_DEPTH: usize = 990;

/// `json.loads(text)` (see the module docs).
///
/// Cost: O(length of `text`).
pub fn loads(text: &str) -> std::result::Result<PyValue, LoadsError> {
    Parser::new(text, false).document()
}

/// [`loads`], but a lone surrogate escape becomes U+FFFD instead of an error.
pub fn loads_lossy(text: &str) -> std::result::Result<PyValue, LoadsError> {
    Parser::new(text, true).document()
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    lossy: bool,
}

type PResult<T> = std::result::Result<T, LoadsError>;

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Parser<'a> {
    fn new(s: &'a str, lossy: bool) -> Self {
        Parser {
            s,
            b: s.as_bytes(),
            lossy,
        }
    }

    fn err(&self, kind: LoadsErrorKind, message: &str, at: usize) -> LoadsError {
        let at = at.min(self.b.len());
        let before = &self.s[..floor_char_boundary(self.s, at)];
        let pos = before.chars().count();
        let line = before.matches('\n').count() + 1;
        let column = match before.rfind('\n') {
            Some(nl) => before[nl + 1..].chars().count() + 1,
            None => pos + 1,
        };
        LoadsError {
            kind,
            message: message.to_string(),
            pos,
            line,
            column,
        }
    }

    fn decode_err(&self, message: &str, at: usize) -> LoadsError {
        self.err(LoadsErrorKind::Decode, message, at)
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while i < self.b.len() && is_ws(self.b[i]) {
            i += 1;
        }
        i
    }

    fn document(&mut self) -> PResult<PyValue> {
        if self.s.starts_with('\u{feff}') {
            return Err(self.decode_err("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
        }
        let start = self.skip_ws(0);
        let (v, end) = self.value(start)?;
        let end = self.skip_ws(end);
        if end != self.b.len() {
            return Err(self.decode_err("Extra data", end));
        }
        Ok(v)
    }

    /// Parses one value at `i` (no leading whitespace skipped); returns it and the
    /// index after it. Iterative (an explicit stack of open containers), so deep
    /// nesting costs heap, not stack; "Expecting value" is reported at the value's index.
    fn value(&mut self, start: usize) -> PResult<(PyValue, usize)> {
        let b = self.b;
        let mut stack: Vec<Frame> = Vec::new();
        let mut i = start;
        loop {
            // one value at `i`: a scalar, an empty container, or the start of a container
            let (mut v, mut end) = match b.get(i) {
                Some(b'{') | Some(b'[') if stack.len() >= MAX_DEPTH => {
                    return Err(self.err(
                        LoadsErrorKind::TooDeep,
                        "maximum recursion depth exceeded while decoding a JSON document",
                        i,
                    ))
                }
                Some(b'{') => {
                    let j = self.skip_ws(i + 1);
                    if b.get(j) == Some(&b'}') {
                        (PyValue::Dict(PyDict::new()), j + 1)
                    } else {
                        let (key, next) = self.key(j)?;
                        stack.push(Frame::Dict(PyDict::new(), key));
                        i = next;
                        continue;
                    }
                }
                Some(b'[') => {
                    let j = self.skip_ws(i + 1);
                    if b.get(j) == Some(&b']') {
                        (PyValue::List(Vec::new()), j + 1)
                    } else {
                        stack.push(Frame::List(Vec::new()));
                        i = j;
                        continue;
                    }
                }
                _ => self.scalar(i)?,
            };
            // attach the finished value to its container, closing containers as needed
            loop {
                let Some(top) = stack.last_mut() else {
                    return Ok((v, end));
                };
                let j = self.skip_ws(end);
                let close = match top {
                    Frame::List(l) => {
                        l.push(v);
                        b']'
                    }
                    Frame::Dict(d, key) => {
                        d.insert(std::mem::take(key), v);
                        b'}'
                    }
                };
                match b.get(j) {
                    Some(&c) if c == close => {
                        v = match stack.pop() {
                            Some(Frame::List(l)) => PyValue::List(l),
                            Some(Frame::Dict(d, _)) => PyValue::Dict(d),
                            None => PyValue::Null,
                        };
                        end = j + 1;
                    }
                    Some(b',') => {
                        let k = self.skip_ws(j + 1);
                        match stack.last_mut() {
                            Some(Frame::Dict(_, key)) => {
                                let (next_key, next) = self.key(k)?;
                                *key = next_key;
                                i = next;
                            }
                            _ => i = k,
                        }
                        break;
                    }
                    _ => return Err(self.decode_err("Expecting ',' delimiter", j)),
                }
            }
        }
    }

    /// An object key at `j` and its `:`; returns the key and the index of its value.
    fn key(&self, j: usize) -> PResult<(String, usize)> {
        if self.b.get(j) != Some(&b'"') {
            return Err(self.decode_err("Expecting property name enclosed in double quotes", j));
        }
        let (key, after) = self.string(j + 1)?;
        let k = self.skip_ws(after);
        if self.b.get(k) != Some(&b':') {
            return Err(self.decode_err("Expecting ':' delimiter", k));
        }
        Ok((key, self.skip_ws(k + 1)))
    }

    /// A value that is not a container.
    fn scalar(&self, i: usize) -> PResult<(PyValue, usize)> {
        let rest = &self.b[i.min(self.b.len())..];
        match rest.first() {
            None => Err(self.decode_err("Expecting value", i)),
            Some(b'"') => {
                let (s, end) = self.string(i + 1)?;
                Ok((PyValue::Str(s), end))
            }
            Some(b'n') if rest.starts_with(b"null") => Ok((PyValue::Null, i + 4)),
            Some(b't') if rest.starts_with(b"true") => Ok((PyValue::Bool(true), i + 4)),
            Some(b'f') if rest.starts_with(b"false") => Ok((PyValue::Bool(false), i + 5)),
            Some(b'N') if rest.starts_with(b"NaN") => Ok((PyValue::Float(f64::NAN), i + 3)),
            Some(b'I') if rest.starts_with(b"Infinity") => {
                Ok((PyValue::Float(f64::INFINITY), i + 8))
            }
            Some(b'-') if rest.starts_with(b"-Infinity") => {
                Ok((PyValue::Float(f64::NEG_INFINITY), i + 9))
            }
            Some(_) => self.number(i),
        }
    }

    fn number(&self, start: usize) -> PResult<(PyValue, usize)> {
        let b = self.b;
        let mut i = start;
        if i < b.len() && b[i] == b'-' {
            i += 1;
        }
        match b.get(i) {
            Some(b'1'..=b'9') => {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            Some(b'0') => i += 1,
            _ => return Err(self.decode_err("Expecting value", start)),
        }
        let mut is_float = false;
        if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            is_float = true;
            i += 2;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let save = i;
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            let digits_start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == digits_start {
                i = save;
            } else {
                is_float = true;
            }
        }
        let text = &self.s[start..i];
        if is_float {
            let f = text.parse::<f64>().unwrap_or(f64::NAN);
            return Ok((PyValue::Float(f), i));
        }
        let (neg, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        if digits.len() > MAX_INT_DIGITS {
            return Err(self.err(
                LoadsErrorKind::IntTooLong,
                "Exceeds the limit (4300 digits) for integer string conversion",
                start,
            ));
        }
        let canonical = if !neg || digits == "0" {
            digits.to_string()
        } else {
            format!("-{digits}")
        };
        Ok((PyValue::Int(PyInt(canonical)), i))
    }

    /// A string whose opening quote is at `i - 1`.
    fn string(&self, i: usize) -> PResult<(String, usize)> {
        let b = self.b;
        let begin = i - 1;
        let mut out = String::new();
        let mut j = i;
        loop {
            let chunk_start = j;
            while j < b.len() && b[j] != b'"' && b[j] != b'\\' && b[j] >= 0x20 {
                j += 1;
            }
            out.push_str(&self.s[chunk_start..j]);
            match b.get(j) {
                None => return Err(self.decode_err("Unterminated string starting at", begin)),
                Some(b'"') => return Ok((out, j + 1)),
                Some(b'\\') => {
                    let Some(&e) = b.get(j + 1) else {
                        return Err(self.decode_err("Unterminated string starting at", begin));
                    };
                    j += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let esc = j - 1;
                            let u = self.hex4(j, esc)?;
                            j += 4;
                            if (0xd800..0xdc00).contains(&u)
                                && b.get(j) == Some(&b'\\')
                                && b.get(j + 1) == Some(&b'u')
                            {
                                let lo = self.hex4(j + 2, j + 1)?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    let c = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                                    out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                                    j += 6;
                                    continue;
                                }
                            }
                            match char::from_u32(u) {
                                Some(c) => out.push(c),
                                None if self.lossy => out.push('\u{fffd}'),
                                None => {
                                    return Err(self.err(
                                        LoadsErrorKind::LoneSurrogate,
                                        "lone surrogate escape (not representable)",
                                        esc - 1,
                                    ))
                                }
                            }
                        }
                        _ => return Err(self.decode_err("Invalid \\escape", j - 2)),
                    }
                }
                Some(_) => return Err(self.decode_err("Invalid control character at", j)),
            }
        }
    }

    /// Four hex digits at `i`; `esc` is the index of the `u` (errors point before it).
    fn hex4(&self, i: usize, esc: usize) -> PResult<u32> {
        let h = self
            .b
            .get(i..i + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.decode_err("Invalid \\uXXXX escape", esc))?;
        let text = std::str::from_utf8(h).unwrap_or("0");
        u32::from_str_radix(text, 16).map_err(|_| self.decode_err("Invalid \\uXXXX escape", esc))
    }
}

/// An open container while parsing.
enum Frame {
    List(Vec<PyValue>),
    /// The dict and the key whose value is being parsed.
    Dict(PyDict, String),
}

/// The largest char boundary `<= i`.
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
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
            (9999999999999998.0, "9999999999999998.0"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(f, want) in cases {
            assert_eq!(py_float_repr(f), want, "{f:?}");
        }
    }

    #[test]
    fn float_repr_is_shortest_and_round_trips() {
        // CPython 3.11 `repr(float)` of these bit patterns (where several shortest
        // digit strings round-trip, Python picks the closest to the exact value, as
        // ryu does; Rust's `{:e}` does not always: 1690060720831323.3 for the first)
        let python: &[(u64, &str)] = &[
            (0x43180467b3a7ed6d, "1690060720831323.2"),
            (0x0000000000000001, "5e-324"),
            (0x0010000000000000, "2.2250738585072014e-308"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0x3fd3333333333334, "0.30000000000000004"),
            (0x3fd5555555555555, "0.3333333333333333"),
            (0x4340000000000000, "9007199254740992.0"),
            (0x419d6f34547e6b75, "123456789.12345679"),
            (0x4480f0cf064dd592, "1e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x3f9f07c1f07c1f08, "0.030303030303030304"),
            (0x4341c37937e08000, "1e+16"),
            (0x3ee4f8b588e368f1, "1e-05"),
            (0x3f1a36e2eb1c432d, "0.0001"),
            (0x4341c37937e07fff, "9999999999999998.0"),
            (0x4164d8399f767c45, "10928588.983213553"),
            (0x5bc8fbbcbde5c099, "1.4186613525849614e+134"),
            (0xb0c11fdecb91ce37, "-7.571968556055867e-74"),
            (0xd76d4330f1446bea, "-1.4074705188261364e+113"),
            (0xa6eb8c9ebd69fe29, "-3.3339745473042614e-121"),
            (0x87b0b125ec1d7da0, "-1.2342180766211395e-271"),
            (0xd7210dff076ce2ef, "-5.126864004244935e+111"),
            (0xc6a5387777330bdb, "-2.1520217579844227e+32"),
        ];
        for &(bits, want) in python {
            assert_eq!(py_float_repr(f64::from_bits(bits)), want);
        }
        // random bit patterns and hash-vector magnitudes: the text parses back to the
        // same number, with as few significant digits as Rust's shortest form
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = if i % 2 == 0 {
                f64::from_bits(x)
            } else {
                (x >> 11) as f64 / (1u64 << 53) as f64 * 0.2 - 0.1
            };
            if !f.is_finite() {
                continue;
            }
            let s = py_float_repr(f);
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), f.to_bits(), "{s}");
            let sig = |t: &str| {
                let m = t.split(['e', 'E']).next().unwrap();
                m.chars()
                    .filter(char::is_ascii_digit)
                    .collect::<String>()
                    .trim_matches('0')
                    .len()
            };
            assert!(sig(&s) <= sig(&format!("{:e}", f)).max(1), "{s} vs {:e}", f);
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
    fn compact_format() {
        // CPython 3.11: json.dumps({"a": [1, 2.5, {}], "b": {"c": None}, "d": []})
        let v = json!({"a": [1, 2.5, {}], "b": {"c": null}, "d": []});
        assert_eq!(
            to_string_with(&v, Style::COMPACT).unwrap(),
            r#"{"a": [1, 2.5, {}], "b": {"c": null}, "d": []}"#
        );
    }

    #[test]
    fn ensure_ascii_escapes() {
        // CPython 3.11: json.dumps("a\"b\\\n\t\x08\x0c\x01\x7fé→😀")
        let v = json!("a\"b\\\n\t\u{8}\u{c}\u{1}\u{7f}é→😀");
        assert_eq!(
            to_string(&v),
            r#""a\"b\\\n\t\b\f\u0001\u007f\u00e9\u2192\ud83d\ude00""#
        );
        // ensure_ascii=False keeps everything but quotes, backslashes and C0 controls
        assert_eq!(
            to_string_with(&v, Style::PRETTY.ensure_ascii(false)).unwrap(),
            "\"a\\\"b\\\\\\n\\t\\b\\f\\u0001\u{7f}é→😀\""
        );
    }

    #[test]
    fn non_finite_and_big_ints_round_trip() {
        // CPython 3.11: json.dumps(json.loads('[NaN, -Infinity, 123456789012345678901234567890, -0, 1E400]'))
        let v = loads("[NaN, -Infinity, 123456789012345678901234567890, -0, 1E400]").unwrap();
        assert_eq!(
            to_string_with(&v, Style::COMPACT).unwrap(),
            "[NaN, -Infinity, 123456789012345678901234567890, 0, Infinity]"
        );
    }

    #[test]
    fn duplicate_keys_keep_first_position_last_value() {
        let v = loads(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(
            to_string_with(&v, Style::COMPACT).unwrap(),
            r#"{"a": 3, "b": 2}"#
        );
    }

    #[test]
    fn python_error_messages() {
        // each message and position is CPython 3.11's str(JSONDecodeError)
        let cases = [
            ("", "Expecting value: line 1 column 1 (char 0)"),
            ("  \n x", "Expecting value: line 2 column 2 (char 4)"),
            ("[1,]", "Expecting value: line 1 column 4 (char 3)"),
            (
                "{\"a\" 1}",
                "Expecting ':' delimiter: line 1 column 6 (char 5)",
            ),
            (
                "{\"a\": 1,}",
                "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)",
            ),
            ("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
            (
                "\"abc",
                "Unterminated string starting at: line 1 column 1 (char 0)",
            ),
            (
                "\"a\tb\"",
                "Invalid control character at: line 1 column 3 (char 2)",
            ),
            ("\"\\x\"", "Invalid \\escape: line 1 column 2 (char 1)"),
            (
                "\"\\u12\"",
                "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
            ),
            (
                "{",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            ("[", "Expecting value: line 1 column 2 (char 1)"),
            ("{\"a\":", "Expecting value: line 1 column 6 (char 5)"),
            (
                "\"\\",
                "Unterminated string starting at: line 1 column 1 (char 0)",
            ),
            ("01", "Extra data: line 1 column 2 (char 1)"),
            (
                "{\"a\":1 \"b\"}",
                "Expecting ',' delimiter: line 1 column 8 (char 7)",
            ),
            ("1 2", "Extra data: line 1 column 3 (char 2)"),
            (
                "\u{feff}1",
                "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)",
            ),
            ("é x", "Expecting value: line 1 column 1 (char 0)"),
            ("[\"é\", x]", "Expecting value: line 1 column 7 (char 6)"),
        ];
        for (text, want) in cases {
            assert_eq!(loads(text).unwrap_err().to_string(), want, "{text:?}");
        }
    }

    #[test]
    fn surrogates() {
        assert_eq!(
            loads(r#""\ud83d\ude00""#).unwrap(),
            PyValue::Str("😀".into())
        );
        let e = loads(r#""\ud800x""#).unwrap_err();
        assert_eq!(e.kind, LoadsErrorKind::LoneSurrogate);
        assert_eq!(
            loads_lossy(r#""\ud800x""#).unwrap(),
            PyValue::Str("\u{fffd}x".into())
        );
    }

    #[test]
    fn limits_are_errors_not_panics() {
        let deep = "[".repeat(5000);
        assert_eq!(loads(&deep).unwrap_err().kind, LoadsErrorKind::TooDeep);
        let long = "9".repeat(4301);
        assert_eq!(loads(&long).unwrap_err().kind, LoadsErrorKind::IntTooLong);
        assert!(loads(&"9".repeat(4300)).is_ok());
        for bad in ["-", "01", "1.", "1e", "tru", "{", "[", "\"\\", "{\"a\":"] {
            assert!(loads(bad).is_err(), "{bad}");
        }
    }
}
