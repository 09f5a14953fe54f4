//! Runs `bench`'s methods on one conversation's brain and scores them with the LoCoMo
//! metrics.
//!
//! Nothing here ranks or learns by itself: the methods are the entries of
//! [`crate::methods`] (BM25, dense, RRF, cold and learning traversals with or without a
//! router), run through its [`Stage`], [`static_lists`] and [`Walker`], exactly as the
//! HotPotQA and MultiHop-RAG protocols run them. What is LoCoMo's is the corpus (one per
//! conversation, [`super::brain`]), the knobs ([`Knobs`]), the metric row
//! ([`super::metrics`]) and the within-conversation protocol ([`within`]): per split the
//! graph learns from the learn half (each question traversed, then its outcome applied:
//! +1 when an evidence turn fires, else −1 — the dataset's outcome metric
//! `partial_hit_rate`, [`crate::catalog::Dataset::outcome_metric`]) and is then frozen and
//! scored on the test half.

use crabpath::{Graph, LearningConfig, Profile, RouterConfig, TraversalConfig, UnitVectors};
use indicatif::ProgressBar;
use rayon::prelude::*;

use super::brain::{ConversationCorpus, Structure};
use super::embedding::Embedded;
use super::metrics::{row, Scored};
use crate::catalog::Dataset;
use crate::dense::{DenseIndex, DenseSearch, Hits};
use crate::embed::EmbedderArg;
use crate::error::{Error, Result};
use crate::methods::{
    fired_indices, static_lists, Method, MethodParams, Ranking, RouterInputs, Rule, SeedSource,
    Stage, Walker,
};
use crate::metrics::Judged;
use crate::plan::PG_CALL;
use crate::retrieval::RRF_DEPTH;
use crate::schedule::Step;
use crate::splits::Split;

/// Every knob of a LoCoMo run (each chosen on the tuning conversations only,
/// [`super::splits`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knobs {
    /// The embedder of the dense search, of the seeds, of the routers and of kNN edges.
    pub embedder: EmbedderArg,
    /// The brain's edges.
    pub structure: Structure,
    /// Where traversals get their seeds.
    pub seed_source: SeedSource,
    /// Seeds per traversal.
    pub seed_top_k: usize,
    /// Traversal hops.
    pub max_hops: usize,
    /// Traversal beam width.
    pub beam_width: usize,
    /// Router parameters (each routed method sets its own kind).
    pub router: RouterConfig,
    /// Learning rate of both rules.
    pub lr: f64,
    /// Discount of both rules.
    pub discount: f64,
    /// Core semantics.
    pub profile: Profile,
    /// Length of the ranked lists of BM25, dense and RRF (deep enough to fill the budget).
    pub list_depth: usize,
    /// The context budget in characters of [`super::metrics::RECALL_AT_BUDGET`].
    pub budget: usize,
}

impl Knobs {
    /// The parameters `bench`'s methods read.
    pub fn params(&self) -> MethodParams {
        MethodParams {
            dataset: Dataset::Locomo,
            seed_top_k: self.seed_top_k,
            seed_source: self.seed_source,
            embed_top_k: self.list_depth,
            traversal: self.profile.adjust_traversal(TraversalConfig {
                max_hops: self.max_hops,
                beam_width: self.beam_width,
                ..TraversalConfig::default()
            }),
            learning: self.profile.adjust_learning(LearningConfig {
                learning_rate: self.lr,
                discount: self.discount,
                ..LearningConfig::default()
            }),
            pg: PG_CALL,
            shared_edge_state: false,
            router: self.router,
        }
    }

    /// Cosine hits per question the methods read.
    pub fn dense_depth(&self) -> usize {
        self.list_depth.max(RRF_DEPTH).max(self.seed_top_k)
    }
}

/// One conversation searched with one embedder: the index, every question's hits and what
/// the routers read.
#[derive(Debug)]
pub struct Searched {
    /// The node index (f32 tiled exact cosine, [`DenseSearch::F32Tiled`]).
    pub index: DenseIndex,
    /// Every question's first `depth` hits.
    pub hits: Hits,
    /// Unit node vectors and the query vectors.
    pub router: RouterInputs,
}

