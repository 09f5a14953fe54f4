//! The benchmark protocols behind one trait: options → [`Protocol::plan`] → [`Protocol::open`]
//! → [`Protocol::execute`] → [`Protocol::report`] → the one writer ([`crate::report::write`]),
//! driven by [`drive`].
//!
//! The implementations, one module each, never call one another:
//!
//! * [`crate::standard::Standard`] — `--protocol paper | clean`: the reference's stream,
//!   prequential or split;
//! * [`crate::heldout::HeldoutProtocol`] — `--protocol related | unrelated | repeat`;
//! * [`crate::official_run::Official`] — MultiHop-RAG's official protocol (`--corpus`);
//! * [`crate::repo::run::Repository`] — `bench repo`, the repository benchmark.
//!
//! [`crate::run`] picks the protocol a `bench run` command line asks for (and re-runs a
//! recorded one for `bench check`). What they share lives below them: the rows, the
//! embedder, the search and the graph ([`crate::engine`]), the methods
//! ([`crate::methods`]), the metrics and tests ([`crate::metrics`],
//! [`crate::significance`]), and the parts every report has ([`crate::report::Frame`]).
//!
//! # Adding a protocol
//! 1. Its sections: a serde type in `results::bench` (or a document of its own), flattened
//!    into [`results::bench::Report`], and a variant of `results::bench::Sections`.
//! 2. Its module: a unit struct implementing [`Protocol`] — `plan` resolves the options
//!    (no I/O), `open` loads what it reads, `execute` runs the methods (reusing
//!    [`crate::engine::prepare`] and the method runners), `report` builds the document
//!    with [`crate::report::Frame::report`] and returns it with its path and format.
//! 3. An arm in [`crate::run::Choice`], so that `bench run` and `bench check` reach it.

use std::time::Instant;

use indicatif::MultiProgress;
use serde::Serialize;
use serde_json::Value;

use crate::data::locate::DataDir;
use crate::engine::Timings;
use crate::report::Written;

/// What every phase of a run may use: the data directory, the progress display, the
/// stage timings, the start time and where printed lines go.
pub struct Env<'a> {
    /// Where dataset files are looked for.
    pub data_dir: &'a DataDir,
    /// Progress bars (hidden when not wanted).
    pub progress: MultiProgress,
    /// Wall-clock seconds of the stages, in order.
    pub timings: Timings,
    /// When the run started (its `total` time).
    pub started: Instant,
    /// Receives what the run prints on stdout (the repository benchmark's table).
    pub print: &'a mut dyn FnMut(&str),
}

impl<'a> Env<'a> {
    /// An environment starting now.
    pub fn new(
        data_dir: &'a DataDir,
        progress: MultiProgress,
        print: &'a mut dyn FnMut(&str),
    ) -> Env<'a> {
        Env {
            data_dir,
            progress,
            timings: Timings::default(),
            started: Instant::now(),
            print,
        }
    }

    /// Prints `s` (see [`Env::print`]).
    pub fn say(&mut self, s: &str) {
        (self.print)(s);
    }
}

/// A benchmark protocol (see the module docs).
pub trait Protocol {
    /// The options it runs from.
    type Args;
    /// The options resolved and checked; nothing read yet.
    type Plan;
    /// What it reads (the embedder and the rows, a workspace, ...).
    type Inputs;
    /// What running its methods produced.
    type Executed;
    /// Its document (a type of the `results` crate).
    type Report: Serialize;
    /// Its error.
    type Error: From<crate::Error>;

    /// Resolves and checks the options; reads no file.
    fn plan(&self, args: &Self::Args) -> Result<Self::Plan, Self::Error>;

    /// Loads what the plan reads.
    fn open(&self, plan: &Self::Plan, env: &mut Env) -> Result<Self::Inputs, Self::Error>;

    /// Every text the run will embed (what `bench check` looks for in the embedding cache
    /// before it re-runs a report); empty when it embeds nothing through the cache.
    fn texts<'i>(&self, inputs: &'i Self::Inputs) -> Vec<&'i str> {
        let _ = inputs;
        Vec::new()
    }

    /// Runs the methods.
    fn execute(
        &self,
        plan: &Self::Plan,
        inputs: &Self::Inputs,
        env: &mut Env,
    ) -> Result<Self::Executed, Self::Error>;

    /// The document, where it goes, its format and the files beside it.
    fn report(
        &self,
        plan: &Self::Plan,
        inputs: &Self::Inputs,
        executed: Self::Executed,
        env: &mut Env,
    ) -> Result<Written<Self::Report>, Self::Error>;

    /// A one-screen summary of the document (printed by `bench run`).
    fn summary(&self, report: &Self::Report) -> String {
        let _ = report;
        String::new()
    }
}

/// A written run: the document, where it went, and its JSON as written.
#[derive(Debug, Clone)]
pub struct Done<D> {
    /// The document.
    pub document: D,
    /// Its path.
    pub path: std::path::PathBuf,
    /// The document as written (numbers rounded as the format rounds them).
    pub json: Value,
}

/// Why a run stopped before executing (see [`drive`]'s gate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

/// A check between [`Protocol::open`] and [`Protocol::execute`] that may stop a run (see
/// [`drive`]).
pub type Gate<'g, P> =
    dyn Fn(&P, &<P as Protocol>::Inputs) -> Result<Option<Skip>, <P as Protocol>::Error> + 'g;

/// Runs `p` on `args`: plan, open, the `gate` (which may stop the run, e.g. `bench check`
/// when the embedding cache lacks texts), execute, report, write.
pub fn drive<P: Protocol>(
    p: &P,
    args: &P::Args,
    env: &mut Env,
    gate: &Gate<P>,
) -> Result<Result<Done<P::Report>, Skip>, P::Error> {
    let plan = p.plan(args)?;
    let inputs = p.open(&plan, env)?;
    if let Some(skip) = gate(p, &inputs)? {
        return Ok(Err(skip));
    }
    let executed = p.execute(&plan, &inputs, env)?;
    let written = p.report(&plan, &inputs, executed, env)?;
    let json = crate::report::write(&written)?;
    let _ = env.progress.clear();
    Ok(Ok(Done {
        document: written.document,
        path: written.path,
        json,
    }))
}

/// The gate that lets every run through.
pub fn no_gate<P: Protocol>(_: &P, _: &P::Inputs) -> Result<Option<Skip>, P::Error> {
    Ok(None)
}
