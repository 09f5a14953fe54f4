//! `crabpath info` (reference `crabpath/cli.py::cmd_info`).

use crabpath_brain::reference::journal::read_journal;
use crabpath_brain::service::command::doctor::load_payload;
use crabpath_brain::service::command::info::{info_payload, REFERENCE_VERSION};
use crabpath_brain::source::workspace::expanduser;
use pyformat::pyjson::{PyDict, PyValue};
use pyformat::pyrepr::py_str;

use crate::args::InfoArgs;
use crate::context::{version, Ctx};
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &InfoArgs) -> CliResult {
    let na = || PyValue::Str("n/a".into());
    let store = a
        .state
        .as_deref()
        .map(|s| crabpath_brain::locate(&expanduser(s)))
        .filter(|l| matches!(l, crabpath_brain::Location::Store(_)));
    let mut store_entries = None;
    let mut auto = None;
    let (graph, name, dim, size) = if let Some(loc) = store {
        let mut brain = ctx.open(loc, false)?;
        let facts = brain.store_info()?.expect("a database");
        let (graph, meta) = brain.read(|g, m| (g.clone(), m.clone()))?;
        store_entries = Some(facts.journal_entries);
        auto = Some(brain.neurogenesis_counts()?);
        let get = |k: &str| meta.get(k).map(PyValue::from).unwrap_or_else(na);
        (graph, get("embedder_name"), get("embedder_dim"), facts.size)
    } else if let Some(s) = &a.state {
        let path = expanduser(s);
        let payload = load_payload(&path, s).map_err(CliError::Reference)?;
        let graph_value = payload
            .get("graph")
            .cloned()
            .unwrap_or(PyValue::Dict(payload.clone()));
        if !matches!(graph_value, PyValue::Dict(_)) {
            return reference("state file graph payload must be an object");
        }
        if !matches!(payload.get("index"), None | Some(PyValue::Dict(_))) {
            return reference("state index payload must be an object");
        }
        let graph = ctx.load_graph(s)?;
        let meta = match payload.get("meta") {
            Some(PyValue::Dict(m)) => m.clone(),
            _ => PyDict::new(),
        };
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        (
            graph,
            meta.get("embedder_name").cloned().unwrap_or_else(na),
            meta.get("embedder_dim").cloned().unwrap_or_else(na),
            size,
        )
    } else {
        let g = a.graph.as_deref().unwrap_or("");
        let graph = ctx.load_graph(g)?;
        let mut p = expanduser(g);
        if ctx.fixes() && p.is_dir() {
            p = p.join("graph.json");
        }
        let size = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        (graph, na(), na(), size)
    };
    let journal = ctx.journal(a.state.as_deref(), a.graph.as_deref());
    let entries = if store_entries.is_some() {
        store_entries
    } else if journal.exists() {
        Some(
            read_journal(&journal, ctx.profile)
                .map_err(|e| CliError::Other(e.into()))?
                .entries
                .len(),
        )
    } else {
        None
    };
    let v = if ctx.fixes() {
        version()
    } else {
        REFERENCE_VERSION.to_string()
    };
    let mut payload = info_payload(&v, &graph, name, dim, entries, size);
    // neurogenesis (issue 31 item 1): a database brain's auto nodes
    if let Some(c) = auto {
        payload.insert("auto_probation".into(), out::count(c.probation));
        payload.insert("auto_permanent".into(), out::count(c.permanent));
        payload.insert("auto_dead".into(), out::count(c.dead));
    }
    if a.json {
        out::println(&out::pretty(&payload));
        return Ok(0);
    }
    let f = |k: &str| payload.get(k).map(py_str).unwrap_or_default();
    let pct = |k: &str| match payload.get(k) {
        Some(PyValue::Float(x)) => format!("{x:.2}"),
        _ => String::new(),
    };
    let mut lines = vec![
        format!("version: {}", f("version")),
        format!("node_count: {}", f("node_count")),
        format!("edge_count: {}", f("edge_count")),
        format!("embedder_name: {}", f("embedder_name")),
        format!("embedder_dim: {}", f("embedder_dim")),
        format!("dormant_pct: {}", pct("dormant_pct")),
        format!("habitual_pct: {}", pct("habitual_pct")),
        format!("reflex_pct: {}", pct("reflex_pct")),
        format!(
            "journal_entry_count: {}",
            entries.map_or("n/a".to_string(), |n| n.to_string())
        ),
        format!("state_file_size: {}", f("state_file_size")),
    ];
    if let Some(c) = auto {
        lines.push(format!(
            "auto_nodes: {} on probation, {} permanent, {} dead",
            c.probation, c.permanent, c.dead
        ));
    }
    out::println(&lines.join("\n"));
    Ok(0)
}
