//! [`Slot`]: a field that a document may leave out, hold as `null`, or hold a value in.
//!
//! `Option<T>` with `skip_serializing_if` covers "absent or value", a plain `Option<T>`
//! "null or value"; some documents need all three (the `knn_k` parameter of a bench report
//! is `null` without `--graph knn`, and absent from a held-out report). Declare such a
//! field `#[serde(default, skip_serializing_if = "Slot::is_absent")]`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A field that is absent, `null`, or a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Slot<T> {
    /// The key is not written.
    #[default]
    Absent,
    /// The key is written as `null`.
    Null,
    /// The key holds this value.
    Value(T),
}

impl<T> Slot<T> {
    /// Whether the key is left out (`skip_serializing_if`).
    pub fn is_absent(&self) -> bool {
        matches!(self, Slot::Absent)
    }

    /// The value, if any.
    pub fn value(&self) -> Option<&T> {
        match self {
            Slot::Value(v) => Some(v),
            _ => None,
        }
    }

    /// `null` for `None`, the value otherwise (the key is written either way).
    pub fn written(v: Option<T>) -> Self {
        v.map_or(Slot::Null, Slot::Value)
    }
}

impl<T: Serialize> Serialize for Slot<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Slot::Value(v) => s.serialize_some(v),
            _ => s.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Slot<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Slot::written(Option::<T>::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Doc {
        a: u32,
        #[serde(default, skip_serializing_if = "Slot::is_absent")]
        b: Slot<u32>,
    }

    #[test]
    fn three_states_round_trip() {
        for (doc, text) in [
            (
                Doc {
                    a: 1,
                    b: Slot::Absent,
                },
                r#"{"a":1}"#,
            ),
            (
                Doc {
                    a: 1,
                    b: Slot::Null,
                },
                r#"{"a":1,"b":null}"#,
            ),
            (
                Doc {
                    a: 1,
                    b: Slot::Value(2),
                },
                r#"{"a":1,"b":2}"#,
            ),
        ] {
            assert_eq!(serde_json::to_string(&doc).unwrap(), text);
            assert_eq!(serde_json::from_str::<Doc>(text).unwrap(), doc);
        }
    }
}
