//! The tools: their JSON schemas and descriptions (written for the model that calls
//! them), and what each does to the brain. Every tool returns its result as
//! structured content (a JSON object) and as the same JSON in a text block.

use std::path::PathBuf;
use std::sync::Arc;

use crabpath_brain::service::command::query::DAEMON_MAX_CONTEXT_CHARS;
use crabpath_brain::service::health::DEFAULT_WINDOW;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::service::turns::Window;
use crabpath_brain::service::{
    CorrectRequest, FeedbackReport, FeedbackRequest, ForgetTarget, TurnCredit,
};
use crabpath_brain::{Brain, QueryRequest};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Map, Value};

use crate::args::Args;
use crate::error::{Error, Result};
use crabpath_brain::serve::role::Role;

/// Most seeds a query may ask for.
pub const MAX_TOP_K: i64 = 50;

/// Default seeds of a query (the daemon's `top_k` default).
pub const DEFAULT_TOP_K: i64 = 4;

/// Most nodes a query's answer may be limited to (`limit`, issue 28 item 2).
pub const MAX_LIMIT: i64 = 200;

/// Largest `window` of the `health` tool (queries).
pub const MAX_HEALTH_WINDOW: i64 = 1_000_000;

/// One MCP tool, defined once (issue 30 item 1): what a client lists (name,
/// description, schema, annotations), the role a caller needs, the argument names it
/// accepts and the function that runs it.
pub struct ToolDef {
    /// The tool's name, as clients call it.
    pub name: &'static str,
    /// The least role a token needs to call it (HTTP with tokens: a lower one gets 403).
    pub role: Role,
    /// The argument names it accepts; any other is refused before the handler runs.
    pub known: &'static [&'static str],
    /// The handler checks the argument names itself (`remember`: the conversation
    /// turn's parser names its fields, with the message `crabpath remember` gives).
    pub own_check: bool,
    /// What the tool does, written for the model that calls it.
    pub description: &'static str,
    /// The JSON schema of its arguments (its properties are `known`, a test checks).
    pub schema: fn() -> Value,
    /// Hints for clients (read-only, idempotent), if any.
    pub annotations: fn() -> Option<ToolAnnotations>,
    /// Runs it on a brain, with its arguments checked against `known`.
    pub run: fn(&mut Brain, &Context<'_>, &Args<'_>) -> Result<Value>,
}

impl ToolDef {
    /// Whether the tool only reads (its annotations' `readOnlyHint`: `health`; not
    /// `query`, which journals): the server runs it on its read-only handle, beside
    /// a write in progress (issue 30 item 4, finding c).
    pub fn reads_only(&self) -> bool {
        (self.annotations)().and_then(|a| a.read_only_hint) == Some(true)
    }

    /// The tool as `tools/list` shows it.
    pub fn tool(&self) -> Tool {
        let t = Tool::new(self.name, self.description, schema((self.schema)()));
        match (self.annotations)() {
            Some(a) => t.annotate(a),
            None => t,
        }
    }
}

/// The definition of tool `name`, if there is one.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The message for a call of an unknown tool, listing the tools.
pub fn unknown_tool(name: &str) -> String {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    format!("unknown tool `{name}` (tools: {})", names.join(", "))
}

fn no_annotations() -> Option<ToolAnnotations> {
    None
}

/// What a tool needs besides its arguments.
pub struct Context<'a> {
    /// The route mode of queries that do not name one.
    pub route_mode: RouteMode,
    /// The folder the server was started with (`--workspace`): the only one `sync`
    /// reads (default: the folder the brain records).
    pub workspace: Option<&'a PathBuf>,
}

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

