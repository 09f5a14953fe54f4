//! Streaming reader for "one JSON array of rows" files, plain or gzip-compressed.
//!
//! The official HotPotQA and MultiHop-RAG files are each a single top-level JSON array (the
//! full HotPotQA dev file is ~46 MB on one line). [`for_each_row`] walks the array with
//! serde's sequence access, materialising one row at a time as a [`serde_json::Value`], so
//! memory stays bounded by the largest row, and it can stop early (`--limit`).
//!
//! Rows are numbered from 0. Schema checks are done by [`RowCtx`], whose errors name the
//! file, the row and the field path (see [`crate::error`]).

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::{describe, Error, Result};

/// Whether [`for_each_row`] should read on after a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next row.
    Continue,
    /// Stop reading; the rest of the file is not parsed (nor checked).
    Stop,
}

/// The first two bytes of a gzip member.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first six bytes of an xz stream (the run files of `bench run`, [`crate::trec`]).
pub const XZ_MAGIC: &[u8] = b"\xFD7zXZ\0";

/// Opens `path` for reading, transparently decompressing gzip or xz (detected by the magic
/// bytes, not by the file name, so `foo.json` that is really gzip also works).
pub fn open_maybe_compressed(path: &Path) -> Result<Box<dyn BufRead>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let head = reader.fill_buf().map_err(|e| Error::io(path, e))?;
    if head.starts_with(&GZIP_MAGIC) {
        let dec = flate2::bufread::MultiGzDecoder::new(reader);
        Ok(Box::new(BufReader::with_capacity(1 << 16, dec)))
    } else if head.starts_with(XZ_MAGIC) {
        let dec = liblzma::bufread::XzDecoder::new_multi_decoder(reader);
        Ok(Box::new(BufReader::with_capacity(1 << 16, dec)))
    } else {
        Ok(Box::new(reader))
    }
}

/// SHA-256 (lower-case hex) of the *decompressed* content of `path` (plain files are hashed as
/// they are). This is the convention of `SHA256SUMS` in the data directory.
pub fn sha256_of_content(path: &Path) -> Result<String> {
    sha256_of_reader(path, &mut open_maybe_compressed(path)?)
}

/// SHA-256 (lower-case hex) of everything `r` yields; `path` names the file in errors.
pub fn sha256_of_reader(path: &Path, r: &mut dyn Read) -> Result<String> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = r.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// Calls `f(row_index, row)` for each element of the top-level JSON array in `path`, in file
/// order, until the array ends or `f` returns [`Flow::Stop`]. Returns the number of rows
/// passed to `f`.
///
/// When the whole array is read, trailing non-whitespace after it is an error.
pub fn for_each_row<F>(path: &Path, f: F) -> Result<usize>
where
    F: FnMut(usize, Value) -> Result<Flow>,
{
    let mut reader = open_maybe_compressed(path)?;
    check_top_level_is_array(path, &mut reader)?;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let state = RefCell::new(State {
        f,
        rows: 0,
        failure: None,
        stopped: false,
    });
    let res = (&mut de).deserialize_seq(ArrayVisitor { state: &state });
    let State {
        rows,
        failure,
        stopped,
        ..
    } = state.into_inner();
    if let Some(err) = failure {
        return Err(err);
    }
    if stopped {
        return Ok(rows);
    }
    match res {
        Ok(()) => {
            de.end().map_err(|e| json_error(path, None, &e))?;
            Ok(rows)
        }
        Err(e) => Err(json_error(path, Some(rows), &e)),
    }
}

/// Skips leading whitespace and checks that the top-level value starts with `[`, so that a
/// file holding an object (e.g. a `corpus.json` passed as queries) gets a clear message.
fn check_top_level_is_array(path: &Path, reader: &mut Box<dyn BufRead>) -> Result<()> {
    loop {
        let buf = reader.fill_buf().map_err(|e| Error::io(path, e))?;
        if buf.is_empty() {
            return Err(Error::NotAnArray {
                file: path.to_path_buf(),
                found: "an empty file".into(),
            });
        }
        let skip = buf
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        if skip == buf.len() {
            reader.consume(skip);
            continue;
        }
        let first = buf[skip];
        reader.consume(skip);
        let found = match first {
            b'[' => return Ok(()),
            b'{' => "an object",
            b'"' => "a string",
            b'-' | b'0'..=b'9' => "a number",
            b't' | b'f' => "a boolean",
            b'n' => "null",
            _ => "bytes that are not JSON",
        };
        return Err(Error::NotAnArray {
            file: path.to_path_buf(),
            found: found.into(),
        });
    }
}

