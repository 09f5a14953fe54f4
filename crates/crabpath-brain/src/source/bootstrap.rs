//! Workspace bootstrap: a folder of documents becomes the initial memory graph — one
//! node per chunk, sibling edges between consecutive chunks of a file (reference
//! `crabpath/split.py::split_workspace`, commit 134c676; used by its `init` and `sync`
//! commands and by `benchmarks/run_benchmark.py`).
//!
//! Steps: [`crate::source::workspace::walk`] lists the files, each is read
//! ([`crate::source::workspace::read_text`]) and split by its [`Chunker`]; then for each file in
//! walk order and each chunk `i` (0-based over the chunk list):
//!
//! * a chunk empty after `strip` makes no node, but its index is consumed (a
//!   whitespace-only or empty file gives no node);
//! * otherwise node id `"<rel>::<i>"`, content = the chunk, summary = its first line
//!   (Python `splitlines()[0]`, `""` if none), metadata
//!   `{"file": rel, "chunk": i, "kind": "markdown"}` (corrected: the chunker's name, and
//!   the chunk's document header under [`crate::source::embedtext::HEADER_KEY`]);
//! * after a file's nodes, for each consecutive pair `(n_k, n_{k+1})` of the nodes
//!   created for that file, edges `n_k → n_{k+1}` then `n_{k+1} → n_k`, both of weight
//!   [`sibling_weight`]`(rel, k)`, kind `sibling`, no metadata. No other edges.
//!
//! The chunk texts the reference returns beside the graph (`texts[id] = chunk`) are the
//! node contents in node order: [`Bootstrap::texts`].
//!
//! Profiles: see the tables of [`crate::source::workspace`] (walking, reading) and
//! [`crate::source::chunk`] (chunking). The reference's optional LLM splitting (`init --llm
//! openai`) is not provided.

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::source::chunk::Chunker;
use crate::source::workspace::{self, SkipReason, Skipped, SplitOptions, Walk};
use crabpath::graph::{Edge, Graph, Metadata, Node, NodeId};
use crabpath::profile::Profile;
use pyformat::pystr;

/// The initial graph of a workspace and what was left out.
#[derive(Debug, Clone, Default)]
pub struct Bootstrap {
    /// Nodes in walk order, sibling edges.
    pub graph: Graph,
    /// One entry per file read, in walk order.
    pub files: Vec<FileChunks>,
    /// Files left out with a reason (corrected profile only).
    pub skipped: Vec<Skipped>,
}

impl Bootstrap {
    /// `(node id, chunk text)` in node order — the reference's `texts` mapping, which
    /// is what `init` embeds and writes to `texts.json`.
    pub fn texts(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        self.graph
            .nodes()
            .map(|(_, n)| (n.id.as_str(), n.content.as_str()))
    }
}

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChunks {
    /// POSIX path relative to the workspace.
    pub rel: String,
    /// The chunker used.
    pub chunker: Chunker,
    /// Number of chunks the chunker returned (node ids use indices `0..chunks`).
    pub chunks: usize,
    /// Number of nodes created (chunks that were not blank).
    pub nodes: usize,
}

/// The chain of chunk ids `ids` as symbols of `graph` for [`link_consecutive`], each
/// interned when it is linked (it and a neighbour are both there), in order: the
/// symbols linking by id made before.
pub fn chain_of(graph: &mut Graph, ids: &[Option<&str>]) -> Vec<Option<NodeId>> {
    let there = |j: Option<usize>| j.and_then(|j| ids.get(j)).is_some_and(Option::is_some);
    (0..ids.len())
        .map(|i| {
            let linked = there(i.checked_sub(1)) || there(Some(i + 1));
            ids[i].filter(|_| linked).map(|id| graph.intern(id))
        })
        .collect()
}