fn query_schema() -> Value {
    let modes: Vec<&str> = RouteMode::ALL.iter().map(|m| m.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The question or topic, in natural language."},
            "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K, "default": DEFAULT_TOP_K,
                      "description": "How many best-matching chunks to start from (more: broader, slower)."},
            "chat_id": {"type": "string", "description": "This conversation's id; logs the turn for `feedback` and `correct`."},
            "explain": {"type": "boolean", "default": false,
                        "description": "Also return a text saying why each node fired (seed score, edges, vetoes)."},
            "route_mode": {"type": "string", "enum": modes,
                           "description": "How to pick among a node's learned links: off (all), edge (strongest), edge+sim (strongest and closest to the question; default), adaptive."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                      "description": "Return at most this many chunks, best first (the best search matches, then the chunks their links led to, then the next search matches). Without it: the fired nodes."},
            "neurogenesis": {"type": "string", "enum": ["on", "off"],
                             "description": "on (the memory's setting, by default on): a new question is kept as a question node that your feedback teaches, so the same question later gets the chunks you confirmed; off: a fixed memory, nothing learned from this query."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn query_annotations() -> Option<ToolAnnotations> {
    Some(ToolAnnotations::new().read_only(false).idempotent(false))
}

fn feedback_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "outcome": {"type": "number", "minimum": -1, "maximum": 1,
                        "description": "1 helpful, -1 wrong, in between for partial."},
            "chat_id": {"type": "string", "description": "The conversation whose recent turns this is about."},
            "turns_ago": {"type": "integer", "minimum": 0, "maximum": 9,
                          "description": "Only the turn this many queries back (0 = the last)."},
            "fired_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                          "description": "Node ids in the order they fired, instead of a chat_id."},
            "used_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                         "description": "With chat_id: the node ids you actually used for the last credited turn, in the answer or found otherwise (e.g. read as crabpath://node/{id}); the same question asked again gets them first, and the graph's edges learn only among them."}
        },
        "required": ["outcome"],
        "additionalProperties": false
    })
}

fn correct_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "The correction, as a self-contained statement."},
            "chat_id": {"type": "string", "description": "The conversation whose recent answer was wrong."},
            "turns_ago": {"type": "integer", "minimum": 0, "maximum": 9,
                          "description": "Only the turn this many queries back (0 = the last)."}
        },
        "required": ["content"],
        "additionalProperties": false
    })
}

fn teach_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "The knowledge, as a self-contained statement."},
            "kind": {"type": "string", "enum": ["TEACHING", "DIRECTIVE"], "default": "TEACHING",
                     "description": "TEACHING for facts, DIRECTIVE for instructions to follow."},
            "chat_id": {"type": "string", "description": "The conversation it came from (recorded)."}
        },
        "required": ["content"],
        "additionalProperties": false
    })
}

fn forget_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file": {"type": "string", "minLength": 1, "description": "A file of the memory's folder (its path relative to the folder): every chunk of it."},
            "node": {"type": "string", "minLength": 1, "description": "One node, by id."},
            "chat": {"type": "string", "minLength": 1, "description": "A conversation (chat_id): its logged turns and the nodes it created."}
        },
        "additionalProperties": false
    })
}

fn forget_annotations() -> Option<ToolAnnotations> {
    Some(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(true),
    )
}

fn health_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "window": {"type": "integer", "minimum": 1, "maximum": MAX_HEALTH_WINDOW,
                       "default": DEFAULT_WINDOW,
                       "description": "How many of the latest queries the per-query metrics cover."}
        },
        "additionalProperties": false
    })
}

fn health_annotations() -> Option<ToolAnnotations> {
    Some(ToolAnnotations::new().read_only(true))
}

fn sync_schema() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn remember_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "description": "What was said."},
            "speaker": {"type": "string", "description": "Who said it."},
            "time": {"type": "string", "description": "When it was said, as you would write it (e.g. `1:56 pm on 8 May, 2023`)."},
            "session": {"type": ["string", "integer"], "description": "The session (sitting) it belongs to: turns are linked to the previous turn of their session."},
            "id": {"type": "string", "description": "The turn's id, new to this memory (default: `turn:<session>:<n>`)."}
        },
        "required": ["text"],
        "additionalProperties": false
    })
}

