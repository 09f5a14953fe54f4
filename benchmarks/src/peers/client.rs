//! One memory server under test (issue 29): its setup commands, its process started over
//! stdio, an MCP session with the `rmcp` client (the SDK the `crabpath mcp` server uses),
//! tool calls with a per-call timeout, and the process's peak resident memory read from
//! `/proc` before it exits.
//!
//! Every failure is a plain [`String`] (one line): the run keeps it as the system's last
//! error ([`super::run`]) and goes on with the other systems.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};

use super::adapter::{substitute, Adapter};

/// Values of the server placeholders ([`super::adapter::SERVER_PLACEHOLDERS`]).
#[derive(Debug, Clone)]
pub struct Env {
    /// `${PEERS}`: the install cache.
    pub peers: PathBuf,
    /// `${CRABPATH}`: the crabpath binary.
    pub crabpath: PathBuf,
    /// `${MODEL_DIR}`: the MiniLM folder.
    pub model_dir: PathBuf,
}

impl Env {
    /// The placeholder lookup for a run in `work`.
    pub fn lookup<'a>(&'a self, work: &'a Path) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            let p = match name {
                "PEERS" => &self.peers,
                "WORK" => work,
                "CRABPATH" => &self.crabpath,
                "MODEL_DIR" => &self.model_dir,
                _ => return None,
            };
            Some(p.display().to_string())
        }
    }
}

/// What one tool call returned.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The structured content, else the first text content parsed as JSON (`Null` when
    /// neither is there or the text is not JSON).
    pub json: Value,
    /// Characters of every text content block (what an agent's context receives).
    pub chars: usize,
    /// The text content blocks, joined by newlines.
    pub text: String,
    /// The tool reported an error (`isError`); the first text says which.
    pub error: Option<String>,
}

/// A running server with its MCP session.
pub struct Server {
    client: RunningService<RoleClient, ()>,
    child: tokio::process::Child,
    stderr: PathBuf,
    call_timeout: Duration,
    /// The name and version the server reports in `initialize`.
    pub reported: String,
}

/// The last line of the server's stderr, if any (to say why it died).
fn last_stderr(path: &Path) -> String {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| {
            s.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| format!("; its stderr ends: {}", l.trim()))
        })
        .unwrap_or_default()
}

fn expand(
    cmd: &[String],
    env: &BTreeMap<String, String>,
    look: &dyn Fn(&str) -> Option<String>,
) -> (Vec<String>, Vec<(String, String)>) {
    (
        cmd.iter().map(|c| substitute(c, look)).collect(),
        env.iter()
            .map(|(k, v)| (k.clone(), substitute(v, look)))
            .collect(),
    )
}

/// Runs the adapter's setup commands in `work`, in order; the first failing one is the
/// error (its exit status and last stderr line).
pub fn setup(adapter: &Adapter, env: &Env, work: &Path) -> Result<(), String> {
    let look = env.lookup(work);
    for (i, s) in adapter.setup.iter().enumerate() {
        let (cmd, vars) = expand(&s.command, &s.env, &look);
        let out = std::process::Command::new(&cmd[0])
            .args(&cmd[1..])
            .envs(vars)
            .current_dir(work)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("setup[{i}]: cannot run {}: {e}", cmd[0]))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return Err(format!(
                "setup[{i}] ({}) failed ({}): {}",
                cmd.join(" "),
                out.status,
                last.trim()
            ));
        }
    }
    Ok(())
}

