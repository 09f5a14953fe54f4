//! `crabpath inject` (reference `crabpath/cli.py::cmd_inject`):
//! [`crabpath_brain::Brain::inject`].

use crabpath_brain::service::command::query::{hash_compat, parse_vector};
use crabpath_brain::service::InjectRequest;
use pyformat::pyjson::PyValue;
use pyformat::pystr;

use crate::args::{InjectArgs, NodeType};
use crate::context::{choose_embedder, read_stdin, Ctx, Which};
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &InjectArgs) -> CliResult {
    let loc = crabpath_brain::locate(&ctx.state_path(&a.state, false));
    let mut brain = ctx.open(loc, true)?;
    let meta = brain.embedder_meta()?;
    let which = choose_embedder(ctx, a.embedder, &meta, brain.path())?;
    let vector = if a.vector_stdin {
        Some(parse_vector(&read_stdin()?, ctx.fixes())?)
    } else {
        if which == Which::Hash {
            hash_compat(&meta)?;
        }
        None
    };
    let summary = match &a.summary {
        Some(s) if !s.is_empty() => s.clone(),
        _ => pystr::first_line(&a.content).to_string(),
    };
    let mut min_sim = a
        .connect_min_sim
        .unwrap_or(if which == Which::Hash { 0.0 } else { 0.3 });
    // `index.search(v, top_k + 1)` with Python slicing for negative values
    let top_k = if a.connect_top_k >= 0 {
        a.connect_top_k as usize
    } else if ctx.fixes() {
        return Err(CliError::Other(anyhow::anyhow!(
            "--connect-top-k must be >= 0, got {}",
            a.connect_top_k
        )));
    } else {
        let n = brain.vector_count()? as i64 + 1;
        let hits = n + a.connect_top_k + 1;
        if hits <= 0 {
            min_sim = f64::INFINITY;
            0
        } else {
            (hits - 1) as usize
        }
    };
    brain.set_embedder(which.loader());
    let correction = a.node_type == NodeType::Correction;
    let req = InjectRequest {
        id: a.id.clone(),
        content: a.content.clone(),
        node_type: a.node_type.as_str().to_string(),
        summary: Some(summary),
        vector,
        connect_top_k: top_k,
        connect_min_sim: min_sim,
        source: "cli_inject".into(),
    };
    let report = match brain.inject(&req) {
        Ok(r) => r,
        Err(crabpath_brain::Error::Core(crabpath::Error::DimensionMismatch { expected, got }))
            if !ctx.fixes() =>
        {
            return reference(format!(
                "ValueError: Vector dimension mismatch: injected {got} vs index {expected}. Use an embed_fn that produces {expected}-dim vectors."
            ));
        }
        Err(e) => return Err(e.into()),
    };
    if report.skipped && ctx.fixes() {
        // corrected: an existing id is not re-saved (reference A34 rewrites the file),
        // and the command says so once: an error, nothing on stdout (it also printed
        // "Injected <id>" and exited 0)
        return Err(CliError::Other(anyhow::anyhow!(
            "--id {}: a node with this id already exists: nothing injected",
            a.id
        )));
    }
    if a.json {
        let mut payload = out::dict([
            ("node_id", out::s(&report.node_id)),
            ("edges_added", out::count(report.edges_added)),
            (
                "connected_to",
                out::strs(report.connected_to.iter().map(String::as_str)),
            ),
        ]);
        if correction {
            payload.insert(
                "inhibitory_edges_created".into(),
                out::count(report.inhibitory_edges),
            );
        }
        out::println(&out::pretty(&PyValue::Dict(payload)));
    } else {
        out::println(&format!("Injected {}", report.node_id));
    }
    Ok(0)
}
