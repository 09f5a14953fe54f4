//! A binary sidecar of a state's vector index, so that a large brain opens in
//! milliseconds instead of seconds (not in the reference). `state.json` stays the
//! interchange format: the sidecar `<state>.idx` is a cache beside it, rewritten after
//! every save by this program and ignored as soon as the state file is not the very
//! file it was made for.
//!
//! Why: the index is most of a state file (1024 numbers of about 20 characters per
//! chunk with hash-v1: 200 MB for 10,000 chunks), and parsing decimal floats dominates
//! the load. The sidecar holds the same vectors as little-endian `f64` (bit-identical:
//! the file's decimal spellings round-trip) and the byte offsets of the file's
//! top-level `"index"` and `"meta"` members, so a load parses only the graph (the
//! beginning of the file) and the metadata (its end) and copies the vectors.
//!
//! Layout (little-endian): `CRABIDX1`, the state file's size, modification time
//! (ns) and inode, the offsets of `\n  "index": ` and `\n  "meta": ` in it, a
//! checksum of the bytes before the first and from the second, the vector count `n`
//! and dimension `d`, `n` ids (u32 length + UTF-8), then `n × d` f64.
//!
//! Validity: the state file must have exactly the recorded size, modification time
//! and inode (a save replaces the inode), the bytes at both offsets must be the two
//! member keys, and the graph and metadata parts must have the recorded checksum. Otherwise [`load`] answers `None` and the caller parses the state
//! file as usual.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::io_error;
use crate::error::Result;
use crabpath::graph::{Graph, GraphFile, Metadata};
use crabpath::index::VectorIndex;
use crabpath::state::State;
use pyformat::io::write_atomic;

const MAGIC: &[u8; 8] = b"CRABIDX1";
const INDEX_KEY: &[u8] = b"\n  \"index\": ";
const META_KEY: &[u8] = b"\n  \"meta\": ";

/// The sidecar of a state file: `<state>.idx`.
pub fn sidecar_path(state: &Path) -> PathBuf {
    let mut s = state.as_os_str().to_os_string();
    s.push(".idx");
    PathBuf::from(s)
}

/// (size, mtime ns, inode) of a file.
fn identity(path: &Path) -> Option<(u64, u64, u64)> {
    identity_of(&std::fs::metadata(path).ok()?)
}

/// (size, mtime ns, inode) from a file's metadata.
fn identity_of(m: &std::fs::Metadata) -> Option<(u64, u64, u64)> {
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos() as u64;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), t, ino))
}

/// A fast checksum of the graph and metadata parts (FxHash of their bytes).
fn checksum(head: &[u8], tail: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(head);
    h.write_u8(0xff);
    h.write(tail);
    h.finish()
}

/// Finds the top-level member keys of a state file written with `indent=2` (every
/// top-level key starts a line with exactly two spaces; strings never contain a raw
/// newline).
fn offsets(bytes: &[u8]) -> Option<(u64, u64)> {
    let find = |pat: &[u8], from: usize| {
        // candidates start at a newline followed by two spaces and a quote
        let mut at = from;
        while let Some(p) = bytes[at..].iter().position(|&b| b == b'\n') {
            let i = at + p;
            if bytes[i..].starts_with(pat) {
                return Some(i);
            }
            at = i + 1;
        }
        None
    };
    let index = find(INDEX_KEY, 0)?;
    let meta = find(META_KEY, index)?;
    Some((index as u64, meta as u64))
}

/// Writes the sidecar of the state file `path`, whose index is `index` (just saved),
/// reading the file back to find its members. Any failure removes the sidecar, so
/// that a stale one is never used.
pub fn write(path: &Path, index: &VectorIndex) -> Result<()> {
    let side = sidecar_path(path);
    let result = std::fs::read(path)
        .map_err(|e| io_error(path, e))
        .and_then(|bytes| {
            let (ix, mx) = offsets(&bytes).ok_or_else(|| {
                io_error(path, std::io::Error::other("not an indent=2 state file"))
            })?;
            write_with(path, &bytes, ix, mx, index)
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&side);
    }
    result
}

