//! Reading text files as the reference does (`Path.read_text(encoding="utf-8")`,
//! commit 134c676): strict UTF-8 with Python's error messages, universal newlines.

use std::fs;
use std::path::Path;

use crate::error::{Error, Result};
use pyformat::pystr;

/// Reads a file as the reference does (`Path.read_text(encoding="utf-8")`): strict
/// UTF-8, universal newlines, byte-order mark kept.
///
/// Errors: [`Error::InvalidUtf8`] with the offset and Python's reason,
/// [`Error::Io`].
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode_text(bytes, path)
}

/// [`read_text`] on bytes already read.
pub fn decode_text(bytes: Vec<u8>, path: &Path) -> Result<String> {
    match String::from_utf8(bytes) {
        Ok(s) => Ok(match pystr::universal_newlines(&s) {
            std::borrow::Cow::Borrowed(_) => s,
            std::borrow::Cow::Owned(t) => t,
        }),
        Err(e) => {
            let u = e.utf8_error();
            let offset = u.valid_up_to();
            let bytes = e.as_bytes();
            let byte = bytes[offset];
            let reason = if is_start_byte(byte) {
                match u.error_len() {
                    None => "unexpected end of data",
                    Some(_) => "invalid continuation byte",
                }
            } else {
                "invalid start byte"
            };
            Err(Error::InvalidUtf8 {
                path: path.to_path_buf(),
                offset,
                byte,
                reason,
            })
        }
    }
}

/// Whether Python's UTF-8 decoder accepts `b` as the first byte of a sequence.
fn is_start_byte(b: u8) -> bool {
    matches!(b, 0xc2..=0xf4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_errors_use_python_reasons() {
        // CPython 3.11: b"caf\xe9x".decode() → can't decode byte 0xe9 in position 3: invalid continuation byte
        let p = Path::new("f.md");
        let e = decode_text(b"caf\xe9x".to_vec(), p).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.md: 'utf-8' codec can't decode byte 0xe9 in position 3: invalid continuation byte"
        );
        let e = decode_text(b"ab\xff".to_vec(), p).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("byte 0xff in position 2: invalid start byte"),
            "{e}"
        );
        let e = decode_text(b"ab\xe2\x82".to_vec(), p).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("byte 0xe2 in position 2: unexpected end of data"),
            "{e}"
        );
        assert_eq!(decode_text(b"a\r\nb\rc".to_vec(), p).unwrap(), "a\nb\nc");
    }
}
