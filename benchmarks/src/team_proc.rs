//! The `crabpath` binary as `bench team-load` drives it ([`crate::team_load`],
//! [`crate::team_faults`]): a command run to its end, and the team server started on
//! a free loopback port and killed with SIGKILL.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::error::{Error, Result};

/// Runs `crabpath args` in `dir`; its stdout, or an error with its stderr.
pub(crate) fn run(bin: &Path, dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| Error::Io {
            path: bin.to_path_buf(),
            source: e,
        })?;
    if !out.status.success() {
        return Err(Error::Usage(format!(
            "crabpath {}: {}: {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Starts `crabpath mcp --brains served --http 127.0.0.1:0` in `dir`: the child and
/// its address (from its "serving http://ADDR/mcp" line); its stderr is drained after.
pub(crate) fn start(bin: &Path, dir: &Path) -> Result<(Child, String)> {
    let mut child = Command::new(bin)
        .args(["mcp", "--brains", "served", "--http", "127.0.0.1:0"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Io {
            path: bin.to_path_buf(),
            source: e,
        })?;
    let Some(err) = child.stderr.take() else {
        return Err(Error::Usage("crabpath mcp: no stderr".into()));
    };
    let mut lines = BufReader::new(err).lines();
    let mut addr = None;
    for l in lines.by_ref().map_while(std::result::Result::ok) {
        if let Some(u) = l.split("http://").nth(1) {
            addr = Some(u.trim_end_matches("/mcp").to_string());
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    match addr {
        Some(a) => Ok((child, a)),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            Err(Error::Usage(
                "crabpath mcp exited before saying where it serves".into(),
            ))
        }
    }
}

/// SIGKILL (`Child::kill` on unix) and wait.
pub(crate) fn kill(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}