const STOP_SENTINEL: &str = "\u{0}crabpath-bench-stop";

struct State<F> {
    f: F,
    rows: usize,
    failure: Option<Error>,
    stopped: bool,
}

struct ArrayVisitor<'a, F> {
    state: &'a RefCell<State<F>>,
}

impl<'de, F> Visitor<'de> for ArrayVisitor<'_, F>
where
    F: FnMut(usize, Value) -> Result<Flow>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array of rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(value) = seq.next_element_seed(RowSeed)? {
            let mut st = self.state.borrow_mut();
            let idx = st.rows;
            st.rows += 1;
            match (st.f)(idx, value) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Stop) => {
                    st.stopped = true;
                    return Err(de::Error::custom(STOP_SENTINEL));
                }
                Err(e) => {
                    st.failure = Some(e);
                    return Err(de::Error::custom(STOP_SENTINEL));
                }
            }
        }
        Ok(())
    }
}

struct RowSeed;

impl<'de> DeserializeSeed<'de> for RowSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

/// A serde_json error as [`Error::Json`] (its position reported apart from the message).
pub(crate) fn json_error(path: &Path, row: Option<usize>, e: &serde_json::Error) -> Error {
    let full = e.to_string();
    // serde_json appends " at line L column C"; drop it, the position is reported separately.
    let message = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    };
    Error::Json {
        file: path.to_path_buf(),
        row,
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// Schema-checking helpers bound to one row of one file; every error they produce is an
/// [`Error::Malformed`] naming the file, the row and the field path.
#[derive(Debug, Clone)]
pub struct RowCtx<'a> {
    /// File being read.
    pub file: &'a Path,
    /// 0-based row index.
    pub row: usize,
}

impl<'a> RowCtx<'a> {
    /// Context for row `row` of `file`.
    pub fn new(file: &'a Path, row: usize) -> Self {
        RowCtx { file, row }
    }

    /// A [`Error::Malformed`] for `field`.
    pub fn err(&self, field: &str, expected: &str, found: &Value) -> Error {
        self.err_text(field, expected, describe(found))
    }

    /// A [`Error::Malformed`] with a free-form `found`.
    pub fn err_text(&self, field: &str, expected: &str, found: impl Into<String>) -> Error {
        Error::Malformed {
            file: PathBuf::from(self.file),
            row: self.row,
            field: field.to_string(),
            expected: expected.to_string(),
            found: found.into(),
        }
    }

    /// The row as a JSON object.
    pub fn object<'v>(&self, v: &'v Value) -> Result<&'v Map<String, Value>> {
        v.as_object()
            .ok_or_else(|| self.err("(row)", "a JSON object", v))
    }

    /// Required key `key` of `obj`.
    pub fn required<'v>(&self, obj: &'v Map<String, Value>, key: &str) -> Result<&'v Value> {
        obj.get(key)
            .ok_or_else(|| self.err_text(key, "a value", "no such key"))
    }

    /// `v` as a string; `field` names it in the error.
    pub fn string(&self, v: &Value, field: &str) -> Result<String> {
        match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(self.err(field, "string", other)),
        }
    }

    /// Required string key.
    pub fn req_string(&self, obj: &Map<String, Value>, key: &str) -> Result<String> {
        self.string(self.required(obj, key)?, key)
    }

    /// Optional string key: missing or `null` give `None`.
    pub fn opt_string(
        &self,
        obj: &Map<String, Value>,
        key: &str,
        field: &str,
    ) -> Result<Option<String>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.err(field, "string or null", other)),
        }
    }

    /// The text Python's `str(obj.get(key, ""))` gives for a string, `null` or a missing key:
    /// the string itself, `"None"`, or `""`. Any other type is an error.
    pub fn py_str_field(&self, obj: &Map<String, Value>, key: &str, field: &str) -> Result<String> {
        match obj.get(key) {
            None => Ok(String::new()),
            Some(Value::Null) => Ok("None".to_string()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.err(field, "string (or null)", other)),
        }
    }

    /// `v` as an array.
    pub fn array<'v>(&self, v: &'v Value, field: &str) -> Result<&'v Vec<Value>> {
        v.as_array().ok_or_else(|| self.err(field, "array", v))
    }

    /// `v` as a non-negative integer.
    pub fn index(&self, v: &Value, field: &str) -> Result<u64> {
        v.as_u64()
            .ok_or_else(|| self.err(field, "non-negative integer", v))
    }
}
