//! Shared helpers of the command-line tests: running the binary, the fixtures, and the
//! normalisation of wall-clock values (the same rules as
//! `results/reference/cli/make_reference.py::normalize`).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `crabpath` binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_crabpath"))
}

/// The core's fixtures (workspace, session logs).
pub fn fixtures() -> PathBuf {
    testdata::committed("crates/crabpath/tests/fixtures")
}

/// `results/reference/cli/<name>`.
pub fn reference(name: &str) -> PathBuf {
    testdata::reference(Path::new("cli").join(name))
}

/// Runs `crabpath <args>` in `dir` with the given profile and stdin.
pub fn run(dir: &Path, profile: &str, args: &[&str], stdin: &str) -> Output {
    let mut child = command(dir, profile, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn crabpath");
    {
        let mut input = child.stdin.take().expect("stdin");
        let _ = input.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("wait for crabpath")
}

/// `crabpath inject --state brain/state.json --id <id> --content <content>` in `dir`
/// (corrected profile), as another process writing the state file; checked.
pub fn inject_by_cli(dir: &Path, id: &str, content: &str) {
    let args = [
        "inject",
        "--state",
        "brain/state.json",
        "--id",
        id,
        "--content",
        content,
    ];
    let (rc, _, err) = run_text(dir, "corrected", &args);
    assert_eq!(rc, 0, "{err}");
}

/// Runs and returns (exit status, stdout, stderr) as strings.
pub fn run_text(dir: &Path, profile: &str, args: &[&str]) -> (i32, String, String) {
    let o = run(dir, profile, args, "");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The node id of chunk `i` of the one-file workspaces of the lost-update tests.
pub fn note_id(i: usize) -> String {
    format!("notes.md::{i}")
}

/// The eight writer processes of the lost-update tests (`safety.rs` on a state file,
/// `reliability.rs` on a brain database): thread `w` runs `crabpath learn --state
/// brain/state.json --outcome 1 --fired-ids A,B` (corrected profile, in `cwd`) for each
/// pair of `pairs[50w..50w + 50]`, one process after the other, and asserts exit 0.
/// The caller joins the threads.
pub fn spawn_eight_learners(
    cwd: &Path,
    pairs: &[(usize, usize)],
) -> Vec<std::thread::JoinHandle<()>> {
    (0..8)
        .map(|w| {
            let mine: Vec<(usize, usize)> = pairs[w * 50..(w + 1) * 50].to_vec();
            let cwd = cwd.to_path_buf();
            std::thread::spawn(move || {
                for (a, b) in mine {
                    let ids = format!("{},{}", note_id(a), note_id(b));
                    let (rc, _, err) = run_text(
                        &cwd,
                        "corrected",
                        &[
                            "learn",
                            "--state",
                            "brain/state.json",
                            "--outcome",
                            "1",
                            "--fired-ids",
                            &ids,
                        ],
                    );
                    assert_eq!(rc, 0, "{err}");
                }
            })
        })
        .collect()
}

/// Copies a directory tree (files and directories; symbolic links as links).
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        let to = dst.join(e.file_name());
        if t.is_dir() {
            copy_tree(&e.path(), &to);
        } else if t.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A brain of the fixture workspace in `dir/brain` (`crabpath init` in `profile` of a
/// copy of the workspace in `dir/ws`).
pub fn fixture_brain(dir: &Path, profile: &str) {
    copy_tree(&fixtures().join("workspace"), &dir.join("ws"));
    let (rc, _, err) = run_text(
        dir,
        profile,
        &["init", "--workspace", "ws", "--output", "brain"],
    );
    assert_eq!(rc, 0, "{err}");
}

/// A scratch directory holding copies of the fixture workspace (`ws`) and session
/// logs (`sessions`).
pub fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("workspace"), &dir.path().join("ws"));
    copy_tree(&fixtures().join("sessions"), &dir.path().join("sessions"));
    dir
}

/// [`scratch`] with a brain of its workspace, `b` (corrected profile, `crabpath init`).
pub fn scratch_brain() -> tempfile::TempDir {
    let dir = scratch();
    let (rc, _, err) = run_text(
        dir.path(),
        "corrected",
        &["init", "--workspace", "ws", "--output", "b"],
    );
    assert_eq!(rc, 0, "{err}");
    dir
}

fn is_num_char(c: u8) -> bool {
    c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')
}

/// Replaces the number after `<q>key<q>: ` by `0`, for both quote styles.
fn normalize_number(text: &str, key: &str) -> String {
    let mut out = text.to_string();
    for q in ['"', '\''] {
        let pat = format!("{q}{key}{q}: ");
        let mut res = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(&pat) {
            let after = i + pat.len();
            let bytes = rest.as_bytes();
            let mut j = after;
            if j < bytes.len() && bytes[j] == b'-' {
                j += 1;
            }
            if j < bytes.len() && bytes[j].is_ascii_digit() {
                while j < bytes.len() && is_num_char(bytes[j]) {
                    j += 1;
                }
                res.push_str(&rest[..after]);
                res.push('0');
                rest = &rest[j..];
            } else {
                res.push_str(&rest[..after]);
                rest = &rest[after..];
            }
        }
        res.push_str(rest);
        out = res;
    }
    out
}

/// Replaces the string after `<q>key<q>: ` by `ISO` (same quote).
fn normalize_string(text: &str, key: &str) -> String {
    let mut out = text.to_string();
    for q in ['"', '\''] {
        for vq in ['"', '\''] {
            let pat = format!("{q}{key}{q}: {vq}");
            let mut res = String::with_capacity(out.len());
            let mut rest = out.as_str();
            while let Some(i) = rest.find(&pat) {
                let after = i + pat.len();
                match rest[after..].find(vq) {
                    Some(end) => {
                        res.push_str(&rest[..after]);
                        res.push_str("ISO");
                        rest = &rest[after + end..];
                    }
                    None => {
                        res.push_str(&rest[..after]);
                        rest = &rest[after..];
                    }
                }
            }
            res.push_str(rest);
            out = res;
        }
    }
    out
}

/// `" @ YYYY-MM-DDTHH:MM:SS+HHMM: "` → `" @ ISO: "`.
fn normalize_at(text: &str) -> String {
    let mut res = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" @ ") {
        let after = i + 3;
        let cand = &rest.as_bytes()[after..];
        let iso = cand.len() >= 26
            && cand[4] == b'-'
            && cand[10] == b'T'
            && cand[13] == b':'
            && matches!(cand[19], b'+' | b'-')
            && &cand[24..26] == b": ";
        res.push_str(&rest[..after]);
        if iso {
            res.push_str("ISO");
            rest = &rest[after + 24..];
        } else {
            rest = &rest[after..];
        }
    }
    res.push_str(rest);
    res
}

/// The wall-clock values of an output, replaced (see the module docs).
pub fn normalize(text: &str) -> String {
    let mut t = text.to_string();
    for k in ["ts", "embed_query_ms", "traverse_ms", "total_ms"] {
        t = normalize_number(&t, k);
    }
    for k in ["iso", "created_at"] {
        t = normalize_string(&t, k);
    }
    t = normalize_at(&t);
    t.lines()
        .map(|l| match l.strip_prefix("python_version: PASS (") {
            Some(_) => "python_version: PASS (VERSION)".to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if t.ends_with('\n') { "\n" } else { "" }
}

/// SHA-256 of a normalised text file.
pub fn file_hash(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    hex::encode(Sha256::digest(normalize(&text).as_bytes()))
}

#[test]
fn normalisation_matches_the_reference_rules() {
    let t = "{'type': 'x', 'ts': 1795348831.5523171, 'iso': '2026-11-22T12:00:31+0000'}\n 1. learn @ 2026-11-22T12:00:31+0000: {\"ts\": 1e+20, \"total_ms\": 0.123, \"created_at\": \"2026\"}\npython_version: PASS (3.11.7)";
    assert_eq!(
        normalize(t),
        "{'type': 'x', 'ts': 0, 'iso': 'ISO'}\n 1. learn @ ISO: {\"ts\": 0, \"total_ms\": 0, \"created_at\": \"ISO\"}\npython_version: PASS (VERSION)"
    );
}

/// The command `crabpath <args>` in `dir` with the given profile, in the environment
/// of the tests (UTC, no OpenAI key), to be given its standard streams and spawned.
pub fn command(dir: &Path, profile: &str, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(dir)
        .env("CRABPATH_PROFILE", profile)
        .env("TZ", "UTC")
        .env_remove("OPENAI_API_KEY");
    c
}

/// An MCP server (the handler of `crabpath mcp`, called in process) on the corrected
/// brain `dir/brain`, resident, hash-v1 embedder, `edge+sim` routing; `workspace` is
/// its `--workspace`.
pub fn mcp_server(dir: &Path, workspace: Option<PathBuf>) -> crabpath_mcp::Server {
    let b = mcp_brain(dir);
    crabpath_mcp::Server::new(
        b,
        crabpath_mcp::Options {
            route_mode: crabpath_brain::service::route::RouteMode::EdgeSim,
            workspace,
        },
    )
}

/// The brain [`mcp_server`] serves: `dir/brain`, corrected, resident, hash-v1.
pub fn mcp_brain(dir: &Path) -> crabpath_brain::Brain {
    let mut o = crabpath_brain::OpenOptions::new(crabpath::Profile::Corrected);
    o.resident = true;
    o.embedder = Some(std::sync::Arc::new(|| {
        Ok(Box::new(crabpath::HashEmbedder::new()) as Box<dyn crabpath::Embedder>)
    }));
    crabpath_brain::Brain::open(crabpath_brain::locate(&dir.join("brain")), o).unwrap()
}

/// Starts `crabpath <args>` in `dir` with the given profile, stdin, stdout and stderr
/// piped (a daemon or a command fed while it runs).
pub fn spawn_piped(dir: &Path, profile: &str, args: &[&str]) -> std::process::Child {
    command(dir, profile, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn crabpath")
}

/// A `crabpath daemon` in a directory, asked one JSON request per line.
pub struct Served {
    /// The daemon.
    pub child: std::process::Child,
    stdin: std::process::ChildStdin,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Served {
    /// `crabpath daemon --state <state>` in `dir`, corrected profile.
    pub fn start(dir: &Path, state: &str) -> Served {
        let mut child = spawn_piped(dir, "corrected", &["daemon", "--state", state]);
        let stdin = child.stdin.take().expect("stdin");
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        Served { child, stdin, out }
    }

    /// The answer to one request; fails unless it is a result.
    pub fn ask(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::{BufRead, Write};
        let req = serde_json::json!({"id": 1, "method": method, "params": params});
        writeln!(self.stdin, "{req}").expect("write a request");
        let mut line = String::new();
        self.out.read_line(&mut line).expect("read an answer");
        let v: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v.get("result").is_some(), "{method}: {v}");
        v
    }
}
