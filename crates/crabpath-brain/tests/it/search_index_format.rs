//! The derived search index's format `CPSIDX03` (rows as LEB128 gaps, issue 28 "Cost:
//! brain size"): a brain whose `search.idx` is of the format before it (`CPSIDX02`,
//! every entry a `u32` row and an `f32` value) keeps working — the old file is refused
//! as "of an older format", rebuilt from the database in the new format, and every
//! search answers exactly as before — and the new file is smaller.

use crate::common;

use std::path::Path;

use crabpath_brain::store::search::{index_path, IndexFault, PostingsFile, Searcher};
use crabpath_brain::store::Store;

fn load(db: &Path) -> Searcher {
    common::load_searcher(db)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The `CPSIDX02` index of the brain at `db`, written as the previous code wrote it:
/// the header of the new file (same nonce, epoch, revision, dimension, rows) with the
/// entry count at byte 48; per row `sym`, per row `seq`; `dim + 1` starts counted in
/// entries; the entries as (row `u32`, value `f32`), 8 bytes each; the CRC-32 of every
/// byte but the checksum's 8 at byte 56.
fn old_format(db: &Path, new: &[u8]) -> Vec<u8> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let dim = u64_at(new, 32) as usize;
    let mut st = conn
        .prepare("SELECT seq, sym, v FROM vectors WHERE rev > -1 ORDER BY seq")
        .unwrap();
    let rows: Vec<(i64, i64, Vec<u8>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // a sparse blob: n u16 indices, then n f32 values (store/codec.rs)
    let mut lists: Vec<Vec<(u32, f32)>> = vec![Vec::new(); dim];
    for (row, (_, _, v)) in rows.iter().enumerate() {
        let n = v.len() / 6;
        for k in 0..n {
            let i = u16::from_le_bytes([v[2 * k], v[2 * k + 1]]) as usize;
            let at = 2 * n + 4 * k;
            let x = f32::from_le_bytes(v[at..at + 4].try_into().unwrap());
            lists[i].push((row as u32, x));
        }
    }
    let nnz: usize = lists.iter().map(Vec::len).sum();
    let mut out = Vec::new();
    out.extend_from_slice(b"CPSIDX02");
    out.extend_from_slice(&new[8..48]);
    out.extend_from_slice(&(nnz as u64).to_le_bytes());
    out.extend_from_slice(&[0u8; 8]);
    for (_, sym, _) in &rows {
        out.extend_from_slice(&(*sym as u64).to_le_bytes());
    }
    for (seq, _, _) in &rows {
        out.extend_from_slice(&(*seq as u64).to_le_bytes());
    }
    let mut start = 0u64;
    out.extend_from_slice(&start.to_le_bytes());
    for l in &lists {
        start += l.len() as u64;
        out.extend_from_slice(&start.to_le_bytes());
    }
    for l in &lists {
        for (r, x) in l {
            out.extend_from_slice(&r.to_le_bytes());
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut h = crc32fast::Hasher::new();
    h.update(&out[..56]);
    h.update(&out[64..]);
    let sum = u64::from(h.finalize()).to_le_bytes();
    out[56..64].copy_from_slice(&sum);
    out
}

#[test]
fn an_index_of_the_older_format_is_rebuilt_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(dir.path());
    let path = index_path(dir.path());
    let new = std::fs::read(&path).unwrap();
    let dim = Store::open(&db, false).unwrap().dim();
    let mut one = vec![0.0; dim];
    one[7] = 1.0;
    let mixed: Vec<f64> = (0..dim).map(|i| ((i * 37 % 11) as f64) - 5.0).collect();
    let queries = [vec![1.0; dim], one, mixed];
    let with_new: Vec<_> = {
        let s = load(&db);
        assert!(s.indexed());
        queries.iter().map(|q| s.search(q, 10)).collect()
    };

    let old = old_format(&db, &new);
    // the same rows and entries: 8 bytes an entry there, a 1-byte gap mostly here
    assert!(new.len() < old.len(), "{} >= {}", new.len(), old.len());
    std::fs::write(&path, &old).unwrap();
    assert_eq!(
        PostingsFile::open(&path, dim).err(),
        Some(IndexFault::Damaged("of an older format".into()))
    );
    // the next load answers from the rows and rebuilds the file in the new format
    let s = load(&db);
    assert!(!s.indexed());
    let rows: Vec<_> = queries.iter().map(|q| s.search(q, 10)).collect();
    assert_eq!(rows, with_new);
    assert_eq!(std::fs::read(&path).unwrap(), new);
    let s = load(&db);
    assert!(s.indexed());
    let again: Vec<_> = queries.iter().map(|q| s.search(q, 10)).collect();
    assert_eq!(again, with_new);
}