impl Searched {
    /// Indexes `e` and searches every question to `depth`. Cost O(questions · turns · dim).
    pub fn new(e: &Embedded, depth: usize) -> Result<Searched> {
        let index = DenseIndex::new(DenseSearch::F32Tiled, &e.nodes, e.dim)?;
        let hits = index.search_all(&e.queries, depth.min(e.nodes.len()))?;
        let nodes = UnitVectors::from_rows(&e.nodes)
            .map_err(|err| Error::core("node vectors for the routers", err))?;
        Ok(Searched {
            index,
            hits,
            router: RouterInputs {
                nodes,
                queries: e.queries.clone(),
            },
        })
    }
}

/// The scoring context of one conversation: evidence, sessions, lengths, budget.
#[derive(Debug, Clone, Copy)]
pub struct Scorer<'a> {
    cc: &'a ConversationCorpus,
    knobs: &'a Knobs,
}

impl<'a> Scorer<'a> {
    /// Scores lists of `cc` with `knobs`' list depth and budget.
    pub fn new(cc: &'a ConversationCorpus, knobs: &'a Knobs) -> Self {
        Scorer { cc, knobs }
    }

    /// The LoCoMo metric row of query `q` with list `retrieved`.
    pub fn row(&self, q: usize, retrieved: &[usize]) -> Vec<f64> {
        row(&Scored {
            judged: Judged {
                retrieved,
                relevant: &self.cc.corpus.queries[q].relevant,
                embed_top_k: self.knobs.list_depth,
            },
            session_of: &self.cc.session_of,
            chars: &self.cc.chars,
            budget: self.knobs.budget,
        })
    }
}

/// Every query scored, none learned from: the steps [`Stage`] is built with (the
/// within-conversation protocol walks its own splits).
pub fn all_scored(n: usize) -> Vec<Step> {
    (0..n)
        .map(|query| Step {
            query,
            learn: false,
            scored: true,
        })
        .collect()
}

/// A stage of `bench`'s methods over one conversation.
pub fn stage<'a>(
    cc: &'a ConversationCorpus,
    searched: &'a Searched,
    graph: &'a Graph,
    steps: &'a [Step],
    params: &'a MethodParams,
) -> Stage<'a> {
    Stage::new(
        &cc.corpus,
        &searched.hits,
        graph,
        steps,
        params,
        Some(&searched.router),
    )
}

/// The list of every query for a method that does not learn (cold traversals included),
/// in query order.
pub fn static_run(stage: &Stage, method: &'static Method) -> Result<Vec<Vec<usize>>> {
    if method.learns() {
        return Err(Error::Internal(format!(
            "{} learns: run it through the within-conversation protocol",
            method.name
        )));
    }
    stage.prepare(&[method]);
    let queries: Vec<usize> = (0..stage.corpus.queries.len()).collect();
    static_lists(method, stage, &queries, &ProgressBar::hidden())
}

/// What a learning method gave on the splits of one conversation.
#[derive(Debug, Clone)]
pub struct WithinRows {
    /// Per query, its mean metric row over the splits whose test half held it (`None` if
    /// none did).
    pub per_query: Vec<Option<Vec<f64>>>,
    /// Per split, the mean row over its test half.
    pub split_means: Vec<Vec<f64>>,
}