/// Every tool, in the order a client lists them: the one definition of each that
/// [`list`], [`call`], the argument check and the HTTP role check read (issue 30 item 1;
/// STYLE.md, ripgrep's `FLAGS`). A new tool is one entry here and its handler; the
/// `forget` tool (issue 30 item 3) is the last, with role admin.
pub const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "query",
        role: Role::Read,
        known: &[
            "query",
            "top_k",
            "chat_id",
            "explain",
            "route_mode",
            "limit",
            "neurogenesis",
        ],
        own_check: false,
        description: "Search the memory before you answer. Returns the stored chunks relevant to \
         the question (the fired nodes): each with its id, text, activation score and \
         the path of node ids that reached it (seed first). Pass a chat_id (any stable \
         id of this conversation) so that later feedback and corrections can find \
         this turn. Cite node ids when you use a chunk.",
        schema: query_schema,
        annotations: query_annotations,
        run: query,
    },
    ToolDef {
        name: "feedback",
        role: Role::Write,
        known: &["outcome", "chat_id", "turns_ago", "fired_ids", "used_ids"],
        own_check: false,
        description: "Tell the memory how useful its answers were, so it learns which links to \
         follow. outcome: 1 = the retrieved chunks were right and helped, -1 = they \
         were wrong or misleading, values between for partial. Give the chat_id you \
         queried with: the outcome reaches that conversation's recent turns (up to \
         10 turns or 15 minutes back, the latest weighted most), each turn only once. \
         Use turns_ago to name one turn (0 = your last query), or fired_ids to name \
         the nodes yourself.",
        schema: feedback_schema,
        annotations: no_annotations,
        run: feedback,
    },
    ToolDef {
        name: "correct",
        role: Role::Write,
        known: &["content", "chat_id", "turns_ago"],
        own_check: false,
        description: "Record a correction: a statement of what is actually true or what must not \
         be done, for instance after the user corrected you. It is stored as a \
         CORRECTION node, linked to the chunks it concerns and returned beside them \
         under `guardrails` whenever a query reaches it. With the chat_id of the \
         conversation, the path your recent answer took is weakened (its chunks \
         stay available to the questions that need them). The same correction sent twice \
         is applied once.",
        schema: correct_schema,
        annotations: no_annotations,
        run: correct,
    },
    ToolDef {
        name: "teach",
        role: Role::Write,
        known: &["content", "kind", "chat_id"],
        own_check: false,
        description: "Store new knowledge the memory should return in the future (a fact, a \
         procedure, a rule to follow). It becomes a node linked to the most similar \
         existing ones. The same text is stored once.",
        schema: teach_schema,
        annotations: no_annotations,
        run: teach,
    },
    ToolDef {
        name: "health",
        role: Role::Read,
        known: &["window"],
        own_check: false,
        description: "Report the memory's health: node and edge counts and the eight metrics of \
         its design (nodes fired per query, cross-file links, dormant and reflex \
         links, context compression, promotion of auto-created nodes, reconverged \
         chunks, orphan nodes), each with its value (null when not computable yet, \
         with the reason), its target range and whether it is out of it. The \
         per-query metrics cover the last `window` queries.",
        schema: health_schema,
        annotations: health_annotations,
        run: health,
    },
    ToolDef {
        name: "sync",
        role: Role::Write,
        known: &[],
        own_check: false,
        description: "Re-read the workspace folder the memory was built from (the one the server \
         was started with; no other): new and changed files are split and \
         embedded, deleted ones removed, learned links of unchanged chunks kept. \
         Files that cannot be read keep their chunks (`partial` is then true). Call \
         it after files were edited.",
        schema: sync_schema,
        annotations: no_annotations,
        run: sync,
    },
    ToolDef {
        name: "remember",
        role: Role::Write,
        known: &crabpath_brain::source::conversation::turn::FIELDS,
        own_check: true,
        description: "Add one turn of a conversation to the memory, as it happens, so that later \
         queries can find it. It becomes a node `speaker (time): text`, linked to the \
         previous turn of the same session and to earlier turns of other sessions \
         that mention the same rare words (names, places). Only text is required; give session, \
         speaker and time when you know them (the time is shown to whoever reads \
         the turn, so questions about when can be answered). A turn's id must be \
         new; leave it out to have one generated.",
        schema: remember_schema,
        annotations: no_annotations,
        run: remember,
    },
    ToolDef {
        name: "forget",
        role: Role::Admin,
        known: &["file", "node", "chat"],
        own_check: false,
        description:
            "Delete a file, a node or a conversation from the memory for good: its chunks, \
         their links, the logged turns and journal entries that found them. Snapshots \
         are rewritten without it. Give exactly one of file, node or chat. It cannot be \
         undone.",
        schema: forget_schema,
        annotations: forget_annotations,
        run: forget,
    },
];

