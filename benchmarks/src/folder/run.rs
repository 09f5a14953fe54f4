//! `bench folder`'s run: brains built from a folder with the product's own code, every
//! question asked through [`Brain::query`] in each arm, answers scored by page
//! ([`super::score`]), beside plain page-level BM25 as an outside reference.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crabpath::embed::{Embedder, HashEmbedder};
use crabpath::graph::{Graph, Metadata};
use crabpath::profile::Profile;
use crabpath_brain::reference::embedder::EmbedderInfo;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::service::{init_store, EmbedderLoader, InitOptions, Seeding};
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{locate, Brain, OpenOptions, QueryRequest};
use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};

use super::questions::{About, QuestionSet};
use super::score::{first_hit, ranked_pages, Scores};
use crate::embed::{EmbedderArg, ModelOpts, TextEmbedder};
use crate::error::{Error, Result};
use crate::retrieval::Bm25;

/// One way of asking a brain (issue 28, "A question set on a real folder").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArmSpec {
    /// Its name in the results.
    pub name: &'static str,
    /// What it is, for the table.
    pub label: &'static str,
    /// The seeding asked for (`None`: the brain's default, [`Seeding::default_for`]).
    pub seeding: Option<Seeding>,
    /// Whether the traversal runs from the seeds.
    pub traverse: bool,
}

/// The arms, in the table's order: today's default (dense seeds and traversal), BM25
/// alone, hybrid seeds alone, the new default (the brain's default seeding — BM25 for a
/// hash-v1 brain, hybrid otherwise — and traversal).
pub const ARMS: [ArmSpec; 4] = [
    ArmSpec {
        name: "dense+traversal",
        label: "today's default: dense seeds + traversal",
        seeding: Some(Seeding::Dense),
        traverse: true,
    },
    ArmSpec {
        name: "bm25",
        label: "BM25 (the brain's lexical index) alone",
        seeding: Some(Seeding::Lexical),
        traverse: false,
    },
    ArmSpec {
        name: "hybrid",
        label: "hybrid seeds alone",
        seeding: Some(Seeding::Hybrid),
        traverse: false,
    },
    ArmSpec {
        name: "default",
        label: "new default: the brain's default seeding + traversal",
        seeding: None,
        traverse: true,
    },
];

/// What a run is asked to do (the resolved options of `bench folder`).
#[derive(Debug, Clone)]
pub struct FolderPlan {
    /// The folder brains are built from.
    pub workspace: PathBuf,
    /// The question set file.
    pub questions: PathBuf,
    /// The embedders to build a brain with, in order.
    pub embedders: Vec<EmbedderArg>,
    /// Where the model and its embedding cache are.
    pub model: ModelOpts,
    /// Seeds per query ([`QueryRequest::top`]).
    pub top: usize,
    /// Node ids per answer ([`QueryRequest::limit`]).
    pub limit: usize,
    /// The scratch directory the brains are built in.
    pub work: PathBuf,
    /// Whether to draw progress bars.
    pub progress: bool,
}

/// One arm's results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArmResult {
    /// [`ArmSpec::name`].
    pub name: String,
    /// [`ArmSpec::label`].
    pub label: String,
    /// `dense`, `lexical` or `hybrid`.
    pub seeding: String,
    /// Whether the traversal ran.
    pub traverse: bool,
    /// Its scores.
    pub scores: Scores,
    /// Per question (file order), the rank of the first acceptable page (`null`: none).
    pub ranks: Vec<Option<usize>>,
    /// Median milliseconds of a query (embedding included), in process.
    pub query_ms_median: f64,
}

/// One embedder's brain and its arms.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbedderResult {
    /// The embedder's name as the brain records it.
    pub embedder: String,
    /// Seconds to build the brain ([`init_store`]: embed and write).
    pub init_s: f64,
    /// Bytes of the brain directory after building it.
    pub brain_bytes: u64,
    /// The arms, in [`ARMS`] order.
    pub arms: Vec<ArmResult>,
}

/// Plain page-level BM25 (one document per file, [`Bm25`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReferenceResult {
    /// Its scores.
    pub scores: Scores,
    /// Per question, the rank of the first acceptable page.
    pub ranks: Vec<Option<usize>>,
}

/// The JSON result of `bench folder`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FolderReport {
    /// The command line that made it.
    pub command: String,
    /// The question set's header.
    pub about: About,
    /// The question set file as given.
    pub questions_file: String,
    /// Questions asked.
    pub questions: usize,
    /// Files of the folder that became nodes.
    pub files: usize,
    /// Nodes (chunks) of each brain.
    pub chunks: usize,
    /// Seeds per query.
    pub top: usize,
    /// Node ids per answer.
    pub limit: usize,
    /// The brains, one per embedder.
    pub brains: Vec<EmbedderResult>,
    /// Page-level BM25.
    pub page_bm25: ReferenceResult,
}

