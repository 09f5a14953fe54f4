//! Exact top-k search over a brain's vectors, and the derived index that makes it
//! fast for sparse vectors.
//!
//! **Scores.** A query vector is normalised and rounded to `f32` as stored vectors are
//! ([`super::codec`]); its score against a stored vector is
//! [`super::codec::score_blob`] (sparse: the sum in component order over the stored
//! non-zero components; dense: `crabpath::vectors::dot`). Results are ranked by score,
//! best first, ties in index order (the vectors' `seq`), as the reference ranks them
//! (reference `crabpath/index.py::VectorIndex.search`, commit 134c676); when fewer
//! vectors than asked score above zero, vectors that score exactly zero follow in index
//! order, then negative ones. Every path below gives the same bits for the same
//! query and vectors.
//!
//! **The derived index** (`search.idx` beside the database, sparse layout only): the
//! posting lists of every vector component — for each component, the (row, value)
//! pairs of the vectors where it is not zero, a value named by its sign and its place
//! in its row's table of distinct magnitudes — so that a query reads the lists of its
//! own non-zero components (a few MB on 79,000 hash-v1 chunks) instead of every vector
//! (58 MB). It is memory-mapped, written atomically (temporary file, `fsync`, rename)
//! by `init`, `import` and `rollback` and by any writer once more than [`REBUILD_AFTER`]
//! vectors were added, replaced or deleted since it was built, and stamped with the
//! database's nonce, vector epoch and the revision it covers, and checked on open
//! ([`PostingsFile`]: a checksum and every offset); a damaged file is rebuilt from the
//! database by the next [`Searcher::load`], with one line on stderr. Vectors written after it
//! (`rev` above its stamp) are scored from their rows and their old entries in it are
//! left out; vectors deleted after it (table `vector_gone`) are left out too. Deleting
//! the file loses nothing: queries then read every vector row. Dense vectors (MiniLM)
//! have no derived index: every query reads them all anyway, and a second copy would
//! double the brain on disk.
//!
//! Cost: with a current index, one pass over the query's posting lists plus the rows
//! written since; otherwise one pass over every vector row.

use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rusqlite::{params, Connection};
use rustc_hash::FxHashSet;

use super::codec::{find_code, get_leb, leb_len, put_leb_at, sparse_entries, value_code};
use super::{Clock, Layout};
use crate::error::{io_error, Result};

/// The derived index's file name in the brain directory.
pub const INDEX_FILE: &str = "search.idx";

/// Vectors added since the index was built, past which the next writer rebuilds it.
pub const REBUILD_AFTER: usize = 4096;

const MAGIC: &[u8; 8] = b"CPSIDX04";
const HEADER: usize = 72;

/// The derived index's path for a brain directory.
pub fn index_path(dir: &Path) -> PathBuf {
    dir.join(INDEX_FILE)
}

/// A stored vector held in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum RowData {
    /// Non-zero components (index ascending, value).
    Sparse(Vec<(u16, f32)>),
    /// Every component.
    Dense(Vec<f32>),
}

impl RowData {
    /// Decodes a blob of `layout` (`None` if it does not fit).
    pub fn decode(blob: &[u8], layout: Layout, dim: usize) -> Option<RowData> {
        match layout {
            Layout::Sparse => {
                let e = sparse_entries(blob)?;
                if e.iter().any(|(i, _)| *i as usize >= dim) {
                    return None;
                }
                Some(RowData::Sparse(e))
            }
            Layout::Dense => super::codec::decode_unit(blob, layout, dim).map(RowData::Dense),
        }
    }

    /// The score of the unit query `q` (see the module docs).
    pub fn score(&self, q: &[f32]) -> f32 {
        match self {
            RowData::Sparse(e) => {
                let mut s = 0.0f32;
                for &(i, x) in e {
                    s += q[i as usize] * x;
                }
                s
            }
            RowData::Dense(v) => crabpath::vectors::dot(q, v),
        }
    }
}

/// A vector row: its position in index order, its node's `sym` and its data.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Position in index order (ties rank by it).
    pub seq: i64,
    /// The node's `sym`.
    pub sym: i64,
    /// The vector.
    pub data: RowData,
}

/// Why a derived index file cannot be used as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexFault {
    /// There is no file (or it cannot be opened): queries read every vector row.
    Missing,
    /// The file is there but is not a sound index of this dimension (damaged,
    /// truncated, extended, of an older format or another dimension): the reason.
    Damaged(String),
}

impl std::fmt::Display for IndexFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexFault::Missing => f.write_str("missing"),
            IndexFault::Damaged(why) => f.write_str(why),
        }
    }
}