/// Links the consecutive chunks `chain` of file `rel` (in chunk order) both ways at
/// their initial weights ([`sibling_weight`] of the pair's place), as `init` links a
/// file's chunks; `sync` and `forget`'s replay link with it too. With `keep_learned`
/// (`sync`, corrected, S2) a pair that already has an edge keeps it. A `None` chunk
/// holds its place and links nothing. Errors: none in practice (the weights are
/// finite).
///
/// Cost: O(n) edge look-ups for n chunks.
pub fn link_consecutive(
    graph: &mut Graph,
    rel: &str,
    chain: &[Option<NodeId>],
    keep_learned: bool,
) -> Result<()> {
    for (offset, pair) in chain.windows(2).enumerate() {
        let (Some(a), Some(b)) = (pair[0], pair[1]) else {
            continue;
        };
        let w = sibling_weight(rel, offset);
        for (s, t) in [(a, b), (b, a)] {
            if keep_learned && graph.edge(s, t).is_some() {
                continue; // a learned edge keeps its weight
            }
            graph.add_edge(s, t, Edge::new(w))?;
        }
    }
    Ok(())
}

/// Sibling edge weight (reference `split.py::_sibling_weight`):
/// `clamp(0.5 + ((int(first 8 hex digits of sha256("<rel>:<offset>")) mod 2001) −
/// 1000) / 100000, 0.4, 0.6)`, always within [0.49, 0.51]. Example: `("deploy.md", 0)`
/// → digest `a78770ab…` → 2810671275 mod 2001 = 642 → `0.49642`.
pub fn sibling_weight(rel: &str, offset: usize) -> f64 {
    let digest = Sha256::digest(format!("{rel}:{offset}").as_bytes());
    let head = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let jitter = (i64::from(head % 2001) - 1000) as f64 / 100000.0;
    (0.5 + jitter).clamp(0.4, 0.6)
}

/// Bootstraps a workspace (see the module docs).
///
/// Cost: reads every candidate file once; linear in the total text size (plus one
/// SHA-256 per sibling pair). Memory: the graph holds every chunk; beside it, one file's
/// text and chunks at a time (each file is read, split and dropped before the next).
///
/// Errors (`Error::Workspace`): a missing workspace; in the paper profile also the
/// reference's fatal cases (a file that is not UTF-8, a non-UTF-8 path, a JSON file its
/// parser rejects other than as invalid JSON); I/O failures reading a file.
pub fn split_workspace(workspace: impl AsRef<Path>, options: &SplitOptions) -> Result<Bootstrap> {
    split_walk(workspace::walk(workspace, options)?, options.profile)
}

