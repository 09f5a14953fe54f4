//! The corpus of a repository benchmark: the workspace split into a graph (reference
//! `crabpath/split.py::split_workspace` with its defaults, as `benchmarks/run_benchmark.py`
//! calls it, commit 134c676), each node's file, and the embedding indexes queries are
//! searched in.
//!
//! * [`Corpus::split`] walks the workspace with the profile's rules
//!   ([`crabpath_brain::source::workspace::walk`]), leaves out the files the protocol excludes (by
//!   their exact relative path, e.g. the benchmark's own queries file) and builds the
//!   graph from the rest ([`crabpath_brain::source::bootstrap::split_walk`]). Node ids depend only on a
//!   file's own path and chunks, so the remaining nodes are exactly those of the full
//!   split.
//! * A node's file is its `file` metadata when that is a string (reference
//!   `run_benchmark.py::_node_file`); nodes are numbered by position, which is also
//!   their [`NodeId`] index (the split adds nodes in order and never removes one).
//! * [`EmbeddingIndex`] embeds every node content in node order and answers exact cosine
//!   searches ([`crate::retrieval::CosineIndex`]: score descending, ties in node order,
//!   the reference's `VectorIndex.search`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use crabpath::{Graph, NodeId, Profile};
use crabpath_brain::source::bootstrap::split_walk;
use crabpath_brain::source::workspace::{self, SplitOptions};
use indicatif::ProgressBar;

use super::error::{internal, RepoError, Result};
use crate::embed::TextEmbedder;
use crate::retrieval::CosineIndex;

/// A file left out of the corpus, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excluded {
    /// Path relative to the workspace.
    pub rel: String,
    /// Why (e.g. "the benchmark's queries file").
    pub reason: String,
}

/// The split workspace.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// The workspace, absolute with symbolic links resolved (Python `Path.resolve()`).
    pub workspace: PathBuf,
    /// Nodes in split order, sibling edges.
    pub graph: Graph,
    /// Distinct files of the nodes, in node order.
    pub files: Vec<String>,
    /// Per node position: index into [`Corpus::files`] (`None` without string `file`
    /// metadata).
    pub file_of: Vec<Option<u32>>,
    /// Files that were walked but left out (only those that existed).
    pub excluded: Vec<Excluded>,
    /// Wall-clock milliseconds of the split.
    pub split_ms: f64,
}

/// Python `Path(p).resolve()` (non-strict): the canonical path when it exists, else the
/// absolute, lexically normalised path.
pub fn resolve(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `path` relative to `root` as a POSIX string, when it lies inside `root` (both
/// resolved first).
pub fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let p = resolve(path);
    let rel = p.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

impl Corpus {
    /// Splits `workspace` under `profile`, leaving out `exclude` (relative paths with a
    /// reason) and the files matching `patterns` (the reference's `exclude` patterns of
    /// `split_workspace`: a name, a `dir/` prefix or a glob).
    ///
    /// Cost: one walk and one read of every candidate file; linear in the text size.
    pub fn split(
        workspace: &Path,
        profile: Profile,
        exclude: &[Excluded],
        patterns: &[String],
    ) -> Result<Corpus> {
        let root = resolve(workspace);
        let t = Instant::now();
        let mut opts = SplitOptions::new(profile);
        opts.exclude = patterns.to_vec();
        let mut walk = workspace::walk(&root, &opts).map_err(RepoError::Split)?;
        let mut excluded = Vec::new();
        walk.files
            .retain(|c| match exclude.iter().find(|x| x.rel == c.rel) {
                Some(x) => {
                    excluded.push(x.clone());
                    false
                }
                None => true,
            });
        let boot = split_walk(walk, profile).map_err(RepoError::Split)?;
        let split_ms = t.elapsed().as_secs_f64() * 1000.0;
        let graph = boot.graph;
        let mut files: Vec<String> = Vec::new();
        let mut file_of = Vec::with_capacity(graph.node_count());
        for (pos, (ix, node)) in graph.nodes().enumerate() {
            if ix.index() != pos {
                return Err(internal(format!(
                    "node {} is at position {pos} but has index {}",
                    node.id,
                    ix.index()
                )));
            }
            file_of.push(
                node.file()
                    .map(|f| match files.iter().position(|x| x == f) {
                        Some(i) => i as u32,
                        None => {
                            files.push(f.to_string());
                            (files.len() - 1) as u32
                        }
                    }),
            );
        }
        Ok(Corpus {
            workspace: root,
            graph,
            files,
            file_of,
            excluded,
            split_ms,
        })
    }

    /// Number of nodes (= chunks).
    pub fn len(&self) -> usize {
        self.file_of.len()
    }

    /// Whether the corpus has no node.
    pub fn is_empty(&self) -> bool {
        self.file_of.is_empty()
    }

    /// Node contents in node order (the reference's `texts`).
    pub fn texts(&self) -> Vec<&str> {
        self.graph
            .nodes()
            .map(|(_, n)| n.content.as_str())
            .collect()
    }

    /// The node at a position.
    pub fn node_id(pos: usize) -> NodeId {
        NodeId(pos as u32)
    }

    /// The file index of a node, if it has a string `file`.
    pub fn file_index(&self, n: NodeId) -> Option<u32> {
        self.file_of.get(n.index()).copied().flatten()
    }

    /// Distinct files of a node ranking, in first-occurrence order, every node
    /// contributing (reference `run_benchmark.py::_rank_to_files`).
    pub fn ranked_files(&self, ranking: &[NodeId]) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        for &n in ranking {
            if let Some(f) = self.file_index(n) {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    }

    /// Index of a file name, if any node belongs to it.
    pub fn file_id(&self, name: &str) -> Option<u32> {
        self.files.iter().position(|f| f == name).map(|i| i as u32)
    }
}

/// Node embeddings of one embedder and their exact cosine index.
#[derive(Debug)]
pub struct EmbeddingIndex {
    /// The embedder (also used for queries).
    pub embedder: TextEmbedder,
    /// The nodes' vectors.
    pub index: CosineIndex,
    /// Wall-clock milliseconds of embedder construction, embedding and indexing (the
    /// reference's "embed" timing when the embedder is hash-v1).
    pub build_ms: f64,
}

impl EmbeddingIndex {
    /// Embeds every node of `corpus` with `embedder`; `started` is when the embedder's
    /// construction began.
    pub fn build(
        corpus: &Corpus,
        embedder: TextEmbedder,
        started: Instant,
        bar: &ProgressBar,
    ) -> Result<EmbeddingIndex> {
        let (vectors, _) = embedder.embed(&corpus.texts(), bar)?;
        let index = CosineIndex::new(&vectors, embedder.dim())?;
        Ok(EmbeddingIndex {
            embedder,
            index,
            build_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// Embeds texts (queries) with the same embedder.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f64>>> {
        Ok(self.embedder.embed(texts, &ProgressBar::hidden())?.0)
    }

    /// The reference's `index.search(embed(q), top_k)` as node ids: empty for
    /// `top_k <= 0`.
    pub fn search(&self, query_vec: &[f64], top_k: i64) -> Vec<NodeId> {
        if top_k <= 0 {
            return Vec::new();
        }
        self.index
            .search(query_vec, top_k as usize)
            .into_iter()
            .map(|(pos, _)| Corpus::node_id(pos))
            .collect()
    }
}
