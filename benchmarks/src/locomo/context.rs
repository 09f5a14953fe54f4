//! The conversations of a run, ready to be run: each one's corpus, its search with both
//! embedders, and its brains (one per structure and embedder, built once and shared by
//! every method that walks them).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crabpath::Graph;

use super::brain::{build, ConversationCorpus, Structure};
use super::data::Conversation;
use super::embedding::Embedded;
use super::engine::Searched;
use super::splits::Role;
use crate::embed::EmbedderArg;
use crate::error::{Error, Result};
use crate::retrieval::RRF_DEPTH;

/// Ranked-list length of BM25, dense and RRF in a LoCoMo run, and the depth of every
/// cosine search: deep enough that every method fills the context budget (the shortest
/// turns are a few characters long) and that RRF fuses its usual [`RRF_DEPTH`] hits.
pub const LIST_DEPTH: usize = RRF_DEPTH;

/// One conversation, ready.
#[derive(Debug)]
pub struct Prepared {
    /// The conversation as loaded.
    pub conv: Conversation,
    /// Its nodes and questions.
    pub cc: ConversationCorpus,
    /// Searched with hash-v1.
    pub hash: Searched,
    /// Searched with all-MiniLM-L6-v2 (`None` in a hash-v1-only run).
    pub minilm: Option<Searched>,
    graphs: Mutex<HashMap<(Structure, EmbedderArg), Arc<Graph>>>,
}

impl Prepared {
    /// `conv` with its corpus `cc` and the embedders' vectors (MiniLM's if the run has
    /// them); searches each to [`LIST_DEPTH`].
    pub fn new(
        conv: Conversation,
        cc: ConversationCorpus,
        hash: &Embedded,
        minilm: Option<&Embedded>,
    ) -> Result<Prepared> {
        Ok(Prepared {
            hash: Searched::new(hash, LIST_DEPTH)?,
            minilm: minilm.map(|m| Searched::new(m, LIST_DEPTH)).transpose()?,
            conv,
            cc,
            graphs: Mutex::new(HashMap::new()),
        })
    }

    /// Tuning or test.
    pub fn role(&self) -> Role {
        Role::of(&self.cc.sample_id)
    }

    /// The search of `embedder` (an error for MiniLM in a hash-v1-only run).
    pub fn searched(&self, embedder: EmbedderArg) -> Result<&Searched> {
        match embedder {
            EmbedderArg::HashV1 => Ok(&self.hash),
            EmbedderArg::Minilm => self.minilm.as_ref().ok_or_else(|| {
                Error::Internal("an arm reads MiniLM vectors in a hash-v1-only run".into())
            }),
            EmbedderArg::Mpnet => Err(Error::Internal(
                "an arm reads mpnet vectors outside the product protocol".into(),
            )),
        }
    }

    /// The brain with `structure` (kNN edges from `embedder`'s vectors), built on first use.
    /// Cost of a build: linear in the turns, plus O(n² · dim) for kNN.
    pub fn graph(&self, structure: Structure, embedder: EmbedderArg) -> Result<Arc<Graph>> {
        // kNN is the only structure that reads vectors: one brain per structure otherwise
        let key_embedder = if structure.needs_vectors() {
            embedder
        } else {
            EmbedderArg::HashV1
        };
        let key = (structure, key_embedder);
        let mut graphs = self
            .graphs
            .lock()
            .map_err(|_| Error::Internal("a brain build panicked".into()))?;
        if let Some(g) = graphs.get(&key) {
            return Ok(Arc::clone(g));
        }
        let ops = self
            .cc
            .edge_ops(structure, Some(&self.searched(embedder)?.index))?;
        let g = Arc::new(build(&self.conv, &ops)?);
        graphs.insert(key, Arc::clone(&g));
        Ok(g)
    }
}
