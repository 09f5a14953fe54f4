//! `bench run`: the protocol a command line asks for ([`Choice`]), driven plan → execute →
//! report ([`crate::protocol::drive`]). `bench check` re-runs a recorded command line
//! through the same door ([`run_with`]).

use std::path::PathBuf;

use serde_json::Value;

use crate::catalog::Dataset;
use crate::data::locate::DataDir;
use crate::engine::{progress, set_threads};
use crate::error::Result;
use crate::heldout::HeldoutProtocol;
use crate::locomo::headline::HeadlineProtocol;
use crate::locomo::protocol::LocomoProtocol;
use crate::official_run::Official;
use crate::plan::{ProtocolArg, RunArgs};
use crate::protocol::{drive, Env, Protocol, Skip};
use crate::standard::Standard;

/// The protocols of `bench run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// `--protocol paper | clean` ([`Standard`]).
    Standard,
    /// `--protocol related | unrelated | repeat` ([`HeldoutProtocol`]).
    Heldout,
    /// `--corpus FILE`: MultiHop-RAG's official protocol ([`Official`]).
    Official,
    /// `--dataset locomo`: one brain per conversation ([`LocomoProtocol`]).
    Locomo,
    /// `--dataset locomo --protocol product`: the product's path ([`HeadlineProtocol`]).
    LocomoProduct,
}

impl Choice {
    /// The protocol `a` asks for.
    pub fn of(a: &RunArgs) -> Choice {
        if a.data.dataset == Dataset::Locomo && a.protocol == ProtocolArg::Product {
            Choice::LocomoProduct
        } else if a.data.dataset == Dataset::Locomo {
            Choice::Locomo
        } else if a.corpus.is_some() {
            Choice::Official
        } else if a.protocol.heldout().is_some() {
            Choice::Heldout
        } else {
            Choice::Standard
        }
    }
}

/// What a finished run wrote.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The JSON report.
    pub json_path: PathBuf,
    /// The report, as written.
    pub report: Value,
    /// Its one-screen summary.
    pub summary: String,
}

/// Runs `bench run` with these arguments.
pub fn cmd_run(data_dir: &DataDir, a: &RunArgs) -> Result<RunOutput> {
    set_threads(a.threads);
    let no_skip = |_: &[&str]| Ok(None);
    match run_with(data_dir, a, !a.no_progress, &no_skip)? {
        Ok(out) => Ok(out),
        Err(Skip(why)) => Err(crate::Error::Internal(format!("run stopped: {why}"))),
    }
}

/// Runs the protocol `a` asks for; `gate` sees every text it will embed once its inputs
/// are loaded and may stop it (`bench check`, when the embedding cache lacks some).
pub fn run_with(
    data_dir: &DataDir,
    a: &RunArgs,
    show_progress: bool,
    gate: &dyn Fn(&[&str]) -> Result<Option<Skip>>,
) -> Result<std::result::Result<RunOutput, Skip>> {
    if a.protocol == ProtocolArg::Product && a.data.dataset != Dataset::Locomo {
        return Err(crate::Error::Usage(
            "--protocol product runs on --dataset locomo only".into(),
        ));
    }
    match Choice::of(a) {
        Choice::LocomoProduct => run_one(&HeadlineProtocol, data_dir, a, show_progress, gate),
        Choice::Standard => run_one(&Standard, data_dir, a, show_progress, gate),
        Choice::Heldout => run_one(&HeldoutProtocol, data_dir, a, show_progress, gate),
        Choice::Official => run_one(&Official, data_dir, a, show_progress, gate),
        Choice::Locomo => run_one(&LocomoProtocol, data_dir, a, show_progress, gate),
    }
}

fn run_one<P>(
    p: &P,
    data_dir: &DataDir,
    a: &RunArgs,
    show_progress: bool,
    gate: &dyn Fn(&[&str]) -> Result<Option<Skip>>,
) -> Result<std::result::Result<RunOutput, Skip>>
where
    P: Protocol<Args = RunArgs, Error = crate::Error>,
{
    let mut print = |s: &str| print!("{s}");
    let mut env = Env::new(data_dir, progress(show_progress), &mut print);
    let texts_gate = |p: &P, inputs: &P::Inputs| gate(&p.texts(inputs));
    Ok(drive(p, a, &mut env, &texts_gate)?.map(|done| RunOutput {
        summary: p.summary(&done.document),
        json_path: done.path,
        report: done.json,
    }))
}