impl Server {
    /// Starts the adapter's server in `work`, initializes the MCP session and checks that
    /// the adapter's tools are in `tools/list` (a missing one is an error naming it and the
    /// adapter file), within the startup timeout.
    pub async fn start(adapter: &Adapter, env: &Env, work: &Path) -> Result<Server, String> {
        let look = env.lookup(work);
        let (cmd, vars) = expand(&adapter.server.command, &adapter.server.env, &look);
        let stderr = work.join("server.stderr");
        let err_file =
            std::fs::File::create(&stderr).map_err(|e| format!("{}: {e}", stderr.display()))?;
        let mut child = tokio::process::Command::new(&cmd[0])
            .args(&cmd[1..])
            .envs(vars)
            .current_dir(work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err_file))
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start the server {}: {e}", cmd[0]))?;
        let (Some(out), Some(inp)) = (child.stdout.take(), child.stdin.take()) else {
            return Err("the server's stdio could not be opened".into());
        };
        let limit = Duration::from_secs_f64(adapter.server.startup_timeout());
        let started = tokio::time::timeout(limit, async {
            let client = ().serve((out, inp)).await.map_err(|e| e.to_string())?;
            let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((client, tools))
        })
        .await;
        let (client, tools) = match started {
            Ok(Ok(x)) => x,
            Ok(Err(e)) => {
                let status = match tokio::time::timeout(Duration::from_secs(2), child.wait()).await
                {
                    Ok(Ok(s)) => format!(" (the server exited: {s})"),
                    _ => String::new(),
                };
                return Err(format!(
                    "MCP initialize failed: {e}{status}{}",
                    last_stderr(&stderr)
                ));
            }
            Err(_) => {
                return Err(format!(
                    "the server did not answer initialize and tools/list within {} s{}",
                    adapter.server.startup_timeout(),
                    last_stderr(&stderr)
                ))
            }
        };
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for (field, tool) in [
            ("store.tool", &adapter.store.tool),
            ("search.tool", &adapter.search.tool),
        ] {
            if !names.contains(&tool.as_str()) {
                return Err(format!(
                    "{}: {field}: the server has no tool `{tool}` (its tools: {})",
                    adapter.path.display(),
                    names.join(", ")
                ));
            }
        }
        let reported = client
            .peer_info()
            .and_then(|i| i.server_info.clone())
            .map(|s| format!("{} {}", s.name, s.version))
            .unwrap_or_default();
        Ok(Server {
            client,
            child,
            stderr,
            call_timeout: Duration::from_secs_f64(adapter.server.call_timeout()),
            reported,
        })
    }

    /// Calls `tool` with `args` within the call timeout. A transport failure or timeout is
    /// the `Err` (the server is then taken as crashed); a tool error is a [`Reply`] with
    /// `error` set.
    pub async fn call(&mut self, tool: &str, args: Map<String, Value>) -> Result<Reply, String> {
        let req = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let r = match tokio::time::timeout(self.call_timeout, self.client.call_tool(req)).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                let status = match self.child.try_wait() {
                    Ok(Some(s)) => format!(" (the server exited: {s})"),
                    _ => String::new(),
                };
                return Err(format!("{tool}: {e}{status}{}", last_stderr(&self.stderr)));
            }
            Err(_) => {
                return Err(format!(
                    "{tool}: no answer within {} s (timed out)",
                    self.call_timeout.as_secs_f64()
                ))
            }
        };
        let texts: Vec<&str> = r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        let chars = texts.iter().map(|t| t.chars().count()).sum();
        let json = match &r.structured_content {
            Some(v) => v.clone(),
            None => texts
                .first()
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null),
        };
        let error = (r.is_error == Some(true)).then(|| {
            texts
                .first()
                .map(|t| t.lines().next().unwrap_or("").to_string())
                .unwrap_or_else(|| "(no text)".into())
        });
        Ok(Reply {
            json,
            chars,
            text: texts.join("\n"),
            error,
        })
    }

    /// Peak resident set (KiB) of the server and every process under it: the sum of each
    /// one's `VmHWM` in `/proc` (Linux; 0 elsewhere). Read while the server still runs.
    pub fn peak_rss_kib(&self) -> u64 {
        self.child.id().map_or(0, tree_hwm_kib)
    }

    /// Ends the session and the process (closing its stdin, then killing it after 5 s).
    pub async fn stop(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.client.cancel()).await;
        if tokio::time::timeout(Duration::from_secs(5), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// `VmHWM` of `pid` plus that of all its descendants, KiB.
fn tree_hwm_kib(pid: u32) -> u64 {
    let own = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|n| n.parse::<u64>().ok())
            })
        })
        .unwrap_or(0);
    let mut kids = 0;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
                for k in c.split_whitespace().filter_map(|k| k.parse::<u32>().ok()) {
                    kids += tree_hwm_kib(k);
                }
            }
        }
    }
    own + kids
}
