//! `crabpath reembed --state B --embedder X`: changes a brain's embedder in place and
//! keeps what it learned ([`crabpath_brain::Brain::reembed`]; issue 28, item 7; seed 003
//! §6.3).

use clap::ValueEnum;
use crabpath::graph::Metadata;
use crabpath_brain::service::command::reembed::ReembedOptions;
use crabpath_brain::{locate, Location};

use crate::args::{EmbedderChoice, ReembedArgs};
use crate::context::{choose_embedder, pathlib_str, Ctx, Which};
use crate::error::{CliError, CliResult};
use crate::out;

/// The embedder a `--embedder` value names: a value of `init --embedder`
/// ([`EmbedderChoice`]), or the name a brain records for one ([`Which::info`]).
/// Anything else is one line listing the accepted names.
fn parse_embedder(ctx: &Ctx, value: &str, brain: &std::path::Path) -> CliResult<Which> {
    let mut names = Vec::new();
    for choice in EmbedderChoice::value_variants() {
        // the refused ones (openai) are refused by `choose_embedder`, with its reason
        let which = choose_embedder(ctx, Some(*choice), &Metadata::new(), brain);
        let flag = choice
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default();
        if flag == value {
            return which;
        }
        if let Ok(w) = which {
            if w.info().name == value {
                return Ok(w);
            }
            names.push(format!("{flag} ({})", w.info().name));
        }
    }
    Err(CliError::Other(anyhow::anyhow!(
        "--embedder {value}: unknown embedder; expected one of {}",
        names.join(", ")
    )))
}

pub fn run(ctx: &Ctx, a: &ReembedArgs) -> CliResult {
    let path = ctx.state_path(&a.state, true);
    let location = locate(&path);
    let which = parse_embedder(ctx, &a.embedder, &path)?;
    match &location {
        Location::Store(_) => {}
        Location::State(p) if !p.exists() => {
            return Err(CliError::Other(anyhow::anyhow!(
                "--state {}: no brain there (neither a brain.db nor a state.json)",
                a.state
            )))
        }
        _ => {}
    }
    let mut brain = ctx.open(location, true)?;
    if !brain.is_store() {
        // before the model is loaded
        return Err(crabpath_brain::service::command::reembed::not_a_database(brain.path()).into());
    }
    let embedder = which.load()?;
    let bar = crate::embedding::bar(0, "reembed", ctx.progress());
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let report = brain.reembed(&ReembedOptions {
        embedder: embedder.as_ref(),
        info: which.info(),
        batch: usize::try_from(a.batch).unwrap_or(usize::MAX),
        progress: Some(&progress),
    })?;
    bar.finish_and_clear();
    let from = report
        .from
        .as_ref()
        .map_or_else(|| "no recorded embedder".to_string(), |e| e.to_string());
    if a.json {
        let payload = serde_json::json!({
            "brain": pathlib_str(brain.path()),
            "nodes": report.nodes,
            "resumed_from": report.resumed_from,
            "seconds": report.seconds,
            "from": from,
            "to": report.to.to_string(),
        });
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!(
            "Re-embedded {} nodes of {} with {} (was {}); resumed from {}; {:.2} s",
            report.nodes,
            pathlib_str(brain.path()),
            report.to,
            from,
            report.resumed_from,
            report.seconds
        ));
    }
    Ok(0)
}