/// Writes the sidecar of the state file `path` just written from `rendered`
/// ([`crate::reference::statefile::render_state`]) — no reading back. Any failure removes the
/// sidecar.
pub fn write_rendered(
    path: &Path,
    rendered: &crate::reference::statefile::Rendered,
    index: &VectorIndex,
) -> Result<()> {
    let result = write_with(
        path,
        rendered.text.as_bytes(),
        rendered.index_at as u64,
        rendered.meta_at as u64,
        index,
    );
    if result.is_err() {
        let _ = std::fs::remove_file(sidecar_path(path));
    }
    result
}

fn write_with(path: &Path, bytes: &[u8], ix: u64, mx: u64, index: &VectorIndex) -> Result<()> {
    let side = sidecar_path(path);
    {
        let (size, mtime, ino) = identity(path)
            .ok_or_else(|| io_error(path, std::io::Error::other("cannot stat the state file")))?;
        if size != bytes.len() as u64 {
            return Err(io_error(
                path,
                std::io::Error::other("the state file changed"),
            ));
        }
        let n = index.len();
        let d = index.dim().unwrap_or(0);
        let mut out = Vec::with_capacity(64 + n * (d * 8 + 24));
        out.extend_from_slice(MAGIC);
        let check = checksum(&bytes[..ix as usize], &bytes[mx as usize..]);
        for v in [size, mtime, ino, ix, mx, check, n as u64, d as u64] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for id in index.ids() {
            out.extend_from_slice(&(id.len() as u32).to_le_bytes());
            out.extend_from_slice(id.as_bytes());
        }
        for (_, v) in index.iter() {
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        Ok(write_atomic(&side, &out)?)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u64(&mut self) -> Option<u64> {
        let v = self.b.get(self.at..self.at + 8)?;
        self.at += 8;
        Some(u64::from_le_bytes(v.try_into().ok()?))
    }
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        let v = self.b.get(self.at..self.at + n)?;
        self.at += n;
        Some(v)
    }
}

/// Loads the state file `path` through its sidecar: `None` if there is no current
/// sidecar or anything in it or in the state file does not fit (the caller then loads
/// the state file itself, which reports what is wrong with it).
///
/// Cost: reads the graph and metadata parts of the state file and the sidecar; no
/// decimal float of the index is parsed, and the vectors are read straight into the
/// index's storage.
pub fn load(path: &Path) -> Option<State> {
    let side_file = std::fs::File::open(sidecar_path(path)).ok()?;
    let side_len = side_file.metadata().ok()?.len();
    let mut side = std::io::BufReader::with_capacity(1 << 16, side_file);
    let mut header = [0u8; 8 + 8 * 8];
    side.read_exact(&mut header).ok()?;
    let mut r = Reader { b: &header, at: 0 };
    if r.bytes(8)? != MAGIC {
        return None;
    }
    let (size, mtime, ino) = (r.u64()?, r.u64()?, r.u64()?);
    // the identity of the file opened (not of the path, which a writer may replace
    // between a check and the reads)
    let mut file = std::fs::File::open(path).ok()?;
    if identity_of(&file.metadata().ok()?)? != (size, mtime, ino) {
        return None;
    }
    let (ix, mx, check) = (r.u64()? as usize, r.u64()? as usize, r.u64()?);
    let (n, d) = (r.u64()? as usize, r.u64()? as usize);
    if ix >= mx || mx as u64 > size {
        return None;
    }
    // a damaged header never makes us allocate more than the sidecar holds
    let body = (n as u64).checked_mul((d as u64).checked_mul(8)?.checked_add(4)?)?;
    if body > side_len {
        return None;
    }
    let mut head = vec![0u8; ix];
    file.read_exact(&mut head).ok()?;
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(mx as u64)).ok()?;
    file.read_to_end(&mut tail).ok()?;
    if !tail.starts_with(META_KEY) || checksum(&head, &tail) != check {
        return None;
    }
    let mut check_key = [0u8; 12];
    file.seek(SeekFrom::Start(ix as u64)).ok()?;
    file.read_exact(&mut check_key).ok()?;
    if check_key[..] != INDEX_KEY[..] {
        return None;
    }
    let mut ids = Vec::with_capacity(n);
    let mut len = [0u8; 4];
    for _ in 0..n {
        side.read_exact(&mut len).ok()?;
        let len = u32::from_le_bytes(len);
        if u64::from(len) > side_len {
            return None;
        }
        let mut id = vec![0u8; len as usize];
        side.read_exact(&mut id).ok()?;
        ids.push(String::from_utf8(id).ok()?);
    }
    let mut data = vec![0.0f64; n.checked_mul(d)?];
    {
        // SAFETY: any bit pattern is a valid f64, and a byte view of the buffer has
        // the buffer's exact size and lifetime.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), data.len() * 8)
        };
        side.read_exact(bytes).ok()?;
    }
    if cfg!(target_endian = "big") {
        for x in &mut data {
            *x = f64::from_bits(u64::from_le(x.to_bits()));
        }
    }
    assemble(path, head, tail, ids, data, d).ok()
}

