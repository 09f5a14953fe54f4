//! The product's path on a LoCoMo conversation, behind two functions (issue 28, "The
//! headline row is the product path"): [`build`] makes a conversation's brain the way
//! `crabpath init --conversation` does, from the conversation's turns
//! ([`super::turns`]), into a temporary directory; [`ask`] asks it one question through
//! [`crabpath_brain::Brain::query`] and returns the turn ids it answers with, best first,
//! at most [`LIMIT`]. Everything else of the run ([`super::headline`]) is written against
//! these two, so only they change when the product's API does.
//!
//! The product arms ([`ARMS`]) are the product's own seeding and traversal switches.

use std::path::PathBuf;

use crabpath::embed::Embedder;
use crabpath::graph::Metadata;
use crabpath::Profile;
use crabpath_brain::reference::embedder::EmbedderInfo;
use crabpath_brain::service::{init_store, InitOptions, Seeding as ProductSeeding};
use crabpath_brain::source::conversation::{
    build_graph, parse_jsonl, turn_content, Turn, CONVERSATION, SOURCE_KEY,
};
use crabpath_brain::{locate, Brain, OpenOptions, QueryRequest};

use super::data::Conversation;
use crate::error::{Error, Result};

/// The answer length every question is asked with (`limit: Some(50)`, issue 28).
pub const LIMIT: usize = 50;

/// Where a product arm's seeds come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seeding {
    /// Whatever the product's query defaults to.
    Default,
    /// The lexical (BM25) and dense searches fused.
    Hybrid,
    /// The lexical search alone.
    Lexical,
    /// The dense search alone.
    Dense,
}

/// One way of asking the product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProductArm {
    /// Its name in the report.
    pub name: &'static str,
    /// Its seeds.
    pub seeding: Seeding,
    /// Whether the graph is traversed from the seeds.
    pub traverse: bool,
    /// One line on what it is.
    pub note: &'static str,
}

/// The product arms, the headline (the default query) first.
pub const ARMS: [ProductArm; 4] = [
    ProductArm {
        name: "product",
        seeding: Seeding::Default,
        traverse: true,
        note: "Brain::query as the product answers by default (its seeding, then traversal)",
    },
    ProductArm {
        name: "product[hybrid-seeds]",
        seeding: Seeding::Hybrid,
        traverse: false,
        note: "Brain::query, hybrid (lexical + dense) seeds alone, no traversal",
    },
    ProductArm {
        name: "product[lexical]",
        seeding: Seeding::Lexical,
        traverse: false,
        note: "Brain::query, the store's lexical index alone, no traversal",
    },
    ProductArm {
        name: "product[dense]",
        seeding: Seeding::Dense,
        traverse: false,
        note: "Brain::query, the dense search alone, no traversal",
    },
];

/// Whether the product's query API can ask as `arm` does (every arm since `Brain::query`
/// took `seeding` and `traverse`, issue 28 item 3).
pub fn available(arm: &ProductArm) -> bool {
    let _ = arm;
    true
}

/// A conversation's brain, in a temporary directory removed when it is dropped.
pub struct ProductBrain {
    brain: Brain,
    _dir: tempfile::TempDir,
}

impl ProductBrain {
    /// Whether the brain has a node `id`.
    pub fn has_node(&mut self, id: &str) -> Result<bool> {
        self.brain
            .has_node(id)
            .map_err(|e| Error::brain(format!("looking up {id}"), e))
    }

    /// Teaches `outcome` along `ids` in order, as `crabpath learn` does
    /// ([`crabpath_brain::Brain::learn`]; [`super::product_learning`]).
    pub fn learn(&mut self, ids: &[String], outcome: f64) -> Result<()> {
        self.brain
            .learn(ids, outcome)
            .map(|_| ())
            .map_err(|e| Error::brain("learning".to_string(), e))
    }
}

/// The product's turns of `conv`: its JSON Lines ([`super::turns`]) read by the product's
/// own parser, as `crabpath init --conversation FILE` reads the file.
pub fn product_turns(conv: &Conversation) -> Result<Vec<Turn>> {
    let text = super::turns::jsonl(&super::turns::conversation_turns(conv))?;
    let source = PathBuf::from(format!("{}.jsonl", conv.sample_id));
    parse_jsonl(&text, &source)
        .map_err(|e| Error::brain(format!("{}: reading the turns", conv.sample_id), e))
}

/// What an agent reads of each turn's node, in conversation order (the node contents of
/// the product's brain, [`turn_content`]).
pub fn node_texts(conv: &Conversation) -> Result<Vec<String>> {
    Ok(product_turns(conv)?.iter().map(turn_content).collect())
}

/// Builds `conv`'s brain as `crabpath init --conversation` does (its parser, its graph,
/// its `init_store` with the conversation source mark), embedding with `embedder`.
pub fn build(conv: &Conversation, embedder: &dyn Embedder) -> Result<ProductBrain> {
    let context = format!("{}: building the brain", conv.sample_id);
    let turns = product_turns(conv)?;
    let built = build_graph(&turns).map_err(|e| Error::brain(context.clone(), e))?;
    let mut extra = Metadata::new();
    extra.insert(SOURCE_KEY.into(), CONVERSATION.into());
    from_graph(&built.graph, extra, embedder, &context)
}

