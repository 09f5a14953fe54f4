//! `crabpath inject` (reference `crabpath/cli.py::cmd_inject`).

use crabpath::graph::Metadata;
use crabpath::inject::{
    inject_correction, inject_node, CorrectionOptions, InjectConfig, InjectOptions,
};
use crabpath_brain::command::query::{hash_compat, parse_vector};
use pyformat::pyjson::PyValue;
use pyformat::pystr;
use serde_json::Value;

use crate::args::{InjectArgs, NodeType};
use crate::context::{choose_embedder, load_state_file, read_stdin, Ctx, Which};
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &InjectArgs) -> CliResult {
    let path = ctx.state_path(&a.state, false);
    let _lock = ctx.lock(&path)?;
    let mut state = load_state_file(&path)?;
    let which = choose_embedder(ctx, a.embedder, &state.meta)?;
    let vector = if a.vector_stdin {
        Some(parse_vector(&read_stdin()?, ctx.fixes())?)
    } else {
        if which == Which::Hash {
            hash_compat(&state.meta)?;
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
        let n = state.index.len() as i64 + 1;
        let hits = n + a.connect_top_k + 1;
        if hits <= 0 {
            min_sim = f64::INFINITY;
            0
        } else {
            (hits - 1) as usize
        }
    };
    let exists = state.graph.get_node(&a.id).is_some();
    let embedder = if vector.is_none() && !exists {
        Some(which.load()?)
    } else {
        None
    };
    let mut metadata = Metadata::new();
    metadata.insert("source".into(), Value::from("cli_inject"));
    metadata.insert("type".into(), Value::from(a.node_type.as_str()));
    let options = InjectOptions {
        summary: Some(summary),
        metadata,
        vector,
        embedder: embedder.as_deref(),
        connect_top_k: top_k,
        connect_min_sim: min_sim,
    };
    let correction = a.node_type == NodeType::Correction;
    let result = if correction {
        inject_correction(
            &mut state.graph,
            &mut state.index,
            &a.id,
            &a.content,
            options,
            &CorrectionOptions::default(),
            &InjectConfig::for_profile(ctx.profile),
        )
    } else {
        inject_node(
            &mut state.graph,
            &mut state.index,
            &a.id,
            &a.content,
            options,
        )
    };
    let report = match result {
        Ok(r) => r,
        Err(crabpath::Error::DimensionMismatch { expected, got }) if !ctx.fixes() => {
            return reference(format!(
                "ValueError: Vector dimension mismatch: injected {got} vs index {expected}. Use an embed_fn that produces {expected}-dim vectors."
            ));
        }
        Err(e) => return Err(e.into()),
    };
    if report.skipped && ctx.fixes() {
        // corrected: an existing id is not re-saved (reference A34 rewrites the file)
        eprintln!("crabpath: {} already exists: nothing injected", a.id);
    } else {
        ctx.save(&path, &state)?;
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