/// The memory-mapped derived index (see the module docs).
///
/// **File layout** (little-endian `u64`s unless said): the magic `CPSIDX04`; the
/// database's nonce, the vector epoch, the revision covered, the dimension `dim`, the
/// number of rows, the length in bytes of the entries `nbytes`; the checksum: the
/// CRC-32 of every other byte of the file (the 56 header bytes before it, then
/// everything after it); the number of table values `nvals`; per row its `sym`; per
/// row its `seq`; `rows + 1` table starts (`u32`: values of the tables before row
/// `r`'s); the `nvals` values (`f32`; a row's table holds the distinct magnitudes of
/// its components in component order of first appearance, as the database's blobs
/// do, [`super::codec::sparse_entries`]); `dim + 1` list starts (bytes of the entries
/// before component `j`'s list); the entries, each list's rows ascending: the row as
/// the gap from the list's previous row (the row itself for the first), then the
/// value's code in the row's table (its magnitude's place times 2, plus 1 when
/// negative, `super::codec::value_code`), both in LEB128 (7 bits a byte, low first, at
/// most 5 bytes).
/// `CPSIDX02` held each row as a `u32` and the value as an `f32` (8 bytes an entry);
/// `CPSIDX03` the gap in LEB128 and the `f32` (about 5 bytes); a hash-v1 vector has
/// about 5 distinct magnitudes (feature counts over one norm), so a code fits a byte
/// and an entry takes about 2 bytes (`BENCHMARKS.md`, "Brain size", has the sizes). An index of an older format is rebuilt from the database as a damaged one is.
///
/// **Checked on open** ([`PostingsFile::open`]): the length is exactly what the header
/// says, the checksum matches, the list starts begin at 0, never decrease and end at
/// `nbytes`, the table starts likewise end at `nvals`; a search reads a list's entries
/// only while they are whole, name rows below the number of rows and codes within the
/// values, so that no read of the map can go out of range, whatever the
/// bytes. (`CPSIDX02` checked every entry's row on open; walking the LEB128 gaps
/// there cost a query from a new process 30 ms on the 79,118-chunk brain.) Cost of the
/// check: one CRC-32 pass over the file, one pass over the list starts and one over
/// the table starts (4 bytes a row), measured per
/// open by `examples/index_check.rs` on a generated index the size of the 79,118-chunk
/// brain's (`BENCHMARKS.md`, "The search index's checksum", has the times and why not
/// SHA-256). A resident brain (daemon, MCP) pays it once.
pub struct PostingsFile {
    map: Mmap,
    dim: usize,
    rows: usize,
    seqs_at: usize,
    /// The table starts, `rows + 1` of them, and the table values, read once on open
    /// (4 bytes a row and a value; a query looks one of each up per entry).
    bases: Vec<u32>,
    vals: Vec<f32>,
    /// The database it was built from ([`super::Store::nonce`]).
    pub nonce: i64,
    /// The vector epoch it was built at.
    pub epoch: i64,
    /// The revision it covers.
    pub rev: i64,
    starts_at: usize,
    entries_at: usize,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Where the checksum sits in the header (a `u64` holding the CRC-32).
const SUM_AT: usize = 56;
const SUM_LEN: usize = 8;

/// The checksum field of an index file's bytes: the CRC-32 (IEEE) of everything but
/// the field, as a little-endian `u64`.
fn checksum(bytes: &[u8]) -> [u8; SUM_LEN] {
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..SUM_AT]);
    h.update(&bytes[SUM_AT + SUM_LEN..]);
    u64::from(h.finalize()).to_le_bytes()
}

/// Where the number of table values sits in the header.
const NVALS_AT: usize = 64;

/// The section offsets of an index (see [`PostingsFile`]).
#[derive(Debug, Clone, Copy)]
struct Sections {
    seqs_at: usize,
    bases_at: usize,
    vals_at: usize,
    starts_at: usize,
    entries_at: usize,
    len: usize,
}