fn bar(len: usize, what: &str, progress: bool) -> ProgressBar {
    let b = if progress {
        ProgressBar::new(len as u64)
    } else {
        ProgressBar::hidden()
    };
    crate::embed::style_bar(&b);
    b.set_message(what.to_string());
    b
}

/// Bytes of the files under `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                dir_bytes(&p)
            } else {
                e.metadata().map_or(0, |m| m.len())
            }
        })
        .sum()
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The loader of `kind` for a brain's queries (the product's: hash-v1, or MiniLM as
/// `crabpath` loads it, behind the embedding cache unless `--no-cache`).
pub fn loader(kind: EmbedderArg, model: &ModelOpts) -> EmbedderLoader {
    let model = model.clone();
    std::sync::Arc::new(move || -> crabpath_brain::Result<Box<dyn Embedder>> {
        match kind {
            EmbedderArg::HashV1 => Ok(Box::new(HashEmbedder::new())),
            EmbedderArg::Minilm | EmbedderArg::Mpnet => {
                let e = TextEmbedder::open(kind, &model)
                    .map_err(|e| crabpath_brain::Error::Invalid(e.to_string()))?;
                Ok(Box::new(Owned(e)))
            }
        }
    })
}

/// A [`TextEmbedder`] owned by a brain.
struct Owned(TextEmbedder);

impl Embedder for Owned {
    fn name(&self) -> &str {
        self.0.as_embedder().name()
    }
    fn dim(&self) -> usize {
        self.0.as_embedder().dim()
    }
    fn embed(&self, text: &str) -> crabpath::Result<Vec<f64>> {
        self.0.as_embedder().embed(text)
    }
    fn embed_batch(&self, texts: &[&str]) -> crabpath::Result<Vec<Vec<f64>>> {
        self.0.as_embedder().embed_batch(texts)
    }
}

/// The name and dimension a brain records for `e` (as `crabpath init` does).
fn info_of(e: &TextEmbedder) -> EmbedderInfo {
    EmbedderInfo {
        name: e.name().to_string(),
        dim: e.dim(),
    }
}

/// Builds a brain of `graph` in `dir` with `kind` ([`init_store`], as `crabpath init`
/// does); returns the seconds it took.
pub fn build_brain(
    dir: &Path,
    graph: &Graph,
    kind: EmbedderArg,
    model: &ModelOpts,
    progress: bool,
) -> Result<f64> {
    let e = TextEmbedder::open(kind, model)?;
    let pb = bar(graph.node_count(), &format!("init {}", e.name()), progress);
    let tick = |n: usize| pb.set_position(n as u64);
    let opts = InitOptions {
        embedder: e.as_embedder(),
        info: info_of(&e),
        // as `crabpath init`: hash-v1 in parallel batches, MiniLM parallel inside
        parallel: kind == EmbedderArg::HashV1,
        progress: Some(&tick),
    };
    let t = Instant::now();
    init_store(dir, graph, &opts, Metadata::new(), Vec::new())
        .map_err(|e| Error::brain(format!("{}: init", dir.display()), e))?;
    let s = t.elapsed().as_secs_f64();
    pb.finish_and_clear();
    Ok(s)
}

