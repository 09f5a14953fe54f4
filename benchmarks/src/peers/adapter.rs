//! The adapter file of one memory system (issue 29, "What to build" 1): a TOML file under
//! `benchmarks/peers/` that says how to start the system's MCP server, which tool stores a
//! turn and which searches, with argument templates, and how a search result maps back to
//! the turn ids stored. The format is data only; every check happens when the file is read,
//! and a bad file is one line naming the file, the line or field, and what was expected.
//!
//! ```toml
//! name = "mcp-server-memory"           # the row's name
//! version = "2026.8.31"                # the pinned package version
//! package = "npm:@modelcontextprotocol/server-memory@2026.8.31"   # what install.sh installs
//! notes = "..."                        # shown in the report row
//! [[setup]]                            # optional, run in order before the server starts
//! command = ["${CRABPATH}", "init", "--workspace", "${WORK}/empty", "--output", "${WORK}/brain"]
//! [server]
//! command = ["node", "${PEERS}/node_modules/.../dist/index.js"]
//! env = { MEMORY_FILE_PATH = "${WORK}/memory.jsonl" }
//! startup_timeout_s = 60               # default 60
//! call_timeout_s = 60                  # each tool call; default 60
//! [store]                              # once per turn, in conversation order
//! tool = "create_entities"
//! [store.arguments]
//! entities = [{ name = "${turn_id}", entityType = "turn", observations = ["${text}"] }]
//! [search]                             # once per question
//! tool = "search_nodes"
//! rewrite = "none"                     # a query rewrite only where the system offers it
//! [search.arguments]
//! query = "${question}"
//! [results]
//! format = "json"                      # the first text content (or structured content) as JSON
//! items = "/entities"                  # JSON pointer to the list of results, best first
//! id = "/name"                         # JSON pointer inside one item to the stored turn id
//! # or: format = "text" with id_regex = "(?m)^[0-9]+\\. (D[0-9]+:[0-9]+) " (first group, in order)
//! ```
//!
//! Placeholders: [`SERVER_PLACEHOLDERS`] anywhere in `setup` and `server`;
//! [`STORE_PLACEHOLDERS`] in `store.arguments`; [`SEARCH_PLACEHOLDERS`] in
//! `search.arguments`. A string leaf that is exactly `"${limit}"` becomes a number.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Placeholders of the server's command, environment and setup commands.
pub const SERVER_PLACEHOLDERS: [&str; 4] = ["PEERS", "WORK", "CRABPATH", "MODEL_DIR"];

/// Placeholders of the store tool's arguments (one turn).
pub const STORE_PLACEHOLDERS: [&str; 6] = [
    "turn_id",
    "text",
    "speaker",
    "session",
    "time",
    "conversation",
];

/// Placeholders of the search tool's arguments (one question).
pub const SEARCH_PLACEHOLDERS: [&str; 2] = ["question", "limit"];

/// Default seconds to start a server and list its tools.
pub const DEFAULT_STARTUP_TIMEOUT_S: f64 = 60.0;

/// Default seconds of one tool call.
pub const DEFAULT_CALL_TIMEOUT_S: f64 = 60.0;

/// One adapter file, checked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adapter {
    /// The row's name.
    pub name: String,
    /// The pinned package version.
    pub version: String,
    /// What `install.sh` installs (`npm:...`, `pypi:...`, `workspace:...`).
    pub package: String,
    /// A note shown in the report row (configuration, rewrite, known limits).
    #[serde(default)]
    pub notes: String,
    /// Commands run in order in `${WORK}` before the server starts.
    #[serde(default)]
    pub setup: Vec<Command>,
    /// How the server starts.
    pub server: Server,
    /// The tool that stores one turn.
    pub store: Call,
    /// The tool that searches.
    pub search: Search,
    /// How a search result maps back to turn ids.
    pub results: Results,
    /// The file read (not in the TOML).
    #[serde(skip)]
    pub path: PathBuf,
}

/// A command with its environment (placeholders substituted when run).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Command {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Variables added to the inherited environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// The server: a stdio command.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// Program and arguments; the server speaks MCP on its stdin/stdout.
    pub command: Vec<String>,
    /// Variables added to the inherited environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Seconds to start, initialize and list tools.
    #[serde(default)]
    pub startup_timeout_s: Option<f64>,
    /// Seconds of one tool call.
    #[serde(default)]
    pub call_timeout_s: Option<f64>,
}

impl Server {
    /// The startup timeout in seconds.
    pub fn startup_timeout(&self) -> f64 {
        self.startup_timeout_s.unwrap_or(DEFAULT_STARTUP_TIMEOUT_S)
    }

