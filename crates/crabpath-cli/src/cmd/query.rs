//! `crabpath query` (reference `crabpath/cli.py::cmd_query`):
//! [`crabpath_brain::Brain::query`].

use crabpath_brain::service::command::query::{hash_compat, parse_vector};
use crabpath_brain::{Location, QueryRequest};
use pyformat::pyjson::{PyDict, PyValue};

use crate::args::QueryArgs;
use crate::context::{choose_embedder, read_stdin, Ctx, Which};
use crate::error::{reference, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &QueryArgs) -> CliResult {
    let loc = ctx.location(&a.source, a.index.as_deref())?;
    let graph_only = matches!(loc, Location::Graph { index: None, .. });
    // `--chat-id`: the turn is logged for `learn --chat-id` (issue 31 item 5)
    let chat = match &a.chat_id {
        Some(raw) => {
            super::learn_chat::check_database(&loc)?;
            Some(super::learn_chat::chat_id(raw)?)
        }
        None => None,
    };
    let mut brain = ctx.open(loc, true)?;
    let meta = brain.embedder_meta()?;
    let which = choose_embedder(ctx, a.embedder, &meta, brain.path())?;
    if a.top <= 0 {
        return reference("--top must be >= 1");
    }
    let mut req = QueryRequest::new(&a.text, a.top as usize);
    req.max_context_chars = a.max_context_chars;
    req.route = a.route.resolve(ctx.profile).config();
    req.limit = a.limit.map(|k| k as usize);
    req.seeding = a.seeding;
    req.traverse = !a.no_traverse;
    req.neurogenesis = a.neurogenesis;
    if a.query_vector_stdin {
        if graph_only {
            return reference("query-vector-stdin requires --index");
        }
        req.vector = Some(parse_vector(&read_stdin()?, ctx.fixes())?);
    } else if !graph_only {
        if which == Which::Hash {
            hash_compat(&meta)?;
        }
        brain.set_embedder(which.loader());
    }
    if brain.read_only_fallback() {
        eprintln!(
            "crabpath: warning: {} is read-only: the query is answered but not journaled",
            brain.path().display()
        );
    }
    let answer = brain.query(&req)?;
    // a full disk: answered, not journaled, no turn logged (issue 30 item 4)
    if let Some(u) = &answer.unjournaled {
        eprintln!("crabpath: warning: {}", u.warning());
    }
    let turn = chat.and_then(|c| Some((c, answer.journaled_turn(&a.text)?)));
    let graph = answer.graph;
    let result = &answer.result;
    let config = &answer.config;
    if a.explain {
        let e = answer.explanation();
        // neurogenesis (issue 31 item 1): the question nodes among the seeds, marked
        let autos: Vec<(String, String)> = answer
            .seeds
            .iter()
            .map(|s| graph.name(s.0))
            .filter(|id| crabpath_brain::service::is_auto(id))
            .map(|id| {
                let state = graph
                    .get_node(id)
                    .and_then(|n| n.metadata.get("auto"))
                    .and_then(|m| m.get("state"))
                    .and_then(|s| s.as_str())
                    .unwrap_or("probation");
                (id.to_string(), state.to_string())
            })
            .collect();
        if a.json {
            let mut d = crabpath_brain::service::command::query::explanation_dict(&e, graph);
            if !autos.is_empty() {
                let list = autos
                    .iter()
                    .map(|(id, st)| {
                        PyValue::Dict(out::dict([("node", out::s(id)), ("state", out::s(st))]))
                    })
                    .collect();
                d.insert("auto_nodes".into(), PyValue::List(list));
            }
            out::println(&out::compact(&d));
        } else {
            out::println(&e.render(graph));
            for (id, st) in &autos {
                out::println(&format!(
                    "{id}: auto node (an earlier question, {st}): it seeds and steers, and takes no place in the answer"
                ));
            }
        }
        return log_turn(&mut brain, turn);
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
            .tier_summary(config)
            .into_iter()
            .map(|(k, v)| (k.to_string(), PyValue::Str(v)))
            .collect();
        let mut payload = out::dict([
            ("fired", out::strs(answer.fired())),
            ("steps", PyValue::List(steps)),
            ("context", out::s(&answer.context())),
            ("tier_thresholds", PyValue::Dict(tiers)),
        ]);
        if req.limit.is_some() {
            payload.insert("ranked".into(), out::strs(answer.ranked()));
        }
        if ctx.fixes() {
            payload.insert("guardrails".into(), answer.guardrails_json());
        }
        if let Some(u) = &answer.unjournaled {
            payload.insert("journaled".into(), PyValue::Bool(false));
            payload.insert("warning".into(), out::s(&u.warning()));
        }
        out::println(&out::compact(&payload));
    } else {
        let ids: Vec<_> = if req.limit.is_some() {
            let ranked = answer.ranked();
            ranked.iter().filter_map(|id| graph.lookup(id)).collect()
        } else {
            result.fired.clone()
        };
        let ids: Vec<_> = ids
            .into_iter()
            .filter(|&n| !answer.is_guardrail(graph.name(n)))
            .collect();
        let guards = out::guardrails_text(&answer);
        let content = out::query_text(&ids, graph, a.max_context_chars);
        out::println(&format!("{guards}{content}"));
    }
    log_turn(&mut brain, turn)
}

/// Appends the answered query to its conversation's log (`query --chat-id`), as the
/// daemon and MCP do with a `chat_id` ([`crabpath_brain::Brain::record_turn`]).
fn log_turn(
    brain: &mut crabpath_brain::Brain,
    turn: Option<(&str, crabpath_brain::service::turns::TurnRecord)>,
) -> CliResult {
    if let Some((chat, record)) = turn {
        brain.record_turn(chat, record)?;
    }
    Ok(0)
}