/// A corrected-profile brain database of `graph` (its `meta` with `extra`), embedded with
/// `embedder`, in a temporary directory: what `init_store` makes of a graph, opened as
/// the product opens it. `context` names it in errors.
pub fn from_graph(
    graph: &crabpath::Graph,
    extra: Metadata,
    embedder: &dyn Embedder,
    context: &str,
) -> Result<ProductBrain> {
    let dir = tempfile::tempdir().map_err(|e| Error::io(&std::env::temp_dir(), e))?;
    let opts = InitOptions {
        embedder,
        info: EmbedderInfo {
            name: embedder.name().to_string(),
            dim: embedder.dim(),
        },
        parallel: false,
        progress: None,
    };
    init_store(dir.path(), graph, &opts, extra, Vec::new())
        .map_err(|e| Error::brain(context, e))?;
    let brain = Brain::open(locate(dir.path()), OpenOptions::new(Profile::Corrected))
        .map_err(|e| Error::brain(context, e))?;
    Ok(ProductBrain { brain, _dir: dir })
}

impl ProductBrain {
    /// The brain itself, for what an agent does besides asking (e.g. `correct`).
    pub fn brain_mut(&mut self) -> &mut Brain {
        &mut self.brain
    }
}

/// The request of `question` (its embedding `vector`) as `arm` asks it with `top` seeds
/// and `limit: Some(LIMIT)`; neurogenesis as the brain's setting (see [`ask`]).
pub fn request<'q>(
    question: &'q str,
    vector: &[f64],
    arm: &ProductArm,
    top: usize,
) -> QueryRequest<'q> {
    let mut req = QueryRequest::new(question, top);
    req.vector = Some(vector.to_vec());
    req.limit = Some(LIMIT);
    req.traverse = arm.traverse;
    req.seeding = match arm.seeding {
        Seeding::Default => None,
        Seeding::Hybrid => Some(ProductSeeding::Hybrid),
        Seeding::Lexical => Some(ProductSeeding::Lexical),
        Seeding::Dense => Some(ProductSeeding::Dense),
    };
    req
}

/// Asks `question` (its embedding `vector`, from the brain's embedder) as `arm` does with
/// `top` seeds and `limit: Some(LIMIT)`; returns [`Answer::ranked`](crabpath_brain::Answer::ranked):
/// at most [`LIMIT`] turn ids, best first.
pub fn ask(
    b: &mut ProductBrain,
    question: &str,
    vector: &[f64],
    arm: &ProductArm,
    top: usize,
) -> Result<Vec<String>> {
    let mut req = request(question, vector, arm, top);
    // plain retrieval: a fixed graph (issue 31 item 1; the brain is writable)
    req.neurogenesis = Some(false);
    let a = b
        .brain
        .query(&req)
        .map_err(|e| Error::brain(format!("asking {question:?}"), e))?;
    Ok(a.ranked().into_iter().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomo::data::{Session, Turn as LocomoTurn};
    use crate::locomo::evidence::TurnRef;

    fn conv() -> Conversation {
        let turn = |s: u32, t: u32, who: &str, text: &str| LocomoTurn {
            id: TurnRef {
                session: s,
                turn: t,
            },
            speaker: who.into(),
            text: text.into(),
            caption: None,
        };
        Conversation {
            row: 0,
            sample_id: "conv-t".into(),
            speakers: ["Ann".into(), "Bo".into()],
            sessions: vec![
                Session {
                    number: 1,
                    date_time: Some("1:56 pm on 8 May, 2023".into()),
                    turns: vec![
                        turn(1, 1, "Ann", "I adopted a greyhound called Pixel."),
                        turn(1, 2, "Bo", "Lovely, how old is she?"),
                    ],
                },
                Session {
                    number: 2,
                    date_time: Some("9:00 am on 1 June, 2023".into()),
                    turns: vec![turn(2, 1, "Ann", "We went sailing on the lake.")],
                },
            ],
            questions: Vec::new(),
        }
    }

    #[test]
    fn every_arm_answers_with_turn_ids_of_the_product_brain() {
        let c = conv();
        // the product's node text: `speaker (time): text` (crabpath_brain::source::conversation)
        assert_eq!(
            node_texts(&c).unwrap()[0],
            "Ann (1:56 pm on 8 May, 2023): I adopted a greyhound called Pixel."
        );
        let e = crabpath::embed::HashEmbedder::new();
        let mut b = build(&c, &e).unwrap();
        let q = "what is the name of the greyhound";
        let v = e.embed(q).unwrap();
        for arm in &ARMS {
            let got = ask(&mut b, q, &v, arm, 2).unwrap();
            assert!(
                got.len() <= LIMIT && !got.is_empty(),
                "{}: {got:?}",
                arm.name
            );
            assert!(
                got.iter()
                    .all(|id| ["D1:1", "D1:2", "D2:1"].contains(&id.as_str())),
                "{}: {got:?}",
                arm.name
            );
        }
        // the lexical index finds the one turn that names the dog first
        let lexical = ask(&mut b, q, &v, &ARMS[2], 2).unwrap();
        assert_eq!(lexical[0], "D1:1");
    }
}