    /// The per-call timeout in seconds.
    pub fn call_timeout(&self) -> f64 {
        self.call_timeout_s.unwrap_or(DEFAULT_CALL_TIMEOUT_S)
    }
}

/// A tool with its argument template.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The tool's name, as `tools/list` gives it.
    pub tool: String,
    /// The arguments, a TOML table turned into a JSON object.
    pub arguments: toml::Table,
}

/// The search tool, its argument template and the rewrite it applies.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Search {
    /// The tool's name.
    pub tool: String,
    /// `none`, or the name of a rewrite the system itself offers (said in the row).
    #[serde(default = "none")]
    pub rewrite: String,
    /// The arguments.
    pub arguments: toml::Table,
}

fn none() -> String {
    "none".into()
}

/// How a search result is read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Results {
    /// `json`: the structured content, else the first text content parsed as JSON, read
    /// with `items` and `id`; `text`: the text content, read with `id_regex`.
    pub format: String,
    /// `json`: JSON pointer to the list of result items, best first.
    #[serde(default)]
    pub items: Option<String>,
    /// `json`: JSON pointer inside one item to the turn id stored.
    #[serde(default)]
    pub id: Option<String>,
    /// `text`: a regular expression whose first capture group is a turn id, every match in
    /// order (e.g. `(?m)^[0-9]+\. (D[0-9]+:[0-9]+) `).
    #[serde(default)]
    pub id_regex: Option<String>,
    /// `id_regex` compiled (not in the TOML).
    #[serde(skip)]
    pub compiled: Option<regex::Regex>,
}

/// An error in the adapter file `path`: `what` names the field.
fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

/// Line (1-based) of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// Every `${NAME}` in `s`.
pub fn placeholders(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) => {
                out.push(&after[..j]);
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

/// `s` with every `${NAME}` that `lookup` knows replaced (others kept as written).
pub fn substitute(s: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) => {
                let name = &after[..j];
                match lookup(name) {
                    Some(v) => out.push_str(&v),
                    None => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every string leaf of `v` with its field path (`store.arguments.entities[0].name`).
fn leaves<'a>(v: &'a toml::Value, at: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        toml::Value::String(s) => out.push((at, s)),
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, format!("{at}[{i}]"), out);
            }
        }
        toml::Value::Table(t) => {
            for (k, x) in t {
                leaves(x, format!("{at}.{k}"), out);
            }
        }
        _ => {}
    }
}

fn table_leaves<'a>(t: &'a toml::Table, at: &str) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    for (k, x) in t {
        leaves(x, format!("{at}.{k}"), &mut out);
    }
    out
}

