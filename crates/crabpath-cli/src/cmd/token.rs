//! `crabpath token add | list | revoke`: the access tokens of a served directory of
//! brains (issue 30 item 1), kept by [`crabpath_mcp::tokens`].

use crabpath_brain::serve::role::Role;
use crabpath_mcp::tokens::Tokens;

use crate::args::{TokenAction, TokenArgs};
use crate::error::{CliError, CliResult};

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(anyhow::anyhow!("{e}"))
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SS+00:00` (UTC).
fn utc(secs: i64) -> String {
    pyformat::pytime::isoformat_utc(secs, 0)
}

/// Runs `token`.
pub fn run(a: &TokenArgs) -> CliResult {
    match &a.action {
        TokenAction::Add {
            brains,
            brain,
            role,
        } => {
            let role = Role::parse(role).map_err(|m| fail(format!("--role: {m}")))?;
            let dir = crabpath_brain::source::workspace::expanduser(brains);
            let tokens = Tokens::open(&dir, true).map_err(fail)?;
            let (secret, info) = tokens.add(brain, role).map_err(fail)?;
            if !dir.join(brain).join("brain.db").is_file() {
                eprintln!(
                    "crabpath token: note: {} has no brain.db yet",
                    dir.join(brain).display()
                );
            }
            eprintln!(
                "crabpath token: added {} (brain {}, role {}); the token is shown once:",
                info.id,
                info.brain,
                role.as_str()
            );
            println!("{secret}");
        }
        TokenAction::List { brains, json } => {
            let dir = crabpath_brain::source::workspace::expanduser(brains);
            let list = Tokens::open(&dir, false)
                .map_err(fail)?
                .list()
                .map_err(fail)?;
            if *json {
                let v: Vec<_> = list
                    .iter()
                    .map(|t| {
                        serde_json::json!({"id": t.id, "brain": t.brain,
                            "role": t.role.as_str(), "created": utc(t.created)})
                    })
                    .collect();
                println!("{}", serde_json::Value::Array(v));
            } else {
                println!("id\tbrain\trole\tcreated");
                for t in &list {
                    println!(
                        "{}\t{}\t{}\t{}",
                        t.id,
                        t.brain,
                        t.role.as_str(),
                        utc(t.created)
                    );
                }
            }
        }
        TokenAction::Revoke { brains, id } => {
            let dir = crabpath_brain::source::workspace::expanduser(brains);
            let tokens = Tokens::open(&dir, false).map_err(fail)?;
            if !tokens.revoke(id).map_err(fail)? {
                return Err(fail(format!(
                    "no token `{id}` in {} (see `crabpath token list`)",
                    Tokens::path(&dir).display()
                )));
            }
            eprintln!("crabpath token: revoked {id}");
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        // 1_764_288_000 = 2025-11-28T00:00:00Z (20,420 days of 86,400 s after the epoch)
        assert_eq!(
            super::utc(1_764_288_000 + 3_661),
            "2025-11-28T01:01:01+00:00"
        );
    }
}