/// Runs the plan (see the module docs).
pub fn run(plan: &FolderPlan, command: String) -> Result<FolderReport> {
    let set = QuestionSet::load(&plan.questions)?;
    set.check_files(&plan.questions, &plan.workspace)?;
    let boot = split_workspace(&plan.workspace, &SplitOptions::new(Profile::Corrected))
        .map_err(|e| Error::brain(format!("{}: split", plan.workspace.display()), e))?;
    let graph = &boot.graph;
    let page = super::score::page_map(graph);
    let page_of = |id: &str| page.get(id).cloned();
    let page_bm25 = reference(&set, &plan.workspace, &boot.files)?;
    let mut brains = Vec::new();
    for &kind in &plan.embedders {
        let dir = plan.work.join(kind.slug());
        let init_s = build_brain(&dir, graph, kind, &plan.model, plan.progress)?;
        let brain_bytes = dir_bytes(&dir);
        let mut o = OpenOptions::new(Profile::Corrected);
        o.write = false;
        o.resident = true;
        o.embedder = Some(loader(kind, &plan.model));
        let mut brain = Brain::open(locate(&dir), o)
            .map_err(|e| Error::brain(format!("{}: open", dir.display()), e))?;
        let pb = bar(
            ARMS.len() * set.questions.len(),
            &format!("questions ({})", kind.slug()),
            plan.progress,
        );
        let mut arms = Vec::new();
        for arm in ARMS {
            let mut ranks = Vec::with_capacity(set.questions.len());
            let mut ms = Vec::with_capacity(set.questions.len());
            for q in &set.questions {
                let mut req = QueryRequest::new(&q.question, plan.top);
                req.route = RouteMode::default_for(Profile::Corrected).config();
                req.limit = Some(plan.limit);
                req.seeding = arm.seeding;
                req.traverse = arm.traverse;
                // plain retrieval: a fixed graph (issue 31 item 1)
                req.neurogenesis = Some(false);
                let t = Instant::now();
                let answer = brain.query(&req).map_err(|e| {
                    Error::brain(
                        format!("{}: question {}: {}", arm.name, q.id, q.question),
                        e,
                    )
                })?;
                let pages = ranked_pages(answer.ranked(), page_of);
                ms.push(t.elapsed().as_secs_f64() * 1000.0);
                ranks.push(first_hit(&pages, &q.acceptable));
                pb.inc(1);
            }
            arms.push(ArmResult {
                name: arm.name.into(),
                label: arm.label.into(),
                seeding: arm
                    .seeding
                    .unwrap_or_else(|| {
                        Seeding::default_for(Profile::Corrected, true, kind == EmbedderArg::HashV1)
                    })
                    .as_str()
                    .into(),
                traverse: arm.traverse,
                scores: Scores::of(&ranks),
                ranks,
                query_ms_median: median(ms),
            });
        }
        pb.finish_and_clear();
        brains.push(EmbedderResult {
            embedder: brain
                .embedder_meta()
                .ok()
                .and_then(|m| {
                    m.get("embedder_name")
                        .and_then(|v| v.as_str())
                        .map(String::from)
                })
                .unwrap_or_else(|| kind.slug().to_string()),
            init_s,
            brain_bytes,
            arms,
        });
    }
    Ok(FolderReport {
        command,
        about: set.about.clone(),
        questions_file: plan.questions.display().to_string(),
        questions: set.questions.len(),
        files: boot.files.len(),
        chunks: graph.node_count(),
        top: plan.top,
        limit: plan.limit,
        brains,
        page_bm25,
    })
}

/// Page-level BM25: one document per file that became nodes, ranked for each question.
fn reference(
    set: &QuestionSet,
    workspace: &Path,
    files: &[crabpath_brain::source::bootstrap::FileChunks],
) -> Result<ReferenceResult> {
    let mut docs = Vec::with_capacity(files.len());
    for f in files {
        let p = workspace.join(&f.rel);
        docs.push(std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?);
    }
    let bm25 = Bm25::new(&docs);
    let ranks: Vec<Option<usize>> = set
        .questions
        .iter()
        .map(|q| {
            let pages: Vec<String> = bm25
                .search(&q.question, 50)
                .into_iter()
                // a page sharing no word with the question is not found
                .filter(|&(_, score)| score > 0.0)
                .map(|(d, _)| files[d].rel.clone())
                .collect();
            first_hit(&pages, &q.acceptable)
        })
        .collect();
    Ok(ReferenceResult {
        scores: Scores::of(&ranks),
        ranks,
    })
}

/// The Markdown table of a report: one row per brain and arm, then page-level BM25.
pub fn markdown(r: &FolderReport) -> String {
    let mut s = format!(
        "# Folder questions: {} @ {} `{}`\n\n\
         Generated by `{}`.\n\n\
         {} questions ({}), {} files, {} chunks; seeds per query {}, answer limit {} node ids; \
         scored by page (a node's file): success@k = an acceptable page among the first k \
         distinct pages, MRR = 1 / rank of the first acceptable page.\n\n\
         | embedder | arm | success@1 | success@5 | success@10 | MRR | query ms (median) |\n\
         |---|---|---|---|---|---|---|\n",
        r.about.repository,
        &r.about.commit[..r.about.commit.len().min(7)],
        r.about.folder,
        r.command,
        r.questions,
        r.questions_file,
        r.files,
        r.chunks,
        r.top,
        r.limit
    );
    for b in &r.brains {
        for a in &b.arms {
            s.push_str(&format!(
                "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |\n",
                b.embedder,
                a.label,
                a.scores.success_at_1,
                a.scores.success_at_5,
                a.scores.success_at_10,
                a.scores.mrr,
                a.query_ms_median
            ));
        }
    }
    let p = &r.page_bm25.scores;
    s.push_str(&format!(
        "| – | plain page-level BM25 (outside reference) | {:.3} | {:.3} | {:.3} | {:.3} | – |\n\n",
        p.success_at_1, p.success_at_5, p.success_at_10, p.mrr
    ));
    s.push_str("| embedder | init s | brain MB |\n|---|---|---|\n");
    for b in &r.brains {
        s.push_str(&format!(
            "| {} | {:.2} | {:.1} |\n",
            b.embedder,
            b.init_s,
            b.brain_bytes as f64 / 1e6
        ));
    }
    s
}
