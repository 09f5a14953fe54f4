//! The derived search index (`search.idx`) under corruption (issue 33, item 4: 2,000
//! overwritten bytes made `query` panic at `store/search.rs:194`, rc 101).
//!
//! The opener is fed random corruption of a real index (the fixture brain's: byte
//! overwrites, truncations, extensions, header fields set to edge values), and must
//! never panic: either it rejects the file (and [`Searcher::load`] rebuilds it from the
//! database, answering as a search without the file does) or the index is valid.
//! A second property recomputes the checksum after the damage, so that the structural
//! checks behind it (list starts, row ids) are what stands between the bytes and a
//! slice index out of range.

use crate::common;

use std::path::{Path, PathBuf};

use crabpath_brain::store::search::{index_path, IndexFault, PostingsFile, Searcher};
use crabpath_brain::store::Store;
use proptest::prelude::*;

/// Where the checksum sits in the file (the layout in [`PostingsFile`]'s docs: the
/// 8-byte magic and six `u64`s, then the CRC-32 as a `u64`).
const SUM_AT: usize = 56;
const SUM_LEN: usize = 8;

/// A fixture brain, the bytes of its sound index, and the answers of a search that
/// reads the vector rows alone.
struct Fixture {
    _dir: tempfile::TempDir,
    db: PathBuf,
    good: Vec<u8>,
    queries: Vec<Vec<f64>>,
    expected: Vec<Vec<(i64, f32)>>,
}

const TOP: usize = 10;

fn load(db: &Path) -> Searcher {
    common::load_searcher(db)
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = common::fixture_brain(dir.path());
    let good = std::fs::read(index_path(dir.path())).unwrap();
    let dim = Store::open(&db, false).unwrap().dim();
    // every component (each posting list is read), one component, and a mixed one
    let mut one = vec![0.0; dim];
    one[7] = 1.0;
    let mixed: Vec<f64> = (0..dim).map(|i| ((i * 37 % 11) as f64) - 5.0).collect();
    let queries = vec![vec![1.0; dim], one, mixed];
    std::fs::remove_file(index_path(dir.path())).unwrap();
    let rows_only = load(&db);
    assert!(!rows_only.indexed());
    let expected = queries.iter().map(|q| rows_only.search(q, TOP)).collect();
    std::fs::write(index_path(dir.path()), &good).unwrap();
    assert!(load(&db).indexed(), "the fixture's index is in use");
    Fixture {
        _dir: dir,
        db,
        good,
        queries,
        expected,
    }
}

/// One change of the file's bytes.
#[derive(Debug, Clone)]
enum Damage {
    /// Bytes written at an offset (past the end: the file grows).
    Overwrite(usize, Vec<u8>),
    /// A header or section `u64` set to a value (offset in 8-byte words).
    Word(usize, u64),
    /// Cut to this length.
    Truncate(usize),
    /// Bytes appended.
    Extend(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    let edge = prop_oneof![
        Just(0u64),
        Just(1u64),
        Just(u64::MAX),
        Just(u64::MAX / 8),
        Just(u32::MAX as u64),
        any::<u64>(),
        0u64..200_000,
    ];
    prop_oneof![
        (0usize..120_000, prop::collection::vec(any::<u8>(), 1..2000))
            .prop_map(|(at, b)| Damage::Overwrite(at, b)),
        (0usize..200, prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, b)| Damage::Overwrite(at, b)),
        (0usize..15_000, edge).prop_map(|(w, v)| Damage::Word(w, v)),
        (0usize..120_000).prop_map(Damage::Truncate),
        prop::collection::vec(any::<u8>(), 1..64).prop_map(Damage::Extend),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    match d {
        Damage::Overwrite(at, b) => {
            let at = (*at).min(bytes.len());
            if bytes.len() < at + b.len() {
                bytes.resize(at + b.len(), 0);
            }
            bytes[at..at + b.len()].copy_from_slice(b);
        }
        Damage::Word(w, v) => {
            let at = w * 8;
            if at + 8 <= bytes.len() {
                bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
        }
        Damage::Truncate(n) => bytes.truncate(*n),
        Damage::Extend(b) => bytes.extend_from_slice(b),
    }
}

/// Recomputes the checksum of damaged bytes, as a forger would.
fn reseal(bytes: &mut [u8]) {
    if bytes.len() < SUM_AT + SUM_LEN {
        return;
    }
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..SUM_AT]);
    h.update(&bytes[SUM_AT + SUM_LEN..]);
    let sum = u64::from(h.finalize());
    bytes[SUM_AT..SUM_AT + SUM_LEN].copy_from_slice(&sum.to_le_bytes());
}