/// The tools, in the order a client lists them (read from [`TOOLS`]).
pub fn list() -> Vec<Tool> {
    TOOLS.iter().map(ToolDef::tool).collect()
}

/// Runs tool `name` on the brain: finds its definition in [`TOOLS`], checks the
/// argument names against the definition's `known`, then runs its handler.
pub fn call(
    brain: &mut Brain,
    ctx: &Context<'_>,
    name: &str,
    args: &Map<String, Value>,
) -> Result<Value> {
    let def = find(name).ok_or_else(|| Error::Argument(unknown_tool(name)))?;
    let a = if def.own_check {
        Args::unchecked(def.name, args)
    } else {
        Args::new(def.name, args, def.known)?
    };
    (def.run)(brain, ctx, &a)
}

fn query(brain: &mut Brain, ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    let limit = a.opt_int("limit", 1, MAX_LIMIT)?.map(|k| k as usize);
    let text = a.text("query")?;
    let top = a.opt_int("top_k", 1, MAX_TOP_K)?.unwrap_or(DEFAULT_TOP_K) as usize;
    let chat_id = a.opt_text("chat_id")?.map(str::trim);
    let explain = a.opt_bool("explain")?.unwrap_or(false);
    let mode = match a.opt_str("route_mode")? {
        Some(m) => RouteMode::parse(m).map_err(|e| Error::Argument(format!("query: {e}")))?,
        None => ctx.route_mode,
    };
    let mut req = QueryRequest::new(text, top);
    req.max_context_chars = Some(DAEMON_MAX_CONTEXT_CHARS as i64);
    req.route = mode.config();
    req.limit = limit;
    req.neurogenesis = match a.opt_str("neurogenesis")? {
        Some(s) => Some(crabpath_brain::service::parse_switch(s).ok_or_else(|| {
            Error::Argument(format!(
                "query: `neurogenesis` must be on or off, got `{s}`"
            ))
        })?),
        None => None,
    };
    if let Some(c) = chat_id {
        req.journal_metadata = pyformat::pyjson::PyValue::Dict(
            [(
                "chat_id".to_string(),
                pyformat::pyjson::PyValue::Str(c.to_string()),
            )]
            .into_iter()
            .collect(),
        );
    }
    let answer = brain.query(&req)?;
    let g = answer.graph;
    // the step that first reached each node, to walk its path back to a seed
    let mut reached_by = std::collections::HashMap::new();
    for s in &answer.result.steps {
        reached_by.entry(s.to).or_insert(s.from);
    }
    // a ranked node that did not fire (limit) carries its search score
    let mut score: std::collections::HashMap<_, f64> = std::collections::HashMap::new();
    if limit.is_some() {
        score.extend(answer.seeds.iter().copied());
    }
    score.extend(answer.result.fired_scores.iter().copied());
    // with a limit, the ranked nodes (best first, at most `limit`); else the fired ones
    let nodes: Vec<_> = match limit {
        Some(_) => answer
            .ranked()
            .iter()
            .filter_map(|id| g.lookup(id))
            .collect(),
        None => answer.result.fired.clone(),
    };
    // corrections go under `guardrails`, beside the content (issue 31 item 4)
    let nodes: Vec<_> = nodes
        .into_iter()
        .filter(|&n| !answer.is_guardrail(g.name(n)))
        .collect();
    let fired: Vec<Value> = nodes
        .iter()
        .map(|&n| {
            let mut path = vec![n];
            let mut at = n;
            while let Some(&p) = reached_by.get(&at) {
                if path.contains(&p) {
                    break;
                }
                path.push(p);
                at = p;
            }
            path.reverse();
            let node = g.node(n);
            let mut o = json!({
                "id": g.name(n),
                "score": score.get(&n).copied().unwrap_or(0.0),
                "text": node.map_or("", |x| x.content.as_str()),
                "path": path.iter().map(|&p| g.name(p)).collect::<Vec<_>>(),
            });
            if let Some(f) = node.and_then(|x| x.metadata.get("file")) {
                o["file"] = f.clone();
            }
            o
        })
        .collect();
    let guardrails: Vec<Value> = answer
        .guardrail_texts()
        .into_iter()
        .map(|(id, text)| json!({"id": id, "text": text}))
        .collect();
    let mut out = json!({
        "fired": fired,
        "guardrails": guardrails,
        "route_mode": mode.as_str(),
        "seeds": answer.hits.iter().map(|(id, s)| json!([id, s])).collect::<Vec<_>>(),
    });
    if explain {
        out["explanation"] = Value::String(answer.explanation().render(g));
    }
    if let Some(u) = &answer.unjournaled {
        out["journaled"] = json!(false);
        out["warning"] = json!(u.warning());
    }
    let record = chat_id.and_then(|_| answer.journaled_turn(text));
    drop(answer);
    if let (Some(c), Some(rec)) = (chat_id, record) {
        let turn = brain.record_turn(c, rec)?;
        out["chat_id"] = json!(c);
        out["turn"] = json!(turn);
    }
    Ok(out)
}