/// The within-conversation protocol for learning `method` on `splits` (see the module docs):
/// per split a fresh copy of the stage's graph learns from `train` in order, then `test` is
/// traversed on the frozen graph and scored. Splits run in parallel; the result does not
/// depend on the thread count.
pub fn within(
    stage: &Stage,
    scorer: &Scorer,
    method: &'static Method,
    splits: &[Split],
) -> Result<WithinRows> {
    let rule = match method.ranking {
        Ranking::Traversal {
            learning: Some(rule),
            ..
        } => rule,
        _ => {
            return Err(Error::Internal(format!(
                "{} does not learn: score it once with static_run",
                method.name
            )))
        }
    };
    stage.prepare(&[method]);
    let runs: Vec<Vec<(usize, Vec<f64>)>> = splits
        .par_iter()
        .map(|split| learn_then_test(stage, scorer, method, rule, split))
        .collect::<Result<_>>()?;
    let n = stage.corpus.queries.len();
    let width = super::metrics::LOCOMO_METRICS.len();
    let mut sums = vec![vec![0.0; width]; n];
    let mut counts = vec![0usize; n];
    let mut split_means = Vec::with_capacity(runs.len());
    for run in &runs {
        let rows: Vec<Vec<f64>> = run.iter().map(|(_, r)| r.clone()).collect();
        split_means.push(crate::metrics::mean_rows(&rows, width));
        for (q, r) in run {
            counts[*q] += 1;
            for (s, x) in sums[*q].iter_mut().zip(r) {
                *s += *x;
            }
        }
    }
    let per_query = sums
        .into_iter()
        .zip(counts)
        .map(|(s, c)| (c > 0).then(|| s.into_iter().map(|x| x / c as f64).collect()))
        .collect();
    Ok(WithinRows {
        per_query,
        split_means,
    })
}