/// Writes the fixture's index with the damage `ds` (and a recomputed checksum when
/// `resealed`); returns the file and the brain's dimension.
fn write_damaged(f: &Fixture, ds: &[Damage], resealed: bool) -> (PathBuf, Vec<u8>, usize) {
    let path = index_path(f.db.parent().unwrap());
    let mut bytes = f.good.clone();
    for d in ds {
        apply(&mut bytes, d);
    }
    if resealed {
        reseal(&mut bytes);
    }
    std::fs::write(&path, &bytes).unwrap();
    let dim = Store::open(&f.db, false).unwrap().dim();
    (path, bytes, dim)
}

thread_local! {
    static FIXTURE: Fixture = fixture();
}

#[test]
fn the_sound_index_opens_and_a_changed_byte_is_refused() {
    FIXTURE.with(|f| {
        let path = index_path(f.db.parent().unwrap());
        let dim = Store::open(&f.db, false).unwrap().dim();
        assert!(PostingsFile::open(&path, dim).is_ok());
        // one flipped bit in the last entry (its value's code): only the checksum can see it
        let mut bytes = f.good.clone();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            PostingsFile::open(&path, dim).err(),
            Some(IndexFault::Damaged("checksum mismatch".into()))
        );
        // loading rebuilds it: the same bytes as the sound file
        let s = load(&f.db);
        assert!(!s.indexed());
        assert_eq!(std::fs::read(&path).unwrap(), f.good);
        assert!(load(&f.db).indexed());
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random damage: the file is refused (and rebuilt, answering as the rows do)
    /// unless the damage changed nothing.
    #[test]
    fn damage_is_refused_and_rebuilt(ds in prop::collection::vec(damage(), 1..4)) {
        FIXTURE.with(|f| {
            let (path, bytes, dim) = write_damaged(f, &ds, false);
            let opened = PostingsFile::open(&path, dim);
            prop_assert_eq!(opened.is_ok(), bytes == f.good, "{:?}", opened.err());
            let s = load(&f.db);
            for (q, want) in f.queries.iter().zip(&f.expected) {
                prop_assert_eq!(&s.search(q, TOP), want);
            }
            prop_assert_eq!(std::fs::read(&path).unwrap(), f.good.clone(), "rebuilt");
            Ok(())
        })?;
    }

    /// Damage behind a recomputed checksum: opening and searching never panic, and a
    /// file that opens answers every query (each posting list is read).
    #[test]
    fn resealed_damage_never_panics(ds in prop::collection::vec(damage(), 1..4)) {
        FIXTURE.with(|f| {
            let (path, _, dim) = write_damaged(f, &ds, true);
            let _ = PostingsFile::open(&path, dim);
            let s = load(&f.db);
            for q in &f.queries {
                let found = s.search(q, TOP);
                prop_assert_eq!(found.len(), TOP);
            }
            Ok(())
        })?;
    }
}

#[test]
fn an_index_that_cannot_be_rebuilt_is_left_out() {
    // a directory (with a file in it, so that no rename can replace it) where the index
    // belongs: it cannot be mapped nor rebuilt; searches read the rows, as without one
    FIXTURE.with(|f| {
        let path = index_path(f.db.parent().unwrap());
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("x"), b"x").unwrap();
        let s = load(&f.db);
        assert!(!s.indexed());
        for (q, want) in f.queries.iter().zip(&f.expected) {
            assert_eq!(&s.search(q, TOP), want);
        }
        std::fs::remove_dir_all(&path).unwrap();
        std::fs::write(&path, &f.good).unwrap();
    });
}