fn credits(list: &[TurnCredit]) -> Value {
    Value::Array(
        list.iter()
            .map(|c| {
                json!({
                    "turn": c.turn, "turns_ago": c.turns_ago, "weight": c.weight,
                    "outcome": c.outcome, "fired": c.fired, "edges_updated": c.edges_updated,
                })
            })
            .collect(),
    )
}

fn feedback_json(r: &FeedbackReport) -> Value {
    json!({
        "credited": credits(&r.credited),
        "already_credited": r.already_credited,
        "edges_updated": r.edges_updated,
    })
}

fn turns_ago(a: &Args<'_>) -> Result<Option<usize>> {
    let max = Window::default().turns as i64 - 1;
    Ok(a.opt_int("turns_ago", 0, max)?.map(|n| n as usize))
}

fn feedback(brain: &mut Brain, _ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    let (lo, hi) = crabpath_brain::service::command::learn::OUTCOME_RANGE;
    let outcome = a.number("outcome", lo, hi)?;
    let chat_id = a.opt_text("chat_id")?.map(str::trim);
    let fired_ids = a.opt_strs("fired_ids")?;
    let used_ids = a.opt_strs("used_ids")?;
    if used_ids.is_some() && chat_id.is_none() {
        return Err(Error::Argument(
            "feedback: `used_ids` needs the `chat_id` of the turn they answered".into(),
        ));
    }
    let turns_ago = turns_ago(a)?;
    match (chat_id, &fired_ids) {
        (None, None) => {
            return Err(Error::Argument(
                "feedback: give `chat_id` (the conversation you queried with) or `fired_ids`"
                    .into(),
            ))
        }
        (Some(_), Some(_)) => {
            return Err(Error::Argument(
                "feedback: give `chat_id` or `fired_ids`, not both".into(),
            ))
        }
        (None, Some(_)) if turns_ago.is_some() => {
            return Err(Error::Argument(
                "feedback: `turns_ago` needs a `chat_id`".into(),
            ))
        }
        _ => {}
    }
    if let Some(ids) = &fired_ids {
        if let Some(missing) = ids.iter().find(|id| !brain.has_node(id).unwrap_or(false)) {
            return Err(Error::Argument(format!(
                "feedback: `fired_ids` names `{missing}`, which is not a node of this memory"
            )));
        }
    }
    let r = brain.feedback(&FeedbackRequest {
        outcome,
        chat_id,
        fired_ids,
        turns_ago,
        window: Window::default(),
        used_ids,
    })?;
    let mut out = feedback_json(&r);
    if let Some(c) = chat_id {
        out["chat_id"] = json!(c);
        if let Some(note) = r.nothing_learned_note() {
            out["note"] = json!(note);
        }
    }
    Ok(out)
}

