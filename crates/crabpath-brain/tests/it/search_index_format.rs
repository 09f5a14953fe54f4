//! The derived search index's format (`CPSIDX04`: rows as LEB128 gaps, values as places
//! in a row's table; issue 28 "Cost: brain size") and the value-table form of sparse
//! vector blobs (schema 4):
//! * a brain whose `search.idx` is of an older format (`CPSIDX02`, every entry a `u32`
//!   row and an `f32` value) keeps working — the old file is refused as "of an older
//!   format", rebuilt from the database in the new format, and every search answers
//!   exactly as before — and the new file is smaller;
//! * a brain of schema 3, whose blobs are of the earlier form (`u16` indices, then
//!   `f32` values), is read as it is and migrated, and answers exactly as the same
//!   brain written in the new form; vectors written after the migration take the new
//!   form beside the old ones.

use crate::common;

use std::path::Path;

use crabpath_brain::store::codec::sparse_entries;
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
    let mut lists: Vec<Vec<(u32, f32)>> = vec![Vec::new(); dim];
    for (row, (_, _, v)) in rows.iter().enumerate() {
        for (i, x) in sparse_entries(v).unwrap() {
            lists[i as usize].push((row as u32, x));
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
    // the same rows and entries: 8 bytes an entry there, 2 bytes mostly here
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

/// The blob of the earlier form (schema 3 and before): `k` `u16` indices, then their
/// `k` `f32` values.
fn earlier_form(blob: &[u8]) -> Vec<u8> {
    let e = sparse_entries(blob).unwrap();
    let mut out = Vec::new();
    for (i, _) in &e {
        out.extend_from_slice(&i.to_le_bytes());
    }
    for (_, x) in &e {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

#[test]
fn a_brain_of_the_earlier_blob_form_answers_the_same_and_is_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(dir.path());
    let dim = Store::open(&db, false).unwrap().dim();
    let mixed: Vec<f64> = (0..dim).map(|i| ((i * 37 % 11) as f64) - 5.0).collect();
    let mut one = vec![0.0; dim];
    one[7] = 1.0;
    let queries = [vec![1.0; dim], one, mixed];
    let answers = |db: &Path| -> Vec<_> {
        let s = load(db);
        queries.iter().map(|q| s.search(q, 10)).collect()
    };
    let new_form = answers(&db);
    let sizes = |db: &Path| -> i64 {
        let c = rusqlite::Connection::open(db).unwrap();
        c.query_row("SELECT SUM(length(v)) FROM vectors", [], |r| r.get(0))
            .unwrap()
    };
    let new_bytes = sizes(&db);
    // the same brain as schema 3 wrote it: every blob of the earlier form, no index
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        let blobs: Vec<(i64, Vec<u8>)> = c
            .prepare("SELECT sym, v FROM vectors")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (sym, v) in &blobs {
            c.execute(
                "UPDATE vectors SET v = ?1 WHERE sym = ?2",
                rusqlite::params![earlier_form(v), sym],
            )
            .unwrap();
        }
        c.pragma_update(None, "user_version", 3).unwrap();
    }
    std::fs::remove_file(index_path(dir.path())).unwrap();
    let old_bytes = sizes(&db);
    // hash-v1 vectors: the earlier form is about three times the size
    assert!(old_bytes > 2 * new_bytes, "{old_bytes} vs {new_bytes}");
    // read as it is (read-only: not migrated), the same answers, rows and index alike
    let ro = Store::open(&db, false).unwrap();
    assert_eq!(ro.schema_version(), 3);
    drop(ro);
    assert_eq!(answers(&db), new_form);
    // opened for writing: schema 4, blobs kept as they were
    let rw = Store::open(&db, true).unwrap();
    assert_eq!(
        rw.schema_version(),
        crabpath_brain::store::schema::SCHEMA_VERSION
    );
    drop(rw);
    assert_eq!(sizes(&db), old_bytes);
    assert_eq!(answers(&db), new_form);
    // an index built from blobs of the earlier form answers the same
    crabpath_brain::store::search::rebuild(
        &rusqlite::Connection::open(&db).unwrap(),
        dir.path(),
        crabpath_brain::store::Layout::Sparse,
        dim,
        Store::open(&db, false).unwrap().nonce(),
    )
    .unwrap();
    let s = load(&db);
    assert!(s.indexed());
    assert_eq!(
        queries.iter().map(|q| s.search(q, 10)).collect::<Vec<_>>(),
        new_form
    );
}