fn assemble(
    path: &Path,
    mut head: Vec<u8>,
    tail: Vec<u8>,
    ids: Vec<String>,
    data: Vec<f64>,
    d: usize,
) -> Result<State> {
    let format = |m: String| crate::error::Error::Format {
        path: path.to_path_buf(),
        message: m,
    };
    // `{\n  "graph": {...},` → `{\n  "graph": {...}}`;  `{` + `\n  "meta": {...}\n}`
    if head.last() == Some(&b',') {
        head.pop();
    }
    head.push(b'}');
    #[derive(serde::Deserialize)]
    struct GraphOnly {
        graph: GraphFile,
    }
    let g: GraphOnly = serde_json::from_slice(&head).map_err(|e| format(e.to_string()))?;
    let mut meta_doc = Vec::with_capacity(tail.len() + 1);
    meta_doc.push(b'{');
    meta_doc.extend_from_slice(&tail);
    #[derive(serde::Deserialize)]
    struct MetaOnly {
        meta: serde_json::Value,
    }
    let m: MetaOnly = serde_json::from_slice(&meta_doc).map_err(|e| format(e.to_string()))?;
    let graph = Graph::from_file(g.graph).map_err(|e| format(e.to_string()))?;
    let meta = match m.meta {
        serde_json::Value::Object(o) => o,
        _ => Metadata::new(),
    };
    let index = VectorIndex::from_rows(ids, data, d)?;
    Ok(State { graph, index, meta })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::statefile::{load_state, save_state};
    use crabpath::graph::{Edge, Node};

    #[test]
    fn loads_the_same_state_and_notices_other_writers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        let mut g = Graph::new();
        g.add_node(Node::new("a", "x \"index\": y\n  \"meta\": z"));
        g.add_node(Node::new("b", "B"));
        g.add_edge_by_id("a", "b", Edge::new(0.3)).unwrap();
        let mut ix = VectorIndex::new();
        ix.upsert("a", [0.1, 1e-300]).unwrap();
        ix.upsert("b", [-0.0, 5e-324]).unwrap();
        let st = State::new(g, ix);
        save_state(&p, &st, None, None).unwrap();
        assert!(load(&p).is_none());
        write(&p, &st.index).unwrap();
        let fast = load(&p).unwrap();
        let slow = load_state(&p).unwrap();
        assert_eq!(fast.index, slow.index);
        assert_eq!(fast.meta, slow.meta);
        assert_eq!(fast.graph.to_file(), slow.graph.to_file());
        // another writer replaces the file: the sidecar is ignored
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        std::fs::write(&p, text.replace("0.3", "0.4")).unwrap();
        assert!(load(&p).is_none());
    }
}
