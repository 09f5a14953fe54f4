//! `bench repo`: the repository retrieval benchmark of the OpenClawBrain paper (seed 002,
//! Tables 24 and 25), reproduced exactly, and a fair version of it.
//!
//! The reference program is `benchmarks/run_benchmark.py` of `jonathangu/crabpath`
//! (byte-identical from commit 70f0065 to 134c676): it splits a workspace — the
//! repository itself — into a graph, runs eight retrieval methods over a file of
//! queries with relevant files, and reports Recall@3, Recall@5, Precision@3, MRR,
//! latencies and learning curves.
//!
//! * `--protocol paper` (the default with `--profile paper`, itself the default):
//!   the reference exactly — same corpus rules, methods ([`methods`]), scores
//!   ([`metrics`]), JSON and printed table ([`output`]); only timing fields differ.
//!   On the repository at commit 70f0065 it reproduces every number of Tables 24/25.
//! * `--protocol clean` (the default with `--profile corrected`): the same methods
//!   judged fairly ([`clean`]): the queries file and the benchmark's outputs are not
//!   part of the corpus, learning uses the real outcome (did a relevant file appear?),
//!   learning methods are scored on held-out queries (K-fold), every method is also
//!   scored at equal file budgets, BM25 and all-MiniLM-L6-v2 baselines run beside the
//!   paper's methods, and paired bootstrap intervals say which differences are real.
//!
//! The switches of the clean protocol are also flags of their own (`--corpus`,
//! `--outcome`, `--evaluation`), so that each fairness fix can be measured alone.
//!
//! Plan → execute → report, as every benchmark protocol ([`crate::protocol::Protocol`],
//! implemented by [`run::Repository`]): [`RepoArgs`] are resolved into a [`run::Plan`]
//! (every default filled in, nothing left to the flags), the workspace is split and
//! indexed, the methods compute their rankings, and the report
//! ([`results::repo::Report`]) and the printed table are made from them and written by
//! the one report writer ([`crate::report`]).

pub mod args;
pub mod clean;
pub mod corpus;
pub mod error;
pub mod methods;
pub mod metrics;
pub mod output;
pub mod queries;
pub mod run;
pub mod tree;

use std::path::PathBuf;

pub use args::{CorpusArg, DenseArg, EvaluationArg, OutcomeArg, ProfileArg, ProtocolArg, RepoArgs};
pub use error::{RepoError, Result};

use crate::protocol::{drive, no_gate, Env, Skip};

/// What `bench repo` printed and wrote.
#[derive(Debug, Clone)]
pub struct RepoOutput {
    /// Everything printed on stdout, in order.
    pub stdout: String,
    /// The report.
    pub report: results::repo::Report<pyformat::pyjson::PyValue>,
    /// Where it was written.
    pub out: PathBuf,
}

/// Runs `bench repo`; what it prints goes through `print` as soon as it is known (the
/// reference prints the first line before splitting).
pub fn cmd_repo(a: &RepoArgs, print: &mut dyn FnMut(&str)) -> Result<RepoOutput> {
    if a.threads > 0 {
        crate::engine::set_threads(a.threads);
    }
    let mut stdout = String::new();
    let done = {
        let mut say = |s: &str| {
            print(s);
            stdout.push_str(s);
        };
        // the repository benchmark reads no dataset: the data directory is the default
        let data_dir = crate::data::locate::DataDir::resolve(None);
        let mut env = Env::new(&data_dir, crate::engine::progress(!a.no_progress), &mut say);
        match drive(&run::Repository, a, &mut env, &no_gate)? {
            Ok(done) => done,
            Err(Skip(why)) => return Err(error::internal(why)),
        }
    };
    let saved = format!("Saved: {}\n", done.path.display());
    print(&saved);
    stdout.push_str(&saved);
    Ok(RepoOutput {
        stdout,
        report: done.document,
        out: done.path,
    })
}