fn correct(brain: &mut Brain, _ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    let content = a.text("content")?;
    let chat_id = a.opt_text("chat_id")?.map(str::trim);
    let turns_ago = turns_ago(a)?;
    if turns_ago.is_some() && chat_id.is_none() {
        return Err(Error::Argument(
            "correct: `turns_ago` needs a `chat_id`".into(),
        ));
    }
    let r = brain.correct(&CorrectRequest {
        content,
        chat_id,
        turns_ago,
        outcome: -1.0,
        window: Window::default(),
        source: "mcp",
    })?;
    Ok(json!({
        "node_id": r.node_id,
        "deduped": r.deduped,
        "injected": r.injected,
        "connected_to": r.connected_to,
        "inhibited_edges": r.inhibited_edges.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
        "inhibited_nodes": r.inhibited_nodes,
        "mode": r.mode.as_str(),
        "feedback": feedback_json(&r.feedback),
    }))
}

fn teach(brain: &mut Brain, _ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    let content = a.text("content")?;
    let kind = a.opt_str("kind")?.unwrap_or("TEACHING");
    if kind != "TEACHING" && kind != "DIRECTIVE" {
        return Err(Error::Argument(format!(
            "teach: `kind` must be TEACHING or DIRECTIVE, got `{kind}`"
        )));
    }
    let chat_id = a.opt_text("chat_id")?.map(str::trim);
    let r = brain.teach(content, kind, chat_id, "mcp")?;
    Ok(json!({
        "node_id": r.node_id,
        "deduped": r.deduped,
        "injected": r.injected,
        "connected_to": r.connected_to,
    }))
}

/// Forgets a file, a node or a chat (issue 30 item 3): [`Brain::forget`], answered
/// with the fields of `crabpath forget --json` and the daemon's `forget`.
fn forget(brain: &mut Brain, _ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    let field = |k: &str| a.opt_str(k).map(|s| s.map(str::to_string));
    let target = ForgetTarget::from_fields(field("file")?, field("node")?, field("chat")?)
        .map_err(|m| Error::Argument(format!("forget: {m}")))?;
    Ok(brain.forget(&target)?.to_json())
}

fn remember(brain: &mut Brain, _ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    // its own check (`own_check`): the message `crabpath remember` gives, naming FIELDS
    let turn = crabpath_brain::source::conversation::Turn::from_object(a.map())
        .map_err(|m| Error::Argument(format!("remember: {m}")))?;
    let r = brain.remember_turn(&turn)?;
    Ok(json!({
        "node_id": r.node_id,
        "turn": r.turn,
        "edges": r.edges.iter().map(|(a, b, w)| json!([a, b, w])).collect::<Vec<_>>(),
        "removed": r.removed.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
    }))
}

/// The eight Table-4 metrics ([`crabpath_brain::service::health`]): the object
/// `crabpath health --json` prints.
fn health(brain: &mut Brain, _ctx: &Context<'_>, a: &Args<'_>) -> Result<Value> {
    let window = a
        .opt_int("window", 1, MAX_HEALTH_WINDOW)?
        .map_or(DEFAULT_WINDOW, |n| n as usize);
    Ok(brain.health_report(window)?.to_json())
}

