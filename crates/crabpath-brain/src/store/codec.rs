//! How values are stored in the database's columns: vectors as `f32` blobs in the
//! brain's [`Layout`], metadata objects as JSON text, and the scores of a query vector
//! against stored vectors (one definition per layout, used by every search path, so
//! that the same query gives the same bits whichever path answers it).

use crabpath::graph::Metadata;
use crabpath::vectors::{dot, normalize_into};

use super::Layout;

/// The stored form of a vector: `v / |v|` rounded once to `f32`, encoded in `layout`
/// (see [`super::schema`]). A vector that already is a stored vector (every component
/// an `f32`, norm 1 within `f32` rounding: what `export` writes) is kept as it is, so
/// that `export` then `import` gives back the same bits. Components must be finite
/// (checked by the caller).
pub fn encode_vector(v: &[f64], layout: Layout) -> Vec<u8> {
    let mut unit = vec![0.0f32; v.len()];
    let exact = v.iter().all(|&x| f64::from(x as f32) == x);
    let norm2 = v.iter().fold(0.0f64, |a, x| a + x * x);
    if exact && (norm2 - 1.0).abs() < 1e-5 {
        for (u, x) in unit.iter_mut().zip(v) {
            *u = *x as f32;
        }
    } else {
        normalize_into(v, &mut unit);
    }
    encode_unit(&unit, layout)
}

/// [`encode_vector`] of a vector that is already a unit `f32` vector.
pub fn encode_unit(unit: &[f32], layout: Layout) -> Vec<u8> {
    match layout {
        Layout::Dense => unit.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Layout::Sparse => {
            let nz: Vec<(u16, f32)> = unit
                .iter()
                .enumerate()
                .filter(|(_, x)| **x != 0.0)
                .map(|(i, x)| (i as u16, *x))
                .collect();
            let mut out = Vec::with_capacity(nz.len() * 6);
            for (i, _) in &nz {
                out.extend_from_slice(&i.to_le_bytes());
            }
            for (_, x) in &nz {
                out.extend_from_slice(&x.to_le_bytes());
            }
            out
        }
    }
}

/// The unit vector of a blob, `dim` components. `None` for a blob that does not fit
/// the layout (wrong length, an index out of range).
pub fn decode_unit(blob: &[u8], layout: Layout, dim: usize) -> Option<Vec<f32>> {
    let mut out = vec![0.0f32; dim];
    match layout {
        Layout::Dense => {
            if blob.len() != dim * 4 {
                return None;
            }
            for (o, c) in out.iter_mut().zip(blob.chunks_exact(4)) {
                *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        Layout::Sparse => {
            for (i, x) in sparse_entries(blob)? {
                *out.get_mut(i as usize)? = x;
            }
        }
    }
    Some(out)
}

/// The (index, value) pairs of a sparse blob, indices ascending as stored; `None` if
/// the length is not a multiple of 6.
pub fn sparse_entries(blob: &[u8]) -> Option<impl Iterator<Item = (u16, f32)> + '_> {
    if !blob.len().is_multiple_of(6) {
        return None;
    }
    let k = blob.len() / 6;
    let (ix, vals) = blob.split_at(2 * k);
    Some(ix.chunks_exact(2).zip(vals.chunks_exact(4)).map(|(i, v)| {
        (
            u16::from_le_bytes([i[0], i[1]]),
            f32::from_le_bytes([v[0], v[1], v[2], v[3]]),
        )
    }))
}

/// The score of the unit query `q` against a stored blob: for [`Layout::Sparse`] the
/// sum, in component order, of `q[i] · x[i]` over the stored non-zero components (the
/// order in which the posting lists of [`super::search`] accumulate it); for
/// [`Layout::Dense`] `crabpath::vectors::dot`. A blob that does not fit scores 0.
pub fn score_blob(q: &[f32], blob: &[u8], layout: Layout) -> f32 {
    match layout {
        Layout::Sparse => match sparse_entries(blob) {
            Some(entries) => {
                let mut s = 0.0f32;
                for (i, x) in entries {
                    if let Some(qi) = q.get(i as usize) {
                        s += qi * x;
                    }
                }
                s
            }
            None => 0.0,
        },
        Layout::Dense => {
            if blob.len() != q.len() * 4 {
                return 0.0;
            }
            let row: Vec<f32> = blob
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            dot(q, &row)
        }
    }
}

/// A metadata object as stored: compact JSON, `None` when empty.
pub fn encode_meta(m: &Metadata) -> Option<String> {
    if m.is_empty() {
        None
    } else {
        serde_json::to_string(m).ok()
    }
}

/// A stored metadata object (absent or unreadable: empty).
pub fn decode_meta(text: Option<&str>) -> Metadata {
    match text {
        Some(t) => match serde_json::from_str(t) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => Metadata::new(),
        },
        None => Metadata::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip_and_score_the_same_in_both_forms() {
        let v = [0.0, 3.0, 0.0, -4.0];
        let dense = encode_vector(&v, Layout::Dense);
        let sparse = encode_vector(&v, Layout::Sparse);
        assert_eq!(dense.len(), 16);
        assert_eq!(sparse.len(), 12);
        let u = decode_unit(&dense, Layout::Dense, 4).unwrap();
        assert_eq!(u, [0.0, 0.6, 0.0, -0.8]);
        assert_eq!(decode_unit(&sparse, Layout::Sparse, 4).unwrap(), u);
        let q = [1.0f32, 0.6, 0.0, 0.0];
        assert_eq!(score_blob(&q, &sparse, Layout::Sparse), 0.6 * 0.6);
        assert_eq!(score_blob(&q, &dense, Layout::Dense), 0.6f32 * 0.6);
        assert!(decode_unit(&sparse[..5], Layout::Sparse, 4).is_none());
        assert!(decode_unit(&dense, Layout::Dense, 3).is_none());
        // an index beyond the dimension
        assert!(decode_unit(&sparse, Layout::Sparse, 2).is_none());
    }

    #[test]
    fn metadata_text() {
        let mut m = Metadata::new();
        assert_eq!(encode_meta(&m), None);
        m.insert("file".into(), "a.md".into());
        m.insert("chunk".into(), 2.into());
        let t = encode_meta(&m).unwrap();
        assert_eq!(t, r#"{"file":"a.md","chunk":2}"#);
        assert_eq!(decode_meta(Some(&t)), m);
        assert!(decode_meta(Some("[1]")).is_empty());
    }
}
