//! How values are stored in the database's columns: vectors as `f32` values in the
//! brain's [`Layout`] (a sparse blob as a table of its distinct values, see
//! [`sparse_entries`]), metadata objects as JSON text, and the scores of a query vector
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
        Layout::Sparse => encode_sparse(
            unit.iter()
                .enumerate()
                .filter(|(_, x)| **x != 0.0)
                .map(|(i, x)| (i as u16, *x)),
        ),
    }
}

/// The first two bytes of a sparse blob in the value-table form (schema 4). A blob of
/// the earlier form (indices, then values) starts with its first index; one starting
/// with index 65,535 can have no second index, so it is exactly 6 bytes long, which a
/// value-table blob never is (3 bytes without components, 9 or more with).
const TABLE_MARK: [u8; 2] = [0xff, 0xff];

/// The sparse blob of non-zero components (index ascending), in the value-table form:
/// [`TABLE_MARK`]; the number of distinct magnitudes (LEB128); those magnitudes as
/// `f32` (little-endian, in order of first appearance); then per component, index
/// ascending, its index as the gap from the previous component's (the index itself for
/// the first) and its [`value_code`], both LEB128. A hash-v1 vector (about 235 non-zero
/// components taking some 5 distinct magnitudes: feature counts over one norm) takes
/// about 2 bytes a component instead of 6, with the same `f32` bits (`BENCHMARKS.md`,
/// "Brain size").
fn encode_sparse(entries: impl Iterator<Item = (u16, f32)>) -> Vec<u8> {
    let entries: Vec<(u16, f32)> = entries.collect();
    let mut table: Vec<u32> = Vec::new();
    let codes: Vec<u32> = entries
        .iter()
        .map(|(_, x)| value_code(&mut table, 0, *x))
        .collect();
    let mut out = Vec::with_capacity(4 + table.len() * 4 + entries.len() * 2);
    out.extend_from_slice(&TABLE_MARK);
    put_leb(&mut out, table.len() as u32);
    for t in &table {
        out.extend_from_slice(&t.to_le_bytes());
    }
    let mut prev = 0u16;
    for ((i, _), code) in entries.iter().zip(codes) {
        put_leb(&mut out, u32::from(i - prev));
        put_leb(&mut out, code);
        prev = *i;
    }
    out
}

/// The code of the value `x` in a table of magnitudes (`f32` bits) that starts at
/// `table[base]`: its magnitude's place times 2, plus 1 when `x` is negative; a new
/// magnitude is appended. One rule for the blobs here and the derived search index
/// (`super::search`). Cost: O(t), t the table's length (about 5 for a hash-v1 vector).
pub(crate) fn value_code(table: &mut Vec<u32>, base: usize, x: f32) -> u32 {
    match find_code(&table[base..], x) {
        Some(code) => code,
        None => {
            table.push(x.abs().to_bits());
            ((table.len() - 1 - base) as u32) << 1 | u32::from(x.is_sign_negative())
        }
    }
}

/// The code of `x` (see [`value_code`]) in a table of magnitudes, `None` when its
/// magnitude is not there. Cost: O(t).
pub(crate) fn find_code(table: &[u32], x: f32) -> Option<u32> {
    let mag = x.abs().to_bits();
    let place = table.iter().position(|&t| t == mag)?;
    Some(((place as u32) << 1) | u32::from(x.is_sign_negative()))
}

/// The value of `code` (see [`value_code`]) in the table `table`; `None` past its end.
#[inline(always)]
pub(crate) fn code_value(table: &[f32], code: u32) -> Option<f32> {
    let m = *table.get((code >> 1) as usize)?;
    Some(f32::from_bits(m.to_bits() | ((code & 1) << 31)))
}

/// Bytes of `n` in LEB128 (7 bits a byte, low first): the one home of that encoding
/// for the blobs here and the derived search index (`super::search`).
pub(crate) fn leb_len(n: u32) -> usize {
    match n {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0x0fff_ffff => 4,
        _ => 5,
    }
}

/// Writes `n` in LEB128 at the start of `out`; returns the bytes written (`out` has
/// room: [`leb_len`]).
pub(crate) fn put_leb_at(out: &mut [u8], mut n: u32) -> usize {
    let mut k = 0;
    while n >= 0x80 {
        out[k] = (n as u8 & 0x7f) | 0x80;
        n >>= 7;
        k += 1;
    }
    out[k] = n as u8;
    k + 1
}

/// Appends `n` in LEB128.
fn put_leb(out: &mut Vec<u8>, n: u32) {
    let mut buf = [0u8; 5];
    let k = put_leb_at(&mut buf, n);
    out.extend_from_slice(&buf[..k]);
}

/// The LEB128 number at `*at` (at most 5 bytes, below 2^32), moving `*at` past it.
pub(crate) fn get_leb(b: &[u8], at: &mut usize) -> Option<u32> {
    let mut n = 0u64;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        n |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return u32::try_from(n).ok();
        }
    }
    None
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

/// The (index, value) pairs of a sparse blob, indices ascending as stored, in either
/// form: the value-table form `encode_sparse` writes, or the earlier one (`k`
/// little-endian `u16` indices, then their `k` `f32` values; brains of schema 3 and
/// before). `None` for bytes that are neither: a length of the earlier form that is
/// not a multiple of 6, a number cut short, an index past 65,535 or not ascending, a
/// value position outside the table. Cost: one pass over the blob.
pub fn sparse_entries(blob: &[u8]) -> Option<Vec<(u16, f32)>> {
    if blob.len() != 6 && blob.starts_with(&TABLE_MARK) {
        return table_entries(blob);
    }
    if !blob.len().is_multiple_of(6) {
        return None;
    }
    let k = blob.len() / 6;
    let (ix, vals) = blob.split_at(2 * k);
    Some(
        ix.chunks_exact(2)
            .zip(vals.chunks_exact(4))
            .map(|(i, v)| {
                (
                    u16::from_le_bytes([i[0], i[1]]),
                    f32::from_le_bytes([v[0], v[1], v[2], v[3]]),
                )
            })
            .collect(),
    )
}