/// The part of [`split_workspace`] after the walk: reads the walk's files in order and
/// builds the graph. Callers that must leave particular files out (e.g. a benchmark's
/// own queries file) remove them from `walk.files` first; every other file gets the
/// same nodes, ids and edges as in [`split_workspace`] (node ids depend only on a
/// file's own path and chunks).
///
/// Cost and errors: as [`split_workspace`].
pub fn split_walk(walk: Walk, profile: Profile) -> Result<Bootstrap> {
    let fixes = profile.fixes_bugs();
    let mut out = Bootstrap {
        files: Vec::with_capacity(walk.files.len()),
        ..Bootstrap::default()
    };
    let mut skipped = walk.skipped;
    for c in walk.files {
        let bytes = std::fs::read(&c.path).map_err(|source| Error::Io {
            path: c.path.clone(),
            source,
        })?;
        let text = match workspace::decode_text(bytes, &c.path) {
            Ok(t) => t,
            Err(Error::InvalidUtf8 { offset, .. }) if fixes => {
                skipped.push(Skipped {
                    rel: c.rel,
                    reason: SkipReason::InvalidUtf8 { offset },
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        if fixes && text.contains('\0') {
            skipped.push(Skipped {
                rel: c.rel,
                reason: SkipReason::Binary,
            });
            continue;
        }
        add_file(&mut out, &c.path, &c.rel, &text, profile)?;
    }
    out.skipped = skipped;
    Ok(out)
}

/// Builds the graph from files already read: `(path, rel, text)` in walk order (the
/// path only names the file in errors). This is the part of [`split_workspace`] after
/// reading, for callers that hold texts in memory (e.g. an incremental sync).
pub fn build<'a>(
    files: impl IntoIterator<Item = (&'a Path, &'a str, &'a str)>,
    profile: Profile,
) -> Result<Bootstrap> {
    let mut out = Bootstrap::default();
    for (path, rel, text) in files {
        add_file(&mut out, path, rel, text, profile)?;
    }
    Ok(out)
}

/// Adds one file's nodes and sibling edges to `out.graph` and its report to
/// `out.files` (see the module docs).
fn add_file(
    out: &mut Bootstrap,
    path: &Path,
    rel: &str,
    text: &str,
    profile: Profile,
) -> Result<()> {
    let graph = &mut out.graph;
    let chunker = Chunker::for_path(rel);
    let chunks = chunker.chunk(text, profile).map_err(|e| Error::Json {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let kind = if profile.fixes_bugs() {
        chunker.name()
    } else {
        "markdown"
    };
    let mut ids = Vec::new();
    let chunk_count = chunks.len();
    // corrected: each chunk's document header, the text it is embedded with
    // (crate::source::embedtext)
    let headers = if profile.fixes_bugs() {
        crate::source::embedtext::document_header(rel, &chunks)
    } else {
        Vec::new()
    };
    for (i, chunk) in chunks.into_iter().enumerate() {
        if pystr::strip(&chunk).is_empty() {
            continue;
        }
        let id = format!("{rel}::{i}");
        let mut meta = Metadata::new();
        meta.insert("file".into(), Value::from(rel));
        meta.insert("chunk".into(), Value::from(i));
        meta.insert("kind".into(), Value::from(kind));
        if let Some(h) = headers.get(i) {
            meta.insert(
                crate::source::embedtext::HEADER_KEY.into(),
                Value::from(h.as_str()),
            );
        }
        let node = Node {
            id: id.clone(),
            summary: pystr::first_line(&chunk).to_string(),
            content: chunk,
            metadata: meta,
        };
        ids.push(graph.add_node(node));
    }
    let chain: Vec<Option<NodeId>> = ids.iter().copied().map(Some).collect();
    link_consecutive(graph, rel, &chain, false)?;
    out.files.push(FileChunks {
        rel: rel.to_string(),
        chunker,
        chunks: chunk_count,
        nodes: ids.len(),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_weights_match_the_reference() {
        // the reference init on its sample workspace: sha256("deploy.md:0") starts
        // a78770ab → 0.49642;
        // the sample workspace's other weights are from its init output
        assert_eq!(sibling_weight("deploy.md", 0), 0.49642);
        assert_eq!(sibling_weight("deploy.md", 1), 0.50044);
        assert_eq!(sibling_weight("deploy.md", 2), 0.50822);
        assert_eq!(sibling_weight("README.md", 0), 0.50965);
    }

    #[test]
    fn blank_chunks_consume_indices_and_siblings_link_created_nodes() {
        let p = Path::new("x");
        let b = build(
            [
                (p, "a.py", "x = 1\ndef f():\n    pass\ndef g():\n    pass\n"),
                (p, "empty.md", ""),
                (p, "blank.txt", " \n\n "),
            ],
            Profile::Paper,
        )
        .unwrap();
        let ids: Vec<_> = b.texts().map(|(id, _)| id).collect();
        assert_eq!(ids, ["a.py::0", "a.py::1", "a.py::2"]);
        assert_eq!(b.graph.edge_count(), 4);
        let n = b.graph.get_node("a.py::1").unwrap();
        assert_eq!(n.summary, "def f():");
        assert_eq!(
            serde_json::to_string(&n.metadata).unwrap(),
            r#"{"file":"a.py","chunk":1,"kind":"markdown"}"#
        );
        assert_eq!(b.files[1].nodes, 0);
        assert_eq!(b.files[1].chunks, 1);
    }
}