/// The section offsets of an index of `rows` rows, `nvals` table values, `dim`
/// components and `nbytes` bytes of entries; `None` when they overflow.
fn layout_of(rows: usize, nvals: usize, dim: usize, nbytes: usize) -> Option<Sections> {
    let seqs_at = HEADER.checked_add(rows.checked_mul(8)?)?;
    let bases_at = seqs_at.checked_add(rows.checked_mul(8)?)?;
    let vals_at = bases_at.checked_add(rows.checked_add(1)?.checked_mul(4)?)?;
    let starts_at = vals_at.checked_add(nvals.checked_mul(4)?)?;
    let entries_at = starts_at.checked_add(dim.checked_add(1)?.checked_mul(8)?)?;
    let len = entries_at.checked_add(nbytes)?;
    Some(Sections {
        seqs_at,
        bases_at,
        vals_at,
        starts_at,
        entries_at,
        len,
    })
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

/// The entry at byte `at` of a posting list: its row gap, its value's code in the
/// row's table and the byte after it; `None` where the bytes stop being a whole entry
/// (a number of more than 5 bytes or past `u32`, cut short). One-byte numbers (most of
/// them) are read first.
#[inline(always)]
fn read_entry(bytes: &[u8], at: usize) -> Option<(u32, u32, usize)> {
    let mut at = at;
    let mut next = || match *bytes.get(at)? {
        b if b < 0x80 => {
            at += 1;
            Some(u32::from(b))
        }
        _ => get_leb(bytes, &mut at),
    };
    let (gap, code) = (next()?, next()?);
    Some((gap, code, at))
}

/// What [`check`] found in a sound index file.
struct Checked {
    stamp: (i64, i64, i64),
    rows: usize,
    at: Sections,
}

/// Checks the bytes of an index file of dimension `dim` (see [`PostingsFile`]):
/// its stamp (nonce, epoch, rev), rows and section offsets, or why it is unusable.
/// Never panics, whatever the bytes.
fn check(b: &[u8], dim: usize) -> std::result::Result<Checked, String> {
    if b.len() < 8 || &b[..8] != MAGIC {
        return Err(if b.starts_with(b"CPSIDX") {
            "of an older format".into()
        } else {
            "not a search index (bad magic)".into()
        });
    }
    if b.len() < HEADER {
        return Err(format!("truncated ({} bytes, header is {HEADER})", b.len()));
    }
    let fdim = u64_at(b, 32);
    let rows = u64_at(b, 40);
    let nbytes = u64_at(b, 48);
    let nvals = u64_at(b, NVALS_AT);
    if fdim != dim as u64 {
        return Err(format!("of dimension {fdim}, the brain's is {dim}"));
    }
    let size = |x: u64| usize::try_from(x).ok();
    let (Some(rows), Some(nbytes), Some(nvals)) = (size(rows), size(nbytes), size(nvals)) else {
        return Err("header sizes out of range".into());
    };
    if rows > u32::MAX as usize || nvals > u32::MAX as usize {
        return Err(format!(
            "{rows} rows, {nvals} values: more than an entry can name"
        ));
    }
    let Some(at) = layout_of(rows, nvals, dim, nbytes) else {
        return Err("header sizes out of range".into());
    };
    let len = at.len;
    if b.len() != len {
        return Err(format!(
            "{} bytes where its header says {len} (truncated or extended)",
            b.len()
        ));
    }
    if b[SUM_AT..SUM_AT + SUM_LEN] != checksum(b) {
        return Err("checksum mismatch".into());
    }
    let mut prev = 0u64;
    for j in 0..=dim {
        let s = u64_at(b, at.starts_at + j * 8);
        if (j == 0 && s != 0) || s < prev || s > nbytes as u64 {
            return Err(format!("posting list {j} starts out of order"));
        }
        prev = s;
    }
    if prev != nbytes as u64 {
        return Err("posting lists do not end at the entries' length".into());
    }
    let mut prev = 0u32;
    for r in 0..=rows {
        let s = u32_at(b, at.bases_at + r * 4);
        if (r == 0 && s != 0) || s < prev || s as usize > nvals {
            return Err(format!("the value table of row {r} starts out of order"));
        }
        prev = s;
    }
    if prev as usize != nvals {
        return Err("the value tables do not end at the number of values".into());
    }
    let stamp = |at: usize| u64_at(b, at) as i64;
    Ok(Checked {
        stamp: (stamp(8), stamp(16), stamp(24)),
        rows,
        at,
    })
}

impl PostingsFile {
    /// Maps the index at `path` and checks it (see [`PostingsFile`]) against the
    /// dimension `dim`: [`IndexFault::Missing`] without a file,
    /// [`IndexFault::Damaged`] for bytes that are not a sound index of `dim`. Never
    /// panics, whatever the file holds.
    pub fn open(path: &Path, dim: usize) -> std::result::Result<PostingsFile, IndexFault> {
        let file = std::fs::File::open(path).map_err(|_| IndexFault::Missing)?;
        // SAFETY: the file is never modified in place (it is replaced by an atomic
        // rename), so the mapped bytes cannot change while mapped.
        let map = unsafe { Mmap::map(&file) }
            .map_err(|e| IndexFault::Damaged(format!("cannot be mapped: {e}")))?;
        let c = check(&map, dim).map_err(IndexFault::Damaged)?;
        let (nonce, epoch, rev) = c.stamp;
        let bases = map[c.at.bases_at..c.at.vals_at]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let vals = map[c.at.vals_at..c.at.starts_at]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(PostingsFile {
            map,
            dim,
            rows: c.rows,
            seqs_at: c.at.seqs_at,
            bases,
            vals,
            nonce,
            epoch,
            rev,
            starts_at: c.at.starts_at,
            entries_at: c.at.entries_at,
        })
    }

    /// The stamp (nonce, vector epoch, revision) of the index at `path`, read from its
    /// header alone, when its header and length are those of an index of dimension
    /// `dim` (the body is checked when it is opened for a search). Cost: one
    /// 72-byte read.
    pub fn stamp(path: &Path, dim: usize) -> Option<(i64, i64, i64)> {
        use std::io::Read;
        let mut f = std::fs::File::open(path).ok()?;
        let len = f.metadata().ok()?.len();
        let mut h = [0u8; HEADER];
        f.read_exact(&mut h).ok()?;
        if &h[..8] != MAGIC || u64_at(&h, 32) != dim as u64 {
            return None;
        }
        let rows = usize::try_from(u64_at(&h, 40)).ok()?;
        let nbytes = usize::try_from(u64_at(&h, 48)).ok()?;
        let nvals = usize::try_from(u64_at(&h, NVALS_AT)).ok()?;
        let want = layout_of(rows, nvals, dim, nbytes)?.len;
        (want as u64 == len).then(|| {
            (
                u64_at(&h, 8) as i64,
                u64_at(&h, 16) as i64,
                u64_at(&h, 24) as i64,
            )
        })
    }

    /// Number of indexed vectors.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The `sym` of an indexed row.
    pub fn sym(&self, row: usize) -> i64 {
        u64_at(&self.map, HEADER + row * 8) as i64
    }

    /// The index-order position of an indexed row.
    pub fn seq(&self, row: usize) -> i64 {
        u64_at(&self.map, self.seqs_at + row * 8) as i64
    }

    fn start(&self, j: usize) -> usize {
        u64_at(&self.map, self.starts_at + j * 8) as usize
    }

    /// Adds `qj · value` to the score of every row of component `j`'s list (in range:
    /// [`PostingsFile::open`] checked the list and table starts; rows and places are
    /// checked here against the number of rows and of values).
    fn accumulate(&self, j: usize, qj: f32, s: &mut Scratch) {
        if j >= self.dim {
            return;
        }
        let (a, b) = (self.start(j), self.start(j + 1));
        let bytes = &self.map[self.entries_at + a..self.entries_at + b];
        // the query's inner loop: a list that stops being whole entries, or names a row
        // past the end or a place past the values (bytes forged behind a valid
        // checksum), ends there; a place past its own row's table but among the values
        // (forged too) reads another row's value: wrong, but in range
        let (bases, vals) = (&self.bases[..self.rows], &self.vals[..]);
        // the buffers as plain slices: the loop then keeps their addresses in registers
        let Scratch {
            acc, seen, touched, ..
        } = s;
        let (acc, seen) = (&mut acc[..], &mut seen[..]);
        let (mut at, mut row) = (0usize, 0usize);
        while let Some((gap, code, next)) = read_entry(bytes, at) {
            row = row.saturating_add(gap as usize);
            let Some(&lo) = bases.get(row) else {
                break;
            };
            let Some(x) = vals
                .get(lo as usize..)
                .and_then(|t| super::codec::code_value(t, code))
            else {
                break;
            };
            at = next;
            add_to(acc, seen, touched, row, qj * x);
        }
    }
}

/// What a pass of [`postings_in_passes`] calls per row: its `seq`, its `sym` and its
/// non-zero components.
type Visit<'a> = dyn FnMut(i64, i64, &mut dyn Iterator<Item = (u16, f32)>) + 'a;

/// The bytes of a derived index over `rows` (in index order) of the database `nonce`
/// at `clock`.
pub fn postings_bytes(rows: &[Row], dim: usize, nonce: i64, clock: Clock) -> Vec<u8> {
    let pass = |visit: &mut Visit<'_>| {
        for r in rows {
            match &r.data {
                RowData::Sparse(e) => visit(r.seq, r.sym, &mut e.iter().copied()),
                RowData::Dense(_) => visit(r.seq, r.sym, &mut std::iter::empty()),
            }
        }
        Ok::<(), std::convert::Infallible>(())
    };
    match postings_in_passes(dim, nonce, clock, pass) {
        Ok((bytes, _)) => bytes,
        Err(never) => match never {},
    }
}

