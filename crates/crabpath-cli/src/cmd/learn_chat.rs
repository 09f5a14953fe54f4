//! `crabpath learn --chat-id ID [--used-ids ...]` (issue 31 item 5, not in the
//! reference): the outcome taught to a conversation's recent turns, logged by `query
//! --chat-id`, with the nodes the agent used credited to the newest turn's question. It
//! is [`Brain::feedback`](crabpath_brain::Brain::feedback), as the daemon's
//! `learn_by_chat_id` and MCP `feedback`.

use crabpath_brain::service::command::learn::parse_fired_ids;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::FeedbackRequest;
use crabpath_brain::Location;
use pyformat::pyjson::PyValue;

use crate::args::LearnArgs;
use crate::context::{choose_embedder, Ctx};
use crate::error::{CliError, CliResult};
use crate::out;

/// The conversation id of `--chat-id`, trimmed; blank is refused.
pub fn chat_id(raw: &str) -> CliResult<&str> {
    let id = raw.trim();
    if id.is_empty() {
        return Err(other(
            "--chat-id: expected a conversation id, got a blank one",
        ));
    }
    Ok(id)
}

/// A brain database, the only brain whose conversation log outlives a command.
pub fn check_database(loc: &Location) -> CliResult<()> {
    match loc {
        Location::Store(_) => Ok(()),
        Location::State(p) | Location::Graph { graph: p, .. } => Err(other(format!(
            "--chat-id: {} is a state or graph file, which keeps no conversation log between commands; use a brain database (crabpath init, or crabpath import)",
            p.display()
        ))),
    }
}

fn other(message: impl Into<String>) -> CliError {
    CliError::Other(anyhow::anyhow!(message.into()))
}

/// Runs `learn --chat-id`.
pub fn run(ctx: &Ctx, a: &LearnArgs, raw_chat: &str) -> CliResult {
    let chat = chat_id(raw_chat)?;
    let loc = ctx.location(&a.source, None)?;
    check_database(&loc)?;
    let mut brain = ctx.open(loc, true)?;
    // a credited question that is not yet a node is born from its embedded text
    let meta = brain.embedder_meta()?;
    brain.set_embedder(choose_embedder(ctx, None, &meta, brain.path())?.loader());
    let used_ids = match &a.used_ids {
        None => None,
        Some(raw) => {
            let ids = parse_fired_ids(raw);
            if ids.is_empty() {
                return Err(other("--used-ids: expected node ids, comma-separated"));
            }
            if let Some(missing) = ids.iter().find(|id| !brain.has_node(id).unwrap_or(false)) {
                return Err(other(format!(
                    "--used-ids: `{missing}` is not a node of {}",
                    brain.path().display()
                )));
            }
            Some(ids)
        }
    };
    let r = brain.feedback(&FeedbackRequest {
        outcome: a.outcome,
        chat_id: Some(chat),
        fired_ids: None,
        turns_ago: None,
        window: Window::default(),
        used_ids,
    })?;
    let note = r.nothing_learned_note();
    if a.json {
        let mut d = out::dict([
            ("credited", r.credited_json()),
            (
                "already_credited",
                PyValue::List(
                    r.already_credited
                        .iter()
                        .map(|&t| out::count(t.max(0) as usize))
                        .collect(),
                ),
            ),
            ("edges_updated", out::count(r.edges_updated)),
            ("chat_id", out::s(chat)),
        ]);
        if let Some(n) = note {
            d.insert("note".into(), out::s(n));
        }
        out::println(&out::pretty(&d));
    } else {
        let mut text = format!("updated {}", brain.path().display());
        for c in &r.credited {
            text.push_str(&format!(
                "\n  turn {}: outcome {} along {} fired nodes",
                c.turn,
                c.outcome,
                c.fired.len()
            ));
        }
        if let (Some(c), Some(used)) = (r.credited.first(), &a.used_ids) {
            text.push_str(&format!(
                "\n  used ({used}): credited to the question of turn {}",
                c.turn
            ));
        }
        if let Some(n) = note {
            text.push_str(&format!("\n  {n}"));
        }
        out::println(&text);
    }
    Ok(0)
}