/// [`sparse_entries`] of a value-table blob.
fn table_entries(blob: &[u8]) -> Option<Vec<(u16, f32)>> {
    let mut at = TABLE_MARK.len();
    let n = get_leb(blob, &mut at)? as usize;
    let table_end = at.checked_add(n.checked_mul(4)?)?;
    let table: Vec<f32> = blob
        .get(at..table_end)?
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    at = table_end;
    let mut out = Vec::with_capacity((blob.len() - at) / 2);
    let mut index = 0u32;
    while at < blob.len() {
        let gap = get_leb(blob, &mut at)?;
        if !out.is_empty() && gap == 0 {
            return None;
        }
        index = index.checked_add(gap)?;
        let i = u16::try_from(index).ok()?;
        let code = get_leb(blob, &mut at)?;
        out.push((i, code_value(&table, code)?));
    }
    Some(out)
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
        // mark, 2 magnitudes, their 8 bytes, (gap 1, code 0: place 0, positive),
        // (gap 2, code 3: place 1, negative)
        assert_eq!(sparse.len(), 2 + 1 + 8 + 4);
        assert_eq!(&sparse[..3], &[0xff, 0xff, 2]);
        assert_eq!(&sparse[11..], &[1, 0, 2, 3]);
        let u = decode_unit(&dense, Layout::Dense, 4).unwrap();
        assert_eq!(u, [0.0, 0.6, 0.0, -0.8]);
        assert_eq!(decode_unit(&sparse, Layout::Sparse, 4).unwrap(), u);
        let q = [1.0f32, 0.6, 0.0, 0.0];
        assert_eq!(score_blob(&q, &sparse, Layout::Sparse), 0.6 * 0.6);
        assert_eq!(score_blob(&q, &dense, Layout::Dense), 0.6f32 * 0.6);
        assert!(decode_unit(&sparse[..10], Layout::Sparse, 4).is_none());
        assert!(decode_unit(&sparse[..14], Layout::Sparse, 4).is_none());
        assert!(decode_unit(&dense, Layout::Dense, 3).is_none());
        // an index beyond the dimension
        assert!(decode_unit(&sparse, Layout::Sparse, 2).is_none());
    }

    #[test]
    fn a_hash_vector_takes_two_bytes_a_component_with_the_same_bits() {
        // hash-v1 values are signed counts over one norm: few distinct values
        let counts = [1.0, -1.0, 2.0, 0.0, 1.0, 1.0, -2.0, 3.0, 0.0, -1.0];
        let blob = encode_vector(&counts, Layout::Sparse);
        let unit = crabpath::vectors::normalized(&counts);
        let back = decode_unit(&blob, Layout::Sparse, counts.len()).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&unit));
        // 8 components, 3 distinct magnitudes: 3 + 3 * 4 + 8 * 2 (the earlier form: 48)
        assert_eq!(blob.len(), 3 + 12 + 16);
        // an empty vector
        let empty = encode_unit(&[0.0; 4], Layout::Sparse);
        assert_eq!(empty, [0xff, 0xff, 0]);
        assert_eq!(sparse_entries(&empty).unwrap(), []);
    }

    #[test]
    fn blobs_of_the_earlier_form_are_still_read() {
        // 2 components: indices 1 and 3, then their values (schema 3 and before)
        let mut old = Vec::new();
        for i in [1u16, 3] {
            old.extend_from_slice(&i.to_le_bytes());
        }
        for x in [0.6f32, -0.8] {
            old.extend_from_slice(&x.to_le_bytes());
        }
        assert_eq!(sparse_entries(&old).unwrap(), [(1, 0.6), (3, -0.8)]);
        // one component at index 65,535 starts with the mark but is 6 bytes long
        let mut last = 0xffffu16.to_le_bytes().to_vec();
        last.extend_from_slice(&1.0f32.to_le_bytes());
        assert_eq!(sparse_entries(&last).unwrap(), [(65535, 1.0)]);
        assert!(sparse_entries(&old[..7]).is_none());
    }

    #[test]
    fn damaged_value_table_blobs_are_refused() {
        let good = encode_unit(&[0.0, 0.6, 0.0, -0.8], Layout::Sparse);
        assert!(sparse_entries(&good).is_some());
        // a place outside the table (code 4: place 2 of 2)
        let mut b = good.clone();
        *b.last_mut().unwrap() = 4;
        assert!(sparse_entries(&b).is_none());
        // a second gap of 0 (indices not ascending)
        let mut b = good.clone();
        b[13] = 0;
        assert!(sparse_entries(&b).is_none());
        // an index past 65,535
        let mut b = good[..11].to_vec();
        b.extend_from_slice(&[0xff, 0xff, 0x04, 0]);
        assert!(sparse_entries(&b).is_none());
        // a table longer than the blob
        assert!(sparse_entries(&[0xff, 0xff, 9, 0, 0, 0, 0]).is_none());
        // a number that never ends
        assert!(sparse_entries(&[0xff, 0xff, 0x80]).is_none());
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