/// The bytes of the derived index of every committed vector readable through `conn`
/// (all of them, in index order, as [`read_rows`] reads them for `after < 0`), with the
/// number of rows indexed, built in two passes over the table (see
/// `postings_in_passes`) so that the decoded vectors are never all in memory: the
/// peak is the index file's bytes plus 16 bytes per row and the rows' value tables (4 bytes a
/// distinct value of a row, about 5 of them in a hash-v1 row). The caller makes the two reads
/// consistent (one transaction).
pub fn postings_from_db(
    conn: &Connection,
    dim: usize,
    nonce: i64,
    clock: Clock,
) -> rusqlite::Result<(Vec<u8>, usize)> {
    let mut stmt = conn.prepare("SELECT seq, sym, v FROM vectors WHERE rev > -1 ORDER BY seq")?;
    let pass = |visit: &mut Visit<'_>| {
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let seq: i64 = r.get(0)?;
            let sym: i64 = r.get(1)?;
            let blob = r.get_ref(2)?.as_blob()?;
            // a blob that does not fit the layout (edited by hand) is left out, as
            // `RowData::decode` leaves it out
            if let Some(e) = sparse_entries(blob) {
                if e.iter().all(|&(i, _)| (i as usize) < dim) {
                    visit(seq, sym, &mut e.into_iter());
                }
            }
        }
        Ok(())
    };
    postings_in_passes(dim, nonce, clock, pass)
}

