//! `crabpath query` (reference `crabpath/cli.py::cmd_query`).

use crabpath::keyword::keyword_ranking;
use crabpath::Traverser;
use crabpath_brain::command::query::{hash_compat, parse_vector, traversal_config, vector_seeds};
use crabpath_brain::journal::{append, query_event};
use pyformat::pyjson::{PyDict, PyValue};

use crate::args::QueryArgs;
use crate::context::{choose_embedder, read_stdin, Ctx, Which};
use crate::error::{reference, CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &QueryArgs) -> CliResult {
    let loaded = ctx.load(&a.source, a.index.as_deref())?;
    let which = choose_embedder(ctx, a.embedder, &loaded.meta)?;
    if a.top <= 0 {
        return reference("--top must be >= 1");
    }
    let top = a.top as usize;
    let graph = &loaded.graph;
    let seeds = if a.query_vector_stdin {
        let Some(index) = &loaded.index else {
            return reference("query-vector-stdin requires --index");
        };
        let v = parse_vector(&read_stdin()?, ctx.fixes())?;
        if ctx.fixes() {
            if let Some(d) = index.dim() {
                if d != v.len() {
                    return Err(CliError::Other(anyhow::anyhow!(
                        "the query vector has {} dimensions, the index {d}",
                        v.len()
                    )));
                }
            }
        }
        vector_seeds(graph, index, &v, top)
    } else if let Some(index) = &loaded.index {
        if which == Which::Hash {
            hash_compat(&loaded.meta)?;
        }
        let v = which.load()?.embed(&a.text)?;
        vector_seeds(graph, index, &v, top)
    } else {
        keyword_ranking(graph, &a.text, top)
    };
    let config = traversal_config(ctx.profile, a.max_context_chars);
    let result = Traverser::new().traverse(graph, &seeds, &config)?;
    let fired = result.fired_names(graph);
    let journal = ctx.journal(a.source.state.as_deref(), a.source.graph.as_deref());
    append(
        &journal,
        query_event(&a.text, &fired, graph.node_count(), PyValue::Null),
    )
    .map_err(|e| CliError::Other(e.into()))?;
    if a.explain {
        let e = crabpath::explain::explain(graph, &seeds, &result, &config);
        if a.json {
            out::println(&out::compact(
                &crabpath_brain::command::query::explanation_dict(&e, graph),
            ));
        } else {
            out::println(&e.render(graph));
        }
        return Ok(0);
    }
    if a.json {
        let steps: Vec<PyValue> = result
            .steps
            .iter()
            .map(|s| {
                PyValue::Dict(out::dict([
                    ("from_node", out::s(graph.name(s.from))),
                    ("to_node", out::s(graph.name(s.to))),
                    ("edge_weight", PyValue::Float(s.weight)),
                    ("effective_weight", PyValue::Float(s.effective)),
                    ("tier", out::s(s.tier.as_str())),
                ]))
            })
            .collect();
        let tiers: PyDict = result
            .tier_summary(&config)
            .into_iter()
            .map(|(k, v)| (k.to_string(), PyValue::Str(v)))
            .collect();
        let payload = out::dict([
            ("fired", out::strs(fired.iter().copied())),
            ("steps", PyValue::List(steps)),
            (
                "context",
                out::s(&result.context(graph, config.max_context_chars)),
            ),
            ("tier_thresholds", PyValue::Dict(tiers)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&out::query_text(&result, graph, a.max_context_chars));
    }
    Ok(0)
}
