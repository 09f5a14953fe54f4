//! `crabpath migrate` (issue 32, item 3): a brain copied between its SQLite database and
//! a PostgreSQL schema ([`crabpath_pg::migrate`]), and what was copied printed.

use std::path::{Path, PathBuf};

use crate::args::MigrateArgs;
use crate::context::Ctx;
use crate::error::{CliError, CliResult};
use crate::out;

/// One side of a copy, as `--from` / `--to` name it.
enum Side {
    /// `sqlite:PATH`.
    Sqlite(PathBuf),
    /// A PostgreSQL address.
    Postgres(String),
}

fn side(flag: &str, v: &str) -> Result<Side, CliError> {
    if let Some(p) = v.strip_prefix("sqlite:") {
        if p.is_empty() {
            return Err(CliError::Other(anyhow::anyhow!(
                "{flag} sqlite: needs a path"
            )));
        }
        return Ok(Side::Sqlite(PathBuf::from(p)));
    }
    if v.starts_with("postgres://") || v.starts_with("postgresql://") {
        return Ok(Side::Postgres(v.to_string()));
    }
    Err(CliError::Other(anyhow::anyhow!(
        "{flag} {}: expected sqlite:PATH or a postgres:// address",
        crabpath_pg::redact(v)
    )))
}

/// The default brain name of a SQLite brain at `path`: its directory's name (the
/// directory holding brain.db when `path` is the file), lowercased, every character
/// other than a-z, 0-9 and _ as _.
fn default_name(path: &Path) -> String {
    let dir = if path.is_file() {
        path.parent()
    } else {
        Some(path)
    };
    dir.and_then(|d| d.file_name())
        .map(|n| {
            n.to_string_lossy()
                .to_lowercase()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn run(ctx: &Ctx, a: &MigrateArgs) -> CliResult {
    let (copied, direction) = match (side("--from", &a.from)?, side("--to", &a.to)?) {
        (Side::Sqlite(from), Side::Postgres(url)) => {
            let path = ctx.state_path(&from.to_string_lossy(), true);
            let db = match crabpath_brain::locate(&path) {
                crabpath_brain::Location::Store(db) => db,
                _ => {
                    return Err(CliError::Other(anyhow::anyhow!(
                    "--from {}: not a brain database (a state file? `crabpath import` it first)",
                    from.display()
                )))
                }
            };
            let name = a.brain.clone().unwrap_or_else(|| default_name(&path));
            crabpath_pg::schema::schema_name(&name)?;
            let mut client = crabpath_pg::connect(&url)?;
            (
                crabpath_pg::sqlite_to_postgres(&db, &mut client, &name)?,
                "into",
            )
        }
        (Side::Postgres(url), Side::Sqlite(to)) => {
            let Some(name) = &a.brain else {
                return Err(CliError::Other(anyhow::anyhow!(
                    "--brain is needed to name the brain to copy out of PostgreSQL"
                )));
            };
            crabpath_pg::schema::schema_name(name)?;
            let mut client = crabpath_pg::connect(&url)?;
            (
                crabpath_pg::postgres_to_sqlite(
                    &mut client,
                    name,
                    &ctx.state_path(&to.to_string_lossy(), true),
                )?,
                "out of",
            )
        }
        _ => {
            return Err(CliError::Other(anyhow::anyhow!(
                "migrate copies between sqlite:PATH and a postgres:// address, one of each"
            )))
        }
    };
    let rows: usize = copied.tables.iter().map(|t| t.1).sum();
    if a.json {
        let tables: Vec<String> = copied
            .tables
            .iter()
            .map(|(t, n)| format!("\"{t}\": {n}"))
            .collect();
        out::println(&format!(
            "{{\"schema\": \"{}\", \"tables\": {{{}}}}}",
            copied.schema,
            tables.join(", ")
        ));
    } else {
        let detail: Vec<String> = copied
            .tables
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        out::println(&format!(
            "Copied {rows} rows ({}) {direction} PostgreSQL schema {}",
            detail.join(", "),
            copied.schema
        ));
    }
    Ok(0)
}