/// One home of the index file's layout (see [`PostingsFile`]): `pass` calls its
/// argument once per row, in index order, with the row's `seq`, `sym` and non-zero
/// components (index ascending; every index below `dim`), and is called twice, giving
/// the same rows both times: the first pass counts each component's entries and keeps
/// each row's `sym`, `seq` and table of values, the second places each entry in the
/// output directly.
/// Rows or entries the second pass gives beyond the first's are left out (they cannot
/// occur when both passes read the same rows). Returns the bytes and the number of rows.
fn postings_in_passes<E>(
    dim: usize,
    nonce: i64,
    clock: Clock,
    mut pass: impl FnMut(&mut Visit<'_>) -> std::result::Result<(), E>,
) -> std::result::Result<(Vec<u8>, usize), E> {
    // counts[j + 1]: the bytes of component j's list (then, summed, the starts)
    let mut counts = vec![0u64; dim + 1];
    let mut last: Vec<Option<u32>> = vec![None; dim];
    let mut syms: Vec<i64> = Vec::new();
    let mut seqs: Vec<i64> = Vec::new();
    // the rows' tables of magnitudes (bits), and where each row's starts
    let mut vals: Vec<u32> = Vec::new();
    let mut bases: Vec<u32> = vec![0];
    pass(&mut |seq, sym, entries| {
        let row = syms.len() as u32;
        syms.push(sym);
        seqs.push(seq);
        let base = vals.len();
        for (i, x) in entries {
            let i = i as usize;
            if let (Some(c), Some(l)) = (counts.get_mut(i + 1), last.get_mut(i)) {
                let code = value_code(&mut vals, base, x);
                *c += (leb_len(row - l.unwrap_or(0)) + leb_len(code)) as u64;
                *l = Some(row);
            }
        }
        bases.push(vals.len() as u32);
    })?;
    for j in 0..dim {
        counts[j + 1] += counts[j];
    }
    let nbytes = counts[dim] as usize;
    let rows = syms.len();
    // the entries are placed straight into the output (a separate buffer copied in at
    // the end held the index's largest section twice at init's peak)
    let mut out = Vec::with_capacity(layout_of(rows, vals.len(), dim, nbytes).map_or(0, |s| s.len));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(nonce as u64).to_le_bytes());
    out.extend_from_slice(&(clock.vectors as u64).to_le_bytes());
    out.extend_from_slice(&(clock.rev as u64).to_le_bytes());
    out.extend_from_slice(&(dim as u64).to_le_bytes());
    out.extend_from_slice(&(rows as u64).to_le_bytes());
    out.extend_from_slice(&(nbytes as u64).to_le_bytes());
    out.extend_from_slice(&[0u8; SUM_LEN]);
    out.extend_from_slice(&(vals.len() as u64).to_le_bytes());
    for s in syms {
        out.extend_from_slice(&(s as u64).to_le_bytes());
    }
    for s in seqs {
        out.extend_from_slice(&(s as u64).to_le_bytes());
    }
    for b in &bases {
        out.extend_from_slice(&b.to_le_bytes());
    }
    for v in &vals {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for c in &counts {
        out.extend_from_slice(&c.to_le_bytes());
    }
    let entries_at = out.len();
    out.resize(entries_at + nbytes, 0);
    let entries = &mut out[entries_at..];
    let mut next = counts.clone();
    let mut last: Vec<Option<u32>> = vec![None; dim];
    let mut row = 0usize;
    pass(&mut |_, _, e| {
        if row < rows {
            let (lo, hi) = (bases[row] as usize, bases[row + 1] as usize);
            for (i, x) in e {
                let i = i as usize;
                if i >= dim {
                    continue;
                }
                let Some(code) = find_code(&vals[lo..hi], x) else {
                    continue;
                };
                let gap = row as u32 - last[i].unwrap_or(0);
                let (at, end) = (next[i] as usize, counts[i + 1] as usize);
                if at + leb_len(gap) + leb_len(code) > end {
                    continue;
                }
                let at = at + put_leb_at(&mut entries[at..], gap);
                let at = at + put_leb_at(&mut entries[at..], code);
                next[i] = at as u64;
                last[i] = Some(row as u32);
            }
        }
        row += 1;
    })?;
    let sum = checksum(&out);
    out[SUM_AT..SUM_AT + SUM_LEN].copy_from_slice(&sum);
    Ok((out, rows))
}

/// The vector rows with `rev > after`, in index order (all of them for `after < 0`).
pub fn read_rows(
    conn: &Connection,
    layout: Layout,
    dim: usize,
    after: i64,
) -> rusqlite::Result<Vec<Row>> {
    // all of them: one pass in index order; the newer ones: through the index on `rev`
    // (an ORDER BY here would make SQLite scan the whole table in `seq` order)
    let sql = if after < 0 {
        "SELECT seq, sym, v FROM vectors WHERE rev > ?1 ORDER BY seq"
    } else {
        "SELECT seq, sym, v FROM vectors INDEXED BY vectors_rev WHERE rev > ?1"
    };
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map(params![after], |r| {
        let seq: i64 = r.get(0)?;
        let sym: i64 = r.get(1)?;
        let blob = r.get_ref(2)?.as_blob()?;
        Ok((seq, sym, RowData::decode(blob, layout, dim)))
    })?;
    let mut out = Vec::new();
    for r in rows {
        let (seq, sym, data) = r?;
        // a blob that does not fit the layout (edited by hand) is left out
        if let Some(data) = data {
            out.push(Row { seq, sym, data });
        }
    }
    out.sort_by_key(|r| r.seq);
    Ok(out)
}

/// The `sym`s of the vectors deleted after revision `after`.
pub fn read_gone(conn: &Connection, after: i64) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT sym FROM vector_gone WHERE rev > ?1")?;
    let rows = stmt.query_map(params![after], |r| r.get(0))?;
    rows.collect()
}

/// Writes the derived index of the committed vectors (see the module docs) from one
/// consistent read of `conn`. Returns the number of vectors indexed. A dense brain
/// has none (nothing is written, an old file is removed).
pub fn rebuild(
    conn: &Connection,
    dir: &Path,
    layout: Layout,
    dim: usize,
    nonce: i64,
) -> Result<usize> {
    let path = index_path(dir);
    if layout == Layout::Dense {
        let _ = std::fs::remove_file(&path);
        return Ok(0);
    }
    let db = dir.join(super::schema::DB_FILE);
    let err = super::sql_error(&db);
    // one read transaction: the two passes of `postings_from_db` see the same rows
    conn.execute_batch("BEGIN").map_err(&err)?;
    let read = (|| -> rusqlite::Result<(Clock, Vec<u8>, usize)> {
        let clock = super::read_clock(conn)?;
        let (bytes, rows) = postings_from_db(conn, dim, nonce, clock)?;
        Ok((clock, bytes, rows))
    })();
    conn.execute_batch("COMMIT").map_err(&err)?;
    let (clock, bytes, rows) = read.map_err(&err)?;
    write_index(&path, &bytes).map_err(|e| io_error(&path, e))?;
    drop(bytes);
    // deletions the index no longer needs to be told about
    let _ = conn.execute(
        "DELETE FROM vector_gone WHERE rev <= ?1",
        params![clock.rev],
    );
    Ok(rows)
}