/// One split: learn from `train`, then score `test` on the frozen graph.
fn learn_then_test(
    stage: &Stage,
    scorer: &Scorer,
    method: &'static Method,
    rule: Rule,
    split: &Split,
) -> Result<Vec<(usize, Vec<f64>)>> {
    let mut graph = stage.graph.clone();
    let mut walker = Walker::new(stage, method.router())?;
    for &q in &split.train {
        let episode = walker.traverse(&graph, q)?;
        let retrieved = fired_indices(&episode.fired);
        walker.learn(&mut graph, q, &episode, &retrieved, rule)?;
    }
    split
        .test
        .iter()
        .map(|&q| {
            let e = walker.traverse(&graph, q)?;
            Ok((q, scorer.row(q, &fired_indices(&e.fired))))
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::locomo::brain::{build, ConversationCorpus};
    use crate::locomo::data::{Category, Conversation, Question, Session, Turn};
    use crate::locomo::evidence::TurnRef;
    use crate::locomo::metrics::column;
    use crate::locomo::splits::WithinSplits;
    use crate::methods::{routed_methods, Method};
    use crabpath::RouterKind;

    /// Two sessions about two topics; questions worded like one turn, evidence in the
    /// next (the answer), so a walk along the session chain finds what the search misses.
    fn conv() -> Conversation {
        let r = |session, turn| TurnRef { session, turn };
        let turn = |s, t, text: &str| Turn {
            id: r(s, t),
            speaker: "Ann".into(),
            text: text.into(),
            caption: None,
        };
        let q = |index, question: &str, evidence| Question {
            index,
            question: question.into(),
            category: Category::SingleHop,
            evidence: vec![evidence],
            released_evidence: Vec::new(),
            answer: None,
        };
        Conversation {
            row: 0,
            sample_id: "conv-e".into(),
            speakers: ["Ann".into(), "Bo".into()],
            sessions: vec![
                Session {
                    number: 1,
                    date_time: None,
                    turns: vec![
                        turn(1, 1, "what pet did you adopt"),
                        turn(1, 2, "a small grey rabbit named Moss"),
                        turn(1, 3, "lovely weather today"),
                    ],
                },
                Session {
                    number: 2,
                    date_time: None,
                    turns: vec![
                        turn(2, 1, "which city did you move to"),
                        turn(2, 2, "Lisbon, near the river"),
                        turn(2, 3, "see you soon"),
                    ],
                },
            ],
            questions: vec![
                q(0, "what pet did you adopt", r(1, 2)),
                q(1, "which city did you move to", r(2, 2)),
                q(2, "what pet did you adopt then", r(1, 2)),
                q(3, "which city did you move to then", r(2, 2)),
            ],
        }
    }

    pub(crate) fn knobs() -> Knobs {
        Knobs {
            embedder: EmbedderArg::HashV1,
            structure: Structure::SessionChains,
            seed_source: SeedSource::Dense,
            seed_top_k: 1,
            max_hops: 1,
            beam_width: 1,
            router: RouterConfig::default(),
            lr: 0.3,
            discount: 0.9,
            profile: Profile::Corrected,
            list_depth: 3,
            budget: 40,
        }
    }

    /// Hand-made vectors: a question points at its own wording (turn 1 of its session).
    fn embedded(cc: &ConversationCorpus) -> Embedded {
        let nodes: Vec<Vec<f64>> = (0..cc.corpus.nodes.len())
            .map(|i| {
                let mut v = vec![0.01; 6];
                v[i] = 1.0;
                v
            })
            .collect();
        let queries = (0..4)
            .map(|q| {
                let mut v = vec![0.0; 6];
                v[if q % 2 == 0 { 0 } else { 3 }] = 1.0;
                v
            })
            .collect();
        Embedded {
            nodes,
            queries,
            dim: 6,
        }
    }

    /// The conversation's brain with session chains, searched with [`embedded`].
    struct Fixture {
        cc: ConversationCorpus,
        knobs: Knobs,
        graph: Graph,
        searched: Searched,
        steps: Vec<Step>,
    }

    impl Fixture {
        fn new() -> Fixture {
            let c = conv();
            let cc = ConversationCorpus::new(&c).unwrap();
            let knobs = knobs();
            let ops = cc.edge_ops(knobs.structure, None).unwrap();
            let graph = build(&c, &ops).unwrap();
            let searched = Searched::new(&embedded(&cc), knobs.dense_depth()).unwrap();
            Fixture {
                steps: all_scored(cc.corpus.queries.len()),
                cc,
                knobs,
                graph,
                searched,
            }
        }
    }

    #[test]
    fn dense_misses_what_the_chain_reaches() {
        let f = Fixture::new();
        let params = f.knobs.params();
        let st = stage(&f.cc, &f.searched, &f.graph, &f.steps, &params);
        let scorer = Scorer::new(&f.cc, &f.knobs);
        let r1 = column("recall_at_5").unwrap();
        let dense = static_run(&st, Method::by_name("embedding_topk").unwrap()).unwrap();
        assert_eq!(dense[0], [0, 1, 2], "the wording first, then node order");
        let cold = static_run(&st, Method::by_name("crabpath_cold").unwrap()).unwrap();
        assert_eq!(cold[0], [0, 1], "the seed, then its chain neighbour");
        assert_eq!(scorer.row(0, &cold[0])[r1], 1.0);
        // the budget (40 characters) holds the question's turn and the answer (22 + 30 > 40?)
        let b = column("recall_at_budget").unwrap();
        assert_eq!(scorer.row(0, &cold[0])[b], 0.0, "22 + 30 = 52 > 40");
        assert!(static_run(&st, Method::by_name("crabpath_learning").unwrap()).is_err());
    }

    #[test]
    fn within_scores_each_test_half_on_a_frozen_learned_graph() {
        let f = Fixture::new();
        let params = f.knobs.params();
        let st = stage(&f.cc, &f.searched, &f.graph, &f.steps, &params);
        let scorer = Scorer::new(&f.cc, &f.knobs);
        let splits = WithinSplits::new(6, 1, 0.5).unwrap().make(0, 4);
        for m in [
            Method::by_name("crabpath_learning").unwrap(),
            Method::by_name("crabpath_pg_learning").unwrap(),
            &routed_methods(RouterKind::EdgeSim)[2],
        ] {
            let w = within(&st, &scorer, m, &splits).unwrap();
            assert_eq!(w.split_means.len(), 6);
            let tested: usize = w.per_query.iter().flatten().count();
            assert!(tested >= 3, "{tested} of 4 questions tested in 6 splits");
            let r1 = column("recall_at_5").unwrap();
            // the chain from the seed reaches every answer here; learning keeps it
            for row in w.per_query.iter().flatten() {
                assert_eq!(row[r1], 1.0, "{}", m.name);
            }
        }
        assert!(within(&st, &scorer, Method::by_name("bm25_topk").unwrap(), &splits).is_err());
    }
}
