//! The candidates of every question of a folder question set asked through the
//! product's default query (hash-v1 brain built as `bench folder` builds it, `top` 10,
//! `limit` 50), each with the features of `crabpath_brain::service::folder_rank`, as
//! JSON Lines (one question a line): what `benchmarks/scripts/folder_rank_fit.py` fits
//! the folder ranker's weights on (issue 28).
//!
//! `cargo run --release -p bench --example folder_rank_dump -- FOLDER QUESTIONS OUT.jsonl`
//! (the committed set: tldr-pages `pages/` at 08e345f and
//! `benchmarks/data/folder-questions/tldr-08e345f.json`).

use std::io::Write;

use anyhow::Context;
use bench::embed::{EmbedderArg, ModelOpts};
use bench::folder::questions::QuestionSet;
use bench::folder::run::{build_brain, loader};
use crabpath::profile::Profile;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::source::bootstrap::split_workspace;
use crabpath_brain::source::workspace::SplitOptions;
use crabpath_brain::{locate, Brain, OpenOptions, QueryRequest};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, folder, questions, out] = &args[..] else {
        anyhow::bail!("usage: folder_rank_dump FOLDER QUESTIONS OUT.jsonl");
    };
    let set = QuestionSet::load(std::path::Path::new(questions))?;
    let boot = split_workspace(
        std::path::Path::new(folder),
        &SplitOptions::new(Profile::Corrected),
    )
    .context("splitting the folder")?;
    let page = bench::folder::score::page_map(&boot.graph);
    let tmp = tempfile::tempdir()?;
    let model = ModelOpts::default();
    build_brain(tmp.path(), &boot.graph, EmbedderArg::HashV1, &model, false)?;
    let mut o = OpenOptions::new(Profile::Corrected);
    o.write = false;
    o.resident = true;
    o.embedder = Some(loader(EmbedderArg::HashV1, &model));
    let mut brain = Brain::open(locate(tmp.path()), o)?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    for q in &set.questions {
        let mut req = QueryRequest::new(&q.question, 10);
        req.route = RouteMode::default_for(Profile::Corrected).config();
        req.limit = Some(50);
        req.neurogenesis = Some(false);
        req.keep_candidates = true;
        let a = brain.query(&req)?;
        let cand: Vec<_> = a
            .candidates
            .iter()
            .map(|(id, x)| (page.get(id).cloned().unwrap_or_default(), x))
            .collect();
        writeln!(
            f,
            "{}",
            serde_json::json!({"id": q.id, "acceptable": q.acceptable, "cand": cand})
        )?;
    }
    Ok(())
}