/// Writes an index file atomically (temporary file, `fsync`, rename); the error
/// without the path (the caller names it).
fn write_index(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    pyformat::io::write_atomic(path, bytes).map_err(|e| match e {
        pyformat::Error::Io { source, .. } => source,
        other => std::io::Error::other(other.to_string()),
    })
}

/// Whether the derived index of a sparse brain should be rebuilt: it is missing, of
/// another database or epoch, or more than [`REBUILD_AFTER`] vectors were added since.
/// Cost: a header read and one indexed count (a damaged body is found by the next
/// [`Searcher::load`], which rebuilds it).
pub fn needs_rebuild(
    conn: &Connection,
    dir: &Path,
    dim: usize,
    nonce: i64,
) -> rusqlite::Result<bool> {
    let clock = super::read_clock(conn)?;
    let file = PostingsFile::stamp(&index_path(dir), dim)
        .filter(|&(n, epoch, rev)| n == nonce && epoch == clock.vectors && rev <= clock.rev);
    let after = file.map_or(-1, |(_, _, rev)| rev);
    let newer: i64 = conn.query_row(
        "SELECT (SELECT COUNT(*) FROM vectors WHERE rev > ?1) + (SELECT COUNT(*) FROM vector_gone WHERE rev > ?1)",
        params![after],
        |r| r.get(0),
    )?;
    Ok(match file {
        Some(_) => newer as usize > REBUILD_AFTER,
        None => newer > 0,
    })
}

/// Adds `x` to the score of `row` in [`Scratch`]'s buffers, marking the row touched
/// (`acc` and `seen` are sized for every row by [`Scratch::start`]).
#[inline(always)]
fn add_to(acc: &mut [f32], seen: &mut [u64], touched: &mut Vec<u32>, row: usize, x: f32) {
    let (w, bit) = (row >> 6, 1u64 << (row & 63));
    if seen[w] & bit == 0 {
        seen[w] |= bit;
        touched.push(row as u32);
    }
    acc[row] += x;
}

/// Per-query buffers of [`Searcher::search`], kept between queries: a score per row
/// (zero between queries) and a bit per row saying the query touched it, with the list
/// of touched rows, so that a query costs what it touches, not the number of rows.
#[derive(Debug, Default)]
struct Scratch {
    acc: Vec<f32>,
    seen: Vec<u64>,
    touched: Vec<u32>,
    positive: Vec<u32>,
}

impl Scratch {
    fn start(&mut self, n: usize) {
        if self.acc.len() < n {
            self.acc.resize(n, 0.0);
            self.seen.resize(n.div_ceil(64), 0);
        }
        self.touched.clear();
    }

    #[inline]
    fn add(&mut self, row: usize, x: f32) {
        add_to(&mut self.acc, &mut self.seen, &mut self.touched, row, x);
    }

    #[inline]
    fn score(&self, row: usize) -> f32 {
        self.acc[row]
    }

    /// Back to zero for the next query.
    fn finish(&mut self) {
        for &r in &self.touched {
            let r = r as usize;
            self.acc[r] = 0.0;
            self.seen[r >> 6] = 0;
        }
    }
}

/// The searchable vectors of a brain: the derived index when current, the rows it
/// does not hold, and the entries of it that are no longer valid (see the module docs).
pub struct Searcher {
    layout: Layout,
    dim: usize,
    nonce: i64,
    file: Option<PostingsFile>,
    /// Vectors written after the index (all of them without one), in index order.
    rows: Vec<Row>,
    /// `sym`s whose entry in the index is replaced or deleted.
    excluded: FxHashSet<i64>,
    /// Per row of the index: its entry is one of `excluded`.
    dead: Vec<bool>,
    /// Per-query buffers.
    scratch: std::sync::Mutex<Scratch>,
    /// The vector epoch and revision covered.
    pub clock: Clock,
}