/// Checks that every placeholder of `fields` is in `allowed`.
fn check_placeholders(path: &Path, fields: &[(String, &str)], allowed: &[&str]) -> Result<()> {
    for (field, s) in fields {
        for p in placeholders(s) {
            if !allowed.contains(&p) {
                return Err(bad(
                    path,
                    format!(
                        "{field}: unknown placeholder `${{{p}}}` (expected one of: {})",
                        allowed
                            .iter()
                            .map(|a| format!("${{{a}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that some leaf of `fields` uses `${name}`.
fn require(
    path: &Path,
    fields: &[(String, &str)],
    table: &str,
    name: &str,
    why: &str,
) -> Result<()> {
    if fields.iter().any(|(_, s)| placeholders(s).contains(&name)) {
        Ok(())
    } else {
        Err(bad(
            path,
            format!("{table}: no argument uses `${{{name}}}` ({why})"),
        ))
    }
}

impl Adapter {
    /// Parses and checks `text`, the content of the file `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Adapter> {
        let mut a: Adapter = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!("line {}: ", line_of(text, s.start)))
                .unwrap_or_default();
            bad(
                path,
                format!("{at}{}", e.message().trim().replace('\n', " ")),
            )
        })?;
        a.path = path.to_path_buf();
        a.check()?;
        a.compile()?;
        Ok(a)
    }

    /// Reads and checks the adapter file `path`.
    pub fn read(path: &Path) -> Result<Adapter> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::parse(path, &text)
    }

    fn check(&self) -> Result<()> {
        let p = &self.path;
        if self.name.trim().is_empty() {
            return Err(bad(p, "name: must not be empty"));
        }
        if self.server.command.is_empty() {
            return Err(bad(p, "server.command: must name a program"));
        }
        for (i, s) in self.setup.iter().enumerate() {
            if s.command.is_empty() {
                return Err(bad(p, format!("setup[{i}].command: must name a program")));
            }
        }
        for (field, t) in [
            ("server.startup_timeout_s", self.server.startup_timeout_s),
            ("server.call_timeout_s", self.server.call_timeout_s),
        ] {
            if let Some(t) = t {
                if !(t > 0.0 && t.is_finite()) {
                    return Err(bad(
                        p,
                        format!("{field}: must be a positive number of seconds, got {t}"),
                    ));
                }
            }
        }
        let mut server = Vec::new();
        for (i, c) in self.server.command.iter().enumerate() {
            server.push((format!("server.command[{i}]"), c.as_str()));
        }
        for (k, v) in &self.server.env {
            server.push((format!("server.env.{k}"), v.as_str()));
        }
        for (j, s) in self.setup.iter().enumerate() {
            for (i, c) in s.command.iter().enumerate() {
                server.push((format!("setup[{j}].command[{i}]"), c.as_str()));
            }
            for (k, v) in &s.env {
                server.push((format!("setup[{j}].env.{k}"), v.as_str()));
            }
        }
        check_placeholders(p, &server, &SERVER_PLACEHOLDERS)?;
        let store = table_leaves(&self.store.arguments, "store.arguments");
        check_placeholders(p, &store, &STORE_PLACEHOLDERS)?;
        require(
            p,
            &store,
            "store.arguments",
            "text",
            "the turn's text must be stored",
        )?;
        require(
            p,
            &store,
            "store.arguments",
            "turn_id",
            "the turn id must be stored so that a result maps back to it",
        )?;
        let search = table_leaves(&self.search.arguments, "search.arguments");
        check_placeholders(p, &search, &SEARCH_PLACEHOLDERS)?;
        require(
            p,
            &search,
            "search.arguments",
            "question",
            "the question is asked unaltered",
        )?;
        if self.store.tool.trim().is_empty() {
            return Err(bad(p, "store.tool: must name a tool"));
        }
        if self.search.tool.trim().is_empty() {
            return Err(bad(p, "search.tool: must name a tool"));
        }
        let r = &self.results;
        type Fields<'a> = [(&'static str, &'a Option<String>)];
        let (wanted, unwanted): (&Fields, &Fields) = match r.format.as_str() {
            "json" => (
                &[("results.items", &r.items), ("results.id", &r.id)],
                &[("results.id_regex", &r.id_regex)],
            ),
            "text" => (
                &[("results.id_regex", &r.id_regex)],
                &[("results.items", &r.items), ("results.id", &r.id)],
            ),
            other => {
                return Err(bad(
                    p,
                    format!("results.format: expected \"json\" or \"text\", got \"{other}\""),
                ))
            }
        };
        for (field, v) in wanted {
            if v.is_none() {
                return Err(bad(
                    p,
                    format!("{field}: missing (format = \"{}\" needs it)", r.format),
                ));
            }
        }
        for (field, v) in unwanted {
            if v.is_some() {
                return Err(bad(
                    p,
                    format!("{field}: not read with format = \"{}\"", r.format),
                ));
            }
        }
        for (field, v) in [("results.items", &r.items), ("results.id", &r.id)] {
            if let Some(v) = v {
                if !(v.is_empty() || v.starts_with('/')) {
                    return Err(bad(
                        p,
                        format!("{field}: expected a JSON pointer (empty, or starting with `/`), got \"{v}\""),
                    ));
                }
            }
        }
        Ok(())
    }

    fn compile(&mut self) -> Result<()> {
        if let Some(re) = &self.results.id_regex {
            let c = regex::Regex::new(re).map_err(|e| {
                let msg = e.to_string().replace('\n', " ");
                bad(&self.path, format!("results.id_regex: {msg}"))
            })?;
            if c.captures_len() < 2 {
                return Err(bad(
                    &self.path,
                    "results.id_regex: needs a capture group (the turn id)",
                ));
            }
            self.results.compiled = Some(c);
        }
        Ok(())
    }

    /// The tools the adapter calls.
    pub fn tools(&self) -> [&str; 2] {
        [&self.store.tool, &self.search.tool]
    }
}

/// `template` as JSON with `lookup`'s placeholders substituted in its string leaves; a
/// leaf that is exactly one placeholder whose value parses as an integer (`"${limit}"`)
/// becomes that number.
pub fn render(
    template: &toml::Table,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Map<String, Value> {
    template
        .iter()
        .map(|(k, v)| (k.clone(), render_value(v, lookup)))
        .collect()
}

fn render_value(v: &toml::Value, lookup: &dyn Fn(&str) -> Option<String>) -> Value {
    match v {
        toml::Value::String(s) => {
            if s == "${limit}" {
                if let Some(n) = lookup("limit").and_then(|x| x.parse::<i64>().ok()) {
                    return Value::from(n);
                }
            }
            Value::String(substitute(s, lookup))
        }
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(|x| render_value(x, lookup)).collect()),
        toml::Value::Table(t) => Value::Object(render(t, lookup)),
    }
}

/// The turn ids of a search result read by `r`: with `json`, the items at `r.items` of
/// `json`, each one's id at `r.id` (a string, or a number written as text; items without
/// one are skipped); with `text`, the first capture group of every match of `r.id_regex`
/// in `text`, in order.
pub fn result_ids(
    r: &Results,
    json: &Value,
    text: &str,
) -> std::result::Result<Vec<String>, String> {
    if let Some(re) = &r.compiled {
        return Ok(re
            .captures_iter(text)
            .filter_map(|c| c.get(1).map(|m| m.as_str().to_string()))
            .collect());
    }
    let items = r.items.as_deref().unwrap_or("");
    let id = r.id.as_deref().unwrap_or("");
    let found = json
        .pointer(items)
        .ok_or_else(|| format!("results.items `{items}`: not in the result"))?;
    let Value::Array(found) = found else {
        return Err(format!("results.items `{items}`: not a list"));
    };
    Ok(found
        .iter()
        .filter_map(|it| match it.pointer(id) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "x"
version = "1"
package = "npm:x@1"
[server]
command = ["node", "${PEERS}/x.js"]
env = { F = "${WORK}/m.jsonl" }
[store]
tool = "add"
[store.arguments]
items = [{ name = "${turn_id}", said = ["${speaker}: ${text}"] }]
[search]
tool = "find"
[search.arguments]
query = "${question}"
k = "${limit}"
[results]
format = "json"
items = "/hits"
id = "/name"
"#;

    fn err(text: &str) -> String {
        Adapter::parse(Path::new("a.toml"), text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_good_file_renders_its_templates() {
        let a = Adapter::parse(Path::new("a.toml"), GOOD).unwrap();
        assert_eq!(a.tools(), ["add", "find"]);
        let look = |n: &str| match n {
            "question" => Some("who?".to_string()),
            "limit" => Some("50".to_string()),
            _ => None,
        };
        let v = Value::Object(render(&a.search.arguments, &look));
        // `${limit}` alone becomes a number; `${question}` is substituted in place
        assert_eq!(v, serde_json::json!({"query": "who?", "k": 50}));
        let hits = serde_json::json!({"hits": [{"name": "D1:2"}, {"x": 1}, {"name": 7}]});
        let ids = result_ids(&a.results, &hits, "");
        assert_eq!(ids.unwrap(), vec!["D1:2", "7"]);
        // the text format: every match's first group, in order
        let t = GOOD
            .replace("format = \"json\"", "format = \"text\"")
            .replace(
                "items = \"/hits\"\nid = \"/name\"",
                "id_regex = '(?m)^[0-9]+\\. (D[0-9]+:[0-9]+) '",
            );
        let t = Adapter::parse(Path::new("a.toml"), &t).unwrap();
        let text = "1. D2:1 Ann said\n2. D1:9 Bo said\nno D3:3 here";
        let ids = result_ids(&t.results, &Value::Null, text);
        assert_eq!(ids.unwrap(), vec!["D2:1", "D1:9"]);
    }

    #[test]
    fn a_bad_file_is_one_line_naming_the_file_and_field() {
        let e = err(&GOOD
            .replace("notes", "x")
            .replace("package = ", "pakage = "));
        assert!(
            e.starts_with("a.toml: line 4: unknown field `pakage`"),
            "{e}"
        );
        let e = err(&GOOD.replace("tool = \"find\"\n", ""));
        assert!(
            e.starts_with("a.toml: ") && e.contains("missing field `tool`"),
            "{e}"
        );
        let e = err(&GOOD.replace("${speaker}", "${who}"));
        assert_eq!(
            e,
            "a.toml: store.arguments.items[0].said[0]: unknown placeholder `${who}` (expected one of: ${turn_id}, ${text}, ${speaker}, ${session}, ${time}, ${conversation})"
        );
        let e = err(&GOOD.replace("${speaker}: ${text}", "${speaker}"));
        assert_eq!(
            e,
            "a.toml: store.arguments: no argument uses `${text}` (the turn's text must be stored)"
        );
        let e = err(&GOOD.replace("${WORK}", "${HOME}"));
        assert!(
            e.starts_with("a.toml: server.env.F: unknown placeholder `${HOME}`"),
            "{e}"
        );
        let e = err(&GOOD.replace("id = \"/name\"", "id = \"/name\"\nid_regex = '('"));
        assert!(
            e.starts_with("a.toml: results.id_regex: not read with format = \"json\""),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}
