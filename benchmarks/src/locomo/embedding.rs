//! The vectors of every conversation for one embedder: each turn's content and each
//! question's text, embedded in one call of [`TextEmbedder::embed`] (each distinct text
//! once, through the MiniLM cache when it is on), then handed back per conversation.
//!
//! The same texts, in the same order, are what `bench embed --dataset locomo` puts in the
//! MiniLM cache ([`texts`]), so a run after it reads every vector from the cache.

use indicatif::ProgressBar;

use super::brain::ConversationCorpus;
use crate::embed::{EmbedStats, TextEmbedder};
use crate::error::{Error, Result};

/// One embedder's vectors of one conversation: its turns in node order, its questions in
/// query order.
#[derive(Debug, Clone)]
pub struct Embedded {
    /// Node vectors.
    pub nodes: Vec<Vec<f64>>,
    /// Query vectors.
    pub queries: Vec<Vec<f64>>,
    /// Their dimension.
    pub dim: usize,
}

/// Every text a run embeds: per conversation in order, its node contents then its
/// question texts.
pub fn texts(corpora: &[ConversationCorpus]) -> Vec<&str> {
    corpora
        .iter()
        .flat_map(|cc| {
            let c = &cc.corpus;
            c.nodes
                .iter()
                .map(|n| n.content.as_str())
                .chain(c.queries.iter().map(|q| q.text.as_str()))
        })
        .collect()
}

/// Embeds [`texts`] with `embedder` (`bar` counts distinct texts) and splits the vectors
/// back per conversation. Cost: one model call per distinct text not in the cache.
pub fn embed_all(
    embedder: &TextEmbedder,
    corpora: &[ConversationCorpus],
    bar: &ProgressBar,
) -> Result<(Vec<Embedded>, EmbedStats)> {
    let (vectors, stats) = embedder.embed(&texts(corpora), bar)?;
    let mut rest = vectors.into_iter();
    let dim = embedder.dim();
    let out = corpora
        .iter()
        .map(|cc| {
            let nodes: Vec<Vec<f64>> = rest.by_ref().take(cc.corpus.nodes.len()).collect();
            let queries: Vec<Vec<f64>> = rest.by_ref().take(cc.corpus.queries.len()).collect();
            if nodes.len() + queries.len() != cc.corpus.nodes.len() + cc.corpus.queries.len() {
                return Err(Error::Internal(format!(
                    "{}: the embedder returned too few vectors",
                    cc.sample_id
                )));
            }
            Ok(Embedded {
                nodes,
                queries,
                dim,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((out, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{EmbedderArg, ModelOpts};
    use crate::locomo::data::load;

    #[test]
    fn vectors_come_back_per_conversation_in_node_then_query_order() {
        let l = load(&testdata::committed("datasets/fixtures/locomo_tiny.json")).unwrap();
        let cc: Vec<ConversationCorpus> = l
            .conversations
            .iter()
            .map(|c| ConversationCorpus::new(c).unwrap())
            .collect();
        let t = texts(&cc);
        assert_eq!(
            t.len(),
            5 + 3 + 6 + 4 + 6 + 4,
            "turns, then questions with evidence"
        );
        assert_eq!(
            t[1],
            "I adopted a grey rabbit called Moss! [image: a photo of a rabbit on a sofa]"
        );
        assert_eq!(t[5], "What did Ada adopt in May?");
        let e = TextEmbedder::open(EmbedderArg::HashV1, &ModelOpts::default()).unwrap();
        let (v, stats) = embed_all(&e, &cc, &ProgressBar::hidden()).unwrap();
        assert_eq!((v[0].nodes.len(), v[0].queries.len()), (5, 3));
        assert_eq!((v[2].nodes.len(), v[2].queries.len()), (6, 4));
        assert_eq!(stats.texts, 28);
        let (alone, _) = e.embed(&[t[6]], &ProgressBar::hidden()).unwrap();
        assert_eq!(v[0].queries[1], alone[0]);
        assert_eq!(v[0].dim, e.dim());
    }
}