impl Searcher {
    /// Everything searchable through `conn` now (inside a transaction: as that
    /// transaction sees it). `dir` holds the derived index.
    ///
    /// A damaged index file (see [`PostingsFile::open`]) is not used: it is rebuilt
    /// from the rows read here (all of them, as [`rebuild`] reads them) and one line on
    /// stderr says so; when it cannot be written (a read-only directory) the line says
    /// that, and this searcher reads the rows alone.
    pub fn load(
        conn: &Connection,
        dir: &Path,
        layout: Layout,
        dim: usize,
        nonce: i64,
    ) -> rusqlite::Result<Searcher> {
        let clock = super::read_clock(conn)?;
        let (file, damaged) = match layout {
            Layout::Sparse => match PostingsFile::open(&index_path(dir), dim) {
                Ok(f) => (Some(f), None),
                Err(IndexFault::Missing) => (None, None),
                Err(IndexFault::Damaged(why)) => (None, Some(why)),
            },
            Layout::Dense => (None, None),
        };
        let file =
            file.filter(|f| f.nonce == nonce && f.epoch == clock.vectors && f.rev <= clock.rev);
        let after = file.as_ref().map_or(-1, |f| f.rev);
        let rows = read_rows(conn, layout, dim, after)?;
        if let Some(why) = damaged {
            let path = index_path(dir);
            let outcome = match write_index(&path, &postings_bytes(&rows, dim, nonce, clock)) {
                Ok(()) => "rebuilt from the database".to_string(),
                Err(e) => format!("cannot rebuild it ({e}), so this search reads every vector"),
            };
            eprintln!(
                "crabpath: warning: {}: search index unusable ({why}); {outcome}",
                path.display()
            );
        }
        let mut excluded: FxHashSet<i64> = FxHashSet::default();
        if file.is_some() {
            excluded.extend(rows.iter().map(|r| r.sym));
            excluded.extend(read_gone(conn, after)?);
        }
        let mut s = Searcher {
            layout,
            dim,
            nonce,
            file,
            rows,
            excluded,
            dead: Vec::new(),
            scratch: Default::default(),
            clock,
        };
        s.mark_dead();
        Ok(s)
    }

    /// Marks the rows of the index whose entries are left out (one pass over its rows).
    fn mark_dead(&mut self) {
        self.dead = match &self.file {
            Some(f) if !self.excluded.is_empty() => (0..f.rows())
                .map(|i| self.excluded.contains(&f.sym(i)))
                .collect(),
            _ => Vec::new(),
        };
    }