fn sync(brain: &mut Brain, ctx: &Context<'_>, _a: &Args<'_>) -> Result<Value> {
    // no argument (its definition's `known` is empty): a call must not reach a folder
    // the server was not started with
    brain.check_syncable()?;
    let ws = match ctx.workspace {
        Some(w) => w.clone(),
        None => brain.recorded_workspace()?.ok_or_else(|| {
            Error::Argument(
                "sync: the brain records no folder and this server was started without --workspace: restart it with --workspace (the folder the memory was built from)".into(),
            )
        })?,
    };
    if !ws.is_dir() {
        return Err(Error::Argument(format!(
            "sync: workspace {} is not a folder",
            ws.display()
        )));
    }
    let display = ws.display().to_string();
    let event = |r: &crabpath_brain::source::sync::SyncReport| {
        let mut e = pyformat::pyjson::PyDict::new();
        e.insert("type".into(), pyformat::pyjson::PyValue::Str("sync".into()));
        e.insert(
            "workspace_dir".into(),
            pyformat::pyjson::PyValue::Str(display.clone()),
        );
        e.insert(
            "nodes_added".into(),
            pyformat::pyjson::PyValue::Int((r.nodes_added as i64).into()),
        );
        e
    };
    // the recorded folder only, no mass deletion: `crabpath sync` has the flags
    let r = brain.sync(&ws, Vec::new(), false, None, &event, Default::default())?;
    Ok(json!({
        "workspace": display,
        "nodes_added": r.nodes_added,
        "nodes_updated": r.nodes_updated,
        "nodes_removed": r.nodes_removed,
        "nodes_unchanged": r.nodes_unchanged,
        "embeddings_computed": r.embeddings_computed,
        "files_resplit": r.files_resplit,
        "files_unchanged": r.files_unchanged,
        "files_deleted": r.files_deleted,
        "skipped": r.skipped.iter().map(|s| json!({"file": s.rel, "reason": s.reason.to_string()})).collect::<Vec<_>>(),
        "unreadable": r.unreadable.iter().map(|s| json!({"path": s.rel, "reason": s.reason.to_string()})).collect::<Vec<_>>(),
        "partial": !r.unreadable.is_empty(),
    }))
}

/// The text of a node resource `crabpath://node/{id}`: its content, then its
/// metadata as JSON.
pub fn read_node(brain: &mut Brain, id: &str) -> Result<Option<(String, Value)>> {
    Ok(brain.read_node(id, |n| {
        let meta = serde_json::to_value(&n.metadata).unwrap_or(Value::Null);
        (
            n.content.clone(),
            json!({"id": id, "summary": n.summary, "metadata": meta}),
        )
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one definition agrees with itself: each tool's accepted argument names are
    /// its schema's properties (the table is the only place both are written).
    #[test]
    fn known_arguments_are_the_schema_properties() {
        for t in TOOLS {
            let schema = (t.schema)();
            let props: Vec<&str> = schema["properties"]
                .as_object()
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let mut props = props;
            let mut known = t.known.to_vec();
            props.sort_unstable();
            known.sort_unstable();
            assert_eq!(props, known, "tool {}", t.name);
        }
    }

    /// Roles of issue 30 item 1: query and health read; the rest write.
    #[test]
    fn roles_are_in_the_definitions() {
        let role = |n: &str| find(n).map(|t| t.role);
        assert_eq!(role("query"), Some(Role::Read));
        assert_eq!(role("health"), Some(Role::Read));
        for n in ["feedback", "correct", "teach", "remember", "sync"] {
            assert_eq!(role(n), Some(Role::Write), "{n}");
        }
        assert!(unknown_tool("x").starts_with("unknown tool `x` (tools: query, feedback,"));
    }
}
