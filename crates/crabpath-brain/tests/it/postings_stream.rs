//! The derived index built from the database in two streaming passes
//! (`store::search::postings_from_db`, used by `init`/`import` and `rebuild`; issue 33,
//! item 11: building it from rows decoded all at once held every vector twice at
//! `init`'s peak) must give the bytes `postings_bytes` gives over the rows read whole,
//! on random vector tables: rows in any insertion order, empty rows, and blobs that do
//! not fit the layout (an odd length, an index not below the dimension), which both
//! leave out.

use crabpath_brain::store::codec::encode_unit;
use crabpath_brain::store::search::{postings_bytes, postings_from_db, read_rows};
use crabpath_brain::store::{Clock, Layout, Store};
use proptest::prelude::*;
use rusqlite::params;

/// The dimension of the random vectors (small, so that components collide across rows).
const DIM: usize = 16;

/// One random vector row: its blob kind and components.
#[derive(Debug, Clone)]
enum Blob {
    /// A sound sparse vector (index ascending, zeros dropped by the encoder).
    Good(Vec<f32>),
    /// A blob whose length is not a multiple of 6 (left out).
    OddLength(Vec<u8>),
    /// A sparse entry whose index is the dimension (left out).
    IndexTooLarge,
}

fn blob() -> impl Strategy<Value = Blob> {
    prop_oneof![
        8 => proptest::collection::vec(
            prop_oneof![3 => Just(0.0f32), 1 => -1.0f32..1.0f32],
            DIM
        )
        .prop_map(Blob::Good),
        1 => proptest::collection::vec(any::<u8>(), 1..5).prop_map(Blob::OddLength),
        1 => Just(Blob::IndexTooLarge),
    ]
}

fn bytes_of(b: &Blob) -> Vec<u8> {
    match b {
        Blob::Good(v) => encode_unit(v, Layout::Sparse),
        Blob::OddLength(x) => x.clone(),
        Blob::IndexTooLarge => {
            let mut out = (DIM as u16).to_le_bytes().to_vec();
            out.extend_from_slice(&0.5f32.to_le_bytes());
            out
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn streamed_index_equals_index_of_rows_read_whole(
        rows in proptest::collection::vec(blob(), 0..40),
        order in any::<u64>(),
        nonce in any::<i64>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(&dir.path().join("brain.db"), Layout::Sparse, DIM).unwrap();
        let conn = store.conn();
        // inserted in a scrambled order: both must read them in `seq` order
        let n = rows.len();
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by_key(|&i| (i as u64).wrapping_mul(order | 1).rotate_left(17));
        for i in idx {
            conn.execute(
                "INSERT INTO vectors(seq, sym, v, rev) VALUES (?1, ?2, ?3, 1)",
                params![3 * i as i64 + 2, 1000 - i as i64, bytes_of(&rows[i])],
            )
            .unwrap();
        }
        let clock = Clock { rev: 1, seq: 3 * n as i64 + 2, structure: 0, vectors: 0 };
        let whole = read_rows(conn, Layout::Sparse, DIM, -1).unwrap();
        let expected = postings_bytes(&whole, DIM, nonce, clock);
        let (streamed, count) = postings_from_db(conn, DIM, nonce, clock).unwrap();
        prop_assert_eq!(count, whole.len());
        prop_assert_eq!(streamed, expected);
    }
}