    /// Brings the searcher up to date with `conn`: vectors written since are taken
    /// (a replaced one in place), deleted ones dropped; after a wholesale change (a new
    /// epoch) everything is read again. Returns whether anything changed.
    pub fn refresh(&mut self, conn: &Connection, dir: &Path) -> rusqlite::Result<bool> {
        let clock = super::read_clock(conn)?;
        if clock.vectors != self.clock.vectors {
            // a new epoch may come with a new layout and dimension (`reembed`)
            let (layout, dim) =
                conn.query_row("SELECT layout, dim FROM brain WHERE id = 1", [], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })?;
            let layout = Layout::parse(&layout).unwrap_or(self.layout);
            let dim = usize::try_from(dim).unwrap_or(self.dim);
            *self = Searcher::load(conn, dir, layout, dim, self.nonce)?;
            return Ok(true);
        }
        if clock.rev == self.clock.rev {
            return Ok(false);
        }
        let written = read_rows(conn, self.layout, self.dim, self.clock.rev)?;
        let gone = read_gone(conn, self.clock.rev)?;
        let changed = !written.is_empty() || !gone.is_empty();
        let gone_set: FxHashSet<i64> = gone.iter().copied().collect();
        let written_syms: FxHashSet<i64> = written.iter().map(|r| r.sym).collect();
        self.rows
            .retain(|r| !gone_set.contains(&r.sym) && !written_syms.contains(&r.sym));
        self.rows.extend(written);
        self.rows.sort_by_key(|r| r.seq);
        if self.file.is_some() {
            let before = self.excluded.len();
            self.excluded.extend(written_syms);
            self.excluded.extend(gone);
            if self.excluded.len() != before {
                self.mark_dead();
            }
        }
        self.clock = clock;
        Ok(changed)
    }

    /// Whether a current derived index is in use.
    pub fn indexed(&self) -> bool {
        self.file.is_some()
    }

    /// Total vectors.
    ///
    /// Cost: O(r) where r is the derived index's row count (see [`Self::in_index`]).
    pub fn len(&self) -> usize {
        self.in_index() + self.rows.len()
    }

    /// Vectors served from the derived index: its rows less those left out (rewritten
    /// or deleted since it was built). Never more than [`Self::len`]. (It
    /// replaces `len − unindexed`, where `unindexed` counted a rewritten vector twice, as
    /// a row and as an excluded entry, and a deleted one that is no longer a vector: after
    /// a sync that went below zero, a panic of `doctor` and `info` in debug builds.)
    ///
    /// Cost: O(r) where r is the derived index's row count.
    pub fn in_index(&self) -> usize {
        self.file.as_ref().map_or(0, |f| {
            (0..f.rows())
                .filter(|&i| !self.excluded.contains(&f.sym(i)))
                .count()
        })
    }

    /// Whether there are no vectors.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.file.as_ref().is_none_or(|f| f.rows() == 0)
    }

    /// The `top_k` best vectors for `query` as (`sym`, score) (see the module docs).
    /// A query of another dimension, or with a non-finite component, matches nothing.
    ///
    /// Cost: see the module docs; plus a sort of the vectors that score above zero.
    pub fn search(&self, query: &[f64], top_k: usize) -> Vec<(i64, f32)> {
        if top_k == 0 || query.len() != self.dim || self.is_empty() {
            return Vec::new();
        }
        if query.iter().any(|x| !x.is_finite()) {
            return Vec::new();
        }
        let mut q = vec![0.0f32; self.dim];
        crabpath::vectors::normalize_into(query, &mut q);
        let base = self.file.as_ref().map_or(0, |f| f.rows());
        let n = base + self.rows.len();
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        s.start(n);
        if let Some(f) = &self.file {
            for (j, &qj) in q.iter().enumerate() {
                if qj != 0.0 {
                    f.accumulate(j, qj, s);
                }
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            let x = r.data.score(&q);
            s.add(base + i, x);
        }
        let file = self.file.as_ref();
        let dead = &self.dead;
        let live = |i: u32| -> bool { dead.get(i as usize).is_none_or(|d| !d) };
        let seq = |i: u32| -> i64 {
            let i = i as usize;
            if i < base {
                file.map_or(0, |f| f.seq(i))
            } else {
                self.rows[i - base].seq
            }
        };
        let mut positive = std::mem::take(&mut s.positive);
        positive.clear();
        let score = |i: u32| s.score(i as usize);
        let by_rank =
            |a: &u32, b: &u32| score(*b).total_cmp(&score(*a)).then(seq(*a).cmp(&seq(*b)));
        if top_k <= 64 {
            // the best k so far, in rank order: one comparison for most rows
            for &i in &s.touched {
                if score(i) <= 0.0 || !live(i) {
                    continue;
                }
                if positive.len() == top_k
                    && by_rank(&i, positive.last().expect("k > 0")) != std::cmp::Ordering::Less
                {
                    continue;
                }
                let at = positive.partition_point(|p| by_rank(p, &i) == std::cmp::Ordering::Less);
                positive.insert(at, i);
                positive.truncate(top_k);
            }
        } else {
            positive.extend(
                s.touched
                    .iter()
                    .copied()
                    .filter(|&i| score(i) > 0.0 && live(i)),
            );
        }
        let complete = top_k <= 64 && positive.len() == top_k;
        let mut order: Vec<u32> = if complete || positive.len() >= top_k {
            if top_k < positive.len() {
                positive.select_nth_unstable_by(top_k - 1, by_rank);
            }
            let mut top = positive[..top_k].to_vec();
            top.sort_unstable_by(by_rank);
            top
        } else {
            positive.sort_unstable_by(by_rank);
            let mut out = positive.clone();
            let mut zeros: Vec<u32> = (0..n as u32)
                .filter(|&i| score(i) == 0.0 && live(i))
                .collect();
            zeros.sort_unstable_by_key(|&i| seq(i));
            out.extend(zeros.into_iter().take(top_k - out.len()));
            if out.len() < top_k {
                let mut negative: Vec<u32> = s
                    .touched
                    .iter()
                    .copied()
                    .filter(|&i| score(i) < 0.0 && live(i))
                    .collect();
                negative.sort_unstable_by(by_rank);
                out.extend(negative);
            }
            out
        };
        order.truncate(top_k);
        let found = order
            .into_iter()
            .map(|i| {
                let sym = if (i as usize) < base {
                    file.map_or(-1, |f| f.sym(i as usize))
                } else {
                    self.rows[i as usize - base].sym
                };
                (sym, score(i))
            })
            .collect();
        s.positive = positive;
        s.finish();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        let v = |seq: i64, e: &[(u16, f32)]| Row {
            seq,
            sym: e.len() as i64 * 10 + e[0].0 as i64,
            data: RowData::Sparse(e.to_vec()),
        };
        vec![
            v(1, &[(0, 1.0)]),
            v(2, &[(1, 0.6), (2, 0.8)]),
            v(3, &[(0, -0.6), (3, 0.8)]),
            v(4, &[(3, 1.0)]),
        ]
    }

    #[test]
    fn postings_and_rows_rank_alike() {
        let dir = tempfile::tempdir().unwrap();
        let rows = rows();
        let clock = Clock {
            rev: 3,
            seq: 9,
            structure: 0,
            vectors: 2,
        };
        std::fs::write(index_path(dir.path()), postings_bytes(&rows, 4, 7, clock)).unwrap();
        let file = PostingsFile::open(&index_path(dir.path()), 4).unwrap();
        assert_eq!(
            (file.nonce, file.epoch, file.rev, file.rows()),
            (7, 2, 3, 4)
        );
        assert!(matches!(
            PostingsFile::open(&index_path(dir.path()), 5),
            Err(IndexFault::Damaged(_))
        ));
        let with_file = Searcher {
            layout: Layout::Sparse,
            dim: 4,
            nonce: 7,
            file: Some(file),
            rows: Vec::new(),
            excluded: FxHashSet::default(),
            dead: Vec::new(),
            scratch: Default::default(),
            clock,
        };
        let without = Searcher {
            layout: Layout::Sparse,
            dim: 4,
            nonce: 7,
            file: None,
            rows: rows.clone(),
            excluded: FxHashSet::default(),
            dead: Vec::new(),
            scratch: Default::default(),
            clock,
        };
        for q in [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 1.0, 0.0],
            [0.2, 0.0, 0.0, -1.0],
        ] {
            for k in 1..=5 {
                assert_eq!(with_file.search(&q, k), without.search(&q, k), "{q:?} {k}");
            }
        }
        // best first, then zeros in index order, then negatives
        let r = without.search(&[1.0, 0.0, 0.0, 0.0], 4);
        let syms: Vec<i64> = r.iter().map(|x| x.0).collect();
        assert_eq!(syms, [rows[0].sym, rows[1].sym, rows[3].sym, rows[2].sym]);
        assert_eq!(r[0].1, 1.0);
        assert!(r[3].1 < 0.0);
        assert!(without.search(&[1.0, 0.0, 0.0], 2).is_empty());
        assert!(without.search(&[f64::NAN, 0.0, 0.0, 0.0], 2).is_empty());
    }
}
