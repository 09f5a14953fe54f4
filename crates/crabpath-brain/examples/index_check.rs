//! The cost of opening a derived search index (`search.idx`): its checksum and the
//! checks of every offset that [`PostingsFile::open`] runs before a search may read it
//! (issue 33, item 4). Generates an index the size of the 79,118-chunk brain's in
//! `BENCHMARKS.md` ("The search index's checksum"): 79,118 rows of 124 non-zero
//! components each drawn at random (dimension 1,024, hash-v1's; repeats merged), writes it to a temporary file and
//! opens it 15 times; prints the best time.
//!
//! ```sh
//! cargo run --release -p crabpath-brain --example index_check
//! ```

use std::time::Instant;

use crabpath_brain::store::search::{postings_bytes, PostingsFile, Row, RowData};
use crabpath_brain::store::Clock;

/// Rows, non-zeros per row and dimension of the generated index (see the module docs).
const ROWS: usize = 79_118;
const PER_ROW: usize = 124;
const DIM: usize = 1024;

fn main() {
    // xorshift64: a fixed pseudo-random sequence, so every run writes the same file
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let rows: Vec<Row> = (0..ROWS)
        .map(|i| {
            let mut e: Vec<(u16, f32)> = (0..PER_ROW)
                .map(|_| ((next() % DIM as u64) as u16, 0.09))
                .collect();
            e.sort_by_key(|p| p.0);
            e.dedup_by_key(|p| p.0);
            Row {
                seq: i as i64,
                sym: i as i64,
                data: RowData::Sparse(e),
            }
        })
        .collect();
    let clock = Clock {
        rev: 1,
        seq: ROWS as i64,
        structure: 0,
        vectors: 1,
    };
    let entries: usize = rows
        .iter()
        .map(|r| match &r.data {
            RowData::Sparse(e) => e.len(),
            RowData::Dense(v) => v.len(),
        })
        .sum();
    let bytes = postings_bytes(&rows, DIM, 7, clock);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("search.idx");
    std::fs::write(&path, &bytes).expect("write the index");
    let mut best = f64::MAX;
    for _ in 0..15 {
        let start = Instant::now();
        let file = PostingsFile::open(&path, DIM).expect("a sound index");
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(file.rows(), ROWS);
    }
    println!(
        "search.idx of {ROWS} rows, {entries} entries, {:.1} MB: open (map, checksum, offsets) {:.2} ms, best of 15",
        bytes.len() as f64 / 1e6,
        best * 1e3
    );
}
